//! What the code declares, read from its text as the architecture test needs it: Rust items
//! (functions with the type whose `impl` holds them, types, enum variants, struct fields,
//! constants, modules, macros) in every crate, and TypeScript declarations in `ui/src`. A
//! reader of declarations, not a compiler: comments, strings and character literals are blanked
//! first, so a brace or a keyword inside one counts for nothing.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Folders, wherever they are, whose files are not the repository's own: build output and
/// installed packages (`ui/node_modules` declares thousands of names). Hidden ones (`.git`,
/// `.cache`) are left out too.
const SKIPPED: [&str; 3] = ["target", "node_modules", "dist"];

/// Every file of the repository, relative to `root`, with `/` between its segments.
pub fn repo_files(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else { continue };
        for entry in entries.flatten() {
            let relative = dir.join(entry.file_name());
            let text = relative.to_string_lossy().replace('\\', "/");
            let name = entry.file_name().to_string_lossy().into_owned();
            if SKIPPED.contains(&name.as_str()) || name.starts_with('.') {
                continue;
            }
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => stack.push(relative),
                Ok(_) => files.push(text),
                Err(_) => {}
            }
        }
    }
    files.sort();
    files
}

/// `text` with every comment, string literal and character literal replaced by spaces, its
/// newlines kept, so positions and line numbers still match the file.
pub fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let start = i;
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_at(&chars, i, is_ident) {
            // r"…", r#"…"#, br#"…"#: ends at a quote followed by as many hashes.
            i += chars[i..].iter().position(|&c| c == '"').expect("raw_string_at saw the quote") + 1;
            while i < chars.len()
                && !(chars[i] == '"'
                    && chars[i + 1..].iter().take(hashes).filter(|&&h| h == '#').count() == hashes)
            {
                i += 1;
            }
            i = (i + 1 + hashes).min(chars.len());
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '\'' && next == Some('\\') {
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            i += 3;
        } else {
            out.push(c);
            i += 1;
            continue;
        }
        let end = i.min(chars.len());
        out.extend(chars[start..end].iter().map(|&c| blank(c)));
    }
    out
}

/// The number of `#`s of a raw string starting at `i` (`r`, `br` or `cr`, then hashes and a
/// quote), when one does and `i` does not sit inside an identifier.
fn raw_string_at(chars: &[char], i: usize, is_ident: impl Fn(char) -> bool) -> Option<usize> {
    if i > 0 && is_ident(chars[i - 1]) {
        return None;
    }
    let mut j = i;
    if matches!(chars.get(j), Some('b' | 'c')) {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    (chars.get(j + hashes) == Some(&'"')).then_some(hashes)
}

/// One declaration the code makes.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// `fn`, `struct`, `enum`, `trait`, `type`, `union`, `const`, `static`, `mod`, `macro`,
    /// `variant`, `field`; in TypeScript the keyword that declared it (`function`, `const`, …).
    pub kind: &'static str,
    pub name: String,
    /// The type whose `impl` (or trait) holds a function or constant, the enum of a variant,
    /// the struct of a field.
    pub owner: Option<String>,
    pub file: String,
}

#[derive(Debug, Clone)]
enum Scope {
    Impl(String),
    Enum(String),
    Struct(String),
    Other,
}

const KEYWORDS: [&str; 12] = [
    "fn",
    "impl",
    "struct",
    "enum",
    "trait",
    "type",
    "union",
    "const",
    "static",
    "mod",
    "let",
    "macro_rules",
];

