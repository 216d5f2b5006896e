//! `sonde test` never passes a broken build (issue 50, item 4): a call of a tool the server no
//! longer lists fails (the Python SDK answers one with an `isError` result, which would pass
//! `isError: true`), an answer the protocol does not allow fails whatever the test expects, the
//! JSON report has totals, a server that cannot start still gets every report (one error with
//! its last words), and the SARIF passes Microsoft's SARIF Multitool.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use support::*;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn suite_file(home: &Path, name: &str, text: &str) -> String {
    let file = home.join(name);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, text).unwrap();
    file.to_str().unwrap().to_owned()
}

/// `sonde test SUITE EXTRA… -- SERVER…`, run from `home`.
fn test(home: &Path, suite: &str, extra: &[&str], server: &[&str]) -> Output {
    let mut args = vec!["test", suite];
    args.extend(extra);
    args.push("--");
    args.extend(server);
    Command::new(SONDE)
        .args(&args)
        .current_dir(home)
        .env("XDG_DATA_HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .output()
        .expect("run sonde")
}

fn lines(out: &Output) -> Vec<String> {
    text(&out.stdout).lines().map(str::to_owned).collect()
}

/// A removed tool fails its test on the listing, though the Python SDK's answer for it (an
/// `isError` result, "Unknown tool") meets `isError: true`; `unlisted: true` lets the same
/// call be tested, and a listed tool passes as before. A read of a removed resource fails on
/// its error reply, though the test expects nothing.
#[test]
fn a_call_of_a_tool_the_python_sdk_server_does_not_list_fails_unless_the_test_says_unlisted() {
    let home = data_home("test-unlisted");
    let suite = suite_file(
        &home,
        "suite.yaml",
        r#"tests:
  - name: adds
    call: add
    args: {a: 1, b: 2}
    expect: {isError: false, text: "3"}
  - name: divides
    call: divide
    args: {a: 1, b: 2}
    expect: {isError: true}
  - name: divides, said unlisted
    call: divide
    unlisted: true
    args: {a: 1, b: 2}
    expect: {isError: true, text: "Unknown tool"}
  - name: reads
    read: peers://hello
  - name: reads what is gone
    read: peers://gone
"#,
    );
    let python = peer("py/bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers/py_mcp_server.py");
    let server = [python.to_str().unwrap(), script.to_str().unwrap(), "stdio"];
    let out = test(&home, &suite, &[], &server);
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    let said = lines(&out);
    assert_eq!(said.len(), 5, "{said:?}");
    assert!(said[0].starts_with("pass  adds ("), "{said:?}");
    assert_eq!(
        said[1],
        "fail  divides: listed: the server does not list the tool divide (unlisted: true calls it all the same)"
    );
    assert!(said[2].starts_with("pass  divides, said unlisted ("), "{said:?}");
    // A resource that is gone: the error reply fails a test that expects nothing.
    assert!(said[3].starts_with("pass  reads ("), "{said:?}");
    assert!(
        said[4].starts_with("fail  reads what is gone: isError: the server answered with an error ("),
        "{said:?}"
    );
    assert!(text(&out.stderr).contains("sonde test: 3 of 5 passed, 2 failed"), "{out:?}");
}

/// The fixture's `echo` answered without `content` fails `isError: false` and a test that
/// expects nothing, naming the rule; the same suite passes against the fixture as it should be.
#[test]
fn a_tool_call_answered_without_content_fails_as_protocol_whatever_the_test_expects() {
    let home = data_home("test-protocol");
    let suite = suite_file(
        &home,
        "suite.yaml",
        r#"tests:
  - name: echoes
    call: echo
    args: {text: hi}
    expect: {isError: false}
  - name: echoes, nothing expected
    call: echo
    args: {text: hi}
"#,
    );
    let fixture = fixture_bin();
    let fixture = fixture.to_str().unwrap();
    let sound = test(&home, &suite, &[], &[fixture]);
    assert_eq!(sound.status.code(), Some(0), "{sound:?}");
    assert!(lines(&sound).iter().all(|l| l.starts_with("pass  ")), "{sound:?}");

    let broken = test(&home, &suite, &[], &[fixture, "--no-content"]);
    assert_eq!(broken.status.code(), Some(5), "{broken:?}");
    let why = "protocol: result-shape: tools/call's result: `content` is missing, where CallToolResult requires an array";
    assert_eq!(
        lines(&broken),
        [format!("fail  echoes: {why}"), format!("fail  echoes, nothing expected: {why}")]
    );
}

/// `--reporter json` and `--json` print one JSON document with totals; `--json` beside a
/// reporter that also wants stdout is a usage error, and beside `--out` leaves that file to it.
#[test]
fn the_json_report_has_totals_and_json_prints_it_as_one_document() {
    let home = data_home("test-json");
    let suite = suite_file(
        &home,
        "suite.yaml",
        "tests:\n  - name: echoes\n    call: echo\n    args: {text: hi}\n  - name: divides\n    call: divide\n",
    );
    let fixture = fixture_bin();
    let fixture = fixture.to_str().unwrap();
    for flags in [&["--reporter", "json"][..], &["--json"]] {
        let out = test(&home, &suite, flags, &[fixture]);
        assert_eq!(out.status.code(), Some(5), "{flags:?}: {out:?}");
        let report = stdout_json(&out);
        assert_eq!(
            (&report["passed"], &report["failed"], &report["errors"]),
            (&1.into(), &1.into(), &0.into())
        );
        let tests = report["tests"].as_array().unwrap();
        assert_eq!(tests.len(), 2);
        let ms = report["ms"].as_f64().unwrap();
        assert!(ms >= tests[0]["ms"].as_f64().unwrap() && ms > 0.0, "{report}");
        assert_eq!(tests[1]["failures"][0]["expectation"], "listed");
    }

    let both = test(&home, &suite, &["--json", "--reporter", "junit"], &[fixture]);
    assert_eq!(both.status.code(), Some(2), "{both:?}");
    assert!(text(&both.stderr).contains("give --out FILE for it"), "{both:?}");

    let junit = home.join("report.xml");
    let out =
        test(&home, &suite, &["--json", "--reporter", "junit", "--out", junit.to_str().unwrap()], &[fixture]);
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    assert_eq!(stdout_json(&out)["failed"], 1);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("tests=\"2\" failures=\"1\" errors=\"0\""), "{xml}");
}

