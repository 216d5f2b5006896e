//! The HTTP connection loop: one task, one `select!`, Streamable HTTP in both eras and the
//! 2024-11-05 HTTP+SSE transport (protocol.md §4).
//!
//! Owns: turning requests into POSTs with the right headers (the session and version headers
//! of 2025-11-25, the `_meta` mirror of 2026-07-28), recording every exchange (request line
//! and headers with secrets redacted, status and headers, the body or each SSE event),
//! correlating replies from any stream, the GET stream, resuming a dropped stream with
//! `Last-Event-ID` after `retry:`, re-initializing after a 404 on an expired session, cancelling
//! by era (a notification in 2025-11-25, closing the stream in 2026-07-28), and DELETE on close.
//! The only MCP results it reads are those the transport needs: the version `initialize`
//! settled on (the `MCP-Protocol-Version` header) and the tools' `x-mcp-header` annotations in
//! `tools/list` results (the 2026-07-28 header mirror; `transport::headers` reads them).
//! Refuses: choosing the era (negotiation sends the requests that decide it; the loop reads a
//! request's era from its `_meta`), what both loops share (`spine`), and any other meaning of
//! MCP methods.
//!
//! This file holds the loop and its transport hooks (sending, cancelling, timeouts, closing);
//! `state` holds its parts (session, outbox, streams), `outbound` sends, `inbound` receives,
//! `streams` handles how streams end.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

mod authorize;
mod inbound;
mod outbound;
mod state;
mod streams;

use super::exchange::{self, Event, Outgoing};
use super::inbound::{classify, with_summary};
use super::pending::{awaited, sleep_until, Pending};
use super::spine::{cancelled, Command, Spine, TransportLoop};
use super::{Options, Request, RequestError, Responder, Status};
use crate::era::Era;
use crate::log::{Direction, Entry, HttpInfo, Kind, RequestOutcome, WireLog};
use crate::process::{duration_words, ExitInfo};
use crate::transport::{shown_url, shown_url_text, sse, HttpMode, HttpTarget};
use crate::wire::{Message, RequestId};
use authorize::Auth;
use state::{Exchange, HttpSession, Outbox, Purpose, Resume, Streams};

/// How long closing waits for the DELETE that ends a session.
const DELETE_GRACE: Duration = Duration::from_secs(2);
/// How long to wait before resuming a dropped stream when the server gave no `retry:`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// How many times one stream is resumed before its request is given up.
const MAX_RESUMES: u32 = 5;

struct Loop {
    spine: Spine,
    client: reqwest::Client,
    target: HttpTarget,
    mode: HttpMode,
    session: HttpSession,
    outbox: Outbox,
    streams: Streams,
    /// When closing stops waiting for the DELETE that ends the session.
    closing: Option<Instant>,
    closed: bool,
    status: watch::Sender<Status>,
    /// OAuth: the token requests carry, and the flow that gets one.
    auth: Auth,
}

/// What a loop is given besides its target: the log, options, who answers server requests,
/// and who authorizes when the server asks.
pub struct Parts {
    pub log: Arc<WireLog>,
    pub options: Options,
    pub responder: Arc<dyn Responder>,
    pub authorizer: Option<Arc<crate::auth::Authorizer>>,
}

/// Starts the loop for an HTTP server. Nothing is sent until the first request. Returns the
/// connection's status, and whether it is waiting for an authorization.
pub fn start(
    conn: u64,
    target: HttpTarget,
    mode: HttpMode,
    parts: Parts,
    commands: mpsc::UnboundedReceiver<Command>,
) -> std::io::Result<(watch::Receiver<Status>, watch::Receiver<bool>)> {
    let client = client(&target)?;
    let (status, status_rx) = watch::channel(Status::Open);
    let (events, events_rx) = mpsc::unbounded_channel();
    let auth = Auth::new(parts.authorizer, &target.url);
    let (spine, late_replies) = Spine::new(conn, parts.log, parts.options, parts.responder);
    let post_url = (mode == HttpMode::Streamable).then(|| target.url.clone());
    let (authorized_tx, authorized_rx) = mpsc::unbounded_channel();
    let lp = Loop {
        spine,
        client,
        target,
        mode,
        session: HttpSession::default(),
        outbox: Outbox { post_url, ..Outbox::default() },
        streams: Streams::new(events),
        closing: None,
        closed: false,
        status,
        auth: auth.with_channel(authorized_tx),
    };
    let authorizing = lp.auth.running();
    tokio::spawn(run(lp, commands, events_rx, late_replies, authorized_rx));
    Ok((status_rx, authorizing))
}

/// The HTTP client: rustls, the connect timeout, and redirects only within the origin, so
/// credentials never follow a redirect elsewhere.
fn client(target: &HttpTarget) -> std::io::Result<reqwest::Client> {
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
        .map_err(|e| {
            std::io::Error::other(format!("could not build the HTTP client: {}", sse::error_chain(&e)))
        })
}

