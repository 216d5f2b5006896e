//! The order of the map's "Modules of the core" against the code: which top-level modules each
//! module of the core names, from which file and line. A module names another by a path that
//! starts with `crate::` (in a `use` or in code), by `super::` that climbs to the crate's root,
//! or by a name the crate's root re-exports (`crate::Session` names `mcp`), followed through the
//! `pub use` of that module's own root (`crate::hub::ServerConfig` names `server_config`).
//! Test code is left out (`#[cfg(test)]` items, and the `tests.rs` files they declare), as
//! `scripts/check-cycles.py` leaves it out.

use std::collections::HashMap;
use std::path::Path;

use super::code::{code_only, tokens};

/// One top-level module naming another.
#[derive(Debug, Clone, PartialEq)]
pub struct Use {
    pub module: String,
    pub used: String,
    pub file: String,
    pub line: usize,
    /// The source line, trimmed.
    pub text: String,
}

/// The modules the map lists under "## Modules of the core", in order: each bullet that starts
/// with a module name in backticks and a colon (`` - `wire`: ``).
pub fn listed_modules(map: &str) -> Vec<String> {
    let Some((_, section)) = map.split_once("\n## Modules of the core\n") else { return Vec::new() };
    let section = section.split("\n## ").next().unwrap_or_default();
    section
        .lines()
        .filter_map(|line| line.strip_prefix("- `")?.split_once("`:").map(|(name, _)| name.to_owned()))
        .filter(|name| name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
        .collect()
}

/// The paths a `use` tree names, each with the name it binds: `{a::B, c::{D, E as F}}` gives
/// `a::B` as `B`, `c::D` as `D`, `c::E` as `F`. `tokens` starts at the tree and may go on after
/// it; reading stops at its end.
pub fn use_paths(tokens: &[&str]) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    tree(tokens, &mut 0, Vec::new(), &mut out);
    out
}

fn tree(tokens: &[&str], at: &mut usize, mut prefix: Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    while let Some(&token) = tokens.get(*at) {
        match token {
            "{" => {
                *at += 1;
                loop {
                    tree(tokens, at, prefix.clone(), out);
                    match tokens.get(*at) {
                        Some(&",") => *at += 1,
                        Some(&"}") => {
                            *at += 1;
                            return;
                        }
                        _ => return,
                    }
                    if tokens.get(*at) == Some(&"}") {
                        *at += 1;
                        return;
                    }
                }
            }
            "*" => {
                *at += 1;
                out.push((prefix, "*".into()));
                return;
            }
            "::" => *at += 1,
            word if word.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') => {
                prefix.push(word.to_owned());
                *at += 1;
                if tokens.get(*at) == Some(&"as") {
                    let alias = tokens.get(*at + 1).copied().unwrap_or_default().to_owned();
                    *at += 2;
                    out.push((prefix, alias));
                    return;
                }
                if tokens.get(*at) != Some(&"::") {
                    let name = prefix.last().cloned().unwrap_or_default();
                    out.push((prefix, name));
                    return;
                }
            }
            _ => return,
        }
    }
}

/// What the `pub use` declarations of a file re-export: each bound name and the path it names.
fn reexports(code: &str) -> HashMap<String, Vec<String>> {
    let tokens = tokens(code);
    let words: Vec<&str> = tokens.iter().map(|(t, _)| t.as_str()).collect();
    let mut out = HashMap::new();
    for (i, pair) in words.windows(2).enumerate() {
        if pair == ["pub", "use"] {
            for (path, name) in use_paths(&words[i + 2..]) {
                out.insert(name, path);
            }
        }
    }
    out
}

/// `code` with every `#[cfg(test)]` item blanked: from the attribute to the item's `;` or the
/// end of its block.
fn without_tests(code: &str) -> String {
    let mut code = code.to_owned();
    while let Some(at) = code.find("#[cfg(test)]") {
        let rest = &code[at..];
        let end = match rest.find(['{', ';']) {
            Some(open) if rest.as_bytes()[open] == b'{' => {
                let mut depth = 0;
                rest.char_indices()
                    .skip_while(|(i, _)| *i < open)
                    .find_map(|(i, c)| {
                        match c {
                            '{' => depth += 1,
                            '}' => depth -= 1,
                            _ => {}
                        }
                        (depth == 0).then_some(i + 1)
                    })
                    .unwrap_or(rest.len())
            }
            Some(semicolon) => semicolon + 1,
            None => rest.len(),
        };
        let blank: String = code[at..at + end].chars().map(|c| if c == '\n' { '\n' } else { ' ' }).collect();
        code.replace_range(at..at + end, &blank);
    }
    code
}

