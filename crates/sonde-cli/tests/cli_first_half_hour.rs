//! The CLI as a server author meets it in a first half hour: the bugs found then (the line cap,
//! a closed pipe, the era cache key, listen filters, log levels, roots, a missing --cwd), errors
//! that say how to fix them, arguments as people type them, the shell, sessions and help.

mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::*;

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
fn a_listen_never_acknowledged_fails_at_the_request_timeout_saying_so() {
    let home = data_home("listen-unacknowledged");
    let fixture = fixture_bin();
    let out = sonde(
        &home,
        &[
            "listen",
            "--tools",
            "--timeout",
            "800",
            "--",
            fixture.to_str().unwrap(),
            "--dual-era",
            "--listen-end",
            "silent",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("subscriptions/listen got no acknowledgement within 800 ms"), "{stderr}");
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
    // An option Sonde does not know, with the command already after `--`, is not that mistake.
    let unknown = sonde(&home, &["doctor", "--no-such-option", "--", "npx", "server"]);
    assert_eq!(unknown.status.code(), Some(2));
    let said = String::from_utf8_lossy(&unknown.stderr);
    assert!(said.contains("--no-such-option") && !said.contains("put the server's command"), "{said}");
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

    let from_stdin = support::with_stdin(
        Command::new(SONDE).args(["call", "add", "--args", "-", "--json", "--", SONDE, "demo-server"]),
        &home,
        br#"{"a": 3, "b": 4}"#,
    );
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
    assert_eq!(typo.status.code(), Some(2), "{said}");
    assert!(said.contains("there is no tool ecoh; did you mean echo?"), "{said}");
    assert!(
        said.contains("some servers list more tools to clients that declare roots (--root DIR)"),
        "{said}"
    );
    let fixture = fixture_bin();
    let prompts = sonde(&home, &["prompts", "list", "--", fixture.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&prompts.stderr);
    assert_eq!(prompts.status.code(), Some(1), "{said}");
    assert!(said.contains("the server declared these capabilities: tools, logging"), "{said}");
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
    // Every line but the header is an entry.
    let lines = std::fs::read_to_string(&path).unwrap().lines().count() - 1;
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
        .contains("unknown key \"methd\"; keys are kind, hide, dir, conn, method, id, target and diag"));
    let nothing = sonde(&home, &["log", "--filter", "\"no such words here\""]);
    assert!(String::from_utf8_lossy(&nothing.stderr).contains("no entry of"), "{nothing:?}");
    let missing = sonde(&home, &["log", "--session", "nope"]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("see sonde sessions"), "{missing:?}");
    // A quote left open, and a file that is no session, are said, exit 2 (issue 33, item 12).
    let open = sonde(&home, &["log", "--filter", "dir:in \"not found"]);
    assert_eq!(open.status.code(), Some(2), "{open:?}");
    assert!(
        String::from_utf8_lossy(&open.stderr).contains("the quote of \"not found is not closed"),
        "{open:?}"
    );
    let other = sonde(&home, &["log", "/etc/passwd"]);
    assert_eq!(other.status.code(), Some(2), "{other:?}");
    assert!(
        String::from_utf8_lossy(&other.stderr).contains("/etc/passwd is not a Sonde session"),
        "{other:?}"
    );
    // One is one: the demo has one resource template and two prompts.
    let templates = with_demo(&home, &["resources", "templates"]);
    assert!(String::from_utf8_lossy(&templates.stderr).lines().any(|l| l == "sonde: 1 resource template"));
    let prompts = with_demo(&home, &["prompts", "list"]);
    assert!(String::from_utf8_lossy(&prompts.stderr).lines().any(|l| l == "sonde: 2 prompts"));
}

#[test]
fn options_of_a_server_are_refused_by_commands_that_talk_to_none() {
    let home = data_home("refused-options");
    let out = sonde(&home, &["sessions", "--url", "http://x", "--bearer", "abc"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "sonde: --url does not apply to `sonde sessions`: it talks to no server"
    );
    let proxy = sonde(&home, &["proxy", "--cwd", "/nonexistent", "--", "true"]);
    assert_eq!(proxy.status.code(), Some(2), "{proxy:?}");
    let help = Command::new(SONDE).args(["sessions", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--pin") && !help.contains("--url") && !help.contains("Server process:"), "{help}");
    // --quiet is for every command: a script hears only what went wrong.
    let quiet = sonde(&home, &["-q", "tools", "list", "--", SONDE, "demo-server"]);
    assert!(quiet.status.success() && String::from_utf8_lossy(&quiet.stdout).contains("echo"), "{quiet:?}");
    assert_eq!(String::from_utf8_lossy(&quiet.stderr), "", "{quiet:?}");
    assert_eq!(sonde(&home, &["sessions", "--quiet"]).status.code(), Some(0));
    // A command that talks to a server takes them before or after it, as documented.
    let before = sonde(&home, &["--env", "A=1", "tools", "list", "--", SONDE, "demo-server"]);
    assert!(before.status.success(), "{before:?}");
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

#[test]
fn server_filesystems_structured_content_that_wraps_its_text_is_printed_once() {
    let home = data_home("structured-once");
    let (dir, _) = filesystem_with_big_file("structured-once");
    let server = peer("npm/node_modules/.bin/mcp-server-filesystem");
    let path = format!("path={}", dir.display());
    let dir = dir.display().to_string();
    let out = sonde(&home, &["call", "list_directory", &path, "--", server.to_str().unwrap(), &dir]);
    assert!(out.status.success(), "{out:?}");
    let printed = String::from_utf8_lossy(&out.stdout);
    // Its structuredContent is {"content": the same text}: the text once, the verdict kept.
    assert_eq!(printed.matches("[FILE] big.txt").count(), 1, "{printed}");
    assert!(!printed.contains("structuredContent"), "{printed}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("structuredContent matches the outputSchema"),
        "{out:?}"
    );
}