async fn run(
    mut lp: Loop,
    mut commands: mpsc::UnboundedReceiver<Command>,
    mut events: mpsc::UnboundedReceiver<Event>,
    mut late_replies: mpsc::UnboundedReceiver<Message>,
    mut authorized: mpsc::UnboundedReceiver<authorize::Outcome>,
) {
    let mut commands_open = true;
    if lp.mode == HttpMode::LegacySse {
        lp.start_bodiless(reqwest::Method::GET, Vec::new(), Purpose::LegacyStream);
    }
    loop {
        let deadline = lp.spine.next_deadline();
        let resume_at = lp.streams.next_resume_at();
        tokio::select! {
            command = commands.recv(), if commands_open => commands_open = lp.received(command),
            Some(event) = events.recv() => lp.on_event(event),
            Some(outcome) = authorized.recv() => lp.on_authorized(outcome),
            Some(reply) = late_replies.recv(), if !lp.closed => {
                lp.send_reply(reply, "a reply answered later".into());
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

impl TransportLoop for Loop {
    fn spine(&mut self) -> &mut Spine {
        &mut self.spine
    }

    fn refusal(&self) -> Option<String> {
        (self.closed || self.closing.is_some()).then(|| "the connection is closed".into())
    }

    fn send_request(&mut self, id: &RequestId, method: &str, message: Message, probe: bool) -> u64 {
        if let Message::Request { params, .. } = &message {
            if method == "initialize" {
                self.session.init_params = params.clone();
            }
        }
        let body = message.to_json();
        let purpose = Purpose::Request { id: id.clone(), method: method.to_owned(), body };
        self.post(message, probe, purpose)
    }

    fn send_notification(&mut self, method: String, params: Option<Value>) {
        if self.spine.era == Some(Era::Modern) {
            self.note(format!("{method} not sent: 2026-07-28 has no client notifications over HTTP"));
        } else {
            let message = Message::notification(&method, params);
            self.post(message, false, Purpose::Oneway { what: method });
        }
    }

    fn send_reply(&mut self, reply: Message, what: String) {
        self.post(reply, false, Purpose::Oneway { what });
    }

    /// Cancels by era: 2026-07-28 closes the request's stream (the server MUST take that as
    /// cancellation); 2025-11-25 sends `notifications/cancelled` (never for `initialize`).
    fn stop(&mut self, id: &RequestId, method: &str, reason: &str) {
        let queued = self
            .outbox
            .queued
            .iter()
            .position(|(_, p)| matches!(p, Purpose::Request { id: q, .. } if q == id));
        if let Some(i) = queued {
            // Still waiting to be posted: the server never hears of it.
            self.outbox.queued.remove(i);
            self.spine.not_sent(id, method, &format!("the caller had gone (cancelled: {reason})"));
            return;
        }
        if self.spine.era == Some(Era::Modern) {
            self.note(format!(
                "closed the stream of {method} {id}: in 2026-07-28 over HTTP that is the cancellation"
            ));
        } else if method != "initialize" {
            let what = "notifications/cancelled".to_owned();
            self.post(cancelled(id, reason), false, Purpose::Oneway { what });
        }
        self.streams.abort_carrying(id);
    }

    /// The probe's stream is closed without a word to the server; any other request is stopped.
    fn timed_out(&mut self, id: &RequestId, method: &str, probe: bool, after: &str, seq: u64) {
        let words = format!("{method} {id} got no {} within {after}", awaited(method));
        self.spine.settled(seq, RequestOutcome::TimedOut, words);
        if probe {
            self.streams.abort_carrying(id);
        } else {
            self.stop(id, method, &format!("Sonde stopped waiting after {after}"));
        }
    }

    fn exit_info(&self) -> Option<ExitInfo> {
        None
    }

    fn pid(&self) -> Option<u32> {
        None
    }

    fn is_shut_down(&self) -> bool {
        self.closed
    }

    /// Closing: every stream is dropped, pending requests fail, and a 2025-11-25 session is
    /// ended with DELETE (a `405` is fine) within a short grace.
    fn start_shutdown(&mut self) {
        if self.closed || self.closing.is_some() {
            return;
        }
        self.streams.clear();
        self.spine.fail_pending("the connection was closed");
        if self.session.id.is_some() && self.mode == HttpMode::Streamable {
            self.closing = Some(Instant::now() + DELETE_GRACE);
            self.status.send_replace(Status::Stopping("ending the session with DELETE".into()));
            self.start_bodiless(reqwest::Method::DELETE, Vec::new(), Purpose::Delete);
        } else {
            self.finish_close("");
        }
    }
}

impl Loop {
    fn finish_close(&mut self, why: &str) {
        if !why.is_empty() {
            self.note(why.to_owned());
        }
        self.streams.abort_all();
        self.closing = None;
        self.closed = true;
        self.status.send_replace(Status::Ended { reason: "Sonde closed the connection".into(), exit: None });
        self.spine.release_waiters(None);
    }
}