/// A server that prints its last words and exits at once: every reporter still writes its
/// report, the suite as one error holding those words, and the run exits 1.
#[test]
fn a_server_that_cannot_start_still_gets_every_report_as_one_error_with_its_last_words() {
    let home = data_home("test-unstarted");
    let suite = suite_file(&home, "suite.yaml", "tests:\n  - name: pings\n    method: ping\n");
    let last = "ModuleNotFoundError: No module named 'mcp'";
    let script = format!("echo \"{last}\" >&2; exit 3");
    let server = ["sh", "-c", script.as_str()];
    let report = |reporter: &str| -> String {
        let file = home.join(format!("report.{reporter}"));
        let out = test(&home, &suite, &["--reporter", reporter, "--out", file.to_str().unwrap()], &server);
        assert_eq!(out.status.code(), Some(1), "{reporter}: {out:?}");
        std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{reporter}: no report ({e}): {out:?}"))
    };

    let lines = report("text");
    assert!(lines.starts_with(&format!("error {suite}: could not connect to sh -c")), "{lines}");

    let json: Value = serde_json::from_str(&report("json")).unwrap();
    assert_eq!(
        (&json["passed"], &json["failed"], &json["errors"]),
        (&0.into(), &0.into(), &1.into()),
        "{json}"
    );
    assert_eq!(json["tests"][0]["error"]["lastWords"], serde_json::json!([last]), "{json}");

    // JUnit, read back by a JUnit parser: one test, in error, its text holding the words.
    let junit = home.join("report.junit");
    report("junit");
    let read = r#"
import json, sys
from junitparser import JUnitXml, Error
xml = JUnitXml.fromfile(sys.argv[1])
cases = [c for suite in xml for c in suite]
print(json.dumps({"tests": len(cases), "errors": [r.text for c in cases for r in c.result if isinstance(r, Error)]}))
"#;
    let parsed =
        Command::new(peer("py/bin/python")).args(["-c", read, junit.to_str().unwrap()]).output().unwrap();
    assert!(parsed.status.success(), "{}", text(&parsed.stderr));
    let parsed: Value = serde_json::from_slice(&parsed.stdout).unwrap();
    assert_eq!(parsed["tests"], 1, "{parsed}");
    assert!(parsed["errors"][0].as_str().unwrap().contains(&format!("  | {last}")), "{parsed}");

    let sarif: Value = serde_json::from_str(&report("sarif")).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["ruleId"], "error");
    assert!(results[0]["message"]["text"].as_str().unwrap().contains(last), "{results:?}");
    assert!(multitool_errors(&home.join("report.sarif")).is_empty());

    // With --json, stdout is that report, carrying the failure as --json says one.
    let out = test(&home, &suite, &["--json"], &server);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let json = stdout_json(&out);
    assert_eq!(
        (&json["errors"], &json["error"]["code"], &json["error"]["exit"]),
        (&1.into(), &"connect_failed".into(), &1.into())
    );
}

