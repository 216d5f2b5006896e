//! `sonde doctor`: the check-up of a server, printed one check per line as each is made, or as
//! one JSON object (`{"checks":[…]}`) with `--json`; and the report asked for (`--reporter`:
//! text, json, junit, sarif) on stdout or in `--out`, a check a case. A server that could not be
//! opened still gets its report, as one error with its last words.
//!
//! Owns: the words and the exit code. Refuses: the checks themselves (the core's `doctor`),
//! what a check is in a report (the core's `doctor::reports`) and the reports' formats.

use std::path::PathBuf;

use serde_json::json;
use sonde_core::{check_up, Baselines, Beside, Check, CheckupPlan, Hub, ServerStore, Servers};

use crate::args::{Common, Global, Reporter};
use crate::exit::{FAILED, FOUND, INTERRUPTED, OK, USAGE};
use crate::{recording, reports};

/// What `sonde doctor` was asked beyond the server: `--call` with its `--args`, and the report.
pub struct Asked {
    pub call: Option<String>,
    pub args: Option<String>,
    pub reporter: Reporter,
    pub out: Option<PathBuf>,
    pub token_budget: u64,
}

/// The name `this` is saved under, if it is (the name a host knows it by), and the saved
/// servers beside it as their baselines last saw them. No servers file: none; reading never
/// creates one.
fn saved_beside(this: &sonde_core::Target) -> (Option<String>, Vec<Beside>) {
    let (Ok(store), Ok(baselines)) = (ServerStore::default_location(), Baselines::default_location()) else {
        return (None, Vec::new());
    };
    if !store.path().exists() {
        return (None, Vec::new());
    }
    match Servers::load(store, "") {
        Ok(servers) => sonde_core::saved_beside(&servers.list(), &baselines, this),
        Err(e) => {
            errln!("sonde: the saved servers could not be read, so no tool of theirs is compared: {e}");
            (None, Vec::new())
        }
    }
}

/// Runs the check-up; `timeout_given`: `--timeout` was on the command line, and each probe
/// waits that long for its answer (else the core's probe timeout, or a shorter --timeout).
pub async fn run(global: &Global, timeout_given: bool, asked: Asked, common: &Common) -> i32 {
    let Asked { call, args, reporter, out, token_budget } = asked;
    let planned = global.server_config(&common.server).and_then(|config| {
        let call = match call {
            Some(tool) => {
                Some((tool, crate::arguments::object("--args", args, &[])?.unwrap_or_else(|| json!({}))))
            }
            None => None,
        };
        let probe_timeout = timeout_given.then(|| std::time::Duration::from_millis(global.timeout));
        // --json keeps its own document: beside it, only a report with a file of its own.
        let to = reports::Outputs::checked(reporter, out, common.json, false)?;
        let mut config = config;
        let mut beside = Vec::new();
        if config.host.is_some() {
            let (saved_as, saved) = saved_beside(&config.target);
            config.name = config.name.or(saved_as);
            beside = saved;
        }
        Ok((config, CheckupPlan { call, probe_timeout, token_budget: Some(token_budget), beside }, to))
    });
    let (config, plan, to) = match planned {
        Ok(planned) => planned,
        Err(message) => {
            errln!("sonde: {message}");
            return USAGE;
        }
    };
    let Some(log) = crate::run::session_log() else { return FAILED };
    noteln!("sonde: session log {}", log.path().display());
    let teller = recording::start(&log);
    // No era cache: the check-up decides the era afresh, as a new client would.
    let mut hub = Hub::new(log.clone());
    if global.url.is_some() {
        hub = hub.with_authorizer(crate::auth::authorizer(global.no_browser));
    }
    let json = common.json;
    // The lines go to stdout unless it is the report's or --json's.
    let lines = !json && !to.on_stdout();
    let each = move |check: &Check| {
        if lines {
            outln!("{}", line(check));
        }
    };
    let started = std::time::Instant::now();
    let report = tokio::select! {
        report = check_up(&hub, &config, &plan, &each) => report,
        _ = tokio::signal::ctrl_c() => {
            errln!("sonde: interrupted; stopping the server");
            hub.cancel_all("interrupted by the user");
            hub.disconnect_all().await;
            recording::finish(&log, teller).await;
            return INTERRUPTED;
        }
    };
    hub.disconnect_all().await;
    // The report: a check a case; a server that could not be opened one error with its last
    // words, as `sonde test` reports a suite that could not start.
    let server = config.target.describe();
    let cases = match report.checks.first().and_then(|c| c.conn).filter(|_| report.unopened()) {
        Some(conn) => {
            let words = hub.last_words(conn, &config, true);
            report.unopened_cases(&server, &words, started.elapsed().as_secs_f64() * 1000.0)
        }
        None => report.cases(&server),
    };
    let text = || report.checks.iter().map(|c| line(c) + "\n").collect();
    let written = to.to_file("sonde doctor", &cases, &text);
    if !json {
        to.print(&cases);
    }
    let findings = crate::findings::line(&log);
    recording::finish(&log, teller).await;
    if json {
        let mut document = json!({ "checks": report.checks });
        if let Some(field) = recording::field(&log) {
            document["log"] = field;
        }
        outln!("{document}");
    }
    // A server that died during the check-up is explained by what it said last.
    if let Some(conn) =
        report.checks.iter().find(|c| c.detail.starts_with("not run: the server ended")).and_then(|c| c.conn)
    {
        crate::words::print(&hub.last_words(conn, &config, true));
    }
    errln!("sonde doctor: {}", report.tally);
    if let Some(words) = findings {
        errln!("sonde: {words}");
    }
    // A server that could not be opened failed (1), as did a report that could not be
    // written; a check that failed on one that opened is what doctor looks for (5).
    if let Err(code) = written {
        code
    } else if report.unopened() {
        FAILED
    } else if report.failed() {
        FOUND
    } else {
        OK
    }
}

/// `fail  2025-11-25  reply-id-type         the server answered … (seq 12)`: the era's
/// revision, or `-` for an opening that failed before an era was decided.
fn line(check: &Check) -> String {
    let seq = check.seq.map(|s| format!(" (seq {s})")).unwrap_or_default();
    let era = check.revision().unwrap_or("-");
    format!("{:<4}  {era:<10}  {:<21} {}{seq}", check.status.name(), check.id, check.detail)
}
