//! ARCHITECTURE.md against the code: every top-level module of the core is on the map, and every
//! `src/` path the map names exists. The map is only useful while it is true, and a module added
//! or a file moved is exactly the change that forgets it.

use std::path::Path;

const MAP: &str = "ARCHITECTURE.md";

fn read(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("could not read {}: {e}", path.display()))
}

/// The modules `lib_rs` declares at its top level: `mod x;` or `pub mod x;` (any visibility),
/// with attributes before it on the same line or on lines of their own. A declaration inside a
/// block is indented and a module written inline (`mod x { … }`) has no file, so neither counts.
fn declared_modules(lib_rs: &str) -> Vec<String> {
    lib_rs
        .lines()
        .filter(|line| !line.starts_with(char::is_whitespace))
        .filter_map(|line| {
            let rest = skip_visibility(skip_attributes(line.trim_end()));
            let name = rest.strip_prefix("mod ")?.trim_start().strip_suffix(';')?.trim_end();
            let name = name.strip_prefix("r#").unwrap_or(name);
            let is_ident = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            is_ident.then(|| name.to_owned())
        })
        .collect()
}

/// `line` after any `#[…]` attributes at its start (brackets inside an attribute are matched).
fn skip_attributes(mut line: &str) -> &str {
    while line.starts_with("#[") {
        let mut depth = 0;
        let end = line.char_indices().find_map(|(i, c)| match c {
            '[' => {
                depth += 1;
                None
            }
            ']' => {
                depth -= 1;
                (depth == 0).then_some(i)
            }
            _ => None,
        });
        match end {
            Some(end) => line = line[end + 1..].trim_start(),
            // An attribute that goes on over the next lines: nothing is declared on this one.
            None => return "",
        }
    }
    line
}

/// `rest` after `pub`, `pub(crate)`, `pub(super)` or `pub(in path)`, if it starts with one.
fn skip_visibility(rest: &str) -> &str {
    let Some(after) = rest.strip_prefix("pub") else { return rest };
    let after = match after.trim_start().strip_prefix('(') {
        Some(scoped) => scoped.split_once(')').map_or("", |(_, tail)| tail),
        None if after.starts_with(char::is_whitespace) => after,
        // `pubx`: not a visibility at all.
        None => return rest,
    };
    after.trim_start()
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')
}

/// Every path under the core's `src/` that `text` names: a `src/` that starts a word, never the
/// `src/` inside `ui/src/…`, `crates/x/src/…` or `src-tauri/src/…`. A sentence's full stop after
/// a path is not part of it.
fn src_paths(text: &str) -> Vec<String> {
    text.match_indices("src/")
        .filter(|(at, _)| !text[..*at].chars().next_back().is_some_and(is_path_char))
        .map(|(at, _)| {
            let path: String = text[at..].chars().take_while(|&c| is_path_char(c)).collect();
            path.trim_end_matches('.').to_owned()
        })
        .collect()
}

/// Whether `map` mentions module `name`: as `` `name` ``, as `` `name/` ``, or by a path under
/// `src/name` (`src/name.rs`, `src/name/…`).
fn mentions(map: &str, name: &str) -> bool {
    let by_path = |path: &String| {
        path.strip_prefix("src/")
            .and_then(|p| p.strip_prefix(name))
            .is_some_and(|tail| tail.is_empty() || tail.starts_with(['/', '.']))
    };
    map.contains(&format!("`{name}`"))
        || map.contains(&format!("`{name}/`"))
        || src_paths(map).iter().any(by_path)
}

/// The modules of `lib_rs` that `map` does not mention.
fn missing_modules(lib_rs: &str, map: &str) -> Vec<String> {
    declared_modules(lib_rs).into_iter().filter(|name| !mentions(map, name)).collect()
}

/// Every module `src/lib.rs` declares is on the map, so a new module comes with its line there.
#[test]
fn every_top_level_module_of_the_core_is_on_the_map() {
    let lib_rs = read("src/lib.rs");
    assert!(
        declared_modules(&lib_rs).len() >= 10,
        "src/lib.rs declares only {:?}: the test no longer reads its module declarations",
        declared_modules(&lib_rs)
    );
    let missing = missing_modules(&lib_rs, &read(MAP));
    assert!(
        missing.is_empty(),
        "{MAP} does not mention these modules of src/lib.rs (as `name`, `name/` or src/name): {}; \
         add a line for each to its module list, saying what it owns",
        missing.join(", ")
    );
}

/// Every `src/` path the map names exists, so a file moved or renamed takes the map with it.
#[test]
fn every_src_path_the_map_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = read(MAP);
    let mut gone: Vec<String> = src_paths(&map).into_iter().filter(|p| !root.join(p).exists()).collect();
    gone.sort();
    gone.dedup();
    assert!(gone.is_empty(), "{MAP} names paths that do not exist: {}", gone.join(", "));
}

/// The parser finds declarations in every form `src/lib.rs` may use, and nothing else.
#[test]
fn module_declarations_are_read_with_any_visibility_and_attributes() {
    let lib_rs = r#"
//! mod not_this;
pub mod wire;
mod era;
pub(crate) mod files;
#[cfg(feature = "bindings")] pub mod bindings;
#[cfg(all(test, not(miri)))]
mod tests;
#[doc = "a [link]"] mod r#type;
mod inline { mod nested; }
    mod indented;
pub use era::Era;
"#;
    assert_eq!(declared_modules(lib_rs), ["wire", "era", "files", "bindings", "tests", "type"]);
}

/// A module the map leaves out is named; one it mentions in any accepted form is not, and a
/// path under another crate's `src/` does not count for the core's module of the same name.
#[test]
fn a_module_left_off_the_map_is_named() {
    let lib_rs = "pub mod wire;\npub mod log;\npub mod auth;\npub mod hub;\npub mod era;\n";
    let map = "- `wire`: frames.\n- `log/`: the wire log.\nThe hub is in src/hub.rs.\n\
               The CLI's side: crates/sonde-cli/src/auth.rs. Also `era_cache`.\n";
    assert_eq!(missing_modules(lib_rs, map), ["auth", "era"]);
}

/// Only a `src/` that starts a word is the core's, and a sentence's full stop is not a path's.
#[test]
fn src_paths_are_the_cores_only() {
    let text = "See src/wire/frame.rs. Then `src/log/` and (src/hub.rs), not ui/src/App.tsx, \
                src-tauri/src/lib.rs or crates/sonde-cli/src/args.rs.";
    assert_eq!(src_paths(text), ["src/wire/frame.rs", "src/log/", "src/hub.rs"]);
}
