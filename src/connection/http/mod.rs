//! The HTTP connection loop: one task, one `select!`, Streamable HTTP in both eras and the
//! 2024-11-05 HTTP+SSE transport (protocol.md §4).
//!
//! Owns: turning requests into POSTs with the right headers (the session and version headers
//! of 2025-11-25, the `_meta` mirror of 2026-07-28), recording every exchange (request line
//! and headers with secrets redacted, status and headers, the body or each SSE event),
//! correlating replies from any stream, the GET stream, resuming a dropped stream with
//! `Last-Event-ID` after `retry:`, re-initializing after a 404 on an expired session, cancelling
//! by era (a notification in 2025-11-25, closing the stream in 2026-07-28), and DELETE on close.
//! Refuses: choosing the era (negotiation sends the requests that decide it; the loop reads a
//! request's era from its `_meta`) and the meaning of MCP methods.
//!
//! This file holds the loop, its state and its commands (requests, cancels, timeouts, closing);
//! `outbound` sends, `inbound` receives, `streams` handles how streams end.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;
use tokio::time::Instant;

mod inbound;
mod outbound;
mod streams;

use super::exchange::{self, Event, Outgoing};
use super::inbound::{classify, with_summary};
use super::pending::{sleep_until, Pending, Reply, Table};
use super::responder::reply_to;
use super::task::Command;
use super::{Options, Request, RequestError, Responder};
use crate::era::Era;
use crate::log::{Direction, Entry, HttpInfo, Kind, WireLog};
use crate::process::duration_words;
use crate::transport::headers::{self, HeaderParam};
use crate::transport::{is_secret_name, sse, HttpMode, HttpTarget};
use crate::wire::{Message, RequestId};

/// How long closing waits for the DELETE that ends a session.
const DELETE_GRACE: Duration = Duration::from_secs(2);
/// How long to wait before resuming a dropped stream when the server gave no `retry:`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// How many times one stream is resumed before its request is given up.
const MAX_RESUMES: u32 = 5;

/// What an exchange is for.
#[derive(Debug, Clone)]
enum Purpose {
    /// A request of Sonde's; the body is kept to send again after a re-initialize.
    Request {
        id: RequestId,
        method: String,
        body: Vec<u8>,
    },
    /// A notification or a reply to a server request: a `202` is all that is expected.
    Oneway {
        what: String,
    },
    /// The GET stream for unsolicited server messages (2025-11-25).
    Listen,
    /// A GET with `Last-Event-ID` resuming a dropped stream; `id` is the request it carried.
    Resume {
        id: Option<RequestId>,
    },
    /// The 2024-11-05 GET stream that names the POST endpoint and carries every reply.
    LegacyStream,
    Delete,
}

struct Exchange {
    purpose: Purpose,
    handle: AbortHandle,
    status: Option<u16>,
    last_event_id: Option<String>,
    retry: Option<Duration>,
    /// The start of a body that was not a JSON-RPC message, for the error it becomes.
    body_excerpt: Option<String>,
    /// Set when the exchange's outcome is no longer the request's (a 404 on an expired
    /// session: the request is sent again in the new session).
    superseded: bool,
    /// The session id the request was sent with.
    session: Option<String>,
    /// How many resumes led to this exchange.
    resumes: u32,
    /// Whether any event arrived (a GET stream that keeps failing at once is not reopened).
    got_event: bool,
}

/// A request to send again once a new session is open: its id, method and body.
type Resend = (RequestId, String, Vec<u8>);

/// A stream to resume, and when.
struct Resume {
    at: Instant,
    id: Option<RequestId>,
    last_event_id: Option<String>,
    resumes: u32,
}

