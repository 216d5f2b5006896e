//! The log and session commands through Tauri's IPC with a mock runtime: filters read by the
//! core, past sessions (finished or still being written), and what the window is streamed.

mod support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sonde_desktop::state::AppState;
use support::*;

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
    let nothing =
        invoke(&w, "log_export", json!({"session": id, "filter": filter, "format": "jsonl"})).unwrap();
    assert_eq!(nothing, Value::Null);
    // HAR of a stdio session is refused before anything is asked.
    let har = invoke(&w, "log_export", json!({"session": id, "filter": "", "format": "har"})).unwrap_err();
    assert_eq!(har["code"], "bad_input", "{har}");
    assert!(har["message"].as_str().unwrap().contains("spoke stdio"), "{har}");

    // The selection placed in a filtered list: the reply is the filter's second match; the
    // first entry (spawned) is not one of them.
    let at = |seq: &Value| {
        invoke(&w, "log_match_position", json!({"session": id, "filter": filter, "seq": seq})).unwrap()
    };
    assert_eq!(at(&reply[0]["seq"]), json!(1));
    assert_eq!(at(&json!(0)), Value::Null);

    // The timeline of the past session: its one connection's requests, the filter's only.
    let query = json!({"from": 0, "to": 1_000_000, "columns": 500});
    let view = invoke(&w, "timeline_view", json!({"session": id, "filter": filter, "query": query})).unwrap();
    let spans = view["lanes"][0]["spans"].as_array().unwrap();
    assert!(
        spans.len() == 1 && spans[0]["method"] == "tools/list" && spans[0]["outcome"] == "result",
        "{view}"
    );
    let latency = invoke(&w, "timeline_latency", json!({"session": id, "filter": ""})).unwrap();
    let methods: Vec<&str> =
        latency["rows"].as_array().unwrap().iter().map(|r| r["method"].as_str().unwrap()).collect();
    assert!(methods == ["server/discover", "tools/list"], "{latency}");
    let detail =
        invoke(&w, "timeline_span", json!({"session": id, "filter": "", "seq": spans[0]["seq"]})).unwrap();
    assert_eq!(detail["outcome_word"], "result", "{detail}");
    assert!(detail["reply_bytes"].as_u64().unwrap() > 0, "{detail}");
    let bad = invoke(&w, "timeline_view", json!({"session": id, "filter": "kind:nope", "query": query}))
        .unwrap_err();
    assert_eq!(bad["code"], "bad_input", "{bad}");

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
    let (mut streamed, mut rows) = (Vec::new(), Vec::new());
    loop {
        let batch =
            batches.recv_timeout(Duration::from_secs(30)).expect("a batch, the last one saying it ended");
        streamed.extend(batch["entries"].as_array().unwrap().iter().cloned());
        rows.extend(
            batch["rows"].as_array().unwrap().iter().map(|r| r.as_u64().expect("every entry has a row")),
        );
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
    assert!(seqs[0] <= existing.entries, "{seqs:?} after {existing:?}");
    assert_eq!(seqs, (seqs[0]..seqs[0] + seqs.len() as u64).collect::<Vec<_>>());
    // Without a gap, an entry's row is its seq.
    assert_eq!(rows, seqs);
    let all = invoke(
        &w,
        "log_page",
        json!({"session": id, "from": 0, "to": 1_000_000, "filter": "", "limit": 5000}),
    )
    .unwrap();
    let last = all["entries"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(streamed.last(), Some(&last), "the stream went on to the CLI's last entry");
    let by_row = invoke(&w, "log_rows", json!({"session": id, "from": 0, "limit": 5000})).unwrap();
    assert_eq!(by_row, all["entries"], "by row, the same entries as by seq");
    let length = invoke(&w, "log_length", json!({"session": id})).unwrap();
    assert_eq!(
        length,
        json!({"entries": last["seq"].as_u64().unwrap() + 1, "rows": last["seq"].as_u64().unwrap() + 1})
    );
    let list = invoke(&w, "sessions_list", json!({})).unwrap();
    let done = list.as_array().unwrap().iter().find(|s| s["name"] == past["name"]).unwrap().clone();
    assert_eq!(done["writing"], false, "{done}");
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
    assert_eq!(streamed["text"].as_str().unwrap().len(), sonde_core::PREVIEW_BYTES);
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
