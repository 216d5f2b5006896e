//! `sonde-bench`: what Sonde costs, measured side by side in one run (`make bench`).
//!
//! Each section runs Sonde and a baseline over the same pipe or the same server and prints the
//! ratio; the table ends with the command that reproduces it, and `bench/results.json` keeps
//! the figures. Sections that need their own process for an honest peak-RSS figure re-run this
//! binary with a hidden subcommand.

mod direct;
mod figures;
mod generator;
mod load;
mod otel;
mod proxy;
mod sections;
mod watch;

use std::path::PathBuf;

use figures::Report;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        // Hidden: one measurement in a fresh process, printed as JSON for the parent.
        Some("large-one") => sections::large_one(args[1].parse().expect("MiB")),
        Some("million-one") => {
            sections::million_one(args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1_000_000))
        }
        Some("overhead-one") => sections::overhead_one(
            &args[1],
            args[2].parse().expect("calls"),
            args.iter().any(|a| a == "--json"),
        ),
        Some("timeline-steps") => sections::timeline_steps(args[1].parse().expect("entries")),
        Some("window-session") => {
            sections::window_session(args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1_000_000))
        }
        _ => {
            let quick = args.iter().any(|a| a == "--quick");
            // `--only ingest,overhead` runs a subset (for profiling one figure).
            let only: Option<Vec<&str>> = args
                .iter()
                .position(|a| a == "--only")
                .and_then(|i| args.get(i + 1))
                .map(|s| s.split(',').collect());
            let run = |name: &str| only.as_ref().is_none_or(|o| o.contains(&name));
            let mut report = Report::default();
            if run("ingest") {
                sections::ingest(&mut report, if quick { 20_000 } else { 200_000 });
            }
            if run("overhead") {
                for placement in sections::Placement::ALL {
                    sections::overhead(&mut report, if quick { 1_000 } else { 10_000 }, placement);
                }
            }
            if run("large") {
                sections::large(&mut report, if quick { &[1, 10] } else { &[1, 10, 50] });
            }
            if run("million") {
                sections::million(&mut report, if quick { 100_000 } else { 1_000_000 });
            }
            if run("proxy") {
                proxy::run(
                    &mut report,
                    if quick { 1_000 } else { 10_000 },
                    if quick { 20_000 } else { 200_000 },
                );
            }
            if run("otel") {
                // Rounds of a second or more: the exporter looks at the log four times a second.
                otel::run(
                    &mut report,
                    if quick { 10_000 } else { 20_000 },
                    if quick { 500_000 } else { 1_000_000 },
                );
            }
            if run("generator") {
                generator::run(&mut report, if quick { 2 } else { 10 });
            }
            if run("watch") {
                watch::run(&mut report, if quick { 5 } else { 20 });
            }
            if run("inspector") {
                sections::inspector(&mut report, if quick { 5 } else { 100 });
            }
            report.print();
            let out = PathBuf::from(
                std::env::var("SONDE_BENCH_OUT").unwrap_or_else(|_| "bench/results.json".into()),
            );
            report.write(&out);
            eprintln!("sonde-bench: wrote {}", out.display());
        }
    }
}

/// The fixture server's command line: under `taskset -c CPUS` when `BENCH_SERVER_CPUS` says
/// where it runs (the request overhead's placements), else the binary itself.
pub fn fixture_argv(args: &[&str]) -> Vec<String> {
    let fixture = sibling("sonde-fixture").to_string_lossy().into_owned();
    let mut argv = match std::env::var("BENCH_SERVER_CPUS") {
        Ok(cpus) => vec!["taskset".into(), "-c".into(), cpus, fixture],
        Err(_) => vec![fixture],
    };
    argv.extend(args.iter().map(|a| a.to_string()));
    argv
}

/// A binary built next to this one (`sonde`, `sonde-fixture`).
pub fn sibling(name: &str) -> PathBuf {
    std::env::current_exe().expect("own path").with_file_name(name)
}

/// Peak resident set of this process so far, in KiB.
pub fn peak_rss_kib() -> u64 {
    status_kib("VmHWM:")
}

pub fn rss_kib() -> u64 {
    status_kib("VmRSS:")
}

fn status_kib(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}
