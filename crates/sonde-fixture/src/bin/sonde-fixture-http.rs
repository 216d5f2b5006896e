//! `sonde-fixture-http`: a 2025-11-25 Streamable HTTP MCP server with sessions and a knob for
//! each HTTP fault Sonde must report clearly and survive.
//!
//! It answers `initialize` (issuing `Mcp-Session-Id`), `tools/list` and `tools/call` for `echo`
//! (as an SSE stream), refuses requests without a session like the TypeScript SDK (400 and
//! `-32000`, id null) and with an unknown one (404 and `-32001`), takes notifications and
//! replies with 202, and ends sessions on DELETE. One request per connection, synchronous: a
//! test instrument, small and explicit. It prints `port N` on stdout once it listens.
//!
//! ```text
//! sonde-fixture-http [--port N] [knobs]
//! --fail-status N      answer every POST with status N and a plain-text body
//! --fail-json          ... and with an OAuth-style JSON error body (not JSON-RPC) instead
//! --drop-stream        answer tools/call with a priming event (id, retry: 100) and close the
//!                      stream; a GET with that Last-Event-ID then delivers the result
//! --expire-after N     the Nth tools/call finds its session expired (404); later ones work
//!                      in a new session
//! --slow-headers-ms N  wait N ms before the response headers of tools/call
//! --big-mib N          answer tools/call with a JSON body of N MiB
//! --redirect URL       answer every POST with 307 to URL
//! --record FILE        append every POST body to FILE, one line each, as it arrives
//! --record-agent FILE  append every POST's User-Agent header to FILE, one line each
//! ```

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

#[derive(Default)]
struct Knobs {
    port: u16,
    fail_status: Option<u16>,
    fail_json: bool,
    drop_stream: bool,
    expire_after: Option<u64>,
    slow_headers_ms: u64,
    big_mib: Option<usize>,
    redirect: Option<String>,
    record: Option<String>,
    record_agent: Option<String>,
}

#[derive(Default)]
struct Shared {
    sessions: HashSet<String>,
    next_session: u64,
    calls: u64,
    /// The result a resumed GET delivers after --drop-stream.
    dropped: Option<Value>,
}

fn main() {
    let knobs = Arc::new(parse_args());
    let listener =
        TcpListener::bind(("127.0.0.1", knobs.port)).unwrap_or_else(|e| die(&format!("bind: {e}")));
    println!("port {}", listener.local_addr().expect("bound").port());
    std::io::stdout().flush().expect("stdout");
    let shared = Arc::new(Mutex::new(Shared::default()));
    for stream in listener.incoming().flatten() {
        let (knobs, shared) = (knobs.clone(), shared.clone());
        std::thread::spawn(move || {
            let _ = serve(stream, &knobs, &shared);
        });
    }
}

fn parse_args() -> Knobs {
    let mut k = Knobs::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().unwrap_or_else(|| die(&format!("{name} needs a value")));
        let number =
            |text: String| text.parse::<u64>().unwrap_or_else(|_| die(&format!("{text:?} is not a number")));
        match a.as_str() {
            "--port" => k.port = number(value("--port")) as u16,
            "--fail-status" => k.fail_status = Some(number(value("--fail-status")) as u16),
            "--fail-json" => k.fail_json = true,
            "--drop-stream" => k.drop_stream = true,
            "--expire-after" => k.expire_after = Some(number(value("--expire-after"))),
            "--slow-headers-ms" => k.slow_headers_ms = number(value("--slow-headers-ms")),
            "--big-mib" => k.big_mib = Some(number(value("--big-mib")) as usize),
            "--redirect" => k.redirect = Some(value("--redirect")),
            "--record" => k.record = Some(value("--record")),
            "--record-agent" => k.record_agent = Some(value("--record-agent")),
            other => die(&format!("unknown flag {other}")),
        }
    }
    k
}

fn die(message: &str) -> ! {
    eprintln!("sonde-fixture-http: {message}");
    std::process::exit(2);
}

struct Request {
    method: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

fn read_request(stream: &TcpStream) -> std::io::Result<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let method = line.split_whitespace().next().unwrap_or_default().to_owned();
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            break;
        }
        if let Some((k, v)) = trimmed.split_once(':') {
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let length = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Request { method, headers, body })
}

