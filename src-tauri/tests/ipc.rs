//! The commands through Tauri's IPC with a mock runtime: no window, real servers. The log and
//! session commands are in `ipc_log.rs`.

mod support;

use std::path::PathBuf;

use serde_json::{json, Value};
use sonde_desktop::state::AppState;
use support::*;
use tauri::test::MockRuntime;
use tauri::WebviewWindow;

#[test]
fn the_demo_server_is_saved_connects_lists_its_tools_and_stops() {
    let (_app, w) = app("demo");
    let servers = invoke(&w, "servers_list", json!({})).unwrap();
    assert_eq!(servers[0]["name"], "Demo server");
    let id = invoke(&w, "connect", json!({"serverId": "demo"})).unwrap();
    let states = invoke(&w, "connections_follow", json!({"channel": "__CHANNEL__:8"})).unwrap();
    let ready = &states[0];
    assert_eq!((&ready["serverId"], &ready["name"]), (&json!("demo"), &json!("Demo server")));
    assert_eq!(ready["event"]["conn"], id);
    assert_eq!(ready["event"]["state"]["state"], "ready");
    assert_eq!(ready["event"]["state"]["server"]["protocolVersion"], "2026-07-28");
    assert_eq!(ready["event"]["state"]["server"]["decidedBy"], "server/discover");
    let tools = invoke(&w, "tools_list", json!({"id": id})).unwrap();
    let names: Vec<&str> =
        tools["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["echo", "add", "slow", "greet", "image", "touch"]);
    assert_eq!(tools["stopped"], Value::Null, "a short listing is whole");
    let page = invoke(
        &w,
        "log_page",
        json!({"from": 0, "to": 1_000_000, "filter": "method:tools/list", "limit": 10}),
    )
    .unwrap();
    assert_eq!(page["entries"].as_array().unwrap().len(), 2, "the request and its reply");
    let how = invoke(&w, "disconnect", json!({"id": id})).unwrap();
    assert_eq!(how, "server exited with code 0 after stdin was closed");
}

#[test]
fn errors_cross_ipc_as_code_and_message() {
    let (_app, w) = app("errors");
    let err = invoke(&w, "tools_list", json!({"id": 99})).unwrap_err();
    assert_eq!(err["code"], "not_found");
    let bad = json!({"server": {"id": "", "name": "x", "command": "'unclosed"}});
    let err = invoke(&w, "servers_save", bad).unwrap_err();
    assert_eq!(err["code"], "bad_input");
    assert!(err["message"].as_str().unwrap().contains("cannot be split"), "{err}");
    let err =
        invoke(&w, "log_page", json!({"from": 0, "to": 10, "filter": "kind:nope", "limit": 10})).unwrap_err();
    assert_eq!(err["code"], "bad_input");
    let err = invoke(&w, "connect", json!({"serverId": "missing"})).unwrap_err();
    assert_eq!(err["code"], "not_found");
    // Each code is the core error's own: a blob that is not base64 is bad input, not a failed
    // write, and a template that does not parse is bad input.
    let err = invoke(&w, "resource_save", json!({"path": "x.bin", "blob": "@@"})).unwrap_err();
    assert_eq!(err["code"], "bad_input", "{err}");
    assert!(err["message"].as_str().unwrap().starts_with("the blob is not base64: "), "{err}");
    let err = invoke(&w, "template_variables", json!({"template": "demo://{unclosed"})).unwrap_err();
    assert_eq!(err["code"], "bad_input", "{err}");
}

#[test]
fn a_failed_opening_carries_its_last_words_and_restarts_as_saved_once_the_withheld_variable_is_added() {
    let (_app, w) = app("last-words");
    // In this test's own environment (nextest runs each test in a process of its own), as a
    // user's shell would have it; the minimal environment withholds it from the server.
    std::env::set_var("SONDE_IPC_TEST_KEY", "ipc-secret-value");
    // Without the key it fails; with it, it is the demo server.
    let demo = invoke(&w, "servers_list", json!({})).unwrap()[0]["command"].as_str().unwrap().to_owned();
    let script = format!(
        r#"test -n "$SONDE_IPC_TEST_KEY" || {{ echo "Error: SONDE_IPC_TEST_KEY is not set" >&2; exit 1; }}; exec {demo}"#
    );
    let command = format!("sh -c '{script}'");
    let server = json!({"id": "", "name": "Needs a key", "command": command, "env": [], "era": "legacy"});
    let all = invoke(&w, "servers_save", json!({"server": server})).unwrap();
    let id = all[1]["id"].clone();
    approve(&w, &id);
    let err = invoke(&w, "connect", json!({"serverId": id})).unwrap_err();
    assert_eq!(err["code"], "connect_failed", "{err}");
    assert_eq!(err["lastWords"]["lines"], json!(["Error: SONDE_IPC_TEST_KEY is not set"]), "{err}");
    assert_eq!(err["lastWords"]["minimalEnv"], true, "{err}");
    assert_eq!(err["lastWords"]["withheld"], json!(["SONDE_IPC_TEST_KEY"]), "{err}");

    let all = invoke(&w, "servers_add_env_from_host", json!({"serverId": id, "name": "SONDE_IPC_TEST_KEY"}))
        .unwrap();
    assert_eq!(all[1]["env"], json!([{"key": "SONDE_IPC_TEST_KEY", "value": "ipc-secret-value"}]));

    // Restart on the failed card runs the server as it is saved now: its launch changed, so it
    // is asked about first (no person here: not run), and once approved it starts.
    let failed = states_now(&w)[0]["event"]["conn"].clone();
    let err = invoke(&w, "restart", json!({"id": failed})).unwrap_err();
    assert_eq!(err["code"], "cancelled", "{err}");
    approve(&w, &id);
    let restarted = invoke(&w, "restart", json!({"id": failed})).unwrap();
    let line = states_now(&w);
    assert_eq!((&line[0]["event"]["conn"], &line[0]["event"]["replaces"]), (&restarted, &failed));
    assert_eq!(line[0]["event"]["state"]["state"], "ready", "{line:?}");
    invoke(&w, "disconnect", json!({"id": restarted})).unwrap();
    let err = invoke(&w, "tools_list", json!({"id": 99})).unwrap_err();
    assert_eq!(err["lastWords"], Value::Null, "other errors carry none: {err}");
}

#[test]
fn saved_servers_are_added_edited_and_deleted() {
    let (_app, w) = app("crud");
    let server = json!({"id": "", "name": "Time", "command": "uvx mcp-server-time", "env": [{"key": "TZ", "value": "UTC"}], "era": "legacy"});
    let all = invoke(&w, "servers_save", json!({"server": server})).unwrap();
    assert_eq!(all.as_array().unwrap().len(), 2);
    let mut saved = all[1].clone();
    assert!(!saved["id"].as_str().unwrap().is_empty());
    saved["name"] = json!("Time (UTC)");
    let all = invoke(&w, "servers_save", json!({"server": saved})).unwrap();
    assert_eq!(all[1]["name"], "Time (UTC)");
    let all = invoke(&w, "servers_delete", json!({"id": saved["id"]})).unwrap();
    assert_eq!(all.as_array().unwrap().len(), 1);
}

#[test]
fn a_server_question_reaches_the_window_and_its_answer_goes_back() {
    let (app, w) = app("questions");
    // The window's channel, as `server_requests_follow` registers it.
    let (asked_tx, asked) = std::sync::mpsc::channel::<Value>();
    let state = tauri::Manager::state::<AppState>(&app);
    let channel = tauri::ipc::Channel::new(move |body| {
        asked_tx.send(body.deserialize::<Value>().unwrap()).unwrap();
        Ok(())
    });
    sonde_desktop::feeds::stream(state.questions().feed(), channel);
    let id = invoke(&w, "connect", json!({"serverId": "demo"})).unwrap();
    let (caller, call_id) = (w.clone(), id.clone());
    let call = std::thread::spawn(move || {
        invoke(
            &caller,
            "tool_call",
            json!({"id": call_id, "tool": {"name": "greet"}, "progress": "__CHANNEL__:9"}),
        )
    });
    let event =
        asked.recv_timeout(std::time::Duration::from_secs(20)).expect("the demo server asks who is calling");
    assert_eq!(event["event"], "asked");
    let question = &event["question"];
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "Who is calling?");
    let answer = json!({"action": "accept", "content": {"name": "Grace", "formal": true}});
    invoke(&w, "server_request_answer", json!({"qid": question["qid"], "result": answer, "refusal": null}))
        .unwrap();
    let outcome = call.join().unwrap().unwrap();
    assert_eq!(outcome["result"]["content"][0]["text"], "Good day, Grace.");
    let again = invoke(
        &w,
        "server_request_answer",
        json!({"qid": question["qid"], "result": answer, "refusal": null}),
    );
    assert_eq!(again.unwrap_err()["code"], "not_found", "a question is answered once");
    invoke(&w, "disconnect", json!({"id": id})).unwrap();
}

