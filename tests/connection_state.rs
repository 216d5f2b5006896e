//! Connections that tell the truth (issue 11): the hub's state stream hears every end as it
//! happens and in the right words, a restart replaces a connection on the same line,
//! supervision backs off and stops at a crash loop, and a request whose caller has gone is
//! never written, as what the servers record of their input proves.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::http::HttpServer;
use common::{fixture, new_log, wait_for};
use serde_json::{json, Value};
use sonde_core::internals::Request;
use sonde_core::{ConnState, Filter, Hub, Kind, Lifecycle, RestartPolicy, StateEvent};
use tokio::sync::broadcast;
use tokio::time::timeout;

/// The next event of `conn` that `want` accepts, within five seconds.
async fn next(
    rx: &mut broadcast::Receiver<StateEvent>,
    conn: u64,
    what: &str,
    want: impl Fn(&ConnState) -> bool,
) -> StateEvent {
    let found = timeout(Duration::from_secs(5), async {
        loop {
            let event = rx.recv().await.expect("the stream goes on");
            if event.conn == conn && want(&event.state) {
                return event;
            }
        }
    })
    .await;
    found.unwrap_or_else(|_| panic!("no {what} for connection {conn} within 5 s"))
}

fn pid(hub: &Hub, id: u64) -> i32 {
    match hub.states().get(id).map(|e| e.state) {
        Some(ConnState::Ready { pid: Some(pid), .. }) => pid as i32,
        other => panic!("connection {id} is not ready with a pid: {other:?}"),
    }
}

/// How long after the log recorded the server's exit the stream's event arrived.
fn latency_ms(hub: &Hub, id: u64) -> f64 {
    let filter = Filter { conn: Some(id), ..Filter::parse("kind:lifecycle").unwrap() };
    let entries = hub.log().entries(&filter).unwrap();
    let exited = entries.iter().find(|e| matches!(e.lifecycle, Some(Lifecycle::Exited(_))));
    let latency = hub.log().elapsed_ms() - exited.expect("the exit is in the log").ms;
    eprintln!("connection {id}: the state arrived {latency:.2} ms after the log recorded the exit");
    latency
}

fn is_exit(state: &ConnState) -> bool {
    matches!(state, ConnState::Exited { .. })
}

fn exit_of(event: &StateEvent) -> (&str, bool) {
    match &event.state {
        ConnState::Exited { reason, requested, .. } => (reason.as_str(), *requested),
        other => panic!("not an exit: {other:?}"),
    }
}

#[tokio::test]
async fn an_external_sigkill_is_heard_at_once_and_worded() {
    let hub = Hub::new(new_log("state-kill"));
    let mut rx = hub.states().follow();
    let id = hub.connect(&fixture(&[])).await.unwrap();
    // SAFETY: kill(2) on a pid this test's server owns.
    assert_eq!(unsafe { libc::kill(pid(&hub, id), libc::SIGKILL) }, 0);
    let exited = next(&mut rx, id, "exit", is_exit).await;
    let latency = latency_ms(&hub, id);
    assert_eq!(exit_of(&exited), ("server killed by SIGKILL", false));
    assert!(latency < 100.0, "the state arrived {latency:.1} ms after the log recorded the exit");
    let refused = hub.list_tools(id).await.unwrap_err().to_string();
    assert_eq!(refused, "server killed by SIGKILL; tools/list was not sent");
}

#[tokio::test]
async fn a_crash_mid_call_fails_the_call_with_the_reason_and_ends_the_connection() {
    let hub = Hub::new(new_log("state-crash"));
    let mut rx = hub.states().follow();
    let id = hub.connect(&fixture(&["--crash-on-call"])).await.unwrap();
    let failed = hub.call_tool(id, "echo", Some(json!({"text": "x"}))).await.unwrap_err();
    assert_eq!(failed.to_string(), "server exited with code 1 while tools/call was pending");
    let exited = next(&mut rx, id, "exit", is_exit).await;
    assert!(latency_ms(&hub, id) < 100.0);
    assert_eq!(exit_of(&exited), ("server exited with code 1", false));
}

