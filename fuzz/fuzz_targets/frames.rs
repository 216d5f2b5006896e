//! Fuzzes the stdout path: arbitrary bytes, split into arbitrary reads, through the frame
//! splitter with a small cap and then the decoder. Nothing may panic, no piece may exceed the
//! cap, and every recorded entry must give back exactly the bytes of its line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sonde_core::internals::classify;
use sonde_core::internals::{FrameSplitter, Piece};

fuzz_target!(|data: &[u8]| {
    let Some((&knobs, bytes)) = data.split_first() else { return };
    let cap = 1 + (knobs as usize % 64) * 16;
    let step = 1 + (knobs as usize % 7);
    let mut splitter = FrameSplitter::new(cap);
    let mut pieces = Vec::new();
    for chunk in bytes.chunks(step) {
        pieces.extend(splitter.push(chunk));
    }
    pieces.extend(splitter.finish());
    let mut kept = 0usize;
    for piece in pieces {
        match piece {
            Piece::Line(line) | Piece::Unterminated(line) => {
                assert!(line.len() <= cap);
                kept += line.len();
                let inbound = classify(1, line.clone(), true);
                assert_eq!(inbound.entry.bytes().unwrap(), line);
            }
            Piece::Head(head) => {
                assert_eq!(head.len(), cap);
                kept += head.len();
            }
            Piece::Truncated { total_len, .. } => assert!(total_len as usize > cap),
        }
    }
    assert!(kept <= bytes.len());
});