#[test]
fn a_restart_is_a_new_connection_of_the_same_saved_server_and_resending_asks_first() {
    let (_app, w) = app("restart");
    let first = invoke(&w, "connect", json!({"serverId": "demo"})).unwrap();
    let second = invoke(&w, "restart", json!({"id": first})).unwrap();
    assert_ne!(first, second);
    let states = invoke(&w, "connections_follow", json!({"channel": "__CHANNEL__:8"})).unwrap();
    let line = states.as_array().unwrap();
    assert_eq!(line.len(), 1, "one line, at its newest connection: {states}");
    assert_eq!((&line[0]["serverId"], &line[0]["event"]["conn"]), (&json!("demo"), &second));
    assert_eq!((&line[0]["event"]["line"], &line[0]["event"]["replaces"]), (&first, &first));
    assert_eq!(line[0]["event"]["state"]["state"], "ready");
    invoke(&w, "disconnect", json!({"id": second})).unwrap();

    let risk = invoke(&w, "tool_resend_risk", json!({"tool": {"name": "wipe"}})).unwrap();
    assert!(risk.as_str().unwrap().starts_with("wipe may have run before its server ended"), "{risk}");
    let safe = json!({"tool": {"name": "echo", "annotations": {"readOnlyHint": true}}});
    assert_eq!(invoke(&w, "tool_resend_risk", safe).unwrap(), Value::Null);
}

