//! ARCHITECTURE.md against the code. Every top-level module of the core is on the map; every
//! code item the map names in backticks is in the code, as the kind of item it is written as;
//! and the map's order of the core's modules is one in which each module uses only those
//! listed before it. The map is only useful while it is true, and a module added, an item
//! renamed or a file moved is exactly the change that forgets it.
//!
//! Which words in backticks are code is decided by their shape alone (`claim_of`), so that
//! commands (`make test`), JSON keys (`answers`), flags and wire methods (`tools/call`) are
//! never taken for code: a path (with a `/` under a folder of the repository, ending in `/`, or
//! a file name with a code extension), `Type::member` or `module::item`, `name()`, a
//! `CamelCase` type, an `ALL_CAPS` constant, and a `snake_case` name with an underscore (a bare
//! lowercase word, `wire` or `fail`, is not checked: the modules list is, both ways). A few words
//! shaped like code that are not the repository's (the person's files, a protocol word, an HTTP
//! header) are listed in `NOT_CODE`. Fenced drawings are not read.

#[path = "architecture/code.rs"]
mod code;
#[path = "architecture/order.rs"]
mod order;

use code::{Code, Item};
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

/// Words in backticks shaped like code that are not the repository's: the person's files (the
/// sessions folder, the files in Sonde's config directory, a project's replay rules), a word of
/// the protocol and HTTP headers (`Host` would otherwise pass only because a UI test names a
/// component so).
const NOT_CODE: [&str; 8] = [
    "sessions/",
    "servers.json",
    "settings.json",
    "era-cache.json",
    ".sonde-replay.yaml",
    "input_required",
    "Host",
    "Origin",
];

/// Extensions of files the map may name by their name alone.
const FILE_EXTENSIONS: [&str; 11] =
    ["rs", "ts", "tsx", "py", "sh", "mjs", "toml", "json", "yaml", "md", "lock"];

/// What a word in backticks says exists, by its shape.
#[derive(Debug, Clone, PartialEq)]
enum Claim {
    /// A file or folder, and perhaps an item declared in that file (`http/outbound.rs::start_exchange`).
    Path { path: String, item: Option<String> },
    /// `a::b::c`: a module or type, then its members.
    Member(Vec<String>),
    /// `name()`: a function.
    Function(String),
    /// `CamelCase`: a struct, enum, trait or type (Rust), or a declaration of the UI's.
    Type(String),
    /// `ALL_CAPS`: a constant or static.
    Constant(String),
    /// `snake_case` with an underscore: any item, module or file of that name.
    Name(String),
}

fn is_ident(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The claim a word in backticks makes, or `None` when it is not shaped like code.
fn claim_of(word: &str, top_level: &[String]) -> Option<Claim> {
    if NOT_CODE.contains(&word) || !word.chars().all(|c| c.is_ascii_alphanumeric() || "_:./()-".contains(c)) {
        return None;
    }
    let extension = |w: &str| {
        w.rsplit_once('.').is_some_and(|(stem, ext)| !stem.is_empty() && FILE_EXTENSIONS.contains(&ext))
    };
    let (path, item) = match word.split_once(".rs::") {
        Some((file, item)) => (format!("{file}.rs"), Some(item.trim_end_matches("()").to_owned())),
        None => (word.to_owned(), None),
    };
    let under_top = path.split_once('/').is_some_and(|(first, _)| top_level.iter().any(|t| t == first));
    let is_top = top_level.contains(&path);
    if is_top || extension(&path) || path.contains('/') && (under_top || path.ends_with('/')) {
        return Some(Claim::Path { path, item });
    }
    if word.contains('/') || word.contains('.') {
        return None;
    }
    let bare = word.strip_suffix("()");
    let segments: Vec<&str> = bare.unwrap_or(word).split("::").collect();
    if !segments.iter().all(|s| is_ident(s)) {
        return None;
    }
    if segments.len() > 1 {
        return Some(Claim::Member(segments.iter().map(|s| (*s).to_owned()).collect()));
    }
    let name = segments[0].to_owned();
    let has_lower = name.chars().any(|c| c.is_ascii_lowercase());
    let starts_upper = name.starts_with(|c: char| c.is_ascii_uppercase());
    match () {
        _ if bare.is_some() => Some(Claim::Function(name)),
        _ if starts_upper && has_lower => Some(Claim::Type(name)),
        _ if starts_upper && name.len() > 2 => Some(Claim::Constant(name)),
        _ if name.contains('_')
            && !name.starts_with('_')
            && !name.chars().any(|c| c.is_ascii_uppercase()) =>
        {
            Some(Claim::Name(name))
        }
        _ => None,
    }
}

/// Every word in backticks in `map`, outside fenced code blocks (drawings, not claims).
fn backticked(map: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut fenced = false;
    for line in map.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            words.extend(line.split('`').skip(1).step_by(2).map(str::to_owned));
        }
    }
    words
}

