//! What both connection loops do the same way, whatever the transport: the commands a
//! [`Connection`](super::Connection) sends its loop and their dispatch, sending a request and
//! remembering it, cancelling, sweeping timeouts, handing server requests to the responder,
//! routing replies and notifications through the pending table, and notes in the log.
//!
//! Owns: [`Command`], the [`Spine`] state both loops hold (the pending table, the era, the
//! responder, who waits for the shutdown), and the [`TransportLoop`] trait, whose provided methods
//! are that shared logic. Refuses: I/O and anything one transport does its own way. Each loop
//! implements the trait's hooks: how a message goes out, how a cancel or a timeout reaches the
//! server, when new requests are refused, and how it shuts down.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::pending::{Pending, Reply, Table};
use super::responder::reply_to;
use super::{Options, Request, RequestError, Responder};
use crate::era::Era;
use crate::log::{Direction, Entry, Kind, RequestOutcome, WireLog};
use crate::process::{duration_words, ExitInfo};
use crate::wire::{ErrorObject, Message, RequestId};

/// What a [`Connection`](super::Connection) asks of its loop.
pub enum Command {
    Request {
        id: RequestId,
        request: Request,
        reply: Reply,
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
    /// The era was decided and the server described itself: in 2026-07-28 a server must not
    /// send requests, so they are flagged and left unanswered instead of answered; the
    /// capabilities are what the server's notifications are read against.
    Settled {
        era: Era,
        capabilities: Value,
    },
}

/// The state every loop holds, whatever its transport.
pub struct Spine {
    pub conn: u64,
    pub log: Arc<WireLog>,
    pub options: Options,
    responder: Arc<dyn Responder>,
    /// Replies to server requests answered later (by a person), sent when they come.
    late: mpsc::UnboundedSender<Message>,
    pub pending: Table,
    /// Requests the transport could not take yet (stdin is full), oldest first: not recorded,
    /// not pending, and dropped unsent if their caller goes before their turn.
    held: VecDeque<Held>,
    pub era: Option<Era>,
    /// The capabilities the server declared, once the era is settled.
    capabilities: Option<Value>,
    /// 2025-11-25: `initialize` was sent, and `notifications/initialized` was not yet.
    mid_handshake: bool,
    /// The server's requests by id, each with its seq and method, so the entry of Sonde's reply
    /// says what it answers. A reused id names its newest request.
    asked: HashMap<RequestId, (u64, String)>,
    /// The request being sent now, and the operation it continues, for its entry: set around
    /// `send_request` alone, as both transports record through [`Spine::mark_out`].
    sending: Option<(RequestId, RequestId)>,
    shutdown_waiters: Vec<oneshot::Sender<Option<ExitInfo>>>,
}

/// A request waiting for the transport to take it.
struct Held {
    id: RequestId,
    request: Request,
    reply: Reply,
    /// Its timeout counts from when its caller asked, not from when it is written.
    deadline: Instant,
}

impl Spine {
    /// The spine of a new loop, and the receiving end of the replies answered later: the loop
    /// sends each with [`TransportLoop::send_reply`] when it comes.
    pub fn new(
        conn: u64,
        log: Arc<WireLog>,
        options: Options,
        responder: Arc<dyn Responder>,
    ) -> (Spine, mpsc::UnboundedReceiver<Message>) {
        let (late, late_replies) = mpsc::unbounded_channel();
        let spine = Spine {
            conn,
            log,
            options,
            responder,
            late,
            pending: Table::default(),
            held: VecDeque::new(),
            era: None,
            capabilities: None,
            mid_handshake: false,
            asked: HashMap::new(),
            sending: None,
            shutdown_waiters: Vec::new(),
        };
        (spine, late_replies)
    }

    /// Fills in what an outgoing frame's entry says beyond its bytes: the operation a request
    /// continues, and what a reply answers (the server request's seq and method), so the log
    /// pairs the two as it pairs Sonde's requests with the server's replies.
    pub fn mark_out(&self, entry: &mut Entry, message: &Message) {
        if let (Message::Request { id, .. }, Some((sending, head))) = (message, &self.sending) {
            if id == sending {
                entry.part_of = Some(head.to_string());
            }
        }
        let Message::Response { id: Some(id), .. } = message else { return };
        if let Some((seq, method)) = self.asked.get(id) {
            entry.answers = Some(*seq);
            if let Some(summary) = entry.summary.as_mut() {
                summary.method = Some(method.clone());
            }
        }
    }

