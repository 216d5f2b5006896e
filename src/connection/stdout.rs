//! The server's stdout as the stdio loop reads it: read in the loop's own task, split into
//! lines, and decoded there when a read brings a line or a few (a reply wakes only the loop),
//! or on a decoder thread when it brings many (a flood is decoded beside the loop recording
//! the batch before it).
//!
//! Owns: the pipe, the frame splitter, which reads go to the decoder, and handing the loop
//! what was read strictly in the order it was read, the end of stdout last. Refuses: what a
//! line means once classified (`stdio`, `spine`) and anything that records (only the loop
//! records, so the log follows the wire).

use std::sync::mpsc as std_mpsc;

use tokio::io::AsyncReadExt as _;
use tokio::process::ChildStdout;
use tokio::sync::mpsc;

use super::inbound::{classify, Inbound};
use crate::log::{Direction, Entry, Kind};
use crate::wire::{FrameSplitter, Piece};

/// A read that completes at most this many lines is decoded in the loop's task: a request's
/// reply comes alone, and a hop to another thread would cost more than decoding it. A read
/// with more is a flood, decoded on the decoder thread.
const INLINE_PIECES: usize = 4;
/// How many batches may be at the decoder at once; past it stdout is not read, so a server
/// flooding stdout is slowed by the pipe rather than buffered here.
const IN_FLIGHT: usize = 4;
/// How much one read asks for.
const READ_BYTES: usize = 64 * 1024;

/// What the loop is handed: a classified line, or a piece of an over-long one.
#[expect(
    clippy::large_enum_variant,
    reason = "lines are nearly every item; boxing them costs an allocation each"
)]
pub enum Read {
    Line(Inbound),
    Piece(Piece),
}

pub struct Stdout {
    conn: u64,
    pipe: ChildStdout,
    buf: Vec<u8>,
    splitter: FrameSplitter,
    /// Pieces to decode; `None` if the decoder thread could not start or has gone, and then
    /// every read is decoded in the loop's task.
    decoder: Option<std_mpsc::Sender<Vec<Piece>>>,
    decoded: mpsc::UnboundedReceiver<Vec<Read>>,
    /// Batches sent to the decoder and not yet handed on: while any are, later reads go there
    /// too, behind them, so nothing overtakes.
    in_flight: usize,
    /// Stdout ended: what was left of it, handed on once every batch before it has been.
    ended: Option<Vec<Read>>,
}

impl Stdout {
    pub fn new(conn: u64, pipe: ChildStdout, max_line: usize) -> Stdout {
        let (decoded_tx, decoded) = mpsc::unbounded_channel();
        let (decoder, pieces) = std_mpsc::channel::<Vec<Piece>>();
        // The thread ends when the loop drops its sender, or the loop is gone.
        let spawned = std::thread::Builder::new().name(format!("stdout-{conn}")).spawn(move || {
            for batch in pieces {
                if decoded_tx.send(classified(conn, batch)).is_err() {
                    return;
                }
            }
        });
        Stdout {
            conn,
            pipe,
            buf: vec![0; READ_BYTES],
            splitter: FrameSplitter::new(max_line),
            decoder: spawned.ok().map(|_| decoder),
            decoded,
            in_flight: 0,
            ended: None,
        }
    }

    /// What was read next, in order; `None` once stdout has ended and all of it was handed on.
    ///
    /// Cancellation-safe: state changes only between awaits (a read that completed is split
    /// and handed on or sent to the decoder before the next await), and both awaits lose
    /// nothing when dropped unfinished.
    pub async fn next(&mut self) -> Option<Vec<Read>> {
        loop {
            if self.in_flight == 0 {
                if let Some(last) = self.ended.as_mut() {
                    return (!last.is_empty()).then(|| std::mem::take(last));
                }
            }
            tokio::select! {
                biased;
                batch = self.decoded.recv(), if self.in_flight > 0 => match batch {
                    Some(batch) => {
                        self.in_flight -= 1;
                        return Some(batch);
                    }
                    // The decoder thread died; what it held is lost, so the log says so.
                    None => {
                        self.in_flight = 0;
                        self.decoder = None;
                        return Some(vec![note(self.conn, "a batch of stdout lines was lost: the decoder thread ended")]);
                    }
                },
                read = self.pipe.read(&mut self.buf), if self.ended.is_none() && self.in_flight < IN_FLIGHT => {
                    let n = match read {
                        Ok(n) => n,
                        Err(e) => {
                            self.end(Some(note(self.conn, &format!("could not read the server's stdout: {e}"))));
                            continue;
                        }
                    };
                    if n == 0 {
                        self.end(None);
                        continue;
                    }
                    let pieces = self.splitter.push(&self.buf[..n]);
                    if let Some(reads) = self.hand_on(pieces) {
                        return Some(reads);
                    }
                }
            }
        }
    }

    /// Decodes `pieces` here and returns them when that keeps the order and they are few;
    /// otherwise sends them to the decoder, behind what it already holds.
    fn hand_on(&mut self, pieces: Vec<Piece>) -> Option<Vec<Read>> {
        if pieces.is_empty() {
            return None;
        }
        if self.in_flight == 0 && pieces.len() <= INLINE_PIECES {
            return Some(classified(self.conn, pieces));
        }
        let Some(decoder) = &self.decoder else {
            return Some(classified(self.conn, pieces));
        };
        match decoder.send(pieces) {
            Ok(()) => {
                self.in_flight += 1;
                None
            }
            // The decoder panicked (nothing else ends it while this end lives): this batch and
            // the rest are decoded here.
            Err(std_mpsc::SendError(pieces)) => {
                self.decoder = None;
                Some(classified(self.conn, pieces))
            }
        }
    }

    /// Stdout ended (or could not be read): what the splitter held, and `why`, come last.
    fn end(&mut self, why: Option<Read>) {
        let mut last = match self.splitter.finish() {
            Some(piece) => classified(self.conn, vec![piece]),
            None => Vec::new(),
        };
        last.extend(why);
        self.ended = Some(last);
    }
}

fn classified(conn: u64, pieces: Vec<Piece>) -> Vec<Read> {
    pieces
        .into_iter()
        .map(|piece| match piece {
            Piece::Line(line) => Read::Line(classify(conn, line, true)),
            Piece::Unterminated(line) => Read::Line(classify(conn, line, false)),
            other => Read::Piece(other),
        })
        .collect()
}

fn note(conn: u64, detail: &str) -> Read {
    let entry = Entry::new(conn, Kind::Note, Direction::Meta).with_detail(detail.to_owned());
    Read::Line(Inbound { entry, message: None })
}