/// The items a Rust file declares (`file` is how they name it).
pub fn rust_items(text: &str, file: &str) -> Vec<Item> {
    let code = code_only(text);
    let mut items = Vec::new();
    let mut scopes: Vec<Scope> = Vec::new();
    let mut header: Vec<String> = Vec::new();
    // Parentheses, brackets and angle brackets open in the header: a comma inside them does not
    // end a variant or a field.
    let mut nesting = 0i32;
    for (token, _) in tokens(&code) {
        let top = scopes.last().cloned();
        let top = top.as_ref();
        let in_fields = matches!(top, Some(Scope::Enum(_) | Scope::Struct(_)));
        match token.as_str() {
            "(" | "[" => {
                nesting += 1;
                header.push(token);
            }
            ")" | "]" => {
                nesting -= 1;
                header.push(token);
            }
            "," if in_fields && nesting == 0 => {
                member(&header, top, file, &mut items);
                header.clear();
            }
            ";" => {
                declare(&header, top, file, &mut items);
                header.clear();
                nesting = 0;
            }
            "{" => {
                let scope = if in_fields {
                    member(&header, top, file, &mut items);
                    Scope::Other
                } else {
                    declare(&header, top, file, &mut items)
                };
                scopes.push(scope);
                header.clear();
                nesting = 0;
            }
            "}" => {
                if in_fields {
                    member(&header, top, file, &mut items);
                }
                scopes.pop();
                header.clear();
                nesting = 0;
            }
            _ => header.push(token),
        }
    }
    items
}

/// Identifiers and single punctuation characters (`::` and `->` kept whole), each with its line
/// (from 1), from code whose comments and literals are blank.
pub fn tokens(code: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            line += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let mut word = String::from(c);
            while let Some(&n) = chars.peek().filter(|n| n.is_alphanumeric() || **n == '_') {
                word.push(n);
                chars.next();
            }
            out.push((word, line));
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            out.push(("::".into(), line));
        } else if c == '-' && chars.peek() == Some(&'>') {
            chars.next();
            out.push(("->".into(), line));
        } else if !c.is_whitespace() {
            out.push((c.to_string(), line));
        }
    }
    out
}

/// `header` after its attributes (`#[…]`, `#![…]`).
fn without_attributes(header: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut in_attribute = false;
    for (i, token) in header.iter().enumerate() {
        let token = token.as_str();
        if !in_attribute && token == "#" && matches!(header.get(i + 1).map(String::as_str), Some("[" | "!")) {
            in_attribute = true;
            continue;
        }
        if in_attribute {
            match token {
                "[" => depth += 1,
                "]" => {
                    depth -= 1;
                    if depth == 0 {
                        in_attribute = false;
                    }
                }
                _ => {}
            }
            continue;
        }
        out.push(token);
    }
    out
}

/// Records what a header ended by `;` or `{` declares, and returns the scope a `{` opens.
fn declare(header: &[String], top: Option<&Scope>, file: &str, items: &mut Vec<Item>) -> Scope {
    let header = without_attributes(header);
    let Some(at) = header.iter().position(|t| KEYWORDS.contains(t)) else { return Scope::Other };
    let keyword = header[at];
    let name = header.get(at + 1).map(|n| n.trim_start_matches("r#").to_owned()).unwrap_or_default();
    let owner = match top {
        Some(Scope::Impl(owner)) => Some(owner.clone()),
        _ => None,
    };
    let named = |kind: &'static str, owner: Option<String>| Item {
        kind,
        name: name.clone(),
        owner,
        file: file.to_owned(),
    };
    match keyword {
        "impl" => return Scope::Impl(implemented(&header[at + 1..])),
        "let" => {}
        "macro_rules" => {
            let name = header.get(at + 2).copied().unwrap_or_default().to_owned();
            items.push(Item { kind: "macro", name, owner: None, file: file.to_owned() });
        }
        "fn" | "const" | "type" => items.push(named(keyword_kind(keyword), owner)),
        "trait" => {
            items.push(named("trait", None));
            return Scope::Impl(name);
        }
        "enum" => {
            items.push(named("enum", None));
            return Scope::Enum(name);
        }
        "struct" | "union" => {
            items.push(named(keyword_kind(keyword), None));
            return Scope::Struct(name);
        }
        other => items.push(named(keyword_kind(other), None)),
    }
    Scope::Other
}

fn keyword_kind(keyword: &str) -> &'static str {
    KEYWORDS.iter().find(|k| **k == keyword).copied().unwrap_or("item")
}

