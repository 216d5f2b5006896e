//! `sonde doctor` on the fixture (issue 14): a healthy server passes every check; each knob that
//! breaks a rule is named by its rule, in one line, and fails the run when the rule is an error.

mod support;

use serde_json::Value;
use support::{fixture_bin, peer, sonde};

/// The report of `sonde doctor --json` with these global options and fixture knobs, and the
/// exit code.
fn doctor(home: &std::path::Path, global: &[&str], knobs: &[&str]) -> (Vec<Value>, i32, String) {
    let fixture = fixture_bin();
    let mut args: Vec<&str> = global.to_vec();
    args.extend(["doctor", "--json", "--", fixture.to_str().unwrap()]);
    args.extend(knobs);
    let out = sonde(home, &args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (report["checks"].as_array().cloned().unwrap_or_default(), out.status.code().unwrap_or(-1), stderr)
}

fn status<'a>(checks: &'a [Value], id: &str) -> &'a str {
    checks.iter().find(|c| c["id"] == id).and_then(|c| c["status"].as_str()).unwrap_or("absent")
}

#[test]
fn a_healthy_server_passes_every_check_with_its_evidence() {
    let home = support::data_home("doctor-healthy");
    let (checks, code, stderr) = doctor(&home, &[], &["--tools", "3", "--page-size", "2"]);
    assert_eq!(code, 0, "{stderr}");
    for id in [
        "handshake",
        "ping",
        "unknown-method",
        "invalid-params",
        "tool-schemas",
        "listings",
        "tool-names",
        "context-cost",
        "frames",
        "stdout",
        "shutdown",
    ] {
        assert_eq!(status(&checks, id), "pass", "{id}: {checks:#?}");
    }
    let ping = checks.iter().find(|c| c["id"] == "ping").unwrap();
    assert!(ping["seq"].as_u64().is_some(), "ping points at its reply");
    assert!(stderr.contains("sonde doctor: 11 pass, 0 warn, 0 fail"), "{stderr}");

    // A server whose discover result lists 2025-11-25 too is checked in that era as well,
    // every check of each era marked with it.
    let (checks, code, stderr) = doctor(&home, &[], &["--dual-era"]);
    assert_eq!(code, 0, "{stderr}");
    let handshakes: Vec<&Value> = checks.iter().filter(|c| c["id"] == "handshake").collect();
    assert_eq!(handshakes.len(), 2, "{checks:#?}");
    assert_eq!(handshakes[0]["era"], "modern", "{checks:#?}");
    assert!(handshakes[0]["detail"].as_str().unwrap().starts_with("protocol 2026-07-28"), "{checks:#?}");
    assert_eq!(handshakes[1]["era"], "legacy", "{checks:#?}");
    assert!(handshakes[1]["detail"].as_str().unwrap().starts_with("protocol 2025-11-25"), "{checks:#?}");
    for era in ["modern", "legacy"] {
        for id in ["ping", "unknown-method", "invalid-params", "listings", "frames", "shutdown"] {
            let check = checks.iter().find(|c| c["id"] == id && c["era"] == era);
            assert_eq!(check.map(|c| &c["status"]), Some(&Value::from("pass")), "{era} {id}: {checks:#?}");
        }
    }
    // A server that answers 2026-07-28 alone (and says so) is tried in 2025-11-25 too; its
    // refusal is a skip that says why, not a fail.
    let (checks, code, stderr) = doctor(&home, &[], &["--modern-only"]);
    assert_eq!(code, 0, "{stderr}");
    let legacy = checks.iter().find(|c| c["id"] == "handshake" && c["era"] == "legacy");
    let legacy = legacy.unwrap_or_else(|| panic!("{checks:#?}"));
    assert_eq!(legacy["status"], "skip", "{legacy}");
    assert!(legacy["detail"].as_str().unwrap().contains("does not list it"), "{legacy}");
}

