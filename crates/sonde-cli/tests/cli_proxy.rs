//! `sonde proxy` over stdio (issue 15): the bytes a client and a server exchange pass through
//! unchanged, and the session log holds every line of both directions, correlated; real clients
//! (the Python `mcp` 2.3.0 SDK's `Client`, the TypeScript SDK v2 client 2.4.0) get through the
//! proxy what they get directly, in both eras; and the server never outlives its client, nor a
//! proxy killed with SIGKILL.

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use sonde_core::{Entry, Filter, Kind, WireLog};
use support::{fixture_bin, peer, wait_for, SONDE};

/// What a client writes: the opening exchange, a listing, a call, a line that is not JSON and
/// one with invalid UTF-8 (both passed on as they are).
fn client_bytes() -> Vec<u8> {
    let mut bytes = Vec::new();
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bytes","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"through the proxy"}}}"#,
        "not json at all",
    ] {
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(
        b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}\r\n",
    );
    bytes
}

/// Runs `command` with `input` on stdin and returns its stdout and stderr.
fn run_with(command: &mut Command, home: &Path, input: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let out = support::with_stdin(command, home, input);
    (out.stdout, out.stderr)
}

fn entries(log: &Path, filter: &str) -> Vec<Entry> {
    WireLog::open(log).unwrap().entries(&Filter::parse(filter).unwrap()).unwrap()
}

#[test]
fn bytes_pass_through_unchanged_and_every_line_is_recorded_both_ways() {
    let home = support::data_home("proxy-bytes");
    let fixture = fixture_bin();
    let input = client_bytes();
    let (direct, _) = run_with(&mut Command::new(&fixture), &home, &input);
    let (proxied, stderr) = run_with(Command::new(SONDE).arg("proxy").arg("--").arg(&fixture), &home, &input);
    assert!(!direct.is_empty());
    assert_eq!(proxied, direct, "the client gets exactly what the server wrote");
    assert!(
        stderr.is_empty(),
        "Sonde adds nothing to the client's stderr: {}",
        String::from_utf8_lossy(&stderr)
    );

    let log = support::newest_session(&home).unwrap();
    let sent = entries(&log, "dir:out");
    assert_eq!(sent.len(), 6, "every line the client wrote: {sent:#?}");
    assert_eq!(sent[4].kind, Kind::NonProtocol);
    assert!(sent[5].base64.is_some(), "invalid UTF-8 is kept as bytes");
    let received = entries(&log, "dir:in kind:message");
    let server_lines = direct.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count();
    assert_eq!(received.len(), server_lines, "every line the server wrote");
    // Each reply names the request it answers, and what it was.
    let call =
        received.iter().find(|e| e.summary.as_ref().and_then(|s| s.id.as_deref()) == Some("3")).unwrap();
    assert_eq!(call.answers, Some(sent[3].seq));
    assert_eq!(call.summary.as_ref().unwrap().method.as_deref(), Some("tools/call"));
    assert!(call.latency_ms.is_some());
    let steps: Vec<String> = entries(&log, "kind:lifecycle").into_iter().filter_map(|e| e.detail).collect();
    // The fixture stops reading at the invalid UTF-8 line (Rust's `lines()`), racing the
    // client's end; either way the server is reaped and its group emptied.
    assert!(steps.iter().any(|d| d.starts_with("server exited with code 0")), "{steps:?}");
    assert!(steps.last().is_some_and(|d| d.ends_with("is empty; shutdown complete")), "{steps:?}");
}

#[test]
fn the_log_keeps_the_wire_s_order_to_the_end() {
    let home = support::data_home("proxy-order");
    // The opening exchange and a call, then the client closes its side: the fixture answers
    // all and exits once its stdin is closed.
    let input: Vec<u8> =
        client_bytes().split(|&b| b == b'\n').take(4).flat_map(|l| [l, b"\n"].concat()).collect();
    let (proxied, _) = run_with(Command::new(SONDE).arg("proxy").arg("--").arg(fixture_bin()), &home, &input);
    assert!(!proxied.is_empty());
    let log = support::newest_session(&home).unwrap();
    let sent = entries(&log, "dir:out");
    assert_eq!(sent.len(), 4, "{sent:#?}");
    let lifecycle = entries(&log, "kind:lifecycle");
    let closed =
        lifecycle.iter().find(|e| e.detail.as_deref().is_some_and(|d| d.starts_with("closed stdin")));
    let closed =
        closed.unwrap_or_else(|| panic!("the client's end closes the server's stdin: {lifecycle:#?}"));
    // Every line the client wrote was recorded before its end closed the server's stdin.
    assert!(sent.iter().all(|e| e.seq < closed.seq), "{sent:#?} {closed:#?}");
}

