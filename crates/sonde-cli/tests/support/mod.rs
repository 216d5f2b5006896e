//! What the CLI tests share: the `sonde` binary run in a data home of its own, the fixture
//! and the peers, reading what it printed, and a wait with a deadline.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
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

/// The newest session in the data home `home` (by its name, which starts with its time): the
/// proxy names none on stderr, which is the client's.
pub fn newest_session(home: &Path) -> Option<PathBuf> {
    let sessions = std::fs::read_dir(home.join("sonde/sessions")).ok()?;
    sessions
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .max_by_key(|p| p.file_name().map(|n| n.to_owned()))
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

/// Each error Microsoft's SARIF Multitool finds in `sarif` (its `validate` exits 0 either way,
/// so its own SARIF output is read: a result whose level, or its rule's default, is `error`),
/// and any failure of the tool itself.
pub fn multitool_errors(sarif: &Path) -> Vec<String> {
    let tool = peer("reports/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool");
    let output: PathBuf = sarif.with_extension("validation.sarif");
    let ran = Command::new(tool)
        .args([
            "validate",
            sarif.to_str().unwrap(),
            "--output",
            output.to_str().unwrap(),
            "--log",
            "ForceOverwrite",
        ])
        // .NET without ICU: the check needs no culture data.
        .env("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
        .output()
        .unwrap();
    assert!(ran.status.success(), "the multitool failed: {ran:?}");
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    let run = &log["runs"][0];
    let mut errors = Vec::new();
    if run["invocations"][0]["executionSuccessful"] != true {
        errors.push(format!("the validation did not finish: {}", run["invocations"]));
    }
    let rules = run["tool"]["driver"]["rules"].as_array().cloned().unwrap_or_default();
    for result in run["results"].as_array().cloned().unwrap_or_default() {
        let default = result["ruleIndex"]
            .as_u64()
            .and_then(|i| rules.get(i as usize))
            .map(|r| &r["defaultConfiguration"]["level"]);
        let level = result.get("level").or(default).and_then(Value::as_str).unwrap_or("warning");
        if level == "error" {
            errors.push(format!("{} {}", result["ruleId"].as_str().unwrap_or("?"), result["message"]));
        }
    }
    errors
}

/// A tmpfs of `size` (`300k`) mounted at a directory of its own, unmounted when dropped, a
/// failing test's unwinding included. The tests run as root, here and in CI.
pub struct Tmpfs {
    pub dir: PathBuf,
}

impl Tmpfs {
    pub fn mount(name: &str, size: &str) -> Tmpfs {
        let dir = std::env::temp_dir().join(format!("sonde-cli-tmpfs-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .status()
            .expect("run mount");
        assert!(status.success(), "mount -t tmpfs on {} failed (the tests run as root)", dir.display());
        Tmpfs { dir }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazily: a process the test started may still hold a file open.
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// A child process killed and reaped when dropped, so a failing test leaves none behind.
pub struct Killed(pub std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `sonde-fixture-http ARGS`, listening (it prints `port N` once it does): killed and reaped
/// when dropped, and its `/mcp` URL.
pub fn http_fixture(args: &[&str]) -> (Killed, String) {
    use std::io::BufRead;
    let bin = fixture_bin().with_file_name("sonde-fixture-http");
    let mut server = Killed(
        Command::new(&bin)
            .args(args)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start the HTTP fixture"),
    );
    let mut line = String::new();
    std::io::BufReader::new(server.0.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let port = line.trim().strip_prefix("port ").expect("`port N`").to_owned();
    (server, format!("http://127.0.0.1:{port}/mcp"))
}

/// The lines a child writes on a pipe, read by a thread of their own as they come.
pub struct Lines {
    rx: std::sync::mpsc::Receiver<String>,
    /// Every line received so far, in order.
    pub seen: Vec<String>,
}

impl Lines {
    pub fn of(pipe: impl std::io::Read + Send + 'static) -> Lines {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(std::io::BufReader::new(pipe)) {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Lines { rx, seen: Vec::new() }
    }

    /// The next line for which `wanted` holds, waiting at most `limit`; the lines before it are
    /// kept in `seen` too.
    pub fn until(&mut self, limit: Duration, wanted: impl Fn(&str) -> bool) -> Option<String> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let line = self.rx.recv_timeout(left).ok()?;
            self.seen.push(line.clone());
            if wanted(&line) {
                return Some(line);
            }
        }
    }

    /// Every line until the pipe closes (the child ended), waiting at most `limit`.
    pub fn rest(&mut self, limit: Duration) -> &[String] {
        let deadline = Instant::now() + limit;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.rx.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(_) => break,
            }
        }
        &self.seen
    }
}

/// The session exported as OTLP, read back with opentelemetry-proto's JSON mapping; the file.
pub fn export_otlp(
    home: &Path,
    session: &Path,
    name: &str,
    extra: &[&str],
) -> (ExportTraceServiceRequest, PathBuf) {
    let out_path = home.join(name);
    let mut args = vec!["export", "--format", "otlp", "--session", session.to_str().unwrap()];
    args.extend(["--out", out_path.to_str().unwrap()]);
    args.extend(extra);
    let out = sonde(home, &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&out_path).unwrap();
    let request: ExportTraceServiceRequest =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not OTLP/JSON ({e}): {text}"));
    (request, out_path)
}
