//! `sonde test` (issue 35, item 2): a suite with every kind of request and expectation, passing
//! and failing, against the demo server, in every reporter; the JUnit file read back by a JUnit
//! parser (junitparser, PyPI), the SARIF file valid against Microsoft's SARIF 2.1.0 schema.

mod support;

use std::process::Command;

use serde_json::Value;
use support::*;

const SUITE: &str = r#"tests:
  - name: adds two numbers
    call: add
    args: {a: 2, b: 3}
    expect:
      isError: false
      text: "5"
      structured: {sum: 5}
      schema: true
      within_ms: 5000
  - name: reads the readme
    read: demo://readme
    expect:
      text: "Sonde demo"
  - name: renders a review
    prompt: review
    args: {language: Rust}
    expect:
      text: Rust
  - name: pings
    method: ping
  - name: a wrong sum
    call: add
    args: {a: 2, b: 2}
    expect:
      structured: {sum: 5}
  - name: an unknown tool fails as not listed
    call: nope
    expect:
      isError: true
"#;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn suite_file(home: &std::path::Path, name: &str, text: &str) -> String {
    std::fs::create_dir_all(home).unwrap();
    let file = home.join(name);
    std::fs::write(&file, text).unwrap();
    file.to_str().unwrap().to_owned()
}

#[test]
fn a_suite_passes_and_fails_by_expectation_in_every_reporter() {
    let home = data_home("test-suite");
    let suite = suite_file(&home, "suite.yaml", SUITE);
    let run = |extra: &[&str]| {
        let mut args = vec!["test", suite.as_str()];
        args.extend(extra);
        args.extend(["--", SONDE, "demo-server"]);
        sonde(&home, &args)
    };

    let lines = run(&[]);
    assert_eq!(lines.status.code(), Some(5), "{lines:?}");
    let out: Vec<String> = text(&lines.stdout).lines().map(str::to_owned).collect();
    assert_eq!(out.len(), 6, "{out:?}");
    for passed in ["adds two numbers", "reads the readme", "renders a review", "pings"] {
        assert!(out.iter().any(|l| l.starts_with(&format!("pass  {passed} ("))), "{passed}: {out:?}");
    }
    assert!(
        out.contains(
            &"fail  a wrong sum: structured: structuredContent.sum: 5 expected, 4.0 given".to_owned()
        ),
        "{out:?}"
    );
    // The demo server's answer for a tool it does not have is itself an `isError` result: the
    // test fails on the listing, before its expectations could pass on that answer.
    assert!(
        out.contains(
            &"fail  an unknown tool fails as not listed: listed: the server does not list the tool nope (unlisted: true calls it all the same)"
                .to_owned()
        ),
        "{out:?}"
    );
    assert!(text(&lines.stderr).contains("sonde test: 4 of 6 passed, 2 failed"), "{lines:?}");

    let json = run(&["--reporter", "json"]);
    assert_eq!(json.status.code(), Some(5));
    let tests = stdout_json(&json)["tests"].as_array().cloned().unwrap();
    assert_eq!(tests.iter().filter(|t| t["passed"] == true).count(), 4);
    assert_eq!(tests[4]["failures"][0]["expectation"], "structured");

    // JUnit, read back by a JUnit parser.
    let junit = home.join("junit.xml");
    let written = run(&["--reporter", "junit", "--out", junit.to_str().unwrap()]);
    assert_eq!(written.status.code(), Some(5), "{written:?}");
    assert_eq!(text(&written.stdout).lines().count(), 6, "the lines still go to stdout");
    let read = r#"
import json, sys
from junitparser import JUnitXml, Failure
xml = JUnitXml.fromfile(sys.argv[1])
cases = [c for suite in xml for c in suite]
print(json.dumps({"tests": len(cases), "failures": [[c.name, r.message] for c in cases for r in c.result if isinstance(r, Failure)]}))
"#;
    let parsed =
        Command::new(peer("py/bin/python")).args(["-c", read, junit.to_str().unwrap()]).output().unwrap();
    assert!(parsed.status.success(), "{}", text(&parsed.stderr));
    let parsed: Value = serde_json::from_slice(&parsed.stdout).unwrap();
    assert_eq!(parsed["tests"], 6);
    assert_eq!(
        parsed["failures"][0],
        serde_json::json!(["a wrong sum", "structuredContent.sum: 5 expected, 4.0 given"]),
        "{parsed}"
    );

    // SARIF, valid against the SARIF 2.1.0 schema: a result per failed expectation, at its line.
    let sarif = run(&["--reporter", "sarif"]);
    assert_eq!(sarif.status.code(), Some(5));
    let log: Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let schema_file = peer("reports/node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json");
    let mut schema: Value = serde_json::from_str(&std::fs::read_to_string(schema_file).unwrap()).unwrap();
    // One pattern of the schema as shipped (a `language`'s, `…-[a-zA-Z]{2}]?$`, with a stray
    // bracket) is not a regex the checker accepts; it is left out where it is. Sonde's reports
    // name no language, and everything else is checked as shipped.
    assert_eq!(without_broken_language_pattern(&mut schema), 2, "the schema changed");
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> =
        validator.iter_errors(&log).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(!validator.is_valid(&broken), "the schema checks a result's level");
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{results:#?}");
    assert_eq!(results[0]["ruleId"], "structured");
    let line = SUITE.lines().position(|l| l.contains("a wrong sum")).unwrap() + 1;
    assert_eq!(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"], line);
}

#[test]
fn a_passing_suite_exits_0_an_unknown_key_is_named_and_an_unreachable_server_exits_1() {
    let home = data_home("test-suite-edges");
    let passing = suite_file(&home, "pass.json", r#"{"tests": [{"name": "pings", "method": "ping"}]}"#);
    let ok = sonde(&home, &["test", &passing, "--", SONDE, "demo-server"]);
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
    assert!(text(&ok.stdout).starts_with("pass  pings ("), "{ok:?}");

    let typo =
        suite_file(&home, "typo.yaml", "tests:\n  - name: x\n    call: add\n    expect:\n      txt: hi\n");
    let refused = sonde(&home, &["test", &typo, "--", SONDE, "demo-server"]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let said = text(&refused.stderr);
    assert!(
        said.contains("unknown field `txt`, expected one of isError, text, structured, schema, within_ms"),
        "{said}"
    );
    assert!(said.contains("line 5 column 7"), "{said}");

    let gone = sonde(&home, &["test", &passing, "--", "/nonexistent/server"]);
    assert_eq!(gone.status.code(), Some(1), "{gone:?}");
}

/// Removes the schema's `language` patterns that are not regexes; returns how many there were.
fn without_broken_language_pattern(schema: &mut Value) -> usize {
    const BROKEN: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
    match schema {
        Value::Object(map) => {
            let here = usize::from(map.get("pattern").and_then(Value::as_str) == Some(BROKEN));
            if here == 1 {
                map.remove("pattern");
            }
            here + map.values_mut().map(without_broken_language_pattern).sum::<usize>()
        }
        Value::Array(items) => items.iter_mut().map(without_broken_language_pattern).sum(),
        _ => 0,
    }
}
