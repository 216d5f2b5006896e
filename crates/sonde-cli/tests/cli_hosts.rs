//! `--host NAME` beyond the opening: the host's HTTP headers on every request (as the server
//! received them, the person's own header kept), a tool's result held to the size the host
//! takes (a finding on the reply's frame, on its edges), and `sonde doctor --host` comparing
//! the server's tools with those of the saved servers beside it, as their baselines last saw
//! them (two a host would give one name warn; the server itself, saved too, is not its own
//! neighbour).

mod support;

use std::path::Path;
use std::process::Output;

use support::*;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn as_chatgpt_every_request_carries_its_user_agent_unless_the_person_gave_one() {
    let home = data_home("host-headers");
    std::fs::create_dir_all(&home).unwrap();
    let agents = home.join("agents.txt");
    let (server, url) = http_fixture(&["--record-agent", agents.to_str().unwrap()]);
    let mut runs = Vec::new();
    for extra in [&["--host", "chatgpt"][..], &["--host", "chatgpt", "--header", "User-Agent: mine/2"], &[]] {
        let _ = std::fs::remove_file(&agents);
        let mut args = vec!["--url", url.as_str()];
        args.extend(extra);
        args.extend(["tools", "list"]);
        let out = sonde(&home, &args);
        assert!(out.status.success(), "{out:?}");
        let seen = std::fs::read_to_string(&agents).unwrap();
        let mut seen: Vec<String> = seen.lines().map(str::to_owned).collect();
        seen.dedup();
        runs.push(seen);
    }
    drop(server);
    assert_eq!(runs[0], ["openai-mcp/1.0.0"], "as ChatGPT, every POST");
    assert_eq!(runs[1], ["mine/2"], "the person's own header is kept");
    assert_eq!(runs[2].len(), 1);
    assert!(runs[2][0].starts_with("sonde/"), "as Sonde: {:?}", runs[2]);
}

