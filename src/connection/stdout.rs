//! The server's stdout as the stdio loop reads it: read in the loop's own task, then split
//! into lines and classified there when a read brings at most `INLINE_LINES` (4) of them (a
//! reply wakes only the loop), or on a decoder thread (`stdout-N`) when it brings more (a
//! flood is split and classified beside the loop recording the batch before it).
//!
//! Owns: the pipe and how much one read asks for, the frame splitter (one, used by one side at
//! a time), which reads go to the decoder, at most `IN_FLIGHT` (4) reads there at once (past
//! that stdout is not read, so a flooding server is slowed by its pipe rather than buffered
//! here), and handing the loop what was read strictly in read order: classified lines, the
//! pieces of an over-long line, the unterminated tail, then the end of stdout (with a note if
//! a read failed). A decoder that could not start or died leaves every later read to the
//! loop's task, and a note saying what it took with it.
//! Refuses: acting on a line once classified (`stdio`, `spine`) and recording anything (only
//! the loop records, so the log follows the wire).

use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::io::AsyncReadExt as _;
use tokio::process::ChildStdout;
use tokio::sync::mpsc;

use super::inbound::{classify, Inbound};
use crate::log::{Direction, Entry, Kind};
use crate::sync::Lock;
use crate::wire::{FrameSplitter, Piece};

/// A read with at most this many newlines is split and decoded in the loop's task: a request's
/// reply comes alone, and a hop to another thread would cost more than decoding it. A read
/// with more is a flood, split and decoded on the decoder thread.
const INLINE_LINES: usize = 4;
/// How many reads may be at the decoder at once; past it stdout is not read, so a server
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
    /// One splitter for both sides: the loop uses it only while nothing is at the decoder, so
    /// the two never wait for each other and a line split across reads is joined whichever
    /// side reads its end.
    splitter: Arc<Mutex<FrameSplitter>>,
    /// Reads to split and decode; `None` if the decoder thread could not start or has gone,
    /// and then every read is handled in the loop's task.
    decoder: Option<std_mpsc::Sender<Vec<u8>>>,
    decoded: mpsc::UnboundedReceiver<Vec<Read>>,
    /// Reads sent to the decoder and not yet handed on: while any are, later reads go there
    /// too, behind them, so nothing overtakes.
    in_flight: usize,
    /// Stdout ended, and why if it was an error: handed on, after what the splitter holds,
    /// once every read before it has been.
    ending: Option<Option<Read>>,
    done: bool,
}

impl Stdout {
    pub fn new(conn: u64, pipe: ChildStdout, max_line: usize) -> Stdout {
        let splitter = Arc::new(Mutex::new(FrameSplitter::new(max_line)));
        let (decoded_tx, decoded) = mpsc::unbounded_channel();
        let (decoder, reads) = std_mpsc::channel::<Vec<u8>>();
        let shared = splitter.clone();
        // One batch back for every read sent, even an empty one, so the loop can count them.
        // The thread ends when the loop drops its sender, or the loop is gone.
        let spawned = std::thread::Builder::new().name(format!("stdout-{conn}")).spawn(move || {
            for bytes in reads {
                let pieces = lock(&shared).push(&bytes);
                if decoded_tx.send(classified(conn, pieces)).is_err() {
                    return;
                }
            }
        });
        Stdout {
            conn,
            pipe,
            buf: vec![0; READ_BYTES],
            splitter,
            decoder: spawned.ok().map(|_| decoder),
            decoded,
            in_flight: 0,
            ending: None,
            done: false,
        }
    }

    /// What was read next, in order; `None` once stdout has ended and all of it was handed on.
    ///
    /// Cancellation-safe: state changes only between awaits (a read that completed is handed
    /// on or sent to the decoder before the next await), and both awaits lose nothing when
    /// dropped unfinished.
    pub async fn next(&mut self) -> Option<Vec<Read>> {
        loop {
            if self.in_flight == 0 {
                if let Some(why) = self.ending.take() {
                    self.done = true;
                    let mut last = classified(self.conn, lock(&self.splitter).finish().into_iter().collect());
                    last.extend(why);
                    if !last.is_empty() {
                        return Some(last);
                    }
                }
                if self.done {
                    return None;
                }
            }
            let reading = self.ending.is_none() && !self.done && self.in_flight < IN_FLIGHT;
            // Reading comes first while the decoder has room: stdout is drained as long as
            // the decoder is behind, so a flooding server is not stalled on a full pipe while
            // the loop records what was decoded.
            tokio::select! {
                biased;
                read = self.pipe.read(&mut self.buf), if reading => match read {
                    Ok(0) => self.ending = Some(None),
                    Err(e) => self.ending = Some(Some(note(self.conn, &format!("could not read the server's stdout: {e}")))),
                    Ok(n) => {
                        if let Some(reads) = self.hand_on(n) {
                            return Some(reads);
                        }
                    }
                },
                batch = self.decoded.recv(), if self.in_flight > 0 => match batch {
                    Some(batch) => {
                        self.in_flight -= 1;
                        if !batch.is_empty() {
                            return Some(batch);
                        }
                    }
                    // The decoder thread died; what it held is lost, so the log says so.
                    None => {
                        self.in_flight = 0;
                        self.decoder = None;
                        return Some(vec![lost(self.conn)]);
                    }
                },
            }
        }
    }

