//! The commands through Tauri's IPC with a mock runtime: no window, real servers.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sonde_core::hub::Hub;
use sonde_core::log::WireLog;
use sonde_core::servers::ServerStore;
use sonde_desktop::state::AppState;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{WebviewWindow, WebviewWindowBuilder};

fn sonde_cli() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = std::process::Command::new(env!("CARGO"))
        .args(["build", "--quiet", "-p", "sonde-cli"])
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(status.success());
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    target.join("debug/sonde")
}

fn fixture() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = std::process::Command::new(env!("CARGO"))
        .args(["build", "--quiet", "-p", "sonde-fixture"])
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(status.success());
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    target.join("debug/sonde-fixture")
}

fn app(name: &str) -> (tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let dir = std::env::temp_dir().join(format!("sonde-ipc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    app_in(&dir, &dir.join("sessions"))
}

/// An app whose own session is written in `sessions`, with its saved servers in `dir`.
fn app_in(dir: &Path, sessions: &Path) -> (tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let hub = Hub::new(WireLog::create_in(sessions).unwrap());
    let demo = format!("{} demo-server", sonde_cli().display());
    let state = AppState::with_demo_command(hub, ServerStore::at(dir.join("servers.json")), demo).unwrap();
    let app = sonde_desktop::configure(mock_builder(), state).build(mock_context(noop_assets())).unwrap();
    let window = WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
    (app, window)
}

fn invoke(window: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(window, request).map(|b| b.deserialize::<Value>().unwrap())
}

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
}

#[test]
fn a_failed_opening_carries_its_last_words_and_the_withheld_variable_is_added_by_name() {
    let (_app, w) = app("last-words");
    // In this test's own environment (nextest runs each test in a process of its own), as a
    // user's shell would have it; the minimal environment withholds it from the server.
    std::env::set_var("SONDE_IPC_TEST_KEY", "ipc-secret-value");
    let script = r#"echo "Error: SONDE_IPC_TEST_KEY is not set" >&2; exit 1"#;
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
    state.questions.show_on(tauri::ipc::Channel::new(move |body| {
        asked_tx.send(body.deserialize::<Value>().unwrap()).unwrap();
        Ok(())
    }));
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

/// Saves a fixture server with `knobs` and connects it; returns the connection's id.
fn connect_fixture(w: &WebviewWindow<MockRuntime>, name: &str, knobs: &str) -> Value {
    let command = format!("{} {knobs}", fixture().display());
    let server = json!({"id": "", "name": name, "command": command, "env": [], "era": "legacy"});
    let all = invoke(w, "servers_save", json!({"server": server})).unwrap();
    let saved = all.as_array().unwrap().iter().find(|s| s["name"] == name).unwrap()["id"].clone();
    approve(w, &saved);
    invoke(w, "connect", json!({"serverId": saved})).unwrap()
}

/// Approves the saved server's launch as the person does in the native dialog (which the mock
/// runtime cannot show; the real window's checks answer it).
fn approve(w: &WebviewWindow<MockRuntime>, id: &Value) {
    let state = tauri::Manager::state::<AppState>(w);
    let server = state.servers.get(id.as_str().unwrap()).unwrap();
    state.launches.approve(&server).unwrap();
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

/// The window's question channel, as `server_requests_follow` registers it: each event as JSON.
fn follow_questions(app: &tauri::App<MockRuntime>) -> std::sync::mpsc::Receiver<Value> {
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    let state = tauri::Manager::state::<AppState>(app);
    state.questions.show_on(tauri::ipc::Channel::new(move |body| {
        let _ = tx.send(body.deserialize::<Value>().unwrap());
        Ok(())
    }));
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

#[test]
fn the_core_reads_a_filter_into_chips_or_an_error() {
    let (_app, w) = app("filter");
    let view = invoke(&w, "log_filter", json!({"filter": "method:tools/list dir:< Error"})).unwrap();
    assert_eq!(
        view,
        json!({"chips": [
            {"key": "dir", "value": "in", "without": "method:tools/list Error"},
            {"key": "method", "value": "tools/list", "without": "dir:< Error"},
            {"key": "text", "value": "error", "without": "method:tools/list dir:<"},
        ], "error": null})
    );
    let bad = invoke(&w, "log_filter", json!({"filter": "kind:nope"})).unwrap();
    assert_eq!(bad["chips"], json!([]));
    assert!(bad["error"].as_str().unwrap().starts_with("unknown kind \"nope\""), "{bad}");
}

/// A data directory for the `sonde` CLI (`XDG_DATA_HOME`) and an app whose own session is
/// written where the CLI writes its sessions, as on a person's machine.
fn app_beside_the_cli(name: &str) -> (PathBuf, tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let dir = std::env::temp_dir().join(format!("sonde-ipc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = dir.join("data");
    let (app, w) = app_in(&dir, &data.join("sonde/sessions"));
    (data, app, w)
}

fn cli_with_demo(data: &Path, args: &[&str]) -> std::process::Command {
    let cli = sonde_cli();
    let mut command = std::process::Command::new(&cli);
    command.env("XDG_DATA_HOME", data).args(args).arg("--").arg(&cli).arg("demo-server");
    command
}

#[test]
fn a_past_cli_session_is_listed_opened_filtered_exported_and_closed() {
    let (data, _app, w) = app_beside_the_cli("past");
    let out = cli_with_demo(&data, &["tools", "list"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");

    let list = invoke(&w, "sessions_list", json!({})).unwrap();
    let all = list.as_array().unwrap();
    assert_eq!(all.len(), 2, "{list}");
    let own = all.iter().find(|s| s["current"] == true).expect("the window's own session");
    assert_eq!(own["writing"], true, "{own}");
    let past = all.iter().find(|s| s["current"] == false).expect("the CLI's session");
    assert_eq!((&past["program"], &past["writing"]), (&json!("sonde"), &json!(false)), "{past}");
    let servers = past["servers"].as_array().unwrap();
    assert!(servers.len() == 1 && servers[0].as_str().unwrap().ends_with(" demo-server"), "{past}");
    assert!(past["size"].as_u64().unwrap() > 0 && past["started"].as_str().unwrap().ends_with('Z'), "{past}");

    let opened = invoke(&w, "session_open", json!({"name": past["name"]})).unwrap();
    assert_eq!(opened["session"]["name"], past["name"]);
    let id = opened["id"].clone();
    let filter = "method:tools/list";
    let count =
        invoke(&w, "log_count_matches", json!({"session": id, "filter": filter, "to": 1_000_000})).unwrap();
    assert_eq!(count["count"], 2, "the request and its reply: {count}");
    let matches =
        invoke(&w, "log_match_page", json!({"session": id, "filter": filter, "from": 1, "limit": 10}))
            .unwrap();
    let reply = &matches.as_array().unwrap()[..];
    assert!(
        reply.len() == 1 && reply[0]["dir"] == "in" && reply[0]["summary"]["type"] == "result",
        "{matches}"
    );
    let page = invoke(&w, "log_page", json!({"session": id, "from": 0, "to": 1, "filter": "", "limit": 10}))
        .unwrap();
    assert_eq!(page["entries"][0]["lifecycle"]["event"], "spawned", "{page}");
    let own_count =
        invoke(&w, "log_count_matches", json!({"session": null, "filter": filter, "to": 1_000_000})).unwrap();
    assert_eq!(own_count["count"], 0, "the window's own session is another log");

    // Export asks where natively; with no window to ask in, nothing is written and it says so.
    let nothing = invoke(&w, "log_export", json!({"session": id, "filter": filter})).unwrap();
    assert_eq!(nothing, Value::Null);

    invoke(&w, "session_close", json!({"id": id})).unwrap();
    let err = invoke(&w, "log_page", json!({"session": id, "from": 0, "to": 1, "filter": "", "limit": 1}))
        .unwrap_err();
    assert_eq!(err["code"], "not_found", "{err}");
    let err = invoke(&w, "session_open", json!({"name": "../servers.json"})).unwrap_err();
    assert_eq!(err["code"], "bad_input", "{err}");
}

#[test]
fn a_session_the_cli_is_still_writing_is_followed_live_to_its_end() {
    let (data, app, w) = app_beside_the_cli("live");
    let mut cli = cli_with_demo(&data, &["call", "slow", "--args", r#"{"seconds": 3, "steps": 6}"#])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let past = loop {
        let list = invoke(&w, "sessions_list", json!({})).unwrap();
        if let Some(s) = list.as_array().unwrap().iter().find(|s| s["current"] == false) {
            break s.clone();
        }
        assert!(Instant::now() < deadline, "the CLI's session never appeared: {list}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(past["writing"], true, "listed while the CLI runs: {past}");
    let opened = invoke(&w, "session_open", json!({"name": past["name"]})).unwrap();
    assert_eq!(opened["session"]["writing"], true);

    // The window's channel, as the log view hands it to `log_follow`.
    let (tx, batches) = std::sync::mpsc::channel::<Value>();
    let channel = tauri::ipc::Channel::new(move |body| {
        tx.send(body.deserialize::<Value>().unwrap()).unwrap();
        Ok(())
    });
    let id = opened["id"].as_u64().unwrap();
    let state = tauri::Manager::state::<AppState>(&app);
    let existing = sonde_desktop::commands::log_follow(state, Some(id), channel).unwrap();
    let mut streamed = Vec::new();
    loop {
        let batch =
            batches.recv_timeout(Duration::from_secs(30)).expect("a batch, the last one saying it ended");
        streamed.extend(batch["entries"].as_array().unwrap().iter().cloned());
        if batch["ended"] == true {
            break;
        }
    }
    assert!(cli.wait().unwrap().success());
    let progress = streamed.iter().filter(|e| e["summary"]["method"] == "notifications/progress").count();
    assert_eq!(progress, 6, "every progress notification arrived as the CLI wrote it");
    // In order and none missed, from where the entries already indexed ended (an entry indexed
    // as the follow began may come both ways).
    let seqs: Vec<u64> = streamed.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs[0] <= existing, "{seqs:?} after {existing}");
    assert_eq!(seqs, (seqs[0]..seqs[0] + seqs.len() as u64).collect::<Vec<_>>());
    let all = invoke(
        &w,
        "log_page",
        json!({"session": id, "from": 0, "to": 1_000_000, "filter": "", "limit": 5000}),
    )
    .unwrap();
    let last = all["entries"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(streamed.last(), Some(&last), "the stream went on to the CLI's last entry");
    let list = invoke(&w, "sessions_list", json!({})).unwrap();
    let done = list.as_array().unwrap().iter().find(|s| s["name"] == past["name"]).unwrap().clone();
    assert_eq!(done["writing"], false, "{done}");
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

#[test]
fn a_huge_frame_reaches_the_window_as_a_preview_and_whole_on_demand() {
    let (app, w) = app("preview");
    let (tx, batches) = std::sync::mpsc::channel::<Value>();
    let channel = tauri::ipc::Channel::new(move |body| {
        let _ = tx.send(body.deserialize::<Value>().unwrap());
        Ok(())
    });
    let state = tauri::Manager::state::<AppState>(&app);
    sonde_desktop::commands::log_follow(state, None, channel).unwrap();
    let id = connect_fixture(&w, "Huge reply", "--big-mib 1");
    let tool = json!({"name": "echo"});
    let outcome =
        invoke(&w, "tool_call", json!({"id": id, "tool": tool, "args": {}, "progress": "__CHANNEL__:9"}));
    assert!(outcome.is_ok(), "{outcome:?}");

    // The reply as the window's stream carried it: the first 64 KiB, and the whole size.
    let deadline = Instant::now() + Duration::from_secs(20);
    let streamed = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let batch = batches.recv_timeout(left).expect("the reply is streamed within 20 s");
        let reply = batch["entries"].as_array().unwrap().iter().find(|e| {
            e["summary"]["type"] == "result" && e["text"].as_str().is_some_and(|t| t.contains("xxxx"))
        });
        if let Some(reply) = reply {
            break reply.clone();
        }
    };
    let whole_size = streamed["whole_size"].as_u64().expect("a preview says the whole size");
    assert!(whole_size > 1 << 20, "{whole_size}");
    assert_eq!(streamed["text"].as_str().unwrap().len(), sonde_core::log::PREVIEW_BYTES);
    assert_eq!(streamed["summary"]["method"], "tools/call", "the summary is the whole frame's");

    // A page carries the same preview; `log_entry` reads the entry whole.
    let seq = streamed["seq"].as_u64().unwrap();
    let page = invoke(&w, "log_page", json!({"from": seq, "to": seq + 1, "filter": "", "limit": 1})).unwrap();
    assert_eq!(page["entries"][0], streamed);
    let whole = invoke(&w, "log_entry", json!({"seq": seq})).unwrap();
    assert_eq!(whole["text"].as_str().unwrap().len() as u64, whole_size);
    assert!(whole.get("whole_size").is_none(), "the whole entry is no preview");
    assert!(whole["text"].as_str().unwrap().starts_with(streamed["text"].as_str().unwrap()));
    let missing = invoke(&w, "log_entry", json!({"seq": 1_000_000})).unwrap_err();
    assert_eq!(missing["code"], "not_found", "{missing}");
    invoke(&w, "disconnect", json!({"id": id})).unwrap();
}
