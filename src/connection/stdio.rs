//! The connection loop: one task, one `select!`, the only owner of the pending map.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncReadExt;
use tokio::process::ChildStdout;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::inbound::{classify, sniff_id, with_summary, Inbound};
use super::pending::{sleep_until, Pending, Table};
use super::responder::reply_to;
use super::stdin::Stdin;
use super::{Options, Request, RequestError, Responder};
use crate::era::Era;
use crate::log::{Direction, Entry, Kind, WireLog};
use crate::process::{duration_words, ExitInfo, Process, Spawned};
use crate::wire::{encode_line, FrameSplitter, Message, Piece, RequestId};

/// How long to wait, once the server has exited, for the last bytes on its stdout (or, once
/// stdout has closed, for the exit) before failing pending requests with what is known.
const SETTLE: Duration = Duration::from_millis(300);

pub enum Command {
    Request {
        id: RequestId,
        request: Request,
        reply: oneshot::Sender<Result<Value, RequestError>>,
    },
    Cancel {
        id: RequestId,
        reason: String,
    },
    CancelAll {
        reason: String,
    },
    Notify {
        method: String,
        params: Option<Value>,
    },
    ExitInfo {
        reply: oneshot::Sender<Option<ExitInfo>>,
    },
    Pid {
        reply: oneshot::Sender<u32>,
    },
    Shutdown {
        reply: oneshot::Sender<Option<ExitInfo>>,
    },
    /// The era was decided: in 2026-07-28 a server must not send requests, so they are
    /// flagged and left unanswered instead of answered.
    SetEra(Era),
}

