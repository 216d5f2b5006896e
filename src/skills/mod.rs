//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640, Final) read as data: whether
//! a server declares it (and `directoryRead`), a skill entry of `skills/list` or `skills/get`
//! with what is wrong with it, and the checks the spec asks of a host: each file's size and
//! `sha256:` digest against its bytes, SKILL.md's frontmatter against the entry field by field,
//! and a skill's limits (512 files, 16 MiB).
//!
//! Owns: [`declared`], [`SkillEntry`] (read by [`skill_entry`], never refused: an entry the spec
//! calls invalid says why in `invalid`), [`check_file`] and [`FileCheck`], [`frontmatter_of`] and
//! [`frontmatter_differences`], [`body_of`], a file read checked ([`read`]), the limits. Refuses: requests
//! (`session::skills`) and showing content that failed a check (a front end marks it unverified).

mod read;

pub use read::{file_read, SkillFileRead};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The extension's identifier, under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";
/// The most files a skill may hold, and the most bytes they may add up to.
pub const MAX_FILES: usize = 512;
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// The extension as a server declares it: settings inline under the identifier.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillsDeclared {
    /// The server answers `resources/directory/read` (never called otherwise).
    pub directory_read: bool,
}

/// Whether `capabilities` (an `initialize` or `server/discover` result's) declare the extension.
pub fn declared(capabilities: &Value) -> Option<SkillsDeclared> {
    let settings = capabilities.get("extensions")?.get(EXTENSION)?;
    let directory_read = settings.get("directoryRead").and_then(Value::as_bool).unwrap_or(false);
    Some(SkillsDeclared { directory_read })
}

/// A file of a skill as its entry lists it.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillFile {
    pub uri: String,
    pub digest: String,
    pub size: u64,
}

/// One skill as `skills/list` or `skills/get` gave it.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillEntry {
    /// Its SKILL.md's URI: the skill's identity, with the server.
    pub uri: String,
    pub name: Option<String>,
    pub description: Option<String>,
    /// The frontmatter as the entry gives it (every field the author wrote).
    pub frontmatter: Value,
    /// Its files, SKILL.md included; `None` when the server says `"dynamic"` (or when the
    /// entry is invalid).
    pub files: Option<Vec<SkillFile>>,
    /// Why a host must not load it (no `resources`, or not an array nor `"dynamic"`).
    pub invalid: Option<String>,
    /// What else is wrong with it, in words: a name that breaks the rules or differs from its
    /// path, a digest not in the spec's form, a file outside the skill, past the limits.
    pub problems: Vec<String>,
}

impl SkillEntry {
    /// The file of this skill at `uri`, as the entry lists it.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        self.files.as_ref()?.iter().find(|f| f.uri == uri)
    }

    /// The skill's root: its SKILL.md's URI without `/SKILL.md`.
    pub fn root(&self) -> &str {
        self.uri.strip_suffix("/SKILL.md").unwrap_or(&self.uri)
    }
}

/// Reads one entry; never refuses it: what is wrong is said in `invalid` and `problems`.
pub fn skill_entry(raw: &Value) -> SkillEntry {
    let mut problems = Vec::new();
    let uri = raw.get("uri").and_then(Value::as_str).unwrap_or_default().to_owned();
    if uri.is_empty() {
        problems.push("it has no uri".to_owned());
    } else if !uri.ends_with("/SKILL.md") {
        problems.push(format!("its uri {uri:?} is not a SKILL.md"));
    }
    let frontmatter = raw.get("frontmatter").cloned().unwrap_or(Value::Null);
    let text = |key: &str| frontmatter.get(key).and_then(Value::as_str).map(str::to_owned);
    let (name, description) = (text("name"), text("description"));
    match &name {
        None => problems.push("its frontmatter has no name".to_owned()),
        Some(name) => {
            if let Some(why) = name_problem(name) {
                problems.push(why);
            }
            let last = uri.strip_suffix("/SKILL.md").and_then(|root| root.rsplit('/').next());
            if last.is_some_and(|last| last != name) {
                problems.push(format!("its name {name:?} is not the last segment of its path ({uri})"));
            }
        }
    }
    if description.is_none() {
        problems.push("its frontmatter has no description".to_owned());
    }
    let root = uri.strip_suffix("SKILL.md").unwrap_or(&uri).to_owned();
    let (files, invalid) = match raw.get("resources") {
        Some(Value::String(s)) if s == "dynamic" => (None, None),
        Some(Value::Array(items)) => (Some(files_of(items, &uri, &root, &mut problems)), None),
        None => (None, Some("it has no resources (the spec requires a list, or \"dynamic\")".to_owned())),
        Some(other) => (None, Some(format!("its resources are {other}, neither a list nor \"dynamic\""))),
    };
    SkillEntry { uri, name, description, frontmatter, files, invalid, problems }
}

