//! `sonde proxy` against a direct pipe to the same server (issue 15): the latency it adds to
//! sequential requests, and its throughput on a flood of notifications. Each figure is the
//! median of eleven interleaved rounds (proxy, then direct), printed with its min–max.

use std::process::Command;
use std::time::Instant;

use serde_json::json;

use crate::direct::Direct;
use crate::figures::{median_min_max, percentile, Report, Row};

const ROUNDS: usize = 11;

/// A client on the fixture run with `args`, directly or through `sonde proxy` with the
/// environment `env` added; the proxy's session log goes to `home`.
pub fn client(via: Via, home: &std::path::Path, args: &[&str]) -> Direct {
    let env = match via {
        Via::Direct => return Direct::start(args),
        Via::Proxy(env) => env,
    };
    let mut command = Command::new(crate::sibling("sonde"));
    command.args(["proxy", "--"]).arg(crate::sibling("sonde-fixture")).args(args);
    command.env("XDG_DATA_HOME", home).stderr(std::process::Stdio::null());
    command.envs(env.iter().map(|(k, v)| (k, v)));
    Direct::start_command(command)
}

/// How a bench client reaches the fixture.
#[derive(Clone, Copy)]
pub enum Via<'a> {
    Direct,
    /// Through `sonde proxy`, with these variables set.
    Proxy(&'a [(String, String)]),
}

/// `n` sequential echo calls; their latencies in ms, sorted.
pub fn sequential(d: &mut Direct, n: usize) -> Vec<f64> {
    let mut ms = d.echo_calls(n);
    ms.sort_by(f64::total_cmp);
    ms
}

/// How long a flood of `n` notifications and the reply after them take to read, in ms.
pub fn flood(via: Via, home: &std::path::Path, n: u64) -> f64 {
    let mut d = client(via, home, &["--flood", &n.to_string()]);
    let started = Instant::now();
    d.send(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}"#,
    );
    let lines = d.read_until_id(1);
    assert_eq!(lines, n + 1, "every notification and the reply");
    started.elapsed().as_secs_f64() * 1000.0
}

pub fn run(report: &mut Report, calls: usize, notifications: u64) {
    let home = std::env::temp_dir().join(format!("sonde-bench-proxy-{}", std::process::id()));
    let per_round = (calls / ROUNDS).max(1);
    let (mut added50, mut added99, mut p50s, mut d50s) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let through = sequential(&mut client(Via::Proxy(&[]), &home, &[]), per_round);
        let direct = sequential(&mut client(Via::Direct, &home, &[]), per_round);
        let (p50, d50) = (percentile(&through, 0.5), percentile(&direct, 0.5));
        added50.push((p50 - d50) * 1000.0);
        added99.push((percentile(&through, 0.99) - percentile(&direct, 0.99)) * 1000.0);
        p50s.push(p50);
        d50s.push(d50);
    }
    let (a50, a50_min, a50_max) = median_min_max(added50);
    let (a99, a99_min, a99_max) = median_min_max(added99);
    let (p50, _, _) = median_min_max(p50s);
    let (d50, _, _) = median_min_max(d50s);
    report.row(Row {
        figure: format!("proxy latency: {calls} sequential tools/call, µs added at p50 (p99)"),
        sonde: format!("{a50:+.1} µs ({a50_min:.1}–{a50_max:.1}); p99 {a99:+.1} µs ({a99_min:.1}–{a99_max:.1}); p50 {p50:.3} ms"),
        baseline: format!("p50 {d50:.3} ms direct pipe"),
        ratio: Some(p50 / d50),
        target: "≤ 50 µs added at p50".into(),
        met: Some(a50 <= 50.0),
    });
    let mut ratios = Vec::new();
    let (mut through_ms, mut direct_ms) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = flood(Via::Proxy(&[]), &home, notifications);
        let d = flood(Via::Direct, &home, notifications);
        ratios.push(d / t);
        through_ms.push(t);
        direct_ms.push(d);
    }
    let (ratio, rmin, rmax) = median_min_max(ratios);
    let (t, _, _) = median_min_max(through_ms);
    let (d, _, _) = median_min_max(direct_ms);
    report.row(Row {
        figure: format!("proxy throughput: {notifications} notifications"),
        sonde: format!("{t:.0} ms through the proxy; {ratio:.2}× ({rmin:.2}–{rmax:.2}) of direct"),
        baseline: format!("{d:.0} ms direct pipe"),
        ratio: Some(ratio),
        target: "≥ 0.8× of direct".into(),
        met: Some(ratio >= 0.8),
    });
    report.detail("proxy", json!({"calls": calls, "added_p50_us": a50, "added_p99_us": a99, "notifications": notifications, "throughput_ratio": ratio}));
    let _ = std::fs::remove_dir_all(&home);
}
