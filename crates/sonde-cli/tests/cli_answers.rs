//! Answers CI can trust (issue 33): a tool the server does not list is never called, whatever
//! its SDK would answer, and the closest names are given (exit 2), against server-everything
//! (TypeScript SDK, which answers an unknown tool with an `isError` result) and the Python SDK
//! server; `--unlisted` calls it anyway; `key=value` words follow the tool's `inputSchema`; a
//! result that breaks the protocol exits 4; `doctor` exits 5 for a failing check; `sonde log
//! last` is what its help says.

mod support;

use support::*;

fn everything() -> String {
    peer("npm/node_modules/.bin/mcp-server-everything").to_string_lossy().into_owned()
}

fn said(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_tool_not_listed_is_not_called_and_the_closest_names_are_given_whatever_the_sdk() {
    let home = data_home("unlisted");
    let everything = everything();
    let typo = sonde(&home, &["call", "ecko", "message=hi", "--", &everything, "stdio"]);
    let words = said(&typo);
    assert_eq!(typo.status.code(), Some(2), "{words}");
    assert!(words.contains("there is no tool ecko; did you mean echo?"), "{words}");
    assert!(
        words.contains("ecko was not called (--unlisted calls a tool the server does not list)"),
        "{words}"
    );
    // The tools some servers list only to clients that can answer them: the flags that would.
    assert!(words.contains("--elicit"), "{words}");
    let log = sonde(&home, &["log", "last", "--filter", "method:tools/call"]);
    assert!(
        said(&log).contains("no entry of"),
        "a tools/call was sent: {}",
        String::from_utf8_lossy(&log.stdout)
    );

    // --unlisted calls it: the SDK's own answer, an isError result (exit 3).
    let anyway = sonde(&home, &["call", "ecko", "--unlisted", "message=hi", "--", &everything, "stdio"]);
    assert_eq!(anyway.status.code(), Some(3), "{}", said(&anyway));
    assert!(String::from_utf8_lossy(&anyway.stdout).contains("Tool ecko not found"), "{anyway:?}");

    // The Python SDK server, the same way.
    let python = peer("py/bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/py_mcp_server.py");
    let typo = sonde(&home, &["call", "reserch", "topic=x", "--", python.to_str().unwrap(), script, "stdio"]);
    assert_eq!(typo.status.code(), Some(2), "{}", said(&typo));
    assert!(said(&typo).contains("did you mean research?"), "{}", said(&typo));
}

#[test]
fn a_word_for_a_string_property_is_sent_as_the_string_typed() {
    let home = data_home("schema-words");
    // server-everything's echo takes `message: string`: 123 is the text "123", not a number.
    let echo = sonde(&home, &["call", "echo", "message=123", "--json", "--", &everything(), "stdio"]);
    assert_eq!(echo.status.code(), Some(0), "{}", said(&echo));
    assert_eq!(stdout_json(&echo)["content"][0]["text"], "Echo: 123");
    // get-sum takes numbers: its words stay numbers.
    let sum = sonde(&home, &["call", "get-sum", "a=2", "b=40", "--json", "--", &everything(), "stdio"]);
    assert!(String::from_utf8_lossy(&sum.stdout).contains("42"), "{sum:?}");
}

#[test]
fn a_result_that_breaks_the_protocol_exits_4() {
    let home = data_home("protocol-exit");
    let fixture = fixture_bin();
    let fixture = fixture.to_str().unwrap();
    let bare = sonde(&home, &["call", "echo", "text=x", "--", fixture, "--no-content"]);
    assert_eq!(bare.status.code(), Some(4), "{}", said(&bare));
    assert!(said(&bare).contains("the result is malformed"), "{}", said(&bare));
    let wrong = sonde(&home, &["call", "count", "--", fixture, "--wrong-structure"]);
    assert_eq!(wrong.status.code(), Some(4), "{}", said(&wrong));
    assert!(said(&wrong).contains("outputSchema"), "{}", said(&wrong));
    let fine = sonde(&home, &["call", "echo", "text=x", "--", fixture]);
    assert_eq!(fine.status.code(), Some(0), "{}", said(&fine));
}

#[test]
fn doctor_exits_5_for_a_failing_check_and_1_for_a_server_that_cannot_open() {
    let home = data_home("doctor-exit");
    let fixture = fixture_bin();
    let fixture = fixture.to_str().unwrap();
    let broken = sonde(&home, &["doctor", "--", fixture, "--malformed-tools"]);
    assert_eq!(broken.status.code(), Some(5), "{}", said(&broken));
    let gone = sonde(&home, &["doctor", "--", "/nonexistent/server"]);
    assert_eq!(gone.status.code(), Some(1), "{}", said(&gone));
    let fine = sonde(&home, &["doctor", "--", fixture]);
    assert_eq!(fine.status.code(), Some(0), "{}", said(&fine));
}

#[test]
fn sonde_log_last_is_what_the_help_says() {
    let home = data_home("log-last");
    with_demo(&home, &["tools", "list"]);
    let last = sonde(&home, &["log", "last", "--filter", "method:tools/list"]);
    assert_eq!(last.status.code(), Some(0), "{}", said(&last));
    assert!(String::from_utf8_lossy(&last.stdout).contains("tools/list"), "{last:?}");
    let both = sonde(&home, &["log", "last", "--session", "last"]);
    assert_eq!(both.status.code(), Some(2), "{}", said(&both));
}

#[test]
fn a_run_ends_saying_how_many_protocol_findings_its_session_has() {
    let home = data_home("findings-line");
    let fixture = fixture_bin();
    let fixture = fixture.to_str().unwrap();
    let banner = sonde(&home, &["call", "echo", "text=x", "--", fixture, "--banner", "hello"]);
    assert_eq!(banner.status.code(), Some(0), "a finding alone changes no exit code: {}", said(&banner));
    let line = "sonde: 1 protocol warning: sonde log last --filter diag:warning";
    assert!(said(&banner).contains(line), "{}", said(&banner));
    // What it says to type shows the frame.
    let shown = sonde(&home, &["log", "last", "--filter", "diag:warning"]);
    assert!(String::from_utf8_lossy(&shown.stdout).contains("hello"), "{shown:?}");
    let clean = sonde(&home, &["call", "echo", "text=x", "--", fixture]);
    assert!(!said(&clean).contains("protocol warning"), "{}", said(&clean));
}

#[test]
fn listen_prints_a_notification_without_params_as_it_came() {
    let home = data_home("listen-params");
    // server-everything tells a client that answers elicitation of its extra tools at once: a
    // tools/list_changed with no params (2025-11-25).
    let out = sonde(
        &home,
        &["listen", "--tools", "--json", "--count", "1", "--elicit", "decline", "--", &everything(), "stdio"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    assert_eq!(line, serde_json::json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
}
