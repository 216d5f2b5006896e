//! Helpers shared by the integration tests: the fixture binary, a fresh session log, and
//! waits that always have a deadline.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use sonde_core::{Graces, ServerConfig, SpawnSpec, WireLog};

/// The `sonde-fixture` binary, built on first use so `cargo test` alone is enough.
pub fn fixture_bin() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let status = std::process::Command::new(env!("CARGO"))
                .args(["build", "--quiet", "-p", "sonde-fixture"])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .expect("run cargo build for the fixture");
            assert!(status.success(), "building sonde-fixture failed");
            let target = std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
            target.join("debug").join("sonde-fixture")
        })
        .clone()
}

pub fn fixture(args: &[&str]) -> ServerConfig {
    let spec = SpawnSpec::new(fixture_bin().to_string_lossy(), args.iter().copied());
    let mut config = ServerConfig::stdio(spec);
    config.options.graces = Graces { stdin: Duration::from_millis(500), term: Duration::from_millis(500) };
    config.connect_timeout = Duration::from_secs(10);
    config.options.request_timeout = Duration::from_secs(10);
    config
}

pub fn new_log(name: &str) -> Arc<WireLog> {
    let dir = std::env::temp_dir().join(format!("sonde-it-{name}-{}", std::process::id()));
    WireLog::create_in(&dir).expect("create the session log")
}

/// Polls `cond` until it holds, failing the test with `what` after `limit`.
pub async fn wait_for(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !cond() {
        assert!(Instant::now() < deadline, "timed out after {limit:?} waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Whether a process is alive (a zombie counts as dead).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat[stat.rfind(')').unwrap() + 2..].chars().next().unwrap();
            state != 'Z' && state != 'X'
        }
        Err(_) => false,
    }
}

/// A third-party peer installed by `make peers` under `.cache/peers` (or `$SONDE_PEERS`).
pub fn peer_bin(relative: &str) -> PathBuf {
    let root = std::env::var_os("SONDE_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".cache/peers"));
    let path = root.join(relative);
    assert!(
        path.exists(),
        "{} is missing: run `make peers` (make test does) to install the real servers",
        path.display()
    );
    path
}

pub mod http;
pub mod wire_schema;

/// A real server's session holds no error-level protocol finding: the rules never call wrong
/// what servers written by others do (issue 14). Warnings are allowed, and printed.
#[allow(dead_code)]
pub fn no_error_findings(log: &WireLog) {
    let all = log.entries(&sonde_core::Filter::parse("diag:any").unwrap()).unwrap();
    for e in &all {
        for f in &e.findings {
            eprintln!("finding on entry {}: {} {}: {}", e.seq, f.severity.name(), f.rule, f.detail);
        }
    }
    let errors: Vec<_> =
        all.iter().filter(|e| e.findings.iter().any(|f| f.severity.name() == "error")).collect();
    assert!(errors.is_empty(), "error findings on a real server: {errors:#?}");
}
