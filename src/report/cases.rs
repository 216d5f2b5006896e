//! The reports CI systems read of a run of checks: one JSON document with totals, JUnit XML (a
//! `testcase` a case) and SARIF 2.1.0 (a result per failure and warning), written over one small
//! shape, [`Report`]: cases, each with a name, its time when known, and its failures, its
//! warnings, why it was skipped, or the error that kept it from running. `sonde test` makes one
//! from its verdicts, `sonde doctor` from its checks; any other run of checks can make one the
//! same way.
//!
//! Owns: the three formats, and a run that could not start reported as one case in error that
//! carries the server's last words (so CI shows a failure, never "no tests"). Refuses: running
//! anything, reading or writing files (the front ends pick the reporter and where it goes), and
//! deciding what failed (the checks' verdicts did).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Value};

use crate::last_words::LastWords;

/// One way a case failed (or a warning on it): the expectation or check, and why in words.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub expectation: String,
    pub message: String,
}

impl Failure {
    pub fn new(expectation: &str, message: impl Into<String>) -> Failure {
        Failure { expectation: expectation.to_owned(), message: message.into() }
    }
}

/// One run's cases, ready to be written in any of the formats.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// What ran, as the reports name it (`sonde test`).
    pub command: String,
    /// What the cases are of: JUnit's test suite, and where SARIF's results are.
    pub subject: Subject,
    /// Each kind of failure a case can have (its `expectation`), with a sentence on what it
    /// checks: SARIF's rules.
    pub rules: Vec<(String, String)>,
    pub cases: Vec<Case>,
}

/// What a run's cases are of.
#[derive(Debug, Clone, PartialEq)]
pub enum Subject {
    /// A file the cases are written in (a suite file): SARIF's results are at their lines in it.
    File(PathBuf),
    /// A server checked as it runs (its command line or URL), with no file of cases: SARIF's
    /// results name it as a logical location, since there is no artifact to point at.
    Server(String),
}

impl Subject {
    /// The subject as JUnit's test suite, and a case of a run that could not start, name it.
    pub fn name(&self) -> String {
        match self {
            Subject::File(file) => file.display().to_string(),
            Subject::Server(server) => server.clone(),
        }
    }
}

/// One case: a test, a check.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub name: String,
    /// How long it took, in milliseconds, when known.
    pub ms: Option<f64>,
    /// Each failure, in order; empty (and no error, not skipped): it passed.
    pub failures: Vec<Failure>,
    /// What it found that is worth a look but fails nothing (a case with only warnings passed).
    pub warnings: Vec<Failure>,
    /// Why it was not checked, and the rule it would have checked: it did not apply.
    pub skipped: Option<Failure>,
    /// Why it could not run at all (the server did not start).
    pub error: Option<CaseError>,
    /// The 1-based line of the file where the case is written, when known.
    pub line: Option<usize>,
}

/// Why a case could not run, and what the server last said on stderr.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseError {
    pub message: String,
    pub last_words: Vec<String>,
}

/// How many cases passed (with or without warnings), failed, could not run, and were skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    pub skipped: usize,
}

/// SARIF's rule for a case in error.
const ERROR_RULE: (&str, &str) = ("error", "The case could run: the server started and answered.");

/// The base the SARIF results' paths are relative to.
const URI_BASE: &str = "SRCROOT";

impl Case {
    /// A case with a name and nothing found yet: it passed.
    pub fn new(name: impl Into<String>, ms: Option<f64>) -> Case {
        Case {
            name: name.into(),
            ms,
            failures: Vec::new(),
            warnings: Vec::new(),
            skipped: None,
            error: None,
            line: None,
        }
    }

    pub fn passed(&self) -> bool {
        self.failures.is_empty() && self.error.is_none() && self.skipped.is_none()
    }

    /// The error's message with the server's last words under it, as one text.
    fn error_text(&self) -> Option<String> {
        let error = self.error.as_ref()?;
        let mut text = error.message.clone();
        if !error.last_words.is_empty() {
            text += "\nthe server's last words on stderr:";
            for line in &error.last_words {
                text += &format!("\n  | {line}");
            }
        }
        Some(text)
    }
}