#[test]
fn a_new_servers_launch_is_not_run_without_a_person_to_confirm_it() {
    let (_app, w) = app("unconfirmed");
    let marker = std::env::temp_dir().join(format!("sonde-unconfirmed-{}", std::process::id()));
    let _ = std::fs::remove_file(&marker);
    let command = format!("touch {}", marker.display());
    let server = json!({"id": "", "name": "Never asked", "command": command, "env": [], "era": "legacy"});
    let all = invoke(&w, "servers_save", json!({"server": server})).unwrap();
    let id = all[1]["id"].clone();
    let err = invoke(&w, "connect", json!({"serverId": id})).unwrap_err();
    assert_eq!(err["code"], "cancelled", "{err}");
    assert_eq!(err["message"], "Never asked was not started: running it was not confirmed");
    assert!(!marker.exists(), "the command ran");
    let spawned =
        invoke(&w, "log_page", json!({"from": 0, "to": 1_000_000, "filter": "kind:lifecycle", "limit": 100}))
            .unwrap();
    assert_eq!(spawned["entries"], json!([]), "nothing was started: {spawned}");

    // The demo server as Sonde saved it runs Sonde's own binary: it is not asked about.
    let demo = invoke(&w, "connect", json!({"serverId": "demo"})).unwrap();
    invoke(&w, "disconnect", json!({"id": demo})).unwrap();
}

/// Every line's newest state now.
fn states_now(w: &WebviewWindow<MockRuntime>) -> Vec<Value> {
    invoke(w, "connections_follow", json!({"channel": "__CHANNEL__:8"})).unwrap().as_array().unwrap().clone()
}