#[tokio::test]
async fn a_server_ending_by_itself_and_one_stopped_are_told_apart() {
    let hub = Hub::new(new_log("state-clean"));
    let mut rx = hub.states().follow();
    let by_itself = hub.connect(&fixture(&["--exit-after-ms", "300", "--exit-code", "0"])).await.unwrap();
    let exited = next(&mut rx, by_itself, "exit", is_exit).await;
    assert!(latency_ms(&hub, by_itself) < 100.0);
    assert_eq!(exit_of(&exited), ("server exited with code 0", false));
    // Its last words are in the state, once the recorder has read them.
    let words = || match hub.states().get(by_itself).unwrap().state {
        ConnState::Exited { words, .. } => words.lines,
        other => panic!("left the exit: {other:?}"),
    };
    wait_for(Duration::from_secs(5), "the last words in the state", || !words().is_empty()).await;
    assert_eq!(words(), ["sonde-fixture: exiting on purpose after 300 ms"]);

    // It takes its time to exit, so the stopping step is there to see.
    let stopped = hub.connect(&fixture(&["--exit-delay-ms", "300"])).await.unwrap();
    hub.disconnect(stopped).await.unwrap();
    let step = next(&mut rx, stopped, "stopping", |s| matches!(s, ConnState::Stopping { .. })).await;
    assert_eq!(
        step.state,
        ConnState::Stopping { step: "closed stdin; waiting up to 500 ms for it to exit".into() }
    );
    let exited = next(&mut rx, stopped, "exit", is_exit).await;
    assert_eq!(exit_of(&exited), ("server exited with code 0 after stdin was closed", true));
}

#[tokio::test]
async fn a_restart_is_a_new_connection_on_the_same_line_that_says_what_it_replaces() {
    let hub = Hub::new(new_log("state-restart"));
    let first = hub.connect(&fixture(&[])).await.unwrap();
    let second = hub.restart(first, &|_, _| {}).await.unwrap();
    assert_ne!(first, second);
    let event = hub.states().get(second).unwrap();
    assert_eq!((event.lineage, event.replaces), (first, Some(first)));
    assert!(matches!(event.state, ConnState::Ready { .. }));
    assert!(matches!(hub.states().get(first).unwrap().state, ConnState::Exited { requested: true, .. }));
    let filter = Filter { conn: Some(second), ..Filter::parse("kind:lifecycle").unwrap() };
    let first_entry = hub.log().entries(&filter).unwrap().remove(0);
    assert_eq!(
        first_entry.detail.as_deref(),
        Some(format!("replaces connection {first} (restart)").as_str())
    );
    // The snapshot shows the line once, at its newest connection.
    let lines: Vec<u64> = hub.states().snapshot().iter().map(|e| e.conn).collect();
    assert_eq!(lines, [second]);
    hub.disconnect(second).await.unwrap();
}

#[tokio::test]
async fn two_restarts_of_one_connection_at_once_start_one_server_and_the_second_says_it_was_replaced() {
    let hub = Hub::new(new_log("state-two-restarts"));
    let first = hub.connect(&fixture(&[])).await.unwrap();
    let (a, b) = tokio::join!(hub.restart(first, &|_, _| {}), hub.restart(first, &|_, _| {}));
    let (done, refused) = match (a, b) {
        (Ok(done), Err(refused)) | (Err(refused), Ok(done)) => (done, refused),
        other => panic!("one restart and one refusal: {other:?}"),
    };
    assert_eq!(refused.to_string(), format!("connection {first} was already replaced by connection {done}"));
    let lines: Vec<u64> = hub.states().snapshot().iter().map(|e| e.conn).collect();
    assert_eq!(lines, [done], "one line, at the one new connection");
    // A restart of the lineage, whichever connection is newest, takes its turn and replaces it.
    let third = hub.restart_lineage(first, "a change to server.py", &|_, _| {}).await.unwrap();
    assert_eq!(hub.states().get(third).unwrap().replaces, Some(done));
    hub.disconnect(third).await.unwrap();
}