impl Report {
    /// The report of a run that could not start: its subject as one case in error, saying why
    /// (`reason`) with the server's last words, after `ms` of trying.
    pub fn unstarted(
        command: &str,
        subject: Subject,
        rules: Vec<(String, String)>,
        reason: &str,
        words: &LastWords,
        ms: f64,
    ) -> Report {
        let case = Case {
            error: Some(CaseError { message: reason.to_owned(), last_words: words.lines.clone() }),
            ..Case::new(subject.name(), Some(ms))
        };
        Report { command: command.to_owned(), subject, rules, cases: vec![case] }
    }

    /// How many cases passed, failed, could not run and were skipped.
    pub fn totals(&self) -> Totals {
        let count = |f: &dyn Fn(&Case) -> bool| self.cases.iter().filter(|c| f(c)).count();
        let errors = count(&|c| c.error.is_some());
        let skipped = count(&|c| c.error.is_none() && c.skipped.is_some());
        let passed = count(&|c| c.passed());
        Totals { passed, failed: self.cases.len() - passed - errors - skipped, errors, skipped }
    }

    /// Milliseconds, all cases whose time is known together.
    pub fn ms(&self) -> f64 {
        // Folded from +0.0: a sum of nothing is -0.0 in Rust, which would print as "-0.000".
        self.cases.iter().filter_map(|c| c.ms).fold(0.0, |all, ms| all + ms)
    }

    /// One JSON document: `{"tests": [{name, passed, ms?, failures, warnings?, skipped?,
    /// error?}], "passed", "failed", "errors", "skipped", "ms"}`; `ms` of a case only when known.
    pub fn json(&self) -> Value {
        let tests: Vec<Value> = self
            .cases
            .iter()
            .map(|c| {
                let mut test = json!({"name": c.name, "passed": c.passed(), "failures": c.failures});
                if let Some(ms) = c.ms {
                    test["ms"] = json!(ms);
                }
                if !c.warnings.is_empty() {
                    test["warnings"] = json!(c.warnings);
                }
                if let Some(skipped) = &c.skipped {
                    test["skipped"] = json!(skipped);
                }
                if let Some(error) = &c.error {
                    test["error"] = json!(error);
                }
                test
            })
            .collect();
        let Totals { passed, failed, errors, skipped } = self.totals();
        json!({
            "tests": tests, "passed": passed, "failed": failed, "errors": errors, "skipped": skipped,
            "ms": self.ms(),
        })
    }