/// The core's files (relative to `src/`) and the module path each is: `hub/tasks.rs` is
/// `hub::tasks`, `log/mod.rs` is `log`. Test files (`tests.rs`) are left out.
fn core_files(src: &Path) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut stack = vec![String::new()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(src.join(&dir)) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = if dir.is_empty() { name.clone() } else { format!("{dir}/{name}") };
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(relative);
            } else if let Some(stem) = name.strip_suffix(".rs") {
                if stem == "tests" || dir.is_empty() && stem == "lib" {
                    continue;
                }
                let mut path: Vec<String> =
                    dir.split('/').filter(|s| !s.is_empty()).map(str::to_owned).collect();
                if stem != "mod" {
                    path.push(stem.to_owned());
                }
                out.push((relative, path));
            }
        }
    }
    out.sort();
    out
}

/// The top-level module a path from the crate's root names: its first segment when that is a
/// module, else the module whose item the root re-exports under that name, followed through
/// that module's own re-exports of other modules' items.
fn top_module(
    path: &[String],
    modules: &[String],
    roots: &HashMap<String, HashMap<String, Vec<String>>>,
) -> Option<String> {
    let first = path.first()?;
    if modules.contains(first) {
        // `crate::hub::ServerConfig`: hub's root re-exports it from another module.
        if let (Some(item), Some(own)) = (path.get(1), roots.get(first)) {
            if let Some(from) = own.get(item).filter(|from| from.first().is_some_and(|s| s == "crate")) {
                return top_module(&from[1..], modules, roots);
            }
        }
        return Some(first.clone());
    }
    let from = roots.get("")?.get(first)?;
    top_module(from.strip_prefix(&["crate".to_owned()][..]).unwrap_or(from), modules, roots)
}

/// Every use of one top-level module by another in the core under `root/src`.
pub fn uses(root: &Path, modules: &[String]) -> Vec<Use> {
    let src = root.join("src");
    let files = core_files(&src);
    let read =
        |file: &str| without_tests(&code_only(&std::fs::read_to_string(src.join(file)).unwrap_or_default()));
    // Each module's root file's re-exports ("" for the crate's root).
    let mut roots = HashMap::new();
    roots.insert(String::new(), reexports(&read("lib.rs")));
    for (file, path) in &files {
        if path.len() == 1 {
            roots.insert(path[0].clone(), reexports(&read(file)));
        }
    }
    let mut out = Vec::new();
    for (file, path) in &files {
        let text = std::fs::read_to_string(src.join(file)).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tokens = tokens(&read(file));
        let words: Vec<&str> = tokens.iter().map(|(t, _)| t.as_str()).collect();
        for (i, (token, line)) in tokens.iter().enumerate() {
            let after = match token.as_str() {
                "crate" if words.get(i + 1) == Some(&"::") && (i == 0 || words[i - 1] != "::") => i + 2,
                "super" if i == 0 || words[i - 1] != "::" => {
                    // As many `super::` as the file's module path is deep reach the root.
                    let climbs = words[i..].chunks(2).take_while(|pair| pair == &["super", "::"]).count();
                    if climbs != path.len() {
                        continue;
                    }
                    i + 2 * climbs
                }
                _ => continue,
            };
            for (named, _) in use_paths(&words[after..]) {
                let Some(used) = top_module(&named, modules, &roots) else { continue };
                if used != path[0] {
                    let text = lines.get(line - 1).map_or("", |l| l.trim()).to_owned();
                    out.push(Use {
                        module: path[0].clone(),
                        used,
                        file: format!("src/{file}"),
                        line: *line,
                        text,
                    });
                }
            }
        }
    }
    out
}
