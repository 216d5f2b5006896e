//! The stdio connection loop: one task, one `select!`, the only owner of the pending map.
//!
//! Owns: the server's stdin (a frame is recorded, then queued for the writer; a request waits
//! unrecorded while earlier frames fill the pipe, see `TransportLoop::busy`) and what `stdout`
//! hands on from stdout, an over-long line failing the request it answers, failing pending
//! requests once the server is gone, and the shutdown ladder.
//! Refuses: what both loops share (`spine`: commands, cancels, timeouts, server requests)
//! and the meaning of MCP methods.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::inbound::{sniff_id, sniff_last_id, with_summary, Inbound};
use super::pending::{awaited, sleep_until};
use super::spine::{cancelled, Command, Spine, TransportLoop};
use super::stdin::Stdin;
use super::stdout::{Read, Stdout};
use super::{Options, RequestError, Responder};
use crate::log::{Direction, Entry, Kind, RequestOutcome, WireLog};
use crate::process::{ExitInfo, Process, Spawned};
use crate::wire::{encode_line, Message, Piece, RequestId};

/// How long to wait, once the server has exited, for the last bytes on its stdout (or, once
/// stdout has closed, for the exit) before failing pending requests with what is known.
const SETTLE: Duration = Duration::from_millis(300);

struct Loop {
    spine: Spine,
    process: Arc<Process>,
    /// Frames for the stdin writer; `None` once stdin is being closed.
    stdin: Stdin,
    stdout_closed: bool,
    exit: Option<ExitInfo>,
    /// When pending requests are failed even if the other half of the news has not come.
    settle_at: Option<Instant>,
    ladder: Option<JoinHandle<Option<ExitInfo>>>,
    /// The id sniffed from the head of an over-long line, until its end arrives.
    over_long_id: Option<RequestId>,
    shut_down: bool,
}

pub async fn run(
    conn: u64,
    spawned: Spawned,
    log: Arc<WireLog>,
    options: Options,
    responder: Arc<dyn Responder>,
    mut commands: mpsc::UnboundedReceiver<Command>,
) {
    let Spawned { process, stdin, stdout } = spawned;
    let mut stdout = Stdout::new(conn, stdout, options.max_line);
    let mut exit_watch: watch::Receiver<Option<ExitInfo>> = process.exit_watch();
    let (spine, mut late_replies) = Spine::new(conn, log, options, responder);
    let mut lp = Loop {
        spine,
        process: Arc::new(process),
        stdin: Stdin::new(stdin),
        stdout_closed: false,
        exit: None,
        settle_at: None,
        ladder: None,
        over_long_id: None,
        shut_down: false,
    };
    let mut commands_open = true;
    loop {
        let deadline = lp.spine.next_deadline();
        // Every branch is cancellation-safe: mpsc and watch receives and `Stdout::next` lose
        // nothing when dropped unfinished, sleeps are re-armed from state each turn, and a JoinHandle can be polled
        // again after a select! drops the borrow of it.
        tokio::select! {
            command = commands.recv(), if commands_open => commands_open = lp.received(command),
            Some(reply) = late_replies.recv() => {
                lp.send_reply(reply, "a reply answered later".into());
            },
            batch = stdout.next(), if !lp.stdout_closed => match batch {
                Some(batch) => batch.into_iter().for_each(|read| lp.on_read(read)),
                None => lp.on_stdout_closed(),
            },
            changed = exit_watch.changed(), if lp.exit.is_none() => {
                let info = exit_watch.borrow_and_update().clone();
                match (changed, info) {
                    (_, Some(info)) => lp.on_exit(info),
                    (Err(_), None) => lp.on_exit(ExitInfo { code: None, signal: None, during: Some("(exit status lost)".into()) }),
                    (Ok(()), None) => {}
                }
            },
            written = lp.stdin.drain(), if lp.stdin.has_backlog() => match written {
                Err(e) => lp.stdin_failed(e),
                Ok(()) => lp.release_held(),
            },
            _ = sleep_until(deadline), if deadline.is_some() => lp.on_timeouts(),
            _ = sleep_until(lp.settle_at), if lp.settle_at.is_some() => lp.fail_pending(),
            outcome = async { lp.ladder.as_mut().expect("guarded").await }, if lp.ladder.is_some() => {
                lp.ladder = None;
                lp.finish_shutdown(outcome.unwrap_or(None));
                if !commands_open {
                    return;
                }
            },
            else => return,
        }
        if lp.shut_down && !commands_open && lp.ladder.is_none() {
            return;
        }
    }
}

