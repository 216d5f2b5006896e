//! The call history read back from a session recorded against the fixture: each call with its
//! arguments and how it ended (a result, a result that says `isError`, a JSON-RPC error, a
//! server that died), newest first, by connection and by tool; rounds as one call; a session
//! opened from its file gives the same history.

mod common;

use std::time::Duration;

use common::{fixture, new_log};
use serde_json::json;
use sonde_core::{Hub, Latency, RequestOutcome, Shown, Timeline, WireLog, HISTORY_LIMIT};

#[tokio::test]
async fn each_call_is_listed_with_its_arguments_and_how_it_ended_newest_first() {
    let hub = Hub::new(new_log("history"));
    let id = hub.connect(&fixture(&[])).await.unwrap();
    hub.call_tool(id, "echo", Some(json!({"text": "one"}))).await.unwrap();
    hub.call_tool(id, "fails", Some(json!({"why": 2}))).await.unwrap();
    hub.call_tool(id, "missing", None).await.unwrap_err();
    hub.call_tool(id, "echo", Some(json!({"text": "two"}))).await.unwrap();
    let timeline = Timeline::of(hub.log());

    let all = timeline.calls(hub.log(), &[id], None, HISTORY_LIMIT).unwrap();
    let tools: Vec<&str> = all.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(tools, ["echo", "missing", "fails", "echo"], "newest first");
    let [two, missing, fails, one] = &all[..] else { unreachable!() };
    assert_eq!(one.arguments, Some(json!({"text": "one"})));
    assert_eq!((one.outcome, one.is_error, &one.error), (Some(RequestOutcome::Result), false, &None));
    let text = one.result.as_ref().unwrap().result.pointer("/content/0/text").cloned();
    assert_eq!(text, Some(json!("one")), "the result as it came");
    assert!(one.took_ms.is_some_and(|ms| ms >= 0.0) && one.time.contains('T'));
    assert_eq!(
        (fails.outcome, fails.is_error),
        (Some(RequestOutcome::Result), true),
        "a tool error is a result"
    );
    assert_eq!(missing.arguments, None, "no arguments sent, none shown");
    assert_eq!(missing.outcome, Some(RequestOutcome::Error));
    assert_eq!(missing.error.as_deref(), Some("-32602 Unknown tool: missing"));
    assert!(missing.result.is_none());
    assert!(two.seq > one.seq);

    // By tool, and at most `limit`.
    let echoes = timeline.calls(hub.log(), &[id], Some("echo"), HISTORY_LIMIT).unwrap();
    assert_eq!(echoes.iter().map(|c| c.seq).collect::<Vec<_>>(), [two.seq, one.seq]);
    assert_eq!(timeline.calls(hub.log(), &[id], None, 1).unwrap(), std::slice::from_ref(two));
    assert!(
        timeline.calls(hub.log(), &[id + 100], None, HISTORY_LIMIT).unwrap().is_empty(),
        "another connection's"
    );
    assert_eq!(timeline.call(hub.log(), one.seq).unwrap().as_ref(), Some(one));
    let sent = hub.log().entries(&sonde_core::Filter::parse("kind:message dir:out").unwrap()).unwrap();
    let opening =
        sent.iter().find(|e| e.summary.as_ref().and_then(|s| s.method.as_deref()) != Some("tools/call"));
    assert_eq!(timeline.call(hub.log(), opening.unwrap().seq).unwrap(), None, "the opening is not a call");

    // The latency table counts a tool that failed apart from a request that did.
    let latency = Latency::of(&timeline, &Shown::default());
    let row = |target: &str| latency.rows.iter().find(|r| r.target.as_deref() == Some(target)).unwrap();
    assert_eq!((row("fails").errors, row("fails").tool_errors), (0, 1));
    assert_eq!((row("missing").errors, row("missing").tool_errors), (1, 0));
    assert_eq!((row("echo").errors, row("echo").tool_errors), (0, 0));
    let method = latency.rows.iter().find(|r| r.method == "tools/call" && r.target.is_none()).unwrap();
    assert_eq!((method.count, method.errors, method.tool_errors), (4, 1, 1));

    // The same history from the session's file, opened as a past session is.
    hub.disconnect(id).await.unwrap();
    hub.log().flush().unwrap();
    let opened = WireLog::open(hub.log().path()).unwrap();
    assert_eq!(Timeline::of(&opened).calls(&opened, &[], None, HISTORY_LIMIT).unwrap(), all);
}

#[tokio::test]
async fn rounds_are_one_call_answered_by_its_last_round_and_a_dead_server_never_answers() {
    let hub = Hub::new(new_log("history-rounds"));
    let mut config = fixture(&["--dual-era"]);
    config.answers.elicit = Some("accept:{\"name\":\"Ada\"}".parse().unwrap());
    let id = hub.connect(&config).await.unwrap();
    hub.call_tool(id, "needs_input", Some(json!({"greeting": "hi"}))).await.unwrap();
    let timeline = Timeline::of(hub.log());
    let calls = timeline.calls(hub.log(), &[id], None, HISTORY_LIMIT).unwrap();
    assert_eq!(calls.len(), 1, "three rounds, one call: {calls:?}");
    let last = timeline.spans().iter().rfind(|s| &*s.method == "tools/call").unwrap();
    let first = timeline.span(calls[0].seq).unwrap();
    assert_ne!(first.seq, last.seq);
    assert_eq!(calls[0].took_ms, Some(last.end.unwrap() - first.start), "from the first round to the last");
    assert_eq!(calls[0].arguments, Some(json!({"greeting": "hi"})));
    assert_eq!(calls[0].outcome, Some(RequestOutcome::Result));
    hub.disconnect(id).await.unwrap();

    let died = hub.connect(&fixture(&["--crash-on-call"])).await.unwrap();
    hub.call_tool(died, "echo", Some(json!({"text": "x"}))).await.unwrap_err();
    common::wait_for(Duration::from_secs(10), "the call to be settled", || {
        let timeline = Timeline::of(hub.log());
        timeline.calls(hub.log(), &[died], None, 1).unwrap().first().is_some_and(|c| c.outcome.is_some())
    })
    .await;
    let timeline = Timeline::of(hub.log());
    let call = &timeline.calls(hub.log(), &[died], None, 1).unwrap()[0];
    assert_eq!(call.outcome, Some(RequestOutcome::NeverAnswered));
    assert!(call.error.as_deref().is_some_and(|e| e.contains("never answered")), "{call:?}");
    assert!(call.result.is_none());
}