/// A server that starts, then dies on the first test's call: no test ran, so the suite is one
/// error with the words it died with, as for a server that cannot start, and the run exits 1.
/// Dying later, the tests before keep their verdicts and the rest are errors; the same suite
/// against the sound fixture runs its tests.
#[test]
fn a_server_that_dies_before_any_test_is_answered_is_one_error_and_later_each_test_left_is() {
    let home = data_home("test-died");
    let suite = suite_file(
        &home,
        "suite.yaml",
        "tests:\n  - name: echoes\n    call: echo\n    args: {text: hi}\n  - name: pings\n    method: ping\n",
    );
    let fixture = fixture_bin();
    let fixture = fixture.to_str().unwrap();
    let junit = home.join("report.xml");
    let junit_flags = ["--reporter", "junit", "--out", junit.to_str().unwrap()];
    let died = test(&home, &suite, &junit_flags, &[fixture, "--crash-on-call"]);
    assert_eq!(died.status.code(), Some(1), "{died:?}");
    assert_eq!(
        lines(&died),
        [format!("error {suite}: server exited with code 1 while tools/call was pending")]
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("tests=\"1\" failures=\"0\" errors=\"1\""), "{xml}");
    assert!(xml.contains("  | sonde-fixture: crashing during tools/call as asked</error>"), "{xml}");

    let json = test(&home, &suite, &["--json"], &[fixture, "--crash-on-call"]);
    assert_eq!(json.status.code(), Some(1), "{json:?}");
    let report = stdout_json(&json);
    assert_eq!((&report["errors"], &report["error"]["code"]), (&1.into(), &"server_gone".into()), "{report}");

    // Died under the suite: the tests before keep their verdicts, the rest could not run.
    let later = suite_file(
        &home,
        "later.yaml",
        "tests:\n  - name: pings\n    method: ping\n  - name: echoes\n    call: echo\n  - name: pings again\n    method: ping\n",
    );
    let out = test(&home, &later, &junit_flags, &[fixture, "--crash-on-call"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let said = lines(&out);
    assert_eq!(said.len(), 3, "{said:?}");
    assert!(said[0].starts_with("pass  pings ("), "{said:?}");
    assert_eq!(said[1], "error echoes: server exited with code 1 while tools/call was pending");
    assert!(said[2].starts_with("error pings again: server exited with code 1"), "{said:?}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("tests=\"3\" failures=\"0\" errors=\"2\""), "{xml}");

    let sound = test(&home, &suite, &junit_flags, &[fixture]);
    assert_eq!(sound.status.code(), Some(0), "{sound:?}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("tests=\"2\" failures=\"0\" errors=\"0\""), "{xml}");
}