/// `sonde --host HOST call echo` with a text of `chars` characters, and the host-result-size
/// findings of its session.
fn echoed(home: &Path, host: Option<&str>, chars: usize) -> Vec<String> {
    let args = home.join("args.json");
    std::fs::write(&args, serde_json::json!({"text": "x".repeat(chars)}).to_string()).unwrap();
    let at = format!("@{}", args.display());
    let fixture = fixture_bin();
    let mut command = Vec::new();
    if let Some(host) = host {
        command.extend(["--host", host]);
    }
    command.extend(["-q", "call", "echo", "--args", &at, "--", fixture.to_str().unwrap()]);
    let out = sonde(home, &command);
    assert!(out.status.success(), "{out:?}");
    let log = sonde(home, &["log", "last", "--json", "--filter", "diag:host-result-size"]);
    assert!(log.status.success(), "{log:?}");
    text(&log.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .flat_map(|e| e["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| f["rule"] == "host-result-size")
        .map(|f| format!("{} {}", f["severity"].as_str().unwrap_or("?"), f["detail"].as_str().unwrap_or("?")))
        .collect()
}

#[test]
fn as_claude_code_a_result_past_the_size_it_takes_is_a_warning_on_its_frame_and_a_large_one_a_note() {
    let home = data_home("host-result-size");
    std::fs::create_dir_all(&home).unwrap();
    // The content's JSON is the text and 28 bytes around it; 4 bytes a token.
    let past = echoed(&home, Some("claude-code"), 110_000);
    assert_eq!(past.len(), 1, "{past:?}");
    assert!(
        past[0].starts_with("warning this result is ~27507 tokens (estimated at 4 bytes a token), past the 25000 Claude Code takes:"),
        "{past:?}"
    );
    assert!(past[0].contains("anthropic/maxResultSizeChars"), "{past:?}");
    let large = echoed(&home, Some("claude-code"), 50_000);
    assert_eq!(large.len(), 1, "{large:?}");
    assert!(large[0].starts_with("note this result is ~12507 tokens"), "{large:?}");
    assert!(large[0].contains("Claude Code warns its user past 10000"), "{large:?}");
    assert_eq!(echoed(&home, Some("claude-code"), 30_000), Vec::<String>::new(), "within: nothing");
    assert_eq!(echoed(&home, None, 110_000), Vec::<String>::new(), "as Sonde: no host's limit");
    assert_eq!(echoed(&home, Some("chatgpt"), 110_000), Vec::<String>::new(), "a host with no known limit");
}

fn doctor(home: &Path, host: &str, server: &[&str]) -> Output {
    let mut args = vec!["-q", "doctor", "--host", host, "--"];
    args.extend(server);
    sonde(home, &args)
}

fn check_line(out: &Output, id: &str) -> Option<String> {
    text(&out.stdout).lines().find(|l| l.split_whitespace().any(|w| w == id)).map(str::to_owned)
}

#[test]
fn doctor_as_a_host_compares_the_tools_of_the_saved_servers_beside_it() {
    let home = data_home("host-beside");
    let fixture = fixture_bin();
    let fixture = fixture.to_str().unwrap();
    let config = home.join("config/sonde");
    std::fs::create_dir_all(&config).unwrap();
    // Saved: the server checked itself (no neighbour of its own), one whose name folds onto
    // the checked server's (its echo shadows this one's), one named otherwise, one never seen.
    let saved = serde_json::json!({"servers": [
        {"id": "self", "name": "sonde-fixture", "command": format!("{fixture} --tools 3"), "era": "auto"},
        {"id": "twin", "name": "Sonde_Fixture", "command": format!("{fixture} --tools 2"), "era": "auto"},
        {"id": "other", "name": "notes", "command": format!("{fixture} --tools 1"), "era": "auto"},
        {"id": "unseen", "name": "unseen", "command": format!("{fixture} --tools 4"), "era": "auto"},
    ]});
    std::fs::write(config.join("servers.json"), saved.to_string()).unwrap();
    let server = [fixture, "--tools", "3"];
    let alone = doctor(&home, "claude-code", &server);
    assert_eq!(check_line(&alone, "host-shadowing"), None, "no baseline yet: nothing beside it: {alone:?}");
    for tools in ["3", "2", "1"] {
        let kept = sonde(&home, &["-q", "diff", "--baseline", "--", fixture, "--tools", tools]);
        assert!(kept.status.success(), "{kept:?}");
    }
    let out = doctor(&home, "claude-code", &server);
    let line = check_line(&out, "host-shadowing").unwrap_or_else(|| panic!("{out:?}"));
    assert!(line.starts_with("warn"), "{line}");
    assert!(
        line.contains("echo here (mcp__sonde-fixture__echo) and echo of Sonde_Fixture (mcp__Sonde_Fixture__echo) are one name to Claude Code"),
        "{line}"
    );
    assert!(line.contains("filler_2 here"), "both tools the twin has: {line}");
    assert!(!line.contains("of notes"), "notes names its tools otherwise: {line}");
    assert!(
        line.contains("beside: Sonde_Fixture (its baseline of 20") && line.contains("notes (its baseline of"),
        "{line}"
    );
    assert!(!line.contains("unseen") && !line.contains("sonde-fixture (its baseline"), "{line}");
    // A host whose naming no source gives judges nothing; another server has other neighbours.
    let chatgpt = doctor(&home, "chatgpt", &server);
    assert!(check_line(&chatgpt, "host-shadowing").is_some_and(|l| l.starts_with("skip")), "{chatgpt:?}");
    let notes = doctor(&home, "claude-code", &[fixture, "--tools", "1"]);
    let line = check_line(&notes, "host-shadowing").unwrap_or_else(|| panic!("{notes:?}"));
    assert!(line.starts_with("pass") && line.contains("sonde-fixture (its baseline of"), "{line}");
}
