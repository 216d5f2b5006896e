//! The CLI when its session log cannot be written (a full disk, the data directory removed)
//! and when its writer is killed: the calls go on and succeed, stderr says so once, `--json`
//! documents carry it, and what was written reads back whole, marked incomplete with why.
//!
//! The full disk is a tmpfs of 300 KiB each test mounts as its data home (the tests run as
//! root, here and in CI).

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use sonde_core::{Entry, Filter, Incomplete, Kind, WireLog};
use support::{data_home, fixture_bin, sonde, wait_for, Killed, Lines, Tmpfs, SONDE};

/// `sonde shell --json` against the demo, with the data home `home`: its stdin, and its stdout
/// and stderr read line by line as they come.
struct Shell {
    child: Killed,
    stdin: std::process::ChildStdin,
    out: Lines,
    err: Lines,
}

impl Shell {
    fn start(home: &Path, config: &Path) -> Shell {
        let mut child = Command::new(SONDE)
            .args(["shell", "--json", "--", SONDE, "demo-server"])
            .env("XDG_DATA_HOME", home)
            .env("XDG_CONFIG_HOME", config)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run sonde shell");
        let stdin = child.stdin.take().unwrap();
        let out = Lines::of(child.stdout.take().unwrap());
        let err = Lines::of(child.stderr.take().unwrap());
        Shell { child: Killed(child), stdin, out, err }
    }

    /// Calls the demo's echo with `text`; returns its JSON document.
    fn echo(&mut self, text: &str) -> Value {
        writeln!(self.stdin, "call echo 'text={text}'").unwrap();
        let line = self.out.until(Duration::from_secs(30), |_| true).expect("a document within 30 s");
        let document: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(document["content"][0]["text"], text, "{document}");
        document
    }

    /// Ends the shell; returns its exit code and everything it said on stderr.
    fn exit(mut self) -> (Option<i32>, Vec<String>) {
        writeln!(self.stdin, "exit").unwrap();
        let code =
            wait_for(Duration::from_secs(30), || self.child.0.try_wait().unwrap()).expect("the shell ends");
        (code.code(), self.err.rest(Duration::from_secs(10)).to_vec())
    }

    /// The session log's path, from the first thing the shell says.
    fn session(&mut self) -> PathBuf {
        let line = self.err.until(Duration::from_secs(30), |l| l.starts_with("sonde: session log ")).unwrap();
        PathBuf::from(line.trim_start_matches("sonde: session log "))
    }
}

fn said<'a>(lines: &'a [String], start: &str) -> Vec<&'a String> {
    lines.iter().filter(|l| l.starts_with(start)).collect()
}