/// The window's question channel, as `server_requests_follow` registers it: each event as JSON.
fn follow_questions(app: &tauri::App<MockRuntime>) -> std::sync::mpsc::Receiver<Value> {
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    let state = tauri::Manager::state::<AppState>(app);
    let channel = tauri::ipc::Channel::new(move |body| {
        let _ = tx.send(body.deserialize::<Value>().unwrap());
        Ok(())
    });
    sonde_desktop::feeds::stream(state.questions().feed(), channel);
    rx
}

/// The next `n` question events, each within 20 s.
fn next_events(events: &std::sync::mpsc::Receiver<Value>, n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            events
                .recv_timeout(std::time::Duration::from_secs(20))
                .unwrap_or_else(|e| panic!("event {i}: {e}"))
        })
        .collect()
}

#[test]
fn a_server_asking_twenty_questions_at_once_gets_eight_shown_and_the_rest_declined() {
    let (app, w) = app("question-cap");
    let events = follow_questions(&app);
    let id = connect_fixture(&w, "Asks a lot", "--ask-many 20");
    let caller = w.clone();
    let call_id = id.clone();
    let call = std::thread::spawn(move || {
        let tool = json!({"name": "ask_many"});
        invoke(&caller, "tool_call", json!({"id": call_id, "tool": tool, "progress": "__CHANNEL__:9"}))
    });
    let heard = next_events(&events, 20);
    let asked: Vec<&Value> = heard.iter().filter(|e| e["event"] == "asked").collect();
    let declined: Vec<&Value> = heard.iter().filter(|e| e["event"] == "declined").collect();
    assert_eq!(asked.len(), 8, "{heard:?}");
    assert_eq!(declined.len(), 12, "{heard:?}");
    assert_eq!(declined.last().unwrap()["declined"], 12);
    assert_eq!(declined[0]["limit"], 8);
    assert_eq!(asked[0]["question"]["params"]["message"], "Question 1 of 20: who is asking?");

    let notes = invoke(
        &w,
        "log_page",
        json!({"from": 0, "to": 1_000_000, "filter": "kind:note declined", "limit": 100}),
    )
    .unwrap();
    assert_eq!(notes["entries"].as_array().unwrap().len(), 12, "a note for each question declined: {notes}");

    let count = invoke(&w, "server_requests_decline_all", json!({"id": id})).unwrap();
    assert_eq!(count, 8);
    let withdrawn = next_events(&events, 1).remove(0);
    assert_eq!(withdrawn["event"], "withdrawn");
    let qids: Vec<&Value> = asked.iter().map(|q| &q["question"]["qid"]).collect();
    assert_eq!(withdrawn["qids"].as_array().unwrap().iter().collect::<Vec<_>>(), qids);
    let outcome = call.join().unwrap().unwrap();
    let text = outcome["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("asked 20 questions: 8 declined; 12 refused: Sonde declined"), "{text}");
    invoke(&w, "disconnect", json!({"id": id})).unwrap();
}

#[test]
fn a_connection_that_ends_takes_its_questions_with_it() {
    let (app, w) = app("question-forget");
    let events = follow_questions(&app);
    let id = connect_fixture(&w, "Asks three", "--ask-many 3");
    let caller = w.clone();
    let call_id = id.clone();
    let call = std::thread::spawn(move || {
        let tool = json!({"name": "ask_many"});
        invoke(&caller, "tool_call", json!({"id": call_id, "tool": tool, "progress": "__CHANNEL__:9"}))
    });
    let asked = next_events(&events, 3);
    assert!(asked.iter().all(|e| e["event"] == "asked"), "{asked:?}");
    invoke(&w, "disconnect", json!({"id": id})).unwrap();
    let withdrawn = next_events(&events, 1).remove(0);
    assert_eq!(withdrawn["event"], "withdrawn");
    assert_eq!(withdrawn["reason"], "the connection ended");
    assert_eq!(withdrawn["qids"].as_array().unwrap().len(), 3);
    // The call ends with its server: failed, or answered if the fixture heard the questions
    // dismissed before its stdin closed.
    let _ = call.join().unwrap();
    let qid = asked[0]["question"]["qid"].clone();
    let late = invoke(
        &w,
        "server_request_answer",
        json!({"qid": qid, "result": {"action": "decline"}, "refusal": null}),
    );
    assert_eq!(late.unwrap_err()["code"], "not_found");
}

/// A real server from the peers `make peers` installs (under `$SONDE_PEERS`).
fn peer(relative: &str) -> PathBuf {
    let root = std::env::var_os("SONDE_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.cache/peers"));
    let path = root.join(relative);
    assert!(path.exists(), "{} is missing: run `make peers`", path.display());
    path
}