fn quick_policy() -> RestartPolicy {
    RestartPolicy {
        first: Duration::from_millis(50),
        cap: Duration::from_millis(150),
        healthy: Duration::from_secs(60),
        max_exits: 4,
        window: Duration::from_secs(60),
    }
}

#[tokio::test]
async fn a_supervised_server_that_keeps_dying_is_restarted_with_backoff_until_a_crash_loop() {
    let hub = Hub::new(new_log("state-loop"));
    let mut rx = hub.states().follow();
    let mut config = fixture(&["--exit-after-ms", "500"]);
    config.restart = Some(quick_policy());
    let first = hub.connect(&config).await.unwrap();
    let mut waits = Vec::new();
    let crash_loop = timeout(Duration::from_secs(20), async {
        loop {
            let event = rx.recv().await.unwrap();
            assert_eq!(event.lineage, first, "every attempt is on the first connection's lineage");
            match event.state {
                ConnState::Waiting { attempt, wait_ms, .. } => waits.push((attempt, wait_ms)),
                ConnState::CrashLoop { exits, reason, words } => return (event.conn, exits, reason, words),
                _ => {}
            }
        }
    })
    .await
    .expect("a crash loop within 20 s");
    assert_eq!(waits, [(1, 50), (2, 100), (3, 150)], "doubling waits, capped");
    let (last, exits, reason, words) = crash_loop;
    assert_eq!(exits, 4);
    // An attempt may end during its opening or after it: either way the server's own exit.
    assert!(reason.contains("server exited with code 3"), "{reason}");
    assert_eq!(words.lines, ["sonde-fixture: exiting on purpose after 500 ms"]);
    let notes: Vec<String> = hub
        .log()
        .entries(&Filter::parse("kind:lifecycle").unwrap())
        .unwrap()
        .into_iter()
        .filter_map(|e| e.detail)
        .filter(|d| d.contains("restart") || d.contains("crash loop"))
        .collect();
    assert_eq!(notes.iter().filter(|n| n.contains("; restart attempt")).count(), 3, "{notes:#?}");
    assert_eq!(notes.iter().filter(|n| n.starts_with("replaces connection")).count(), 3, "{notes:#?}");
    assert!(
        notes.last().unwrap().starts_with("crash loop: the server ended 4 times within 60 s"),
        "{notes:#?}"
    );
    // It stays there: nothing more happens to the line.
    assert!(matches!(hub.states().get(last).unwrap().state, ConnState::CrashLoop { .. }));
    assert!(timeout(Duration::from_millis(400), rx.recv()).await.is_err(), "the state never spins");
}

#[tokio::test]
async fn stopping_a_line_waiting_to_restart_ends_it_there() {
    let hub = Hub::new(new_log("state-halt"));
    let mut rx = hub.states().follow();
    let mut config = fixture(&["--exit-after-ms", "500"]);
    config.restart = Some(RestartPolicy { first: Duration::from_secs(30), ..quick_policy() });
    let id = hub.connect(&config).await.unwrap();
    next(&mut rx, id, "waiting", |s| matches!(s, ConnState::Waiting { .. })).await;
    hub.disconnect(id).await.unwrap();
    let exited = next(&mut rx, id, "exit", is_exit).await;
    let (reason, requested) = exit_of(&exited);
    assert!(requested);
    assert!(reason.ends_with("exited with code 3; not restarted: stopped by the user"), "{reason}");
}

fn record_file(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("sonde-record-{name}-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// The ids of the messages a fixture recorded reading.
fn ids_read(path: &PathBuf) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()?.get("id").cloned()).collect()
}