const TYPES: [&str; 11] =
    ["struct", "enum", "trait", "type", "union", "class", "interface", "function", "const", "let", "var"];

/// Why `claim` is false of `code`, or `None` when it holds.
fn refuted(claim: &Claim, code: &Code) -> Option<String> {
    let rust_type = |i: &Item| matches!(i.kind, "struct" | "enum" | "trait" | "type" | "union");
    let any_fn = |i: &Item| matches!(i.kind, "fn" | "function" | "const" | "let");
    match claim {
        Claim::Path { path, item } => {
            if !code.has_path(path) {
                return Some(format!("no file or folder {path} (nor one ending so) in the repository"));
            }
            let item = item.as_ref()?;
            let in_file = |i: &Item| i.file.ends_with(path.as_str());
            code.find(item, in_file).is_empty().then(|| format!("{path} declares no `{item}`"))
        }
        Claim::Function(name) => code
            .find(name, any_fn)
            .is_empty()
            .then(|| format!("no `fn {name}` (nor a UI function) in any crate")),
        Claim::Type(name) => code
            .find(name, |i| rust_type(i) || i.file.starts_with("ui/") && TYPES.contains(&i.kind))
            .is_empty()
            .then(|| {
                format!("no `struct`, `enum`, `trait` or `type {name}` in any crate, nor a UI declaration")
            }),
        Claim::Constant(name) => code
            .find(name, |i| matches!(i.kind, "const" | "static"))
            .is_empty()
            .then(|| format!("no `const` or `static {name}` in any crate or the UI")),
        Claim::Name(name) => {
            let file = format!("{name}.rs");
            (code.find(name, |_| true).is_empty()
                && !code.has_path(&file)
                && !code.has_path(&format!("{name}/")))
            .then(|| format!("no item, module or file `{name}` in any crate"))
        }
        Claim::Member(segments) => member_refuted(segments, code),
    }
}

/// Why `a::b::…` is false: each segment after the first is a member of the one before it (a
/// function, constant, type or variant of a type; an item or module of a module). A leading
/// `crate`, `sonde_core` or `super` is the path's crate, not a segment.
fn member_refuted(segments: &[String], code: &Code) -> Option<String> {
    let segments: Vec<&str> = segments
        .iter()
        .map(String::as_str)
        .skip_while(|s| matches!(*s, "crate" | "sonde_core" | "super" | "self"))
        .collect();
    let (first, rest) = segments.split_first()?;
    let is_module = |name: &str| {
        code.has_path(&format!("{name}.rs"))
            || code.has_path(&format!("{name}/"))
            || !code.find(name, |i| i.kind == "mod").is_empty()
    };
    let mut owner = (*first).to_owned();
    let mut module_path: Option<String> = None;
    if first.starts_with(|c: char| c.is_ascii_uppercase()) {
        if code.find(first, |i| matches!(i.kind, "struct" | "enum" | "trait" | "type" | "union")).is_empty() {
            return Some(format!("no type `{first}` in any crate"));
        }
    } else if is_module(first) {
        module_path = Some((*first).to_owned());
    } else {
        return Some(format!(
            "no module `{first}` (a file {first}.rs, a folder {first}/ or a `mod {first}`) in any crate"
        ));
    }
    for member in rest {
        match &module_path {
            Some(module) => {
                // An item of the module: declared in its file or under its folder.
                let within = |i: &Item| {
                    i.file.ends_with(&format!("/{module}.rs")) || i.file.contains(&format!("/{module}/"))
                };
                let found = code.find(member, within);
                if found.is_empty() && !code.has_path(&format!("{module}/{member}.rs")) {
                    return Some(format!("module `{module}` declares no `{member}`"));
                }
                let is_type =
                    found.iter().any(|i| matches!(i.kind, "struct" | "enum" | "trait" | "type" | "union"));
                if is_type {
                    module_path = None;
                } else {
                    module_path = Some(format!("{module}/{member}"));
                }
            }
            None => {
                let found = code.find(member, |i| i.owner.as_deref() == Some(owner.as_str()));
                if found.is_empty() {
                    return Some(format!("`{owner}` has no `{member}` (no `fn`, `const`, variant or field of that name in its `impl`s or body)"));
                }
            }
        }
        owner = (*member).to_owned();
    }
    None
}

