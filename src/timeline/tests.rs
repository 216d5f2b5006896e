use std::sync::Arc;

use super::*;
use crate::log::{Entry, Filter, Summary, WireLog};

fn temp_dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("sonde-timeline-{name}-{}", std::process::id()))
}

fn message(
    conn: u64,
    dir: Direction,
    kind: &str,
    method: &str,
    id: Option<u64>,
    target: Option<&str>,
) -> Entry {
    let mut entry = Entry::new(conn, Kind::Message, dir).with_bytes(b"{}");
    entry.summary = Some(Summary {
        kind: kind.to_owned().into(),
        method: Some(method.into()),
        id: id.map(|i| i.to_string()),
        target: target.map(Into::into),
        ..Summary::default()
    });
    entry
}

/// A request and its reply `took` ms later (times are the log's own: appended now, so the
/// test waits for real only where a span must be long).
fn call(log: &WireLog, conn: u64, id: u64, method: &str, target: Option<&str>, error: bool) -> u64 {
    let seq = log.append(message(conn, Direction::Out, "request", method, Some(id), target));
    let mut reply =
        message(conn, Direction::In, if error { "error" } else { "result" }, method, Some(id), target);
    reply.answers = Some(seq);
    log.append(reply);
    seq
}

#[test]
fn a_crowded_lane_is_drawn_in_buckets_and_a_slow_call_stands_alone_until_zoomed_into() {
    let log = WireLog::create_in(&temp_dir("crowded")).unwrap();
    for id in 0..5000 {
        call(&log, 1, id, "tools/call", Some("fast"), id % 100 == 0);
    }
    let slow = log.append(message(1, Direction::Out, "request", "tools/call", Some(9999), Some("slow")));
    std::thread::sleep(std::time::Duration::from_millis(60));
    let mut reply = message(1, Direction::In, "result", "tools/call", Some(9999), Some("slow"));
    reply.answers = Some(slow);
    log.append(reply);
    for id in 10_000..12_000 {
        call(&log, 1, id, "ping", None, false);
    }
    let timeline = Timeline::of(&log);
    assert_eq!(timeline.spans().len(), 7001);
    let whole = ViewQuery { from: 0.0, to: timeline.last_ms, columns: 100, live: None };
    let view = timeline.view(&whole, &Shown::default());
    let lane = &view.lanes[0];
    assert!(lane.spans.len() < view::MAX_ALONE + 1, "{} alone", lane.spans.len());
    let bucketed: u32 = lane.span_buckets.iter().map(|b| b.count).sum();
    assert_eq!(bucketed as usize + lane.spans.len(), 7001, "every span is drawn, alone or in a bucket");
    assert!(
        lane.span_buckets.iter().any(|b| b.worst == Some(RequestOutcome::Error)),
        "errors colour buckets"
    );
    assert!(lane.spans.iter().any(|s| s.seq == slow), "the slow call is wide enough to stand alone");

    // Zoomed into the slow call: it fills the view, and nothing is bucketed.
    let span = timeline.span(slow).unwrap();
    let zoomed = ViewQuery { from: span.start + 1.0, to: span.end.unwrap() - 1.0, columns: 800, live: None };
    let view = timeline.view(&zoomed, &Shown::default());
    assert_eq!(view.lanes[0].spans.iter().map(|s| s.seq).collect::<Vec<_>>(), vec![slow]);
    assert!(view.lanes[0].span_buckets.is_empty());
}