fn respond(
    mut stream: &TcpStream,
    status: u16,
    headers: &[(&str, String)],
    body: &[u8],
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Length: {}\r\nConnection: close\r\n",
        reason(status),
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

fn json_reply(
    stream: &TcpStream,
    status: u16,
    extra: &[(&str, String)],
    message: &Value,
) -> std::io::Result<()> {
    let mut headers = vec![("Content-Type", "application/json".to_owned())];
    headers.extend(extra.iter().cloned());
    respond(stream, status, &headers, message.to_string().as_bytes())
}

/// Starts an SSE response; the body runs until the connection closes.
fn sse_head(mut stream: &TcpStream) -> std::io::Result<()> {
    stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n")?;
    stream.flush()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        307 => "Temporary Redirect",
        404 => "Not Found",
        405 => "Method Not Allowed",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn serve(stream: TcpStream, knobs: &Knobs, shared: &Mutex<Shared>) -> std::io::Result<()> {
    let request = read_request(&stream)?;
    match request.method.as_str() {
        "POST" => post(&stream, &request, knobs, shared),
        "GET" => get(&stream, &request, shared),
        "DELETE" => {
            if let Some(session) = request.header("mcp-session-id") {
                shared.lock().unwrap().sessions.remove(session);
            }
            respond(&stream, 200, &[], b"")
        }
        _ => respond(&stream, 405, &[], b""),
    }
}

fn get(mut stream: &TcpStream, request: &Request, shared: &Mutex<Shared>) -> std::io::Result<()> {
    let resumed = request.header("last-event-id").and_then(|_| shared.lock().unwrap().dropped.take());
    let Some(result) = resumed else {
        return respond(stream, 405, &[], b"");
    };
    sse_head(stream)?;
    stream.write_all(format!("id: e2\nevent: message\ndata: {result}\n\n").as_bytes())?;
    stream.flush()
}

fn post(
    mut stream: &TcpStream,
    request: &Request,
    knobs: &Knobs,
    shared: &Mutex<Shared>,
) -> std::io::Result<()> {
    if let Some(path) = &knobs.record {
        // Appended whole in one write, before anything else is done with it.
        let mut line = request.body.clone();
        line.push(b'\n');
        std::fs::OpenOptions::new().create(true).append(true).open(path)?.write_all(&line)?;
    }
    if let Some(path) = &knobs.record_agent {
        let line = format!("{}\n", request.header("User-Agent").unwrap_or("(none)"));
        std::fs::OpenOptions::new().create(true).append(true).open(path)?.write_all(line.as_bytes())?;
    }
    if let Some(to) = &knobs.redirect {
        return respond(stream, 307, &[("Location", to.clone())], b"");
    }
    if let Some(status) = knobs.fail_status.filter(|_| knobs.fail_json) {
        let body =
            json!({"error": "temporarily_unavailable", "error_description": "fixture: failing on purpose"});
        return json_reply(stream, status, &[], &body);
    }
    if let Some(status) = knobs.fail_status {
        let headers = [("Content-Type", "text/plain".to_owned())];
        return respond(stream, status, &headers, b"fixture: failing on purpose");
    }
    let Ok(message) = serde_json::from_slice::<Value>(&request.body) else {
        return json_reply(stream, 400, &[], &error(Value::Null, -32700, "Parse error"));
    };
    let id = message.get("id").cloned();
    let method = message.get("method").and_then(Value::as_str).unwrap_or_default().to_owned();
    if method == "initialize" {
        let session = {
            let mut s = shared.lock().unwrap();
            s.next_session += 1;
            let session = format!("fixture-session-{}", s.next_session);
            s.sessions.insert(session.clone());
            session
        };
        let result = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                            "serverInfo": {"name": "sonde-fixture-http", "version": "0.1.0"}});
        let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
        return json_reply(stream, 200, &[("Mcp-Session-Id", session)], &reply);
    }
    match request.header("mcp-session-id") {
        None => {
            return json_reply(
                stream,
                400,
                &[],
                &error(Value::Null, -32000, "Bad Request: Server not initialized"),
            )
        }
        Some(session) if !shared.lock().unwrap().sessions.contains(session) => {
            return json_reply(stream, 404, &[], &error(Value::Null, -32001, "Session not found"));
        }
        Some(_) => {}
    }
    let Some(id) = id.filter(|_| !method.is_empty()) else {
        return respond(stream, 202, &[], b""); // a notification or a reply
    };
    match method.as_str() {
        "tools/list" => {
            let tool = json!({"name": "echo", "description": "Echoes its text",
                              "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}});
            json_reply(stream, 200, &[], &json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [tool]}}))
        }
        "tools/call" => {
            let calls = {
                let mut s = shared.lock().unwrap();
                s.calls += 1;
                s.calls
            };
            if knobs.expire_after == Some(calls) {
                shared.lock().unwrap().sessions.clear();
                return json_reply(stream, 404, &[], &error(Value::Null, -32001, "Session not found"));
            }
            std::thread::sleep(Duration::from_millis(knobs.slow_headers_ms));
            let text =
                message.pointer("/params/arguments/text").and_then(Value::as_str).unwrap_or("").to_owned();
            if let Some(mib) = knobs.big_mib {
                let big = "x".repeat(mib << 20);
                let reply = json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": big}]}});
                return json_reply(stream, 200, &[], &reply);
            }
            let reply =
                json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}});
            sse_head(stream)?;
            if knobs.drop_stream {
                shared.lock().unwrap().dropped = Some(reply);
                stream.write_all(b"id: e1\nretry: 100\ndata:\n\n")?;
                return stream.flush();
            }
            stream.write_all(
                format!("id: e1\ndata:\n\nid: e2\nevent: message\ndata: {reply}\n\n").as_bytes(),
            )?;
            stream.flush()
        }
        _ => json_reply(stream, 200, &[], &error(id, -32601, &format!("Method not found: {method}"))),
    }
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}
