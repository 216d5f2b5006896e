//! `sonde test`: a suite of saved calls run against a server, a line a test (`pass` or `fail`
//! with its first failed expectation), and the report asked for (text, json, junit, sarif) on
//! stdout or in `--out`. Exit 5 when a test fails (contracts).
//!
//! Owns: reading the file given, the lines and the exit code. Refuses: running and judging
//! tests (`sonde_core::suite`) and the reports' formats (`test_reports`).

use std::path::Path;

use sonde_core::suite::{self, Suite, Verdict};
use sonde_core::Session;

use crate::args::Reporter;
use crate::exit::{FAILED, FOUND, OK};
use crate::test_reports;

/// The suite in `file`; a usage error says what is wrong and where.
pub fn read(file: &Path) -> Result<Suite, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let suite = Suite::parse(&text).map_err(|e| format!("{} is not a test suite: {e}", file.display()))?;
    if suite.tests.is_empty() {
        return Err(format!("{} has no tests", file.display()));
    }
    Ok(suite)
}

/// Runs `suite` on `session`; 5 when a test fails.
pub async fn run(
    session: &Session,
    suite: &Suite,
    file: &Path,
    reporter: Reporter,
    out: Option<&Path>,
) -> i32 {
    // The lines go to stdout as each test ends, unless stdout is the report.
    let lines = reporter == Reporter::Text || out.is_some();
    let verdicts = suite::run(session, suite, |v| {
        if lines {
            line(v);
        }
    })
    .await;
    let report = match reporter {
        // The lines themselves, when they go to a file too.
        Reporter::Text => out.map(|_| verdicts.iter().map(|v| words(v) + "\n").collect()),
        Reporter::Json => Some(test_reports::json(&verdicts)),
        Reporter::Junit => Some(test_reports::junit(file, &verdicts)),
        Reporter::Sarif => Some(test_reports::sarif(file, suite, &verdicts)),
    };
    match (report, out) {
        (Some(report), Some(path)) => {
            if let Err(e) = std::fs::write(path, report) {
                errln!("sonde: cannot write the report to {}: {e}", path.display());
                return FAILED;
            }
            noteln!("sonde test: wrote the report to {}", path.display());
        }
        (Some(report), None) => outln!("{}", report.trim_end()),
        (None, _) => {}
    }
    let failed = verdicts.iter().filter(|v| !v.passed()).count();
    noteln!(
        "sonde test: {} of {} passed{}",
        verdicts.len() - failed,
        verdicts.len(),
        if failed > 0 { format!(", {failed} failed") } else { String::new() }
    );
    if failed > 0 {
        FOUND
    } else {
        OK
    }
}

fn line(v: &Verdict) {
    outln!("{}", words(v));
}

/// A test's line: `pass  NAME (12 ms)`, or `fail  NAME: EXPECTATION: why`.
fn words(v: &Verdict) -> String {
    match v.failures.first() {
        None => format!("pass  {} ({} ms)", v.name, v.ms.round()),
        Some(f) => format!("fail  {}: {}: {}", v.name, f.expectation, f.message),
    }
}
