//! `sonde load`: a load run on one server, a progress line each second on stderr, the report at
//! the end (text, or `--json`'s document), the reporter asked for, and the exit code: 5 when the
//! budget (`--slo`; without one, "no call failed") is broken, 1 when the server died, 130 when
//! interrupted (Ctrl-C stops sending; the report of what ran is printed first).
//!
//! Owns: reading the options into a `LoadPlan`, the tool's arguments from the words (a name the
//! server does not list is not sent, exit 2, the closest named), the sessions an HTTP run
//! spreads over (`--connections`, each closed after it), the progress line, the text report,
//! and the exit code. Refuses: pacing, measuring and judging (the core's `load`), the
//! reports' formats (the core's `Report`).

use std::time::Duration;

use serde_json::Value;
use sonde_core::{
    kinds_words, ms_words, parse_duration, parse_mix, parse_rate, parse_steps, run_load, Hub, LoadControl,
    LoadError, LoadOp, LoadPlan, LoadReport, LoadSecond, LoadStep, Pacing, ServerConfig, Session, Slo,
    Weighted,
};

use crate::args::{LoadArgs, Reporter};
use crate::exit::{worst, FAILED, FOUND, INTERRUPTED, OK, USAGE};
use crate::reports;

/// `sonde load` as planned before anything starts: every option checked.
pub struct LoadOpts {
    pub plan: LoadPlan,
    /// The tool's words, set once its schema is known (empty with --mix).
    pub words: Option<(Option<Value>, Vec<String>)>,
    pub slo: Option<Slo>,
    pub report: reports::Outputs,
    pub json: bool,
    /// Sessions to spread the calls over (HTTP only).
    pub connections: usize,
}

/// Ten calls a second for ten seconds, when nothing else is asked.
const DEFAULT_RATE: f64 = 10.0;
const DEFAULT_DURATION: Duration = Duration::from_secs(10);

/// Every option read; a usage error says which and why.
pub fn plan(g: LoadArgs, json: bool, stdio: bool) -> Result<LoadOpts, String> {
    match g.connections {
        0 => return Err("--connections must be at least 1".into()),
        n if n > 1 && stdio => return Err(
            "--connections is for --url: over stdio one server takes every call, pipelined on its connection"
                .into(),
        ),
        _ => {}
    }
    let report = reports::Outputs::checked(g.reporter, g.out, json, true)?;
    let duration =
        g.duration.as_deref().map(parse_duration).transpose().map_err(|e| format!("--duration: {e}"))?;
    let warmup = g.warmup.as_deref().map(parse_duration).transpose().map_err(|e| format!("--warmup: {e}"))?;
    if duration.is_some_and(|d| d.is_zero()) {
        return Err("--duration must be longer than 0".into());
    }
    if g.count == Some(0) {
        return Err("--count must be at least 1".into());
    }
    let pacing = match (g.concurrency, g.stages) {
        (Some(0), _) => return Err("--concurrency must be at least 1".into()),
        (Some(concurrency), _) => Pacing::Closed {
            concurrency,
            duration: duration.or(g.count.is_none().then_some(DEFAULT_DURATION)),
            count: g.count,
        },
        (None, Some(stages)) => Pacing::Open {
            steps: parse_steps(&stages).map_err(|e| format!("--stages: {e}"))?,
            count: g.count,
        },
        (None, None) => {
            let rate = g.rate.as_deref().map(parse_rate).transpose().map_err(|e| format!("--rate: {e}"))?;
            let rate = rate.unwrap_or(DEFAULT_RATE);
            // A count alone runs as long as it takes at the rate.
            let duration = match (duration, g.count) {
                (Some(d), _) => d,
                (None, Some(n)) => Duration::from_secs_f64(n as f64 / rate),
                (None, None) => DEFAULT_DURATION,
            };
            Pacing::Open { steps: vec![LoadStep { rate, duration }], count: g.count }
        }
    };
    let (mix, words) = match (&g.mix, g.tool) {
        (Some(file), _) => {
            let text =
                std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            (parse_mix(&text).map_err(|e| format!("{}: {e}", file.display()))?, None)
        }
        (None, Some(name)) => {
            let given = crate::arguments::given("--args", g.args)?;
            crate::arguments::with_words(given.clone(), &g.pairs, None)?;
            (vec![Weighted { op: LoadOp::Tool { name, arguments: None }, weight: 1 }], Some((given, g.pairs)))
        }
        (None, None) => return Err("give the tool to call, or --mix FILE".into()),
    };
    let slo = g.slo.as_deref().map(Slo::parse).transpose().map_err(|e| format!("--slo: {e}"))?;
    let plan = LoadPlan { mix, pacing, warmup: warmup.unwrap_or_default(), seed: g.seed };
    Ok(LoadOpts { plan, words, slo, report, json, connections: g.connections })
}

