//! The timeline built from sessions recorded against the fixture: `input_required` rounds as
//! one operation, a server that died mid-call, a call that timed out and one cancelled, a
//! restart, checked as data before anything draws them. (A task's operation is checked against
//! a real 2026-07-28 server in `peer_tasks.rs`.)

mod common;

use std::time::Duration;

use common::{fixture, new_log};
use sonde_core::{Filter, Hub, MarkKind, OperationKind, RequestOutcome, Shown, Timeline, ViewQuery};

#[tokio::test]
async fn input_required_rounds_are_one_operation_of_three_requests() {
    let hub = Hub::new(new_log("timeline-mrtr"));
    let mut config = fixture(&["--dual-era"]);
    config.answers.elicit = Some("accept:{\"name\":\"Ada\"}".parse().unwrap());
    let id = hub.connect(&config).await.unwrap();
    hub.call_tool(id, "needs_input", None).await.unwrap();
    let timeline = Timeline::of(hub.log());

    let calls: Vec<_> = timeline.spans().iter().filter(|s| &*s.method == "tools/call").collect();
    assert_eq!(calls.len(), 3, "the call and its two retries");
    assert!(calls.iter().all(|s| s.outcome == Some(RequestOutcome::Result) && s.conn == id));
    assert!(calls.iter().all(|s| s.target.as_deref() == Some("needs_input")));
    let operation = timeline.operation_of(calls[2].seq).expect("the last round is part of an operation");
    assert_eq!(operation.kind, OperationKind::Rounds);
    assert_eq!(operation.head, calls[0].seq, "the first round began it");
    assert_eq!(operation.parts, calls.iter().map(|s| s.seq).collect::<Vec<_>>());
    assert_eq!(operation.start, calls[0].start);
    assert_eq!(operation.end, calls[2].end.unwrap(), "it ends with the last round's answer");
    assert_eq!(&*operation.label, "tools/call needs_input");
    // The opening's answer decided the era.
    assert!(timeline
        .marks()
        .iter()
        .any(|m| m.kind == MarkKind::Era && &*m.label == "server/discover answered"));

    // The window draws the operation once, with its three parts inside.
    let view = timeline.view(
        &ViewQuery { from: 0.0, to: timeline_end(&timeline), columns: 800, live: None },
        &Shown::default(),
    );
    let lane = view.lanes.iter().find(|l| l.conn == id).unwrap();
    assert_eq!(lane.operations.len(), 1);
    assert_eq!(lane.operations[0].parts, 3);
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_server_that_dies_mid_call_leaves_a_span_never_answered_and_its_exit_marked() {
    let hub = Hub::new(new_log("timeline-died"));
    let id = hub.connect(&fixture(&["--crash-on-call"])).await.unwrap();
    hub.call_tool(id, "echo", Some(serde_json::json!({"text": "x"}))).await.unwrap_err();
    common::wait_for(Duration::from_secs(10), "the exit to be recorded", || {
        Timeline::of(hub.log()).marks().iter().any(|m| &*m.label == "exited")
    })
    .await;
    let timeline = Timeline::of(hub.log());
    let call = timeline.spans().iter().find(|s| &*s.method == "tools/call").unwrap();
    assert_eq!(call.outcome, Some(RequestOutcome::NeverAnswered));
    let note = hub.log().outcome_of(call.seq).unwrap().unwrap();
    assert_eq!(call.settled_by, Some(note.seq), "the note that says so settles it, as the log says");
    let exit = timeline.marks().iter().find(|m| &*m.label == "exited").unwrap();
    assert_eq!((exit.kind, exit.conn), (MarkKind::Lifecycle, id));
    assert!(call.end.unwrap() >= call.start);
}

#[tokio::test]
async fn a_call_that_times_out_and_one_cancelled_end_in_their_own_words() {
    let hub = Hub::new(new_log("timeline-timeout"));
    let mut config = fixture(&["--reply-delay-ms", "3000"]);
    config.options.request_timeout = Duration::from_millis(300);
    let id = hub.connect(&config).await.unwrap();
    hub.call_tool(id, "echo", Some(serde_json::json!({"text": "slow"}))).await.unwrap_err();
    // A second call, cancelled by its caller going away (the hub cancels what is in flight).
    let connection = hub.connection(id).unwrap();
    let call = connection.start(sonde_core::internals::tool_call("echo", None)).unwrap();
    connection.cancel(&call.id, "the person cancelled it");
    let _ = call.outcome().await;

    let timeline = Timeline::of(hub.log());
    let calls: Vec<_> = timeline.spans().iter().filter(|s| &*s.method == "tools/call").collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].outcome, Some(RequestOutcome::TimedOut));
    assert_eq!(calls[1].outcome, Some(RequestOutcome::Cancelled));
    for call in &calls {
        let logged = hub.log().outcome_of(call.seq).unwrap().unwrap();
        assert_eq!(
            (Some(logged.outcome), Some(logged.seq)),
            (call.outcome, call.settled_by),
            "one set of words"
        );
    }
    assert_eq!(RequestOutcome::TimedOut.word(), "timed out");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_restart_is_a_new_lane_that_says_it_replaces_the_old_one() {
    let hub = Hub::new(new_log("timeline-restart"));
    let id = hub.connect(&fixture(&[])).await.unwrap();
    hub.call_tool(id, "echo", Some(serde_json::json!({"text": "before"}))).await.unwrap();
    let again = hub.restart(id, &|_, _| {}).await.unwrap();
    hub.call_tool(again, "echo", Some(serde_json::json!({"text": "after"}))).await.unwrap();
    let timeline = Timeline::of(hub.log());
    assert_eq!(timeline.connections(), vec![id, again]);
    let restart = timeline.marks().iter().find(|m| &*m.label == "restart").expect("a restart mark");
    assert_eq!(restart.conn, again);
    let shutdown: Vec<&str> = timeline
        .marks()
        .iter()
        .filter(|m| m.conn == id && m.kind == MarkKind::Lifecycle)
        .map(|m| &*m.label)
        .collect();
    assert!(shutdown.contains(&"spawned") && shutdown.contains(&"stdin closed"), "{shutdown:?}");

    // A filter keeps only what it matches: the second connection's calls.
    let mut shown = Shown::new(Filter::parse(&format!("conn:{again} method:tools/call")).unwrap());
    shown.update(hub.log()).unwrap();
    let view = timeline
        .view(&ViewQuery { from: 0.0, to: timeline_end(&timeline), columns: 400, live: None }, &shown);
    assert_eq!(view.shown, 1);
    let spans: Vec<_> = view.lanes.iter().flat_map(|l| &l.spans).collect();
    assert_eq!((spans.len(), spans[0].method.as_str()), (1, "tools/call"));

    // The ended connection folded: one lane holds it, where it was, with its call.
    let query = ViewQuery { from: 0.0, to: timeline_end(&timeline), columns: 400, live: Some(vec![again]) };
    let view = timeline.view(&query, &Shown::default());
    assert_eq!(
        view.lanes.iter().map(|l| (l.conn, l.folded.clone())).collect::<Vec<_>>(),
        [(id, vec![id]), (again, vec![])]
    );
    assert!(view.lanes[0].spans.iter().any(|s| s.method == "tools/call"), "{view:?}");
    hub.disconnect(again).await.unwrap();
}

fn timeline_end(timeline: &Timeline) -> f64 {
    timeline.spans().iter().filter_map(|s| s.end).fold(1.0, f64::max) + 1.0
}
