//! The load generator's own cost: `sonde load`'s engine at 1,000 calls a second against the
//! fixture (which answers at once), beside a direct loop on the same kind of pipe paced the
//! same way (each call sent when due, its latency from then). What the generator adds to each
//! call is its latency less the direct loop's, at p50 and p99; and the rate it reached against
//! the rate asked.

use std::time::Duration;

use serde_json::json;
use sonde_core::{run_load, Hub, LoadControl, LoadOp, LoadPlan, LoadReport, LoadStep, Pacing, Weighted};

use crate::direct::Direct;
use crate::figures::{median_min_max, percentile, Report, Row};

const RATE: f64 = 1000.0;
const ROUNDS: usize = 3;

/// One run of the engine: `seconds` at [`RATE`] on a fresh fixture.
fn sonde_run(seconds: u64) -> LoadReport {
    let rt = crate::sections::runtime();
    rt.block_on(async move {
        tokio::spawn(async move {
            let hub = Hub::new(crate::sections::temp_log("generator"));
            let id = hub.connect(&crate::sections::fixture(&[])).await.unwrap();
            let session = hub.session(id).unwrap();
            let plan = LoadPlan {
                mix: vec![Weighted {
                    op: LoadOp::Tool { name: "echo".into(), arguments: Some(json!({"text": "x"})) },
                    weight: 1,
                }],
                pacing: Pacing::Open {
                    steps: vec![LoadStep { rate: RATE, duration: Duration::from_secs(seconds) }],
                    count: None,
                },
                warmup: Duration::from_millis(500),
                seed: 1,
            };
            let report = run_load(&[session], &plan, &LoadControl::new(), |_| {}).await.unwrap();
            hub.disconnect(id).await.unwrap();
            report
        })
        .await
        .unwrap()
    })
}

/// Where the run's threads (Sonde's, the direct loop's and the fixture's) may run.
#[derive(Clone, Copy, PartialEq)]
enum Placement {
    /// All on CPU 0: every hand-off between threads finds its CPU awake.
    OneCpu,
    /// Wherever the scheduler puts them: a hand-off may wait for an idle CPU to wake.
    Free,
}

/// Pins the calling thread (and every thread and process it starts from now) to CPU 0, or
/// frees it to every CPU; returns the mask it had.
fn pin(placement: Placement) -> libc::cpu_set_t {
    // SAFETY: the masks are plain data owned here; the calls change only this thread's affinity.
    unsafe {
        let mut old: libc::cpu_set_t = std::mem::zeroed();
        libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut old);
        if placement == Placement::OneCpu {
            let mut one: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(0, &mut one);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one);
        }
        old
    }
}

fn unpin(old: &libc::cpu_set_t) {
    // SAFETY: as in `pin`.
    unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), old) };
}

pub fn run(report: &mut Report, seconds: u64) {
    for placement in [Placement::OneCpu, Placement::Free] {
        let old = pin(placement);
        placed(report, seconds, placement);
        unpin(&old);
    }
}

fn placed(report: &mut Report, seconds: u64, placement: Placement) {
    let (mut added50, mut added99, mut rates, mut direct50, mut direct99, mut sonde50, mut sonde99) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let run = sonde_run(seconds);
        assert_eq!(run.errors, 0, "the fixture answers every call: {run:?}");
        let mut direct = Direct::start(&[]).paced_echo_calls((seconds * RATE as u64) as usize, RATE);
        direct.sort_by(f64::total_cmp);
        let (d50, d99) = (percentile(&direct, 0.5), percentile(&direct, 0.99));
        added50.push((run.latency_ms.p50 - d50) * 1000.0);
        added99.push((run.latency_ms.p99 - d99) * 1000.0);
        rates.push(run.rate);
        direct50.push(d50);
        direct99.push(d99);
        sonde50.push(run.latency_ms.p50);
        sonde99.push(run.latency_ms.p99);
    }
    let m = |v: Vec<f64>| median_min_max(v).0;
    let (a50, a50_min, a50_max) = median_min_max(added50);
    let (a99, a99_min, a99_max) = median_min_max(added99);
    let (rate, rate_min, _) = median_min_max(rates);
    let (d50, d99, s50, s99) = (m(direct50), m(direct99), m(sonde50), m(sonde99));
    let reached = rate_min / RATE;
    report.row(Row {
        figure: format!(
            "load generator at {RATE}/s, {seconds} s open loop, {}, against a direct loop paced alike",
            if placement == Placement::OneCpu { "idle, client and server on one CPU" } else { "idle, CPUs free" }
        ),
        sonde: format!(
            "rate {rate:.1}/s (lowest {rate_min:.1}); p50 {s50:.3} ms (+{a50:.0} µs, {a50_min:.0}–{a50_max:.0}), \
             p99 {s99:.3} ms (+{a99:.0} µs, {a99_min:.0}–{a99_max:.0})"
        ),
        baseline: format!("p50 {d50:.3} ms, p99 {d99:.3} ms direct loop at {RATE}/s"),
        ratio: Some(s50 / d50),
        target: "rate within 1%; + ≤ 50 µs at p50, + ≤ 200 µs at p99 (medians)".into(),
        met: Some((reached - 1.0).abs() <= 0.01 && a50 <= 50.0 && a99 <= 200.0),
    });
    report.detail(
        if placement == Placement::OneCpu { "load_generator_one_cpu" } else { "load_generator_free" },
        json!({"rate_asked": RATE, "seconds": seconds, "rounds": ROUNDS, "rate": rate, "rate_lowest": rate_min,
        "added_p50_us": a50, "added_p99_us": a99, "sonde_p50": s50, "sonde_p99": s99, "direct_p50": d50, "direct_p99": d99}),
    );
}
