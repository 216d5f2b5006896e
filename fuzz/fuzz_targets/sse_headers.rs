//! Fuzzes the HTTP read and write paths: arbitrary bytes in arbitrary chunks through the SSE
//! parser with a small per-event cap, and arbitrary strings and schemas through the
//! 2026-07-28 header encoder and the `x-mcp-header` validator. Nothing may panic; parsing is
//! the same whatever the chunking; an encoded header value is always a valid header value
//! that decodes back to the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sonde_core::internals::{decode_text, encode_text, header_params};
use sonde_core::internals::parse_chunks;

fuzz_target!(|data: &[u8]| {
    let Some((&knobs, bytes)) = data.split_first() else { return };
    let cap = 16 + (knobs as usize % 32) * 64;
    let step = 1 + (knobs as usize % 5);
    let whole = parse_chunks(vec![bytes.to_vec()], usize::MAX);
    let chunked = parse_chunks(bytes.chunks(step).map(<[u8]>::to_vec).collect(), usize::MAX);
    assert_eq!(whole, chunked, "events do not depend on how the bytes arrive");
    let _ = parse_chunks(bytes.chunks(step).map(<[u8]>::to_vec).collect(), cap);

    let text = String::from_utf8_lossy(bytes);
    let encoded = encode_text(&text);
    assert!(encoded.bytes().all(|b| (0x20..0x7f).contains(&b)), "a header value is printable ASCII");
    assert!(!encoded.starts_with(' ') && !encoded.ends_with(' '));
    assert_eq!(decode_text(&encoded).as_deref(), Some(&*text));
    if let Ok(schema) = serde_json::from_slice::<serde_json::Value>(bytes) {
        if let Ok(params) = header_params(&schema) {
            for p in params {
                assert!(!p.header.is_empty() && !p.path.is_empty());
            }
        }
    }
});
