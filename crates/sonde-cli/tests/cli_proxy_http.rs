//! `sonde proxy --listen ADDR --url URL` (issue 15): real clients no one here wrote (the Python
//! `mcp` 2.3.0 SDK's `Client`, the TypeScript SDK v2 client 2.4.0) get through the HTTP proxy
//! what they get directly from real servers, in both eras and over the 2024-11-05 SSE transport,
//! with every exchange recorded; an event stream reaches the client as the server sends it; a
//! foreign `Host` or `Origin` is refused; secret headers are forwarded and recorded redacted.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use sonde_core::{Entry, Filter, WireLog};
use support::{peer, wait_for, SONDE};

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A process in a group of its own, killed with its group when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        // SAFETY: signals the group this test started; no memory is touched.
        unsafe { libc::killpg(self.0.id() as i32, libc::SIGKILL) };
        let _ = self.0.wait();
    }
}

/// Starts an HTTP server peer and waits until it takes connections.
fn http_peer(command: &mut Command, port: u16) -> Running {
    let child = command
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("start the server");
    let running = Running(child);
    let up = wait_for(Duration::from_secs(30), || TcpStream::connect(("127.0.0.1", port)).ok());
    assert!(up.is_some(), "the server never listened on {port}");
    running
}

fn ts_v2_server(port: u16) -> Running {
    http_peer(Command::new("node").args(["ts_v2_server.mjs", "http"]).current_dir(peer("tsv2")), port)
}

fn everything(transport: &str, port: u16) -> Running {
    http_peer(Command::new(peer("npm/node_modules/.bin/mcp-server-everything")).arg(transport), port)
}

/// A running `sonde proxy --listen 127.0.0.1:0 --url URL`: where it listens and its session log.
struct Proxy {
    running: Running,
    addr: String,
    log: PathBuf,
}

