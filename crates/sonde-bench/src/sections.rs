//! The measurements. Each one runs Sonde and its baseline in the same run.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sonde_core::{Direction, Entry, EraPolicy, Filter, Hub, Kind, ServerConfig, SpawnSpec, Summary, WireLog};

use crate::direct::Direct;
use crate::figures::{median_min_max, percentile, Report, Row};

/// How many interleaved rounds (Sonde, then its baseline) a ratio is the median of.
const ROUNDS: usize = 5;

pub fn runtime() -> tokio::runtime::Runtime {
    if std::env::var_os("BENCH_CURRENT_THREAD").is_some() {
        return tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    }
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

pub fn temp_log(name: &str) -> std::sync::Arc<WireLog> {
    let dir = std::env::temp_dir().join(format!("sonde-bench-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    WireLog::create_in(&dir).unwrap()
}

pub fn fixture(args: &[&str]) -> ServerConfig {
    let argv = crate::fixture_argv(args);
    let mut config = ServerConfig::stdio(SpawnSpec::new(&argv[0], argv[1..].iter()));
    // The fixture speaks 2025-11-25; pinning skips the probe so only the work is measured.
    config.era = EraPolicy::Legacy;
    config.options.request_timeout = Duration::from_secs(600);
    config
}

/// How many interleaved rounds the ingest ratio is the median of: a round is a third of a
/// second, and single rounds on this VM range over half the median either way.
const INGEST_ROUNDS: usize = 11;

/// 1. Ingest: N notifications through the core, recorded to disk, against read-and-parse.
pub fn ingest(report: &mut Report, n: u64) {
    let flood = n.to_string();
    let args = ["--flood", flood.as_str()];
    let rt = runtime();
    let (mut ratios, mut core_rates, mut bare_rates) = (Vec::new(), Vec::new(), Vec::new());
    // Interleaved rounds, Sonde then the bare loop: the machine's moods fall on both.
    for _ in 0..INGEST_ROUNDS {
        let log = temp_log("ingest");
        let core_s = rt.block_on(async {
            let hub = Hub::new(log.clone());
            let id = hub.connect(&fixture(&args)).await.unwrap();
            let started = Instant::now();
            hub.call_tool(id, "echo", Some(json!({"text": "x"}))).await.unwrap();
            log.flush().unwrap();
            let elapsed = started.elapsed();
            hub.disconnect(id).await.unwrap();
            elapsed.as_secs_f64()
        });
        let recorded = log
            .entries(&Filter::parse("method:notifications/message").unwrap())
            .map(|e| e.len())
            .unwrap_or(0);
        assert_eq!(recorded as u64, n, "every flooded frame is in the log");
        let _ = std::fs::remove_file(log.path());
        let mut direct = Direct::start(&args);
        let started = Instant::now();
        direct.send(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}"#,
        );
        let lines = direct.read_until_id(1);
        let bare_s = started.elapsed().as_secs_f64();
        assert_eq!(lines, n + 1);
        let (core_rate, bare_rate) = ((n + 1) as f64 / core_s, (n + 1) as f64 / bare_s);
        ratios.push(core_rate / bare_rate);
        core_rates.push(core_rate);
        bare_rates.push(bare_rate);
    }
    let (ratio, rmin, rmax) = median_min_max(ratios);
    let (core_rate, _, _) = median_min_max(core_rates);
    let (bare_rate, _, _) = median_min_max(bare_rates);
    report.row(Row {
        figure: format!("ingest: {n} notifications, frames/s (with the disk log)"),
        sonde: format!("{core_rate:.0}/s; {ratio:.2}× ({rmin:.2}–{rmax:.2})"),
        baseline: format!("{bare_rate:.0}/s read+parse loop"),
        ratio: Some(ratio),
        target: "≥ 0.9× (median)".into(),
        met: Some(ratio >= 0.9),
    });
    report.detail("ingest", json!({"frames": n + 1, "rounds": INGEST_ROUNDS, "ratio": ratio, "ratio_min": rmin, "ratio_max": rmax, "sonde_fps": core_rate, "bare_fps": bare_rate}));
}

/// Where the request overhead's client and server run. On an idle machine a pipe's round trip
/// is bimodal: with the client and the server on one CPU a reply runs at once, and on two, each
/// hand-off wakes a sleeping CPU (on this VM, 15 µs against 70 µs for the same blocking loop),
/// so an unpinned run measures where the scheduler put each side as much as the side. Idle, both
/// placements are pinned and measured; loaded, the scheduler places them among the burners.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Placement {
    SameCpu,
    SplitCpus,
    Loaded,
}

impl Placement {
    pub const ALL: [Placement; 3] = [Placement::SameCpu, Placement::SplitCpus, Placement::Loaded];

    fn words(self) -> &'static str {
        match self {
            Placement::SameCpu => "idle, client and server on one CPU",
            Placement::SplitCpus => "idle, client and server on two CPUs",
            Placement::Loaded => "loaded (a spinning thread per CPU beside it)",
        }
    }

    fn key(self) -> &'static str {
        match self {
            Placement::SameCpu => "overhead_same_cpu",
            Placement::SplitCpus => "overhead_split_cpus",
            Placement::Loaded => "overhead_loaded",
        }
    }
}

