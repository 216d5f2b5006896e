//! The HTTP loop's state, in the three parts it is: the session (id, the version `initialize`
//! settled on, what a re-initialize needs, tools' header annotations), the outbox (where POSTs
//! go, and what waits for the 2024-11-05 endpoint or the GET stream), and the streams (the
//! exchanges in flight and the streams to resume).
//!
//! Owns: each part's fields and the methods that touch only them. Refuses: I/O and the log;
//! the loop (`mod.rs` and its siblings) decides when each changes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio::time::Instant;

use super::super::exchange::Event;
use crate::transport::headers::{self, HeaderParam};
use crate::wire::{Message, RequestId};

/// What an exchange is for.
#[derive(Debug, Clone)]
pub(super) enum Purpose {
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

impl Purpose {
    /// The request whose reply this exchange carries, if any.
    pub(super) fn carries(&self) -> Option<&RequestId> {
        match self {
            Purpose::Request { id, .. } | Purpose::Resume { id: Some(id) } => Some(id),
            _ => None,
        }
    }
}

pub(super) struct Exchange {
    pub purpose: Purpose,
    pub handle: AbortHandle,
    pub status: Option<u16>,
    pub last_event_id: Option<String>,
    pub retry: Option<Duration>,
    /// The start of a body that was not a JSON-RPC message, for the error it becomes.
    pub body_excerpt: Option<String>,
    /// Set when the exchange's outcome is no longer the request's (a 404 on an expired
    /// session: the request is sent again in the new session).
    pub superseded: bool,
    /// The session id the request was sent with.
    pub session: Option<String>,
    /// How many resumes led to this exchange.
    pub resumes: u32,
    /// Whether any event arrived (a GET stream that keeps failing at once is not reopened).
    pub got_event: bool,
}

impl Exchange {
    pub(super) fn new(purpose: Purpose, handle: AbortHandle, session: Option<String>) -> Exchange {
        Exchange {
            purpose,
            handle,
            status: None,
            last_event_id: None,
            retry: None,
            body_excerpt: None,
            superseded: false,
            session,
            resumes: 0,
            got_event: false,
        }
    }
}

/// A request to send again once a new session is open: its id, method and body.
pub(super) type Resend = (RequestId, String, Vec<u8>);

/// A stream to resume, and when.
pub(super) struct Resume {
    pub at: Instant,
    pub id: Option<RequestId>,
    pub last_event_id: Option<String>,
    pub resumes: u32,
}

/// The 2025-11-25 session, and what the transport learnt from replies.
#[derive(Default)]
pub(super) struct HttpSession {
    pub id: Option<String>,
    /// The version `initialize` settled on: the `MCP-Protocol-Version` of later requests.
    pub version: Option<String>,
    /// The last `initialize` params, to open a new session after the old one expired.
    pub init_params: Option<Value>,
    /// The internal `initialize` of a re-initialize, and the requests waiting for it.
    pub reinit: Option<(RequestId, Vec<Resend>)>,
    next_internal: u64,
    /// `x-mcp-header` annotations by tool, learnt from `tools/list` results.
    tool_headers: HashMap<String, Vec<HeaderParam>>,
}

impl HttpSession {
    /// The 2025-11-25 session headers: the session id, and the version once `initialize`
    /// settled it (never on `initialize` itself).
    pub(super) fn headers(&self, initialize: bool) -> Vec<(String, String)> {
        let mut headers = Vec::new();
        if initialize {
            return headers;
        }
        if let Some(session) = &self.id {
            headers.push(("Mcp-Session-Id".to_owned(), session.clone()));
        }
        if let Some(version) = &self.version {
            headers.push(("MCP-Protocol-Version".to_owned(), version.clone()));
        }
        headers
    }

    /// The 2026-07-28 headers that mirror a message's body.
    pub(super) fn mirror(&self, message: &Message) -> Vec<(String, String)> {
        headers::mirror(message, |tool| self.tool_headers.get(tool).cloned().unwrap_or_default())
    }

