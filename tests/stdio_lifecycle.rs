//! A stdio server's life under Sonde: alive after connect, its whole group gone after
//! shutdown, escalation when it ignores the polite steps, and no leaks over many cycles.

mod common;

use std::time::{Duration, Instant};

use common::{alive, fixture, new_log, wait_for};
use serde_json::json;
use sonde_core::{live_members, Filter, Hub, Kind, Lifecycle, Signal};

#[tokio::test]
async fn the_child_is_alive_after_connect_returns_and_serves_a_later_call() {
    let hub = Hub::new(new_log("alive"));
    let mut config = fixture(&[]);
    // A short connect deadline that has long passed by the time the call is made: it bounds
    // the handshake only, never the process.
    config.connect_timeout = Duration::from_millis(500);
    let connected = Instant::now();
    let id = hub.connect(&config).await.unwrap();
    let pid = hub.connection(id).unwrap().pid().await.unwrap() as i32;
    // Keep the server busy with real calls until well past the connect deadline; each one
    // must be served, so a child tied to that deadline would fail here, not go unnoticed.
    while connected.elapsed() < config.connect_timeout + Duration::from_millis(300) {
        hub.list_tools(id).await.expect("the server answers after connect returned");
    }
    assert!(alive(pid), "the server died after connect returned");
    let result = hub.call_tool(id, "echo", Some(json!({"text": "still here"}))).await.unwrap();
    assert_eq!(result["content"][0]["text"], "still here");
    hub.disconnect(id).await.unwrap();
    assert!(!alive(pid));
}

#[tokio::test]
async fn a_grandchild_in_the_servers_group_is_dead_after_shutdown() {
    let hub = Hub::new(new_log("grandchild"));
    let id = hub.connect(&fixture(&["--grandchild"])).await.unwrap();
    let pgid = hub.connection(id).unwrap().pid().await.unwrap() as i32;
    wait_for(Duration::from_secs(5), "the grandchild to start", || live_members(pgid).len() >= 2).await;
    let members = live_members(pgid);
    let exit = hub.disconnect(id).await.unwrap().unwrap();
    assert_eq!(exit.code, Some(0), "the server itself exits on stdin EOF: {exit:?}");
    for pid in members {
        assert!(!alive(pid), "pid {pid} of group {pgid} outlived the shutdown");
    }
    let events = lifecycle(&hub, id);
    assert!(
        events.iter().any(|e| matches!(e, Lifecycle::Signalled { signal: Signal::Term, .. })),
        "{events:?}"
    );
    assert!(matches!(events.last(), Some(Lifecycle::GroupGone { .. })), "{events:?}");
}

#[tokio::test]
async fn a_server_that_ignores_sigterm_is_killed_after_the_grace() {
    let hub = Hub::new(new_log("sigterm"));
    let id = hub.connect(&fixture(&["--ignore-sigterm", "--stay-on-eof"])).await.unwrap();
    let started = Instant::now();
    let exit = hub.disconnect(id).await.unwrap().unwrap();
    assert_eq!(exit.signal, Some(libc::SIGKILL));
    assert_eq!(exit.describe(), "killed by SIGKILL after the 500 ms SIGTERM grace");
    assert!(started.elapsed() >= Duration::from_millis(1000), "both graces must have been waited");
    let steps: Vec<String> = lifecycle(&hub, id)
        .iter()
        .filter_map(|e| match e {
            Lifecycle::StdinClosed { .. } => Some("stdin".to_owned()),
            Lifecycle::Signalled { signal, .. } => Some(signal.name().to_owned()),
            Lifecycle::Exited(_) => Some("exited".to_owned()),
            _ => None,
        })
        .collect();
    assert_eq!(steps, ["stdin", "SIGTERM", "SIGKILL", "exited"]);
}

#[tokio::test]
async fn a_server_that_exits_late_on_eof_gets_no_signal() {
    let hub = Hub::new(new_log("late-eof"));
    let id = hub.connect(&fixture(&["--exit-delay-ms", "200"])).await.unwrap();
    let exit = hub.disconnect(id).await.unwrap().unwrap();
    assert_eq!(exit.describe(), "exited with code 0 after stdin was closed");
    assert!(!lifecycle(&hub, id).iter().any(|e| matches!(e, Lifecycle::Signalled { .. })));
}

#[tokio::test]
async fn two_hundred_connect_and_shutdown_cycles_leave_no_process_alive() {
    let hub = Hub::new(new_log("cycles"));
    let config = fixture(&["--grandchild"]);
    let mut groups = Vec::new();
    for _ in 0..200 {
        let id = hub.connect(&config).await.unwrap();
        groups.push(hub.connection(id).unwrap().pid().await.unwrap() as i32);
        hub.disconnect(id).await.unwrap();
    }
    let survivors: Vec<(i32, Vec<i32>)> =
        groups.iter().map(|&g| (g, live_members(g))).filter(|(_, m)| !m.is_empty()).collect();
    assert!(survivors.is_empty(), "groups with live members: {survivors:?}");
}

fn lifecycle(hub: &Hub, conn: u64) -> Vec<Lifecycle> {
    let filter = Filter { kinds: vec![Kind::Lifecycle], conn: Some(conn), ..Filter::default() };
    hub.log().entries(&filter).unwrap().into_iter().filter_map(|e| e.lifecycle).collect()
}

#[tokio::test]
async fn what_a_server_writes_to_stderr_as_it_exits_is_in_the_log_when_shutdown_returns() {
    // Each round is a fresh server whose last stderr line comes after stdin closes; the
    // shutdown must not return before the recorder has read it.
    for round in 0..5 {
        let hub = Hub::new(new_log("last-words"));
        let words = format!("last words {round}");
        let id = hub.connect(&fixture(&["--last-words", &words])).await.unwrap();
        hub.disconnect(id).await.unwrap();
        let stderr: Vec<u8> = hub
            .log()
            .entries(&Filter { kinds: vec![Kind::Stderr], ..Filter::default() })
            .unwrap()
            .iter()
            .flat_map(|e| e.bytes().unwrap())
            .collect();
        let stderr = String::from_utf8_lossy(&stderr);
        assert!(stderr.contains(&words), "round {round}: {words:?} missing from stderr {stderr:?}");
    }
}
