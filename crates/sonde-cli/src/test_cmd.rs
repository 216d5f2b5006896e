//! `sonde test`: a suite of saved calls run against a server, a line a test (`pass` or `fail`
//! with its first failed expectation), and the report asked for (text, json, junit, sarif) on
//! stdout or in `--out`; with `--json`, stdout is the JSON report. A server that could not start
//! still gets its report, the suite as one error with the server's last words. Exit 5 when a
//! test fails (contracts).
//!
//! Owns: reading the file given, the lines, where each report goes, and the exit code. Refuses:
//! running and judging tests (the core's `suite`) and the reports' formats
//! (the core's `Report`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use sonde_core::{
    run_suite, suite_report, unstarted_report, Case, CaseError, ErrorCode, Failure, LastWords, Report,
    RequestError, Session, Suite, TestVerdict, Totals,
};

use crate::args::Reporter;
use crate::exit::{FAILED, FOUND, OK};
use crate::reports;

/// What `sonde test` runs, its options checked: the suite read from `file` and where its
/// reports go; a usage error when `--json` and the reporter would both print on stdout.
pub fn plan(
    file: PathBuf,
    reporter: Reporter,
    out: Option<PathBuf>,
    json: bool,
) -> Result<(Suite, Outputs), String> {
    let report = reports::Outputs::checked(reporter, out, json, true)?;
    let suite = read(&file)?;
    Ok((suite, Outputs { file, report, json }))
}

/// The suite in `file`; a usage error says what is wrong and where.
fn read(file: &Path) -> Result<Suite, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let suite = Suite::parse(&text).map_err(|e| format!("{} is not a test suite: {e}", file.display()))?;
    if suite.tests.is_empty() {
        return Err(format!("{} has no tests", file.display()));
    }
    Ok(suite)
}

/// Where the reports of one run of the suite in `file` go.
#[derive(Debug, Clone)]
pub struct Outputs {
    pub file: PathBuf,
    pub report: reports::Outputs,
    /// `--json`: stdout is the JSON report.
    pub json: bool,
}

impl Outputs {
    /// Whether each test's line goes to stdout as it ends (stdout is not a report).
    fn lines(&self) -> bool {
        !self.json && !self.report.on_stdout()
    }

    /// Whether stdout is the JSON report: `--json`, or the json reporter without a file.
    pub fn json_on_stdout(&self) -> bool {
        self.json || (self.report.reporter == Reporter::Json && self.report.out.is_none())
    }
}

/// Runs `suite` on `session`; 5 when a test fails, 1 when the server died under it. The error of a connection gone before any
/// test ran, whose report is written once the server's last words are known ([`unstarted`]).
pub async fn run(session: &Session, suite: &Suite, to: &Outputs) -> Result<i32, RequestError> {
    let lines = to.lines();
    let verdicts = run_suite(session, suite, |v| {
        if lines {
            outln!("{}", words(v));
        }
    })
    .await?;
    let report = suite_report(&to.file, suite, &verdicts);
    if let Err(code) = write(&report, to, None) {
        return Ok(code);
    }
    let Totals { passed, failed, errors, .. } = report.totals();
    let mut said = format!("sonde test: {passed} of {} passed", verdicts.len());
    if failed > 0 {
        said += &format!(", {failed} failed");
    }
    if errors > 0 {
        said += &format!(", {errors} could not run");
    }
    noteln!("{said}");
    // A server that died under the suite failed the run, whatever the tests before said.
    Ok(if errors > 0 {
        FAILED
    } else if failed > 0 {
        FOUND
    } else {
        OK
    })
}

/// Writes the reports of a suite that could not run (the server did not start, or the
/// connection was gone before any test ran, after `waited`; `message` and `code` say which):
/// the suite as one error with the server's last `words`; with `--json`, the report printed on
/// stdout carries the failure as `--json` prints one (`error`).
pub fn unstarted(to: &Outputs, message: &str, code: ErrorCode, words: &LastWords, waited: Duration) {
    let report = unstarted_report(&to.file, message, words, waited.as_secs_f64() * 1000.0);
    let error = serde_json::json!({"code": code, "exit": FAILED, "message": message});
    let _ = write(&report, to, Some(error));
}

/// The report in `--out` (or on stdout when it has no file), and the JSON report on stdout with
/// `--json` (with `error` in it when the run failed); the exit code of a file that cannot be
/// written.
fn write(report: &Report, to: &Outputs, error: Option<Value>) -> Result<(), i32> {
    let unstarted = error.is_some();
    let text = || report.cases.iter().map(|c| case_line(c) + "\n").collect();
    to.report.to_file("sonde test", report, &text)?;
    if to.json_on_stdout() {
        let mut document = report.json();
        if let Some(error) = error.filter(|_| to.json) {
            document["error"] = error;
        }
        crate::print::json_line(&document);
    } else {
        to.report.print(report);
    }
    // A run that could not start printed no line as it went; its one case's line says why.
    if to.lines() && unstarted {
        report.cases.iter().filter(|c| c.error.is_some()).for_each(|c| outln!("{}", case_line(c)));
    }
    Ok(())
}

/// A test's line: `pass  NAME (12 ms)`, or `fail  NAME: EXPECTATION: why`.
fn words(v: &TestVerdict) -> String {
    let error =
        v.error.as_ref().map(|message| CaseError { message: message.clone(), last_words: Vec::new() });
    line(&v.name, Some(v.ms), &v.failures, error.as_ref())
}

/// A case's line, as a test's; a case that could not run is `error NAME: why`.
fn case_line(case: &Case) -> String {
    line(&case.name, case.ms, &case.failures, case.error.as_ref())
}

fn line(name: &str, ms: Option<f64>, failures: &[Failure], error: Option<&CaseError>) -> String {
    match (error, failures.first()) {
        (Some(error), _) => format!("error {name}: {}", error.message),
        (None, Some(f)) => format!("fail  {name}: {}: {}", f.expectation, f.message),
        (None, None) => format!("pass  {name} ({} ms)", ms.unwrap_or(0.0).round()),
    }
}