/// One side's (p50, p99) in ms over `n` calls, run in a fresh process (`overhead-one`), so no
/// side runs beside another's leftover threads, each pinned as `placement` says.
fn overhead_side(side: &str, n: usize, placement: Placement) -> (f64, f64) {
    let exe = std::env::current_exe().unwrap();
    let mut command = match placement {
        Placement::Loaded => Command::new(&exe),
        _ => {
            let mut c = Command::new("taskset");
            c.args(["-c", "0"]).arg(&exe);
            c
        }
    };
    command.args(["overhead-one", side, &n.to_string(), "--json"]);
    if placement == Placement::SplitCpus {
        command.env("BENCH_SERVER_CPUS", "1");
    }
    let out = command.output().unwrap();
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("overhead-one {side}: {e}: {out:?}"));
    (v["p50"].as_f64().unwrap(), v["p99"].as_f64().unwrap())
}

/// 2. Request overhead: sequential tools/call round trips through the hub against a direct loop.
///
/// In interleaved rounds; the ratios of p50 and p99 are medians over the rounds.
pub fn overhead(report: &mut Report, n: usize, placement: Placement) {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if placement == Placement::SplitCpus && cpus < 2 {
        return;
    }
    // Loaded: a spinning thread per CPU beside both Sonde and its baselines, for all their rounds.
    let _burner = (placement == Placement::Loaded).then(crate::load::Burner::start);
    let when = placement.words();
    let per_round = (n / ROUNDS).max(1);
    let (mut r50s, mut r99s, mut p50s, mut p99s, mut d50s, mut d99s) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut t50s, mut t99s, mut rt50s) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let [(p50, p99), (d50, d99), (t50, t99)] =
            ["sonde", "direct", "tokio"].map(|side| overhead_side(side, per_round, placement));
        t50s.push(t50);
        t99s.push(t99);
        rt50s.push(p50 / t50);
        r50s.push(p50 / d50);
        r99s.push(p99 / d99);
        p50s.push(p50);
        p99s.push(p99);
        d50s.push(d50);
        d99s.push(d99);
    }
    let (r50, r50_min, r50_max) = median_min_max(r50s);
    let (r99, r99_min, r99_max) = median_min_max(r99s);
    let m = |v: Vec<f64>| median_min_max(v).0;
    let (p50, p99, d50, d99) = (m(p50s), m(p99s), m(d50s), m(d99s));
    report.row(Row {
        figure: format!("request overhead, {when}: {n} sequential tools/call"),
        sonde: format!(
            "p50 {p50:.3} ms ({r50:.2}×, {r50_min:.2}–{r50_max:.2}), p99 {p99:.3} ms ({r99:.2}×, {r99_min:.2}–{r99_max:.2})"
        ),
        baseline: format!("p50 {d50:.3} ms, p99 {d99:.3} ms direct loop"),
        ratio: Some(r50),
        target: "≤ 1.5× at p50, ≤ 2× at p99 (medians)".into(),
        met: Some(r50 <= 1.5 && r99 <= 2.0),
    });
    let (t50, t99) = (m(t50s), m(t99s));
    let (rt50, rt50_min, rt50_max) = median_min_max(rt50s);
    report.row(Row {
        figure: format!("request overhead, {when}, against the async floor"),
        sonde: format!("p50 {p50:.3} ms ({rt50:.2}×, {rt50_min:.2}–{rt50_max:.2})"),
        baseline: format!("p50 {t50:.3} ms, p99 {t99:.3} ms the same loop on tokio's pipes, one task"),
        ratio: Some(rt50),
        target: "—".into(),
        met: None,
    });
    report.detail(
        placement.key(),
        json!({"calls": n, "rounds": ROUNDS, "p50_ratio": r50, "p99_ratio": r99,
        "sonde_p50": p50, "sonde_p99": p99, "direct_p50": d50, "direct_p99": d99,
        "tokio_p50": t50, "tokio_p99": t99, "p50_ratio_to_tokio": rt50}),
    );
}

