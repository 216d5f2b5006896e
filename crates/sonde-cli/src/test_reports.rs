//! The reports of `sonde test` that CI systems read: one JSON document, JUnit XML (a
//! `testcase` per test, its failures in a `failure`) and SARIF 2.1.0 (a result per failed
//! expectation, at the test's line in the suite file).

use std::path::Path;

use serde_json::{json, Value};
use sonde_core::suite::{Suite, Verdict};

pub fn json(verdicts: &[Verdict]) -> String {
    let tests: Vec<Value> = verdicts
        .iter()
        .map(|v| json!({"name": v.name, "passed": v.passed(), "ms": v.ms, "failures": v.failures}))
        .collect();
    json!({ "tests": tests }).to_string()
}

/// JUnit XML: the suite file is the test suite, each test a `testcase` with its time in
/// seconds, a failed one with a `failure` whose message is its first failed expectation and
/// whose text lists them all.
pub fn junit(file: &Path, verdicts: &[Verdict]) -> String {
    let name = xml(&file.display().to_string());
    let failed = verdicts.iter().filter(|v| !v.passed()).count();
    let seconds = |ms: f64| format!("{:.3}", ms / 1000.0);
    let total = seconds(verdicts.iter().map(|v| v.ms).sum());
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"sonde test\" tests=\"{}\" failures=\"{failed}\" time=\"{total}\">\n  <testsuite name=\"{name}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\" time=\"{total}\">\n",
        verdicts.len(),
        verdicts.len()
    );
    for v in verdicts {
        let case = format!(
            "    <testcase name=\"{}\" classname=\"{name}\" time=\"{}\"",
            xml(&v.name),
            seconds(v.ms)
        );
        match v.failures.first() {
            None => out += &format!("{case}/>\n"),
            Some(first) => {
                let all: Vec<String> =
                    v.failures.iter().map(|f| format!("{}: {}", f.expectation, f.message)).collect();
                out += &format!(
                    "{case}>\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
                    xml(&first.message),
                    xml(&first.expectation),
                    xml(&all.join("\n"))
                );
            }
        }
    }
    out + "  </testsuite>\n</testsuites>\n"
}

/// SARIF 2.1.0: one run of the tool `sonde`, a rule per kind of expectation, a result per
/// failed expectation at its test's line in the suite file.
pub fn sarif(file: &Path, suite: &Suite, verdicts: &[Verdict]) -> String {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let rules = [
        ("isError", "The result is, or is not, an error."),
        ("text", "The result's text holds the expected words."),
        ("structured", "structuredContent holds the expected keys and values."),
        ("schema", "structuredContent is valid against the tool's outputSchema."),
        ("within_ms", "The answer came within the time allowed."),
        ("request", "The request was answered."),
    ];
    let results: Vec<Value> = verdicts
        .iter()
        .zip(&suite.tests)
        .flat_map(|(v, test)| {
            let line = line_of(&text, &test.name);
            v.failures.iter().map(move |f| {
                let mut region = json!({});
                if let Some(line) = line {
                    region = json!({ "startLine": line });
                }
                json!({
                    "ruleId": f.expectation,
                    "level": "error",
                    "message": { "text": format!("{}: {}", v.name, f.message) },
                    "locations": [{ "physicalLocation": {
                        "artifactLocation": { "uri": file.display().to_string() },
                        "region": region,
                    }}],
                })
            })
        })
        .collect();
    let rules: Vec<Value> =
        rules.iter().map(|(id, text)| json!({ "id": id, "shortDescription": { "text": text } })).collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": { "name": "sonde", "version": env!("CARGO_PKG_VERSION"), "rules": rules } },
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).expect("JSON serializes") + "\n"
}

/// The 1-based line of the suite file where the test `name` is named.
fn line_of(text: &str, name: &str) -> Option<usize> {
    text.lines().position(|l| l.contains("name") && l.contains(name)).map(|i| i + 1)
}

fn xml(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .map(|c| match c {
            '&' => "&amp;".to_owned(),
            '<' => "&lt;".to_owned(),
            '>' => "&gt;".to_owned(),
            '"' => "&quot;".to_owned(),
            '\'' => "&apos;".to_owned(),
            c => c.to_string(),
        })
        .collect()
}
