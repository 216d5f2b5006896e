//! HTTP faults from `sonde-fixture-http`: each ends with a clear message or is survived, and
//! nothing that crossed the wire is missing from the log.

mod common;

use std::time::Duration;

use common::http::HttpServer;
use common::new_log;
use serde_json::json;
use sonde_core::{Filter, Hub};

fn details(hub: &Hub, filter: &str) -> Vec<String> {
    let entries = hub.log().entries(&Filter::parse(filter).unwrap()).unwrap();
    entries.into_iter().filter_map(|e| e.detail).collect()
}

#[tokio::test]
async fn a_5xx_is_never_era_evidence_and_says_what_the_server_said() {
    let server = HttpServer::fixture(&["--fail-status", "503"]);
    let hub = Hub::new(new_log("http-5xx"));
    let err = hub.connect(&server.config()).await.unwrap_err().to_string();
    assert!(
        err.contains(
            "server/discover got HTTP 503: fixture: failing on purpose, which says nothing about the era"
        ),
        "{err}"
    );
    let bodies = hub.log().entries(&Filter::parse("kind:non_protocol").unwrap()).unwrap();
    assert_eq!(bodies[0].text.as_deref(), Some("fixture: failing on purpose"), "the body is in the log");
}

#[tokio::test]
async fn an_error_status_with_a_json_body_that_is_not_json_rpc_is_no_protocol_fault() {
    let server = HttpServer::fixture(&["--fail-status", "503", "--fail-json"]);
    let hub = Hub::new(new_log("http-5xx-json"));
    let err = hub.connect(&server.config()).await.unwrap_err().to_string();
    assert!(err.contains("server/discover got HTTP 503"), "{err}");
    let bodies = hub.log().entries(&Filter::parse("kind:non_protocol").unwrap()).unwrap();
    assert!(bodies[0].text.as_deref().is_some_and(|t| t.contains("temporarily_unavailable")), "{bodies:?}");
    assert_eq!(details(&hub, "kind:non_protocol"), ["the HTTP 503 body is not JSON-RPC"]);
    assert!(details(&hub, "kind:decode_error").is_empty(), "an OAuth-style error body is no decode error");
    assert!(hub.log().entries(&Filter::parse("diag:any").unwrap()).unwrap().is_empty(), "and no finding");
}