/// `n` sequential echo calls through Sonde's core, each timed in ms. Sonde is called as the CLI
/// and the window call it: from a task on a worker (the caller spawns this).
async fn sonde_echo_calls(n: usize) -> Vec<f64> {
    let hub = Hub::new(temp_log("overhead"));
    let id = hub.connect(&fixture(&[])).await.unwrap();
    let session = hub.session(id).unwrap();
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let started = Instant::now();
        session.call_tool("echo", Some(json!({"text": "x"}))).await.unwrap();
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    hub.disconnect(id).await.unwrap();
    times
}

/// One side of the request overhead alone, `n` calls, for a profiler to watch (hidden
/// subcommand `overhead-one sonde|direct|tokio N [--json]`): prints its p50 and p99 in ms.
pub fn overhead_one(side: &str, n: usize, json: bool) {
    let rt = runtime();
    let mut ms = match side {
        "sonde" => rt.block_on(async { tokio::spawn(sonde_echo_calls(n)).await.unwrap() }),
        "direct" => Direct::start(&[]).echo_calls(n),
        "tokio" => rt.block_on(async { tokio::spawn(crate::direct::tokio_echo_calls(n)).await.unwrap() }),
        other => panic!("overhead-one: {other} is not sonde, direct or tokio"),
    };
    ms.sort_by(f64::total_cmp);
    let (p50, p99) = (percentile(&ms, 0.5), percentile(&ms, 0.99));
    if json {
        println!("{}", json!({"p50": p50, "p99": p99}));
    } else {
        println!("{side}: p50 {p50:.3} ms, p99 {p99:.3} ms over {n} calls");
    }
}

/// 3. Large frames, each in a fresh process so its peak RSS is its own.
pub fn large(report: &mut Report, sizes: &[u64]) {
    let mut all = Vec::new();
    for &mib in sizes {
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["large-one", &mib.to_string()])
            .output()
            .unwrap();
        let v: Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("large-one {mib}: {e}: {out:?}"));
        let payload_kib = (mib * 1024) as f64;
        let growth = (v["peak_kib"].as_f64().unwrap() - v["baseline_kib"].as_f64().unwrap()) / payload_kib;
        report.row(Row {
            figure: format!("large frame: one {mib} MiB line"),
            sonde: format!("{:.0} ms, peak RSS +{:.0} MiB", v["ms"].as_f64().unwrap(), growth * mib as f64),
            baseline: format!("{mib} MiB payload"),
            ratio: Some(growth),
            target: if mib == 50 { "peak ≤ 4× payload".into() } else { "—".into() },
            met: (mib == 50).then_some(growth <= 4.0),
        });
        all.push(json!({"mib": mib, "run": v}));
    }
    report.detail("large", Value::Array(all));
}

