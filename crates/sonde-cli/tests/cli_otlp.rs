//! `sonde export --format otlp` (issue 57): real sessions (the fixture over stdio and HTTP, and a
//! client's frames through `sonde proxy`) exported as OTLP/JSON, read back with the
//! `opentelemetry-proto` crate's own types and JSON mapping, and checked span by span against
//! the session file: one span per request, named and attributed per the semantic conventions
//! for MCP, its times the entries', its progress as events; each way a request fails marked;
//! a caller's `traceparent` joined; secrets gone; the same file twice; a filter that keeps no
//! request refused with no file.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::trace::v1::{span::SpanKind, status::StatusCode, Span};
use serde_json::{json, Value};
use support::{fixture_bin, http_fixture, sonde, SONDE};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `sonde ARGS -- sonde-fixture KNOBS`, which must succeed or fail as `ok` says; its session.
fn record(home: &Path, args: &[&str], knobs: &[&str], ok: bool) -> PathBuf {
    let fixture = fixture_bin();
    let mut all = args.to_vec();
    all.push("--");
    all.push(fixture.to_str().unwrap());
    all.extend(knobs);
    let out = sonde(home, &all);
    assert_eq!(out.status.success(), ok, "{}", stderr(&out));
    support::session_path(&out.stderr)
}

use support::export_otlp as export;

fn spans(request: &ExportTraceServiceRequest) -> Vec<&Span> {
    request.resource_spans.iter().flat_map(|r| &r.scope_spans).flat_map(|s| &s.spans).collect()
}

fn attr<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a Any> {
    attributes.iter().find(|kv| kv.key == key).and_then(|kv| kv.value.as_ref()?.value.as_ref())
}

fn text<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a str> {
    match attr(attributes, key) {
        Some(Any::StringValue(s)) => Some(s),
        _ => None,
    }
}

fn int(attributes: &[KeyValue], key: &str) -> Option<i64> {
    match attr(attributes, key) {
        Some(Any::IntValue(i)) => Some(*i),
        _ => None,
    }
}

/// The session file's entries.
fn entries(session: &Path) -> Vec<Value> {
    std::fs::read_to_string(session)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e.get("seq").is_some())
        .collect()
}

/// An entry's wall-clock time in nanoseconds since the epoch (milliseconds, as recorded).
fn nanos(entry: &Value) -> u64 {
    let at = humantime::parse_rfc3339(entry["time"].as_str().unwrap()).unwrap();
    at.duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
}

fn span_of<'a>(spans: &[&'a Span], seq: u64) -> &'a Span {
    spans
        .iter()
        .find(|s| int(&s.attributes, "sonde.seq") == Some(seq as i64))
        .unwrap_or_else(|| panic!("no span for the request at {seq}"))
}