    /// JUnit XML: the subject is the test suite, each case a `testcase` with its time in
    /// seconds when known; a failed one has a `failure` whose message is its first failure and
    /// whose text lists them all, one that could not run an `error` with the server's last
    /// words in its text, a skipped one `skipped` with why. JUnit has no warning: a case with
    /// only warnings passed (as its exit code says), and its warnings are its `system-out`, where
    /// a reader of the report still sees them.
    pub fn junit(&self) -> String {
        let name = xml(&self.subject.name());
        let Totals { failed, errors, skipped, .. } = self.totals();
        let seconds = |ms: f64| format!("{:.3}", ms / 1000.0);
        let total = seconds(self.ms());
        let tests = self.cases.len();
        let counts =
            format!("tests=\"{tests}\" failures=\"{failed}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{total}\"");
        let mut out = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{}\" {counts}>\n  <testsuite name=\"{name}\" {counts}>\n",
            xml(&self.command)
        );
        let listed = |failures: &[Failure]| {
            let all: Vec<String> =
                failures.iter().map(|f| format!("{}: {}", f.expectation, f.message)).collect();
            xml(&all.join("\n"))
        };
        for case in &self.cases {
            let time = case.ms.map(|ms| format!(" time=\"{}\"", seconds(ms))).unwrap_or_default();
            let head = format!("    <testcase name=\"{}\" classname=\"{name}\"{time}", xml(&case.name));
            let mut body = String::new();
            if let (Some(error), Some(text)) = (&case.error, case.error_text()) {
                body += &format!(
                    "      <error message=\"{}\" type=\"error\">{}</error>\n",
                    xml(&error.message),
                    xml(&text)
                );
            } else if let Some(first) = case.failures.first() {
                body += &format!(
                    "      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                    xml(&first.message),
                    xml(&first.expectation),
                    listed(&case.failures)
                );
            } else if let Some(skipped) = &case.skipped {
                body += &format!("      <skipped message=\"{}\"/>\n", xml(&skipped.message));
            }
            if !case.warnings.is_empty() {
                body += &format!("      <system-out>{}</system-out>\n", listed(&case.warnings));
            }
            out += &match body.is_empty() {
                true => format!("{head}/>\n"),
                false => format!("{head}>\n{body}    </testcase>\n"),
            };
        }
        out + "  </testsuite>\n</testsuites>\n"
    }

    /// SARIF 2.1.0: one run of the tool `sonde`, a rule per kind of failure, a result per
    /// failure (and one per case in error) at level `error`, one per warning at `warning`, and
    /// one per skipped case of kind `notApplicable` (level `none`, as SARIF wants of any kind
    /// but `fail`), so that every case that was not a plain pass is counted. A file is named
    /// relative to `root` (the directory the run was started in, or else the file's own
    /// directory), whose absolute `file://` URI is the run's `originalUriBaseIds`, as SARIF
    /// wants a path beside a `uriBaseId` written, each result at its case's line; a server
    /// is a logical location, as there is no artifact to name.
    pub fn sarif(&self, root: &Path) -> String {
        let file = match &self.subject {
            Subject::File(file) => Some(artifact(file, root)),
            Subject::Server(_) => None,
        };
        let location = |line: Option<usize>| match &file {
            Some((relative, _)) => {
                let mut physical = json!({ "artifactLocation": { "uri": relative, "uriBaseId": URI_BASE } });
                if let Some(line) = line {
                    physical["region"] = json!({ "startLine": line });
                }
                json!([{ "physicalLocation": physical }])
            }
            None => json!([{ "logicalLocations": [{ "name": self.subject.name() }] }]),
        };
        let result = |rule: &str, level: &str, text: String, line| {
            let mut result = json!({
                "ruleId": rule,
                "level": level,
                "message": { "text": text },
                "locations": location(line),
            });
            if level == "none" {
                result["kind"] = json!("notApplicable");
            }
            result
        };
        let mut results = Vec::new();
        for case in &self.cases {
            let said = |text: &str| format!("{}: {text}", case.name);
            if let Some(text) = case.error_text() {
                results.push(result(ERROR_RULE.0, "error", said(&text), case.line));
            }
            for failure in &case.failures {
                results.push(result(&failure.expectation, "error", said(&failure.message), case.line));
            }
            for warning in &case.warnings {
                results.push(result(&warning.expectation, "warning", said(&warning.message), case.line));
            }
            if let (Some(skipped), None) = (&case.skipped, &case.error) {
                results.push(result(&skipped.expectation, "none", said(&skipped.message), case.line));
            }
        }
        let rules: Vec<Value> = self
            .rules
            .iter()
            .map(|(id, text)| (id.as_str(), text.as_str()))
            .chain([ERROR_RULE])
            .map(|(id, text)| json!({ "id": id, "shortDescription": { "text": text } }))
            .collect();
        let mut run = json!({
            "tool": { "driver": { "name": "sonde", "version": env!("CARGO_PKG_VERSION"), "rules": rules } },
            "results": results,
        });
        if let Some((_, base)) = &file {
            run["originalUriBaseIds"] = json!({ URI_BASE: { "uri": base } });
        }
        let log = json!({
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [run],
        });
        serde_json::to_string_pretty(&log).expect("JSON serializes") + "\n"
    }
}

