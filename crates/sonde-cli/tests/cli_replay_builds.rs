//! `sonde replay`, `sonde diff` and `sonde test` against later builds of one server (issue 50): a session the Python SDK
//! client made through `sonde proxy` on build 1.0 of `tests/peers/py_versions_server.py`,
//! replayed against each later build. A removed or renamed tool is `gone` and fails, never
//! `same`; an added tool shifts nothing; a listing is judged as diff judges it (a removal
//! breaks, a new description or tool does not); a timestamp is ignored by its value pattern
//! only when asked; and the requests the server received are the recorded ones, byte for byte,
//! but for the server's own tokens. The same builds on the TypeScript SDK
//! (`tests/peers/ts_versions_server.mjs`) are replayed a session of their first build too.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use sonde_core::{Direction, Entry, Kind};

use support::*;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn server() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/py_versions_server.py")
}

/// The client's requests of a session file, in order, each as its method and its params'
/// exact JSON without `_meta` (which each era sets for itself); the handshake left out.
fn requests(path: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| Entry::from_line(l.as_bytes()).ok())
        .filter(|e| e.dir == Direction::Out && e.kind == Kind::Message && !e.probe)
        .filter_map(|e| e.text.and_then(|t| serde_json::from_str::<Value>(&t).ok()))
        .filter(|f| f.get("id").is_some() && f["method"].is_string())
        .filter(|f| !["initialize", "server/discover"].contains(&f["method"].as_str().unwrap()))
        .map(|mut f| {
            if let Some(p) = f["params"].as_object_mut() {
                p.remove("_meta");
            }
            (f["method"].as_str().unwrap().to_owned(), f["params"].to_string())
        })
        .collect()
}

/// A session the Python SDK client made through `sonde proxy` with `server` (its build 1.0),
/// in the data home `home`.
fn record(home: &Path, server: &[&str]) -> PathBuf {
    let python = peer("py/bin/python");
    let client = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/py_replay_client.py");
    let data = format!("XDG_DATA_HOME={}", home.display());
    let recorded = Command::new(&python)
        .args([client, "auto", "--", "env", &data, SONDE, "proxy", "--"])
        .args(server)
        .arg("1.0")
        .output()
        .unwrap();
    assert!(recorded.status.success(), "{}", text(&recorded.stderr));
    support::newest_session(home).expect("a session")
}

