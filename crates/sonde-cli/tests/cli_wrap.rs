//! `sonde wrap` and `sonde unwrap` on the configs of Claude Desktop, Cursor, VS Code and Claude
//! Code, its projects' servers too (issues 15 and 33): written with a backup, the chosen entries routed through `sonde proxy` and everything
//! else kept, and unwrapping gives the original bytes back.

mod support;

use std::path::Path;
use std::process::Command;

use support::SONDE;

fn sonde_in(home: &Path, args: &[&str]) -> std::process::Output {
    Command::new(SONDE)
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .current_dir(home)
        .output()
        .unwrap()
}

const CLAUDE: &str = "{\n  \"mcpServers\": {\n    \"time\": {\n      \"command\": \"uvx\",\n      \"args\": [\"mcp-server-time\"]\n    },\n    \"files\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"@modelcontextprotocol/server-filesystem\",\n        \"/tmp\"\n      ],\n      \"env\": {\"A\": \"1\"}\n    }\n  },\n  \"theme\": \"dark\"\n}\n";
const VSCODE: &str = "{\n  // the workspace's servers\n  \"servers\": {\n    \"everything\": { \"type\": \"stdio\", \"command\": \"mcp-server-everything\", \"args\": [\"stdio\"] }\n  }\n}\n";

#[test]
fn each_clients_config_round_trips_with_a_backup() {
    for (client, file, text) in [
        ("claude-desktop", ".config/Claude/claude_desktop_config.json", CLAUDE),
        ("cursor", ".cursor/mcp.json", CLAUDE),
        ("vscode", ".vscode/mcp.json", VSCODE),
    ] {
        let home = support::data_home(&format!("wrap-{client}"));
        let path = home.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();

        // Without --write, the new text is printed and the file left alone.
        let shown = sonde_in(&home, &["wrap", "--client", client]);
        assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
        assert!(String::from_utf8_lossy(&shown.stdout).contains("\"proxy\""));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);

        let wrapped = sonde_in(&home, &["wrap", "--client", client, "--write"]);
        assert!(wrapped.status.success(), "{}", String::from_utf8_lossy(&wrapped.stderr));
        let now: serde_json::Value = jsonc(&std::fs::read_to_string(&path).unwrap());
        let key = if client == "vscode" { "servers" } else { "mcpServers" };
        for (_, server) in now[key].as_object().unwrap() {
            assert_eq!(server["command"], SONDE, "{client}");
            assert_eq!(server["args"][0], "proxy");
        }
        let backups: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains(".sonde-backup-"))
            .collect();
        assert_eq!(backups.len(), 1, "{client}: one backup");
        assert_eq!(std::fs::read_to_string(backups[0].path()).unwrap(), text);

        let unwrapped = sonde_in(&home, &["unwrap", "--client", client, "--write"]);
        assert!(unwrapped.status.success(), "{}", String::from_utf8_lossy(&unwrapped.stderr));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{client}: the original bytes");
    }
}

/// JSON with `//` comments, as VS Code writes it, read by dropping the comment lines.
fn jsonc(text: &str) -> serde_json::Value {
    let plain: String =
        text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    serde_json::from_str(&plain).unwrap()
}

#[test]
fn one_server_only_and_a_missing_config_say_so() {
    let home = support::data_home("wrap-one");
    let path = home.join(".cursor/mcp.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, CLAUDE).unwrap();
    let out = sonde_in(&home, &["wrap", "--client", "cursor", "--server", "time"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\"--name\", \"time\"") && text.contains("\"command\": \"npx\""), "{text}");
    let missing = sonde_in(&home, &["wrap", "--client", "claude-desktop"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read"));
}

#[test]
fn claude_codes_project_servers_are_wrapped_and_two_runs_keep_two_backups() {
    let home = support::data_home("wrap-claude-code");
    std::fs::create_dir_all(&home).unwrap();
    let path = home.join(".claude.json");
    let text = "{\n  \"mcpServers\": {\"time\": {\"command\": \"uvx\", \"args\": [\"mcp-server-time\"]}},\n  \"projects\": {\n    \"/home/me/app\": {\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"-y\", \"x\"]}}}\n  }\n}\n";
    std::fs::write(&path, text).unwrap();
    let wrapped = sonde_in(&home, &["wrap", "--client", "claude-code", "--write"]);
    assert!(wrapped.status.success(), "{wrapped:?}");
    let said = String::from_utf8_lossy(&wrapped.stderr);
    assert!(said.contains("fs (project /home/me/app)"), "the project's server is named with it: {said}");
    let now: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(now["projects"]["/home/me/app"]["mcpServers"]["fs"]["command"], SONDE);
    // Unwrapped at once, in the same second: both backups are kept.
    let unwrapped = sonde_in(&home, &["unwrap", "--client", "claude-code", "--write"]);
    assert!(unwrapped.status.success(), "{unwrapped:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    let backups = std::fs::read_dir(&home)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".claude.json.sonde-backup-"));
    assert_eq!(backups.count(), 2);
}

#[test]
fn an_empty_xdg_config_home_is_not_a_relative_path() {
    let home = support::data_home("wrap-empty-xdg");
    let path = home.join(".config/Claude/claude_desktop_config.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, CLAUDE).unwrap();
    let out = Command::new(SONDE)
        .args(["wrap", "--client", "claude-desktop"])
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", "")
        .current_dir(&home)
        .output()
        .unwrap();
    assert!(out.status.success(), "the file under HOME/.config is found: {out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"proxy\""));
}