#[test]
fn latency_is_per_method_and_per_target_with_the_filter_that_lists_those_calls() {
    let log = WireLog::create_in(&temp_dir("latency")).unwrap();
    for id in 0..20 {
        call(&log, 1, id, "tools/call", Some(if id < 15 { "greet" } else { "get weather" }), id == 3);
    }
    call(&log, 1, 100, "ping", None, false);
    let unanswered =
        log.append(message(1, Direction::Out, "request", "tools/call", Some(101), Some("greet")));
    let mut note =
        Entry::new(1, Kind::Note, Direction::Meta).with_detail("tools/call 101 got no result within 1 s");
    (note.answers, note.ends) = (Some(unanswered), Some(RequestOutcome::TimedOut));
    log.append(note);

    let timeline = Timeline::of(&log);
    let latency = Latency::of(&timeline, &Shown::default());
    type Counts<'a> = (&'a str, Option<&'a str>, u32, u32, u32, u32);
    let rows: Vec<Counts> = latency
        .rows
        .iter()
        .map(|r| (r.method.as_str(), r.target.as_deref(), r.count, r.answered, r.errors, r.unanswered))
        .collect();
    assert_eq!(
        rows,
        [
            ("tools/call", None, 21, 20, 1, 1),
            ("tools/call", Some("greet"), 16, 15, 1, 1),
            ("tools/call", Some("get weather"), 5, 5, 0, 0),
            ("ping", None, 1, 1, 0, 0),
        ]
    );
    let greet = &latency.rows[1];
    assert_eq!(greet.filter, "method:tools/call target:greet");
    assert_eq!(latency.rows[2].filter, "method:tools/call target:\"get weather\"");
    assert!(greet.p50.unwrap() <= greet.p95.unwrap() && greet.p95.unwrap() <= greet.max.unwrap());
    assert_eq!(greet.histogram.counts.iter().sum::<u32>(), 15);
    assert_eq!(latency.all.counts.iter().sum::<u32>(), 21);

    // Each row's filter, given to the log, lists exactly those calls and their answers.
    for row in &latency.rows[1..3] {
        let entries = log.entries(&Filter::parse(&row.filter).unwrap()).unwrap();
        let requests = entries.iter().filter(|e| e.dir == Direction::Out).count() as u32;
        assert_eq!(requests, row.count, "{}", row.filter);
    }

    // The latency of what a filter shows.
    let mut shown = Shown::new(Filter::parse("method:ping").unwrap());
    shown.update(&log).unwrap();
    let latency = Latency::of(&timeline, &shown);
    assert_eq!(latency.rows.len(), 1);
}