impl TransportLoop for Loop {
    fn spine(&mut self) -> &mut Spine {
        &mut self.spine
    }

    /// The reason new requests cannot be sent, once the server is gone or going.
    fn refusal(&self) -> Option<String> {
        if let Some(exit) = &self.exit {
            return Some(format!("server {}", exit.describe()));
        }
        if self.stdout_closed {
            return Some("server closed stdout".into());
        }
        (!self.stdin.is_open()).then(|| "the connection is shutting down".into())
    }

    fn send_request(&mut self, _id: &RequestId, _method: &str, message: Message, probe: bool) -> u64 {
        self.send(&message, probe)
    }

    fn send_notification(&mut self, method: String, params: Option<Value>) {
        self.send(&Message::notification(&method, params), false);
    }

    fn send_reply(&mut self, reply: Message, _what: String) {
        self.send(&reply, false);
    }

    /// `notifications/cancelled`, never for `initialize`.
    fn stop(&mut self, id: &RequestId, method: &str, reason: &str) {
        if method != "initialize" {
            self.send(&cancelled(id, reason), false);
        }
    }

    fn timed_out(&mut self, id: &RequestId, method: &str, probe: bool, after: &str, seq: u64) {
        // The probe is never cancelled (the SDKs never do, and a legacy server has not been
        // initialized yet), and initialize must not be.
        if probe || method == "initialize" {
            self.spine.settled(
                seq,
                RequestOutcome::TimedOut,
                format!("{method} {id} got no reply within {after}"),
            );
            return;
        }
        let words = format!(
            "{method} {id} got no {} within {after}; sending notifications/cancelled",
            awaited(method)
        );
        self.spine.settled(seq, RequestOutcome::TimedOut, words);
        self.stop(id, method, &format!("Sonde stopped waiting after {after}"));
    }

    fn exit_info(&self) -> Option<ExitInfo> {
        self.exit.clone()
    }

    fn pid(&self) -> Option<u32> {
        Some(self.process.pid())
    }

    fn is_shut_down(&self) -> bool {
        self.shut_down
    }

    /// Busy while earlier frames wait for room in the pipe: a request is written only when
    /// its turn comes, so one whose caller has gone meanwhile is never written.
    fn busy(&self) -> bool {
        self.stdin.has_backlog()
    }

    fn start_shutdown(&mut self) {
        if self.ladder.is_some() || self.shut_down {
            return;
        }
        self.spine.drop_held("the connection is shutting down");
        // Dropping the sender lets the writer finish what is queued and then close stdin:
        // step one of the ladder.
        let graces = self.spine.options.graces;
        self.process.stdin_closing(graces);
        self.stdin.close();
        let process = self.process.clone();
        self.ladder = Some(tokio::spawn(async move { process.shutdown(graces).await }));
    }
}

impl Loop {
    /// Records a frame and queues it for stdin. Returns its seq. Once stdin is closed the
    /// frame is recorded as a note instead, so the log never claims a frame that was not sent.
    fn send(&mut self, message: &Message, probe: bool) -> u64 {
        let json = message.to_json();
        let conn = self.spine.conn;
        if !self.stdin.is_open() {
            let what = message.method().map_or_else(|| "reply".to_owned(), str::to_owned);
            let detail = format!("not sent: stdin was already closed ({what})");
            return self
                .spine
                .log
                .append(Entry::new(conn, Kind::Note, Direction::Meta).with_bytes(&json).with_detail(detail));
        }
        // Recorded before it is written: the log never lags behind the wire.
        let mut entry = with_summary(
            Entry::new(conn, Kind::Message, Direction::Out).with_bytes(&json).json_frame(),
            message,
        );
        entry.probe = probe;
        self.spine.mark_out(&mut entry, message);
        let seq = self.spine.log.append(entry);
        if let Err(e) = self.stdin.send(encode_line(&json)) {
            self.stdin_failed(e);
        }
        seq
    }