/// The Python SDK client's answer, launching `command` itself.
fn python_client(mode: &str, tool: &str, args: &str, command: &[&str]) -> Value {
    let python = peer("py/bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/py_client.py");
    let out = Command::new(python).args([script, mode, tool, args, "--"]).args(command).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_python_sdk_client_gets_through_the_proxy_what_it_gets_directly_in_each_era() {
    let home = support::data_home("proxy-python");
    let python = peer("py/bin/python");
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/py_mcp_server.py");
    let python = python.to_str().unwrap();
    let data = format!("XDG_DATA_HOME={}", home.display());
    for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let direct = python_client(mode, "add", r#"{"a":2,"b":3}"#, &[python, server, "stdio"]);
        // The client starts the proxy as its config would, its environment passed on.
        let proxied = python_client(
            mode,
            "add",
            r#"{"a":2,"b":3}"#,
            &["env", &data, SONDE, "proxy", "--", python, server, "stdio"],
        );
        assert_eq!(proxied, direct, "{mode}");
        assert_eq!(proxied["protocolVersion"], version, "{mode}");
    }
    // The newest session is the legacy run: its opening exchange, correlated.
    let sessions = std::fs::read_dir(home.join("sonde/sessions")).unwrap();
    let mut logs: Vec<_> = sessions
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    logs.sort();
    let log = logs.last().unwrap();
    let reply = entries(log, "dir:in method:initialize");
    assert_eq!(reply.len(), 1, "{reply:#?}");
    assert!(reply[0].answers.is_some());
    assert!(entries(log, "dir:out method:tools/call").len() == 1);
    let named = entries(log, "kind:note").into_iter().filter_map(|e| e.detail).collect::<Vec<_>>();
    assert!(
        named.iter().any(|d| d.starts_with("the client is mcp ")),
        "the client's name, from its clientInfo: {named:?}"
    );
    // The session's card names the client too, for the sessions list.
    let listed = support::sonde(&home, &["sessions", "--json"]);
    let clients: Vec<Value> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|s| s["client"].clone())
        .collect();
    assert!(clients.iter().all(|c| c.as_str().is_some_and(|c| c.starts_with("mcp "))), "{clients:?}");
    assert!(entries(log, "diag:error").is_empty(), "a real server's frames break no rule");
}

