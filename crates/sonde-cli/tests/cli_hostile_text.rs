//! Hostile text stays text (issue 13): what a server sends reaches the terminal with its control
//! characters and bidi overrides escaped, on stdout and on stderr alike: a tool's text (echoed
//! back by the fixture), a server's error message, and the server's own stderr copied through.

mod support;

use support::{fixture_bin, sonde};

/// Retitles the terminal, clears it, writes an OSC 8 link, returns the carriage, a C1 NEL and a
/// right-to-left override.
const HOSTILE: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}]8;;http://evil\u{1b}\\link\r\u{85}\u{202e}gnp.exe";

fn hostile_bytes(stream: &[u8]) -> Vec<char> {
    String::from_utf8_lossy(stream)
        .chars()
        .filter(|&c| (c.is_control() && c != '\n' && c != '\t') || ('\u{202a}'..='\u{202e}').contains(&c))
        .collect()
}

#[test]
fn a_servers_text_errors_and_stderr_reach_the_terminal_escaped() {
    let fixture = fixture_bin();
    let fixture = fixture.to_str().unwrap();
    let home = support::data_home("hostile-text");

    let text = format!("text={HOSTILE}");
    let out = sonde(&home, &["call", "echo", &text, "--", fixture]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(hostile_bytes(&out.stdout), Vec::<char>::new(), "stdout is safe");
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("\\u001b]0;pwned\\u0007") && shown.contains("\\u202egnp.exe"), "{shown}");

    let json = sonde(&home, &["call", "echo", &text, "--json", "--", fixture]);
    assert_eq!(hostile_bytes(&json.stdout), Vec::<char>::new());
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).expect("--json stays JSON");
    assert_eq!(value["content"][0]["text"], HOSTILE, "and reads back as what the server sent");

    // A tool the server does not list is named back, escaped, and not called.
    let out = sonde(&home, &["call", HOSTILE, "--", fixture]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(hostile_bytes(&out.stderr), Vec::<char>::new(), "stderr is safe");
    // The server's error message names the tool it was asked for.
    let out = sonde(&home, &["call", HOSTILE, "--unlisted", "--", fixture]);
    assert!(!out.status.success());
    assert_eq!(hostile_bytes(&out.stderr), Vec::<char>::new(), "stderr is safe");
    assert!(String::from_utf8_lossy(&out.stderr).contains("Unknown tool: \\u001b]0;pwned"));

    // The server's own stderr, copied through with --stderr: its colour codes are dropped and
    // nothing else of it can reach the terminal raw.
    let out = sonde(&home, &["--stderr", "tools", "list", "--", fixture, "--ansi-stderr"]);
    assert!(out.status.success());
    assert_eq!(hostile_bytes(&out.stderr), Vec::<char>::new());
    assert!(String::from_utf8_lossy(&out.stderr).contains("server: info sonde-fixture ready"));
}