    /// Where the connection stands, for the rules on what the server sends.
    fn standing(&self) -> crate::diagnose::Standing<'_> {
        crate::diagnose::Standing {
            era: self.era,
            mid_handshake: self.mid_handshake,
            capabilities: self.capabilities.as_ref(),
        }
    }

    /// Records a note (a meta entry) in the log.
    pub fn note(&self, detail: String) {
        self.log.append(Entry::new(self.conn, Kind::Note, Direction::Meta).with_detail(detail));
    }

    /// Records the note that settles the request at `seq` without a reply, and how it ended.
    pub fn settled(&self, seq: u64, ends: RequestOutcome, detail: String) {
        let mut note = Entry::new(self.conn, Kind::Note, Direction::Meta).with_detail(detail);
        note.answers = Some(seq);
        note.ends = Some(ends);
        self.log.append(note);
    }

    /// The next deadline of a pending or a held request.
    pub fn next_deadline(&self) -> Option<Instant> {
        let held = self.held.iter().map(|h| h.deadline).min();
        match (self.pending.next_deadline(), held) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn has_held(&self) -> bool {
        !self.held.is_empty()
    }

    /// Records that a request was not sent, and why; nothing of it reached the server.
    pub fn not_sent(&self, id: &RequestId, method: &str, why: &str) {
        self.note(format!("not sent: {why}; {method} {id} was never written"));
    }

    /// Fails every pending request with `reason` (the connection can answer none): each gets a
    /// note that answers it, so its detail in a log says it was never answered, and why.
    pub fn fail_pending(&mut self, reason: &str) {
        let (conn, log) = (self.conn, &self.log);
        self.pending.fail_all(reason, |id, pending| {
            // An acknowledged subscription was answered; it ends here.
            let (what, ends) = match pending.deadline {
                None => ("ended", RequestOutcome::Result),
                Some(_) => ("was never answered", RequestOutcome::NeverAnswered),
            };
            let words = format!("{} {id} {what}: {reason}", pending.method);
            let mut note = Entry::new(conn, Kind::Note, Direction::Meta).with_detail(words);
            note.answers = Some(pending.seq);
            note.ends = Some(ends);
            log.append(note);
        });
    }

    /// Fails every held request with `reason` (the connection is going away).
    pub fn drop_held(&mut self, reason: &str) {
        for held in std::mem::take(&mut self.held) {
            self.not_sent(&held.id, &held.request.method, reason);
            let error = RequestError::Gone(format!("{reason}; {} was not sent", held.request.method));
            let _ = held.reply.send(Err(error));
        }
    }

    /// Tells everyone waiting for the shutdown how the connection ended.
    pub fn release_waiters(&mut self, exit: Option<ExitInfo>) {
        for waiter in self.shutdown_waiters.drain(..) {
            let _ = waiter.send(exit.clone());
        }
    }
}

/// One loop's transport: the hooks the shared logic calls, and that logic as provided methods.
pub trait TransportLoop {
    fn spine(&mut self) -> &mut Spine;

    /// Why new requests cannot be sent, once the connection is gone or going.
    fn refusal(&self) -> Option<String>;
    /// Records and sends a request. Returns the seq of its entry.
    fn send_request(&mut self, id: &RequestId, method: &str, message: Message, probe: bool) -> u64;
    /// Sends a notification a caller asked for, or says in the log why it cannot go.
    fn send_notification(&mut self, method: String, params: Option<Value>);
    /// Records and sends a reply to a server request; `what` names it in the log.
    fn send_reply(&mut self, reply: Message, what: String);
    /// Tells the server, by the transport's means, that Sonde stopped waiting for `id`.
    fn stop(&mut self, id: &RequestId, method: &str, reason: &str);
    /// Says in the log that the request at `seq` got no reply in time (a note that settles
    /// it, [`Spine::settled`]), and stops it as the transport does.
    fn timed_out(&mut self, id: &RequestId, method: &str, probe: bool, after: &str, seq: u64);
    /// How the server process ended, where there is one.
    fn exit_info(&self) -> Option<ExitInfo>;
    fn pid(&self) -> Option<u32>;
    fn is_shut_down(&self) -> bool;
    /// Starts closing the transport; the loop releases the waiters when it is done.
    fn start_shutdown(&mut self);

    fn note(&mut self, detail: String) {
        self.spine().note(detail);
    }

