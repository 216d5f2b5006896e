//! What the CLI tests share: the `sonde` binary run in a data home of its own, the fixture
//! and the peers, reading what it printed, and a wait with a deadline.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

pub const SONDE: &str = env!("CARGO_BIN_EXE_sonde");

pub fn data_home(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sonde-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

pub fn sonde(home: &Path, args: &[&str]) -> Output {
    Command::new(SONDE)
        .args(args)
        .env("XDG_DATA_HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .output()
        .expect("run sonde")
}

/// Runs `command` in the data home `home` with `input` on its stdin, and waits for it.
pub fn with_stdin(command: &mut Command, home: &Path, input: &[u8]) -> Output {
    let mut child = command
        .env("XDG_DATA_HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run it");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input).unwrap();
    child.wait_with_output().unwrap()
}

/// `sonde ARGS -- sonde demo-server`.
pub fn with_demo(home: &Path, args: &[&str]) -> Output {
    let mut all = args.to_vec();
    all.extend(["--", SONDE, "demo-server"]);
    sonde(home, &all)
}

pub fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {out:?}"))
}

pub fn session_path(stderr: &[u8]) -> PathBuf {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("sonde: session log "))
        .expect("the session log path on stderr");
    PathBuf::from(line)
}

/// Polls `probe` until it returns `Some`, for at most `limit`.
pub fn wait_for<T>(limit: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = probe() {
            return Some(v);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

pub fn fixture_bin() -> PathBuf {
    let status = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "-p", "sonde-fixture"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(status.success());
    Path::new(SONDE).with_file_name("sonde-fixture")
}

/// A peer installed by `make peers` under `.cache/peers`.
pub fn peer(relative: &str) -> PathBuf {
    let root = std::env::var_os("SONDE_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.cache/peers"));
    let path = root.join(relative);
    assert!(path.exists(), "{} is missing: run `make peers`", path.display());
    path
}
