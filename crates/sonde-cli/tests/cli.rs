//! The `sonde` command as scripts use it: exit codes, JSON on stdout, the session log path on
//! stderr, `sonde log`, and no server left behind when `sonde` itself is SIGKILLed.

mod support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use sonde_core::live_members;
use support::*;

#[test]
fn tools_list_json_prints_every_tool_and_the_session_log_path() {
    let home = data_home("list");
    let out = with_demo(&home, &["tools", "list", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let names: Vec<String> = stdout_json(&out)["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["echo", "add", "slow", "greet", "image", "touch"]);
    let path = session_path(&out.stderr);
    assert!(path.starts_with(home.join("sonde/sessions")), "{path:?}");
    assert!(path.exists());
}

#[test]
fn call_exit_codes_follow_the_contract() {
    let home = data_home("codes");
    let ok = with_demo(&home, &["call", "add", "--args", r#"{"a":2,"b":40}"#, "--json"]);
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
    assert_eq!(stdout_json(&ok)["structuredContent"]["sum"], 42.0);

    let tool_error = with_demo(&home, &["call", "echo", "--args", "{}", "--json"]);
    assert_eq!(tool_error.status.code(), Some(3), "{tool_error:?}");
    assert_eq!(stdout_json(&tool_error)["isError"], true);

    // A tool the server does not list is not called (usage), unless --unlisted: then the
    // server's JSON-RPC error answers it (1).
    let unlisted = with_demo(&home, &["call", "no-such-tool"]);
    assert_eq!(unlisted.status.code(), Some(2));
    let rpc_error = with_demo(&home, &["call", "no-such-tool", "--unlisted"]);
    assert_eq!(rpc_error.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&rpc_error.stderr).contains("Unknown tool: no-such-tool (code -32602)"));

    let usage = with_demo(&home, &["call", "echo", "--args", "not json"]);
    assert_eq!(usage.status.code(), Some(2));
    let no_command = sonde(&home, &["call", "echo"]);
    assert_eq!(no_command.status.code(), Some(2));

    let missing = sonde(&home, &["tools", "list", "--", "/nonexistent/server"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("could not start /nonexistent/server"));
}

#[test]
fn info_json_says_how_the_version_was_decided_in_each_era() {
    let home = data_home("info");
    let out = with_demo(&home, &["info", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let info = stdout_json(&out);
    assert_eq!(info["protocolVersion"], "2026-07-28");
    assert_eq!(info["decidedBy"], "server/discover");
    assert_eq!(info["serverInfo"]["name"], "sonde-demo");
    assert!(info["capabilities"]["tools"].is_object());

    let again = stdout_json(&with_demo(&home, &["info", "--json"]));
    assert_eq!(again["decidedBy"], "cached verdict; server/discover");

    let legacy = stdout_json(&with_demo(&home, &["info", "--json", "--era", "legacy"]));
    assert_eq!(legacy["protocolVersion"], "2025-11-25");
    assert_eq!(legacy["decidedBy"], "--era legacy; initialize");

    // The same tools answer in both eras.
    for era in ["modern", "legacy"] {
        let sum = with_demo(&home, &["call", "add", "--args", r#"{"a":1,"b":2}"#, "--json", "--era", era]);
        assert_eq!(stdout_json(&sum)["structuredContent"]["sum"], 3.0, "{era}");
    }
}

#[test]
fn log_prints_the_last_session_as_json_lines_and_filters_it() {
    let home = data_home("log");
    let call = with_demo(&home, &["call", "echo", "--args", r#"{"text":"hi"}"#]);
    assert!(call.status.success(), "{call:?}");
    let out = sonde(&home, &["log", "--json", "--session", "last"]);
    assert!(out.status.success(), "{out:?}");
    let entries: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(entries.iter().any(|e| e["summary"]["method"] == "tools/call" && e["dir"] == "out"));
    for (i, e) in entries.iter().enumerate() {
        assert_eq!(e["seq"], i as u64);
    }
    let path = session_path(&call.stderr);
    let lifecycle = sonde(&home, &["log", "--session", path.to_str().unwrap(), "--filter", "kind:lifecycle"]);
    let text = String::from_utf8_lossy(&lifecycle.stdout);
    assert!(text.contains("closed stdin") && text.contains("shutdown complete"), "{text}");
    let bad = sonde(&home, &["log", "--filter", "kind:nonsense"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn sonde_killed_mid_session_leaves_no_server_process_alive() {
    let home = data_home("sigkill");
    let fixture = fixture_bin();
    let mut child = Command::new(SONDE)
        .args(["call", "echo", "--"])
        .arg(&fixture)
        .args(["--grandchild", "--never-answer", "--ignore-sigterm", "--stay-on-eof"])
        .env("XDG_DATA_HOME", &home)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    let path = session_path(first.as_bytes());
    let pgid = wait_for(Duration::from_secs(10), || {
        let log = std::fs::read_to_string(&path).ok()?;
        let spawned: Value = serde_json::from_str(log.lines().find(|l| l.contains("\"spawned\""))?).ok()?;
        let pgid = spawned["lifecycle"]["pid"].as_i64()? as i32;
        (live_members(pgid).len() >= 2).then_some(pgid)
    })
    .expect("the server and its grandchild started");
    let members = live_members(pgid);
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
    let gone = wait_for(Duration::from_secs(2), || live_members(pgid).is_empty().then_some(()));
    assert!(
        gone.is_some(),
        "still alive 2 s after sonde was killed: {:?} of {members:?}",
        live_members(pgid)
    );
}

/// A dual-era server that reads nothing for 1.5 s, against a 300 ms probe deadline: it reads
/// the probe first, so its answer decides, the user is told it is starting meanwhile, and the
/// verdict (an answer, not a deadline) is cached.
#[test]
fn info_on_a_slow_starter_keeps_the_era_of_its_first_answer() {
    let home = data_home("slow");
    let fixture = fixture_bin();
    let args = [
        "info",
        "--json",
        "--probe-timeout",
        "300",
        "--",
        fixture.to_str().unwrap(),
        "--dual-era",
        "--start-delay-ms",
        "1500",
    ];
    let out = sonde(&home, &args);
    assert!(out.status.success(), "{out:?}");
    let info = stdout_json(&out);
    assert_eq!(info["protocolVersion"], "2026-07-28");
    assert_eq!(info["decidedBy"], "server/discover answered after the 300 ms probe deadline");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("sonde: starting: no output yet, 1 s"), "{stderr}");
    let notes = sonde(&home, &["log", "--filter", "kind:note"]);
    let text = String::from_utf8_lossy(&notes.stdout);
    assert!(
        text.contains("protocol 2026-07-28 (server/discover answered after the 300 ms probe deadline)"),
        "{text}"
    );

    let again = stdout_json(&sonde(&home, &args));
    assert_eq!(again["decidedBy"], "cached verdict; server/discover");
}

#[test]
fn listen_prints_changes_until_the_server_ends_the_subscription_either_way() {
    let home = data_home("listen");
    let fixture = fixture_bin();
    for (end, said) in
        [("complete", "the server ended the subscription"), ("cancel", "the server cancelled it")]
    {
        let out = sonde(
            &home,
            &[
                "listen",
                "--tools",
                "--json",
                "--",
                fixture.to_str().unwrap(),
                "--dual-era",
                "--listen-end",
                end,
            ],
        );
        assert!(out.status.success(), "{out:?}");
        let change: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(change["method"], "notifications/tools/list_changed");
        assert_eq!(change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 2);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("acknowledged: {\"toolsListChanged\":true") && stderr.contains(said),
            "{stderr}"
        );
    }
}

#[test]
fn every_mcp_command_works_against_the_python_sdk_server_in_both_eras() {
    let home = data_home("python");
    let python = peer("py/bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers/py_mcp_server.py");
    let server = [python.to_str().unwrap(), script.to_str().unwrap(), "stdio"];
    for era in ["modern", "legacy"] {
        let run = |args: &[&str]| -> Value {
            let mut all = args.to_vec();
            all.extend(["--json", "--era", era, "--"]);
            all.extend(server);
            let out = sonde(&home, &all);
            assert!(out.status.success(), "{args:?} in {era}: {out:?}");
            stdout_json(&out)
        };
        assert_eq!(
            run(&["info"])["protocolVersion"],
            if era == "modern" { "2026-07-28" } else { "2025-11-25" }
        );
        assert_eq!(run(&["tools", "list"])["tools"][0]["name"], "add");
        assert_eq!(run(&["call", "add", "--args", r#"{"a":1,"b":2}"#])["content"][0]["text"], "3.0");
        assert_eq!(run(&["resources", "list"])["resources"][0]["uri"], "peers://hello");
        assert!(run(&["resources", "templates"])["resourceTemplates"].is_array());
        assert_eq!(
            run(&["resources", "read", "peers://hello"])["contents"][0]["text"],
            "hello from python mcp"
        );
        assert_eq!(run(&["prompts", "list"])["prompts"][0]["name"], "greet");
        let prompt = run(&["prompts", "get", "greet", "--args", r#"{"name":"Ada"}"#]);
        assert_eq!(prompt["messages"][0]["content"]["text"], "Say hi to Ada");
    }
}

#[test]
fn complete_asks_server_everything_for_argument_values() {
    let home = data_home("complete");
    let everything = peer("npm/node_modules/.bin/mcp-server-everything");
    let out = sonde(
        &home,
        &[
            "complete",
            "--prompt",
            "completable-prompt",
            "--argument",
            "department",
            "--value",
            "E",
            "--json",
            "--",
            everything.to_str().unwrap(),
            "stdio",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stdout_json(&out)["completion"]["values"], serde_json::json!(["Engineering"]));
}
