//! The HTTP proxy: Sonde between a client and a Streamable HTTP (or 2024-11-05 SSE) server.
//! It listens on a loopback address, forwards each request (POST, GET, DELETE, any other) to the
//! same path on the server's origin with its headers, and streams the response back chunk by
//! chunk as it arrives, recording the exchange as Sonde's own HTTP client does: the request and
//! the response head with secret header values redacted, each message of a body or an event
//! stream decoded and correlated by the same [`Recorder`] the stdio proxy uses.
//!
//! Each client is recorded under a connection number of its own (`clients` tells them apart),
//! so two clients' requests of the same id are never taken for each other's.
//!
//! Owns: the listening socket, admission (a `Host` or `Origin` other than the proxy's own
//! loopback address is refused with 403, so a web page cannot reach it through DNS rebinding),
//! the forwarding of each exchange, and the tee of each response body to its recording.
//! Refuses: listening on anything but loopback, spawning anything, following redirects (the
//! client sees them as the server sent them), answering anything itself but its own refusals
//! and a 502 when the server cannot be reached, and letting a slow or failed recording stop a
//! byte (only a recorder more than [`BACKLOG`] chunks behind makes the stream wait for it).
//!
//! One change to what passes: `Accept-Encoding` is not forwarded, so bodies come back
//! uncompressed and can be recorded as they are read.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{HeaderName, HOST, ORIGIN};
use hyper::{Request, Response, StatusCode};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use super::clients::Clients;
use crate::log::{Direction, Entry, HttpInfo, Kind, WireLog};
use crate::sync::Lock;
use crate::transport::{self, sse};

use super::PROXY_CONN;
/// How many chunks of one response the recorder may fall behind before the stream waits.
const BACKLOG: usize = 4096;
/// How many different refusals the log notes; later ones are answered all the same.
const MAX_REFUSALS_NOTED: usize = 64;
/// The largest request body the proxy takes from a client: far past any MCP message.
const REQUEST_CAP: usize = 64 << 20;

/// How a body that ended as it should is said to have ended (and then not recorded).
const ENDED: &str = "ended";

type Body = UnsyncBoxBody<Bytes, io::Error>;

/// Binds `listen`, which must be a loopback address: the proxy serves this machine only.
pub async fn bind_proxy(listen: SocketAddr) -> io::Result<TcpListener> {
    if !listen.ip().is_loopback() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{listen} is not a loopback address: the proxy listens on 127.0.0.1 or [::1] only"),
        ));
    }
    TcpListener::bind(listen).await
}

/// Serves clients on `listener`, forwarding to `upstream`'s origin, until `stop` resolves.
pub async fn proxy_http(
    listener: TcpListener,
    upstream: url::Url,
    log: Arc<WireLog>,
    max_line: usize,
    stop: impl Future<Output = ()>,
) -> io::Result<()> {
    let local = listener.local_addr()?;
    let proxy = Arc::new(Proxy::new(local, upstream, log, max_line)?);
    proxy.note(format!(
        "HTTP proxy on http://{local}, forwarding to {}",
        transport::shown_url(&proxy.upstream)
    ));
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut stop => return Ok(()),
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // A connection reset before it was taken concerns that client only.
                Err(e) if e.kind() == io::ErrorKind::ConnectionAborted => continue,
                // Out of descriptors or memory for a moment: the clients being served go on,
                // and the next connection is taken once some are let go.
                Err(e) => {
                    proxy.note(format!("could not take a connection: {e}; trying again in 100 ms"));
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let proxy = proxy.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let proxy = proxy.clone();
                async move { Ok::<_, Infallible>(proxy.handle(request, peer).await) }
            });
            // A client that goes mid-exchange ends its connection; nothing else depends on it.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

struct Proxy {
    upstream: url::Url,
    client: reqwest::Client,
    log: Arc<WireLog>,
    clients: Mutex<Clients>,
    max_line: usize,
    /// The `Host` values that name this proxy (its address, and `localhost` with its port).
    hosts: Vec<String>,
    next_exchange: AtomicU64,
    /// The refusals noted in the log so far.
    refused: Mutex<std::collections::HashSet<String>>,
}