/// Runs the load over `session` and `opts.connections - 1` more sessions of `config` opened for
/// it (HTTP), each closed after the run.
pub async fn spread(hub: &Hub, config: &ServerConfig, session: &Session, opts: LoadOpts) -> i32 {
    let config = ServerConfig { restart: None, job: true, ..config.clone() };
    let mut sessions = vec![session.clone()];
    let mut opened = Vec::new();
    let mut failed = None;
    for _ in 1..opts.connections {
        match hub.connect(&config).await.and_then(|id| {
            opened.push(id);
            hub.session(id)
        }) {
            Ok(more) => sessions.push(more),
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    let code = match failed {
        Some(e) => {
            errln!("sonde: could not open session {} of {}: {e}", sessions.len() + 1, opts.connections);
            FAILED
        }
        None => {
            noteln!("sonde: load: {} sessions, the calls spread over them in turn", sessions.len());
            run(&sessions, opts).await
        }
    };
    for id in opened {
        if let Err(e) = hub.disconnect(id).await {
            errln!("sonde: connection {id} could not be closed: {e}");
        }
    }
    code
}

/// Runs the load on `sessions` (a call each in turn): Ctrl-C stops it (the report still comes).
pub async fn run(sessions: &[Session], mut opts: LoadOpts) -> i32 {
    let session = &sessions[0];
    if let Some((given, pairs)) = opts.words.take() {
        let LoadOp::Tool { name, arguments } = &mut opts.plan.mix[0].op else { unreachable!("one tool") };
        let definition = match crate::suggest::find_tool(session, name).await {
            Ok(Ok(definition)) => definition,
            Ok(Err(words)) => {
                errln!("sonde: {words}");
                return USAGE;
            }
            Err(e) => {
                errln!("sonde: cannot list the tools: {e}");
                return FAILED;
            }
        };
        match crate::arguments::with_words(given, &pairs, Some(&definition["inputSchema"])) {
            Ok(args) => *arguments = args,
            Err(e) => {
                errln!("sonde: {e}");
                return USAGE;
            }
        }
    }
    let control = LoadControl::new();
    let stopper = {
        let control = control.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                control.stop();
            }
        })
    };
    say_start(&opts.plan);
    let ran = run_load(sessions, &opts.plan, &control, progress).await;
    stopper.abort();
    let report = match ran {
        Ok(report) => report,
        Err(LoadError::NotListed { name, .. }) => {
            errln!("sonde: the server does not list {name:?}");
            return USAGE;
        }
        Err(LoadError::Request(e)) => {
            errln!("sonde: {e}");
            return FAILED;
        }
    };
    // Without a budget, the budget is that no call failed.
    let (report, held) = match &opts.slo {
        Some(slo) => report.judged(slo),
        None => {
            let held = report.errors == 0;
            (report, held)
        }
    };
    let cases = sonde_core::load_cases(&report, &server_name(session));
    if let Err(code) = opts.report.to_file("load", &cases, &|| text(&report)) {
        return code;
    }
    if opts.json || (opts.report.reporter == Reporter::Json && opts.report.out.is_none()) {
        crate::print::json_line(&serde_json::to_value(&report).expect("serializes"));
    } else if opts.report.on_stdout() {
        opts.report.print(&cases);
    } else {
        outln!("{}", text(&report).trim_end());
    }
    worst([
        if report.server_died_s.is_some() { FAILED } else { OK },
        if held { OK } else { FOUND },
        if report.interrupted { INTERRUPTED } else { OK },
    ])
}

/// The server as the reports name it: its serverInfo name.
fn server_name(session: &Session) -> String {
    session.server.server_info.get("name").and_then(Value::as_str).unwrap_or("server").to_owned()
}

fn say_start(plan: &LoadPlan) {
    let what: Vec<String> = plan.mix.iter().map(|w| w.op.label()).collect();
    let warm = if plan.warmup.is_zero() {
        String::new()
    } else {
        format!(", after a {} warm-up", sonde_core::duration_words(plan.warmup))
    };
    noteln!("sonde: load: {}{warm}; Ctrl-C stops it and prints the report", what.join(", "));
}