#[test]
fn every_request_of_a_stdio_session_is_one_span_with_its_times_names_and_progress() {
    let home = support::data_home("otlp-stdio");
    let session =
        record(&home, &["call", "echo", "text=hi"], &["--progress-steps", "2", "--step-ms", "5"], true);
    let (request, file) = export(&home, &session, "s.otlp.json", &[]);
    let spans = spans(&request);
    let entries = entries(&session);

    // The server is the resource; Sonde the instrumentation scope.
    assert_eq!(request.resource_spans.len(), 1);
    let resource = request.resource_spans[0].resource.as_ref().unwrap();
    assert_eq!(text(&resource.attributes, "service.name"), Some("sonde-fixture"));
    assert!(text(&resource.attributes, "service.version").is_some_and(|v| !v.is_empty()));
    let scope = request.resource_spans[0].scope_spans[0].scope.as_ref().unwrap();
    assert_eq!((scope.name.as_str(), scope.version.as_str()), ("sonde", env!("CARGO_PKG_VERSION")));

    // One span per request, each with its request's and its reply's times.
    let requests: Vec<&Value> = entries.iter().filter(|e| e["summary"]["type"] == "request").collect();
    assert!(requests.len() >= 2, "initialize and tools/call at least: {requests:?}");
    assert_eq!(spans.len(), requests.len(), "one span per request");
    let initialize = entries.iter().find(|e| e["summary"]["method"] == "initialize").unwrap();
    let agreed = &entries.iter().find(|e| e["answers"] == initialize["seq"]).unwrap()["frame"]["result"]
        ["protocolVersion"];
    for entry in &requests {
        let seq = entry["seq"].as_u64().unwrap();
        let span = span_of(&spans, seq);
        let method = entry["summary"]["method"].as_str().unwrap();
        assert_eq!(text(&span.attributes, "mcp.method.name"), Some(method));
        assert_eq!(span.kind, SpanKind::Client as i32, "{method}");
        assert_eq!(text(&span.attributes, "jsonrpc.request.id"), entry["summary"]["id"].as_str(), "{method}");
        assert_eq!(text(&span.attributes, "network.transport"), Some("pipe"));
        if entry["probe"] == true {
            // The era probe: asked at the newer revision, refused by a server of the older one.
            assert_eq!(attr(&span.attributes, "sonde.probe"), Some(&Any::BoolValue(true)));
            assert_eq!(text(&span.attributes, "error.type"), Some("-32601"), "{method}");
        } else {
            assert_eq!(text(&span.attributes, "mcp.protocol.version"), agreed.as_str(), "{method}");
            assert_eq!(text(&span.attributes, "sonde.outcome"), Some("result"));
            assert!(span.status.as_ref().is_none_or(|s| s.code == StatusCode::Unset as i32), "{method}");
        }
        // Times: the entries', to the millisecond they are recorded in.
        let reply = entries
            .iter()
            .find(|e| e["answers"] == entry["seq"] && e["summary"]["type"] != "notification")
            .unwrap();
        let close = |a: u64, b: u64| a.abs_diff(b) <= 1_000_000;
        assert!(close(span.start_time_unix_nano, nanos(entry)), "{method} starts when sent");
        assert!(close(span.end_time_unix_nano, nanos(reply)), "{method} ends when answered");
        assert!(span.end_time_unix_nano >= span.start_time_unix_nano);
        assert_eq!(span.trace_id.len(), 16);
        assert_eq!(span.span_id.len(), 8);
        assert!(span.parent_span_id.is_empty(), "{method} is a root");
    }
    let call =
        spans.iter().find(|s| s.name == "tools/call echo").expect("the call's span, named with its tool");
    assert_eq!(text(&call.attributes, "gen_ai.tool.name"), Some("echo"));
    assert_eq!(text(&call.attributes, "gen_ai.operation.name"), Some("execute_tool"));
    // Its two progress updates are its events, with what they said.
    let events: Vec<_> =
        call.events.iter().map(|e| (e.name.as_str(), int(&e.attributes, "progress"))).collect();
    assert_eq!(events, [("notifications/progress", Some(1)), ("notifications/progress", Some(2))]);
    assert!(call
        .events
        .iter()
        .all(|e| (call.start_time_unix_nano..=call.end_time_unix_nano).contains(&e.time_unix_nano)));
    // Every request a trace of its own, every span an id of its own.
    let mut traces: Vec<_> = spans.iter().map(|s| s.trace_id.clone()).collect();
    traces.dedup();
    assert_eq!(traces.len(), spans.len());

    // The same session exported again is the same file: a backend loads it once.
    let (_, again) = export(&home, &session, "again.otlp.json", &[]);
    assert_eq!(std::fs::read(&file).unwrap(), std::fs::read(&again).unwrap());
}

#[test]
fn each_way_a_request_fails_is_an_error_span_with_its_error_type() {
    let home = support::data_home("otlp-failures");
    /// What fails, `sonde`'s arguments, the fixture's knobs, the error type, the status's words.
    type Case<'a> = (&'a str, &'a [&'a str], &'a [&'a str], &'a str, &'a str);
    let cases: [Case; 4] = [
        ("tool error", &["call", "fails", "--unlisted"], &[], "tool_error", "fails always fails"),
        (
            "JSON-RPC error",
            &["call", "echo", "text=x"],
            &["--error-every", "1"],
            "-32603",
            "call 1 fails on purpose",
        ),
        (
            "timed out",
            &["--timeout", "1000", "call", "echo", "text=x"],
            &["--stall-on-call", "1", "--stall-ms", "4000"],
            "timed_out",
            "",
        ),
        ("never answered", &["call", "echo", "text=x"], &["--crash-on-call"], "never_answered", ""),
    ];
    for (what, args, knobs, error_type, message) in cases {
        let session = record(&home, args, knobs, false);
        let (request, _) = export(&home, &session, &format!("{error_type}.otlp.json"), &[]);
        let spans = spans(&request);
        let call =
            spans.iter().find(|s| s.name.starts_with("tools/call")).unwrap_or_else(|| panic!("{what}"));
        assert_eq!(text(&call.attributes, "error.type"), Some(error_type), "{what}");
        let status = call.status.as_ref().unwrap_or_else(|| panic!("{what}: no status"));
        assert_eq!(status.code, StatusCode::Error as i32, "{what}");
        assert!(status.message.contains(message), "{what}: {}", status.message);
        if error_type == "-32603" {
            assert_eq!(text(&call.attributes, "rpc.response.status_code"), Some("-32603"));
        }
        // The requests that went well are not marked.
        let init = spans.iter().find(|s| s.name == "initialize").unwrap();
        assert_eq!(text(&init.attributes, "error.type"), None, "{what}");
    }
}