/// What the pump hands the recording of one response body.
enum Tee {
    Chunk(Bytes),
    /// The body ended: how, in words.
    End(String),
}

impl Proxy {
    fn new(local: SocketAddr, upstream: url::Url, log: Arc<WireLog>, max_line: usize) -> io::Result<Proxy> {
        // Several clients may race to install the provider; the first wins and all are the same.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(std::time::Duration::from_secs(30))
            .build()
            .map_err(|e| io::Error::other(sse::error_chain(&e)))?;
        let port = local.port();
        let hosts = vec![format!("{local}"), format!("localhost:{port}")];
        let clients = Mutex::new(Clients::new(log.clone(), max_line));
        Ok(Proxy {
            upstream,
            client,
            log,
            clients,
            max_line,
            hosts,
            next_exchange: AtomicU64::new(0),
            refused: Mutex::default(),
        })
    }

    fn note(&self, detail: String) {
        self.note_on(PROXY_CONN, detail);
    }

    fn note_on(&self, conn: u64, detail: String) {
        self.log.append(Entry::new(conn, Kind::Note, Direction::Meta).with_detail(detail));
    }

    /// Records one message of the client `conn`'s exchanges with its recorder.
    fn record_message(&self, conn: u64, bytes: Vec<u8>, dir: Direction, info: HttpInfo) {
        let recorder = self.clients.locked().recorder(conn);
        // A panic while recording poisons nothing the next entry depends on.
        recorder.locked().message(bytes, dir, info);
    }

