//! What a stdio server writes, recorded exactly and survived: banners, bad bytes, crashes,
//! silence, server→client requests and paginated lists.

mod common;

use std::time::{Duration, Instant};

use common::{fixture, new_log};
use serde_json::json;
use sonde_core::{Direction, Filter, Hub, HubError, Kind, RequestError, RequestOutcome};

#[tokio::test]
async fn a_crash_during_tools_call_fails_the_pending_call_within_a_second() {
    let hub = Hub::new(new_log("crash"));
    let id = hub.connect(&fixture(&["--crash-on-call"])).await.unwrap();
    let started = Instant::now();
    let err = hub.call_tool(id, "echo", None).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(1), "took {:?}", started.elapsed());
    match err {
        HubError::Request(RequestError::Gone(reason)) => {
            assert_eq!(reason, "server exited with code 1 while tools/call was pending")
        }
        other => panic!("unexpected error: {other}"),
    }
    // The log says the call was never answered, in a note that answers it, and that is its
    // outcome; an answered request's outcome is its reply.
    let log = hub.log();
    let [call] = &log.entries(&Filter::parse("dir:out method:tools/call").unwrap()).unwrap()[..] else {
        panic!("one tools/call sent")
    };
    let outcome = log.outcome_of(call.seq).unwrap().expect("an outcome");
    assert_eq!(outcome.outcome, RequestOutcome::NeverAnswered);
    let id_of_call = call.summary.as_ref().and_then(|s| s.id.clone()).unwrap();
    assert_eq!(
        outcome.words,
        format!("tools/call {id_of_call} was never answered: server exited with code 1")
    );
    let note = log.page(outcome.seq, outcome.seq + 1, &Filter::default(), 1).unwrap().entries.remove(0);
    assert_eq!((note.kind, note.answers), (Kind::Note, Some(call.seq)));
    let [initialize] = &log.entries(&Filter::parse("dir:out method:initialize").unwrap()).unwrap()[..] else {
        panic!("one initialize sent")
    };
    assert_eq!(log.outcome_of(initialize.seq).unwrap().map(|o| o.outcome), Some(RequestOutcome::Result));
    // A later request is refused at once, with the same facts.
    let again = hub.list_tools(id).await.unwrap_err().to_string();
    assert_eq!(again, "server exited with code 1; tools/list was not sent");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_stdout_banner_is_recorded_as_non_protocol_output_and_the_session_works() {
    let hub = Hub::new(new_log("banner"));
    let id = hub.connect(&fixture(&["--banner", "Fixture server running on stdio"])).await.unwrap();
    let tools = hub.list_tools(id).await.unwrap().items;
    assert_eq!(tools[0]["name"], "echo");
    let noise = hub.log().entries(&Filter::parse("kind:non_protocol").unwrap()).unwrap();
    assert_eq!(noise.len(), 1);
    assert_eq!(noise[0].text.as_deref(), Some("Fixture server running on stdio"));
    assert_eq!(noise[0].dir, Direction::In);
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn invalid_utf8_is_preserved_byte_exact_and_the_reply_still_arrives() {
    let hub = Hub::new(new_log("utf8"));
    let id = hub.connect(&fixture(&["--bad-utf8"])).await.unwrap();
    let result = hub.call_tool(id, "echo", None).await.unwrap();
    assert_eq!(result["content"][0]["text"], "bad \u{fffd}\u{fffd} bytes");
    let replies = hub.log().entries(&Filter::parse("dir:in method:tools/call").unwrap()).unwrap();
    assert_eq!(replies.len(), 1);
    let bytes = replies[0].bytes().unwrap();
    assert!(bytes.windows(3).any(|w| w == b" \xff\xfe"), "bytes were altered: {bytes:?}");
    assert!(replies[0].text.is_none() && replies[0].base64.is_some());
    assert!(replies[0].detail.as_deref().unwrap().starts_with("not UTF-8 at byte"));
    // The session file holds the same bytes after a reopen.
    let reopened = sonde_core::WireLog::open(hub.log().path()).unwrap();
    let seq = replies[0].seq;
    let page = reopened.page(seq, seq + 1, &Filter::default(), 1).unwrap();
    assert_eq!(page.entries[0].bytes().unwrap(), bytes);
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_request_with_no_reply_times_out_and_is_cancelled_on_the_wire() {
    let hub = Hub::new(new_log("timeout"));
    let mut config = fixture(&[]);
    config.options.request_timeout = Duration::from_millis(300);
    let id = hub.connect(&config).await.unwrap();
    hub.disconnect(id).await.unwrap();

    let mut silent = fixture(&["--never-answer"]);
    silent.connect_timeout = Duration::from_millis(300);
    let err = hub.connect(&silent).await.unwrap_err().to_string();
    assert!(err.contains("no answer to the opening exchange within 300 ms"), "{err}");

    let sonde_core::Target::Stdio(spawn) = &silent.target else { unreachable!("a stdio fixture") };
    let conn = sonde_core::internals::Connection::spawn_stdio(
        99,
        spawn,
        hub.log().clone(),
        sonde_core::internals::Options { request_timeout: Duration::from_millis(200), ..silent.options },
        std::sync::Arc::new(sonde_core::internals::BasicResponder::default()),
    )
    .unwrap();
    let err = conn.request(sonde_core::internals::Request::new("tools/list", None)).await.unwrap_err();
    assert_eq!(err.to_string(), "tools/list got no reply within 200 ms");
    let cancelled =
        hub.log().entries(&Filter::parse("conn:99 method:notifications/cancelled").unwrap()).unwrap();
    assert_eq!(cancelled.len(), 1);
    assert!(cancelled[0].text.as_deref().unwrap().contains("\"requestId\":1"));
    conn.shutdown().await;
}

#[tokio::test]
async fn server_requests_are_always_answered() {
    let hub = Hub::new(new_log("server-requests"));
    let id = hub.connect(&fixture(&["--ask-ping"])).await.unwrap();
    // tools/list is answered after the ping the fixture sent, so the answer is in the log by now.
    hub.list_tools(id).await.unwrap();
    let answer = hub.log().entries(&Filter::parse("dir:out id:fixture-1").unwrap()).unwrap();
    assert_eq!(answer.len(), 1, "the ping was not answered");
    assert_eq!(answer[0].text.as_deref(), Some(r#"{"jsonrpc":"2.0","id":"fixture-1","result":{}}"#));
    // Sonde's answer says which of the server's requests it answers, as a server's reply does.
    let asked = hub.log().entries(&Filter::parse("dir:in id:fixture-1").unwrap()).unwrap();
    assert_eq!(answer[0].answers, Some(asked[0].seq));
    assert_eq!(hub.log().reply_to(asked[0].seq), Some(answer[0].seq));
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn tools_list_follows_next_cursor_to_the_end() {
    let hub = Hub::new(new_log("pages"));
    let id = hub.connect(&fixture(&["--tools", "5", "--page-size", "2"])).await.unwrap();
    let tools = hub.list_tools(id).await.unwrap().items;
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["echo", "filler_2", "filler_3", "filler_4", "filler_5"]);
    let requests = hub.log().entries(&Filter::parse("dir:out method:tools/list").unwrap()).unwrap();
    assert_eq!(requests.len(), 3);
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn replies_are_correlated_with_their_request_and_latency() {
    let hub = Hub::new(new_log("correlation"));
    let id = hub.connect(&fixture(&["--ansi-stderr"])).await.unwrap();
    let started = Instant::now();
    hub.call_tool(id, "echo", Some(json!({"text": "hi"}))).await.unwrap();
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    let log = hub.log();
    let request = &log.entries(&Filter::parse("dir:out method:tools/call").unwrap()).unwrap()[0];
    let reply = &log.entries(&Filter::parse("dir:in method:tools/call").unwrap()).unwrap()[0];
    assert_eq!(reply.answers, Some(request.seq));
    assert_eq!(log.reply_to(request.seq), Some(reply.seq));
    // Both rows name the tool, so calls of one method are told apart.
    let target = |e: &sonde_core::Entry| e.summary.as_ref().and_then(|s| s.target.clone());
    assert_eq!((target(request).as_deref(), target(reply).as_deref()), (Some("echo"), Some("echo")));
    assert_eq!(request.latency_ms, None, "a request has no latency of its own");
    // Measured from this request, not from the connection or the session: a round trip to
    // another process takes some time, and never more than the call took.
    let latency = reply.latency_ms.expect("a reply carries its latency");
    assert!(latency > 0.0 && latency <= wall_ms, "latency {latency} ms, call took {wall_ms} ms");
    hub.disconnect(id).await.unwrap();
    let stderr: Vec<u8> = log
        .entries(&Filter::parse("kind:stderr").unwrap())
        .unwrap()
        .iter()
        .flat_map(|e| e.bytes().unwrap())
        .collect();
    assert!(
        stderr.windows(5).any(|w| w == b"\x1b[32m"),
        "colours lost: {:?}",
        String::from_utf8_lossy(&stderr)
    );
    assert!(log.entries(&Filter { kinds: vec![Kind::DecodeError], ..Filter::default() }).unwrap().is_empty());
}

#[tokio::test]
async fn a_cancelled_request_is_cancelled_on_the_wire_and_its_late_reply_is_logged_and_ignored() {
    let hub = Hub::new(new_log("cancel"));
    let id = hub.connect(&fixture(&["--reply-delay-ms", "300"])).await.unwrap();
    let conn = hub.connection(id).unwrap();
    let call = conn.start(sonde_core::internals::tool_call("echo", Some(json!({"text": "late"})))).unwrap();
    let call_id = call.id.clone();
    conn.cancel(&call.id, "changed my mind");
    let err = call.outcome().await.unwrap_err();
    assert_eq!(err.to_string(), "tools/call was cancelled: changed my mind");
    // The next request is answered after the late reply, which is then in the log.
    hub.list_tools(id).await.unwrap();
    let log = hub.log();
    let cancel = &log.entries(&Filter::parse("dir:out method:notifications/cancelled").unwrap()).unwrap()[0];
    let cancel: serde_json::Value = serde_json::from_str(cancel.text.as_deref().unwrap()).unwrap();
    assert_eq!(cancel["params"], json!({"requestId": call_id, "reason": "changed my mind"}));
    let late = &log.entries(&Filter::parse("dir:in method:tools/call").unwrap()).unwrap()[0];
    let expected = format!("late reply to tools/call {call_id}, which was cancelled; ignored");
    assert_eq!(late.detail.as_deref(), Some(expected.as_str()));
    hub.disconnect(id).await.unwrap();
}