fn not_sent_notes(hub: &Hub, id: u64) -> Vec<String> {
    let filter = Filter { conn: Some(id), kinds: vec![Kind::Note], ..Filter::default() };
    let notes = hub.log().entries(&filter).unwrap().into_iter().filter_map(|e| e.detail);
    notes.filter(|d| d.starts_with("not sent:")).collect()
}

#[tokio::test]
async fn a_request_whose_caller_is_gone_before_dispatch_is_never_written_on_stdio() {
    let record = record_file("stdio-dropped");
    let hub = Hub::new(new_log("abandon-stdio"));
    let id = hub.connect(&fixture(&["--record", record.to_str().unwrap()])).await.unwrap();
    let conn = hub.connection(id).unwrap();
    // On this single-threaded runtime the loop cannot run between the two lines.
    let call = conn.start(Request::new("tools/list", None)).unwrap();
    let gone = call.id.clone();
    drop(call);
    conn.request(Request::new("ping", None)).await.unwrap();
    assert_eq!(
        not_sent_notes(&hub, id),
        [format!("not sent: the caller had gone (it stopped waiting); tools/list {gone} was never written")]
    );
    assert!(!ids_read(&record).contains(&json!(gone)), "the server never read it");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_request_queued_behind_a_full_stdin_is_dropped_when_its_caller_goes() {
    let record = record_file("stdio-backlog");
    let hub = Hub::new(new_log("abandon-backlog"));
    let config = fixture(&["--record", record.to_str().unwrap(), "--reply-delay-ms", "800"]);
    let id = hub.connect(&config).await.unwrap();
    let conn = hub.connection(id).unwrap();
    // The server sleeps on this call and reads nothing meanwhile; the pipe fills behind it.
    let slow =
        conn.start(Request::new("tools/call", Some(json!({"name": "echo", "arguments": {"text": "z"}}))));
    let pad = "x".repeat(40 * 1024);
    let big: Vec<_> = (0..6)
        .map(|_| conn.start(Request::new("ping", Some(json!({"_meta": {"pad": pad}})))).unwrap())
        .collect();
    let queued = conn.start(Request::new("tools/list", None)).unwrap();
    let gone = queued.id.clone();
    // Let the loop take every command and fill the pipe, then the caller gives up.
    tokio::task::yield_now().await;
    drop(queued);
    slow.unwrap().outcome().await.unwrap();
    for call in big {
        call.outcome().await.unwrap();
    }
    conn.request(Request::new("ping", None)).await.unwrap();
    assert_eq!(
        not_sent_notes(&hub, id),
        [format!("not sent: the caller had gone (it stopped waiting); tools/list {gone} was never written")]
    );
    let read = ids_read(&record);
    assert!(!read.contains(&json!(gone)), "the server never read it: {read:?}");
    let outs = hub.log().entries(&Filter::parse("dir:out tools/list").unwrap()).unwrap();
    assert!(outs.is_empty(), "the log never claims it was sent");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_request_whose_caller_is_gone_before_dispatch_is_never_posted() {
    let record = record_file("http-dropped");
    let server = HttpServer::fixture(&["--record", record.to_str().unwrap()]);
    let hub = Hub::new(new_log("abandon-http"));
    let id = hub.connect(&server.config()).await.unwrap();
    let conn = hub.connection(id).unwrap();
    let call = conn.start(Request::new("tools/call", Some(json!({"name": "echo"})))).unwrap();
    let gone = call.id.clone();
    drop(call);
    conn.request(Request::new("tools/list", None)).await.unwrap();
    assert_eq!(
        not_sent_notes(&hub, id),
        [format!("not sent: the caller had gone (it stopped waiting); tools/call {gone} was never written")]
    );
    let read = ids_read(&record);
    assert!(!read.is_empty(), "the fixture records what it is sent");
    assert!(!read.contains(&json!(gone)), "the server never read it: {read:?}");
    hub.disconnect(id).await.unwrap();
}