/// A failing suite's SARIF, at a path with a space in a folder of the run's directory, passes
/// the Multitool with no error; the report Sonde wrote before (an absolute path as the
/// artifact's URI) is refused by the same check (SARIF1004), so the check can fail.
#[test]
fn sarif_reports_pass_microsofts_sarif_multitool() {
    let home = data_home("test-sarif");
    let suite = suite_file(
        &home,
        "checks/my suite.yaml",
        "tests:\n  - name: echoes\n    call: echo\n    args: {text: hi}\n    expect: {text: bye}\n  - name: divides\n    call: divide\n",
    );
    let fixture = fixture_bin();
    let sarif = home.join("report.sarif");
    let out = test(
        &home,
        &suite,
        &["--reporter", "sarif", "--out", sarif.to_str().unwrap()],
        &[fixture.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{results:#?}");
    let location = &results[1]["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "checks/my%20suite.yaml");
    assert_eq!(location["region"]["startLine"], 6);
    assert_eq!(multitool_errors(&sarif), Vec::<String>::new());

    let mut before = log.clone();
    before["runs"][0].as_object_mut().unwrap().remove("originalUriBaseIds");
    for result in before["runs"][0]["results"].as_array_mut().unwrap() {
        result["locations"][0]["physicalLocation"]["artifactLocation"] = serde_json::json!({"uri": suite});
    }
    let old = home.join("before.sarif");
    std::fs::write(&old, serde_json::to_string_pretty(&before).unwrap()).unwrap();
    let refused = multitool_errors(&old);
    assert!(refused.iter().any(|e| e.starts_with("SARIF1004")), "{refused:?}");
}

/// A skill test reads the skill's SKILL.md (or `file`) and verifies it: a tampered file, a file
/// grown past its listed size and a frontmatter that differs each fail as `protocol` whatever the
/// test expects; a name no skill has fails on the listing, never sent; a sound skill passes, its
/// text expectation met; a URI the server does not serve is an error a test may expect.
#[test]
fn a_skill_test_fails_a_tampered_file_and_a_name_no_skill_has_whatever_it_expects() {
    let home = data_home("test-skills");
    let suite = suite_file(
        &home,
        "suite.yaml",
        r##"tests:
  - name: refunds
    skill: refunds
    expect: {text: "# Refunds"}
  - name: refund script
    skill: skill://acme/billing/refunds/SKILL.md
    file: scripts/refund.sh
  - name: pdf reference
    skill: pdf
    file: reference.md
    expect: {text: "pdftk"}
  - name: grown data
    skill: sizes
    file: data.txt
  - name: notes
    skill: notes
  - name: gone
    skill: billing
  - name: unserved
    skill: skill://nowhere/SKILL.md
    expect: {isError: true}
"##,
    );
    let fixture = fixture_bin();
    let out = test(&home, &suite, &[], &[fixture.to_str().unwrap(), "--skills"]);
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    let said = lines(&out);
    assert_eq!(said.len(), 7, "{said:?}");
    assert!(said[0].starts_with("pass  refunds ("), "{said:?}");
    assert!(said[1].starts_with("pass  refund script ("), "{said:?}");
    assert!(
        said[2].starts_with("fail  pdf reference: protocol: skill-file-unverified: skill://pdf/reference.md: digest mismatch: the entry lists sha256:"),
        "{said:?}"
    );
    assert_eq!(
        said[3],
        "fail  grown data: protocol: skill-file-unverified: skill://sizes/data.txt: size mismatch: the entry lists 6 bytes, the file has 8"
    );
    assert!(
        said[4].starts_with(
            "fail  notes: protocol: skill-frontmatter-mismatch: skill://notes/SKILL.md: description:"
        ),
        "{said:?}"
    );
    assert_eq!(said[5], "fail  gone: listed: the server lists no skill named \"billing\"");
    assert!(said[6].starts_with("pass  unserved ("), "{said:?}");
}
