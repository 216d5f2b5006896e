//! Routing the servers a client's config names through `sonde proxy`, and back: the config's
//! JSON (or JSONC, as VS Code writes it) is edited in place, so every other entry, comment and
//! space stays as the person left it, and unwrapping what was wrapped gives the same bytes back.
//!
//! Owns: where each client keeps its servers, what a wrapped entry looks like, the edit, and
//! `WrapError`, why a config cannot be edited (each `bad_input`: the text it was given).
//! Refuses: reading and writing files, and backups (the front end does them); servers reached
//! by URL, which are left as they are, and said so: a client reaches those itself, so the person
//! runs the HTTP proxy (`sonde proxy --listen`) and gives the client its address.

use std::path::PathBuf;

use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use jsonc_parser::ParseOptions;

use crate::error_code::ErrorCode;

/// Why a client's config cannot be edited, in the words the person reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WrapError {
    /// The parser's words on where the text stops being JSON (or JSONC).
    #[error("the config is not JSON: {0}")]
    NotJson(String),
    /// The config has no object of servers under the client's key.
    #[error("the config has no \"{0}\" object")]
    NoServers(&'static str),
    #[error("the config has no server named {0:?}")]
    NoServerNamed(String),
}

impl WrapError {
    /// Every one is about the config text given: `bad_input`.
    pub fn code(&self) -> ErrorCode {
        ErrorCode::BadInput
    }
}

/// A client whose config `wrap` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnownClient {
    ClaudeDesktop,
    Cursor,
    Vscode,
    ClaudeCode,
}

impl KnownClient {
    pub const ALL: [KnownClient; 4] =
        [KnownClient::ClaudeDesktop, KnownClient::Cursor, KnownClient::Vscode, KnownClient::ClaudeCode];

    pub fn name(self) -> &'static str {
        match self {
            KnownClient::ClaudeDesktop => "claude-desktop",
            KnownClient::Cursor => "cursor",
            KnownClient::Vscode => "vscode",
            KnownClient::ClaudeCode => "claude-code",
        }
    }

    pub fn parse(s: &str) -> Option<KnownClient> {
        KnownClient::ALL.into_iter().find(|c| c.name() == s)
    }

    /// The object of servers in the config: VS Code's `servers`, everyone else's `mcpServers`.
    fn key(self) -> &'static str {
        match self {
            KnownClient::Vscode => "servers",
            _ => "mcpServers",
        }
    }

    /// Where the client keeps its config on Linux (VS Code's is the workspace's, from `cwd`).
    pub fn default_path(self) -> Option<PathBuf> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        match self {
            KnownClient::ClaudeDesktop => {
                // As the XDG spec says: a value that is empty or not absolute is ignored.
                let config = std::env::var_os("XDG_CONFIG_HOME")
                    .map(PathBuf::from)
                    .filter(|p| p.is_absolute())
                    .or(home.map(|h| h.join(".config")));
                config.map(|c| c.join("Claude/claude_desktop_config.json"))
            }
            KnownClient::Cursor => home.map(|h| h.join(".cursor/mcp.json")),
            KnownClient::Vscode => Some(PathBuf::from(".vscode/mcp.json")),
            KnownClient::ClaudeCode => home.map(|h| h.join(".claude.json")),
        }
    }
}

/// A config after `wrap` or `unwrap`: its new text, the servers changed and those left alone.
#[derive(Debug, Clone, PartialEq)]
pub struct Edited {
    pub text: String,
    pub changed: Vec<String>,
    /// Each server left as it was, and why.
    pub left: Vec<(String, String)>,
}

/// How many arguments `wrap` puts before the server's own: `proxy --name NAME -- COMMAND`.
const PREFIX: usize = 5;