#[test]
fn a_replay_against_each_later_build_fails_what_broke_and_sends_what_was_recorded() {
    let home = data_home("replay-builds");
    let python = peer("py/bin/python");
    let python = python.to_str().unwrap();
    let session = record(&home, &[python, server()]);
    let session = session.to_str().unwrap();
    let sent = requests(Path::new(session));
    let methods: Vec<&str> = sent.iter().map(|(m, _)| m.as_str()).collect();
    assert!(methods.contains(&"tools/call") && methods.contains(&"resources/read"), "{methods:?}");

    let replay = |build: &str, extra: &[&str]| -> Output {
        let mut args = vec!["replay", session];
        args.extend(extra);
        args.extend(["--", python, server(), build]);
        sonde(&home, &args)
    };
    let lines = |out: &Output| text(&out.stdout);
    // Every recorded request reached the server as recorded, in order; the replay's own
    // requests (the listing that tells what is gone) are listings only.
    let as_recorded = |out: &Output| {
        let received = requests(&session_path(&out.stderr));
        let mut rest = received.iter();
        for request in &sent {
            assert!(rest.any(|r| r == request), "{request:?} was not sent as recorded: {received:?}");
        }
        let extra: Vec<&(String, String)> = received.iter().filter(|r| !sent.contains(r)).collect();
        assert!(extra.iter().all(|(m, _)| m.ends_with("/list")), "{extra:?}");
    };

    // The same build: the same, but for the time, which differs unless a pattern expects it.
    let same = replay("1.0", &[]);
    assert_eq!(same.status.code(), Some(5), "{same:?}");
    assert!(lines(&same).contains("differs  tools/call get_time (seq "), "{}", lines(&same));
    let same = replay("1.0", &["--ignore-values", "iso-time"]);
    assert_eq!(same.status.code(), Some(0), "{same:?}");
    assert!(!lines(&same).contains("differs") && !lines(&same).contains("changed"), "{}", lines(&same));
    as_recorded(&same);
    // A value pattern that matches nothing is said, and fails with --strict.
    let strict = replay("1.0", &["--ignore-values", "iso-time,uuid", "--strict"]);
    assert_eq!(strict.status.code(), Some(5), "{strict:?}");
    assert!(text(&strict.stderr).contains("--ignore-values uuid matched nothing"), "{strict:?}");

    let time = [
        "--ignore",
        "tools/call get_time:result.content[*].text",
        "--ignore",
        "tools/call get_time:result.structuredContent",
    ];

    // A tool added before the others: every call still goes to its own tool.
    let added = replay("1.2-added", &time);
    assert_eq!(added.status.code(), Some(0), "{added:?}");
    let out = lines(&added);
    assert!(
        out.contains("changed  tools/list (seq ") && out.contains("addition tools/convert: a new tool"),
        "{out}"
    );
    assert!(!out.contains("tools/call convert") && out.contains("same     tools/call divide (seq "), "{out}");
    as_recorded(&added);

    // A tool removed: gone, and the listing's removal is breaking.
    let removed = replay("2.0-removed", &time);
    assert_eq!(removed.status.code(), Some(5), "{removed:?}");
    let out = lines(&removed);
    assert!(out.contains("gone     tools/call divide: the server no longer lists divide (seq "), "{out}");
    assert!(out.contains("breaking tools/divide: the tool was removed"), "{out}");
    as_recorded(&removed);
    // With --skip-gone it is not sent, and still fails.
    let skipped = replay("2.0-removed", &[&time[..], &["--skip-gone"]].concat());
    assert_eq!(skipped.status.code(), Some(5), "{skipped:?}");
    let received = requests(&session_path(&skipped.stderr));
    assert!(!received.iter().any(|(m, p)| m == "tools/call" && p.contains("\"divide\"")), "{received:?}");

    // A rename: divide is gone (the call is sent as divide, never as div), with a hint.
    let renamed = replay("2.1-renamed", &time);
    assert_eq!(renamed.status.code(), Some(5), "{renamed:?}");
    let out = lines(&renamed);
    assert!(out.contains("gone     tools/call divide: the server no longer lists divide (seq "), "{out}");
    let received = requests(&session_path(&renamed.stderr));
    assert!(!received.iter().any(|(_, p)| p.contains("\"div\"")), "{received:?}");
    as_recorded(&renamed);

    // A resource removed: the listing breaks, and its read differs (matched by URI).
    let resource = replay("2.2-resource-removed", &time);
    assert_eq!(resource.status.code(), Some(5), "{resource:?}");
    let out = lines(&resource);
    assert!(out.contains("breaking resources/notes://readme: the resource was removed"), "{out}");
    assert!(out.contains("differs  resources/read notes://readme (seq "), "{out}");
    assert!(!out.contains("config://units\" →"), "no other resource moved into its place: {out}");
    as_recorded(&resource);

    // A new description is a change: reported, not a failure; --strict fails it.
    let words = replay("2.3-description", &time);
    assert_eq!(words.status.code(), Some(0), "{words:?}");
    assert!(
        lines(&words).contains("change tools/divide/description: its description changed"),
        "{}",
        lines(&words)
    );
    let strict = replay("2.3-description", &[&time[..], &["--strict"]].concat());
    assert_eq!(strict.status.code(), Some(5), "{strict:?}");

    // Read-only no more: what a host approves calls on changed, which breaks.
    let flipped = replay("2.5-annotation-flip", &time);
    assert_eq!(flipped.status.code(), Some(5), "{flipped:?}");
    assert!(lines(&flipped).contains("breaking tools/get_weather/annotations"), "{}", lines(&flipped));
}