    /// Splits and decodes the `n` bytes just read here, and returns them, when that keeps the
    /// order and they hold few lines; otherwise sends them to the decoder, behind what it
    /// already holds.
    fn hand_on(&mut self, n: usize) -> Option<Vec<Read>> {
        let bytes = &self.buf[..n];
        let few = memchr::memchr_iter(b'\n', bytes).take(INLINE_LINES + 1).count() <= INLINE_LINES;
        if self.in_flight == 0 && few {
            let pieces = lock(&self.splitter).push(bytes);
            return (!pieces.is_empty()).then(|| classified(self.conn, pieces));
        }
        let sent = self.decoder.as_ref().map(|decoder| decoder.send(bytes.to_vec()));
        match sent {
            Some(Ok(())) => {
                self.in_flight += 1;
                None
            }
            // No decoder (it never started, or panicked: nothing else ends it while this end
            // lives): this read and the rest are handled here, after what the dead decoder
            // had handed back and the note of what it took with it.
            _ => {
                self.decoder = None;
                let mut reads = Vec::new();
                if self.in_flight > 0 {
                    while let Ok(batch) = self.decoded.try_recv() {
                        reads.extend(batch);
                    }
                    self.in_flight = 0;
                    reads.push(lost(self.conn));
                }
                let pieces = lock(&self.splitter).push(&self.buf[..n]);
                reads.extend(classified(self.conn, pieces));
                (!reads.is_empty()).then_some(reads)
            }
        }
    }
}

/// The splitter, even if the decoder panicked holding it: the loop goes on with what it holds
/// rather than panicking too.
fn lock(splitter: &Mutex<FrameSplitter>) -> MutexGuard<'_, FrameSplitter> {
    splitter.locked()
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

/// What the log says when the decoder thread died holding reads.
fn lost(conn: u64) -> Read {
    note(conn, "stdout read by Sonde was lost: its decoder thread ended")
}

fn note(conn: u64, detail: &str) -> Read {
    let entry = Entry::new(conn, Kind::Note, Direction::Meta).with_detail(detail.to_owned());
    Read::Line(Inbound { entry, message: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads of every size (a line or two at the shell's pace, thousands when the pipe has
    /// filled) go inline or to the decoder; whichever way, the lines come out in the order
    /// written, the unterminated tail last, then the end.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn lines_come_out_in_the_order_written_whichever_side_decodes_them() {
        // The first lines come a moment apart, so that they are read one at a time.
        let script = "for i in 0 1 2 3 4; do echo $i; sleep 0.02; done; \
                      i=5; while [ $i -lt 20000 ]; do echo $i; i=$((i+1)); done; printf tail";
        let mut child = tokio::process::Command::new("sh")
            .args(["-c", script])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = Stdout::new(1, child.stdout.take().unwrap(), 1024);
        let mut lines = Vec::new();
        let deadline = std::time::Duration::from_secs(60);
        while let Some(reads) = tokio::time::timeout(deadline, stdout.next()).await.expect("stdout ends") {
            for read in reads {
                let Read::Line(inbound) = read else { panic!("no line here is over the cap") };
                lines.push(inbound.entry.text.expect("the lines are text"));
            }
        }
        let mut want: Vec<String> = (0..20_000).map(|i| i.to_string()).collect();
        want.push("tail".into());
        assert_eq!(lines, want);
        assert!(stdout.next().await.is_none(), "the end is said again, not new lines");
        child.wait().await.unwrap();
    }

    /// A decoder that died holding reads: what it had handed back comes first, then the note
    /// of what was lost, then what is read after, never the other way round.
    #[tokio::test]
    async fn after_the_decoder_dies_its_last_batch_and_the_loss_come_before_later_reads() {
        let mut child = tokio::process::Command::new("sh")
            .args(["-c", "printf '1\\n2\\n3\\n4\\n5\\n6\\n'"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = Stdout::new(1, child.stdout.take().unwrap(), 1024);
        // The lines are all in the pipe before anything is read: the next read brings six.
        child.wait().await.unwrap();
        // A decoder that handed back one batch and died holding another.
        let (handed, decoded) = mpsc::unbounded_channel();
        handed.send(classified(1, vec![Piece::Line(b"A".to_vec())])).unwrap();
        drop(handed);
        let (dead, gone) = std_mpsc::channel();
        drop(gone);
        (stdout.decoded, stdout.decoder, stdout.in_flight) = (decoded, Some(dead), 2);
        let mut seen = Vec::new();
        let deadline = std::time::Duration::from_secs(60);
        while let Some(reads) = tokio::time::timeout(deadline, stdout.next()).await.expect("stdout ends") {
            for read in reads {
                let Read::Line(inbound) = read else { panic!("no line here is over the cap") };
                seen.push(inbound.entry.text.or(inbound.entry.detail).unwrap());
            }
        }
        let lost = "stdout read by Sonde was lost: its decoder thread ended";
        assert_eq!(seen, ["A", lost, "1", "2", "3", "4", "5", "6"]);
    }
}