/// The line each second: what was sent and answered in it, its latency, the errors.
fn progress(s: &LoadSecond) {
    let errors = if s.errors == 0 {
        String::new()
    } else {
        let kinds: std::collections::BTreeMap<String, u64> =
            s.errors_by_kind.iter().map(|(k, n)| (k.clone(), u64::from(*n))).collect();
        format!(", {} ({})", count_words(u64::from(s.errors), "error"), kinds_words(&kinds))
    };
    crate::out::status(format_args!(
        "sonde: load {:>3} s: {:.0}/s sent, {} answered, p50 {}, p99 {}{errors}",
        s.t,
        s.rate,
        s.answered,
        ms_words(s.p50_ms),
        ms_words(s.p99_ms)
    ));
}

/// `1 error`, `3 errors`.
fn count_words(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The report as a person reads it.
pub fn text(r: &LoadReport) -> String {
    let mut out = String::new();
    let how = if r.pacing == "open" {
        "open loop: each latency from when its call was due"
    } else {
        "closed loop: each latency from when its call was sent"
    };
    out += &format!("load       {} ({how})\n", r.asked);
    if r.warmup_s > 0.0 {
        out += &format!("warm-up    {:.1} s, not counted\n", r.warmup_s);
    }
    out += &format!(
        "calls      {} in {:.1} s, {} ({:.3}%), {} unfinished\n",
        r.count,
        r.duration_s,
        count_words(r.errors, "error"),
        r.error_share() * 100.0,
        r.unfinished
    );
    out += &format!("rate       {:.1}/s reached\n", r.rate);
    let p = &r.latency_ms;
    out += &format!(
        "latency    p50 {}  p90 {}  p99 {}  p99.9 {}  max {}\n",
        ms_words(p.p50),
        ms_words(p.p90),
        ms_words(p.p99),
        ms_words(p.p999),
        ms_words(p.max)
    );
    if !r.errors_by_kind.is_empty() {
        out += &format!("errors     {}\n", kinds_words(&r.errors_by_kind));
    }
    if let Some(at) = r.server_died_s {
        out += &format!("server     died {at:.1} s into the run; sending stopped\n");
    }
    if r.interrupted {
        out += "stopped    interrupted; the figures are of what ran\n";
    }
    out += &usage_line(r);
    out += &histogram(r);
    out += "each second (sent/s, answered, p50, p99, errors, server cpu, rss):\n";
    for s in &r.seconds {
        let cpu = s.cpu_percent.map(|c| format!("  cpu {c:.0}%")).unwrap_or_default();
        let rss = s.rss_bytes.map(|b| format!("  rss {:.1} MiB", b as f64 / 1048576.0)).unwrap_or_default();
        out += &format!(
            "  {:>4} s  {:>7.0}/s  {:>7}  p50 {:>9}  p99 {:>9}  {:>5} errors{cpu}{rss}\n",
            s.t,
            s.rate,
            s.answered,
            ms_words(s.p50_ms),
            ms_words(s.p99_ms),
            s.errors
        );
    }
    out += &format!("recorded   {} in the session log\n", r.recorded);
    for v in &r.slo {
        out += &format!("slo        {} {}: {}\n", v.term, if v.held { "held" } else { "BROKEN" }, v.measured);
    }
    out
}

/// The server's cost over the run, where Sonde sampled it.
fn usage_line(r: &LoadReport) -> String {
    let cpu: Vec<f64> = r.seconds.iter().filter_map(|s| s.cpu_percent).collect();
    let rss: Vec<u64> = r.seconds.iter().filter_map(|s| s.rss_bytes).collect();
    match (cpu.is_empty(), rss.first(), rss.last()) {
        (false, Some(first), Some(last)) => format!(
            "server     cpu {:.0}% of a CPU on average, {:.0}% at most; rss {:.1} MiB → {:.1} MiB\n",
            cpu.iter().sum::<f64>() / cpu.len() as f64,
            cpu.iter().cloned().fold(0.0, f64::max),
            *first as f64 / 1048576.0,
            *last as f64 / 1048576.0
        ),
        _ => String::new(),
    }
}

/// The latency histogram as bars.
fn histogram(r: &LoadReport) -> String {
    let most = r.histogram.iter().map(|b| b.count).max().unwrap_or(0);
    if most == 0 {
        return String::new();
    }
    let mut out = "histogram\n".to_owned();
    for b in r.histogram.iter().filter(|b| b.count > 0) {
        let bar = "█".repeat(((b.count * 40).div_ceil(most)) as usize);
        out += &format!("  ≤ {:>9}  {bar} {}\n", ms_words(b.le_ms), b.count);
    }
    out
}