    /// Whether the request names this proxy: a web page that rebinds a name of its own to
    /// 127.0.0.1 sends its own name as `Host` and its own origin as `Origin`.
    // Err is the words of the 403 the client gets and the session records: data, not a failure.
    fn admitted(&self, headers: &hyper::HeaderMap) -> Result<(), String> {
        let ours = |value: &str| self.hosts.iter().any(|h| h.eq_ignore_ascii_case(value));
        match headers.get(HOST).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()) {
            Some(host) if ours(&host) => {}
            Some(host) => {
                return Err(format!(
                    "refused a request for Host {host:?}: this proxy answers to {} only, so a web page \
                     cannot reach it through DNS rebinding",
                    self.hosts.join(" or ")
                ))
            }
            None => return Err("refused a request without a Host header".into()),
        }
        if let Some(origin) = headers.get(ORIGIN) {
            let origin = String::from_utf8_lossy(origin.as_bytes());
            if !origin.strip_prefix("http://").is_some_and(ours) {
                return Err(format!(
                    "refused a request from Origin {origin:?}: only http://{} may use this proxy",
                    self.hosts[0]
                ));
            }
        }
        Ok(())
    }

    async fn handle(self: Arc<Self>, request: Request<Incoming>, peer: SocketAddr) -> Response<Body> {
        if let Err(words) = self.admitted(request.headers()) {
            // Each refusal once: any web page can send requests here, and must not fill the log.
            let mut refused = self.refused.locked();
            if refused.len() < MAX_REFUSALS_NOTED && refused.insert(words.clone()) {
                self.note(words.clone());
            }
            drop(refused);
            return text(StatusCode::FORBIDDEN, format!("sonde proxy: {words}\n"));
        }
        let ex = self.next_exchange.fetch_add(1, Ordering::Relaxed) + 1;
        let (parts, body) = request.into_parts();
        let mut url = self.upstream.clone();
        url.set_path(parts.uri.path());
        // The server's own query (a key the user put in --url) goes with every request, after
        // the client's (a 2024-11-05 endpoint's session id).
        let query = match (parts.uri.query(), self.upstream.query()) {
            (Some(client), Some(ours)) => Some(format!("{client}&{ours}")),
            (client, ours) => client.or(ours).map(str::to_owned),
        };
        url.set_query(query.as_deref());
        let body = match Limited::new(body, REQUEST_CAP).collect().await {
            Ok(body) => body.to_bytes(),
            Err(e) => {
                self.note(format!("exchange {ex}: the client's request body could not be read: {e}"));
                return text(
                    StatusCode::BAD_REQUEST,
                    format!("sonde proxy: the request body could not be read: {e}\n"),
                );
            }
        };
        // Whose exchange it is: the client's session, as a header or (2024-11-05) a query.
        let session = parts
            .headers
            .get("mcp-session-id")
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .or_else(|| session_in_query(parts.uri.query()));
        let conn = self.clients.locked().of(session.as_deref(), &body, peer);
        let mut headers = hyper::HeaderMap::new();
        for (name, value) in &parts.headers {
            if forwarded(name) {
                headers.append(name.clone(), value.clone());
            }
        }
        let mut outgoing = self.client.request(parts.method.clone(), url.clone()).headers(headers);
        if !body.is_empty() {
            outgoing = outgoing.body(body.clone());
        }
        // On its way before it is recorded: recording never delays a request.
        let sending = tokio::spawn(outgoing.send());
        self.record_request(conn, ex, &parts, &url, body);
        let response = match sending.await.map_err(io::Error::other) {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => return self.unreachable(conn, ex, sse::error_chain(&e)),
            Err(e) => return self.unreachable(conn, ex, e.to_string()),
        };
        // A session handed out here is this client's from now on.
        if session.is_none() {
            if let Some(given) = response.headers().get("mcp-session-id") {
                self.clients.locked().bind_session(&String::from_utf8_lossy(given.as_bytes()), conn);
            }
        }
        self.forward_response(conn, ex, response)
    }

    fn record_request(
        &self,
        conn: u64,
        ex: u64,
        parts: &hyper::http::request::Parts,
        url: &url::Url,
        body: Bytes,
    ) {
        let shown = transport::shown_url(url);
        let mut entry =
            Entry::new(conn, Kind::Http, Direction::Out).with_detail(format!("{} {shown}", parts.method));
        entry.http = Some(HttpInfo {
            exchange: ex,
            method: Some(parts.method.to_string()),
            url: Some(shown),
            headers: recorded(&parts.headers),
            ..HttpInfo::default()
        });
        self.log.append(entry);
        if !body.is_empty() {
            let info = HttpInfo { exchange: ex, ..HttpInfo::default() };
            self.record_message(conn, body.to_vec(), Direction::Out, info);
        }
    }

    fn unreachable(&self, conn: u64, ex: u64, why: String) -> Response<Body> {
        let words = format!("could not reach {}: {why}", transport::shown_url(&self.upstream));
        let mut entry =
            Entry::new(conn, Kind::Http, Direction::In).with_detail(format!("{words} (answered 502)"));
        entry.http = Some(HttpInfo { exchange: ex, status: Some(502), ..HttpInfo::default() });
        self.log.append(entry);
        text(StatusCode::BAD_GATEWAY, format!("sonde proxy: {words}\n"))
    }

    /// Records the response head, then streams the body to the client as it comes, teeing each
    /// chunk to the recording of this exchange.
    fn forward_response(self: &Arc<Self>, conn: u64, ex: u64, response: reqwest::Response) -> Response<Body> {
        let status = response.status();
        let content_type = response
            .headers()
            .get(hyper::header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .unwrap_or_default();
        let mut detail = format!("HTTP {} {}", status.as_u16(), status.canonical_reason().unwrap_or(""));
        if !content_type.is_empty() {
            detail.push_str(&format!(" · {content_type}"));
        }
        let mut entry = Entry::new(conn, Kind::Http, Direction::In).with_detail(detail);
        entry.http = Some(HttpInfo {
            exchange: ex,
            status: Some(status.as_u16()),
            headers: recorded(response.headers()),
            ..HttpInfo::default()
        });
        self.log.append(entry);

        let mut head = Response::builder().status(status);
        for (name, value) in response.headers() {
            // The body passes unchanged, so its length (when the server gave one) still holds.
            if forwarded(name) || name == hyper::header::CONTENT_LENGTH {
                head = head.header(name, value);
            }
        }
        let (to_client, client_body) = mpsc::channel::<Result<Frame<Bytes>, io::Error>>(16);
        let (to_record, recorded) = mpsc::channel::<Tee>(BACKLOG);
        tokio::spawn(pump(response.bytes_stream(), to_client, to_record));
        let events = content_type.to_ascii_lowercase().starts_with("text/event-stream");
        let proxy = self.clone();
        tokio::spawn(async move {
            if events {
                proxy.record_events(conn, ex, recorded).await;
            } else {
                proxy.record_body(conn, ex, &content_type, recorded).await;
            }
        });
        let frames =
            futures_util::stream::unfold(
                client_body,
                |mut rx| async move { rx.recv().await.map(|f| (f, rx)) },
            );
        head.body(StreamBody::new(frames).boxed_unsync()).unwrap_or_else(|e| {
            text(
                StatusCode::BAD_GATEWAY,
                format!("sonde proxy: the server's response head was not valid: {e}\n"),
            )
        })
    }

    /// Records each event of an event stream as it is passed on.
    async fn record_events(&self, conn: u64, ex: u64, mut recorded: mpsc::Receiver<Tee>) {
        let mut end = None;
        let failed = {
            let chunks = chunks_of(&mut recorded, &mut end);
            let events = sse::events(chunks, self.max_line);
            tokio::pin!(events);
            let mut failed = None;
            while let Some(event) = events.next().await {
                match event {
                    Ok(event) => self.record_event(conn, ex, event),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            failed
        };
        if let Some(e) = failed {
            self.note_on(conn, format!("exchange {ex}: {e}; the rest of the stream is passed on unrecorded"));
            end = drain(&mut recorded).await.or(end);
        }
        if let Some(end) = end.filter(|e| e != ENDED) {
            self.note_on(conn, format!("exchange {ex}: the event stream {end}"));
        }
    }

    fn record_event(&self, conn: u64, ex: u64, event: sse::Event) {
        let info = HttpInfo::of_event(ex, event.id.clone(), event.event.clone(), event.retry);
        let kind = event.event.as_deref().unwrap_or("message");
        if kind == "message" && !event.is_primer() {
            let data = event.data.unwrap_or_default().into_bytes();
            self.record_message(conn, data, Direction::In, info);
            return;
        }
        // The 2024-11-05 transport hands the client its session in the endpoint's query.
        if kind == "endpoint" {
            let endpoint = event.data.as_deref().unwrap_or("").trim();
            if let Some(session) = session_in_query(endpoint.split_once('?').map(|(_, q)| q)) {
                self.clients.locked().bind_session(&session, conn);
            }
        }
        let words = match kind {
            "endpoint" => format!(
                "endpoint: the client is told to POST to {}",
                transport::shown_url_text(event.data.as_deref().unwrap_or("").trim())
            ),
            "message" => "a priming event (no data)".to_owned(),
            other => format!("an SSE event of type {other:?}, which carries no MCP message"),
        };
        let mut entry = Entry::new(conn, Kind::Http, Direction::In).with_detail(words);
        if let Some(data) = event.data.filter(|d| !d.is_empty()) {
            entry = entry.with_bytes(data.as_bytes());
        }
        entry.http = Some(info);
        self.log.append(entry);
    }

    /// Records a body that is not an event stream once it has all passed: a JSON one as the
    /// message (or batch) it holds, any other as the bytes it is.
    async fn record_body(&self, conn: u64, ex: u64, content_type: &str, mut recorded: mpsc::Receiver<Tee>) {
        let (mut body, mut total, mut end) = (Vec::new(), 0usize, String::new());
        while let Some(tee) = recorded.recv().await {
            match tee {
                Tee::Chunk(chunk) => {
                    total += chunk.len();
                    let room = self.max_line.saturating_sub(body.len());
                    body.extend_from_slice(&chunk[..chunk.len().min(room)]);
                }
                Tee::End(words) => end = words,
            }
        }
        let info = HttpInfo { exchange: ex, ..HttpInfo::default() };
        if total > body.len() {
            let detail = format!(
                "a {total}-byte body, passed on whole, recorded up to the {}-byte cap",
                self.max_line
            );
            let mut entry = Entry::new(conn, Kind::Truncated, Direction::In).with_detail(detail);
            entry.http = Some(info);
            self.log.append(entry);
        } else if content_type.to_ascii_lowercase().contains("json") && !body.is_empty() {
            self.record_message(conn, body, Direction::In, info);
        } else if !body.is_empty() {
            let shown = if content_type.is_empty() { "no content type" } else { content_type };
            let detail = format!("a body of {total} bytes ({shown})");
            let mut entry = Entry::new(conn, Kind::Http, Direction::In).with_bytes(&body).with_detail(detail);
            entry.http = Some(info);
            self.log.append(entry);
        }
        if end != ENDED {
            self.note_on(conn, format!("exchange {ex}: the body {end}"));
        }
    }
}

/// The `sessionId` of a query (the 2024-11-05 transport names the session there).
fn session_in_query(query: Option<&str>) -> Option<String> {
    url::form_urlencoded::parse(query?.as_bytes())
        .find(|(k, _)| k == "sessionId")
        .map(|(_, v)| v.into_owned())
}

/// Passes the server's body to the client chunk by chunk, and a copy of each chunk to its
/// recording, until the body ends, fails, or the client goes.
async fn pump(
    upstream: impl Stream<Item = reqwest::Result<Bytes>>,
    to_client: mpsc::Sender<Result<Frame<Bytes>, io::Error>>,
    to_record: mpsc::Sender<Tee>,
) {
    tokio::pin!(upstream);
    let end = loop {
        let chunk = tokio::select! {
            chunk = upstream.next() => chunk,
            // The client went: the server's stream is let go with it.
            () = to_client.closed() => break "was closed by the client".to_owned(),
        };
        match chunk {
            None => break ENDED.to_owned(),
            Some(Ok(bytes)) => {
                if to_client.send(Ok(Frame::data(bytes.clone()))).await.is_err() {
                    break "was closed by the client".to_owned();
                }
                // A recording that has gone never stops the bytes.
                let _ = to_record.send(Tee::Chunk(bytes)).await;
            }
            Some(Err(e)) => {
                let words = sse::error_chain(&e);
                let _ = to_client.send(Err(io::Error::other(words.clone()))).await;
                break format!("failed: {words}");
            }
        }
    };
    let _ = to_record.send(Tee::End(end)).await;
}

/// The chunks of a tee as a byte stream, the end's words kept in `end`.
fn chunks_of<'a>(
    recorded: &'a mut mpsc::Receiver<Tee>,
    end: &'a mut Option<String>,
) -> impl Stream<Item = Result<Bytes, io::Error>> + Send + 'a {
    futures_util::stream::unfold((recorded, end), |(rx, end)| async move {
        match rx.recv().await? {
            Tee::Chunk(chunk) => Some((Ok(chunk), (rx, end))),
            Tee::End(words) => {
                *end = Some(words);
                None
            }
        }
    })
}

/// Lets the rest of a tee pass unrecorded; returns the end's words.
async fn drain(recorded: &mut mpsc::Receiver<Tee>) -> Option<String> {
    while let Some(tee) = recorded.recv().await {
        if let Tee::End(words) = tee {
            return Some(words);
        }
    }
    None
}

/// Whether a header passes the proxy: not the hop-by-hop ones (each side of the proxy has its
/// own connection), not `Host` (the server's is its own), not `Accept-Encoding`, so the body
/// comes back as it can be recorded, and not a request's `Content-Length` (set again from the
/// body read whole).
fn forwarded(name: &HeaderName) -> bool {
    ![
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "accept-encoding",
        "content-length",
    ]
    .contains(&name.as_str())
}

/// Headers as recorded: the values of secret ones (and secrets in a redirect's target) replaced.
fn recorded(headers: &hyper::HeaderMap) -> Vec<(String, String)> {
    let pairs: Vec<(String, String)> = headers
        .iter()
        .map(|(name, value)| (name.to_string(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
        .collect();
    transport::recorded_headers(&pairs, |_| false)
}

fn text(status: StatusCode, words: String) -> Response<Body> {
    let body = Full::new(Bytes::from(words)).map_err(|never: Infallible| match never {}).boxed_unsync();
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
