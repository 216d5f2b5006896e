//! `sonde snapshot` and `sonde diff` (issue 34): a snapshot of a server against itself has no
//! change; an earlier version of the demo's interface against the demo running now names each
//! change with its verdict and fails with 5 on a breaking one; real servers compared.

mod support;

use serde_json::{json, Value};
use support::*;

fn snapshot_of(home: &std::path::Path, name: &str, server: &[&str]) -> (std::path::PathBuf, Value) {
    snapshot_with(home, name, &[], server)
}

/// A snapshot of `server` taken with the options `with` (`--era legacy`), written to `name`.
fn snapshot_with(
    home: &std::path::Path,
    name: &str,
    with: &[&str],
    server: &[&str],
) -> (std::path::PathBuf, Value) {
    let file = home.join(name);
    let mut args = vec!["snapshot", "--out", file.to_str().unwrap()];
    args.extend(with);
    args.push("--");
    args.extend(server);
    let out = sonde(home, &args);
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&file).unwrap();
    (file, serde_json::from_str(&text).unwrap())
}

#[test]
fn a_server_against_its_own_snapshot_has_no_change() {
    let home = data_home("diff-same");
    std::fs::create_dir_all(&home).unwrap();
    let (file, snapshot) = snapshot_of(&home, "demo.json", &[SONDE, "demo-server"]);
    assert_eq!(snapshot["sondeSnapshot"], 2);
    assert!(snapshot["tools"].as_array().unwrap().iter().any(|t| t["name"] == "echo"), "{snapshot}");
    let out = sonde(&home, &["diff", file.to_str().unwrap(), "--", SONDE, "demo-server"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("sonde diff: 0 breaking, 0 changes, 0 additions"));
    // Two files, no server: the same.
    let again = sonde(&home, &["diff", file.to_str().unwrap(), file.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(0), "{again:?}");
}

#[test]
fn an_earlier_interface_against_the_server_now_names_each_change_and_breaking_exits_5() {
    let home = data_home("diff-versions");
    std::fs::create_dir_all(&home).unwrap();
    let (_, mut old) = snapshot_of(&home, "now.json", &[SONDE, "demo-server"]);
    // The earlier build: echo took no argument, a tool "ghost" existed, add said less.
    let tools = old["tools"].as_array_mut().unwrap();
    let echo = tools.iter_mut().find(|t| t["name"] == "echo").unwrap();
    echo["inputSchema"] = json!({"type": "object", "properties": {}});
    let add = tools.iter_mut().find(|t| t["name"] == "add").unwrap();
    add["description"] = json!("Adds.");
    tools.push(json!({"name": "ghost", "inputSchema": {"type": "object"}}));
    let file = home.join("old.json");
    std::fs::write(&file, serde_json::to_string_pretty(&old).unwrap()).unwrap();

    let out = sonde(&home, &["diff", file.to_str().unwrap(), "--", SONDE, "demo-server"]);
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect();
    assert_eq!(
        lines[0],
        "breaking  tools/echo/inputSchema/properties/text: new required argument \"text\" (string)"
    );
    assert!(lines.contains(&"breaking  tools/ghost: the tool was removed".to_owned()), "{lines:?}");
    assert!(
        lines.contains(&"change    tools/add/description: its description changed".to_owned()),
        "{lines:?}"
    );

    let json = sonde(&home, &["diff", file.to_str().unwrap(), "--json", "--", SONDE, "demo-server"]);
    assert_eq!(json.status.code(), Some(5));
    let changes = stdout_json(&json)["changes"].as_array().cloned().unwrap();
    let ghost = changes.iter().find(|c| c["path"] == "tools/ghost").unwrap();
    assert_eq!((ghost["severity"].as_str(), ghost["kind"].as_str()), (Some("breaking"), Some("removed")));
    assert_eq!(ghost["old"]["name"], "ghost");

    // A session stands in for a snapshot: the interface as it listed it (that run listed the
    // demo whole), by path or as `last`.
    let session = session_path(&out.stderr);
    let same = sonde(&home, &["diff", session.to_str().unwrap(), "--", SONDE, "demo-server"]);
    assert_eq!(same.status.code(), Some(0), "{same:?}");
    assert!(same.stdout.is_empty(), "{same:?}");
    let against_old = sonde(&home, &["diff", file.to_str().unwrap(), "last"]);
    assert_eq!(against_old.status.code(), Some(5), "{against_old:?}");
    assert!(
        String::from_utf8_lossy(&against_old.stdout).contains("breaking  tools/ghost: the tool was removed")
    );
    // Anything else is a usage error naming what was expected.
    let other = sonde(&home, &["diff", "/etc/passwd", file.to_str().unwrap()]);
    assert_eq!(other.status.code(), Some(2), "{other:?}");
    assert!(String::from_utf8_lossy(&other.stderr).contains("/etc/passwd is not JSON"), "{other:?}");
    let nothing = sonde(&home, &["diff", "no-such-thing", file.to_str().unwrap()]);
    assert_eq!(nothing.status.code(), Some(2), "{nothing:?}");
    assert!(String::from_utf8_lossy(&nothing.stderr).contains("a snapshot file or a session was expected"));
}

#[test]
fn real_servers_compared_everything_against_itself_and_against_filesystem() {
    let home = data_home("diff-real");
    std::fs::create_dir_all(&home).unwrap();
    let everything = peer("npm/node_modules/.bin/mcp-server-everything");
    let everything = everything.to_str().unwrap();
    let (file, _) = snapshot_of(&home, "everything.json", &[everything, "stdio"]);
    let same = sonde(&home, &["diff", file.to_str().unwrap(), "--", everything, "stdio"]);
    assert_eq!(same.status.code(), Some(0), "{same:?}");
    // That run's session, its listings read back page by page, is the same interface.
    let session = session_path(&same.stderr);
    let recorded = sonde(&home, &["diff", session.to_str().unwrap(), file.to_str().unwrap()]);
    assert_eq!(recorded.status.code(), Some(0), "{recorded:?}");
    assert!(recorded.stdout.is_empty(), "{recorded:?}");
    let filesystem = peer("npm/node_modules/.bin/mcp-server-filesystem");
    let dir = home.to_str().unwrap();
    let other = sonde(&home, &["diff", file.to_str().unwrap(), "--", filesystem.to_str().unwrap(), dir]);
    assert_eq!(other.status.code(), Some(5), "every tool of everything is gone: {other:?}");
    let text = String::from_utf8_lossy(&other.stdout);
    assert!(text.contains("breaking  tools/echo: the tool was removed"), "{text}");
    assert!(text.contains("addition  tools/list_directory: a new tool"), "{text}");
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// An era the client forced (`--era legacy` to the dual-era demo) is not a change of the
/// server: no change either way, exit 0, and which era each side was listed in is said; a
/// session of the forced run stands in the same, and a format 1 file of it still reads.
#[test]
fn an_era_the_client_forced_is_not_a_change_of_a_dual_era_server() {
    let home = data_home("diff-forced-era");
    std::fs::create_dir_all(&home).unwrap();
    let (forced, snapshot) =
        snapshot_with(&home, "legacy.json", &["--era", "legacy"], &[SONDE, "demo-server"]);
    assert_eq!((snapshot["era"].as_str(), snapshot["eraChoice"].as_str()), (Some("legacy"), Some("forced")));
    let (auto, snapshot) = snapshot_of(&home, "auto.json", &[SONDE, "demo-server"]);
    assert_eq!(
        (snapshot["era"].as_str(), snapshot["eraChoice"].as_str()),
        (Some("modern"), Some("negotiated"))
    );
    let said = "the sides were listed in different eras, chosen by the client, which is not a change of \
                the server: the old in legacy (2025-11-25, forced by the client), the new in modern \
                (2026-07-28, negotiated)";
    let (forced, auto) = (forced.to_str().unwrap(), auto.to_str().unwrap());
    for (old, new) in [(forced, auto), (auto, forced)] {
        let out = sonde(&home, &["diff", old, new]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(out.stdout.is_empty(), "no change: {out:?}");
        assert!(text(&out.stderr).contains("sonde diff: the sides were listed in different eras"), "{out:?}");
    }
    let out = sonde(&home, &["diff", forced, auto]);
    assert!(text(&out.stderr).contains(said), "{out:?}");
    let json = sonde(&home, &["diff", forced, auto, "--json"]);
    assert_eq!(stdout_json(&json), json!({"changes": [], "erasChosen": said}));
    // Against the server running now, auto: the same.
    let live = sonde(&home, &["diff", forced, "--", SONDE, "demo-server"]);
    assert_eq!(live.status.code(), Some(0), "{live:?}");
    assert!(live.stdout.is_empty(), "{live:?}");
    // The forced run's session stands in for its snapshot, the choice read from it.
    let session = sonde(&home, &["snapshot", "--era", "legacy", "--", SONDE, "demo-server"]);
    assert!(session.status.success(), "{session:?}");
    let session = session_path(&session.stderr);
    let out = sonde(&home, &["diff", session.to_str().unwrap(), auto]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(text(&out.stderr).contains("the old in legacy (2025-11-25, forced by the client)"), "{out:?}");
    // A format 1 file of the forced run: its decidedBy says the client chose.
    let mut first = serde_json::from_str::<Value>(&std::fs::read_to_string(forced).unwrap()).unwrap();
    first["sondeSnapshot"] = json!(1);
    first["decidedBy"] = json!("--era legacy; initialize");
    first.as_object_mut().unwrap().remove("eraChoice");
    let format_1 = home.join("format-1.json");
    std::fs::write(&format_1, first.to_string()).unwrap();
    let out = sonde(&home, &["diff", format_1.to_str().unwrap(), auto]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
}

/// Both sides negotiated: an era lost is the server's change, and breaks. The fixture speaks
/// both eras with --dual-era and legacy only without.
#[test]
fn an_era_negotiated_on_both_sides_and_lost_breaks() {
    let home = data_home("diff-lost-era");
    std::fs::create_dir_all(&home).unwrap();
    let fixture = fixture_bin();
    let fixture = fixture.to_str().unwrap();
    let (dual, _) = snapshot_with(&home, "dual.json", &["--no-era-cache"], &[fixture, "--dual-era"]);
    let (legacy, snapshot) = snapshot_with(&home, "legacy.json", &["--no-era-cache"], &[fixture]);
    assert_eq!(
        (snapshot["era"].as_str(), snapshot["eraChoice"].as_str()),
        (Some("legacy"), Some("negotiated"))
    );
    let out = sonde(&home, &["diff", dual.to_str().unwrap(), legacy.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    assert!(
        text(&out.stdout).lines().next().unwrap_or_default().starts_with(
            "breaking  era: the server no longer speaks modern (2026-07-28): both sides negotiated"
        ),
        "{out:?}"
    );
    // The same legacy-only build against a snapshot the client forced to legacy: no era change.
    let (forced, _) = snapshot_with(&home, "forced.json", &["--era", "legacy"], &[fixture, "--dual-era"]);
    let out = sonde(&home, &["diff", forced.to_str().unwrap(), legacy.to_str().unwrap()]);
    assert!(!text(&out.stdout).contains("era:"), "{out:?}");
}

/// The Python SDK answers both eras, with other capability options in each: across eras the
/// client chose, those are changes that say so, never a breaking verdict, either way.
#[test]
fn the_python_sdk_listed_in_each_era_has_no_breaking_change() {
    let home = data_home("diff-py-eras");
    std::fs::create_dir_all(&home).unwrap();
    let python = peer("py/bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/py_mcp_server.py");
    let server = [python.to_str().unwrap(), script, "stdio"];
    let (forced, _) = snapshot_with(&home, "legacy.json", &["--era", "legacy"], &server);
    let (auto, _) = snapshot_of(&home, "auto.json", &server);
    for (old, new) in [(&forced, &auto), (&auto, &forced)] {
        let out = sonde(&home, &["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let changes = text(&out.stdout);
        assert!(!changes.contains("breaking"), "{changes}");
        assert!(changes.lines().all(|l| l.contains("listed in different eras")), "{changes}");
    }
}

/// `snapshot --out` leaves an existing file as it is without --force, before starting the
/// server, in export's words and with its exit code; --force replaces it. Two snapshots of one
/// server are the same file, however its era was decided (probed, then a cached verdict).
#[test]
fn a_snapshot_replaces_a_file_only_with_force_and_two_of_one_server_are_the_same_file() {
    let home = data_home("snapshot-force");
    std::fs::create_dir_all(&home).unwrap();
    let file = home.join("kept.json");
    std::fs::write(&file, "keep me").unwrap();
    let path = file.to_str().unwrap();
    let refused = sonde(&home, &["snapshot", "--out", path, "--", SONDE, "demo-server"]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let stderr = text(&refused.stderr);
    assert!(stderr.contains(&format!("sonde: {path} exists; give --force to replace it")), "{stderr}");
    assert!(!stderr.contains("session log"), "refused before the server was started: {stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
    let dir =
        sonde(&home, &["snapshot", "--out", home.to_str().unwrap(), "--force", "--", SONDE, "demo-server"]);
    assert_eq!(dir.status.code(), Some(2), "{dir:?}");
    assert!(text(&dir.stderr).contains("is a directory"), "{dir:?}");

    let forced = sonde(&home, &["snapshot", "--out", path, "--force", "--", SONDE, "demo-server"]);
    assert_eq!(forced.status.code(), Some(0), "{forced:?}");
    let first = std::fs::read_to_string(&file).unwrap();
    assert!(first.contains("\"sondeSnapshot\": 2"), "{first}");
    let again = sonde(&home, &["snapshot", "--out", path, "--force", "--", SONDE, "demo-server"]);
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    // The second connect read the era cache the first wrote: decided otherwise, the same file.
    let log = sonde(&home, &["log", session_path(&again.stderr).to_str().unwrap()]);
    assert!(text(&log.stdout).contains("(cached verdict; server/discover)"), "{log:?}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), first);
}