/// Routes the stdio servers of `text` (all of them, or `only`) through `sonde` (the path the
/// client will run): `"command": "npx", "args": ["-y", "x"]` becomes `"command": SONDE,
/// "args": ["proxy", "--name", NAME, "--", "npx", "-y", "x"]`.
pub fn wrap_config(
    text: &str,
    client: KnownClient,
    only: Option<&str>,
    sonde: &str,
) -> Result<Edited, WrapError> {
    edit(text, client, only, |name, server| {
        let Some(command) = string(server, "command") else {
            return Err("not a command line (a server reached by URL is left as it is)".into());
        };
        if is_wrapped(server) {
            return Err("already goes through sonde proxy".into());
        }
        let prefix = ["proxy", "--name", name, "--", command.as_str()];
        server.get("command").expect("read above").set_value(CstInputValue::String(sonde.to_owned()));
        match server.array_value("args") {
            Some(args) => {
                let own = strings(&args);
                if args.to_string().contains('\n') || own.is_none() {
                    // One element a line: the new ones go in as lines before the server's own.
                    for (i, arg) in prefix.iter().enumerate() {
                        args.insert(i, CstInputValue::String((*arg).to_owned()));
                    }
                } else {
                    // On one line, the whole list is written anew, on one line again.
                    let all = prefix.iter().map(|a| (*a).to_owned()).chain(own.unwrap_or_default());
                    server
                        .get("args")
                        .expect("read above")
                        .set_value(CstInputValue::Array(all.map(CstInputValue::String).collect()));
                }
            }
            None => {
                let args = prefix.iter().map(|a| CstInputValue::String((*a).to_owned())).collect();
                insert_after(server, "command", "args", CstInputValue::Array(args));
            }
        }
        Ok(())
    })
}

/// The entry a client's config needs to run a stdio server (`program` with `args`, by `name`)
/// through `sonde`, as that client's config file writes it: what "Use with a client" shows. Its
/// environment is left out: values may be secrets, and the client's config is where they go.
pub fn wrap_snippet(client: KnownClient, name: &str, program: &str, args: &[String], sonde: &str) -> String {
    let mut server = serde_json::json!({"command": program, "args": args});
    if client == KnownClient::Vscode {
        server = serde_json::json!({"type": "stdio", "command": program, "args": args});
    }
    let config = serde_json::json!({ client.key(): { name: server } });
    let text = serde_json::to_string_pretty(&config).expect("a config serializes");
    wrap_config(&text, client, None, sonde).map(|e| e.text).expect("a config made here wraps")
}

/// Undoes [`wrap`]: each server whose command line is `SONDE proxy --name NAME -- COMMAND …`
/// gets `COMMAND …` back (and no `args` when it had none of its own).
pub fn unwrap_config(text: &str, client: KnownClient, only: Option<&str>) -> Result<Edited, WrapError> {
    edit(text, client, only, |_, server| {
        if !is_wrapped(server) {
            return Err("does not go through sonde proxy".into());
        }
        let args = server.array_value("args").expect("checked by is_wrapped");
        let elements = args.elements();
        let command =
            elements[PREFIX - 1].as_string_lit().and_then(|s| s.decoded_value().ok()).unwrap_or_default();
        server.get("command").expect("checked").set_value(CstInputValue::String(command));
        if elements.len() == PREFIX {
            server.get("args").expect("checked").remove();
        } else {
            let own = strings(&args);
            if args.to_string().contains('\n') || own.is_none() {
                // One element a line: removing the first ones leaves the rest as they were.
                for element in elements.into_iter().take(PREFIX) {
                    element.remove();
                }
            } else {
                // On one line, removing leaves the separators' spaces behind: the rest (all
                // strings) is written anew, on one line again.
                let rest =
                    own.unwrap_or_default().into_iter().skip(PREFIX).map(CstInputValue::String).collect();
                server.get("args").expect("checked").set_value(CstInputValue::Array(rest));
            }
        }
        Ok(())
    })
}

/// Applies `change` to each server of the config (or `only`), collecting what changed. A
/// server of a Claude Code project is named with its project: `time (project /home/me/app)`.
/// (`change`'s error is words, not a failure: why one server is left as it is, kept in
/// [`Edited::left`] beside its name.)
fn edit(
    text: &str,
    client: KnownClient,
    only: Option<&str>,
    mut change: impl FnMut(&str, &CstObject) -> Result<(), String>,
) -> Result<Edited, WrapError> {
    let root =
        CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| WrapError::NotJson(e.to_string()))?;
    let scopes = root.object_value().map(|o| scopes(&o, client)).unwrap_or_default();
    if scopes.is_empty() {
        return Err(WrapError::NoServers(client.key()));
    }
    let mut edited = Edited { text: String::new(), changed: Vec::new(), left: Vec::new() };
    let mut found = false;
    for (project, servers) in scopes {
        for prop in servers.properties() {
            let Some(name) = prop.decoded_name() else { continue };
            if only.is_some_and(|o| o != name) {
                continue;
            }
            found = true;
            let label = match &project {
                Some(path) => format!("{name} (project {path})"),
                None => name.clone(),
            };
            let Some(server) = prop.object_value() else {
                edited.left.push((label, "not an object".into()));
                continue;
            };
            match change(&name, &server) {
                Ok(()) => edited.changed.push(label),
                Err(why) => edited.left.push((label, why)),
            }
        }
    }
    if let Some(only) = only.filter(|_| !found) {
        return Err(WrapError::NoServerNamed(only.to_owned()));
    }
    edited.text = root.to_string();
    Ok(edited)
}

