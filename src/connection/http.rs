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

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;
use tokio::time::Instant;

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
        lp.open_legacy_stream();
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

    /// Records a message and POSTs it. Returns the seq of its entry. A message waits (recorded
    /// as queued) while the 2024-11-05 endpoint is unknown or `notifications/initialized` is
    /// still on its way, so the server never sees a request before it.
    fn post(&mut self, message: Message, probe: bool, purpose: Purpose) -> u64 {
        if self.post_url.is_none() || self.gate.is_some() {
            let why = if self.post_url.is_none() {
                "queued until the server names its POST endpoint"
            } else {
                "queued until the server has accepted notifications/initialized and answered the GET stream"
            };
            let seq = self.record_out(&message, probe, None, &[], why);
            self.queued.push((message, purpose));
            return seq;
        }
        let (ex, url, headers) = self.prepare(&message);
        let seq = self.record_out(&message, probe, Some((ex, &url)), &headers, "");
        self.launch(ex, url, headers, message, purpose);
        seq
    }

    /// A message that waited goes out now; its entry was recorded when it was queued, so an
    /// HTTP entry records the POST itself.
    fn post_queued(&mut self, message: Message, purpose: Purpose) {
        let (ex, url, headers) = self.prepare(&message);
        let what = message.method().unwrap_or("reply").to_owned();
        let mut entry = Entry::new(self.conn, Kind::Http, Direction::Out)
            .with_detail(format!("POST {url}: sending the queued {what}"));
        entry.http = Some(HttpInfo {
            exchange: ex,
            method: Some("POST".into()),
            url: Some(url.to_string()),
            headers: self.redacted(&headers),
            ..HttpInfo::default()
        });
        self.log.append(entry);
        self.launch(ex, url, headers, message, purpose);
    }

    /// The exchange number, URL and headers of a POST of this message.
    fn prepare(&mut self, message: &Message) -> (u64, url::Url, Vec<(String, String)>) {
        let url = self.post_url.clone().expect("known before anything is posted");
        let mut headers = vec![
            ("Content-Type".to_owned(), "application/json".to_owned()),
            ("Accept".to_owned(), "application/json, text/event-stream".to_owned()),
        ];
        let mirrored =
            headers::mirror(message, |tool| self.tool_headers.get(tool).cloned().unwrap_or_default());
        if mirrored.is_empty() {
            headers.extend(self.session_headers(message.method() == Some("initialize")));
        }
        headers.extend(mirrored);
        headers.extend(self.user_headers());
        (self.next_ex(), url, headers)
    }

    fn launch(
        &mut self,
        ex: u64,
        url: url::Url,
        headers: Vec<(String, String)>,
        message: Message,
        purpose: Purpose,
    ) {
        if self.mode == HttpMode::Streamable && message.method() == Some("notifications/initialized") {
            self.gate = Some(ex);
        }
        let body = Some(message.to_json());
        self.start_exchange(Outgoing { ex, method: reqwest::Method::POST, url, headers, body }, purpose);
    }

    /// Sends what waited, once nothing holds it back.
    fn flush_queued(&mut self) {
        for (message, purpose) in std::mem::take(&mut self.queued) {
            if self.post_url.is_some() && self.gate.is_none() {
                self.post_queued(message, purpose);
            } else {
                self.queued.push((message, purpose));
            }
        }
    }

    /// The 2025-11-25 session headers: the session id, and the version once `initialize`
    /// settled it (never on `initialize` itself).
    fn session_headers(&self, initialize: bool) -> Vec<(String, String)> {
        let mut headers = Vec::new();
        if initialize {
            return headers;
        }
        if let Some(session) = &self.session {
            headers.push(("Mcp-Session-Id".to_owned(), session.clone()));
        }
        if let Some(version) = &self.version {
            headers.push(("MCP-Protocol-Version".to_owned(), version.clone()));
        }
        headers
    }

    fn user_headers(&self) -> Vec<(String, String)> {
        self.target.headers.iter().map(|h| (h.name.clone(), h.value.clone())).collect()
    }

    fn next_ex(&mut self) -> u64 {
        let ex = self.next_ex;
        self.next_ex += 1;
        ex
    }

    fn record_out(
        &self,
        message: &Message,
        probe: bool,
        http: Option<(u64, &url::Url)>,
        headers: &[(String, String)],
        queued: &str,
    ) -> u64 {
        let mut entry = with_summary(
            Entry::new(self.conn, Kind::Message, Direction::Out).with_owned_bytes(message.to_json()),
            message,
        );
        entry.probe = probe;
        match http {
            Some((ex, url)) => {
                entry.http = Some(HttpInfo {
                    exchange: ex,
                    method: Some("POST".into()),
                    url: Some(url.to_string()),
                    headers: self.redacted(headers),
                    ..HttpInfo::default()
                })
            }
            None => entry.detail = Some(queued.to_owned()),
        }
        self.log.append(entry)
    }

    /// Headers as recorded: the values of secret ones are replaced.
    fn redacted(&self, headers: &[(String, String)]) -> Vec<(String, String)> {
        headers
            .iter()
            .map(|(name, value)| {
                let secret = is_secret_name(name)
                    || self.target.headers.iter().any(|h| h.secret && h.name.eq_ignore_ascii_case(name));
                (name.clone(), if secret { "[redacted]".to_owned() } else { value.clone() })
            })
            .collect()
    }

    fn start_exchange(&mut self, out: Outgoing, purpose: Purpose) {
        let ex = out.ex;
        let cap = self.options.max_line;
        let mut timeouts = self.target.timeouts;
        // Streams that exist to wait (the GET stream, a subscription) may be silent for as long
        // as nothing happens; the idle timeout is for streams that owe a reply.
        let waits = match &purpose {
            Purpose::Listen | Purpose::Resume { id: None } => true,
            Purpose::Request { method, .. } => method == "subscriptions/listen",
            _ => false,
        };
        if waits {
            timeouts.idle = Duration::from_secs(365 * 24 * 3600);
        }
        let handle = exchange::start(&self.client, out, timeouts, cap, self.events.clone());
        let exchange = Exchange {
            purpose,
            handle,
            status: None,
            last_event_id: None,
            retry: None,
            body_excerpt: None,
            superseded: false,
            resumes: 0,
            got_event: false,
        };
        self.exchanges.insert(ex, exchange);
    }

    /// A GET (the listen stream, a resume, the 2024-11-05 stream) or a DELETE, recorded as an
    /// HTTP entry since it has no JSON-RPC body.
    fn start_bodiless(
        &mut self,
        method: reqwest::Method,
        extra: Vec<(String, String)>,
        purpose: Purpose,
    ) -> u64 {
        let url = self.target.url.clone();
        let mut headers = Vec::new();
        if method == reqwest::Method::GET {
            headers.push(("Accept".to_owned(), "text/event-stream".to_owned()));
        }
        headers.extend(self.session_headers(false));
        headers.extend(extra);
        headers.extend(self.user_headers());
        let ex = self.next_ex();
        let mut entry =
            Entry::new(self.conn, Kind::Http, Direction::Out).with_detail(format!("{method} {url}"));
        entry.http = Some(HttpInfo {
            exchange: ex,
            method: Some(method.to_string()),
            url: Some(url.to_string()),
            headers: self.redacted(&headers),
            ..HttpInfo::default()
        });
        self.log.append(entry);
        self.start_exchange(Outgoing { ex, method, url, headers, body: None }, purpose);
        ex
    }

    fn open_legacy_stream(&mut self) {
        self.start_bodiless(reqwest::Method::GET, Vec::new(), Purpose::LegacyStream);
    }

    fn on_event(&mut self, event: Event) {
        match event {
            Event::Head { ex, status, headers } => self.on_head(ex, status, headers),
            Event::Body { ex, bytes } => self.on_body(ex, bytes),
            Event::Sse { ex, event } => self.on_sse(ex, event),
            Event::End { ex, error } => self.on_end(ex, error),
        }
    }

    fn on_head(&mut self, ex: u64, status: u16, headers: Vec<(String, String)>) {
        let header =
            |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
        let content_type = header("content-type").unwrap_or_default();
        let mut detail = format!("HTTP {status} {}", reason_phrase(status));
        if !content_type.is_empty() {
            detail.push_str(&format!(" · {content_type}"));
        }
        if (300..400).contains(&status) {
            if let Some(location) = header("location") {
                detail.push_str(&format!(
                    " · redirect to {location} not followed: credentials stay with the origin"
                ));
            }
        }
        let mut entry = Entry::new(self.conn, Kind::Http, Direction::In).with_detail(detail);
        entry.http = Some(HttpInfo {
            exchange: ex,
            status: Some(status),
            headers: self.redacted(&headers),
            ..HttpInfo::default()
        });
        let Some(exchange) = self.exchanges.get_mut(&ex) else {
            self.log.append(entry);
            return;
        };
        exchange.status = Some(status);
        if let Some(location) = header("location").filter(|_| (300..400).contains(&status)) {
            exchange.body_excerpt =
                Some(format!("redirected to {location}, not followed: credentials stay with the origin"));
        }
        let purpose = exchange.purpose.clone();
        if let Purpose::Request { id, .. } = &purpose {
            entry.answers = self.pending.get(id).map(|p| p.seq);
        }
        self.log.append(entry);
        let release = self.gate == Some(ex);
        if release {
            self.gate = None;
        }
        let ok = (200..300).contains(&status);
        match purpose {
            Purpose::Request { method, .. } if method == "initialize" && ok => {
                if let Some(session) = header("mcp-session-id") {
                    self.session = Some(session);
                }
            }
            Purpose::Request { id, method, body } if status == 404 && self.session.is_some() => {
                self.exchanges.get_mut(&ex).expect("present").superseded = true;
                self.session_expired(id, method, body);
            }
            Purpose::Oneway { what } if what == "notifications/initialized" && ok => self.open_listen(),
            Purpose::Listen if status == 405 => self
                .note("the server offers no GET stream (HTTP 405): it can send nothing unsolicited".into()),
            Purpose::Delete if status == 405 => {
                self.note("the server does not end sessions on DELETE (HTTP 405)".into())
            }
            _ => {}
        }
        if release {
            self.flush_queued();
        }
    }

    /// Opens the GET stream once `initialized` is accepted, and holds requests until its head
    /// arrives: a server request sent to a stream that is not open yet is lost.
    fn open_listen(&mut self) {
        if self.mode == HttpMode::Streamable && !self.closed && self.closing.is_none() {
            let ex = self.start_bodiless(reqwest::Method::GET, Vec::new(), Purpose::Listen);
            self.gate = Some(ex);
        }
    }

    /// A 404 on a request sent with a session: the session expired. Open a new one without
    /// the header, then send the request again (it keeps its id: ids are per session).
    fn session_expired(&mut self, id: RequestId, method: String, body: Vec<u8>) {
        let old = self.session.take().unwrap_or_default();
        if let Some((_, waiting)) = &mut self.reinit {
            waiting.push((id, method, body));
            return;
        }
        self.note(format!(
            "session {old} expired (HTTP 404 on {method}); initializing a new session without it"
        ));
        let init_id = RequestId::String(format!("sonde-reinit-{}", self.next_internal));
        self.next_internal += 1;
        let message = Message::request(init_id.clone(), "initialize", self.init_params.clone());
        let body_init = message.to_json();
        let (reply, _) = oneshot::channel();
        let purpose = Purpose::Request { id: init_id.clone(), method: "initialize".into(), body: body_init };
        self.version = None;
        let seq = self.post(message, false, purpose);
        let request = Request::new("initialize", None);
        self.pending.insert(init_id.clone(), Pending::new(request, seq, self.options.request_timeout, reply));
        self.reinit = Some((init_id, vec![(id, method, body)]));
    }

    fn on_body(&mut self, ex: u64, bytes: Vec<u8>) {
        if bytes.is_empty() {
            return;
        }
        let status = self.exchanges.get(&ex).and_then(|e| e.status);
        let looks_json =
            bytes.iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|b| *b == b'{' || *b == b'[');
        if !looks_json {
            // One line of it for the error a request fails with; the entry keeps every byte.
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).into_owned();
            let mut excerpt = text_of(&text).split_whitespace().collect::<Vec<_>>().join(" ");
            if excerpt.chars().count() > 120 {
                excerpt = excerpt.chars().take(120).collect::<String>() + "…";
            }
            if let Some(exchange) = self.exchanges.get_mut(&ex) {
                exchange.body_excerpt.get_or_insert(excerpt);
            }
            let mut entry = Entry::new(self.conn, Kind::NonProtocol, Direction::In)
                .with_owned_bytes(bytes)
                .with_detail(format!("the HTTP {} body is not JSON-RPC", status.unwrap_or(0)));
            entry.http = Some(HttpInfo { exchange: ex, ..HttpInfo::default() });
            self.log.append(entry);
            return;
        }
        self.on_message_bytes(ex, bytes, HttpInfo { exchange: ex, ..HttpInfo::default() });
    }

    fn on_sse(&mut self, ex: u64, event: sse::Event) {
        let info = HttpInfo {
            exchange: ex,
            sse_id: event.id.clone(),
            sse_event: event.event.clone(),
            sse_retry: event.retry,
            ..HttpInfo::default()
        };
        let legacy_stream = if let Some(exchange) = self.exchanges.get_mut(&ex) {
            exchange.got_event = true;
            if let Some(id) = &event.id {
                exchange.last_event_id = Some(id.clone());
            }
            if let Some(retry) = event.retry {
                exchange.retry = Some(Duration::from_millis(retry));
            }
            matches!(exchange.purpose, Purpose::LegacyStream)
        } else {
            false
        };
        let kind = event.event.as_deref().unwrap_or("message");
        if kind == "endpoint" && legacy_stream {
            self.on_endpoint(ex, info, event.data.unwrap_or_default());
            return;
        }
        if event.is_primer() || kind != "message" {
            let mut words = if event.is_primer() {
                "a priming event (no data)".to_owned()
            } else {
                format!("an SSE event of type {kind:?}, which carries no MCP message; ignored")
            };
            if let Some(id) = &event.id {
                words.push_str(&format!(" · id {id}"));
            }
            if let Some(retry) = event.retry {
                words.push_str(&format!(" · retry {retry} ms"));
            }
            let mut entry = Entry::new(self.conn, Kind::Http, Direction::In).with_detail(words);
            if let Some(data) = event.data.filter(|d| !d.is_empty()) {
                entry = entry.with_bytes(data.as_bytes());
            }
            entry.http = Some(info);
            self.log.append(entry);
            return;
        }
        self.on_message_bytes(ex, event.data.unwrap_or_default().into_bytes(), info);
    }

    /// The 2024-11-05 stream named where to POST: resolve it (same origin only, so credentials
    /// stay there) and send what was waiting.
    fn on_endpoint(&mut self, ex: u64, info: HttpInfo, data: String) {
        let mut entry = Entry::new(self.conn, Kind::Http, Direction::In).with_bytes(data.as_bytes());
        entry.http = Some(info);
        let resolved = self.target.url.join(data.trim());
        match resolved {
            Ok(url) if url.origin() == self.target.url.origin() => {
                self.log.append(entry.with_detail(format!("endpoint: messages are POSTed to {url}")));
                self.post_url = Some(url);
                self.flush_queued();
            }
            Ok(url) => {
                self.log.append(entry.with_detail(format!(
                    "endpoint {url} is on another origin: refused, so credentials stay with {}",
                    self.target.url.origin().ascii_serialization()
                )));
                self.fail_everything(&format!("the SSE endpoint named another origin ({url})"));
                if let Some(exchange) = self.exchanges.get(&ex) {
                    exchange.handle.abort();
                }
            }
            Err(e) => {
                self.log.append(entry.with_detail(format!("the endpoint event is not a URL: {e}")));
                self.fail_everything("the SSE endpoint event was not a URL");
            }
        }
    }

    fn on_message_bytes(&mut self, ex: u64, bytes: Vec<u8>, info: HttpInfo) {
        let inbound = classify(self.conn, bytes, true);
        let mut entry = inbound.entry;
        entry.http = Some(info);
        let Some(message) = inbound.message else {
            self.log.append(entry);
            return;
        };
        let (status, superseded, request_id) = match self.exchanges.get(&ex) {
            Some(e) => {
                let id = match &e.purpose {
                    Purpose::Request { id, .. } => Some(id.clone()),
                    Purpose::Resume { id } => id.clone(),
                    _ => None,
                };
                (e.status, e.superseded, id)
            }
            None => (None, false, None),
        };
        if superseded {
            self.log.append(entry.with_detail("the reply of an expired session; the request is sent again"));
            return;
        }
        if let Some(status) = status.filter(|s| !(200..300).contains(s)) {
            entry.detail = Some(format!("HTTP {status} with a JSON-RPC body: a protocol reply"));
        }
        match message {
            Message::Response { id, outcome } => {
                // An error with id null on a request's own exchange answers that request (the
                // SDKs answer an unreadable or refused request this way, with a 4xx).
                let Some(id) = id.or_else(|| request_id.filter(|_| outcome.is_err())) else {
                    self.log.append(
                        entry.with_detail("an error with id null: the server could not read a request"),
                    );
                    return;
                };
                self.before_reply(&id, &outcome);
                let entry = self.pending.on_reply(entry, id.clone(), outcome);
                self.log.append(entry);
                self.after_reply(&id);
            }
            Message::Request { .. } if self.era == Some(Era::Modern) => {
                let detail = "a server request on a 2026-07-28 connection breaks the protocol; not answered";
                self.log.append(entry.with_detail(detail));
            }
            Message::Request { id, method, params } => {
                self.log.append(entry);
                let late = &self.late;
                if let Some(reply) = reply_to(self.responder.as_ref(), id, &method, params.as_ref(), late) {
                    self.post(reply, false, Purpose::Oneway { what: format!("the reply to {method}") });
                }
            }
            Message::Notification { method, params } => {
                let hard_max = self.options.max_request_time;
                self.log.append(self.pending.on_notification(entry, &method, params.as_ref(), hard_max));
            }
        }
    }

    /// What a reply teaches the transport before its caller sees it: the version `initialize`
    /// settled on, and the `x-mcp-header` annotations of listed tools.
    fn before_reply(&mut self, id: &RequestId, outcome: &Result<Value, crate::wire::ErrorObject>) {
        let Ok(result) = outcome else { return };
        let Some(method) = self.pending.get(id).map(|p| p.method.clone()) else { return };
        match method.as_str() {
            "initialize" => {
                self.version = result.get("protocolVersion").and_then(Value::as_str).map(str::to_owned);
            }
            "tools/list" => {
                for tool in result.get("tools").and_then(Value::as_array).into_iter().flatten() {
                    let Some(name) = tool.get("name").and_then(Value::as_str) else { continue };
                    let params = tool.get("inputSchema").map(headers::header_params);
                    if let Some(Ok(params)) = params {
                        self.tool_headers.insert(name.to_owned(), params);
                    }
                }
            }
            _ => {}
        }
    }

    /// After a re-initialize's reply: say `initialized`, then send again what waited.
    fn after_reply(&mut self, id: &RequestId) {
        if self.reinit.as_ref().is_none_or(|(init, _)| init != id) {
            return;
        }
        let (_, waiting) = self.reinit.take().expect("checked");
        if self.version.is_none() {
            let words = "re-initializing after the session expired failed";
            for (id, _, _) in waiting {
                if let Some(p) = self.pending.remove(&id) {
                    p.fail(RequestError::Gone(words.into()));
                }
            }
            return;
        }
        let initialized = Message::notification("notifications/initialized", None);
        self.post(initialized, false, Purpose::Oneway { what: "notifications/initialized".into() });
        for (id, method, body) in waiting {
            if !self.pending.contains(&id) {
                continue;
            }
            let Ok(message) = Message::decode(&body) else { continue };
            self.note(format!("sending {method} {id} again in the new session"));
            self.post(message, false, Purpose::Request { id, method, body });
        }
    }

    fn on_end(&mut self, ex: u64, error: Option<String>) {
        if self.gate == Some(ex) {
            self.gate = None;
            self.flush_queued();
        }
        let Some(exchange) = self.exchanges.remove(&ex) else { return };
        if let Some(error) = &error {
            let mut entry = Entry::new(self.conn, Kind::Note, Direction::Meta)
                .with_detail(format!("HTTP exchange {ex}: {error}"));
            entry.http = Some(HttpInfo { exchange: ex, ..HttpInfo::default() });
            self.log.append(entry);
        }
        if exchange.superseded {
            return;
        }
        match &exchange.purpose {
            Purpose::Request { id, method, .. } => {
                self.request_stream_ended(id.clone(), method, &exchange, error)
            }
            Purpose::Resume { id: Some(id) } => {
                let method = self.pending.get(id).map(|p| p.method.clone()).unwrap_or_default();
                self.request_stream_ended(id.clone(), &method, &exchange, error)
            }
            Purpose::Resume { id: None } | Purpose::Listen => self.listen_ended(&exchange),
            Purpose::Oneway { what } => {
                if let Some(status) = exchange.status.filter(|s| !(200..300).contains(s)) {
                    self.note(format!("the server refused {what} with HTTP {status}"));
                } else if let Some(error) = error {
                    self.note(format!("{what} may not have arrived: {error}"));
                }
            }
            Purpose::LegacyStream => {
                let why = match (exchange.status, error) {
                    (Some(status), _) if !(200..300).contains(&status) => {
                        format!(
                            "GET {} answered HTTP {status}: no 2024-11-05 SSE stream there",
                            self.target.url
                        )
                    }
                    (_, Some(error)) => format!("the 2024-11-05 SSE stream broke: {error}"),
                    _ => "the server ended the 2024-11-05 SSE stream".to_owned(),
                };
                self.fail_everything(&why);
            }
            Purpose::Delete => {
                if exchange.status.is_some_and(|s| (200..300).contains(&s)) {
                    self.note("the session was ended with DELETE".into());
                }
                self.finish_close("");
            }
        }
    }

    /// A request's stream ended. If its reply came, nothing to do. Otherwise: a refusal
    /// without a JSON-RPC body fails it with the status; a 2025-11-25 SSE stream that had an
    /// event id is resumed with GET after `retry:`; anything else fails it with what happened.
    fn request_stream_ended(
        &mut self,
        id: RequestId,
        method: &str,
        exchange: &Exchange,
        error: Option<String>,
    ) {
        if !self.pending.contains(&id) {
            return;
        }
        if self.mode == HttpMode::LegacySse && exchange.status.is_some_and(|s| (200..300).contains(&s)) {
            // 2024-11-05: the POST is only accepted; the reply comes on the GET stream.
            return;
        }
        if let Some(status) = exchange.status.filter(|s| !(200..300).contains(s)) {
            let detail = exchange.body_excerpt.clone().unwrap_or_default();
            let pending = self.pending.remove(&id).expect("checked");
            pending.fail(RequestError::Http { method: method.to_owned(), status, detail });
            return;
        }
        let modern = self.era == Some(Era::Modern);
        if let (false, Some(last)) = (modern, exchange.last_event_id.clone()) {
            if exchange.resumes < MAX_RESUMES {
                let wait = exchange.retry.unwrap_or(DEFAULT_RETRY);
                self.note(format!(
                    "the stream of {method} {id} ended before its reply; resuming with GET and Last-Event-ID {last} in {}",
                    duration_words(wait)
                ));
                self.resumes.push(Resume {
                    at: Instant::now() + wait,
                    id: Some(id),
                    last_event_id: Some(last),
                    resumes: exchange.resumes + 1,
                });
                return;
            }
        }
        let how = match (&error, exchange.status) {
            (Some(error), _) => error.clone(),
            (None, Some(202)) => "the server accepted it (HTTP 202) but sent no reply".to_owned(),
            (None, _) => "the response ended without a reply".to_owned(),
        };
        let pending = self.pending.remove(&id).expect("checked");
        pending.fail(RequestError::Unreachable { method: method.to_owned(), reason: how });
    }

    /// The GET stream ended: reopen it (resuming when it had event ids) unless the server
    /// refused it or it keeps failing at once.
    fn listen_ended(&mut self, exchange: &Exchange) {
        if self.closed || self.closing.is_some() || exchange.status.is_some_and(|s| !(200..300).contains(&s))
        {
            return;
        }
        self.listen_failures = if exchange.got_event { 0 } else { self.listen_failures + 1 };
        if self.listen_failures >= MAX_RESUMES {
            self.note("the GET stream keeps closing at once; not reopened".into());
            return;
        }
        let wait = exchange.retry.unwrap_or(DEFAULT_RETRY);
        self.resumes.push(Resume {
            at: Instant::now() + wait,
            id: None,
            last_event_id: exchange.last_event_id.clone(),
            resumes: 0,
        });
    }

    fn on_resumes_due(&mut self) {
        let now = Instant::now();
        let (due, later): (Vec<Resume>, Vec<Resume>) =
            std::mem::take(&mut self.resumes).into_iter().partition(|r| r.at <= now);
        self.resumes = later;
        for resume in due {
            if resume.id.as_ref().is_some_and(|id| !self.pending.contains(id)) {
                continue;
            }
            let extra: Vec<(String, String)> =
                resume.last_event_id.iter().map(|last| ("Last-Event-ID".to_owned(), last.clone())).collect();
            let purpose =
                if resume.id.is_some() { Purpose::Resume { id: resume.id } } else { Purpose::Listen };
            let ex = self.start_bodiless(reqwest::Method::GET, extra, purpose);
            if let Some(exchange) = self.exchanges.get_mut(&ex) {
                exchange.resumes = resume.resumes;
            }
        }
    }

    /// Closes the stream that carries a request, if it has one of its own.
    fn abort_stream_of(&mut self, id: &RequestId) {
        for exchange in self.exchanges.values() {
            let carries = match &exchange.purpose {
                Purpose::Request { id: r, .. } => r == id,
                Purpose::Resume { id: Some(r) } => r == id,
                _ => false,
            };
            if carries {
                exchange.handle.abort();
            }
        }
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

    fn fail_everything(&mut self, reason: &str) {
        self.pending.fail_all(reason);
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

/// The words of a body: an HTML error page without its tags, anything else as it is.
fn text_of(body: &str) -> String {
    if !body.trim_start().starts_with('<') {
        return body.to_owned();
    }
    let mut words = String::new();
    let mut in_tag = false;
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                words.push(' ');
            }
            c if !in_tag => words.push(c),
            _ => {}
        }
    }
    words
}

fn reason_phrase(status: u16) -> &'static str {
    reqwest::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("")
}

#[cfg(test)]
mod tests {
    #[test]
    fn html_error_pages_read_as_their_words() {
        let page = "<!DOCTYPE html>\n<html><head><title>Error</title></head><body><pre>Cannot POST /sse</pre></body></html>";
        let words = super::text_of(page).split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(words, "Error Cannot POST /sse");
        assert_eq!(super::text_of("plain <3"), "plain <3");
    }
}
