//! One live connection to one server: a task that owns the wire, and a handle to talk to it.
//!
//! Owns: request ids (monotonic integers, never reused), the pending map, per-request timeouts,
//! answers to server→client requests, failing every pending request with the factual reason
//! when the server goes away, and the shutdown of the transport.
//! Refuses: the meaning of MCP methods beyond the envelope and what a transport needs to
//! carry it (over HTTP: the version `initialize` settled on, tools' `x-mcp-header`
//! annotations); `mcp` builds the requests and reads the results.
//!
//! The task is the only owner of the pending map: callers send it commands over a channel
//! and wait on a oneshot for the outcome, so there is no shared mutable state. There is one
//! loop per transport, `stdio` and `http`; what they do alike lives once in `spine`, and the
//! bookkeeping of waiting requests in `pending`.

pub mod deadline;
mod exchange;
mod http;
mod inbound;
mod pending;
mod responder;
mod spine;
mod status;
mod stdin;
mod stdio;
mod stdout;

pub use inbound::{classify, with_summary};
pub use pending::LISTEN;
pub use responder::{
    elicitation_capability, file_uri, not_handled, refused, sampling_capability, Answer, BasicResponder,
    ElicitAnswer, LiveRoots, Responder, Roots,
};
pub use status::Status;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};

use crate::diagnose::Finding;
use crate::log::WireLog;
use crate::process::{ExitInfo, Graces, SpawnSpec};
use crate::wire::{ErrorObject, RequestId, DEFAULT_MAX_LINE};

/// Knobs of one connection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// How long a request may wait for its reply (default 60 s).
    pub request_timeout: Duration,
    /// The longest stdout line kept whole (default 64 MiB).
    pub max_line: usize,
    pub graces: Graces,
    /// The most a request may run when progress keeps resetting its timeout (default 10 min).
    pub max_request_time: Duration,
    /// Each request Sonde sends starts a trace: a W3C `traceparent` in its `_meta`, marked as
    /// Sonde's own in its `tracestate`, so a server that traces joins it (`--trace`).
    pub trace: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            request_timeout: Duration::from_secs(60),
            max_line: DEFAULT_MAX_LINE,
            graces: Graces::default(),
            max_request_time: Duration::from_secs(600),
            trace: false,
        }
    }
}

/// Why a request got no result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequestError {
    /// The server answered with a JSON-RPC error.
    #[error("{method} failed: {} (code {}){}", .error.message, .error.code, data_words(.error.data.as_ref()))]
    Rpc { method: String, error: Box<ErrorObject> },
    /// No reply (for a listen request, no acknowledgement) came in time;
    /// `notifications/cancelled` was sent.
    #[error("{method} got no {} within {}", pending::awaited(method), crate::process::duration_words(*.after))]
    Timeout { method: String, after: Duration },
    /// The reply was longer than the line cap and could not be read.
    #[error("the reply to {method} was {len} bytes, over the {cap}-byte line cap; its head is in the log")]
    TooLarge { method: String, len: u64, cap: usize },
    /// The reply broke the protocol, or asks for something Sonde does not do.
    #[error("{0}")]
    Protocol(String),
    /// Sonde cancelled it (`notifications/cancelled` was sent where the era allows).
    #[error("{method} was cancelled: {reason}")]
    Cancelled { method: String, reason: String },
    /// The server answered over HTTP with a status and no JSON-RPC reply.
    #[error("{method} got HTTP {status}{}", if .detail.is_empty() { String::new() } else { format!(": {}", .detail) })]
    Http { method: String, status: u16, detail: String },
    /// No HTTP response came at all (refused, a timeout, a dropped stream).
    #[error("{method} failed: {reason}")]
    Unreachable { method: String, reason: String },
    /// The server went away, or the connection was closed.
    #[error("{0}")]
    Gone(String),
}

/// An error's `data` after its message, so `-32021`'s `requiredCapabilities` or `-32022`'s
/// `supported` versions are in plain sight.
fn data_words(data: Option<&Value>) -> String {
    data.map(|d| format!("; data: {d}")).unwrap_or_default()
}

/// A handle to a live connection. Cheap to clone; the connection lives until shut down.
#[derive(Clone)]
pub struct Connection {
    id: u64,
    commands: mpsc::UnboundedSender<spine::Command>,
    log: Arc<WireLog>,
    responder: Arc<dyn Responder>,
    /// Request ids are allocated here, so a caller knows the id it may cancel; they are
    /// monotonic and never reused.
    next_id: Arc<AtomicU64>,
    http: bool,
    status: watch::Receiver<Status>,
    /// Whether an authorization flow is running (HTTP); always `false` for stdio.
    authorizing: watch::Receiver<bool>,
}

/// A request on its way: its id (to cancel it) and its outcome.
pub struct Call {
    pub id: RequestId,
    outcome: oneshot::Receiver<Result<Value, RequestError>>,
}