pub fn large_one(mib: u64) {
    let rt = runtime();
    rt.block_on(async {
        let hub = Hub::new(temp_log("large"));
        let id = hub.connect(&fixture(&["--big-mib", &mib.to_string()])).await.unwrap();
        let baseline = crate::peak_rss_kib();
        let started = Instant::now();
        let result = hub.call_tool(id, "echo", None).await.unwrap();
        hub.log().flush().unwrap();
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let text_len = result["content"][0]["text"].as_str().map_or(0, str::len);
        assert_eq!(text_len as u64, mib * 1024 * 1024);
        drop(result);
        let peak = crate::peak_rss_kib();
        hub.disconnect(id).await.unwrap();
        println!("{}", json!({"ms": ms, "baseline_kib": baseline, "peak_kib": peak}));
    });
}

/// 4. A million-entry session: append rate, random page reads, filter queries, RSS, disk.
pub fn million(report: &mut Report, n: u64) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["million-one", &n.to_string()])
        .output()
        .unwrap();
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("million-one: {e}: {out:?}"));
    let f = |k: &str| v[k].as_f64().unwrap();
    report.row(Row {
        figure: format!("{n}-entry session: append"),
        sonde: format!(
            "{:.0} entries/s, {:.0} bytes/entry on disk, RSS {:.0} MiB",
            f("append_per_s"),
            f("bytes_per_entry"),
            f("rss_mib")
        ),
        baseline: "—".into(),
        ratio: None,
        target: "—".into(),
        met: None,
    });
    report.row(Row {
        figure: format!("{n}-entry session: page of 50 at a random seq"),
        sonde: format!("mean {:.3} ms, max {:.3} ms", f("page_mean_ms"), f("page_max_ms")),
        baseline: "—".into(),
        ratio: None,
        target: "< 10 ms".into(),
        met: Some(f("page_max_ms") < 10.0),
    });
    report.row(Row {
        figure: format!("{n}-entry session: filter (method, first 100 matches of a rare one)"),
        sonde: format!("{:.1} ms", f("filter_ms")),
        baseline: "—".into(),
        ratio: None,
        target: "< 100 ms".into(),
        met: Some(f("filter_ms") < 100.0),
    });
    report.row(Row {
        figure: format!("{n}-entry session: free-text filter, first 100 matches of a rare word"),
        sonde: format!("{:.0} ms warm, {:.0} ms cold", f("text_filter_ms"), f("text_filter_cold_ms")),
        baseline: "—".into(),
        ratio: None,
        target: "≤ 300 ms, cold and warm".into(),
        met: Some(f("text_filter_ms").max(f("text_filter_cold_ms")) <= 300.0),
    });
    report.detail("million", v);
}

/// Appends `n` entries to `log`: notifications, with a rare request every 10,000th entry whose
/// method and text the filter queries look for (`method:tools/call`, `needle`).
fn fill(log: &WireLog, n: u64) {
    // A quarter of the entries are pings Sonde sent and a quarter their replies, so that the
    // timeline has a quarter of a million requests to draw; every entry holds `line {i}`.
    let mut pending: Option<u64> = None;
    for i in 0..n {
        // Every 10,000th entry is a rare method and word, for the filter queries.
        let (kind, method, text, dir) = if i % 10_000 == 0 {
            let text =
                format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"needle"}}}}"#);
            ("notification", "tools/call", text, Direction::In)
        } else if i % 4 == 0 {
            let text =
                format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping","params":{{"note":"line {i}"}}}}"#);
            ("request", "ping", text, Direction::Out)
        } else if i % 4 == 1 && pending.is_some() {
            let text = format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{"note":"line {i}"}}}}"#, i - 1);
            ("result", "ping", text, Direction::In)
        } else {
            let text = format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"line {i}"}}}}"#
            );
            ("notification", "notifications/message", text, Direction::In)
        };
        let mut e = Entry::new(1 + (i / 1000) % 2, Kind::Message, dir).with_bytes(text.as_bytes());
        let id =
            (kind == "request" || kind == "result").then(|| (i - u64::from(kind == "result")).to_string());
        e.summary =
            Some(Summary { kind: kind.into(), method: Some(method.into()), id, ..Summary::default() });
        if kind == "result" {
            e.answers = pending.take();
        }
        let seq = log.append(e);
        pending = (kind == "request").then_some(seq);
    }
}

