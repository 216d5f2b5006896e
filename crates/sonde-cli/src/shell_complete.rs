//! Tab in `sonde shell`: the commands, then what each takes — a tool's or a prompt's name, then
//! its argument names (`KEY=`) from its schema; a resource's URI; what `listen` listens to.
//!
//! Owns: the names the server listed when the shell opened, and completing a line from them.
//! Refuses: asking the server while a line is typed (the listings are taken once, up front, off
//! the editor's thread) and the command language itself (`shell` parses it).

use std::sync::{Arc, Mutex};

use serde_json::Value;
use sonde_core::{ListKind, Lock, Session};

/// What Tab offers: names with the argument names each takes.
#[derive(Debug, Default, Clone)]
pub struct Names {
    pub tools: Vec<(String, Vec<String>)>,
    pub prompts: Vec<(String, Vec<String>)>,
    pub uris: Vec<String>,
}

impl Names {
    /// What the server lists of what it declares (a listing it refuses leaves that part empty).
    pub async fn listed(session: &Session) -> Names {
        let declared = |key: &str| session.server.capabilities.get(key).is_some();
        let items = |kind| async move { session.list_all(kind).await.map(|l| l.items).unwrap_or_default() };
        let mut names = Names::default();
        if declared("tools") {
            names.tools =
                items(ListKind::Tools).await.iter().filter_map(|t| named(t, tool_arguments)).collect();
        }
        if declared("prompts") {
            names.prompts =
                items(ListKind::Prompts).await.iter().filter_map(|p| named(p, prompt_arguments)).collect();
        }
        if declared("resources") {
            let uri = |r: &Value| r.get("uri").and_then(Value::as_str).map(str::to_owned);
            names.uris = items(ListKind::Resources).await.iter().filter_map(uri).collect();
        }
        names
    }
}

fn named(item: &Value, arguments: fn(&Value) -> Vec<String>) -> Option<(String, Vec<String>)> {
    Some((item.get("name")?.as_str()?.to_owned(), arguments(item)))
}

fn tool_arguments(tool: &Value) -> Vec<String> {
    let properties = tool.pointer("/inputSchema/properties").and_then(Value::as_object);
    properties.map(|p| p.keys().cloned().collect()).unwrap_or_default()
}

fn prompt_arguments(prompt: &Value) -> Vec<String> {
    let arguments = prompt.get("arguments").and_then(Value::as_array).into_iter().flatten();
    arguments.filter_map(|a| Some(a.get("name")?.as_str()?.to_owned())).collect()
}

/// Where the word under the cursor starts, and what may end it there.
pub fn complete(line: &str, pos: usize, commands: &[&str], names: &Names) -> (usize, Vec<String>) {
    let before = &line[..pos];
    let start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
    let word = &before[start..];
    let words: Vec<&str> = before[..start].split_whitespace().collect();
    let of = |list: &[(String, Vec<String>)], name: &str| {
        list.iter().find(|(n, _)| n == name).map(|(_, args)| args.clone()).unwrap_or_default()
    };
    let candidates: Vec<String> = match words.as_slice() {
        [] => commands.iter().map(|c| format!("{c} ")).collect(),
        ["call"] => names.tools.iter().map(|(n, _)| format!("{n} ")).collect(),
        ["prompt"] => names.prompts.iter().map(|(n, _)| format!("{n} ")).collect(),
        ["read"] => names.uris.iter().map(|u| format!("{u} ")).collect(),
        ["listen", ..] => ["tools ", "prompts ", "resources "].map(str::to_owned).to_vec(),
        ["call", tool, given @ ..] => keys(of(&names.tools, tool), given),
        ["prompt", prompt, given @ ..] => keys(of(&names.prompts, prompt), given),
        _ => Vec::new(),
    };
    (start, candidates.into_iter().filter(|c| c.starts_with(word)).collect())
}

/// `KEY=` for each argument not given yet.
fn keys(arguments: Vec<String>, given: &[&str]) -> Vec<String> {
    let taken = |a: &str| given.iter().any(|g| g.split('=').next() == Some(a));
    arguments.into_iter().filter(|a| !taken(a)).map(|a| format!("{a}=")).collect()
}

/// The editor's helper: Tab completes from [`Names`], filled once they are listed.
pub struct Helper {
    pub commands: &'static [&'static str],
    pub names: Arc<Mutex<Names>>,
}

impl rustyline::completion::Completer for Helper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        Ok(complete(line, pos, self.commands, &self.names.locked()))
    }
}

impl rustyline::hint::Hinter for Helper {
    type Hint = String;
}

impl rustyline::highlight::Highlighter for Helper {}

impl rustyline::validate::Validator for Helper {}

impl rustyline::Helper for Helper {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_offers_commands_names_argument_keys_and_uris() {
        let names = Names {
            tools: vec![("echo".into(), vec!["text".into(), "times".into()]), ("add".into(), vec![])],
            prompts: vec![("greeting".into(), vec!["name".into()])],
            uris: vec!["demo://clock".into()],
        };
        let commands = ["tools", "call", "cancel", "read"];
        let at = |line: &str| complete(line, line.len(), &commands, &names);
        assert_eq!(at("ca"), (0, vec!["call ".into(), "cancel ".into()]));
        assert_eq!(at("call e"), (5, vec!["echo ".into()]));
        assert_eq!(at("call echo "), (10, vec!["text=".into(), "times=".into()]));
        assert_eq!(at("call echo text=hi t"), (18, vec!["times=".into()]));
        assert_eq!(at("prompt greeting "), (16, vec!["name=".into()]));
        assert_eq!(at("read demo"), (5, vec!["demo://clock ".into()]));
        assert_eq!(at("listen tools p"), (13, vec!["prompts ".into()]));
        assert_eq!(at("call nothing "), (13, vec![]));
    }
}