/// A client's frames through `sonde proxy`: its `tools/call` carries a `traceparent`.
const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT: &str = "00f067aa0ba902b7";

#[test]
fn a_request_that_carries_traceparent_joins_the_callers_trace_through_the_proxy() {
    let home = support::data_home("otlp-proxy");
    let frames = [
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},
            "_meta":{"traceparent": format!("00-{TRACE}-{PARENT}-01"), "tracestate":"rojo=00f067aa0ba902b7"}}}),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"no trace"}}}),
    ];
    let input: String = frames.iter().map(|f| format!("{f}\n")).collect();
    let out = support::with_stdin(
        Command::new(SONDE).arg("proxy").arg("--").arg(fixture_bin()),
        &home,
        input.as_bytes(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let answers = String::from_utf8_lossy(&out.stdout);
    assert_eq!(answers.lines().count(), 3, "{answers}");
    let (request, _) = export(&home, &support::newest_session(&home).unwrap(), "p.otlp.json", &[]);
    let spans = spans(&request);
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let joined = spans.iter().find(|s| text(&s.attributes, "jsonrpc.request.id") == Some("2")).unwrap();
    assert_eq!(hex(&joined.trace_id), TRACE, "in the caller's trace");
    assert_eq!(hex(&joined.parent_span_id), PARENT, "a child of the caller's span");
    assert_eq!(joined.trace_state, "rojo=00f067aa0ba902b7");
    let alone = spans.iter().find(|s| text(&s.attributes, "jsonrpc.request.id") == Some("3")).unwrap();
    assert_ne!(hex(&alone.trace_id), TRACE, "a request without one starts its own trace");
    assert!(alone.parent_span_id.is_empty());
}

#[test]
fn an_http_session_names_its_server_and_session_and_hides_the_saved_secret() {
    const SECRET: &str = "SEKRET-5519";
    let home = support::data_home("otlp-http");
    let dir = home.join("config/sonde");
    std::fs::create_dir_all(&dir).unwrap();
    let servers = json!({"servers": [{"id": "s1", "name": "fixture", "url": "http://127.0.0.1:1/mcp",
        "headers": [{"name": "X-Api-Token", "value": SECRET, "secret": true}]}]});
    std::fs::write(dir.join("servers.json"), servers.to_string()).unwrap();
    let (_server, url) = http_fixture(&[]);
    let header = format!("X-Api-Token: {SECRET}");
    let echo = format!("text={SECRET}");
    let out = sonde(&home, &["--url", &url, "--secret-header", &header, "call", "echo", &echo]);
    assert!(out.status.success(), "{}", stderr(&out));
    let session = support::session_path(&out.stderr);
    let (request, file) = export(&home, &session, "h.otlp.json", &[]);
    let spans = spans(&request);
    let call = spans.iter().find(|s| s.name == "tools/call echo").unwrap();
    let port = url.split(':').nth(2).unwrap().split('/').next().unwrap().parse::<i64>().unwrap();
    assert_eq!(text(&call.attributes, "network.transport"), Some("tcp"));
    assert_eq!(text(&call.attributes, "network.protocol.name"), Some("http"));
    assert_eq!(text(&call.attributes, "server.address"), Some("127.0.0.1"));
    assert_eq!(int(&call.attributes, "server.port"), Some(port));
    assert!(text(&call.attributes, "mcp.session.id").is_some_and(|s| !s.is_empty()), "{:?}", call.attributes);
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(std::fs::read_to_string(&session).unwrap().contains(SECRET), "the session holds it");
    assert!(!written.contains(SECRET), "the export does not");

    // A filter keeps the requests it matches, or those whose answer it matches.
    let (kept, _) = export(&home, &session, "echo.otlp.json", &["--filter", "method:tools/call"]);
    let names: Vec<_> = self::spans(&kept).iter().map(|s| s.name.clone()).collect();
    assert_eq!(names, ["tools/call echo"]);
    // One that keeps none is refused, and writes nothing.
    let none = home.join("none.otlp.json");
    let out = sonde(
        &home,
        &[
            "export",
            "--format",
            "otlp",
            "--session",
            session.to_str().unwrap(),
            "--out",
            none.to_str().unwrap(),
            "--filter",
            "method:prompts/get",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("the filter keeps none"), "{}", stderr(&out));
    assert!(!none.exists());
}

#[test]
fn a_task_is_one_operation_span_with_its_requests_inside() {
    let home = support::data_home("otlp-task");
    let everything = support::peer("npm/node_modules/.bin/mcp-server-everything");
    let args =
        ["call", "simulate-research-query", "topic=tides", "--", everything.to_str().unwrap(), "stdio"];
    let out = sonde(&home, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let (request, _) = export(&home, &support::session_path(&out.stderr), "t.otlp.json", &[]);
    let spans = spans(&request);
    let operation =
        spans.iter().find(|s| s.kind == SpanKind::Internal as i32).expect("the task's operation span");
    assert_eq!(operation.name, "tools/call simulate-research-query");
    assert_eq!(text(&operation.attributes, "sonde.operation"), Some("task"));
    assert_eq!(text(&operation.attributes, "sonde.outcome"), Some("result"));
    let parts: Vec<_> = spans.iter().filter(|s| s.parent_span_id == operation.span_id).collect();
    let names: Vec<_> = parts.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.first(), Some(&"tools/call simulate-research-query"), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("tasks/")), "the task's polling is inside: {names:?}");
    assert_eq!(
        int(&operation.attributes, "sonde.requests"),
        Some(parts.len() as i64),
        "every request of the task is a child: {names:?}"
    );
    for part in &parts {
        assert_eq!(part.trace_id, operation.trace_id, "{}", part.name);
        assert!(operation.start_time_unix_nano <= part.start_time_unix_nano, "{}", part.name);
        assert!(part.end_time_unix_nano <= operation.end_time_unix_nano, "{}", part.name);
    }
}

#[test]
fn with_trace_each_request_starts_a_trace_the_python_sdk_server_joins() {
    let home = support::data_home("otlp-trace");
    let spans_file = home.join("server-spans.json");
    std::fs::create_dir_all(&home).unwrap();
    let python = support::peer("py/bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers/py_traced_server.py");
    let (python, script, file) =
        (python.to_str().unwrap(), script.to_str().unwrap(), spans_file.to_str().unwrap());
    let out = sonde(
        &home,
        &["--trace", "--era", "legacy", "call", "add", "a=1", "b=2", "--", python, script, file],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let (request, _) = export(&home, &support::session_path(&out.stderr), "t.otlp.json", &[]);
    let ours = spans(&request);
    let server: Value = serde_json::from_str(&std::fs::read_to_string(&spans_file).unwrap()).unwrap();
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    for (name, theirs) in
        [("initialize", "initialize"), ("tools/list", "tools/list"), ("tools/call add", "tools/call add")]
    {
        let mine = ours.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("{name}"));
        let joined = server["spans"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == theirs)
            .unwrap_or_else(|| panic!("the server's span of {theirs}: {server}"));
        assert!(mine.parent_span_id.is_empty(), "{name}: Sonde's span is the trace's first");
        assert_eq!(mine.trace_state, "sonde=own");
        assert_eq!(joined["trace_id"].as_str(), Some(hex(&mine.trace_id).as_str()), "{name}: one trace");
        assert_eq!(
            joined["parent_id"].as_str(),
            Some(hex(&mine.span_id).as_str()),
            "{name}: the server's span under Sonde's"
        );
    }
    let traces: std::collections::BTreeSet<_> = ours.iter().map(|s| s.trace_id.clone()).collect();
    assert_eq!(traces.len(), ours.len(), "a trace for each request");
}
