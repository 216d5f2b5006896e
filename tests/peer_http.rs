//! Real servers over HTTP: server-everything (Streamable HTTP with sessions, and the 2024-11-05
//! HTTP+SSE transport), the TypeScript SDK v2 server and the Python `mcp` 2.3.0 server (SSE
//! with sessions, `--json`, `--stateless`), each in the eras it speaks. Every frame Sonde sent
//! is checked against the official schema of its era.

mod common;

use common::http::HttpServer;
use common::wire_schema::check_sent;
use common::{new_log, peer_bin};
use serde_json::json;
use sonde_core::{Era, EraPolicy, Filter, Hub, Kind};

fn everything(mode: &str, path: &str) -> HttpServer {
    let bin = peer_bin("npm/node_modules/.bin/mcp-server-everything");
    HttpServer::peer(&bin.to_string_lossy(), &[mode], path)
}

/// The header of a recorded HTTP entry, case-insensitively.
fn header(entry: &sonde_core::Entry, name: &str) -> Option<String> {
    let http = entry.http.as_ref()?;
    http.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone())
}

#[tokio::test]
async fn server_everything_over_streamable_http_keeps_its_session_answers_roots_and_ends_it() {
    let server = everything("streamableHttp", "/mcp");
    let hub = Hub::new(new_log("everything-http"));
    let mut config = server.config();
    config.answers.roots = vec![std::env::temp_dir()];
    let id = hub.connect(&config).await.unwrap();
    let described = hub.server(id).unwrap();
    assert_eq!(described.era, Era::Legacy);
    assert!(described.decided_by.contains("-32000"), "{}", described.decided_by);
    let echoed = hub.call_tool(id, "echo", Some(json!({"message": "over http"}))).await.unwrap();
    assert_eq!(echoed["content"][0]["text"], "Echo: over http");

    // server-everything asks for roots on the GET stream after `initialized`; the answer is a POST.
    let log = hub.log().clone();
    common::wait_for(std::time::Duration::from_secs(10), "the roots/list answer", || {
        let sent = log.entries(&Filter::parse("dir:out").unwrap()).unwrap();
        sent.iter().any(|e| e.text.as_deref().is_some_and(|t| t.contains("\"roots\":[{")))
    })
    .await;
    let entries = log.entries(&Filter::parse(&format!("conn:{id}")).unwrap()).unwrap();
    let session = entries.iter().find_map(|e| header(e, "mcp-session-id")).expect("a session id was issued");
    let sent_with_session =
        entries.iter().filter(|e| header(e, "mcp-session-id").as_deref() == Some(&session)).count();
    assert!(sent_with_session >= 3, "the session id goes with later requests ({sent_with_session})");
    assert!(
        entries.iter().any(|e| e.http.as_ref().and_then(|h| h.method.as_deref()) == Some("GET")),
        "the GET stream was opened"
    );
    let validated = check_sent(&log, id, &described.protocol_version);
    hub.disconnect(id).await.unwrap();
    let closing = log.entries(&Filter::parse(&format!("conn:{id} kind:http")).unwrap()).unwrap();
    assert!(
        closing.iter().any(|e| e.http.as_ref().and_then(|h| h.method.as_deref()) == Some("DELETE")),
        "DELETE on close"
    );
    eprintln!("wire-schema: everything-http {validated} frames valid");
}

#[tokio::test]
async fn server_everything_over_the_2024_11_05_sse_transport_is_found_and_served() {
    let server = everything("sse", "/sse");
    let hub = Hub::new(new_log("everything-sse"));
    let id = hub.connect(&server.config()).await.unwrap();
    let described = hub.server(id).unwrap();
    assert!(described.decided_by.ends_with("2024-11-05 HTTP+SSE"), "{}", described.decided_by);
    let echoed = hub.call_tool(id, "echo", Some(json!({"message": "old sse"}))).await.unwrap();
    assert_eq!(echoed["content"][0]["text"], "Echo: old sse");
    let endpoint = hub.log().entries(&Filter::parse("endpoint").unwrap()).unwrap();
    assert!(endpoint.iter().any(|e| e.kind == Kind::Http), "the endpoint event is recorded");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn the_typescript_v2_server_over_http_is_modern_with_mirrored_headers_and_legacy_statelessly() {
    let script = peer_bin("tsv2/ts_v2_server.mjs");
    let server = HttpServer::peer("node", &[&script.to_string_lossy(), "http"], "/mcp");
    let hub = Hub::new(new_log("ts-v2-http"));
    let mut validated = 0;
    for (policy, era) in [(EraPolicy::Auto, Era::Modern), (EraPolicy::Legacy, Era::Legacy)] {
        let mut config = server.config();
        config.era = policy;
        let id = hub.connect(&config).await.unwrap();
        let described = hub.server(id).unwrap();
        assert_eq!(described.era, era, "{policy}");
        let said = hub.call_tool(id, "era", None).await.unwrap();
        assert_eq!(said["content"][0]["text"], if era == Era::Modern { "modern" } else { "legacy" });
        let sum = hub.call_tool(id, "add", Some(json!({"a": 2, "b": 3}))).await.unwrap();
        assert_eq!(sum["content"][0]["text"], "5");
        let calls = hub
            .log()
            .entries(&Filter::parse(&format!("conn:{id} dir:out method:tools/call")).unwrap())
            .unwrap();
        let names: Vec<Option<String>> = calls.iter().map(|e| header(e, "mcp-name")).collect();
        if era == Era::Modern {
            assert_eq!(names, [Some("era".into()), Some("add".into())]);
            assert!(calls.iter().all(|e| header(e, "mcp-method").as_deref() == Some("tools/call")));
        } else {
            assert_eq!(names, [None, None], "legacy requests carry no mirrored headers");
        }
        validated += check_sent(hub.log(), id, &described.protocol_version);
        hub.disconnect(id).await.unwrap();
    }
    eprintln!("wire-schema: ts-v2-http {validated} frames valid");
}

#[tokio::test]
async fn the_python_server_over_http_in_each_mode_and_era() {
    let python = peer_bin("py/bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/py_mcp_server.py");
    let hub = Hub::new(new_log("py-http"));
    let mut validated = 0;
    for mode in [&[][..], &["--json"][..], &["--stateless"][..]] {
        let mut args = vec![script, "http", "{port}"];
        args.extend_from_slice(mode);
        let server = HttpServer::peer(&python.to_string_lossy(), &args, "/mcp");
        for (policy, era) in [(EraPolicy::Auto, Era::Modern), (EraPolicy::Legacy, Era::Legacy)] {
            let mut config = server.config();
            config.era = policy;
            let id = hub.connect(&config).await.unwrap();
            let described = hub.server(id).unwrap();
            assert_eq!(described.era, era, "{mode:?} {policy}");
            let sum = hub.call_tool(id, "add", Some(json!({"a": 2, "b": 40}))).await.unwrap();
            assert_eq!(sum["structuredContent"]["result"], "42.0", "{mode:?} {policy}");
            validated += check_sent(hub.log(), id, &described.protocol_version);
            hub.disconnect(id).await.unwrap();
        }
    }
    eprintln!("wire-schema: py-http {validated} frames valid");
}
