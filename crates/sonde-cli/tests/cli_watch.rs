//! `sonde watch` on a Python SDK server whose file the test rewrites, as its author would:
//! v1, then v2 (add answers differently, a tool added), then a file that does not parse, then
//! v1 again. Each save restarts the server; the changes to the interface and the call's new
//! answer are printed beside the old, the broken build's last words are shown and the watch
//! goes on; one server runs at every moment; Ctrl-C stops it and exits 130 with none left.

mod support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sonde_core::{MarkKind, Timeline, WireLog};
use support::*;

const V1: &str = r#"from mcp.server.mcpserver import MCPServer

server = MCPServer("calc", version="1")


@server.tool()
def add(a: float, b: float) -> str:
    """Add two numbers."""
    return str(a + b)


server.run("stdio")
"#;

/// v1 with add off by one, and a tool `mul`.
const V2: &str = r#"from mcp.server.mcpserver import MCPServer

server = MCPServer("calc", version="2")


@server.tool()
def add(a: float, b: float) -> str:
    """Add two numbers."""
    return str(a + b + 1)


@server.tool()
def mul(a: float, b: float) -> str:
    """Multiply two numbers."""
    return str(a * b)


server.run("stdio")
"#;

/// The processes that run `server` now (`sonde watch` names it too, and is not one).
fn servers(server: &Path) -> Vec<i32> {
    let wanted = server.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            Some((e.file_name().to_str()?.parse().ok()?, std::fs::read(e.path().join("cmdline")).ok()?))
        })
        .filter(|(_, cmdline): &(i32, Vec<u8>)| {
            let words: Vec<String> =
                String::from_utf8_lossy(cmdline).split('\0').map(str::to_owned).collect();
            words.first().is_some_and(|w| w != SONDE) && words.contains(&wanted)
        })
        .map(|(pid, _)| pid)
        .collect()
}

fn running(server: &Path) -> usize {
    servers(server).len()
}

/// A save as an editor makes it: the whole file written anew.
fn save(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

/// `sonde watch CHECK… -- python server` in the data home `home`, with its stdout and stderr
/// read as they come.
fn watch(home: &Path, check: &[&OsStr], server: &Path) -> (std::process::Child, Lines, Lines) {
    let mut child = Command::new(SONDE)
        .args(["watch", "--debounce", "100"])
        .args(check)
        .arg("--")
        .arg(peer("py/bin/python"))
        .arg(server)
        .env("XDG_DATA_HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = Lines::of(child.stdout.take().unwrap());
    let err = Lines::of(child.stderr.take().unwrap());
    (child, out, err)
}

/// Waits for a line holding `what`, at most 30 s; fails naming what was seen.
fn said(lines: &mut Lines, what: &str) -> String {
    let limit = Duration::from_secs(30);
    lines.until(limit, |l| l.contains(what)).unwrap_or_else(|| panic!("no {what:?} in {:#?}", lines.seen))
}

#[test]
fn each_save_restarts_the_server_and_says_what_changed_and_what_it_answers_now() {
    let home = data_home("watch");
    let dir = home.join("project");
    std::fs::create_dir_all(&dir).unwrap();
    let server: PathBuf = dir.join("server.py");
    save(&server, V1);
    let call = ["--call", "add", "a=2", "b=3"].map(OsStr::new);
    let (mut child, mut out, mut err) = watch(&home, &call, &server);
    // One server at every moment, looked at every 20 ms for the whole test.
    let (most, done) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
    let counter = {
        let (most, done, server) = (most.clone(), done.clone(), server.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                most.fetch_max(running(&server), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let limit = Duration::from_secs(30);

    said(&mut out, "5.0");
    said(&mut err, "server ready in");

    save(&server, V2);
    said(&mut err, "a change to server.py; restarting");
    said(&mut out, r#"change    serverInfo/version: serverInfo version "1" became "2""#);
    said(&mut out, "addition  tools/mul: a new tool");
    said(&mut err, "the answer differs from the previous build's:");
    said(&mut err, "before: 5.0");
    said(&mut err, "now:    6.0");

    save(&server, &format!("{V2}\ndef broken(:\n"));
    said(&mut err, "SyntaxError: invalid syntax");
    said(&mut err, "the next change tries again");

    // Compared with the last build that started: mul is gone, and add answers as before.
    save(&server, V1);
    said(&mut out, "breaking  tools/mul:");
    said(&mut err, "now:    5.0");

    // A server killed between saves is said, with no restart until the next save.
    let [pid] = servers(&server)[..] else { panic!("one server: {:?}", servers(&server)) };
    unsafe { libc::kill(pid, libc::SIGKILL) };
    said(&mut err, "sonde watch: server killed by SIGKILL");
    said(&mut err, "the next change starts it again");
    save(&server, V1);
    said(&mut err, "the same answer as the previous build's");

    // Ctrl-C stops the server with the ladder; none outlives the watch.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = wait_for(limit, || child.try_wait().unwrap()).expect("watch ends within 30 s of Ctrl-C");
    done.store(true, Ordering::Relaxed);
    counter.join().unwrap();
    assert_eq!(status.code(), Some(130), "{:#?}", err.rest(Duration::from_secs(1)));
    assert_eq!(running(&server), 0, "a server outlived the watch");
    assert_eq!(most.load(Ordering::Relaxed), 1, "two servers ran at once");

    // One session for the whole watch; each restart says its cause in the lifecycle, and the
    // timeline has a lane per server run and a restart mark on each that replaced one.
    let log = session_path(err.seen.join("\n").as_bytes());
    let text = std::fs::read_to_string(&log).unwrap();
    let restarts = text.lines().filter(|l| l.contains("(a change to server.py)")).count();
    assert!(restarts >= 2, "restarts in the session log: {restarts}");
    let timeline = Timeline::of(&WireLog::open(&log).unwrap());
    let marked = timeline.marks().iter().filter(|m| m.kind == MarkKind::Lifecycle && &*m.label == "restart");
    assert_eq!(marked.count(), restarts, "the timeline's restart marks");
    assert!(timeline.connections().len() > restarts, "a lane per run: {:?}", timeline.connections());
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn a_suite_runs_again_after_each_change_and_a_broken_answer_fails_it() {
    let home = data_home("watch-test");
    let dir = home.join("project");
    std::fs::create_dir_all(&dir).unwrap();
    let server = dir.join("server.py");
    save(&server, V1);
    let suite = home.join("suite.yaml");
    std::fs::write(
        &suite,
        "tests:\n  - name: adds\n    call: add\n    args: {a: 2, b: 3}\n    expect:\n      text: \"5.0\"\n",
    )
    .unwrap();
    let (mut child, mut out, mut err) = watch(&home, &[OsStr::new("--test"), suite.as_os_str()], &server);
    let limit = Duration::from_secs(30);
    said(&mut out, "pass");
    save(&server, V2);
    said(&mut out, "fail  adds");
    said(&mut err, "before: sonde test exited 0");
    said(&mut err, "now:    sonde test exited 5");
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = wait_for(limit, || child.try_wait().unwrap()).expect("watch ends within 30 s of Ctrl-C");
    assert_eq!(status.code(), Some(130));
    assert_eq!(running(&server), 0, "a server outlived the watch");
    let _ = std::fs::remove_dir_all(&home);
}