/// A session of `n` entries written where the window looks for sessions (the data directory
/// `XDG_DATA_HOME` names), for the real-window benchmark (`window_bench.py`): prints its file
/// name. The same entries as `million_one`'s, so the figures of the two can be read together.
pub fn window_session(n: u64) {
    let dir = sonde_core::sessions_dir().expect("a data directory");
    let log = WireLog::create_in(&dir).unwrap();
    fill(&log, n);
    log.flush().unwrap();
    println!("{}", log.path().file_name().unwrap().to_string_lossy());
}

/// The core's part of a timeline step at `n` entries (the window bench times the whole step):
/// the timeline built from the index, then the views of fifteen steps as the window asks them
/// (five zooms in about the middle, five pans right by a quarter, five zooms out), each printed.
pub fn timeline_steps(n: u64) {
    use sonde_core::{Shown, Timeline, ViewQuery};
    let log = temp_log("timeline");
    fill(&log, n);
    log.flush().unwrap();
    let started = Instant::now();
    let timeline = Timeline::of(&log);
    println!("built from the index: {:.1} ms", started.elapsed().as_secs_f64() * 1000.0);
    let end =
        timeline.view(&ViewQuery { from: 0.0, to: 1.0, columns: 10, live: None }, &Shown::default()).end;
    let (mut from, mut to) = (0.0, end * 1.02);
    for step in 0..15 {
        let width = to - from;
        (from, to) = match step {
            0..5 => (from + width / 4.0, to - width / 4.0),
            5..10 => (from + width / 4.0, to + width / 4.0),
            _ => (from - width / 2.0, to + width / 2.0),
        };
        let started = Instant::now();
        let view = timeline.view(&ViewQuery { from, to, columns: 1130, live: None }, &Shown::default());
        let json = serde_json::to_string(&view).unwrap();
        println!(
            "step {step}: {:.1} ms, {} spans alone, {} KiB as JSON",
            started.elapsed().as_secs_f64() * 1000.0,
            view.lanes.iter().map(|l| l.spans.len()).sum::<usize>(),
            json.len() / 1024
        );
    }
}

pub fn million_one(n: u64) {
    let log = temp_log("million");
    let started = Instant::now();
    fill(&log, n);
    log.flush().unwrap();
    let append_s = started.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(log.path()).unwrap().len();
    let all = Filter::default();
    let mut times = Vec::new();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..1000 {
        // xorshift: a fixed, dependency-free sequence of random offsets.
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let from = seed % n;
        let started = Instant::now();
        let page = log.page(from, from + 50, &all, 50).unwrap();
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        assert!(!page.entries.is_empty());
    }
    let started = Instant::now();
    let found = log.page(0, u64::MAX, &Filter::parse("method:tools/call").unwrap(), 100).unwrap();
    let filter_ms = started.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(found.entries.len() as u64, n.div_ceil(10_000).min(100));
    let started = Instant::now();
    let words = log.page(0, u64::MAX, &Filter::parse("needle").unwrap(), 100).unwrap();
    let text_filter_ms = started.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(words.entries.len(), found.entries.len());
    // Cold: the file's pages dropped from the page cache first (the index stays in memory, as
    // in a window that has the session open).
    evict(log.path());
    let started = Instant::now();
    let cold = log.page(0, u64::MAX, &Filter::parse("needle").unwrap(), 100).unwrap();
    let text_filter_cold_ms = started.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(cold.entries.len(), found.entries.len());
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    let max = times.iter().cloned().fold(0.0, f64::max);
    println!(
        "{}",
        json!({"entries": n, "append_per_s": n as f64 / append_s, "bytes_per_entry": bytes as f64 / n as f64,
               "rss_mib": crate::rss_kib() as f64 / 1024.0, "page_mean_ms": mean, "page_max_ms": max,
               "filter_ms": filter_ms, "text_filter_ms": text_filter_ms,
               "text_filter_cold_ms": text_filter_cold_ms})
    );
    let _ = std::fs::remove_file(log.path());
}