/// A ping answered later than `--timeout` fails within that timeout, not after doctor's own
/// 10 s: the walk found doctor waiting its own deadline whatever --timeout said.
#[test]
fn ping_times_out_within_the_timeout_given() {
    let home = support::data_home("doctor-ping-timeout");
    let (checks, code, stderr) = doctor(&home, &["--timeout", "1500"], &["--ping-delay-ms", "4000"]);
    let ping = checks.iter().find(|c| c["id"] == "ping").unwrap_or_else(|| panic!("{checks:#?}\n{stderr}"));
    assert_eq!(ping["status"], "fail", "{ping}");
    assert!(ping["detail"].as_str().unwrap().contains("no reply within 1.5 s"), "{ping}");
    assert_eq!(code, 5, "{stderr}");
}

/// The Python SDK's server answers both `server/discover` and `initialize`: doctor checks it in
/// each era, in the JSON and in the text, each line naming its era.
#[test]
fn the_python_sdk_server_is_checked_in_both_eras() {
    let home = support::data_home("doctor-python");
    let python = peer("py/bin/python");
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/py_mcp_server.py");
    let out = sonde(&home, &["doctor", "--json", "--", python.to_str().unwrap(), server, "stdio"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let checks = report["checks"].as_array().cloned().unwrap_or_default();
    for era in ["modern", "legacy"] {
        for id in ["handshake", "ping", "unknown-method", "listings", "shutdown"] {
            let check = checks.iter().find(|c| c["id"] == id && c["era"] == era);
            assert!(
                check.is_some_and(|c| c["status"] != "skip" && c["status"] != "fail"),
                "{era} {id}: {checks:#?}"
            );
        }
    }
    let out = sonde(&home, &["doctor", "--", python.to_str().unwrap(), server, "stdio"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let pings: Vec<&str> = stdout.lines().filter(|l| l.contains(" ping ")).collect();
    assert!(
        pings.len() == 2 && pings[0].contains("2026-07-28") && pings[1].contains("2025-11-25"),
        "{stdout}"
    );
}

/// A knob of the fixture (with global options), the check that names it, its status, and a
/// word of its sentence.
struct Case {
    global: &'static [&'static str],
    knobs: &'static [&'static str],
    id: &'static str,
    status: &'static str,
    word: &'static str,
}

#[test]
fn each_broken_behaviour_is_named_by_its_rule() {
    let home = support::data_home("doctor-broken");
    let cases = [
        Case {
            global: &[],
            knobs: &["--string-ids"],
            id: "reply-id-type",
            status: "fail",
            word: "keep their JSON type",
        },
        Case {
            global: &[],
            knobs: &["--banner", "Server ready!"],
            id: "stdout",
            status: "fail",
            word: "Server ready!",
        },
        Case {
            global: &[],
            knobs: &["--early-notification"],
            id: "before-initialized",
            status: "warn",
            word: "notifications/tools/list_changed",
        },
        Case {
            global: &[],
            knobs: &["--tools", "3", "--page-size", "1", "--cursor-loop"],
            id: "cursor-loop",
            status: "fail",
            word: "a second time",
        },
        Case {
            global: &["--grace-stdin", "300"],
            knobs: &["--exit-delay-ms", "5000"],
            id: "shutdown",
            status: "warn",
            word: "SIGTERM",
        },
        Case {
            global: &["--grace-stdin", "300", "--grace-term", "300"],
            knobs: &["--exit-delay-ms", "5000", "--ignore-sigterm"],
            id: "shutdown",
            status: "fail",
            word: "SIGKILL",
        },
        Case {
            global: &[],
            knobs: &["--silent-unknown"],
            id: "unknown-method",
            status: "fail",
            word: "-32601",
        },
    ];
    for Case { global, knobs, id, status: want, word } in cases {
        let (checks, code, stderr) = doctor(&home, global, knobs);
        let check = checks
            .iter()
            .find(|c| c["id"] == *id)
            .unwrap_or_else(|| panic!("{knobs:?}: no {id} in {checks:#?}\n{stderr}"));
        assert_eq!(check["status"], want, "{knobs:?}: {check}");
        assert!(check["detail"].as_str().unwrap().contains(word), "{knobs:?}: {check}");
        // A check that failed is what doctor looks for (5); a server that could not be opened
        // failed (1), which hides the rest.
        let failed = checks.iter().any(|c| c["status"] == "fail");
        let unopened = checks.iter().any(|c| c["id"] == "handshake" && c["status"] == "fail");
        assert_eq!(
            code,
            if unopened {
                1
            } else if failed {
                5
            } else {
                0
            },
            "{knobs:?}"
        );
    }
}

#[test]
fn a_named_call_checks_cancellation_and_reads_its_result() {
    let home = support::data_home("doctor-call");
    let fixture = fixture_bin();
    let fixture = fixture.to_str().unwrap();
    // A call that sends progress for a second is cancelled while it runs; the fixture, which
    // reads nothing while it works, answers anyway (server-everything's pass is in doctor_peers).
    let out = sonde(
        &home,
        &["doctor", "--call", "echo", "--args", "{\"text\":\"hi\"}", "--", fixture, "--progress-steps", "10"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().find(|l| l.contains("cancellation")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.starts_with("warn") && line.contains("answered after it was cancelled"), "{line}");
    // A result without `content` is named by the rule on results.
    let out = sonde(&home, &["doctor", "--call", "echo", "--", fixture, "--no-content"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().find(|l| l.contains("result-shape")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.starts_with("fail") && line.contains("`content` is missing"), "{line}");
    assert_eq!(out.status.code(), Some(5));
    // That result came back at once: nothing was cancelled, and the check says so.
    let line = stdout.lines().find(|l| l.contains("cancellation")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.starts_with("skip") && line.contains("nothing was cancelled"), "{line}");
    // --args without --call is a usage error.
    let out = sonde(&home, &["doctor", "--args", "{}", "--", fixture]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_server_that_cannot_start_fails_its_handshake_and_passes_nothing_it_never_did() {
    let home = support::data_home("doctor-no-start");
    let out = sonde(&home, &["doctor", "--json", "--", "/nonexistent/sonde-no-such-server"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let checks = report["checks"].as_array().cloned().unwrap_or_default();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(status(&checks, "handshake"), "fail", "{checks:#?}");
    // Nothing was read, so nothing about what was read can pass.
    for id in ["frames", "stdout"] {
        assert_eq!(status(&checks, id), "skip", "{id}: {checks:#?}");
    }
}

#[test]
fn one_death_is_one_fail_with_its_cause_and_the_server_s_last_words() {
    let home = support::data_home("doctor-one-death");
    // It dies at ping: one fail, and the checks after it are not run, each saying why, rather
    // than failing one by one for the same death.
    let (checks, code, stderr) = doctor(&home, &[], &["--crash-on-ping"]);
    assert_eq!(code, 5, "{stderr}");
    assert_eq!(status(&checks, "ping"), "fail", "{checks:#?}");
    for id in ["unknown-method", "invalid-params", "tool-schemas", "listings"] {
        let check = checks.iter().find(|c| c["id"] == id).unwrap_or_else(|| panic!("{checks:#?}"));
        assert_eq!(check["status"], "skip", "{check}");
        assert!(check["detail"].as_str().unwrap().contains("the server ended during ping"), "{check}");
    }
    assert!(stderr.contains("crashing on ping as asked"), "its last words: {stderr}");
    // It exits on a method it does not know before initialize: server/discover, the era
    // probe, ends it, so it opened only when started again, which a 2026-07-28 client cannot
    // do; the handshake says how, and era-probe fails.
    let (checks, _, stderr) = doctor(&home, &[], &["--exit-on-unknown"]);
    assert_eq!(status(&checks, "handshake"), "pass", "{stderr}");
    let probe = checks.iter().find(|c| c["id"] == "era-probe").unwrap_or_else(|| panic!("{checks:#?}"));
    assert_eq!(probe["status"], "fail", "{probe}");
    assert!(probe["detail"].as_str().unwrap().contains("-32601"), "{probe}");
    // Its shutdown is the respawned process's, evidence and all, after the handshake's.
    let shutdown = checks.iter().find(|c| c["id"] == "shutdown").unwrap();
    assert_eq!(shutdown["status"], "pass", "{shutdown}");
    assert!(shutdown["seq"].as_u64() > probe["seq"].as_u64(), "{shutdown} {probe}");
    // A server that fails at start is explained by what it said.
    let out = sonde(&home, &["doctor", "--", "sh", "-c", "echo 'Error: boom' >&2; exit 1"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().find(|l| l.contains("handshake")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.starts_with("fail") && line.contains("Error: boom"), "{line}");
}