impl Call {
    pub async fn outcome(self) -> Result<Value, RequestError> {
        self.outcome.await.unwrap_or_else(|_| Err(RequestError::Gone("the connection task ended".into())))
    }
}

/// A request as the loop will send it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub params: Option<Value>,
    /// Overrides the connection's request timeout.
    pub timeout: Option<Duration>,
    /// Marks the frames as part of the era probe in the log.
    pub probe: bool,
    /// Receives each `notifications/progress` params for this request. Setting it adds a
    /// `progressToken` (the request id) to the request, and each update resets the timeout,
    /// up to the connection's hard maximum.
    pub progress: Option<mpsc::UnboundedSender<Value>>,
    /// The request that began the operation this one continues (an `input_required` round's
    /// retry, a task's poll), recorded on its entry so the log and the timeline can tell.
    pub part_of: Option<RequestId>,
    /// What only this request's sender can check of its reply; its findings go on the reply.
    pub check: Option<ReplyCheck>,
    /// Set to the moment its reply was read and matched, before it is recorded and handed to
    /// the caller: a load run's latency ends at the answer, not at Sonde's bookkeeping after it.
    pub answered_at: Option<AnsweredAt>,
}

/// Where the loop stamps the moment a request's reply arrived (see [`Request::answered_at`]).
pub type AnsweredAt = Arc<std::sync::OnceLock<Instant>>;

/// A check of a reply that only the request's sender can make, knowing what the reply must hold
/// (a skill's entry knows its file's digest): its findings go on the reply's frame in the log,
/// beside those of the method's own rules.
#[derive(Clone)]
pub struct ReplyCheck(Arc<CheckFn>);

type CheckFn = dyn Fn(&Value) -> Vec<Finding> + Send + Sync;

impl ReplyCheck {
    pub fn new(check: impl Fn(&Value) -> Vec<Finding> + Send + Sync + 'static) -> ReplyCheck {
        ReplyCheck(Arc::new(check))
    }

    /// The findings on a reply's result.
    pub fn findings(&self, result: &Value) -> Vec<Finding> {
        (self.0)(result)
    }
}

impl std::fmt::Debug for ReplyCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReplyCheck")
    }
}

impl Request {
    pub fn new(method: &str, params: Option<Value>) -> Request {
        Request {
            method: method.to_owned(),
            params,
            timeout: None,
            probe: false,
            progress: None,
            part_of: None,
            check: None,
            answered_at: None,
        }
    }

    /// This request, marked as a part of the operation `head` began.
    pub fn part_of(mut self, head: Option<&RequestId>) -> Request {
        self.part_of = head.cloned();
        self
    }
}

impl Connection {
    /// Starts a stdio server and the task that owns its wire. The server lives until
    /// [`Connection::shutdown`], however long any caller waits for anything.
    pub fn spawn_stdio(
        id: u64,
        spec: &SpawnSpec,
        log: Arc<WireLog>,
        options: Options,
        responder: Arc<dyn Responder>,
    ) -> std::io::Result<Connection> {
        let (status_tx, status) = watch::channel(Status::Open);
        let graces = options.graces;
        let observer: crate::process::Observer =
            Arc::new(move |event| status::observe(&status_tx, event, graces));
        let spawned = crate::process::spawn(spec, log.clone(), id, Some(observer))?;
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(stdio::run(id, spawned, log.clone(), options, responder.clone(), rx));
        let next_id = Arc::new(AtomicU64::new(1));
        let authorizing = watch::channel(false).1;
        Ok(Connection { id, commands: tx, log, responder, next_id, http: false, status, authorizing })
    }

    /// Starts the loop for an HTTP server (nothing is sent until the first request); fails, as
    /// a process that cannot be spawned does, when the HTTP client cannot be built.
    pub fn open_http(
        id: u64,
        target: crate::transport::HttpTarget,
        mode: crate::transport::HttpMode,
        log: Arc<WireLog>,
        options: Options,
        responder: Arc<dyn Responder>,
        authorizer: Option<Arc<crate::auth::Authorizer>>,
    ) -> std::io::Result<Connection> {
        let (tx, rx) = mpsc::unbounded_channel();
        let parts = http::Parts { log: log.clone(), options, responder: responder.clone(), authorizer };
        let (status, authorizing) = http::start(id, target, mode, parts, rx)?;
        let next_id = Arc::new(AtomicU64::new(1));
        Ok(Connection { id, commands: tx, log, responder, next_id, http: true, status, authorizing })
    }

    /// Where the connection stands, as its loop knows it; changes as they happen.
    pub fn status(&self) -> watch::Receiver<Status> {
        self.status.clone()
    }

    /// Whether the connection waits for a person to authorize it; changes as it happens.
    pub fn authorizing(&self) -> watch::Receiver<bool> {
        self.authorizing.clone()
    }