/// The TypeScript SDK v2 client's answer, launching `command` itself (from beside its
/// node_modules, as ESM needs).
fn ts_client(mode: &str, command: &[&str]) -> Value {
    let dir = peer("tsv2");
    let out = Command::new("node")
        .args(["ts_client.mjs", mode, "add", r#"{"a":2,"b":3}"#, "--"])
        .args(command)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_typescript_sdk_client_gets_through_the_proxy_what_it_gets_directly_in_each_era() {
    let home = support::data_home("proxy-ts");
    let data = format!("XDG_DATA_HOME={}", home.display());
    for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let direct = ts_client(mode, &["node", "ts_v2_server.mjs", "stdio"]);
        let proxied =
            ts_client(mode, &["env", &data, SONDE, "proxy", "--", "node", "ts_v2_server.mjs", "stdio"]);
        assert_eq!(proxied, direct, "{mode}");
        assert_eq!(proxied["protocolVersion"], version, "{mode}");
        assert_eq!(proxied["result"]["content"][0]["text"], "5");
    }
    let listed = support::sonde(&home, &["sessions", "--json"]);
    let clients: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok()?["client"].as_str().map(str::to_owned))
        .collect();
    // Each process the client started is a session (its auto mode may start more than one).
    assert!(clients.len() >= 2 && clients.iter().all(|c| c == "ts-client 2.4.0"), "{clients:?}");
}

/// The pid of the server a proxy session started, once it is recorded.
fn server_pid(log: &Path) -> i32 {
    let pid = wait_for(Duration::from_secs(10), || {
        let log = WireLog::open(log).ok()?;
        let spawned = log.entries(&Filter::parse("kind:lifecycle").unwrap()).ok()?;
        spawned.iter().find_map(|e| {
            e.detail.as_deref()?.strip_prefix("spawned pid ")?.split_whitespace().next()?.parse().ok()
        })
    });
    pid.expect("the server's spawn is recorded")
}

fn group_gone(pgid: i32) -> bool {
    // kill(-pgid, 0) fails with ESRCH once no process of the group is left.
    unsafe { libc::kill(-pgid, 0) != 0 }
}

#[test]
fn the_server_never_outlives_its_client_nor_a_killed_proxy() {
    let home = support::data_home("proxy-kill");
    let fixture = fixture_bin();
    let mut last = None;
    for kill_proxy in [false, true] {
        let mut proxy = Command::new(SONDE)
            .args(["--grace-stdin", "300", "--grace-term", "300", "proxy", "--"])
            .arg(&fixture)
            .args(["--grandchild", "--ignore-sigterm", "--stay-on-eof"])
            .env("XDG_DATA_HOME", &home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // This run's session: the newest, once it is not the last run's.
        let log = wait_for(Duration::from_secs(10), || {
            support::newest_session(&home).filter(|l| Some(l) != last.as_ref())
        })
        .unwrap();
        last = Some(log.clone());
        let pgid = server_pid(&log);
        if kill_proxy {
            proxy.kill().unwrap();
        } else {
            // The client goes: its end of the proxy's stdin closes.
            drop(proxy.stdin.take());
        }
        let _ = proxy.wait();
        let gone = wait_for(Duration::from_secs(10), || group_gone(pgid).then_some(()));
        assert!(gone.is_some(), "kill_proxy={kill_proxy}: the server's group {pgid} outlived the proxy");
    }
}

#[test]
fn the_servers_stderr_reaches_the_client_as_it_gave_it_a_pipe_for_a_pipe_and_is_recorded() {
    let home = support::data_home("proxy-stderr");
    // A server that says on stderr what its stderr is, as servers that colour on a terminal
    // decide; then it serves.
    let script = format!(
        "if [ -t 2 ]; then echo terminal >&2; else echo pipe >&2; fi; exec {}",
        fixture_bin().display()
    );
    let input: Vec<u8> =
        client_bytes().split(|&b| b == b'\n').take(2).flat_map(|l| [l, b"\n"].concat()).collect();
    let (proxied, stderr) =
        run_with(Command::new(SONDE).args(["proxy", "--", "sh", "-c", &script]), &home, &input);
    assert!(!proxied.is_empty());
    assert_eq!(String::from_utf8_lossy(&stderr), "pipe\n", "as the server wrote it, nothing of Sonde's");
    let log = support::newest_session(&home).unwrap();
    let recorded: Vec<String> = entries(&log, "kind:stderr").into_iter().filter_map(|e| e.text).collect();
    assert_eq!(recorded.concat(), "pipe\n");
}

/// A proxy session given `--name` is listed by that name in `sonde sessions`, and `--session
/// NAME` opens it (the newest of that name), not some other session.
#[test]
fn a_named_proxy_session_is_listed_and_opened_by_its_name() {
    let home = support::data_home("proxy-named");
    let fixture = fixture_bin();
    let input: Vec<u8> =
        client_bytes().split(|&b| b == b'\n').take(4).flat_map(|l| [l, b"\n"].concat()).collect();
    let mut named = Command::new(SONDE);
    named.args(["proxy", "--name", "nightly-check", "--"]).arg(&fixture);
    run_with(&mut named, &home, &input);
    let named_log = support::newest_session(&home).expect("the proxy's session");
    // A later session of another name, so `last` is not the named one.
    let other = support::sonde(&home, &["tools", "list", "--", fixture.to_str().unwrap()]);
    assert!(other.status.success(), "{other:?}");
    assert_ne!(support::newest_session(&home).as_ref(), Some(&named_log));

    let listed = support::sonde(&home, &["sessions"]);
    let listing = String::from_utf8_lossy(&listed.stdout);
    let file = named_log.file_name().unwrap().to_str().unwrap();
    let line = listing.lines().find(|l| l.starts_with(file)).unwrap_or_else(|| panic!("{listing}"));
    assert!(line.contains("\"nightly-check\" proxy for bytes 1"), "{line}");
    let json = support::sonde(&home, &["sessions", "--json"]);
    let json = String::from_utf8_lossy(&json.stdout);
    let card: Value = json
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|s| s["name"] == file)
        .unwrap_or_else(|| panic!("{json}"));
    assert_eq!(card["given_name"], "nightly-check", "{card}");

    let out = support::sonde(&home, &["log", "--session", "nightly-check", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(file), "the named session was opened: {stderr}");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("through the proxy"), "{printed}");
    // A name no session has is said as such.
    let out = support::sonde(&home, &["log", "--session", "nightly"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sonde proxy --name"), "{out:?}");
}