/// Drops a file's pages from the page cache (written back first, so the kernel lets them go).
fn evict(path: &std::path::Path) {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path).unwrap();
    file.sync_all().unwrap();
    // SAFETY: advice on a descriptor this function owns; no memory is touched.
    let _ = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
}

/// 5. The Sonde CLI against the official Inspector CLI on server-everything.
pub fn inspector(report: &mut Report, calls: usize) {
    let peers =
        std::env::var("SONDE_PEERS").map(std::path::PathBuf::from).unwrap_or_else(|_| ".cache/peers".into());
    let node = peers.join("node22/node_modules/.bin/node");
    let cli =
        peers.join("inspector/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    let everything = peers.join("npm/node_modules/.bin/mcp-server-everything");
    if !(node.exists() && cli.exists() && everything.exists()) {
        eprintln!("sonde-bench: the Inspector CLI or server-everything is not installed (make bench installs them); skipped");
        return;
    }
    let sonde = crate::sibling("sonde");
    let everything = everything.to_string_lossy().into_owned();
    let time = |label: &str, cmd: &mut dyn FnMut() -> Command, runs: usize| -> f64 {
        let started = Instant::now();
        for _ in 0..runs {
            let out = cmd().output().unwrap();
            assert!(out.status.success(), "{label}: {}", String::from_utf8_lossy(&out.stderr));
        }
        started.elapsed().as_secs_f64()
    };
    let sonde_cmd = |args: &[&str]| {
        let mut c = Command::new(&sonde);
        c.args(args).arg("--").arg(&everything).arg("stdio");
        c
    };
    let inspector_cmd = |args: &[&str]| {
        let mut c = Command::new(&node);
        c.arg(&cli).arg("--cli").arg(&everything).arg("stdio").args(args);
        c
    };
    // One warm-up each, so the era cache and the page cache are in their steady state.
    time("warm-up", &mut || sonde_cmd(&["tools", "list"]), 1);
    time("warm-up", &mut || inspector_cmd(&["--method", "tools/list"]), 1);
    let s_list = time("sonde tools list", &mut || sonde_cmd(&["tools", "list", "--json"]), 1);
    let i_list = time("inspector tools/list", &mut || inspector_cmd(&["--method", "tools/list"]), 1);
    let s_calls = time(
        "sonde call",
        &mut || sonde_cmd(&["call", "echo", "--args", r#"{"message":"hi"}"#, "--json"]),
        calls,
    );
    let i_calls = time(
        "inspector tools/call",
        &mut || inspector_cmd(&["--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi"]),
        calls,
    );
    report.row(Row {
        figure: "CLI: tools/list against server-everything (one run, wall time)".into(),
        sonde: format!("{s_list:.2} s"),
        baseline: format!("{i_list:.2} s Inspector CLI 2.12.0"),
        ratio: Some(s_list / i_list),
        target: "—".into(),
        met: None,
    });
    report.row(Row {
        figure: format!("CLI: {calls} × tools/call echo against server-everything"),
        sonde: format!("{s_calls:.1} s"),
        baseline: format!("{i_calls:.1} s Inspector CLI 2.12.0"),
        ratio: Some(s_calls / i_calls),
        target: "≤ 0.2×".into(),
        met: Some(s_calls / i_calls <= 0.2),
    });
    report.detail(
        "inspector",
        json!({"calls": calls, "sonde_list_s": s_list, "inspector_list_s": i_list,
        "sonde_calls_s": s_calls, "inspector_calls_s": i_calls}),
    );
}
