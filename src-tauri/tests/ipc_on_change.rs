//! Restart on change through Tauri's IPC with a mock runtime: a saved server with it set is
//! watched from its Connect, a failed build leaves the running server as it was, a change that
//! builds restarts it on the same line with what the change did, and a path that is gone is
//! refused when the server is saved.

mod support;

use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sonde_desktop::state::AppState;
use support::*;

/// The window's Restart on change channel, as `rebuilds_follow` registers it: each step as JSON.
fn follow_rebuilds(w: &tauri::WebviewWindow<tauri::test::MockRuntime>) -> Receiver<Value> {
    let (tx, rx) = channel::<Value>();
    let state = tauri::Manager::state::<AppState>(w);
    let channel = tauri::ipc::Channel::new(move |body| {
        let _ = tx.send(body.deserialize::<Value>().unwrap());
        Ok(())
    });
    sonde_desktop::feeds::stream(state.hub.rebuilds().feed(), channel);
    rx
}

/// The next step that has ended (not building or restarting), at most 60 s away.
fn next_end(steps: &Receiver<Value>) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let step = steps.recv_timeout(left).expect("a restart on change ends within 60 s");
        if !matches!(step["outcome"]["outcome"].as_str(), Some("building" | "restarting")) {
            return step;
        }
    }
}

#[test]
fn a_change_restarts_the_line_after_its_build_and_a_failed_build_leaves_the_server_running() {
    let (_app, w) = app("on-change");
    let dir = std::env::temp_dir().join(format!("sonde-ipc-on-change-src-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let demo = invoke(&w, "servers_list", json!({})).unwrap()[0]["command"].clone();

    // A path that is not there is refused by name, and nothing is saved.
    let gone = dir.join("gone");
    let on_change = json!({"paths": [gone], "ignore": [], "build": null});
    let server = json!({"id": "", "name": "Watched", "command": demo, "env": [], "era": "auto", "onChange": on_change});
    let err = invoke(&w, "servers_save", json!({"server": server})).unwrap_err();
    assert_eq!(err["code"], "bad_input", "{err}");
    assert_eq!(err["message"], format!("Restart on change: {} does not exist", gone.display()));

    // The build succeeds once the file `ok` is there.
    let on_change =
        json!({"paths": [dir], "ignore": [], "build": "test -f ok || { echo 'ok is missing' >&2; exit 3; }"});
    let mut server = server.clone();
    server["onChange"] = on_change;
    server["cwd"] = json!(dir);
    let all = invoke(&w, "servers_save", json!({"server": server})).unwrap();
    let saved = all.as_array().unwrap().iter().find(|s| s["name"] == "Watched").unwrap()["id"].clone();
    approve(&w, &saved);
    let steps = follow_rebuilds(&w);
    let first = invoke(&w, "connect", json!({"serverId": saved})).unwrap();

    std::fs::write(dir.join("notes.txt"), "a change").unwrap();
    let failed = next_end(&steps);
    assert_eq!(failed["line"], first);
    assert_eq!(failed["cause"], "a change to notes.txt");
    let outcome = &failed["outcome"];
    assert_eq!((&outcome["outcome"], &outcome["status"]), (&json!("build_failed"), &json!("exit status: 3")));
    assert_eq!(outcome["output"], "ok is missing\n");
    let states = invoke(&w, "connections_follow", json!({"channel": "__CHANNEL__:8"})).unwrap();
    assert_eq!(
        (&states[0]["event"]["conn"], &states[0]["event"]["state"]["state"]),
        (&first, &json!("ready"))
    );

    std::fs::write(dir.join("ok"), "").unwrap();
    let restarted = next_end(&steps);
    let outcome = &restarted["outcome"];
    assert_eq!((&restarted["line"], &outcome["outcome"]), (&first, &json!("restarted")), "{restarted}");
    assert_eq!((&outcome["changes"], &outcome["brief"]), (&json!([]), &json!("interface unchanged")));
    let states = invoke(&w, "connections_follow", json!({"channel": "__CHANNEL__:8"})).unwrap();
    let line = states.as_array().unwrap();
    assert_eq!(line.len(), 1, "one line, at its new connection: {states}");
    assert_eq!((&line[0]["event"]["conn"], &line[0]["event"]["replaces"]), (&outcome["conn"], &first));
    assert_eq!(line[0]["event"]["state"]["state"], "ready");
    invoke(&w, "disconnect", json!({"id": outcome["conn"]})).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The processes whose command line holds `word` (the build's sleeper, by its unique length).
fn running(word: &str) -> usize {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|cmdline| String::from_utf8_lossy(cmdline).replace('\0', " ").trim() == word)
        .count()
}

#[test]
fn stopping_the_line_during_a_build_stops_the_build_and_nothing_restarts() {
    let (_app, w) = app("on-change-stop");
    let dir = std::env::temp_dir().join(format!("sonde-ipc-on-change-stop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let demo = invoke(&w, "servers_list", json!({})).unwrap()[0]["command"].clone();
    let sleeper = format!("sleep {}", 300 + std::process::id() % 600);
    let on_change = json!({"paths": [dir], "ignore": [], "build": sleeper});
    let server = json!({"id": "", "name": "Slow build", "command": demo, "env": [], "era": "auto", "onChange": on_change});
    let all = invoke(&w, "servers_save", json!({"server": server})).unwrap();
    let saved = all.as_array().unwrap().iter().find(|s| s["name"] == "Slow build").unwrap()["id"].clone();
    approve(&w, &saved);
    let steps = follow_rebuilds(&w);
    let first = invoke(&w, "connect", json!({"serverId": saved})).unwrap();

    std::fs::write(dir.join("server.py"), "a change").unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while running(&sleeper) == 0 {
        assert!(Instant::now() < deadline, "the build did not start within 30 s");
        let _ = steps.recv_timeout(Duration::from_millis(50));
    }
    invoke(&w, "disconnect", json!({"id": first})).unwrap();
    let stopped = next_end(&steps);
    assert_eq!((&stopped["line"], &stopped["outcome"]["outcome"]), (&first, &json!("stopped")), "{stopped}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while running(&sleeper) > 0 {
        assert!(Instant::now() < deadline, "the build outlived the stop");
        std::thread::sleep(Duration::from_millis(20));
    }
    let states = invoke(&w, "connections_follow", json!({"channel": "__CHANNEL__:8"})).unwrap();
    assert_eq!(states.as_array().unwrap().len(), 1, "no new connection: {states}");
    assert_eq!(
        (&states[0]["event"]["conn"], &states[0]["event"]["state"]["state"]),
        (&first, &json!("exited"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}