/// Saves a server with this command line and era, and connects it; returns the connection's id.
fn connect_command(w: &WebviewWindow<MockRuntime>, name: &str, command: String, era: &str) -> Value {
    let server = json!({"id": "", "name": name, "command": command, "env": [], "era": era});
    let all = invoke(w, "servers_save", json!({"server": server})).unwrap();
    let saved = all.as_array().unwrap().iter().find(|s| s["name"] == name).unwrap()["id"].clone();
    approve(w, &saved);
    invoke(w, "connect", json!({"serverId": saved})).unwrap()
}

#[test]
fn a_link_is_shown_as_the_core_reads_it_accepted_and_reported_done_and_roots_change_live() {
    let (app, w) = app("links");
    let events = follow_questions(&app);
    let python = peer("py/bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/peers/py_mcp_server.py");
    let id = connect_command(&w, "Python", format!("{} {script} stdio", python.display()), "legacy");
    let (caller, call_id) = (w.clone(), id.clone());
    let call = std::thread::spawn(move || {
        let args = json!({"url": "https://accounts.example.org/link"});
        let tool = json!({"name": "open_link"});
        invoke(
            &caller,
            "tool_call",
            json!({"id": call_id, "tool": tool, "args": args, "progress": "__CHANNEL__:9"}),
        )
    });
    let asked = &next_events(&events, 1)[0];
    assert_eq!(asked["event"], "asked", "{asked}");
    let link = &asked["question"]["link"];
    assert_eq!(link["elicitationId"], "py-link-1");
    assert_eq!(link["link"]["host"], "accounts.example.org");
    assert_eq!(link["link"]["opens"], "https://accounts.example.org/link");
    let qid = asked["question"]["qid"].clone();
    invoke(&w, "server_request_answer", json!({"qid": qid, "result": {"action": "accept"}, "refusal": null}))
        .unwrap();
    let outcome = call.join().unwrap().unwrap();
    assert_eq!(outcome["result"]["content"][0]["text"], "the client answered accept (elicitation py-link-1)");
    // The server's notifications/elicitation/complete reaches the window for the accepted link.
    let done = &next_events(&events, 1)[0];
    assert_eq!(*done, json!({"event": "link_completed", "conn": id, "elicitationId": "py-link-1"}));
    // Only http and https links are opened, by the core's rule.
    let refused = invoke(&w, "link_open", json!({"id": id, "url": "javascript:alert(1)"})).unwrap_err();
    assert_eq!(refused["code"], "bad_input");
    assert!(
        refused["message"].as_str().unwrap().starts_with("Sonde opens only http and https links"),
        "{refused}"
    );

    // Roots edited while connected: the server is told, and lists the new ones when it asks.
    assert_eq!(invoke(&w, "connection_roots", json!({"id": id})).unwrap(), json!([]));
    let told = invoke(&w, "connection_roots_set", json!({"id": id, "roots": ["/srv/one", " "]})).unwrap();
    assert_eq!(told, "notified");
    assert_eq!(invoke(&w, "connection_roots", json!({"id": id})).unwrap(), json!(["/srv/one"]));
    let listed = invoke(
        &w,
        "tool_call",
        json!({"id": id, "tool": {"name": "client_roots"}, "progress": "__CHANNEL__:10"}),
    )
    .unwrap();
    assert_eq!(listed["result"]["content"][0]["text"], "file:///srv/one");
    let bad = invoke(&w, "connection_roots_set", json!({"id": id, "roots": ["srv"]})).unwrap_err();
    assert_eq!(bad["code"], "bad_input");
    invoke(&w, "disconnect", json!({"id": id})).unwrap();

    // 2026-07-28: the link arrives in an input_required round; the same question answers it and
    // the core retries. It has no id, so no completion is awaited.
    let modern = connect_command(&w, "Python 2026", format!("{} {script} stdio", python.display()), "modern");
    let (caller, call_id) = (w.clone(), modern.clone());
    let call = std::thread::spawn(move || {
        let args = json!({"url": "https://accounts.example.org/modern"});
        let tool = json!({"name": "open_link"});
        invoke(
            &caller,
            "tool_call",
            json!({"id": call_id, "tool": tool, "args": args, "progress": "__CHANNEL__:11"}),
        )
    });
    let asked = &next_events(&events, 1)[0];
    assert_eq!(asked["question"]["link"]["elicitationId"], Value::Null, "{asked}");
    assert_eq!(asked["question"]["link"]["link"]["after"], "/modern");
    let qid = asked["question"]["qid"].clone();
    invoke(&w, "server_request_answer", json!({"qid": qid, "result": {"action": "accept"}, "refusal": null}))
        .unwrap();
    let outcome = call.join().unwrap().unwrap();
    assert_eq!(outcome["result"]["content"][0]["text"], "the client answered accept");
    invoke(&w, "disconnect", json!({"id": modern})).unwrap();
}