/// The objects of servers in a config, each with the project it belongs to: the client's own
/// (`mcpServers`, VS Code's `servers`), and for Claude Code also each project's, which `claude
/// mcp add` keeps under `projects[PATH].mcpServers` (its local scope).
fn scopes(root: &CstObject, client: KnownClient) -> Vec<(Option<String>, CstObject)> {
    let mut found: Vec<(Option<String>, CstObject)> =
        root.object_value(client.key()).map(|o| (None, o)).into_iter().collect();
    if client == KnownClient::ClaudeCode {
        for project in root.object_value("projects").map(|p| p.properties()).unwrap_or_default() {
            let servers = project.object_value().and_then(|settings| settings.object_value("mcpServers"));
            if let (Some(path), Some(servers)) = (project.decoded_name(), servers) {
                found.push((Some(path), servers));
            }
        }
    }
    found
}

/// Every element of `array` as a string, or `None` when one is not a string.
fn strings(array: &jsonc_parser::cst::CstArray) -> Option<Vec<String>> {
    array.elements().iter().map(|e| e.as_string_lit()?.decoded_value().ok()).collect()
}

fn string(server: &CstObject, key: &str) -> Option<String> {
    server.get(key)?.value()?.as_string_lit()?.decoded_value().ok()
}

/// `SONDE proxy --name NAME -- COMMAND …`, with a command whose file is named `sonde`.
fn is_wrapped(server: &CstObject) -> bool {
    let sonde = string(server, "command").is_some_and(|c| c.rsplit('/').next() == Some("sonde"));
    let args: Vec<String> = server
        .array_value("args")
        .map(|a| a.elements().iter().filter_map(|e| e.as_string_lit()?.decoded_value().ok()).collect())
        .unwrap_or_default();
    sonde && args.len() >= PREFIX && args[0] == "proxy" && args[1] == "--name" && args[3] == "--"
}

