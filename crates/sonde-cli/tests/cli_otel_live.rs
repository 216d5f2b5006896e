//! Spans sent live (issue 57): with the OpenTelemetry SDKs' variables set, a command's requests
//! reach a local OTLP/HTTP receiver as it runs, as protobuf (decoded here with
//! opentelemetry-proto's types) or as JSON when asked, with the headers the variables give; the
//! spans are those `sonde export --format otlp` writes of the same session. A collector that
//! refuses, hangs or is not there costs spans, said once and counted, never a call: the call's
//! latency in the session stays the fixture's.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use prost::Message;
use support::{fixture_bin, SONDE};

/// What the receiver does with a request.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Take,
    Refuse,
    Hang,
}

/// One request the receiver read.
struct Received {
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// An OTLP/HTTP receiver on a port of its own: HTTP/1.1, one thread a connection.
struct Receiver {
    port: u16,
    got: Arc<Mutex<Vec<Received>>>,
}

impl Receiver {
    fn start(mode: Mode) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let got = Arc::new(Mutex::new(Vec::new()));
        let keep = got.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let keep = keep.clone();
                std::thread::spawn(move || serve(stream, mode, &keep));
            }
        });
        Receiver { port, got }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

fn serve(stream: TcpStream, mode: Mode, got: &Mutex<Vec<Received>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or_default().to_owned();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            reader.read_line(&mut h).unwrap();
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            let (k, v) = h.split_once(':').unwrap();
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
        let length = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .map_or(0, |(_, v)| v.parse().unwrap());
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        got.lock().unwrap().push(Received { path, headers, body });
        match mode {
            Mode::Take => out.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").unwrap(),
            Mode::Refuse => {
                out.write_all(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n").unwrap()
            }
            // Never answers: holds the connection until the client lets it go.
            Mode::Hang => {
                let _ = reader.read_to_end(&mut Vec::new());
                return;
            }
        }
    }
}

/// `sonde call echo text=hi` against the fixture (which sends two progress updates), with `vars`.
fn call(home: &Path, vars: &[(&str, &str)]) -> Output {
    let mut command = Command::new(SONDE);
    command
        .args(["call", "echo", "text=hi", "--"])
        .arg(fixture_bin())
        .args(["--progress-steps", "2", "--step-ms", "5"])
        .env("XDG_DATA_HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"));
    for (k, v) in vars {
        command.env(k, v);
    }
    command.output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Each span as (its id, its name, its start and end), sorted.
type Seen = Vec<(Vec<u8>, String, u64, u64)>;

fn seen(requests: &[ExportTraceServiceRequest]) -> Seen {
    let mut spans: Seen = requests
        .iter()
        .flat_map(|r| &r.resource_spans)
        .flat_map(|r| &r.scope_spans)
        .flat_map(|s| &s.spans)
        .map(|s| (s.span_id.clone(), s.name.clone(), s.start_time_unix_nano, s.end_time_unix_nano))
        .collect();
    spans.sort();
    spans
}

#[test]
fn spans_reach_a_local_receiver_as_protobuf_with_the_headers_and_are_the_exports() {
    let home = support::data_home("otel-live-protobuf");
    let receiver = Receiver::start(Mode::Take);
    let endpoint = receiver.endpoint();
    let vars = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
        ("OTEL_EXPORTER_OTLP_HEADERS", "x-team=blue%20sky"),
    ];
    let out = call(&home, &vars);
    assert!(out.status.success(), "{}", stderr(&out));
    let got = receiver.got.lock().unwrap();
    assert!(!got.is_empty(), "nothing reached the receiver: {}", stderr(&out));
    let mut requests = Vec::new();
    for r in got.iter() {
        assert_eq!(r.path, "/v1/traces");
        assert_eq!(r.header("content-type"), Some("application/x-protobuf"));
        assert_eq!(r.header("x-team"), Some("blue sky"));
        requests.push(ExportTraceServiceRequest::decode(r.body.as_slice()).expect("OTLP protobuf"));
    }
    let sent = seen(&requests);
    let session = support::session_path(&out.stderr);
    assert_eq!(
        sent,
        seen(&[support::export_otlp(&home, &session, "export.otlp.json", &[]).0]),
        "live spans are the export's"
    );
    assert!(sent.iter().any(|(_, name, ..)| name == "tools/call echo"), "{sent:?}");
    let progress = requests
        .iter()
        .flat_map(|r| &r.resource_spans)
        .flat_map(|r| &r.scope_spans)
        .flat_map(|s| &s.spans)
        .find(|s| s.name == "tools/call echo")
        .map(|s| s.events.len());
    assert_eq!(progress, Some(2), "the call's progress updates are its events");
    let said = stderr(&out);
    assert!(said.contains(&format!("sonde: {} spans sent to {endpoint}/v1/traces", sent.len())), "{said}");
    assert!(!said.contains("blue"), "a header's value is never said: {said}");
}