struct Loop {
    conn: u64,
    log: Arc<WireLog>,
    options: Options,
    responder: Arc<dyn Responder>,
    /// Replies to server requests answered later (by a person), posted when they come.
    late: mpsc::UnboundedSender<Message>,
    client: reqwest::Client,
    target: HttpTarget,
    mode: HttpMode,
    /// Where POSTs go: the URL itself, or (2024-11-05) the endpoint the stream named.
    post_url: Option<url::Url>,
    /// Messages waiting for the 2024-11-05 endpoint.
    queued: Vec<(Message, Purpose)>,
    /// The exchange of `notifications/initialized` while it is on its way.
    gate: Option<u64>,
    events: mpsc::UnboundedSender<Event>,
    next_ex: u64,
    exchanges: HashMap<u64, Exchange>,
    pending: Table,
    era: Option<Era>,
    session: Option<String>,
    /// The version `initialize` settled on: the `MCP-Protocol-Version` of later requests.
    version: Option<String>,
    /// The last `initialize` params, to open a new session after the old one expired.
    init_params: Option<Value>,
    /// The internal `initialize` of a re-initialize, and the requests waiting for it.
    reinit: Option<(RequestId, Vec<Resend>)>,
    next_internal: u64,
    /// `x-mcp-header` annotations by tool, learnt from `tools/list` results.
    tool_headers: HashMap<String, Vec<HeaderParam>>,
    resumes: Vec<Resume>,
    listen_failures: u32,
    closing: Option<Instant>,
    closed: bool,
    shutdown_waiters: Vec<oneshot::Sender<Option<crate::process::ExitInfo>>>,
}

/// Starts the loop for an HTTP server. Nothing is sent until the first request.
pub fn start(
    conn: u64,
    target: HttpTarget,
    mode: HttpMode,
    log: Arc<WireLog>,
    options: Options,
    responder: Arc<dyn Responder>,
    commands: mpsc::UnboundedReceiver<Command>,
) -> Result<(), String> {
    let client = client(&target)?;
    let (events, events_rx) = mpsc::unbounded_channel();
    let (late, late_replies) = mpsc::unbounded_channel();
    let post_url = (mode == HttpMode::Streamable).then(|| target.url.clone());
    let lp = Loop {
        conn,
        log,
        options,
        responder,
        late,
        client,
        target,
        mode,
        post_url,
        queued: Vec::new(),
        gate: None,
        events,
        next_ex: 1,
        exchanges: HashMap::new(),
        pending: Table::default(),
        era: None,
        session: None,
        version: None,
        init_params: None,
        reinit: None,
        next_internal: 1,
        tool_headers: HashMap::new(),
        resumes: Vec::new(),
        listen_failures: 0,
        closing: None,
        closed: false,
        shutdown_waiters: Vec::new(),
    };
    tokio::spawn(run(lp, commands, events_rx, late_replies));
    Ok(())
}

