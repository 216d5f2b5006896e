//! `sonde proxy` with spans sent live against the same proxy without (issue 57): the latency
//! a call sees and the throughput of a flood of notifications, with OTEL_EXPORTER_OTLP_ENDPOINT
//! naming a local collector that takes every batch. Each figure is the median of eleven
//! interleaved rounds (spans on, then off), printed with its min–max. A round lasts several of
//! the exporter's looks at the log (a quarter of a second apart), so its work falls inside the
//! measurement; the collector must have taken batches in every round with spans on.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde_json::json;

use crate::figures::{median_min_max, percentile, Report, Row};
use crate::proxy::{client, flood, sequential, Via};

const ROUNDS: usize = 11;

/// An OTLP/HTTP collector on a port of its own that answers every request 200 at once; how
/// many requests it took.
fn collector() -> (u16, Arc<AtomicU64>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = listener.local_addr().expect("an address").port();
    let taken = Arc::new(AtomicU64::new(0));
    let count = taken.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let count = count.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("a stream"));
                let mut out = stream;
                loop {
                    let mut length = 0;
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    loop {
                        line.clear();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line.trim().is_empty() {
                            break;
                        }
                        if let Some((k, v)) = line.split_once(':') {
                            if k.eq_ignore_ascii_case("content-length") {
                                length = v.trim().parse().unwrap_or(0);
                            }
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    count.fetch_add(1, Ordering::Relaxed);
                    if out.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").is_err() {
                        return;
                    }
                }
            });
        }
    });
    (port, taken)
}

/// `per_round` sequential calls and a flood of `notifications` a round.
pub fn run(report: &mut Report, per_round: usize, notifications: u64) {
    let home = std::env::temp_dir().join(format!("sonde-bench-otel-{}", std::process::id()));
    let (port, taken) = collector();
    let spans = [("OTEL_EXPORTER_OTLP_ENDPOINT".to_owned(), format!("http://127.0.0.1:{port}"))];
    let calls = per_round * ROUNDS;
    let (mut ratios50, mut ratios99, mut on50s, mut off50s) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let before = taken.load(Ordering::Relaxed);
        let on = sequential(&mut client(Via::Proxy(&spans), &home, &[]), per_round);
        assert!(taken.load(Ordering::Relaxed) > before, "a round with spans on sent none: make it longer");
        let off = sequential(&mut client(Via::Proxy(&[]), &home, &[]), per_round);
        ratios50.push(percentile(&on, 0.5) / percentile(&off, 0.5));
        ratios99.push(percentile(&on, 0.99) / percentile(&off, 0.99));
        on50s.push(percentile(&on, 0.5));
        off50s.push(percentile(&off, 0.5));
    }
    let (r50, r50_min, r50_max) = median_min_max(ratios50);
    let (r99, _, _) = median_min_max(ratios99);
    let (on50, _, _) = median_min_max(on50s);
    let (off50, _, _) = median_min_max(off50s);
    report.row(Row {
        figure: format!("proxy latency with spans sent live: {calls} sequential tools/call, p50 (p99)"),
        sonde: format!("p50 {on50:.3} ms, {r50:.3}× ({r50_min:.3}–{r50_max:.3}) of without; p99 {r99:.3}×"),
        baseline: format!("p50 {off50:.3} ms, the proxy sending none"),
        ratio: Some(r50),
        target: "≤ 1.05× of without".into(),
        met: Some(r50 <= 1.05),
    });
    let (mut ratios, mut on_ms, mut off_ms) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let on = flood(Via::Proxy(&spans), &home, notifications);
        let off = flood(Via::Proxy(&[]), &home, notifications);
        // Each flood leaves a session of its size: the folder is emptied between rounds.
        let _ = std::fs::remove_dir_all(&home);
        ratios.push(off / on);
        on_ms.push(on);
        off_ms.push(off);
    }
    let (ratio, rmin, rmax) = median_min_max(ratios);
    let (on, _, _) = median_min_max(on_ms);
    let (off, _, _) = median_min_max(off_ms);
    report.row(Row {
        figure: format!("proxy ingest with spans sent live: {notifications} notifications"),
        sonde: format!("{on:.0} ms; {ratio:.3}× ({rmin:.3}–{rmax:.3}) of the throughput without"),
        baseline: format!("{off:.0} ms, the proxy sending none"),
        ratio: Some(ratio),
        target: "≥ 0.95× of without".into(),
        met: Some(ratio >= 0.95),
    });
    let batches = taken.load(Ordering::Relaxed);
    report.detail(
        "otel",
        json!({"calls": calls, "latency_ratio_p50": r50, "latency_ratio_p99": r99, "notifications": notifications, "throughput_ratio": ratio, "batches": batches}),
    );
    let _ = std::fs::remove_dir_all(&home);
}