    fn stdin_failed(&mut self, e: std::io::Error) {
        self.stdin.abandon();
        self.note(format!("could not write to the server's stdin: {e}; later frames are not delivered"));
        self.spine.drop_held("the server's stdin could not be written");
    }

    fn on_read(&mut self, read: Read) {
        let (conn, cap) = (self.spine.conn, self.spine.options.max_line);
        match read {
            Read::Line(inbound) => self.on_line(inbound),
            Read::Piece(Piece::Line(_) | Piece::Unterminated(_)) => {
                unreachable!("lines are classified by the reader")
            }
            Read::Piece(Piece::Head(head)) => {
                let entry = Entry::new(conn, Kind::DecodeError, Direction::In)
                    .with_bytes(&head)
                    .with_detail(format!("the first {cap} bytes of a line longer than the line cap"));
                self.spine.log.append(entry);
                self.over_long_id = sniff_id(&head);
            }
            Read::Piece(Piece::Truncated { total_len, tail }) => {
                let mut detail = format!(
                    "a {total_len}-byte line was cut to the {cap}-byte line cap; the connection goes on"
                );
                // The id leads the line (Sonde's order) or ends it (the TypeScript SDK writes
                // `result` first): either way the request fails now, not at its timeout.
                let id = self.over_long_id.take().or_else(|| sniff_last_id(&tail));
                if let Some(pending) = id.and_then(|id| self.spine.pending.remove(&id)) {
                    detail.push_str(&format!("; it answered {} (seq {})", pending.method, pending.seq));
                    let _ = pending.reply.send(Err(RequestError::TooLarge {
                        method: pending.method,
                        len: total_len,
                        cap,
                    }));
                }
                self.spine.log.append(Entry::new(conn, Kind::Truncated, Direction::In).with_detail(detail));
            }
        }
    }

    fn on_line(&mut self, inbound: Inbound) {
        let entry = inbound.entry;
        let Some(message) = inbound.message else {
            self.spine.log.append(entry);
            return;
        };
        match message {
            Message::Response { id: Some(id), outcome } => self.on_reply(entry, id, outcome),
            Message::Response { id: None, .. } => {
                self.spine.log.append(
                    entry.with_detail(
                        "an error with id null: the server could not read one of Sonde's frames",
                    ),
                );
            }
            Message::Request { id, method, params } => {
                self.on_server_request(entry, id, &method, params.as_ref())
            }
            Message::Notification { method, params } => self.on_notification(entry, &method, params.as_ref()),
        }
    }

    fn on_stdout_closed(&mut self) {
        self.stdout_closed = true;
        self.process.note_stdout_closed();
        self.arm_settle();
    }

    fn on_exit(&mut self, info: ExitInfo) {
        self.exit = Some(info);
        self.arm_settle();
    }

    /// Pending requests fail once both halves of the news are in (stdout closed and the
    /// exit status known), or a moment after the first half, whichever comes first.
    fn arm_settle(&mut self) {
        if self.stdout_closed && self.exit.is_some() {
            self.fail_pending();
        } else if self.settle_at.is_none() {
            self.settle_at = Some(Instant::now() + SETTLE);
        }
    }

    fn fail_pending(&mut self) {
        self.settle_at = None;
        let Some(reason) = self.refusal() else {
            return;
        };
        self.spine.drop_held(&reason);
        self.spine.fail_pending(&reason);
    }

    fn finish_shutdown(&mut self, exit: Option<ExitInfo>) {
        self.shut_down = true;
        if self.exit.is_none() {
            self.exit = exit;
        }
        self.fail_pending();
        self.spine.release_waiters(self.exit.clone());
    }
}