struct Loop {
    conn: u64,
    log: Arc<WireLog>,
    options: Options,
    responder: Arc<dyn Responder>,
    /// Replies to server requests answered later (by a person), sent when they come.
    late: mpsc::UnboundedSender<Message>,
    process: Arc<Process>,
    /// Frames for the stdin writer; `None` once stdin is being closed.
    stdin: Stdin,
    pending: Table,
    stdout_closed: bool,
    exit: Option<ExitInfo>,
    /// When pending requests are failed even if the other half of the news has not come.
    settle_at: Option<Instant>,
    ladder: Option<JoinHandle<Option<ExitInfo>>>,
    /// The id sniffed from the head of an over-long line, until its end arrives.
    over_long_id: Option<RequestId>,
    shutdown_waiters: Vec<oneshot::Sender<Option<ExitInfo>>>,
    shut_down: bool,
    era: Option<Era>,
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
    // Bounded, so a server flooding stdout is slowed by the pipe rather than buffered here.
    // Each item is every piece one read produced: one wake-up per read, not per frame.
    let (pieces_tx, mut pieces) = mpsc::channel(16);
    tokio::spawn(read_stdout(stdout, conn, options.max_line, pieces_tx));
    let mut exit_watch: watch::Receiver<Option<ExitInfo>> = process.exit_watch();
    let (late, mut late_replies) = mpsc::unbounded_channel();
    let mut lp = Loop {
        conn,
        log,
        options,
        responder,
        late,
        process: Arc::new(process),
        stdin: Stdin::new(stdin),
        pending: Table::default(),
        stdout_closed: false,
        exit: None,
        settle_at: None,
        ladder: None,
        over_long_id: None,
        shutdown_waiters: Vec::new(),
        shut_down: false,
        era: None,
    };
    let mut commands_open = true;
    loop {
        let deadline = lp.pending.next_deadline();
        // Every branch is cancellation-safe: mpsc and watch receives lose nothing when dropped
        // unfinished, sleeps are re-armed from state each turn, and a JoinHandle can be polled
        // again after a select! drops the borrow of it.
        tokio::select! {
            command = commands.recv(), if commands_open => match command {
                Some(command) => lp.on_command(command),
                None => {
                    // Every handle is gone: nobody can ask for a shutdown any more, so run it now.
                    commands_open = false;
                    lp.start_shutdown();
                }
            },
            Some(reply) = late_replies.recv() => {
                lp.send(&reply, false);
            },
            batch = pieces.recv(), if !lp.stdout_closed => match batch {
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
            written = lp.stdin.drain(), if lp.stdin.has_backlog() => {
                if let Err(e) = written {
                    lp.stdin_failed(e);
                }
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

impl Loop {
    fn on_command(&mut self, command: Command) {
        match command {
            Command::Request { id, request, reply } => self.send_request(id, request, reply),
            Command::Cancel { id, reason } => self.cancel(&id, &reason),
            Command::CancelAll { reason } => {
                for id in self.pending.ids() {
                    self.cancel(&id, &reason);
                }
            }
            Command::Notify { method, params } => {
                let message = Message::notification(&method, params);
                self.send(&message, false);
            }
            Command::ExitInfo { reply } => {
                let _ = reply.send(self.exit.clone());
            }
            Command::SetEra(era) => self.era = Some(era),
            Command::Pid { reply } => {
                let _ = reply.send(self.process.pid());
            }
            Command::Shutdown { reply } => {
                if self.shut_down {
                    let _ = reply.send(self.exit.clone());
                } else {
                    self.shutdown_waiters.push(reply);
                    self.start_shutdown();
                }
            }
        }
    }

    /// The reason new requests cannot be sent, once the server is gone or going.
    fn gone_reason(&self) -> Option<String> {
        if let Some(exit) = &self.exit {
            return Some(format!("server {}", exit.describe()));
        }
        if self.stdout_closed {
            return Some("server closed stdout".into());
        }
        (!self.stdin.is_open()).then(|| "the connection is shutting down".into())
    }

    fn send_request(
        &mut self,
        id: RequestId,
        mut request: Request,
        reply: oneshot::Sender<Result<Value, RequestError>>,
    ) {
        if let Some(reason) = self.gone_reason() {
            let _ = reply.send(Err(RequestError::Gone(format!("{reason}; {} was not sent", request.method))));
            return;
        }
        let mut params = request.params.take();
        if request.progress.is_some() {
            params = Some(with_progress_token(params, &id));
        }
        let message = Message::request(id.clone(), &request.method, params);
        let seq = self.send(&message, request.probe);
        self.pending.insert(id, Pending::new(request, seq, self.options.request_timeout, reply));
    }

    fn cancel(&mut self, id: &RequestId, reason: &str) {
        let Some(pending) = self.pending.remove(id) else { return };
        if pending.method != "initialize" {
            let params = json!({"requestId": id, "reason": reason});
            self.send(&Message::notification("notifications/cancelled", Some(params)), false);
        }
        self.pending.abandon(id.clone(), pending.method.clone(), "was cancelled");
        let method = pending.method.clone();
        pending.fail(RequestError::Cancelled { method, reason: reason.to_owned() });
    }

    /// Records a frame and queues it for stdin. Returns its seq. Once stdin is closed the
    /// frame is recorded as a note instead, so the log never claims a frame that was not sent.
    fn send(&mut self, message: &Message, probe: bool) -> u64 {
        let json = message.to_json();
        if !self.stdin.is_open() {
            let what = message.method().map_or_else(|| "reply".to_owned(), str::to_owned);
            let detail = format!("not sent: stdin was already closed ({what})");
            return self.log.append(
                Entry::new(self.conn, Kind::Note, Direction::Meta).with_bytes(&json).with_detail(detail),
            );
        }
        // Recorded before it is written: the log never lags behind the wire.
        let mut entry =
            with_summary(Entry::new(self.conn, Kind::Message, Direction::Out).with_bytes(&json), message);
        entry.probe = probe;
        let seq = self.log.append(entry);
        if let Err(e) = self.stdin.send(encode_line(&json)) {
            self.stdin_failed(e);
        }
        seq
    }

    fn stdin_failed(&mut self, e: std::io::Error) {
        self.stdin.abandon();
        self.note(format!("could not write to the server's stdin: {e}; later frames are not delivered"));
    }

    fn note(&self, detail: String) {
        self.log.append(Entry::new(self.conn, Kind::Note, Direction::Meta).with_detail(detail));
    }

    fn on_read(&mut self, read: Read) {
        match read {
            Read::Line(inbound) => self.on_line(inbound),
            Read::Piece(Piece::Line(_) | Piece::Unterminated(_)) => {
                unreachable!("lines are classified by the reader")
            }
            Read::Piece(Piece::Head(head)) => {
                let cap = self.options.max_line;
                let entry = Entry::new(self.conn, Kind::DecodeError, Direction::In)
                    .with_bytes(&head)
                    .with_detail(format!("the first {cap} bytes of a line longer than the line cap"));
                self.log.append(entry);
                self.over_long_id = sniff_id(&head);
            }
            Read::Piece(Piece::Truncated { total_len }) => {
                let cap = self.options.max_line;
                let mut detail = format!(
                    "a {total_len}-byte line was cut to the {cap}-byte line cap; the connection goes on"
                );
                if let Some(pending) = self.over_long_id.take().and_then(|id| self.pending.remove(&id)) {
                    detail.push_str(&format!("; it answered {} (seq {})", pending.method, pending.seq));
                    let _ = pending.reply.send(Err(RequestError::TooLarge {
                        method: pending.method,
                        len: total_len,
                        cap,
                    }));
                }
                self.log.append(Entry::new(self.conn, Kind::Truncated, Direction::In).with_detail(detail));
            }
        }
    }

    fn on_line(&mut self, inbound: Inbound) {
        let entry = inbound.entry;
        let Some(message) = inbound.message else {
            self.log.append(entry);
            return;
        };
        match message {
            Message::Response { id: Some(id), outcome } => {
                let entry = self.pending.on_reply(entry, id, outcome);
                self.log.append(entry);
            }
            Message::Response { id: None, .. } => {
                self.log.append(
                    entry.with_detail(
                        "an error with id null: the server could not read one of Sonde's frames",
                    ),
                );
            }
            Message::Request { id, method, params } => {
                match reply_to(self.responder.as_ref(), self.era, id, &method, params.as_ref(), &self.late) {
                    Err(refused) => {
                        self.log.append(entry.with_detail(refused));
                    }
                    Ok(reply) => {
                        self.log.append(entry);
                        if let Some(reply) = reply {
                            self.send(&reply, false);
                        }
                    }
                }
            }
            Message::Notification { method, params } => {
                let hard_max = self.options.max_request_time;
                self.log.append(self.pending.on_notification(entry, &method, params.as_ref(), hard_max));
            }
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
        let Some(reason) = self.gone_reason() else {
            return;
        };
        self.pending.fail_all(&reason);
    }

    fn on_timeouts(&mut self) {
        for (id, pending) in self.pending.expired(Instant::now()) {
            let after = duration_words(pending.timeout);
            // The probe is never cancelled (the SDKs never do, and a legacy server has not been
            // initialized yet), and initialize must not be.
            if pending.probe || pending.method == "initialize" {
                self.note(format!("{} {id} got no reply within {after}", pending.method));
                self.pending.abandon(id, pending.method.clone(), "had timed out");
                let error = RequestError::Timeout { method: pending.method.clone(), after: pending.timeout };
                pending.fail(error);
                continue;
            }
            self.note(format!(
                "{} {id} got no reply within {after}; sending notifications/cancelled",
                pending.method
            ));
            let reason = format!("Sonde stopped waiting after {after}");
            self.send(
                &Message::notification(
                    "notifications/cancelled",
                    Some(json!({"requestId": id, "reason": reason})),
                ),
                false,
            );
            self.pending.abandon(id, pending.method.clone(), "had timed out");
            let error = RequestError::Timeout { method: pending.method.clone(), after: pending.timeout };
            pending.fail(error);
        }
    }

    fn start_shutdown(&mut self) {
        if self.ladder.is_some() || self.shut_down {
            return;
        }
        // Dropping the sender lets the writer finish what is queued and then close stdin:
        // step one of the ladder.
        let graces = self.options.graces;
        self.process.stdin_closing(graces);
        self.stdin.close();
        let process = self.process.clone();
        self.ladder = Some(tokio::spawn(async move { process.shutdown(graces).await }));
    }

    fn finish_shutdown(&mut self, exit: Option<ExitInfo>) {
        self.shut_down = true;
        if self.exit.is_none() {
            self.exit = exit;
        }
        self.fail_pending();
        for waiter in self.shutdown_waiters.drain(..) {
            let _ = waiter.send(self.exit.clone());
        }
    }
}

/// Adds `_meta.progressToken` (the request id) to params, keeping everything else.
pub(super) fn with_progress_token(params: Option<Value>, id: &RequestId) -> Value {
    let mut params = match params {
        Some(Value::Object(o)) => Value::Object(o),
        _ => json!({}),
    };
    let meta = params.as_object_mut().expect("an object").entry("_meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert("progressToken".into(), serde_json::to_value(id).expect("an id serializes"));
    }
    params
}

/// What the reader hands the loop: a classified line, or a piece of an over-long one.
#[expect(
    clippy::large_enum_variant,
    reason = "lines are nearly every item; boxing them costs an allocation each"
)]
enum Read {
    Line(Inbound),
    Piece(Piece),
}

/// Reads stdout, splits it into lines and decodes them, in a task of its own so that decoding
/// one batch overlaps with the loop recording the previous one. Nothing is dropped here: every
/// line goes to the loop, which records it before acting on it.
async fn read_stdout(mut stdout: ChildStdout, conn: u64, max_line: usize, reads: mpsc::Sender<Vec<Read>>) {
    let mut splitter = FrameSplitter::new(max_line);
    let mut buf = vec![0u8; 64 * 1024];
    let classified = |pieces: Vec<Piece>| -> Vec<Read> {
        pieces
            .into_iter()
            .map(|piece| match piece {
                Piece::Line(line) => Read::Line(classify(conn, line, true)),
                Piece::Unterminated(line) => Read::Line(classify(conn, line, false)),
                other => Read::Piece(other),
            })
            .collect()
    };
    loop {
        let n = match stdout.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let batch = splitter.push(&buf[..n]);
        if !batch.is_empty() && reads.send(classified(batch)).await.is_err() {
            return;
        }
    }
    if let Some(piece) = splitter.finish() {
        let _ = reads.send(classified(vec![piece])).await;
    }
}