/// The HTTP client: rustls, the connect timeout, and redirects only within the origin, so
/// credentials never follow a redirect elsewhere.
fn client(target: &HttpTarget) -> Result<reqwest::Client, String> {
    // Several clients may race to install the provider; the first wins and all are the same.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let origin = target.url.origin();
    let policy = reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() >= 10 {
            attempt.error("more than 10 redirects")
        } else if attempt.url().origin() != origin {
            // Stopping hands the 3xx to the loop, which reports where it pointed.
            attempt.stop()
        } else {
            attempt.follow()
        }
    });
    reqwest::Client::builder()
        .connect_timeout(target.timeouts.connect)
        .redirect(policy)
        .user_agent(concat!("sonde/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("could not build the HTTP client: {}", sse::error_chain(&e)))
}

async fn run(
    mut lp: Loop,
    mut commands: mpsc::UnboundedReceiver<Command>,
    mut events: mpsc::UnboundedReceiver<Event>,
    mut late_replies: mpsc::UnboundedReceiver<Message>,
) {
    let mut commands_open = true;
    if lp.mode == HttpMode::LegacySse {
        lp.start_bodiless(reqwest::Method::GET, Vec::new(), Purpose::LegacyStream);
    }
    loop {
        let deadline = lp.pending.next_deadline();
        let resume_at = lp.resumes.iter().map(|r| r.at).min();
        tokio::select! {
            command = commands.recv(), if commands_open => match command {
                Some(command) => lp.on_command(command),
                None => {
                    commands_open = false;
                    lp.start_close();
                }
            },
            Some(event) = events.recv() => lp.on_event(event),
            Some(reply) = late_replies.recv(), if !lp.closed => {
                let what = "a reply answered later".to_owned();
                lp.post(reply, false, Purpose::Oneway { what });
            },
            _ = sleep_until(deadline), if deadline.is_some() => lp.on_timeouts(),
            _ = sleep_until(resume_at), if resume_at.is_some() => lp.on_resumes_due(),
            _ = sleep_until(lp.closing), if lp.closing.is_some() => lp.finish_close("the DELETE got no answer in time"),
        }
        if lp.closed && !commands_open {
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
                if self.era == Some(Era::Modern) {
                    self.note(format!("{method} not sent: 2026-07-28 has no client notifications over HTTP"));
                } else {
                    let message = Message::notification(&method, params);
                    self.post(message, false, Purpose::Oneway { what: method });
                }
            }
            Command::ExitInfo { reply } => {
                let _ = reply.send(None);
            }
            Command::Pid { .. } => {}
            Command::SetEra(era) => self.era = Some(era),
            Command::Shutdown { reply } => {
                if self.closed {
                    let _ = reply.send(None);
                } else {
                    self.shutdown_waiters.push(reply);
                    self.start_close();
                }
            }
        }
    }

    fn note(&self, detail: String) {
        self.log.append(Entry::new(self.conn, Kind::Note, Direction::Meta).with_detail(detail));
    }

    fn send_request(&mut self, id: RequestId, mut request: Request, reply: Reply) {
        if self.closed || self.closing.is_some() {
            let words = format!("the connection is closed; {} was not sent", request.method);
            let _ = reply.send(Err(RequestError::Gone(words)));
            return;
        }
        let mut params = request.params.take();
        if request.progress.is_some() {
            params = Some(super::task::with_progress_token(params, &id));
        }
        if request.method == "initialize" {
            self.init_params = params.clone();
        }
        let message = Message::request(id.clone(), &request.method, params);
        let body = message.to_json();
        let purpose = Purpose::Request { id: id.clone(), method: request.method.clone(), body };
        let seq = self.post(message, request.probe, purpose);
        self.pending.insert(id, Pending::new(request, seq, self.options.request_timeout, reply));
    }

    /// Cancels by era: 2026-07-28 closes the request's stream (the server MUST take that as
    /// cancellation); 2025-11-25 sends `notifications/cancelled` (never for `initialize`).
    fn cancel(&mut self, id: &RequestId, reason: &str) {
        let Some(pending) = self.pending.remove(id) else { return };
        self.stop(id, &pending.method, reason);
        self.pending.abandon(id.clone(), pending.method.clone(), "was cancelled");
        let method = pending.method.clone();
        pending.fail(RequestError::Cancelled { method, reason: reason.to_owned() });
    }

    fn stop(&mut self, id: &RequestId, method: &str, reason: &str) {
        if self.era == Some(Era::Modern) {
            self.note(format!(
                "closed the stream of {method} {id}: in 2026-07-28 over HTTP that is the cancellation"
            ));
        } else if method != "initialize" {
            let params = json!({"requestId": id, "reason": reason});
            let message = Message::notification("notifications/cancelled", Some(params));
            self.post(message, false, Purpose::Oneway { what: "notifications/cancelled".into() });
        }
        self.abort_stream_of(id);
    }

    fn on_timeouts(&mut self) {
        for (id, pending) in self.pending.expired(Instant::now()) {
            let after = duration_words(pending.timeout);
            self.note(format!("{} {id} got no reply within {after}", pending.method));
            if pending.probe {
                self.abort_stream_of(&id);
            } else {
                self.stop(&id, &pending.method.clone(), &format!("Sonde stopped waiting after {after}"));
            }
            self.pending.abandon(id, pending.method.clone(), "had timed out");
            let error = RequestError::Timeout { method: pending.method.clone(), after: pending.timeout };
            pending.fail(error);
        }
    }

    /// Closing: every stream is dropped, pending requests fail, and a 2025-11-25 session is
    /// ended with DELETE (a `405` is fine) within a short grace.
    fn start_close(&mut self) {
        if self.closed || self.closing.is_some() {
            return;
        }
        for exchange in self.exchanges.values() {
            exchange.handle.abort();
        }
        self.exchanges.clear();
        self.resumes.clear();
        self.pending.fail_all("the connection was closed");
        if self.session.is_some() && self.mode == HttpMode::Streamable {
            self.closing = Some(Instant::now() + DELETE_GRACE);
            self.start_bodiless(reqwest::Method::DELETE, Vec::new(), Purpose::Delete);
        } else {
            self.finish_close("");
        }
    }

    fn finish_close(&mut self, why: &str) {
        if !why.is_empty() {
            self.note(why.to_owned());
        }
        for exchange in self.exchanges.values() {
            exchange.handle.abort();
        }
        self.closing = None;
        self.closed = true;
        for waiter in self.shutdown_waiters.drain(..) {
            let _ = waiter.send(None);
        }
    }
}
