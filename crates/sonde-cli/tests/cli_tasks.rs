//! `sonde call` on a tool that runs as a task prints the task's result like a plain call's, with
//! the task's status changes on stderr; `sonde tasks` in each era.

mod support;

use std::path::Path;

use support::*;

fn python_server() -> Vec<String> {
    let python = peer("py/bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers/py_mcp_server.py");
    vec![python.to_string_lossy().into(), script.to_string_lossy().into(), "stdio".into()]
}

#[test]
fn call_follows_a_server_everything_task_to_its_report() {
    let home = data_home("task-everything");
    let everything = peer("npm/node_modules/.bin/mcp-server-everything");
    let out = sonde(
        &home,
        &["call", "simulate-research-query", "topic=tides", "--", everything.to_str().unwrap(), "stdio"],
    );
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("# Research Report: tides"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("sonde: simulate-research-query runs as task "), "{stderr}");
    // Each stage is a status message of its own, then the end.
    for said in ["  working  Gathering sources...", "  working  Generating report...", "  completed"] {
        assert!(
            stderr.lines().any(|l| l.starts_with("sonde: task ") && l.contains(said)),
            "{said}: {stderr}"
        );
    }
}

#[test]
fn call_answers_a_2026_07_28_tasks_question_and_prints_its_result_as_json() {
    let home = data_home("task-python");
    let mut args = vec![
        "call",
        "research",
        "topic=python",
        "ambiguous=true",
        "--json",
        "--era",
        "modern",
        "--elicit",
        r#"accept:{"interpretation":"historical"}"#,
        "--",
    ];
    let server = python_server();
    args.extend(server.iter().map(String::as_str));
    let out = sonde(&home, &args);
    // The Python SDK declares an outputSchema for `research` (`{"result": string}`) and leaves
    // structuredContent out of the task's result: a protocol break in the answer, exit 4.
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("outputSchema but the result has no structuredContent")
    );
    assert_eq!(stdout_json(&out)["content"][0]["text"], "Report on python (historical)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("input_required"), "{stderr}");

    // A failed task is a failed call: exit 1, the error on stderr, nothing on stdout.
    let mut failing = vec!["call", "research", "topic=atlantis", "fail=true", "--era", "modern", "--"];
    failing.extend(server.iter().map(String::as_str));
    let out = sonde(&home, &failing);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(": the task failed: sources unreachable (code -32603)"), "{stderr}");
}

#[test]
fn tasks_list_says_why_the_2026_07_28_extension_has_none_and_get_names_an_unknown_task() {
    let home = data_home("tasks-list");
    let server = python_server();
    let mut list = vec!["tasks", "list", "--era", "modern", "--"];
    list.extend(server.iter().map(String::as_str));
    let out = sonde(&home, &list);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("the 2026-07-28 tasks extension has no tasks/list"));
    let mut get = vec!["tasks", "get", "no-such-task", "--era", "modern", "--"];
    get.extend(server.iter().map(String::as_str));
    let out = sonde(&home, &get);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("Task not found"), "{out:?}");

    // server-everything lists its tasks (none yet on a new connection).
    let everything = peer("npm/node_modules/.bin/mcp-server-everything");
    let out = sonde(&home, &["tasks", "list", "--json", "--", everything.to_str().unwrap(), "stdio"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stdout_json(&out)["tasks"], serde_json::json!([]));
}