/// The repository's top-level entries: a path whose first segment is one of them is the
/// repository's.
fn top_level(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root)
        .expect("read the repository's root")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && n != "target")
        .collect();
    names.sort();
    names
}

/// The code items of `map` that the code does not have, each with why, in the map's order.
fn false_claims(map: &str, root: &Path, code: &Code) -> Vec<String> {
    let top = top_level(root);
    let mut seen = std::collections::HashSet::new();
    backticked(map)
        .into_iter()
        .filter(|word| seen.insert(word.clone()))
        .filter_map(|word| {
            let claim = claim_of(&word, &top)?;
            refuted(&claim, code).map(|why| format!("`{word}`: {why}"))
        })
        .collect()
}

/// Every code item the map names in backticks exists, as the kind of item its shape says.
#[test]
fn every_code_item_the_map_names_is_in_the_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let code = Code::read(root);
    let map = read(MAP);
    let checked = backticked(&map).iter().filter(|w| claim_of(w, &top_level(root)).is_some()).count();
    assert!(checked >= 100, "only {checked} words of {MAP} were taken for code: the test no longer reads it");
    let stale = false_claims(&map, root, &code);
    assert!(
        stale.is_empty(),
        "{MAP} names code that is not there (rename it on the map, or write it so it is not taken for code):\n  {}",
        stale.join("\n  ")
    );
}

/// Each module of the core uses only modules listed before it under "Modules of the core", so
/// the list can be read top down. A use against the order is named with its file and line.
#[test]
fn each_module_of_the_core_uses_only_modules_listed_before_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = order::listed_modules(&read(MAP));
    let declared = declared_modules(&read("src/lib.rs"));
    let unlisted: Vec<&String> = declared.iter().filter(|m| !listed.contains(m)).collect();
    let gone: Vec<&String> = listed.iter().filter(|m| !declared.contains(m)).collect();
    assert!(
        unlisted.is_empty() && gone.is_empty(),
        "Modules of the core in {MAP} and the `mod`s of src/lib.rs differ: not listed {unlisted:?}, not a module {gone:?}"
    );
    let uses = order::uses(root, &listed);
    assert!(
        uses.len() >= 100,
        "only {} uses between the core's modules were found: the test no longer reads them",
        uses.len()
    );
    let against: Vec<String> = uses
        .into_iter()
        .filter(|u| listed.iter().position(|m| *m == u.used) > listed.iter().position(|m| *m == u.module))
        .map(|u| {
            format!("`{}` uses `{}`, listed after it: {}:{}: {}", u.module, u.used, u.file, u.line, u.text)
        })
        .collect();
    let mut against = against;
    against.dedup();
    assert!(
        against.is_empty(),
        "modules of the core use modules listed after them in {MAP}; move the used one up the list, or \
         the use out of the module:\n  {}",
        against.join("\n  ")
    );
}