#[test]
fn diff_says_what_each_later_build_breaks() {
    let home = data_home("diff-builds");
    let python = peer("py/bin/python");
    let python = python.to_str().unwrap();
    let before = home.join("calc-1.0.json");
    std::fs::create_dir_all(&home).unwrap();
    let taken = sonde(&home, &["snapshot", "--out", before.to_str().unwrap(), "--", python, server(), "1.0"]);
    assert_eq!(taken.status.code(), Some(0), "{taken:?}");
    let diff = |build: &str| {
        let out = sonde(&home, &["diff", before.to_str().unwrap(), "--", python, server(), build]);
        (out.status.code(), text(&out.stdout))
    };
    let (code, out) = diff("1.0");
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = diff("1.2-added");
    assert_eq!((code, out.contains("tools/convert")), (Some(0), true), "{out}");
    let (code, out) = diff("2.1-renamed");
    assert_eq!(code, Some(5), "{out}");
    assert!(out.contains("tools/divide") && out.contains("likely renamed to \"div\""), "{out}");
    let (code, out) = diff("2.2-resource-removed");
    assert_eq!(code, Some(5), "{out}");
    assert!(out.contains("resources/notes://readme"), "{out}");
    let (code, out) = diff("2.3-description");
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = diff("2.4-subscribe-withdrawn");
    assert_eq!(code, Some(5), "{out}");
    assert!(out.contains("resources.subscribe was withdrawn"), "{out}");
    let (code, out) = diff("2.5-annotation-flip");
    assert_eq!(code, Some(5), "{out}");
    assert!(out.contains("tools/get_weather/annotations"), "{out}");
}

#[test]
fn the_typescript_sdk_builds_are_judged_the_same_way() {
    let home = data_home("replay-builds-ts");
    let node_server = peer("tsv2/ts_versions_server.mjs");
    let node_server = node_server.to_str().unwrap();
    let session = record(&home, &["node", node_server]);
    let session = session.to_str().unwrap();
    let time = ["--ignore-values", "iso-time"];
    let replay = |build: &str| {
        let mut args = vec!["replay", session];
        args.extend(time);
        args.extend(["--", "node", node_server, build]);
        let out = sonde(&home, &args);
        (out.status.code(), text(&out.stdout))
    };
    let (code, out) = replay("1.0");
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = replay("1.2-added");
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("addition tools/convert: a new tool") && out.contains("same     tools/call divide"),
        "{out}"
    );
    for build in ["2.0-removed", "2.1-renamed"] {
        let (code, out) = replay(build);
        assert_eq!(code, Some(5), "{build}: {out}");
        assert!(
            out.contains("gone     tools/call divide: the server no longer lists divide (seq "),
            "{build}: {out}"
        );
    }
    let (code, out) = replay("2.2-resource-removed");
    assert_eq!(code, Some(5), "{out}");
    assert!(out.contains("breaking resources/notes://readme: the resource was removed"), "{out}");
    let (code, out) = replay("2.3-description");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("change tools/divide/description"), "{out}");
}

/// The suite an author wrote on build 1.0 fails each later build that broke what it expects
/// (divide removed or renamed, the read-me removed) and passes the ones that did not.
#[test]
fn a_suite_written_on_the_first_build_fails_each_build_that_broke_it() {
    let home = data_home("test-builds");
    let python = peer("py/bin/python");
    let python = python.to_str().unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let suite = home.join("calc.yaml");
    std::fs::write(
        &suite,
        r#"tests:
  - name: divides
    call: divide
    args: {a: 6, b: 3}
    expect: {isError: false, text: "2"}
  - name: divide by zero is an error
    call: divide
    args: {a: 1, b: 0}
    expect: {isError: true}
  - name: weather
    call: get_weather
    args: {city: Oslo}
    expect: {text: Sunny}
  - name: read me
    read: notes://readme
    expect: {text: Read me}
"#,
    )
    .unwrap();
    let run = |build: &str| {
        let out = sonde(&home, &["test", suite.to_str().unwrap(), "--", python, server(), build]);
        (out.status.code(), text(&out.stdout))
    };
    for build in ["1.0", "1.2-added", "2.3-description", "2.5-annotation-flip"] {
        let (code, out) = run(build);
        assert_eq!(code, Some(0), "{build}: {out}");
    }
    for build in ["2.0-removed", "2.1-renamed"] {
        let (code, out) = run(build);
        assert_eq!(code, Some(5), "{build}: {out}");
        assert!(
            out.contains("fail  divides: listed: the server does not list the tool divide"),
            "{build}: {out}"
        );
        // The SDK answers a call of an unknown tool with an isError result: still a failure.
        assert!(out.contains("fail  divide by zero is an error: listed:"), "{build}: {out}");
    }
    let (code, out) = run("2.2-resource-removed");
    assert_eq!(code, Some(5), "{out}");
    assert!(out.contains("fail  read me:"), "{out}");
}