    /// A command, or `None` once every handle is gone: then nobody can ask for a shutdown any
    /// more, so it starts now. Returns whether more commands may come.
    fn received(&mut self, command: Option<Command>) -> bool {
        match command {
            Some(command) => {
                self.on_command(command);
                true
            }
            None => {
                self.start_shutdown();
                false
            }
        }
    }

    fn on_command(&mut self, command: Command) {
        match command {
            Command::Request { id, request, reply } => self.request(id, request, reply),
            Command::Cancel { id, reason } => self.cancel(&id, &reason),
            Command::CancelAll { reason } => {
                let held: Vec<RequestId> = self.spine().held.iter().map(|h| h.id.clone()).collect();
                for id in held.into_iter().chain(self.spine().pending.call_ids()) {
                    self.cancel(&id, &reason);
                }
            }
            Command::Notify { method, params } => {
                if method == "notifications/initialized" {
                    self.spine().mid_handshake = false;
                }
                self.send_notification(method, params)
            }
            Command::ExitInfo { reply } => {
                let _ = reply.send(self.exit_info());
            }
            Command::Pid { reply } => {
                // Without a process, the reply is dropped and the caller gets `None`.
                if let Some(pid) = self.pid() {
                    let _ = reply.send(pid);
                }
            }
            Command::Settled { era, capabilities } => {
                let spine = self.spine();
                spine.era = Some(era);
                spine.capabilities = Some(capabilities);
                // An `initialize` raced by a discover that won has no `initialized` to wait for.
                if era == Era::Modern {
                    spine.mid_handshake = false;
                }
            }
            Command::Shutdown { reply } => {
                if self.is_shut_down() {
                    let _ = reply.send(self.exit_info());
                } else {
                    self.spine().shutdown_waiters.push(reply);
                    self.start_shutdown();
                }
            }
        }
    }

    /// Whether the transport cannot take a request now (stdin is full): new requests are
    /// held, unrecorded, until [`TransportLoop::release_held`].
    fn busy(&self) -> bool {
        false
    }

    /// Sends a request (with a progress token when its caller listens for progress) and
    /// remembers it; fails it at once when the connection is gone; holds it while the
    /// transport is busy; and never sends it once its caller has gone.
    fn request(&mut self, id: RequestId, request: Request, reply: Reply) {
        if let Some(reason) = self.refusal() {
            let _ = reply.send(Err(RequestError::Gone(format!("{reason}; {} was not sent", request.method))));
            return;
        }
        if reply.is_closed() {
            self.spine().not_sent(&id, &request.method, "the caller had gone (it stopped waiting)");
            return;
        }
        if self.busy() || self.spine().has_held() {
            let timeout = request.timeout.unwrap_or(self.spine().options.request_timeout);
            let deadline = Instant::now() + timeout;
            self.spine().held.push_back(Held { id, request, reply, deadline });
            return;
        }
        self.dispatch(id, request, reply);
    }

    /// Sends what was held, oldest first, while the transport takes it; a request whose
    /// caller has gone is dropped unsent.
    fn release_held(&mut self) {
        while !self.busy() {
            let Some(held) = self.spine().held.pop_front() else { return };
            if held.reply.is_closed() {
                self.spine().not_sent(
                    &held.id,
                    &held.request.method,
                    "the caller had gone (it stopped waiting)",
                );
                continue;
            }
            self.dispatch(held.id, held.request, held.reply);
        }
    }

    fn dispatch(&mut self, id: RequestId, mut request: Request, reply: Reply) {
        // What the request names goes to its reply's summary; the params themselves go out.
        let target = super::inbound::target_of(request.params.as_ref());
        let mut params = request.params.take();
        if request.progress.is_some() {
            params = Some(with_progress_token(params, &id));
        }
        if self.spine().options.trace {
            params = Some(with_meta(params, crate::trace_context::TraceParent::start().meta()));
        }
        if request.method == "initialize" {
            self.spine().mid_handshake = true;
        }
        let message = Message::request(id.clone(), &request.method, params);
        self.spine().sending = request.part_of.clone().map(|head| (id.clone(), head));
        let seq = self.send_request(&id, &request.method, message, request.probe);
        self.spine().sending = None;
        let timeout = self.spine().options.request_timeout;
        let pending = Pending { target, ..Pending::new(request, seq, timeout, reply) };
        self.spine().pending.insert(id, pending);
    }