    /// The responder that answers this server's requests.
    pub fn responder(&self) -> &Arc<dyn Responder> {
        &self.responder
    }

    /// The client capabilities this connection's responder supports.
    pub fn client_capabilities(&self) -> serde_json::Value {
        self.responder.capabilities()
    }

    /// The `clientInfo` this connection's responder presents for another client, if it stands
    /// for one (`None`: the session presents Sonde's).
    pub fn client_info(&self) -> Option<serde_json::Value> {
        self.responder.client_info()
    }

    /// The 2025 protocol version this connection's responder asks for, if not Sonde's.
    pub fn requested_version(&self) -> Option<String> {
        self.responder.requested_version()
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    /// True over HTTP, where tool annotations become headers (`x-mcp-header`).
    pub fn is_http(&self) -> bool {
        self.http
    }

    pub fn log(&self) -> &Arc<WireLog> {
        &self.log
    }

    /// Records a note of Sonde's own in the connection's log: something it decided that the
    /// wire does not show (a listing cut short, a tool left out).
    pub fn note(&self, detail: String) {
        self.log.append(
            crate::log::Entry::new(self.id, crate::log::Kind::Note, crate::log::Direction::Meta)
                .with_detail(detail),
        );
    }

    /// Records a note that carries a finding: a fault seen across frames (a cursor loop), which
    /// no single frame shows.
    pub fn note_finding(&self, detail: String, finding: crate::diagnose::Finding) {
        let mut entry = crate::log::Entry::new(self.id, crate::log::Kind::Note, crate::log::Direction::Meta)
            .with_detail(detail);
        entry.findings.push(finding);
        self.log.append(entry);
    }

    /// Sends a request and waits for its result.
    pub async fn request(&self, request: Request) -> Result<Value, RequestError> {
        self.start(request)?.outcome().await
    }

    /// Sends a request and returns at once with its id and a handle on its outcome.
    pub fn start(&self, mut request: Request) -> Result<Call, RequestError> {
        if let Some(theirs) = self.responder.reply_check(&request.method) {
            request.check = Some(match request.check.take() {
                None => theirs,
                Some(own) => ReplyCheck::new(move |result| {
                    own.findings(result).into_iter().chain(theirs.findings(result)).collect()
                }),
            });
        }
        let id = RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (reply, outcome) = oneshot::channel();
        let method = request.method.clone();
        self.commands
            .send(spine::Command::Request { id: id.clone(), request, reply })
            .map_err(|_| RequestError::Gone(format!("the connection is closed; {method} was not sent")))?;
        Ok(Call { id, outcome })
    }

    /// Cancels a pending request: its caller gets [`RequestError::Cancelled`], the server gets
    /// `notifications/cancelled` (never for `initialize`), and a late reply is logged and ignored.
    pub fn cancel(&self, id: &RequestId, reason: &str) {
        let _ = self.commands.send(spine::Command::Cancel { id: id.clone(), reason: reason.to_owned() });
    }

    /// Cancels every pending call (see [`Connection::cancel`]); subscriptions go on (they are
    /// stopped by their own handle, and end with the connection).
    pub fn cancel_all(&self, reason: &str) {
        let _ = self.commands.send(spine::Command::CancelAll { reason: reason.to_owned() });
    }

    /// Sends a notification (no reply is expected).
    pub fn notify(&self, method: &str, params: Option<Value>) -> Result<(), RequestError> {
        self.commands
            .send(spine::Command::Notify { method: method.to_owned(), params })
            .map_err(|_| RequestError::Gone(format!("the connection is closed; {method} was not sent")))
    }

    /// How the server process ended, once it has.
    pub async fn exit_info(&self) -> Option<ExitInfo> {
        let (reply, outcome) = oneshot::channel();
        self.commands.send(spine::Command::ExitInfo { reply }).ok()?;
        outcome.await.ok().flatten()
    }

    /// The server's pid (also its process group id).
    pub async fn pid(&self) -> Option<u32> {
        let (reply, outcome) = oneshot::channel();
        self.commands.send(spine::Command::Pid { reply }).ok()?;
        outcome.await.ok()
    }

    /// Tells the loop which era was decided and what the server declared, for how it treats
    /// server requests and what it says of the server's notifications.
    pub fn settled(&self, era: crate::era::Era, capabilities: Value) {
        let _ = self.commands.send(spine::Command::Settled { era, capabilities });
    }

    /// Runs the shutdown ladder and waits for it to finish. Requests still pending fail with
    /// the way the server ended. Idempotent.
    pub async fn shutdown(&self) -> Option<ExitInfo> {
        let (reply, outcome) = oneshot::channel();
        self.commands.send(spine::Command::Shutdown { reply }).ok()?;
        outcome.await.ok().flatten()
    }
}
