//! `sonde replay` (issue 35, item 1): a session recorded on one build of a fixture replays the
//! same on that build (exit 0), and on a later build whose answer changed names the path with
//! both values (exit 5); cursors the server gave are carried, not reported; a session the
//! Python SDK client made through `sonde proxy` replays against its real server.

mod support;

use std::process::Command;

use serde_json::Value;

use support::*;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_session_replays_the_same_on_its_build_and_names_what_moved_on_the_next() {
    let home = data_home("replay-versions");
    let fixture = fixture_bin();
    let fixture = fixture.to_str().unwrap();
    let v1 = [fixture, "--tools", "5", "--page-size", "2", "--cursor-prefix", "v1-"];
    let v2 = [fixture, "--tools", "5", "--page-size", "2", "--cursor-prefix", "v2-", "--echo-prefix", "Hi "];
    // One session of the first build: a paged listing, then a call.
    let mut args = vec!["shell", "--"];
    args.extend(v1);
    let mut shell = Command::new(SONDE);
    shell.args(&args);
    let recorded = with_stdin(&mut shell, &home, b"tools\ncall echo text=Ann\n");
    assert!(recorded.status.success(), "{recorded:?}");
    let session = session_path(&recorded.stderr);
    let session = session.to_str().unwrap();

    let replay = |server: &[&str], extra: &[&str]| {
        let mut args = vec!["replay", session];
        args.extend(extra);
        args.push("--");
        args.extend(server);
        sonde(&home, &args)
    };
    let same = replay(&v1, &[]);
    assert_eq!(same.status.code(), Some(0), "{same:?}");
    let lines: Vec<String> = text(&same.stdout).lines().map(str::to_owned).collect();
    // The shell lists the tools as it opens (for its completion), then `tools` does: two runs
    // of three pages, each judged whole at its last page, and the call.
    assert_eq!(lines.len(), 7, "{lines:?}");
    let verdicts: Vec<&str> = lines.iter().map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(verdicts, ["page", "page", "same", "page", "page", "same", "same"], "{lines:?}");
    assert!(lines[6].starts_with("same     tools/call echo (seq "), "{lines:?}");

    // The next build: other cursors (carried, not reported) and another answer (reported).
    let moved = replay(&v2, &[]);
    assert_eq!(moved.status.code(), Some(5), "{moved:?}");
    let out = text(&moved.stdout);
    assert!(out.contains("differs  tools/call echo (seq "), "{out}");
    assert!(out.contains("         result.content[0].text: \"Ann\" → \"Hi Ann\""), "{out}");
    assert_eq!(out.matches("same     tools/list").count(), 2, "the pages followed the new cursors: {out}");
    assert_eq!(out.matches("page     tools/list").count(), 4, "{out}");
    let said = text(&moved.stderr);
    assert!(said.contains("4 tokens the server gave (cursors, task ids) differed"), "{said}");
    assert!(
        said.contains("sonde replay: 7 requests, 2 same, 1 differs, 4 pages judged with their listing"),
        "{said}"
    );

    // A path named with --ignore is expected to differ, and said once.
    let ignored = replay(&v2, &["--ignore", "result.content[*].text", "--json"]);
    assert_eq!(ignored.status.code(), Some(0), "{ignored:?}");
    let replayed = stdout_json(&ignored)["replayed"].as_array().cloned().unwrap();
    assert_eq!(replayed[6]["ignored"], serde_json::json!(["result.content[0].text"]));
    assert!(text(&ignored.stderr).contains("sonde replay: ignored result.content[0].text (once, a rule)"));

    // Anything but a session is a usage error naming what was expected.
    let other = sonde(&home, &["replay", "/etc/passwd", "--", fixture]);
    assert_eq!(other.status.code(), Some(2), "{other:?}");
    assert!(
        text(&other.stderr).contains("/etc/passwd is not a session file; a session to replay was expected")
    );
}

#[test]
fn a_session_the_python_sdk_client_made_through_the_proxy_replays_against_its_server() {
    let home = data_home("replay-proxy-python");
    let python = peer("py/bin/python");
    let python = python.to_str().unwrap();
    let client = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/py_client.py");
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/py_mcp_server.py");
    let data = format!("XDG_DATA_HOME={}", home.display());
    for mode in ["legacy", "auto"] {
        let out = Command::new(python)
            .args([
                client,
                mode,
                "add",
                r#"{"a":2,"b":3}"#,
                "--",
                "env",
                &data,
                SONDE,
                "proxy",
                "--",
                python,
                server,
                "stdio",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let replay = sonde(&home, &["replay", "last", "--", python, server, "stdio"]);
        assert_eq!(replay.status.code(), Some(0), "{mode}: {replay:?}");
        assert!(text(&replay.stdout).contains("same     tools/call add (seq "), "{mode}: {replay:?}");
        // The replay presents itself as the recorded client did.
        let frames: Vec<Value> = std::fs::read_to_string(session_path(&replay.stderr))
            .unwrap()
            .lines()
            .filter_map(|l| sonde_core::Entry::from_line(l.as_bytes()).ok())
            .filter(|e| e.dir == sonde_core::Direction::Out)
            .filter_map(|e| e.text.and_then(|t| serde_json::from_str(&t).ok()))
            .collect();
        let named = |f: &Value| {
            [
                f.pointer("/params/clientInfo/name"),
                f.pointer("/params/_meta/io.modelcontextprotocol~1clientInfo/name"),
            ]
            .into_iter()
            .flatten()
            .next()
            .cloned()
        };
        let names: Vec<Value> = frames.iter().filter_map(named).collect();
        assert!(!names.is_empty() && names.iter().all(|n| n == "mcp"), "{mode}: {names:?}");
    }
}

#[test]
fn the_servers_own_questions_are_answered_as_the_recorded_client_answered_them_in_each_era() {
    let home = data_home("replay-answers");
    for era in ["auto", "legacy"] {
        // The demo's greet asks who you are: answered once, when recording.
        let recorded = sonde(
            &home,
            &[
                "call",
                "greet",
                "--era",
                era,
                "--elicit",
                r#"accept:{"name":"Ann"}"#,
                "--",
                SONDE,
                "demo-server",
            ],
        );
        assert!(text(&recorded.stdout).contains("Hello, Ann!"), "{era}: {recorded:?}");
        // Replayed with no answer given: the recorded one is given again.
        let replay = sonde(&home, &["replay", "last", "--era", era, "--", SONDE, "demo-server"]);
        assert_eq!(replay.status.code(), Some(0), "{era}: {replay:?}");
        assert!(text(&replay.stdout).contains("same     tools/call greet (seq "), "{era}: {replay:?}");
    }
}