    /// What a result teaches the transport before its caller sees it: the version
    /// `initialize` settled on, and the `x-mcp-header` annotations of listed tools.
    pub(super) fn learn(&mut self, method: &str, result: &Value) {
        match method {
            "initialize" => {
                self.version = result.get("protocolVersion").and_then(Value::as_str).map(str::to_owned);
            }
            "tools/list" => {
                for tool in result.get("tools").and_then(Value::as_array).into_iter().flatten() {
                    let Some(name) = tool.get("name").and_then(Value::as_str) else { continue };
                    if let Ok(params) = headers::tool_header_params(tool) {
                        self.tool_headers.insert(name.to_owned(), params);
                    }
                }
            }
            _ => {}
        }
    }

    /// The id of an `initialize` Sonde sends on its own, which no caller's id can equal.
    pub(super) fn next_reinit_id(&mut self) -> RequestId {
        self.next_internal += 1;
        RequestId::String(format!("sonde-reinit-{}", self.next_internal))
    }
}

/// Where POSTs go, and the messages that wait until they can.
#[derive(Default)]
pub(super) struct Outbox {
    /// The URL itself, or (2024-11-05) the endpoint the stream named; `None` until known.
    pub post_url: Option<url::Url>,
    /// Messages waiting for the 2024-11-05 endpoint or the gate.
    pub queued: Vec<(Message, Purpose)>,
    /// The exchange of `notifications/initialized`, then of the GET stream, while it is on
    /// its way: nothing else is posted until it has answered.
    pub gate: Option<u64>,
    /// An authorization flow is running: requests wait for its token.
    pub authorizing: bool,
}

impl Outbox {
    /// Why a message must wait now, or `None` when it may go.
    pub(super) fn held(&self) -> Option<&'static str> {
        if self.post_url.is_none() {
            Some("queued until the server names its POST endpoint")
        } else if self.authorizing {
            Some("queued until the authorization is done")
        } else if self.gate.is_some() {
            Some("queued until the server has accepted notifications/initialized and answered the GET stream")
        } else {
            None
        }
    }

    /// Opens the gate if exchange `ex` held it. Returns whether it did.
    pub(super) fn release(&mut self, ex: u64) -> bool {
        let held = self.gate == Some(ex);
        if held {
            self.gate = None;
        }
        held
    }
}

/// The exchanges in flight and the streams waiting to be resumed.
pub(super) struct Streams {
    pub events: mpsc::UnboundedSender<Event>,
    /// Shared with an authorization flow, whose exchanges are numbered in the same sequence.
    next_ex: Arc<AtomicU64>,
    pub exchanges: HashMap<u64, Exchange>,
    pub resumes: Vec<Resume>,
    /// How many times in a row the GET stream ended before any event.
    pub listen_failures: u32,
}

impl Streams {
    pub(super) fn new(events: mpsc::UnboundedSender<Event>) -> Streams {
        Streams {
            events,
            next_ex: Arc::new(AtomicU64::new(1)),
            exchanges: HashMap::new(),
            resumes: Vec::new(),
            listen_failures: 0,
        }
    }

    /// The number of the next exchange.
    pub(super) fn next_ex(&mut self) -> u64 {
        self.next_ex.fetch_add(1, Ordering::Relaxed)
    }

    /// The exchange numbers, for an authorization flow to take from.
    pub(super) fn counter(&self) -> Arc<AtomicU64> {
        self.next_ex.clone()
    }

    pub(super) fn abort_all(&self) {
        for exchange in self.exchanges.values() {
            exchange.handle.abort();
        }
    }

    /// Drops every stream and every resume.
    pub(super) fn clear(&mut self) {
        self.abort_all();
        self.exchanges.clear();
        self.resumes.clear();
    }

    /// Closes the stream that carries a request, if it has one of its own, and forgets it:
    /// an aborted exchange reports nothing more.
    pub(super) fn abort_carrying(&mut self, id: &RequestId) {
        self.exchanges.retain(|_, exchange| {
            let carries = exchange.purpose.carries() == Some(id);
            if carries {
                exchange.handle.abort();
            }
            !carries
        });
        self.resumes.retain(|r| r.id.as_ref() != Some(id));
    }

    pub(super) fn next_resume_at(&self) -> Option<Instant> {
        self.resumes.iter().map(|r| r.at).min()
    }

    /// Removes and returns the resumes that are due.
    pub(super) fn due(&mut self, now: Instant) -> Vec<Resume> {
        let (due, later): (Vec<Resume>, Vec<Resume>) =
            std::mem::take(&mut self.resumes).into_iter().partition(|r| r.at <= now);
        self.resumes = later;
        due
    }
}