#[test]
fn spans_go_as_json_when_asked() {
    let home = support::data_home("otel-live-json");
    let receiver = Receiver::start(Mode::Take);
    let whole = format!("{}/custom/traces", receiver.endpoint());
    let vars = [
        ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", whole.as_str()),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
    ];
    let out = call(&home, &vars);
    assert!(out.status.success(), "{}", stderr(&out));
    let got = receiver.got.lock().unwrap();
    assert!(!got.is_empty());
    let requests: Vec<ExportTraceServiceRequest> = got
        .iter()
        .map(|r| {
            assert_eq!(r.path, "/custom/traces");
            assert_eq!(r.header("content-type"), Some("application/json"));
            serde_json::from_slice(&r.body).expect("OTLP/JSON")
        })
        .collect();
    let resource = requests[0].resource_spans[0].resource.as_ref().unwrap();
    let name = resource.attributes.iter().find(|kv| kv.key == "service.name").and_then(|kv| kv.value.clone());
    assert_eq!(name.and_then(|v| v.value), Some(Any::StringValue("sonde-fixture".into())));
}

#[test]
fn a_collector_that_refuses_hangs_or_is_absent_costs_spans_said_once_never_a_call() {
    let refusing = Receiver::start(Mode::Refuse);
    let hanging = Receiver::start(Mode::Hang);
    // A port nothing listens on: bound, then let go.
    let absent = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://127.0.0.1:{}", l.local_addr().unwrap().port())
    };
    let cases = [
        ("refuses", refusing.endpoint(), "the collector answered 503 Service Unavailable"),
        ("hangs", hanging.endpoint(), "no answer within"),
        ("absent", absent, "nothing answers there"),
    ];
    for (what, endpoint, why) in cases {
        let home = support::data_home(&format!("otel-live-{what}"));
        let vars =
            [("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()), ("OTEL_EXPORTER_OTLP_TIMEOUT", "1000")];
        let out = call(&home, &vars);
        let said = stderr(&out);
        assert!(out.status.success(), "{what}: the command's outcome is the server's: {said}");
        assert_eq!(said.matches("spans are not reaching").count(), 1, "{what}: said once: {said}");
        assert!(said.contains(why), "{what}: {said}");
        assert!(said.contains("dropped"), "{what}: counted at the end: {said}");
        // The call took what the fixture takes: the collector is never on its path.
        let session = std::fs::read_to_string(support::session_path(&out.stderr)).unwrap();
        let latency = session
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|e| e["summary"]["method"] == "tools/call" && e["summary"]["type"] == "result")
            .and_then(|e| e["latency_ms"].as_f64())
            .unwrap_or_else(|| panic!("{what}: no answer to the call"));
        assert!(latency < 500.0, "{what}: the call took {latency} ms");
    }
}

#[test]
fn through_the_proxy_each_request_of_the_python_sdk_client_sits_in_its_trace() {
    let home = support::data_home("otel-live-proxy");
    let receiver = Receiver::start(Mode::Take);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers/py_traced_client.py");
    let out = Command::new(support::peer("py/bin/python"))
        .arg(script)
        .args(["echo", r#"{"text":"hi"}"#, "--", SONDE, "proxy", "--"])
        .arg(fixture_bin())
        .env("XDG_DATA_HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let client: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let client_spans = client["spans"].as_array().unwrap();
    let turn = client_spans.iter().find(|s| s["name"] == "agent turn").unwrap();
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    // The proxy sends its last spans as the client closes it.
    let sonde_spans = support::wait_for(std::time::Duration::from_secs(10), || {
        let got = receiver.got.lock().unwrap();
        let spans: Vec<_> = got
            .iter()
            .map(|r| ExportTraceServiceRequest::decode(r.body.as_slice()).unwrap())
            .flat_map(|r| r.resource_spans)
            .flat_map(|r| r.scope_spans)
            .flat_map(|s| s.spans)
            .collect();
        spans.iter().any(|s| s.name == "tools/call echo").then_some(spans)
    })
    .expect("the proxy's spans reached the receiver");
    for (method, sonde_name) in
        [("initialize", "initialize"), ("tools/list", "tools/list"), ("tools/call echo", "tools/call echo")]
    {
        let theirs = client_spans
            .iter()
            .find(|s| s["name"] == format!("MCP send {method}"))
            .unwrap_or_else(|| panic!("the client's span of {method}: {client_spans:?}"));
        let ours =
            sonde_spans.iter().find(|s| s.name == sonde_name).unwrap_or_else(|| panic!("{sonde_name}"));
        assert_eq!(
            hex(&ours.trace_id),
            turn["trace_id"].as_str().unwrap(),
            "{method}: in the client's trace"
        );
        assert_eq!(
            hex(&ours.parent_span_id),
            theirs["span_id"].as_str().unwrap(),
            "{method}: under its span"
        );
    }
}
