//! The `sonde` command as scripts use it: exit codes, JSON on stdout, the session log path on
//! stderr, `sonde log`, and no server left behind when `sonde` itself is SIGKILLed.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use sonde_core::process::live_members;

const SONDE: &str = env!("CARGO_BIN_EXE_sonde");

fn data_home(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sonde-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn sonde(home: &Path, args: &[&str]) -> Output {
    Command::new(SONDE)
        .args(args)
        .env("XDG_DATA_HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .output()
        .expect("run sonde")
}

/// `sonde ARGS -- sonde demo-server`.
fn with_demo(home: &Path, args: &[&str]) -> Output {
    let mut all = args.to_vec();
    all.extend(["--", SONDE, "demo-server"]);
    sonde(home, &all)
}

fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {out:?}"))
}

fn session_path(stderr: &[u8]) -> PathBuf {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("sonde: session log "))
        .expect("the session log path on stderr");
    PathBuf::from(line)
}

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
    assert_eq!(names, ["echo", "add", "slow", "greet", "image"]);
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

    let rpc_error = with_demo(&home, &["call", "no-such-tool"]);
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

/// Polls `probe` until it returns `Some`, for at most `limit`.
fn wait_for<T>(limit: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = probe() {
            return Some(v);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn fixture_bin() -> PathBuf {
    let status = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "-p", "sonde-fixture"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(status.success());
    Path::new(SONDE).with_file_name("sonde-fixture")
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

/// A peer installed by `make peers` under `.cache/peers`.
fn peer(relative: &str) -> PathBuf {
    let root = std::env::var_os("SONDE_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.cache/peers"));
    let path = root.join(relative);
    assert!(path.exists(), "{} is missing: run `make peers`", path.display());
    path
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

/// `sonde tools list -- sh -c SCRIPT` with `extra` in sonde's own environment.
fn failing(home: &Path, flags: &[&str], program: &[&str], extra: &[(&str, &str)]) -> (Output, String) {
    let mut args = vec!["tools", "list"];
    args.extend(flags);
    args.push("--");
    args.extend(program);
    let out = Command::new(SONDE)
        .args(&args)
        .env("XDG_DATA_HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .envs(extra.iter().copied())
        .output()
        .expect("run sonde");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    (out, stderr)
}

#[test]
fn a_server_that_exits_at_start_is_shown_with_its_last_words_and_the_environment_hint() {
    let home = data_home("last-words-exit");
    let script = "echo starting >&2; printf '\\033[31mfailed\\033[0m\\r\\n' >&2; exit 3";
    let (_, stderr) = failing(&home, &[], &["sh", "-c", script], &[]);
    let words =
        stderr.split("the server's last words on stderr:").nth(1).unwrap_or_else(|| panic!("{stderr}"));
    // One process's words once (the era fallback respawns), colours stripped, `\r` folded.
    assert_eq!(words.matches("  | starting\n").count(), 1, "{stderr}");
    assert!(words.contains("  | failed\n"), "{stderr}");
    assert!(!stderr.contains('\u{1b}') && !stderr.contains('\r'), "{stderr:?}");
    assert!(stderr.contains("minimal environment") && stderr.contains("--inherit-env"), "{stderr}");
    assert!(stderr.contains("--env NAME=…"), "{stderr}");
}

#[test]
fn a_python_traceback_is_shown_whole() {
    let home = data_home("last-words-python");
    let (_, stderr) = failing(&home, &[], &["python3", "-c", "import nonexistent_module_xyz"], &[]);
    assert!(stderr.contains("  | Traceback (most recent call last):"), "{stderr}");
    assert!(stderr.contains("  | ModuleNotFoundError: No module named 'nonexistent_module_xyz'"), "{stderr}");
    assert!(stderr.contains("minimal environment"), "{stderr}");
}

#[test]
fn a_variable_withheld_by_the_minimal_environment_is_named_and_its_value_never_shown() {
    let home = data_home("last-words-env");
    let script = r#"echo "Error: SONDE_TEST_API_KEY is not set; export it first" >&2; exit 1"#;
    let secret = [("SONDE_TEST_API_KEY", "secret-value-123")];
    let (out, stderr) = failing(&home, &[], &["sh", "-c", script], &secret);
    assert!(stderr.contains("  | Error: SONDE_TEST_API_KEY is not set; export it first"), "{stderr}");
    assert!(stderr.contains("it names SONDE_TEST_API_KEY"), "{stderr}");
    assert!(stderr.contains("--env SONDE_TEST_API_KEY=…"), "{stderr}");
    assert!(!stderr.contains("secret-value-123") && !String::from_utf8_lossy(&out.stdout).contains("secret"));

    // Passed with --env, it is not withheld: the hint names no variable.
    let (_, stderr) = failing(&home, &["--env", "SONDE_TEST_API_KEY=x"], &["sh", "-c", script], &secret);
    assert!(!stderr.contains("it names"), "{stderr}");
    // With the whole environment, there is no minimal-environment hint at all.
    let (_, stderr) = failing(&home, &["--inherit-env"], &["sh", "-c", script], &secret);
    assert!(!stderr.contains("minimal environment"), "{stderr}");
    assert!(stderr.contains("  | Error: SONDE_TEST_API_KEY"), "{stderr}");
}

#[test]
fn stderr_copies_the_servers_stderr_live_with_a_prefix() {
    let home = data_home("stderr-flag");
    let out = with_demo(&home, &["--stderr", "tools", "list"]);
    assert!(out.status.success(), "{out:?}");
    let (_, stderr) =
        failing(&home, &["--stderr"], &["sh", "-c", "echo 'hello from the server' >&2; exit 1"], &[]);
    assert!(stderr.contains("server: hello from the server\n"), "{stderr}");
}

#[test]
fn a_server_that_dies_during_a_call_is_shown_with_its_last_words() {
    let home = data_home("last-words-call");
    let fixture = fixture_bin();
    let out = sonde(
        &home,
        &["call", "echo", "--args", r#"{"text":"x"}"#, "--", fixture.to_str().unwrap(), "--crash-on-call"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("server exited with code 1 while tools/call was pending"), "{stderr}");
    let words =
        stderr.split("the server's last words on stderr:").nth(1).unwrap_or_else(|| panic!("{stderr}"));
    assert!(words.contains("  | sonde-fixture: crashing during tools/call as asked\n"), "{stderr}");
    // It opened first, so the environment did not stop it starting: no startup hint.
    assert!(!stderr.contains("minimal environment"), "{stderr}");
}

/// `npm/node_modules/.bin/mcp-server-filesystem DIR` with a 300 KB text file in DIR.
fn filesystem_with_big_file(name: &str) -> (PathBuf, PathBuf) {
    let dir = data_home(name).join("files");
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.txt");
    std::fs::write(&big, "0123456789abcdef\n".repeat(300 * 1024 / 17)).unwrap();
    (dir.canonicalize().unwrap(), big.canonicalize().unwrap())
}

#[test]
fn a_reply_over_the_line_cap_fails_its_call_at_once_naming_the_cap_and_the_size() {
    let home = data_home("max-line");
    let (dir, big) = filesystem_with_big_file("max-line");
    let server = peer("npm/node_modules/.bin/mcp-server-filesystem");
    let args = format!(r#"{{"path":"{}"}}"#, big.display());
    let started = Instant::now();
    let out = sonde(
        &home,
        &[
            "call",
            "read_text_file",
            "--max-line",
            "100000",
            "--timeout",
            "60000",
            "--args",
            &args,
            "--",
            server.to_str().unwrap(),
            dir.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("over the 100000-byte line cap"), "{stderr}");
    assert!(stderr.contains("--max-line") && !stderr.contains("got no reply"), "{stderr}");
    // Not the 60 s timeout: the reply's cut was enough to fail it.
    assert!(started.elapsed() < Duration::from_secs(50), "took {:?}", started.elapsed());
}

#[test]
fn a_closed_stdout_ends_the_command_quietly_after_the_shutdown_is_recorded() {
    let home = data_home("closed-pipe");
    let fixture = fixture_bin();
    let mut child = Command::new(SONDE)
        .args(["call", "echo", "--args", r#"{"text":"x"}"#, "--json", "--", fixture.to_str().unwrap()])
        .env("XDG_DATA_HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away before anything is printed, as `| head -0` would.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let log = std::fs::read_to_string(session_path(&out.stderr)).unwrap();
    assert!(log.contains("shutdown complete"), "the ladder is recorded: {log}");

    // `sonde log | head -1`: one line read, then the reader is gone.
    let mut child = Command::new(SONDE)
        .args(["log", "--json"])
        .env("XDG_DATA_HOME", &home)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(first.starts_with('{'), "{first}");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_relative_command_run_from_two_directories_is_two_servers_to_the_era_cache() {
    let home = data_home("era-cwd");
    let fixture = fixture_bin();
    let run_in = |dir: &Path, knobs: &str| {
        std::fs::create_dir_all(dir).unwrap();
        let script = dir.join("srv.sh");
        std::fs::write(&script, format!("#!/bin/sh\nexec {} {knobs}\n", fixture.display())).unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let out = Command::new(SONDE)
            .args(["info", "--json", "--", "./srv.sh"])
            .current_dir(dir)
            .env("XDG_DATA_HOME", &home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        stdout_json(&out)["protocolVersion"].as_str().unwrap().to_owned()
    };
    assert_eq!(run_in(&home.join("legacy"), ""), "2025-11-25");
    // The same `./srv.sh` elsewhere is another server: probed, not given the other's verdict.
    assert_eq!(run_in(&home.join("dual"), "--dual-era"), "2026-07-28");
}

#[test]
fn listen_prints_only_the_changes_asked_for() {
    let home = data_home("listen-filter");
    let fixture = fixture_bin();
    let listen = |kind: &str| {
        let out = sonde(
            &home,
            &["listen", kind, "--", fixture.to_str().unwrap(), "--dual-era", "--listen-end", "complete"],
        );
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(listen("--tools").contains("notifications/tools/list_changed"));
    assert_eq!(listen("--prompts"), "", "a tools change is not a prompts change");
}

#[test]
fn log_level_shows_the_servers_log_messages_on_stderr() {
    let home = data_home("log-level");
    let fixture = fixture_bin();
    let args = ["call", "echo", "--log-level", "info", "--args", r#"{"text":"x"}"#, "--"];
    let mut all = args.to_vec();
    all.extend([fixture.to_str().unwrap(), "--flood", "3"]);
    let out = sonde(&home, &all);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    for i in 0..3 {
        assert!(stderr.contains(&format!("server log [info] flood {i}\n")), "{stderr}");
    }
    assert!(!String::from_utf8_lossy(&out.stdout).contains("flood"), "stdout is for results");
}

#[test]
fn a_missing_working_directory_is_named_as_such() {
    let home = data_home("missing-cwd");
    let out = with_demo(&home, &["tools", "list", "--cwd", "/nonexistent/dir"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the working directory /nonexistent/dir does not exist"), "{stderr}");
}

#[test]
fn roots_are_asked_for_before_the_first_call_of_a_server_that_reads_them_at_start() {
    let home = data_home("roots-first");
    let (dir, _) = filesystem_with_big_file("roots-first");
    let small = dir.join("small.txt");
    std::fs::write(&small, "hello from a root\n").unwrap();
    let server = peer("npm/node_modules/.bin/mcp-server-filesystem");
    let args = format!(r#"{{"path":"{}"}}"#, small.display());
    let out = sonde(
        &home,
        &[
            "call",
            "read_text_file",
            "--root",
            dir.to_str().unwrap(),
            "--args",
            &args,
            "--",
            server.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("hello from a root"), "{stderr}");
    let log = std::fs::read_to_string(session_path(&out.stderr)).unwrap();
    assert!(log.contains("the server asked for the roots Sonde offers"), "the wait is in the log");
}

#[test]
fn messages_say_how_to_fix_the_mistake() {
    let home = data_home("fix-messages");
    let no_dashes = sonde(&home, &["tools", "list", "npx", "server"]);
    assert_eq!(no_dashes.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_dashes.stderr).contains("put the server's command after `--`"));
    let no_sessions = sonde(&home, &["log"]);
    let said = String::from_utf8_lossy(&no_sessions.stderr);
    assert_eq!(no_sessions.status.code(), Some(1), "{said}");
    assert!(
        said.contains("no sessions recorded yet; they go in") && !said.contains("No such file"),
        "{said}"
    );
    let complete = with_demo(&home, &["complete", "--argument", "x", "--value", "y"]);
    let said = String::from_utf8_lossy(&complete.stderr);
    assert!(said.contains("--prompt <NAME>") && said.contains("--resource <TEMPLATE>"), "{said}");
}

#[test]
fn arguments_are_taken_as_people_type_them() {
    let home = data_home("key-value");
    let words = with_demo(&home, &["call", "add", "a=2", "b=40", "--json"]);
    assert_eq!(stdout_json(&words)["structuredContent"]["sum"], 42.0, "{words:?}");

    let file = home.join("args.json");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(&file, r#"{"a": 1, "b": 2}"#).unwrap();
    let at_file = with_demo(&home, &["call", "add", "--args", &format!("@{}", file.display()), "--json"]);
    assert_eq!(stdout_json(&at_file)["structuredContent"]["sum"], 3.0, "{at_file:?}");

    let mut child = Command::new(SONDE)
        .args(["call", "add", "--args", "-", "--json", "--", SONDE, "demo-server"])
        .env("XDG_DATA_HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), br#"{"a": 3, "b": 4}"#).unwrap();
    let from_stdin = child.wait_with_output().unwrap();
    assert_eq!(stdout_json(&from_stdin)["structuredContent"]["sum"], 7.0, "{from_stdin:?}");

    let bare = with_demo(&home, &["call", "add", "npx"]);
    assert_eq!(bare.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bare.stderr).contains("\"npx\" is not KEY=VALUE"));
}

#[test]
fn an_unknown_tool_gets_the_closest_names_and_an_undeclared_method_the_capabilities() {
    let home = data_home("did-you-mean");
    let typo = with_demo(&home, &["call", "ecoh", "text=x"]);
    let said = String::from_utf8_lossy(&typo.stderr);
    assert_eq!(typo.status.code(), Some(1), "{said}");
    assert!(said.contains("there is no tool ecoh; did you mean echo?"), "{said}");
    assert!(
        said.contains("some servers list more tools to clients that declare roots (--root DIR)"),
        "{said}"
    );
    let fixture = fixture_bin();
    let prompts = sonde(&home, &["prompts", "list", "--", fixture.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&prompts.stderr);
    assert_eq!(prompts.status.code(), Some(1), "{said}");
    assert!(said.contains("the server declared these capabilities: tools"), "{said}");
}

#[test]
fn sessions_are_listed_found_by_name_printed_whole_and_filters_say_what_they_did() {
    let home = data_home("sessions-cmd");
    let out = with_demo(&home, &["tools", "list"]);
    let path = session_path(&out.stderr);
    let name = path.file_name().unwrap().to_str().unwrap().to_owned();
    let listed = sonde(&home, &["sessions"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(text.starts_with(&name) && text.contains("demo-server"), "{text}");
    let lines = std::fs::read_to_string(&path).unwrap().lines().count();
    assert!(text.contains(&format!(" {lines} entries")), "{text}");
    let json = sonde(&home, &["sessions", "--json"]);
    assert_eq!(stdout_json(&json)["name"], name.as_str());

    let stem = name.trim_end_matches(".jsonl");
    let clipped = sonde(&home, &["log", "--session", stem, "--filter", "method:tools/list dir:in"]);
    assert!(clipped.status.success(), "{clipped:?}");
    let full = sonde(&home, &["log", "--session", &name, "--full", "--filter", "method:tools/list dir:in"]);
    let (clipped, full) = (String::from_utf8_lossy(&clipped.stdout), String::from_utf8_lossy(&full.stdout));
    assert!(clipped.contains('…') && !full.contains('…') && full.len() > clipped.len(), "{full}");
    assert!(full.contains("\"name\":\"image\""), "every tool is there: {full}");

    let typo = sonde(&home, &["log", "--filter", "methd:tools/list"]);
    assert_eq!(typo.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&typo.stderr)
        .contains("unknown key \"methd\"; keys are kind, dir, conn, method and id"));
    let nothing = sonde(&home, &["log", "--filter", "\"no such words here\""]);
    assert!(String::from_utf8_lossy(&nothing.stderr).contains("no entry of"), "{nothing:?}");
    let missing = sonde(&home, &["log", "--session", "nope"]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("see sonde sessions"), "{missing:?}");
}

#[test]
fn a_subcommands_help_shows_its_own_options_first_and_the_rest_under_headings() {
    let out = Command::new(SONDE).args(["call", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    let at = |text: &str| help.find(text).unwrap_or_else(|| panic!("no {text:?} in:\n{help}"));
    assert!(at("--args") < at("Server process:"), "{help}");
    assert!(at("Server process:") < at("Protocol era:") && at("Protocol era:") < at("Answering the server:"));
    assert!(at("Answering the server:") < at("HTTP servers:"), "{help}");
    assert!(!help.lines().any(|l| l.trim_end().ends_with("--json")), "no blank help texts: {help}");
}

#[test]
fn shell_runs_a_piped_script_on_one_connection() {
    let home = data_home("shell");
    let mut child = Command::new(SONDE)
        .args(["shell", "--", SONDE, "demo-server"])
        .env("XDG_DATA_HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let script =
        "# a script\ntools\ncall add a=2 b=40\ncall echo text='hi there'\nlog method:tools/call dir:out\n";
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("2 + 40 = 42") && stdout.contains("hi there"), "{stdout}");
    // One connection for every step: one spawn in the session.
    let log = std::fs::read_to_string(session_path(&out.stderr)).unwrap();
    assert_eq!(log.matches("\"event\":\"spawned\"").count(), 1, "{log}");
    assert_eq!(stdout.lines().filter(|l| l.contains("\"method\":\"tools/call\"")).count(), 2, "{stdout}");
}

#[test]
fn a_slow_answer_is_said_to_be_waited_for() {
    let home = data_home("waiting");
    let fixture = fixture_bin();
    let script = format!("echo getting ready >&2; sleep 1.5; exec {}", fixture.display());
    let out = sonde(&home, &["tools", "list", "--", "sh", "-c", &script]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("sonde: waiting for server/discover: the era probe, up to 3 s"), "{stderr}");
    // It wrote at once, so it was never "no output yet".
    assert!(!stderr.contains("no output yet"), "{stderr}");
}