/// Only words shaped like code are claims: commands, JSON keys, flags, wire methods and plain
/// words are not, and each shape makes the claim it looks like.
#[test]
fn only_words_shaped_like_code_are_taken_for_code() {
    let top: Vec<String> = ["src", "ui", "crates", "Makefile"].map(str::to_owned).to_vec();
    let not_code = [
        "make test",
        "tools/call",
        "notifications/cancelled",
        "io.modelcontextprotocol/ui",
        "answers",
        "resultType",
        "--filter",
        "_meta",
        "{code, message}",
        "backend.yourCommand(…)",
        "servers.json",
        "1",
    ];
    for word in not_code {
        assert_eq!(claim_of(word, &top), None, "{word}");
    }
    let path = |p: &str, item: Option<&str>| Claim::Path { path: p.into(), item: item.map(str::to_owned) };
    let cases = [
        ("src/log/filter.rs", path("src/log/filter.rs", None)),
        ("ui/src/ipc/", path("ui/src/ipc/", None)),
        ("panels/", path("panels/", None)),
        ("budget.rs", path("budget.rs", None)),
        ("Makefile", path("Makefile", None)),
        ("http/outbound.rs::start_exchange", path("http/outbound.rs", Some("start_exchange"))),
        ("Hub::with_questions", Claim::Member(vec!["Hub".into(), "with_questions".into()])),
        ("log::redacted", Claim::Member(vec!["log".into(), "redacted".into()])),
        ("commands()", Claim::Function("commands".into())),
        ("WireLog", Claim::Type("WireLog".into())),
        ("PANELS", Claim::Constant("PANELS".into())),
        ("list_every", Claim::Name("list_every".into())),
    ];
    for (word, claim) in cases {
        assert_eq!(claim_of(word, &top), Some(claim), "{word}");
    }
}

/// Declarations are read with the type that owns them, and nothing inside a comment, a string
/// or a character literal counts, braces included.
#[test]
fn rust_items_are_read_with_their_owner_and_not_from_literals() {
    let text = r##"
/// fn not_this() {
pub enum Kind { Message, App { id: u64 }, #[serde(rename = "x")] Note(String) }
pub(crate) struct Row { pub len: usize, seq: std::collections::HashMap<u64, u64> }
impl<T: Clone> Feed<T> where T: Send {
    pub fn snapshot(&self) -> impl Fn() { let _ = "fn in_a_string() {"; let _ = '{'; || {} }
    const LIMIT: usize = 4;
}
impl std::fmt::Display for Row { fn fmt(&self) {} }
fn free<'a>(x: &'a str) -> &'a str { let raw = r#"struct Raw {"#; x }
mod inner;
"##;
    let items = code::rust_items(text, "src/x.rs");
    let got: Vec<(&str, &str, Option<&str>)> =
        items.iter().map(|i| (i.kind, i.name.as_str(), i.owner.as_deref())).collect();
    assert_eq!(
        got,
        [
            ("enum", "Kind", None),
            ("variant", "Message", Some("Kind")),
            ("variant", "App", Some("Kind")),
            ("variant", "Note", Some("Kind")),
            ("struct", "Row", None),
            ("field", "len", Some("Row")),
            ("field", "seq", Some("Row")),
            ("fn", "snapshot", Some("Feed")),
            ("const", "LIMIT", Some("Feed")),
            ("fn", "fmt", Some("Row")),
            ("fn", "free", None),
            ("mod", "inner", None),
        ]
    );
}

/// A `use` tree gives every path it names with the name it binds.
#[test]
fn use_trees_are_flattened_with_their_bound_names() {
    let tokens =
        ["{", "a", "::", "B", ",", "c", "::", "{", "self", ",", "E", "as", "F", "}", ",", "*", "}", ";"];
    let paths = order::use_paths(&tokens);
    let want = [(vec!["a", "B"], "B"), (vec!["c", "self"], "self"), (vec!["c", "E"], "F"), (vec![], "*")];
    let want: Vec<(Vec<String>, String)> =
        want.iter().map(|(p, n)| (p.iter().map(|s| (*s).to_owned()).collect(), (*n).to_owned())).collect();
    assert_eq!(paths, want);
}

/// The modules list is read from its section only, in order.
#[test]
fn the_modules_of_the_core_are_read_in_order_from_their_section() {
    let map = "## Crates\n\n- `ui/`: not a module.\n\n## Modules of the core\n\nVocabulary:\n\n\
               - `wire`: frames.\n- `era`: eras, and\n  `lifecycle` is not a bullet.\n- `hub`: the facade.\n\n\
               ## A frame\n\n- `other`: not a module.\n";
    assert_eq!(order::listed_modules(map), ["wire", "era", "hub"]);
}