#[tokio::test]
async fn a_stream_dropped_before_its_reply_is_resumed_with_last_event_id_after_retry() {
    let server = HttpServer::fixture(&["--drop-stream"]);
    let hub = Hub::new(new_log("http-drop"));
    let id = hub.connect(&server.config()).await.unwrap();
    let echoed = hub.call_tool(id, "echo", Some(json!({"text": "resumed"}))).await.unwrap();
    assert_eq!(echoed["content"][0]["text"], "resumed");
    let notes = details(&hub, "kind:note");
    assert!(
        notes.iter().any(|n| n.contains("resuming with GET and Last-Event-ID e1 in 100 ms")),
        "{notes:?}"
    );
    let gets = hub.log().entries(&Filter::parse("kind:http dir:out").unwrap()).unwrap();
    let resumed = gets.iter().any(|e| {
        let h = e.http.as_ref().unwrap();
        h.method.as_deref() == Some("GET") && h.headers.iter().any(|(k, v)| k == "Last-Event-ID" && v == "e1")
    });
    assert!(resumed, "a GET carried Last-Event-ID e1");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn an_expired_session_is_reopened_and_the_request_sent_again() {
    let server = HttpServer::fixture(&["--expire-after", "1"]);
    let hub = Hub::new(new_log("http-expire"));
    let id = hub.connect(&server.config()).await.unwrap();
    let echoed = hub.call_tool(id, "echo", Some(json!({"text": "again"}))).await.unwrap();
    assert_eq!(echoed["content"][0]["text"], "again");
    let notes = details(&hub, "kind:note");
    assert!(
        notes.iter().any(|n| n.contains("session fixture-session-1 expired (HTTP 404 on tools/call)")),
        "{notes:?}"
    );
    let inits = hub.log().entries(&Filter::parse("dir:out method:initialize").unwrap()).unwrap();
    assert_eq!(inits.len(), 2, "a second initialize opened the new session");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn slow_headers_run_out_the_headers_timeout_by_name() {
    let server = HttpServer::fixture(&["--slow-headers-ms", "3000"]);
    let hub = Hub::new(new_log("http-slow"));
    let mut config = server.config();
    if let sonde_core::Target::Http(target) = &mut config.target {
        target.timeouts.headers = Duration::from_millis(300);
    }
    let id = hub.connect(&config).await.unwrap();
    let err = hub.call_tool(id, "echo", Some(json!({"text": "x"}))).await.unwrap_err().to_string();
    assert_eq!(err, "tools/call failed: no response headers within 300 ms (the headers timeout)");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn an_oversized_body_is_cut_at_the_cap_and_the_connection_goes_on() {
    let server = HttpServer::fixture(&["--big-mib", "3"]);
    let hub = Hub::new(new_log("http-big"));
    let mut config = server.config();
    config.options.max_line = 1 << 20;
    let id = hub.connect(&config).await.unwrap();
    let err = hub.call_tool(id, "echo", Some(json!({"text": "x"}))).await.unwrap_err().to_string();
    assert!(err.contains("the body grew past the 1048576-byte cap"), "{err}");
    let heads = hub.log().entries(&Filter::parse("kind:decode_error").unwrap()).unwrap();
    assert_eq!(heads[0].text.as_ref().map(String::len), Some(1 << 20), "the body's first MiB is kept");
    let tools = hub.list_tools(id).await.unwrap().items;
    assert_eq!(tools[0]["name"], "echo", "the connection still works");
    let notes = details(&hub, "kind:note");
    assert!(notes.iter().any(|n| n.contains("the rest was not read")), "the cut is noted: {notes:?}");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn credentials_never_follow_a_redirect_to_another_origin() {
    // The other origin: a port nobody should connect to.
    let elsewhere = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    elsewhere.set_nonblocking(true).unwrap();
    let to = format!("http://127.0.0.1:{}/steal", elsewhere.local_addr().unwrap().port());
    let server = HttpServer::fixture(&["--redirect", &to]);
    let hub = Hub::new(new_log("http-redirect"));
    let mut config = server.config();
    if let sonde_core::Target::Http(target) = &mut config.target {
        target.headers.push(sonde_core::Header::parse("Authorization: Bearer s3cret", false).unwrap());
    }
    let err = hub.connect(&config).await.unwrap_err().to_string();
    assert!(err.contains("server/discover got HTTP 307: redirected to"), "{err}");
    assert!(err.contains("not followed: credentials stay with the origin"), "{err}");
    let heads = details(&hub, "kind:http dir:in");
    assert!(heads.iter().any(|d| d.contains(&format!("redirect to {to} not followed"))), "{heads:?}");
    assert!(elsewhere.accept().is_err(), "nothing reached the other origin");
    hub.log().flush().unwrap();
    let recorded = std::fs::read_to_string(hub.log().path()).unwrap();
    assert!(!recorded.contains("s3cret"), "the credential is not in the session log");
}

#[tokio::test]
async fn requests_in_flight_when_the_session_expires_all_go_through_in_the_new_one() {
    let server = HttpServer::fixture(&["--expire-after", "1"]);
    let hub = Hub::new(new_log("http-expire-many"));
    let id = hub.connect(&server.config()).await.unwrap();
    let calls = (0..4).map(|i| hub.call_tool(id, "echo", Some(json!({"text": format!("call {i}")}))));
    let results = futures_util::future::join_all(calls).await;
    for (i, result) in results.into_iter().enumerate() {
        assert_eq!(result.unwrap()["content"][0]["text"], format!("call {i}"));
    }
    let inits = hub.log().entries(&Filter::parse("dir:out method:initialize").unwrap()).unwrap();
    assert_eq!(inits.len(), 2, "one new session for all of them");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_request_that_times_out_is_cancelled_in_its_era_and_the_connection_goes_on() {
    let server = HttpServer::fixture(&["--slow-headers-ms", "3000"]);
    let hub = Hub::new(new_log("http-timeout"));
    let mut config = server.config();
    config.options.request_timeout = Duration::from_millis(300);
    let id = hub.connect(&config).await.unwrap();
    let err = hub.call_tool(id, "echo", Some(json!({"text": "x"}))).await.unwrap_err().to_string();
    assert_eq!(err, "tools/call got no reply within 300 ms");
    // 2025-11-25 over HTTP: a disconnect is not a cancellation, so the notification is POSTed.
    let cancelled =
        hub.log().entries(&Filter::parse("dir:out method:notifications/cancelled").unwrap()).unwrap();
    assert_eq!(cancelled.len(), 1);
    let tools = hub.list_tools(id).await.unwrap().items;
    assert_eq!(tools[0]["name"], "echo");
    hub.disconnect(id).await.unwrap();
}