/// `file` as SARIF names it: a relative reference (percent-encoded, no leading slash) and the
/// absolute `file://` URI of the directory it is relative to, ending in a slash: `root` when
/// the file is inside it, else the file's own directory.
fn artifact(file: &Path, root: &Path) -> (String, String) {
    let absolute = |path: &Path| {
        let joined = if path.is_absolute() { path.to_path_buf() } else { root.join(path) };
        joined.canonicalize().unwrap_or(joined)
    };
    let file = absolute(file);
    let root = absolute(root);
    let base = match file.starts_with(&root) {
        true => root,
        false => file.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("/")),
    };
    let base_uri = url::Url::from_directory_path(&base).ok();
    let file_uri = url::Url::from_file_path(&file).ok();
    match (base_uri, file_uri) {
        (Some(base), Some(uri)) => {
            let relative =
                base.make_relative(&uri).unwrap_or_else(|| uri.path().trim_start_matches('/').into());
            (relative, base.to_string())
        }
        // Not a path a file URI can name (never so for a path made absolute above); the name
        // alone, relative to the root.
        _ => (
            file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            "file:///".into(),
        ),
    }
}

/// Text safe inside an XML attribute or element: the five entities escaped, control characters
/// other than newline and tab (which XML 1.0 cannot carry) left out.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        let case = |name: &str, failures: Vec<Failure>, line| Case {
            failures,
            line: Some(line),
            ..Case::new(name, Some(1500.0))
        };
        Report {
            command: "sonde test".into(),
            subject: Subject::File(PathBuf::from("tests/my suite.yaml")),
            rules: vec![("text".into(), "The text holds the words.".into())],
            cases: vec![
                case("adds", vec![], 2),
                case(
                    "a <wrong> sum",
                    vec![Failure::new("text", "no \"6\""), Failure::new("isError", "x")],
                    7,
                ),
            ],
        }
    }

    /// The JSON document counts what passed, failed and could not run, and times the whole.
    #[test]
    fn the_json_document_has_totals_and_an_unstarted_run_is_one_error() {
        let json = report().json();
        assert_eq!(
            (&json["passed"], &json["failed"], &json["errors"], &json["ms"]),
            (&json!(1), &json!(1), &json!(0), &json!(3000.0))
        );
        assert_eq!(json["tests"][1]["failures"][0], json!({"expectation": "text", "message": "no \"6\""}));
        assert_eq!(json["tests"][0].get("error"), None);

        let words = LastWords {
            lines: vec!["Traceback".into(), "ImportError: no mcp".into()],
            ..LastWords::default()
        };
        let unstarted = Report::unstarted(
            "sonde test",
            Subject::File("s.yaml".into()),
            vec![],
            "the server exited",
            &words,
            12.0,
        );
        let json = unstarted.json();
        assert_eq!((&json["passed"], &json["failed"], &json["errors"]), (&json!(0), &json!(0), &json!(1)));
        assert_eq!(
            json["tests"][0]["error"],
            json!({"message": "the server exited", "lastWords": ["Traceback", "ImportError: no mcp"]})
        );
        assert_eq!(json["tests"][0]["passed"], false);
    }

    /// JUnit escapes what it carries, times cases in seconds, and reports a run that could not
    /// start as an `error` with the last words.
    #[test]
    fn junit_has_a_failure_per_failed_case_and_an_error_for_a_run_that_could_not_start() {
        let junit = report().junit();
        assert!(
            junit.contains("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"3.000\""),
            "{junit}"
        );
        assert!(
            junit.contains("<testcase name=\"adds\" classname=\"tests/my suite.yaml\" time=\"1.500\"/>"),
            "{junit}"
        );
        assert!(
            junit.contains("<failure message=\"no &quot;6&quot;\" type=\"text\">text: no &quot;6&quot;\nisError: x</failure>"),
            "{junit}"
        );
        assert!(junit.contains("name=\"a &lt;wrong&gt; sum\""), "{junit}");

        let words = LastWords { lines: vec!["boom\u{7}".into()], ..LastWords::default() };
        let junit =
            Report::unstarted("sonde test", Subject::File("s.yaml".into()), vec![], "it exited", &words, 0.0)
                .junit();
        assert!(junit.contains("tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\""), "{junit}");
        assert!(
            junit.contains("<error message=\"it exited\" type=\"error\">it exited\nthe server&apos;s last words on stderr:\n  | boom</error>"),
            "{junit}"
        );
    }

    /// SARIF names the file relative to a base given as an absolute directory URI, never as a
    /// path that begins with a slash (SARIF1004).
    #[test]
    fn sarif_names_the_file_relative_to_a_base_uri_ending_in_a_slash() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("tests")).unwrap();
        let log: Value = serde_json::from_str(&report().sarif(&root)).unwrap();
        let run = &log["runs"][0];
        let base = run["originalUriBaseIds"]["SRCROOT"]["uri"].as_str().unwrap();
        assert_eq!(base, url::Url::from_directory_path(&root).unwrap().as_str());
        assert!(base.starts_with("file:///") && base.ends_with('/'), "{base}");
        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), 2, "a result per failure");
        let location = &results[0]["locations"][0]["physicalLocation"];
        assert_eq!(
            location["artifactLocation"],
            json!({"uri": "tests/my%20suite.yaml", "uriBaseId": "SRCROOT"})
        );
        assert_eq!(location["region"]["startLine"], 7);
        assert_eq!(results[1]["ruleId"], "isError");

        // A file outside the root is named from its own directory.
        let (relative, base) = artifact(Path::new("/etc/hosts"), &root);
        assert_eq!((relative.as_str(), base.as_str()), ("hosts", "file:///etc/"));

        let words = LastWords { lines: vec!["no such module".into()], ..LastWords::default() };
        let unstarted =
            Report::unstarted("sonde test", Subject::File("s.yaml".into()), vec![], "it exited", &words, 0.0);
        let log: Value = serde_json::from_str(&unstarted.sarif(&root)).unwrap();
        let results = log["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), 1);
        assert_eq!(results[0]["ruleId"], "error");
        assert!(results[0]["message"]["text"].as_str().unwrap().contains("| no such module"), "{results:?}");
    }

    /// A run of a server's checks: a skipped case is counted apart and is JUnit's `skipped`
    /// and SARIF's `notApplicable`; a case with a warning passes, its warning SARIF's level
    /// `warning` and JUnit's `system-out`; a case with no time has none in JUnit; the results
    /// name the server as a logical location, with no file and no base.
    #[test]
    fn a_server_run_counts_skips_apart_and_keeps_warnings_and_names_the_server() {
        let report = Report {
            command: "sonde doctor".into(),
            subject: Subject::Server("fixture --banner hi".into()),
            rules: vec![("stdout".into(), "stdout carries only protocol.".into())],
            cases: vec![
                Case::new("ping (2025-11-25)", Some(2.0)),
                Case { failures: vec![Failure::new("stdout", "a banner")], ..Case::new("stdout", None) },
                Case { warnings: vec![Failure::new("shutdown", "slow")], ..Case::new("shutdown", None) },
                Case {
                    skipped: Some(Failure::new("cancellation", "no tool named")),
                    ..Case::new("cancellation", None)
                },
            ],
        };
        let json = report.json();
        assert_eq!(
            (&json["passed"], &json["failed"], &json["errors"], &json["skipped"]),
            (&json!(2), &json!(1), &json!(0), &json!(1))
        );
        assert_eq!(json["tests"][1].get("ms"), None);
        assert_eq!(json["tests"][2]["warnings"][0]["message"], "slow");
        assert_eq!(json["tests"][3]["skipped"]["message"], "no tool named");

        let junit = report.junit();
        assert!(
            junit.contains("tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"0.002\""),
            "{junit}"
        );
        assert!(junit.contains("<testcase name=\"stdout\" classname=\"fixture --banner hi\">"), "{junit}");
        assert!(junit.contains("<skipped message=\"no tool named\"/>"), "{junit}");
        assert!(junit.contains("<system-out>shutdown: slow</system-out>"), "{junit}");

        let log: Value = serde_json::from_str(&report.sarif(Path::new("/"))).unwrap();
        let run = &log["runs"][0];
        assert_eq!(run.get("originalUriBaseIds"), None);
        let results = run["results"].as_array().unwrap();
        let levels: Vec<(&str, &str)> =
            results.iter().map(|r| (r["ruleId"].as_str().unwrap(), r["level"].as_str().unwrap())).collect();
        assert_eq!(levels, [("stdout", "error"), ("shutdown", "warning"), ("cancellation", "none")]);
        assert_eq!(results[2]["kind"], "notApplicable");
        assert_eq!(results[0]["locations"], json!([{"logicalLocations": [{"name": "fixture --banner hi"}]}]));
    }
}