    /// Cancels a pending request: the transport tells the server, the caller gets
    /// [`RequestError::Cancelled`], and a late reply is recognised.
    fn cancel(&mut self, id: &RequestId, reason: &str) {
        let held = self.spine().held.iter().position(|h| h.id == *id);
        if let Some(held) = held.and_then(|i| self.spine().held.remove(i)) {
            let method = held.request.method;
            self.spine().not_sent(id, &method, &format!("the caller had gone (cancelled: {reason})"));
            let _ = held.reply.send(Err(RequestError::Cancelled { method, reason: reason.to_owned() }));
            return;
        }
        let Some(pending) = self.spine().pending.remove(id) else { return };
        self.stop(id, &pending.method, reason);
        let words = format!("{} {id} was cancelled: {reason}", pending.method);
        self.spine().settled(pending.seq, RequestOutcome::Cancelled, words);
        self.spine().pending.abandon(id.clone(), pending.method.clone(), "was cancelled");
        let method = pending.method.clone();
        pending.fail(RequestError::Cancelled { method, reason: reason.to_owned() });
    }

    /// Fails every request whose deadline has passed, after the transport has stopped it.
    fn on_timeouts(&mut self) {
        let now = Instant::now();
        while let Some(i) = self.spine().held.iter().position(|h| h.deadline <= now) {
            let held = self.spine().held.remove(i).expect("found");
            let timeout = held.request.timeout.unwrap_or(self.spine().options.request_timeout);
            let why = format!("it waited {} for the transport to take it", duration_words(timeout));
            self.spine().not_sent(&held.id, &held.request.method, &why);
            let error = RequestError::Timeout { method: held.request.method, after: timeout };
            let _ = held.reply.send(Err(error));
        }
        for (id, pending) in self.spine().pending.expired(now) {
            let after = duration_words(pending.timeout);
            self.timed_out(&id, &pending.method, pending.probe, &after, pending.seq);
            self.spine().pending.abandon(id, pending.method.clone(), "had timed out");
            let error = RequestError::Timeout { method: pending.method.clone(), after: pending.timeout };
            pending.fail(error);
        }
    }

    /// A reply: its request's caller gets the outcome, and the entry is recorded.
    fn on_reply(&mut self, entry: Entry, id: RequestId, outcome: Result<Value, ErrorObject>) {
        let spine = self.spine();
        let log = &spine.log;
        let modern = spine.era == Some(Era::Modern);
        spine.pending.on_reply(entry, id, outcome, modern, |entry| {
            log.append(entry);
        });
    }

    /// A server request: the responder answers it now (the reply goes out at once) or later
    /// (through the late channel), or the era forbids it and the entry says so.
    fn on_server_request(&mut self, mut entry: Entry, id: RequestId, method: &str, params: Option<&Value>) {
        let spine = self.spine();
        entry.findings.extend(crate::diagnose::server_request(spine.standing(), method));
        match reply_to(spine.responder.as_ref(), spine.era, id.clone(), method, params, &spine.late) {
            Err(refused) => {
                spine.log.append(entry.with_detail(refused));
            }
            Ok(reply) => {
                let seq = spine.log.append(entry);
                spine.asked.insert(id, (seq, method.to_owned()));
                if let Some(reply) = reply {
                    self.send_reply(reply, format!("the reply to {method}"));
                }
            }
        }
    }

    /// A notification: progress and server cancels go to their requests; it is recorded.
    fn on_notification(&mut self, mut entry: Entry, method: &str, params: Option<&Value>) {
        let spine = self.spine();
        entry.findings.extend(crate::diagnose::server_notification(spine.standing(), method));
        let hard_max = spine.options.max_request_time;
        let entry = spine.pending.on_notification(entry, method, params, hard_max);
        self.spine().log.append(entry);
    }
}

/// The `notifications/cancelled` that tells a server Sonde stopped waiting for `id`.
pub fn cancelled(id: &RequestId, reason: &str) -> Message {
    Message::notification("notifications/cancelled", Some(json!({"requestId": id, "reason": reason})))
}

/// Adds `_meta.progressToken` (the request id) to params, keeping everything else.
fn with_progress_token(params: Option<Value>, id: &RequestId) -> Value {
    let token = serde_json::to_value(id).expect("an id serializes");
    with_meta(params, [("progressToken".to_owned(), token)].into_iter().collect())
}

/// Adds each of `keys` to params' `_meta`, keeping everything else.
fn with_meta(params: Option<Value>, keys: serde_json::Map<String, Value>) -> Value {
    let mut params = match params {
        Some(Value::Object(o)) => Value::Object(o),
        _ => json!({}),
    };
    let meta = params.as_object_mut().expect("an object").entry("_meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.extend(keys);
    }
    params
}