/// Inserts `key: value` just after the property `after` (or at the end).
fn insert_after(object: &CstObject, after: &str, key: &str, value: CstInputValue) {
    match object.get(after) {
        Some(prop) => {
            object.insert(prop.property_index() + 1, key, value);
        }
        None => {
            object.append(key, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SONDE: &str = "/usr/bin/sonde";

    const CLAUDE: &str = r#"{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/home/ada/notes"
      ],
      "env": { "DEBUG": "1" }
    },
    "time": {
      "command": "uvx",
      "args": ["mcp-server-time"]
    },
    "remote": { "url": "https://example.com/mcp" }
  },
  "globalShortcut": "Ctrl+Space"
}
"#;

    const VSCODE: &str = r#"{
  // Servers for this workspace.
  "servers": {
    "everything": {
      "type": "stdio",
      "command": "mcp-server-everything"
    }
  },
  "inputs": []
}
"#;

    #[test]
    fn wrapping_and_unwrapping_gives_the_same_bytes_back() {
        for (client, text) in [
            (KnownClient::ClaudeDesktop, CLAUDE),
            (KnownClient::Cursor, CLAUDE),
            (KnownClient::ClaudeCode, CLAUDE),
            (KnownClient::Vscode, VSCODE),
        ] {
            let wrapped = wrap_config(text, client, None, SONDE).unwrap();
            assert_ne!(wrapped.text, text);
            let back = unwrap_config(&wrapped.text, client, None).unwrap();
            assert_eq!(back.text, text, "{client:?}");
            assert_eq!(back.changed, wrapped.changed);
        }
    }

    #[test]
    fn a_wrapped_entry_runs_the_proxy_in_front_of_its_command() {
        let wrapped = wrap_config(CLAUDE, KnownClient::ClaudeDesktop, None, SONDE).unwrap();
        assert_eq!(wrapped.changed, ["filesystem", "time"]);
        assert_eq!(
            wrapped.left,
            [(
                "remote".to_owned(),
                "not a command line (a server reached by URL is left as it is)".to_owned()
            )]
        );
        let value: serde_json::Value = serde_json::from_str(&wrapped.text).unwrap();
        let time = &value["mcpServers"]["time"];
        assert_eq!(time["command"], SONDE);
        assert_eq!(
            time["args"],
            serde_json::json!(["proxy", "--name", "time", "--", "uvx", "mcp-server-time"])
        );
        assert_eq!(value["mcpServers"]["filesystem"]["env"]["DEBUG"], "1");
        assert_eq!(value["globalShortcut"], "Ctrl+Space");
        // Wrapping twice changes nothing more.
        let again = wrap_config(&wrapped.text, KnownClient::ClaudeDesktop, None, SONDE).unwrap();
        assert_eq!(again.text, wrapped.text);
        assert!(again.changed.is_empty());
    }

    #[test]
    fn a_snippet_is_the_clients_own_shape_wrapped() {
        let args = vec!["-y".to_owned(), "x".to_owned()];
        let text = wrap_snippet(KnownClient::Vscode, "demo", "npx", &args, SONDE);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["servers"]["demo"]["type"], "stdio");
        assert_eq!(value["servers"]["demo"]["command"], SONDE);
        assert_eq!(
            value["servers"]["demo"]["args"],
            serde_json::json!(["proxy", "--name", "demo", "--", "npx", "-y", "x"])
        );
        assert!(wrap_snippet(KnownClient::Cursor, "demo", "npx", &args, SONDE).contains("\"mcpServers\""));
    }

    #[test]
    fn one_server_can_be_chosen_and_a_missing_one_is_an_error() {
        let wrapped = wrap_config(CLAUDE, KnownClient::ClaudeDesktop, Some("time"), SONDE).unwrap();
        assert_eq!(wrapped.changed, ["time"]);
        assert!(wrapped.text.contains(r#""command": "npx""#));
        let err = wrap_config(CLAUDE, KnownClient::ClaudeDesktop, Some("nope"), SONDE).unwrap_err();
        assert_eq!(err.to_string(), "the config has no server named \"nope\"");
        assert!(wrap_config(VSCODE, KnownClient::ClaudeDesktop, None, SONDE)
            .unwrap_err()
            .to_string()
            .contains("no \"mcpServers\" object"));
    }

    /// A config that cannot be edited is the text given: `bad_input` whatever is wrong.
    #[test]
    fn a_config_that_cannot_be_edited_is_bad_input() {
        for err in [
            wrap_config("{not json", KnownClient::Cursor, None, SONDE).unwrap_err(),
            wrap_config(VSCODE, KnownClient::ClaudeDesktop, None, SONDE).unwrap_err(),
            unwrap_config(CLAUDE, KnownClient::ClaudeDesktop, Some("nope")).unwrap_err(),
        ] {
            assert_eq!(err.code(), ErrorCode::BadInput, "{err}");
        }
        assert!(matches!(
            wrap_config("{not json", KnownClient::Cursor, None, SONDE),
            Err(WrapError::NotJson(words)) if !words.is_empty()
        ));
    }

    #[test]
    fn claude_codes_project_servers_are_wrapped_too_each_named_with_its_project() {
        let config = r#"{
  "numStartups": 4,
  "mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}},
  "projects": {
    "/home/me/app": {"allowedTools": [], "mcpServers": {"fs": {"command": "npx", "args": ["-y", "x"]}}},
    "/home/me/other": {"allowedTools": []}
  }
}"#;
        let wrapped = wrap_config(config, KnownClient::ClaudeCode, None, SONDE).unwrap();
        assert_eq!(wrapped.changed, ["time", "fs (project /home/me/app)"]);
        let value: serde_json::Value = serde_json::from_str(&wrapped.text).unwrap();
        let fs = &value["projects"]["/home/me/app"]["mcpServers"]["fs"];
        assert_eq!(fs["command"], SONDE);
        assert_eq!(fs["args"], serde_json::json!(["proxy", "--name", "fs", "--", "npx", "-y", "x"]));
        assert_eq!(unwrap_config(&wrapped.text, KnownClient::ClaudeCode, None).unwrap().text, config);
        // One chosen by name, wherever it is kept; a config with only projects is fine.
        let only = wrap_config(config, KnownClient::ClaudeCode, Some("fs"), SONDE).unwrap();
        assert_eq!(only.changed, ["fs (project /home/me/app)"]);
        let projects_only = r#"{"projects": {"/p": {"mcpServers": {"a": {"command": "x"}}}}}"#;
        assert_eq!(
            wrap_config(projects_only, KnownClient::ClaudeCode, None, SONDE).unwrap().changed,
            ["a (project /p)"]
        );
    }
}