/// Every line of a session file after its header, as entries; panics on one that is not.
fn entries_in(path: &Path) -> Vec<Entry> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with(&format!(r#"{{"format":{},"#, sonde_core::SESSION_FORMAT)));
    lines.map(|l| Entry::from_line(l.as_bytes()).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

/// Fills the file system `path` is on, then frees `room` bytes of it.
fn fill_but(path: &Path, room: u64) {
    let mut file = std::fs::File::create(path).unwrap();
    let chunk = vec![b'f'; 4096];
    while file.write_all(&chunk).is_ok() {}
    let len = file.metadata().unwrap().len();
    file.set_len(len - room).unwrap();
}

/// A full data directory: the calls go on and succeed, stderr says once where the log stopped
/// and why, the next documents carry it; once the filler is gone the log takes entries again,
/// says so, and records the gap as a note; the file reads back whole, and `sonde log` and
/// `sonde sessions` call the session incomplete, with the gap.
#[test]
fn on_a_full_disk_the_calls_go_on_the_stop_is_said_once_and_the_gap_is_recorded_when_there_is_room() {
    let fs = Tmpfs::mount("full", "300k");
    let config = data_home("full-config");
    let filler = fs.dir.join("filler");
    fill_but(&filler, 64 * 1024);
    let mut shell = Shell::start(&fs.dir, &config);
    let path = shell.session();
    let text = "x".repeat(8000);
    let stopped = |l: &str| l.starts_with("sonde: the session log stopped at entry ");
    let mut calls = 0;
    let document = loop {
        let document = shell.echo(&text);
        calls += 1;
        if shell.err.seen.iter().any(|l| stopped(l))
            || shell.err.until(Duration::from_millis(200), stopped).is_some()
        {
            break document;
        }
        assert!(calls < 30, "the log never stopped: {:?}", shell.err.seen);
    };
    let stop = shell.err.seen.iter().find(|l| stopped(l)).unwrap().clone();
    let at: u64 =
        stop["sonde: the session log stopped at entry ".len()..].split(':').next().unwrap().parse().unwrap();
    assert_eq!(
        stop,
        format!("sonde: the session log stopped at entry {at}: No space left on device; the connection goes on unrecorded")
    );
    // The next document says it (the one of the call that met the stop may be too early).
    let _ = document;
    let after = shell.echo(&text);
    assert_eq!(after["log"]["stopped_at"], at, "{}", after["log"]);
    assert_eq!(after["log"]["error"], "No space left on device");
    assert_eq!(after["log"]["resumed"], false);

    std::fs::remove_file(&filler).unwrap();
    let resumed =
        shell.err.until(Duration::from_secs(10), |l| l.starts_with("sonde: the session log resumed"));
    let resumed = resumed.expect("the log resumes within the retry interval once there is room");
    assert!(
        resumed.starts_with("sonde: the session log resumed after a gap of ")
            && resumed.contains(&format!("({at} to ")),
        "{resumed}"
    );
    let last = shell.echo("after the gap");
    assert_eq!(last["log"]["resumed"], true, "{last}");
    let (code, stderr) = shell.exit();
    assert_eq!(code, Some(0), "{stderr:#?}");
    assert_eq!(said(&stderr, "sonde: the session log stopped").len(), 1, "said once: {stderr:#?}");
    assert_eq!(said(&stderr, "sonde: the session log resumed").len(), 1, "{stderr:#?}");

    // The file: every line whole; entries up to the gap, the note, the rest, the end.
    let entries = entries_in(&path);
    let seqs: Vec<u64> = entries.iter().map(|e| e.seq).collect();
    let gap = seqs.iter().position(|&s| s >= at).unwrap();
    assert_eq!(seqs[..gap], (0..at).collect::<Vec<_>>(), "whole up to the gap");
    let note = &entries[gap];
    assert_eq!(note.kind, Kind::Note);
    let lost = note.seq - at;
    let detail = note.detail.as_deref().unwrap();
    assert!(
        detail.starts_with(&format!("{lost} entries were not recorded (seq {at} to {}): ", note.seq - 1))
            && detail.ends_with("(No space left on device)"),
        "{detail}"
    );
    let read = WireLog::open(&path).unwrap();
    assert_eq!(read.entries(&Filter::default()).unwrap(), entries, "the index and the file agree");
    let end = entries.last().unwrap().detail.clone().unwrap();
    assert!(
        end.starts_with("the session ended: ") && end.ends_with(&format!(", {lost} of them not recorded")),
        "{end}"
    );
    assert!(
        read.entries(&Filter::parse("after the gap").unwrap()).unwrap().len() == 2,
        "the call and its reply"
    );

    let log = Command::new(SONDE)
        .args(["log", "--session"])
        .arg(&path)
        .env("XDG_DATA_HOME", &fs.dir)
        .env("XDG_CONFIG_HOME", &config)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&log.stderr);
    let words = format!(
        "sonde: this session is incomplete: {lost} entries were not recorded (in one gap, which a note in the log \
         records)"
    );
    assert_eq!(err.matches("incomplete").count(), 1, "{err}");
    assert!(err.contains(&words), "{err}");
    let listed = sonde(&fs.dir, &["sessions", "--json"]);
    let session: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(session["incomplete"], serde_json::json!([{"reason": "gaps", "gaps": 1, "entries": lost}]));
    let listed = sonde(&fs.dir, &["sessions"]);
    let line = String::from_utf8_lossy(&listed.stdout);
    assert!(line.contains(&format!("(incomplete: {lost} entries were not recorded")), "{line}");
}

/// The data directory removed while the shell records: the calls go on and succeed, stderr
/// says once that the session file was removed, and nothing is created again.
#[test]
fn with_the_data_directory_removed_the_calls_go_on_and_the_stop_is_said_once() {
    let home = data_home("removed");
    let config = data_home("removed-config");
    let mut shell = Shell::start(&home, &config);
    shell.session();
    shell.echo("before");
    std::fs::remove_dir_all(&home).unwrap();
    let stopped = |l: &str| l.starts_with("sonde: the session log stopped at entry ");
    let mut calls = 0;
    while shell.err.until(Duration::from_millis(200), stopped).is_none() {
        shell.echo("during");
        calls += 1;
        assert!(calls < 30, "the log never stopped: {:?}", shell.err.seen);
    }
    let after = shell.echo("after");
    assert_eq!(after["log"]["error"], "the session file was removed", "{after}");
    shell.echo("after again");
    let (code, stderr) = shell.exit();
    assert_eq!(code, Some(0), "{stderr:#?}");
    let stops = said(&stderr, "sonde: the session log stopped");
    assert_eq!(stops.len(), 1, "said once: {stderr:#?}");
    assert!(
        stops[0].ends_with(": the session file was removed; the connection goes on unrecorded"),
        "{}",
        stops[0]
    );
    assert!(said(&stderr, "sonde: the session log resumed").is_empty());
    assert!(!home.exists(), "the removed directory is not made again: {:?}", walk(&home));
}

/// `sonde` killed in the middle of a flood: every whole entry reads back, the partial line it
/// may have left is passed over, and `sonde sessions` and `sonde log` say the session is
/// incomplete (no end-of-session entry).
#[test]
fn a_sonde_killed_mid_flood_leaves_whole_entries_and_a_session_marked_incomplete() {
    let home = data_home("killed");
    let fixture = fixture_bin();
    let mut child = Command::new(SONDE)
        .args(["call", "echo", "text=x", "--"])
        .arg(&fixture)
        .args(["--flood", "500000"])
        .env("XDG_DATA_HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = Lines::of(child.stderr.take().unwrap());
    let mut child = Killed(child);
    let line = err.until(Duration::from_secs(30), |l| l.starts_with("sonde: session log ")).unwrap();
    let path = PathBuf::from(line.trim_start_matches("sonde: session log "));
    let grown = wait_for(Duration::from_secs(60), || {
        (std::fs::metadata(&path).map_or(0, |m| m.len()) > 2 << 20).then_some(())
    });
    assert!(grown.is_some(), "the flood reached the log");
    child.0.kill().unwrap();
    let status = child.0.wait().unwrap();
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(libc::SIGKILL));

    let bytes = std::fs::read(&path).unwrap();
    let whole = bytes.iter().filter(|&&b| b == b'\n').count();
    let read = WireLog::open(&path).unwrap();
    let entries = read.entries(&Filter::default()).unwrap();
    assert_eq!(entries.len(), whole - 1, "every whole line but the header is an entry read back");
    assert_eq!(
        entries.iter().map(|e| e.seq).collect::<Vec<_>>(),
        (0..entries.len() as u64).collect::<Vec<_>>()
    );
    let reasons = read.incomplete();
    assert!(reasons.contains(&Incomplete::NoEnd), "{reasons:?}");
    assert_eq!(reasons.contains(&Incomplete::PartialLastLine), bytes.last() != Some(&b'\n'), "{reasons:?}");

    let listed = sonde(&home, &["sessions", "--json"]);
    let session: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert!(session["incomplete"].as_array().unwrap().iter().any(|r| r["reason"] == "no_end"), "{session}");
    let listed = String::from_utf8_lossy(&sonde(&home, &["sessions"]).stdout).into_owned();
    assert!(listed.contains("(incomplete: ") && listed.contains("no end-of-session entry"), "{listed}");
    let log = sonde(&home, &["log", "--filter", "kind:lifecycle"]);
    let said = String::from_utf8_lossy(&log.stderr);
    assert_eq!(said.matches("this session is incomplete").count(), 1, "{said}");
    assert!(log.status.success());
}

/// Every path under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        found.push(entry.path());
        found.extend(walk(&entry.path()));
    }
    found
}