fn files_of(items: &[Value], uri: &str, root: &str, problems: &mut Vec<String>) -> Vec<SkillFile> {
    let mut files: Vec<SkillFile> = Vec::new();
    for item in items {
        let file = SkillFile {
            uri: item.get("uri").and_then(Value::as_str).unwrap_or_default().to_owned(),
            digest: item.get("digest").and_then(Value::as_str).unwrap_or_default().to_owned(),
            size: item.get("size").and_then(Value::as_u64).unwrap_or(0),
        };
        if !is_digest(&file.digest) {
            problems.push(format!(
                "{}: its digest {:?} is not sha256: and 64 lowercase hex",
                file.uri, file.digest
            ));
        }
        if item.get("size").and_then(Value::as_u64).is_none() {
            problems.push(format!("{}: it has no size", file.uri));
        }
        if !file.uri.starts_with(root) {
            problems.push(format!("{}: it is outside the skill ({root})", file.uri));
        }
        if files.iter().any(|f| f.uri == file.uri) {
            problems.push(format!("{}: it is listed twice", file.uri));
        }
        files.push(file);
    }
    if !files.iter().any(|f| f.uri == uri) {
        problems.push(format!("its resources do not list its SKILL.md ({uri})"));
    }
    if files.len() > MAX_FILES {
        problems.push(format!("it lists {} files (the spec's limit is {MAX_FILES})", files.len()));
    }
    let bytes: u64 = files.iter().map(|f| f.size).sum();
    if bytes > MAX_SKILL_BYTES {
        problems.push(format!("its files add up to {bytes} bytes (the spec's limit is 16 MiB)"));
    }
    files
}

/// What breaks the Agent Skills name rules: 1 to 64 lowercase letters, digits and hyphens.
fn name_problem(name: &str) -> Option<String> {
    let fits = (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    (!fits).then(|| format!("its name {name:?} is not 1 to 64 lowercase letters, digits and hyphens"))
}

fn is_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// `sha256:` and the lowercase hex of `bytes`' SHA-256, as the spec writes a digest.
pub fn digest_of(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// How a file read compares with the entry that lists it.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum FileCheck {
    /// Its size and digest are the entry's.
    Verified,
    /// The spec counts a size mismatch as a digest mismatch.
    SizeMismatch {
        listed: u64,
        read: u64,
    },
    DigestMismatch {
        listed: String,
        read: String,
    },
    /// The entry does not list it (or its skill's files are `"dynamic"`): nothing to check
    /// it against.
    Unlisted,
}

impl FileCheck {
    pub fn verified(&self) -> bool {
        *self == FileCheck::Verified
    }

    /// The verdict in words, both values given on a mismatch.
    pub fn words(&self) -> String {
        match self {
            FileCheck::Verified => "verified".into(),
            FileCheck::SizeMismatch { listed, read } => {
                format!("size mismatch: the entry lists {listed} bytes, the file has {read}")
            }
            FileCheck::DigestMismatch { listed, read } => {
                format!("digest mismatch: the entry lists {listed}, the file's is {read}")
            }
            FileCheck::Unlisted => "not listed in the skill's entry: nothing to verify it against".into(),
        }
    }
}

/// `bytes` (a file as read) against `listed` (its entry's line): size first, then digest.
pub fn check_file(bytes: &[u8], listed: Option<&SkillFile>) -> FileCheck {
    let Some(listed) = listed else { return FileCheck::Unlisted };
    if listed.size != bytes.len() as u64 {
        return FileCheck::SizeMismatch { listed: listed.size, read: bytes.len() as u64 };
    }
    let read = digest_of(bytes);
    if read != listed.digest {
        return FileCheck::DigestMismatch { listed: listed.digest.clone(), read };
    }
    FileCheck::Verified
}

/// The frontmatter of a SKILL.md: the YAML between its opening `---` line and the next, as JSON.
pub fn frontmatter_of(skill_md: &str) -> Result<Map<String, Value>, String> {
    let (yaml, _) = split(skill_md)?;
    match serde_saphyr::from_str(yaml).map_err(|e| format!("its frontmatter is not YAML: {e}"))? {
        Value::Object(map) => Ok(map),
        other => Err(format!("its frontmatter is not a mapping: {other}")),
    }
}

/// A SKILL.md's instructions: its text after the frontmatter (the whole text when it has none).
pub fn body_of(skill_md: &str) -> &str {
    split(skill_md).map_or(skill_md, |(_, body)| body)
}

/// A SKILL.md's frontmatter (between its opening `---` line and the next) and the text after it.
fn split(skill_md: &str) -> Result<(&str, &str), String> {
    let text = skill_md.strip_prefix('\u{feff}').unwrap_or(skill_md);
    let Some(first) = text.split_inclusive('\n').next().filter(|l| l.trim_end() == "---") else {
        return Err("SKILL.md does not begin with a --- frontmatter line".into());
    };
    let mut at = first.len();
    for line in text[at..].split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Ok((&text[first.len()..at], &text[at + line.len()..]));
        }
        at += line.len();
    }
    Err("SKILL.md's frontmatter has no closing --- line".into())
}

/// Where the frontmatter read from SKILL.md differs from the entry's, field by field: a field
/// missing on either side or holding another value. Empty when they are the same.
pub fn frontmatter_differences(entry: &Value, read: &Map<String, Value>) -> Vec<String> {
    let empty = Map::new();
    let listed = entry.as_object().unwrap_or(&empty);
    let mut keys: Vec<&String> = listed.keys().chain(read.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|key| match (listed.get(key), read.get(key)) {
            (Some(a), Some(b)) if a == b => None,
            (Some(a), Some(b)) => Some(format!("{key}: the entry says {a}, SKILL.md says {b}")),
            (Some(_), None) => Some(format!("{key}: in the entry, not in SKILL.md")),
            (None, _) => Some(format!("{key}: in SKILL.md, not in the entry")),
        })
        .collect()
}

#[cfg(test)]
mod tests;