impl Proxy {
    fn start(home: &Path, url: &str) -> Proxy {
        let child = Command::new(SONDE)
            .args(["proxy", "--listen", "127.0.0.1:0", "--url", url])
            .env("XDG_DATA_HOME", home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("start the proxy");
        let mut running = Running(child);
        let mut stderr = BufReader::new(running.0.stderr.take().unwrap());
        let (mut log, mut addr) = (None, None);
        while addr.is_none() {
            let mut line = String::new();
            assert!(stderr.read_line(&mut line).unwrap() > 0, "the proxy ended before it listened");
            if let Some(path) = line.trim().strip_prefix("sonde: session log ") {
                log = Some(PathBuf::from(path));
            }
            if let Some(rest) = line.strip_prefix("sonde: point the client at http://") {
                addr = rest.split('/').next().map(str::to_owned);
            }
        }
        Proxy { running, addr: addr.unwrap(), log: log.expect("the session log named first") }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Stops the proxy as a service manager would (SIGTERM) and returns its session log.
    fn stop(self) -> PathBuf {
        self.stop_with(libc::SIGTERM, 0)
    }

    /// Stops the proxy with `signal`, which it exits with `code` after (0 for SIGTERM, 130 for
    /// Ctrl+C, as the README says), and returns its session log.
    fn stop_with(mut self, signal: i32, code: i32) -> PathBuf {
        // SAFETY: signals the proxy this test started.
        unsafe { libc::kill(self.running.0.id() as i32, signal) };
        let status = self.running.0.wait().unwrap();
        assert_eq!(status.code(), Some(code), "the proxy stopped by signal {signal}: {status:?}");
        self.log.clone()
    }
}

fn entries(log: &Path, filter: &str) -> Vec<Entry> {
    WireLog::open(log).unwrap().entries(&Filter::parse(filter).unwrap()).unwrap()
}

fn notes(log: &Path) -> Vec<String> {
    entries(log, "kind:note").into_iter().filter_map(|e| e.detail).collect()
}

/// A real client's answer for `tool` reached at `target` (`--url URL` or `--sse URL`).
fn python_client(mode: &str, tool: &str, args: &str, target: [&str; 2]) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/py_client.py");
    let out =
        Command::new(peer("py/bin/python")).args([script, mode, tool, args]).args(target).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn ts_client(mode: &str, url: &str) -> Value {
    let out = Command::new("node")
        .args(["ts_client.mjs", mode, "add", r#"{"a":2,"b":3}"#, "--url", url])
        .current_dir(peer("tsv2"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn real_clients_get_through_the_http_proxy_what_they_get_directly_in_each_era() {
    let home = support::data_home("proxy-http-eras");
    let port = free_port();
    let _server = ts_v2_server(port);
    let direct = format!("http://127.0.0.1:{port}/mcp");
    let proxy = Proxy::start(&home, &direct);
    let proxied = proxy.url("/mcp");
    for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let ts = ts_client(mode, &proxied);
        assert_eq!(ts, ts_client(mode, &direct), "TypeScript, {mode}");
        assert_eq!(
            (ts["protocolVersion"].as_str(), ts["result"]["content"][0]["text"].as_str()),
            (Some(version), Some("5"))
        );
        let py = python_client(mode, "add", r#"{"a":2,"b":3}"#, ["--url", &proxied]);
        assert_eq!(py, python_client(mode, "add", r#"{"a":2,"b":3}"#, ["--url", &direct]), "Python, {mode}");
        assert_eq!(py["protocolVersion"], version, "Python, {mode}");
    }
    let log = proxy.stop();
    // Each client's call and its reply, correlated; the clients named; a real server breaks no
    // rule in either era (each request is judged by its own era).
    let calls = entries(&log, "method:tools/call kind:message");
    assert_eq!(calls.len(), 8, "four calls and their replies: {calls:?}");
    assert!(calls.iter().filter(|e| e.answers.is_some()).count() == 4, "{calls:?}");
    assert!(calls.iter().all(|e| e.http.as_ref().is_some_and(|h| h.exchange > 0)), "each names its exchange");
    // Each client is a connection of its own in the log, its reply on its request's.
    let conns: std::collections::BTreeSet<u64> = calls.iter().map(|e| e.conn).collect();
    assert_eq!(conns.len(), 4, "four clients, four connections: {calls:?}");
    for reply in calls.iter().filter(|e| e.answers.is_some()) {
        let asked = calls.iter().find(|e| Some(e.seq) == reply.answers).expect("its request");
        assert_eq!(asked.conn, reply.conn, "{reply:?}");
    }
    let notes = notes(&log);
    assert!(notes.iter().any(|n| n.starts_with("the client is ts-client 2.4.0")), "{notes:?}");
    assert!(notes.iter().any(|n| n.starts_with("the client is mcp ")), "{notes:?}");
    let posts = entries(&log, "kind:http dir:out");
    assert!(posts.iter().any(|e| e.http.as_ref().and_then(|h| h.url.as_deref()) == Some(direct.as_str())));
    assert!(entries(&log, "diag:error").is_empty(), "{:?}", entries(&log, "diag:error"));
}

#[test]
fn the_2024_sse_transport_passes_through_with_its_endpoint() {
    let home = support::data_home("proxy-http-sse");
    let port = free_port();
    let _server = everything("sse", port);
    let proxy = Proxy::start(&home, &format!("http://127.0.0.1:{port}/sse"));
    let args = r#"{"message":"through the proxy"}"#;
    let proxied = python_client("legacy", "echo", args, ["--sse", &proxy.url("/sse")]);
    let direct = python_client("legacy", "echo", args, ["--sse", &format!("http://127.0.0.1:{port}/sse")]);
    assert_eq!(proxied, direct);
    assert_eq!(proxied["result"]["content"][0]["text"], "Echo: through the proxy");
    let log = proxy.stop();
    let endpoint = entries(&log, "kind:http dir:in");
    assert!(
        endpoint.iter().any(|e| e
            .detail
            .as_deref()
            .is_some_and(|d| d.starts_with("endpoint: the client is told to POST to /message"))),
        "{endpoint:?}"
    );
    // The replies came on the GET stream, the requests in POSTs: all correlated all the same.
    let replies: Vec<Entry> =
        entries(&log, "dir:in kind:message").into_iter().filter(|e| e.answers.is_some()).collect();
    let methods: Vec<_> = replies.iter().filter_map(|e| e.summary.as_ref()?.method.clone()).collect();
    assert_eq!(methods, ["initialize", "tools/list", "tools/call"], "{replies:?}");
}

#[test]
fn an_event_stream_reaches_the_client_as_the_server_sends_it() {
    let home = support::data_home("proxy-http-stream");
    let port = free_port();
    let _server = everything("streamableHttp", port);
    let proxy = Proxy::start(&home, &format!("http://127.0.0.1:{port}/mcp"));
    // Two progress notifications a second apart, then the result, on one response stream.
    let out = support::sonde(
        &home,
        &[
            "call",
            "trigger-long-running-operation",
            "--args",
            r#"{"duration":2,"steps":2}"#,
            "--url",
            &proxy.url("/mcp"),
        ],
    );
    assert!(out.status.success(), "{out:?}");
    // Ctrl+C ends it as the README says: 130.
    let _ = proxy.stop_with(libc::SIGINT, 130);
    // In the client's own log: when each reached it through the proxy. Buffered, they would
    // have come together with the result.
    let client_log = support::session_path(&out.stderr);
    let progress = entries(&client_log, "method:notifications/progress");
    let result = entries(&client_log, "method:tools/call dir:in kind:message");
    assert_eq!((progress.len(), result.len()), (2, 1), "{progress:?} {result:?}");
    let ahead = result[0].ms - progress[0].ms;
    assert!(ahead > 500.0, "the first progress reached the client only {ahead} ms before the result");
}

/// A server that records the one request it gets and answers it with a JSON-RPC result.
fn one_shot_upstream() -> (u16, std::thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            head.push_str(&line);
            if line == "\r\n" {
                break;
            }
        }
        let length = head
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length:")
                    .map(|v| v.trim().parse::<usize>().unwrap())
            })
            .unwrap_or(0);
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        let mut stream = reader.into_inner();
        write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
            answer.len()
        )
        .unwrap();
        head
    });
    (port, handle)
}

/// Sends one raw HTTP request to the proxy and returns the response.
fn raw(addr: &str, host: &str, extra: &str) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

#[test]
fn a_foreign_host_or_origin_is_refused_and_secret_headers_pass_but_are_not_recorded() {
    let home = support::data_home("proxy-http-guard");
    let (port, upstream) = one_shot_upstream();
    // A key in the server's URL goes with every request the client makes.
    let proxy = Proxy::start(&home, &format!("http://127.0.0.1:{port}/mcp?api_key=s3cret-in-url"));
    // DNS rebinding: a page's own name as Host, or its own origin, never reaches the server.
    let refused = raw(&proxy.addr, "evil.example:80", "");
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    assert!(refused.contains("DNS rebinding"), "{refused}");
    // Refused again, and noted once: a page cannot fill the log.
    assert!(raw(&proxy.addr, "evil.example:80", "").starts_with("HTTP/1.1 403"));
    let refused = raw(&proxy.addr, &proxy.addr, "Origin: http://evil.example\r\n");
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    // Its own address passes, credentials with it.
    let secrets = "Authorization: Bearer s3cret-bearer\r\nX-Api-Key: s3cret-key\r\n";
    let passed = raw(&proxy.addr, &proxy.addr.replace("127.0.0.1", "localhost"), secrets);
    assert!(passed.starts_with("HTTP/1.1 200"), "{passed}");
    assert!(passed.ends_with(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), "{passed}");
    // The first request the server saw is that one, with the headers as the client sent them.
    let seen = upstream.join().unwrap();
    assert!(seen.starts_with("POST /mcp?api_key=s3cret-in-url HTTP/1.1\r\n"), "{seen}");
    assert!(seen.contains("authorization: Bearer s3cret-bearer\r\n"), "{seen}");
    assert!(seen.contains("x-api-key: s3cret-key\r\n"), "{seen}");
    let log = proxy.stop();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains("s3cret"), "a secret header value is in the session log");
    assert!(text.contains("[redacted]"));
    let refusals: Vec<String> = notes(&log).into_iter().filter(|n| n.starts_with("refused")).collect();
    assert_eq!(refusals.len(), 2, "{refusals:?}");
    assert_eq!(entries(&log, "kind:http dir:out").len(), 1, "only the admitted request was forwarded");
    let ping = entries(&log, "kind:message dir:out");
    let reply = entries(&log, "kind:message dir:in");
    assert_eq!((ping.len(), reply.len()), (1, 1));
    assert_eq!(reply[0].answers, Some(ping[0].seq), "the reply names the request it answers");
}

#[test]
fn the_proxy_listens_on_loopback_only() {
    let home = support::data_home("proxy-http-loopback");
    let out = support::sonde(&home, &["proxy", "--listen", "0.0.0.0:0", "--url", "http://127.0.0.1:9/mcp"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("0.0.0.0:0 is not a loopback address"), "{said}");
}