#[test]
fn a_session_file_of_format_2_reads_its_settling_notes_as_never_answered() {
    let dir = temp_dir("format-2");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("old.jsonl");
    let lines = [
        r#"{"format":2,"program":"sonde"}"#,
        r#"{"seq":0,"time":"2026-11-30T12:00:00.001Z","ms":1.0,"conn":1,"kind":"message","dir":"out","text":"{}","summary":{"type":"request","method":"tools/call","id":"1","target":"echo"}}"#,
        r#"{"seq":1,"time":"2026-11-30T12:00:00.101Z","ms":101.0,"conn":1,"kind":"note","dir":"meta","answers":0,"detail":"tools/call 1 was never answered: server exited with code 1"}"#,
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let log = WireLog::open(&path).unwrap();
    let timeline = Timeline::of(&log);
    let span = timeline.span(0).unwrap();
    assert_eq!(
        (span.outcome, span.start, span.end, span.target.as_deref()),
        (Some(RequestOutcome::NeverAnswered), 1.0, Some(101.0), Some("echo"))
    );
    assert_eq!(log.outcome_of(0).unwrap().unwrap().outcome, RequestOutcome::NeverAnswered);
}

#[test]
fn requests_in_flight_together_take_tracks_of_their_own_and_free_them_when_settled() {
    let log = WireLog::create_in(&temp_dir("tracks")).unwrap();
    let a = log.append(message(1, Direction::Out, "request", "tools/call", Some(1), None));
    let b = log.append(message(1, Direction::Out, "request", "tools/call", Some(2), None));
    let mut reply = message(1, Direction::In, "result", "tools/call", Some(1), None);
    reply.answers = Some(a);
    log.append(reply);
    std::thread::sleep(std::time::Duration::from_millis(2));
    let c = log.append(message(1, Direction::Out, "request", "ping", Some(3), None));
    let mut timeline = Timeline::new();
    timeline.update(&log);
    let tracks: Vec<u8> = [a, b, c].iter().map(|&s| timeline.span(s).unwrap().track).collect();
    assert_eq!(tracks, [0, 1, 0], "b waits on its own track; c reuses a's");
    assert_eq!(timeline.span(b).unwrap().outcome, None, "b still waits");

    // Updating reads only what came since.
    let mut reply = message(1, Direction::In, "error", "tools/call", Some(2), None);
    reply.answers = Some(b);
    log.append(reply);
    timeline.update(&log);
    assert_eq!(timeline.span(b).unwrap().outcome, Some(RequestOutcome::Error));
    assert_eq!(timeline.spans().len(), 3);
    let _: Arc<str> = timeline.span(c).unwrap().method.clone();
}

#[test]
fn an_authorization_is_one_operation_from_its_first_step_to_its_last() {
    let log = WireLog::create_in(&temp_dir("oauth")).unwrap();
    let waiting = log.append(message(1, Direction::Out, "request", "initialize", Some(1), None));
    for step in [
        "discovery: GET /.well-known/oauth-protected-resource",
        "registration: POST /register",
        "token: POST /token",
    ] {
        log.append(Entry::new(1, Kind::Note, Direction::Meta).with_detail(format!("authorization · {step}")));
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let mut reply = message(1, Direction::In, "result", "initialize", Some(1), None);
    reply.answers = Some(waiting);
    log.append(reply);
    // A later authorization (a refresh) is another operation.
    log.append(message(1, Direction::Out, "request", "tools/list", Some(2), None));
    log.append(
        Entry::new(1, Kind::Note, Direction::Meta).with_detail("authorization · refresh: POST /token"),
    );

    let timeline = Timeline::of(&log);
    let flows: Vec<&Operation> =
        timeline.operations().iter().filter(|o| o.kind == OperationKind::Authorization).collect();
    assert_eq!(flows.len(), 2);
    assert!(flows[0].end - flows[0].start >= 4.0, "from the first step to the last: {:?}", flows[0]);
    assert!(
        timeline.marks().iter().all(|m| m.kind != MarkKind::Note),
        "its steps are the operation, not notes"
    );
    let view = timeline.view(
        &ViewQuery { from: 0.0, to: timeline.last_ms + 1.0, columns: 300, live: None },
        &Shown::default(),
    );
    assert_eq!(view.lanes[0].operations.len(), 2);
}

#[test]
fn the_slowest_call_is_one_that_settled_never_a_stream_held_open_and_one_the_filter_shows() {
    let log = WireLog::create_in(&temp_dir("slowest")).unwrap();
    let reply = |log: &WireLog, request: u64, id: u64, method: &str, target: Option<&str>| {
        let mut reply = message(1, Direction::In, "result", method, Some(id), target);
        reply.answers = Some(request);
        log.append(reply);
    };
    let listen = log.append(message(1, Direction::Out, "request", "subscriptions/listen", Some(1), None));
    let slow = log.append(message(1, Direction::Out, "request", "tools/call", Some(2), Some("slow")));
    log.append(message(1, Direction::Out, "request", "tools/call", Some(3), Some("never")));
    // Long spans need time to pass: the log stamps entries as they are appended.
    std::thread::sleep(std::time::Duration::from_millis(30));
    reply(&log, slow, 2, "tools/call", Some("slow"));
    let fast = call(&log, 1, 4, "tools/call", Some("fast"), false);
    std::thread::sleep(std::time::Duration::from_millis(30));
    reply(&log, listen, 1, "subscriptions/listen", None);
    let timeline = Timeline::of(&log);
    let whole = ViewQuery { from: 0.0, to: timeline.last_ms, columns: 100, live: None };
    let view = timeline.view(&whole, &Shown::default());
    let slowest = view.slowest.expect("a settled call");
    assert_eq!(slowest.seq, slow, "not the listen stream, longer, nor the call still waiting");
    let lane = &view.lanes[0];
    assert!(lane.spans.iter().any(|s| s.seq == listen && s.stream), "the stream is drawn, marked");
    let mut shown = Shown::new(Filter::parse("target:fast").unwrap());
    shown.update(&log).unwrap();
    assert_eq!(timeline.view(&whole, &shown).slowest.map(|s| s.seq), Some(fast));
}

#[test]
fn folded_connections_share_one_lane_where_the_first_of_them_was() {
    let log = WireLog::create_in(&temp_dir("folded")).unwrap();
    let one = call(&log, 1, 1, "tools/call", Some("a"), false);
    call(&log, 2, 1, "tools/call", Some("b"), false);
    let three = call(&log, 3, 1, "tools/call", Some("c"), true);
    let timeline = Timeline::of(&log);
    let query = ViewQuery { from: 0.0, to: timeline.last_ms + 1.0, columns: 100, live: Some(vec![2]) };
    let view = timeline.view(&query, &Shown::default());
    let lanes: Vec<_> = view.lanes.iter().map(|l| (l.conn, l.folded.clone())).collect();
    assert_eq!(lanes, [(1, vec![1, 3]), (2, vec![])]);
    let folded: Vec<u64> = view.lanes[0].spans.iter().map(|s| s.seq).collect();
    assert_eq!(folded, [one, three], "both connections' calls in the one lane");
    assert_eq!(view.in_window, 3);
}
