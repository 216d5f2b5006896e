//! `sonde snapshot` and `sonde diff` (issue 34): a snapshot of a server against itself has no
//! change; an earlier version of the demo's interface against the demo running now names each
//! change with its verdict and fails with 5 on a breaking one; real servers compared.

mod support;

use serde_json::{json, Value};
use support::*;

fn snapshot_of(home: &std::path::Path, name: &str, server: &[&str]) -> (std::path::PathBuf, Value) {
    let file = home.join(name);
    let mut args = vec!["snapshot", "--out", file.to_str().unwrap(), "--"];
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
    assert_eq!(snapshot["sondeSnapshot"], 1);
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