#[test]
fn a_call_refused_with_32042_carries_the_links_the_core_read() {
    let (_app, w) = app("links-32042");
    let everything = peer("npm/node_modules/.bin/mcp-server-everything");
    let id = connect_command(&w, "Everything", format!("{} stdio", everything.display()), "auto");
    let args = json!({"url": "https://pay.example.com/checkout", "errorPath": true});
    let tool = json!({"name": "trigger-url-elicitation"});
    let failed =
        invoke(&w, "tool_call", json!({"id": id, "tool": tool, "args": args, "progress": "__CHANNEL__:9"}))
            .unwrap_err();
    assert_eq!(failed["code"], "url_elicitation_required", "{failed}");
    let links = &failed["urlElicitations"];
    assert_eq!(links["problems"], json!([]));
    assert_eq!(links["elicitations"][0]["link"]["host"], "modelcontextprotocol.io");
    assert!(links["elicitations"][0]["elicitationId"].is_string(), "{links}");
    invoke(&w, "disconnect", json!({"id": id})).unwrap();
}

/// The code of a core error reaches the UI as the core gave it, never chosen from its words: a
/// snapshot file that is missing is `io`, one that holds no snapshot `bad_input`, and a bad
/// filter `bad_input` with the core's own words.
#[test]
fn a_missing_snapshot_is_io_and_a_file_that_is_no_snapshot_or_a_bad_filter_bad_input() {
    let (_app, w) = app("coded");
    let dir = std::env::temp_dir().join(format!("sonde-ipc-coded-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("gone.snapshot.json").display().to_string();
    let compare = |path: &str| {
        let side = json!({"kind": "file", "path": path});
        invoke(&w, "interface_diff", json!({"from": side, "to": side})).unwrap_err()
    };
    let err = compare(&missing);
    assert_eq!(err["code"], "io", "{err}");
    assert!(err["message"].as_str().unwrap().starts_with(&format!("{missing} is cannot read it: ")), "{err}");
    let other = dir.join("other.json");
    std::fs::write(&other, "{\"seq\": 1}").unwrap();
    let other = other.display().to_string();
    let err = compare(&other);
    assert_eq!(err["code"], "bad_input", "{err}");
    assert_eq!(
        err["message"],
        format!("{other} is not a snapshot (no sondeSnapshot format version); make one with sonde snapshot")
    );
    let err =
        invoke(&w, "log_page", json!({"from": 0, "to": 10, "filter": "conn:x", "limit": 10})).unwrap_err();
    assert_eq!((&err["code"], &err["message"]), (&json!("bad_input"), &json!("conn:x is not a number")));
    std::fs::remove_dir_all(&dir).unwrap();
}