/// The type an `impl` header is for: the last segment of the path after `for` when there is
/// one, else after `impl` and its generics.
fn implemented(after_impl: &[&str]) -> String {
    let mut depth = 0;
    let mut rest = Vec::new();
    for &token in after_impl {
        match token {
            "<" => depth += 1,
            ">" => depth -= 1,
            "where" if depth == 0 => break,
            _ if depth == 0 => rest.push(token),
            _ => {}
        }
    }
    let target = match rest.iter().position(|t| *t == "for") {
        Some(at) => &rest[at + 1..],
        None => &rest[..],
    };
    target
        .iter()
        .rev()
        .find(|t| t.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_'))
        .map_or_else(String::new, |t| (*t).to_owned())
}

/// Records the variant or field a segment of an enum's or struct's body declares.
fn member(header: &[String], top: Option<&Scope>, file: &str, items: &mut Vec<Item>) {
    let header = without_attributes(header);
    let words: Vec<&str> = header.iter().copied().skip_while(|t| *t == "pub").collect();
    // `pub(crate) x: T`: the scope's parentheses come first.
    let words = if words.first() == Some(&"(") {
        words.iter().position(|t| *t == ")").map_or(&words[..], |end| &words[end + 1..]).to_vec()
    } else {
        words
    };
    let Some(name) =
        words.first().filter(|n| n.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_'))
    else {
        return;
    };
    let (kind, owner) = match top {
        Some(Scope::Enum(owner)) => ("variant", owner),
        Some(Scope::Struct(owner)) if words.get(1) == Some(&":") => ("field", owner),
        _ => return,
    };
    items.push(Item { kind, name: name.to_string(), owner: Some(owner.clone()), file: file.to_owned() });
}

/// The names a TypeScript file declares at the start of a line (exported or not):
/// `function`, `const`, `let`, `class`, `interface`, `type`, `enum`.
pub fn ts_items(text: &str, file: &str) -> Vec<Item> {
    const DECLARING: [&str; 9] =
        ["function", "function*", "const", "let", "var", "class", "interface", "type", "enum"];
    let mut items = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let words: Vec<&str> = words
            .iter()
            .copied()
            .skip_while(|w| matches!(*w, "export" | "default" | "async" | "declare"))
            .collect();
        let (Some(keyword), Some(name)) = (words.first(), words.get(1)) else { continue };
        let Some(&kind) = DECLARING.iter().find(|k| *k == keyword) else { continue };
        let name: String =
            name.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
        if !name.is_empty() {
            items.push(Item { kind, name, owner: None, file: file.to_owned() });
        }
    }
    items
}

/// Every item of the repository's Rust and TypeScript files, by name.
pub struct Code {
    pub files: Vec<String>,
    pub dirs: HashSet<String>,
    pub items: HashMap<String, Vec<Item>>,
}

impl Code {
    pub fn read(root: &Path) -> Code {
        let files = repo_files(root);
        let mut dirs = HashSet::new();
        for file in &files {
            let mut at = file.as_str();
            while let Some((dir, _)) = at.rsplit_once('/') {
                dirs.insert(dir.to_owned());
                at = dir;
            }
        }
        let mut items: HashMap<String, Vec<Item>> = HashMap::new();
        for file in &files {
            let declared = if file.ends_with(".rs") {
                rust_items(&std::fs::read_to_string(root.join(file)).unwrap_or_default(), file)
            } else if file.starts_with("ui/") && (file.ends_with(".ts") || file.ends_with(".tsx")) {
                ts_items(&std::fs::read_to_string(root.join(file)).unwrap_or_default(), file)
            } else {
                continue;
            };
            for item in declared {
                items.entry(item.name.clone()).or_default().push(item);
            }
        }
        Code { files, dirs, items }
    }

    /// The items called `name` that satisfy `pred`.
    pub fn find(&self, name: &str, pred: impl Fn(&Item) -> bool) -> Vec<&Item> {
        self.items.get(name).map(|all| all.iter().filter(|i| pred(i)).collect()).unwrap_or_default()
    }

    /// Whether `path` (a file, or a folder when it ends with `/`) is in the repository: at
    /// `path` itself, or at the end of a longer path (`saved/servers.rs` is
    /// `src/saved/servers.rs`, `budget.rs` is `src/log/budget.rs`).
    pub fn has_path(&self, path: &str) -> bool {
        let ends = |have: &str, want: &str| have == want || have.ends_with(&format!("/{want}"));
        match path.strip_suffix('/') {
            Some(dir) => self.dirs.iter().any(|d| ends(d, dir)),
            None => self.files.iter().any(|f| ends(f, path)) || self.dirs.iter().any(|d| ends(d, path)),
        }
    }
}
