//! What a replay expects to differ, and how strictly it judges: paths to ignore (for every
//! request, or scoped to a method and a tool, prompt or URI: `tools/call get_time:result.content[*].text`),
//! value patterns for what varies by nature (`uuid`, `iso-time`, `epoch`, or a regex), and
//! `strict` and `skip-gone`; given as flags or in a replay file (`.sonde-replay.yaml`), so CI
//! and the window share them. Each rule counts what it matched, so one that matched nothing
//! can be said.
//!
//! Owns: the rules' notation, the replay file's keys (an unknown key is an error naming those
//! allowed), `RulesError` saying why a rule or the file cannot be used (a file that cannot be
//! read `io`, a rule or key that is wrong `bad_input`), and whether a difference is one a rule
//! names. Refuses: finding differences
//! (`interface::values`) and reading files a front end did not name.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;

use crate::error_code::ErrorCode;
use crate::interface::values::{pattern_covers, Difference};

/// Why the rules of a replay cannot be used, in the words the person reads.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    /// An ignore rule that is not a path, nor a method and a path.
    #[error(
        "{0:?} is not a path to ignore; expected a path that begins at result or error (result.content[*].text), or METHOD [NAME]:PATH (tools/call get_time:result.content[*].text)"
    )]
    NotAPath(String),
    #[error("{0:?} names no method before its path")]
    NoMethod(String),
    #[error("{written:?} is neither uuid, iso-time, epoch nor a regular expression: {source}")]
    NotAPattern { written: String, source: regex::Error },
    #[error("cannot read {}: {source}", path.display())]
    Unreadable { path: PathBuf, source: std::io::Error },
    /// The replay file's text is not its YAML: the parser's words, which say where and what.
    #[error("{} is not a replay file: {why}", path.display())]
    NotAReplayFile { path: PathBuf, why: String },
}

impl RulesError {
    /// `io` when the replay file could not be read; `bad_input` for a rule or key that is wrong.
    pub fn code(&self) -> ErrorCode {
        match self {
            RulesError::Unreadable { .. } => ErrorCode::Io,
            _ => ErrorCode::BadInput,
        }
    }
}

/// The file a project keeps its replay rules in, read from the working directory.
pub const REPLAY_RULES_FILE: &str = ".sonde-replay.yaml";

/// The rules a replay runs with.
#[derive(Debug, Default)]
pub struct Rules {
    pub ignore: Vec<Ignore>,
    pub values: Vec<Pattern>,
    /// Any difference fails the replay: a listing's change or addition, a rule that matched
    /// nothing.
    pub strict: bool,
    /// A call of a tool (or prompt) the server no longer lists is reported, not sent.
    pub skip_gone: bool,
}

/// A path whose differences are expected, for every request or for one method (and name).
#[derive(Debug)]
pub struct Ignore {
    /// The rule as written, to say it back.
    pub written: String,
    method: Option<String>,
    name: Option<String>,
    path: String,
    matched: AtomicUsize,
}

/// A kind of value that differs by nature: where two strings (or numbers) differ only where
/// the patterns match, the difference is expected.
#[derive(Debug)]
pub struct Pattern {
    pub written: String,
    regex: Regex,
    matched: AtomicUsize,
}

/// The replay file's keys.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct File {
    #[serde(default)]
    ignore: Vec<String>,
    #[serde(default)]
    ignore_values: Vec<String>,
    #[serde(default)]
    strict: bool,
    #[serde(default)]
    skip_gone: bool,
}

/// The roots of an answer's paths: `{"result": …}`, `{"error": …}`, `{"failed": words}`.
const ROOTS: [&str; 3] = ["result", "error", "failed"];

impl Ignore {
    /// Reads `PATH` or `METHOD [NAME]:PATH`, where a path begins at `result`, `error` or
    /// `failed`.
    pub fn parse(written: &str) -> Result<Ignore, RulesError> {
        let starts_path = |s: &str| {
            ROOTS.iter().any(|r| {
                s.strip_prefix(r).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
            })
        };
        let (scope, path) = if starts_path(written) {
            (None, written)
        } else {
            let cut = written
                .rmatch_indices(':')
                .map(|(i, _)| i)
                .find(|&i| starts_path(&written[i + 1..]))
                .ok_or_else(|| RulesError::NotAPath(written.to_owned()))?;
            (Some(written[..cut].trim()), &written[cut + 1..])
        };
        let (method, name) = match scope {
            None => (None, None),
            Some(scope) => match scope.split_once(' ') {
                Some((method, name)) => (Some(method.to_owned()), Some(name.trim().to_owned())),
                None => (Some(scope.to_owned()), None),
            },
        };
        if method.as_deref().is_some_and(str::is_empty) {
            return Err(RulesError::NoMethod(written.to_owned()));
        }
        Ok(Ignore {
            written: written.to_owned(),
            method,
            name,
            path: path.to_owned(),
            matched: AtomicUsize::new(0),
        })
    }

    fn applies(&self, method: &str, name: Option<&str>, path: &str) -> bool {
        self.method.as_deref().is_none_or(|m| m == method)
            && self.name.as_deref().is_none_or(|n| Some(n) == name)
            && pattern_covers(&self.path, path)
    }

    /// How many differences the rule named.
    pub fn matched(&self) -> usize {
        self.matched.load(Ordering::Relaxed)
    }
}

impl Pattern {
    /// Reads `uuid`, `iso-time`, `epoch`, or a regular expression.
    pub fn parse(written: &str) -> Result<Pattern, RulesError> {
        let source = match written {
            "uuid" => r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
            "iso-time" => {
                r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?|\d{2}:\d{2}:\d{2}(?:\.\d+)?"
            }
            // Seconds or milliseconds since 1970, from 2001 to 2286.
            "epoch" => r"\b1\d{9}(?:\d{3})?(?:\.\d+)?\b",
            other => other,
        };
        let regex = Regex::new(source)
            .map_err(|source| RulesError::NotAPattern { written: written.to_owned(), source })?;
        Ok(Pattern { written: written.to_owned(), regex, matched: AtomicUsize::new(0) })
    }

    /// `text` with each match of the pattern made one mark.
    fn masked(&self, text: &str) -> String {
        self.regex.replace_all(text, "\u{0}").into_owned()
    }

    pub fn matched(&self) -> usize {
        self.matched.load(Ordering::Relaxed)
    }
}

impl Rules {
    /// The rules of the flags given, with those of the replay file at `file` (when given)
    /// first.
    pub fn new(
        file: Option<&Path>,
        ignore: &[String],
        values: &[String],
        strict: bool,
        skip_gone: bool,
    ) -> Result<Rules, RulesError> {
        let kept = match file {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|source| RulesError::Unreadable { path: path.to_owned(), source })?;
                serde_saphyr::from_str::<Option<File>>(&text)
                    .map_err(|e| RulesError::NotAReplayFile { path: path.to_owned(), why: e.to_string() })?
                    .unwrap_or_default()
            }
            None => File::default(),
        };
        let ignore = kept.ignore.iter().chain(ignore).map(|w| Ignore::parse(w)).collect::<Result<_, _>>()?;
        let values = kept
            .ignore_values
            .iter()
            .chain(values)
            .flat_map(|w| split_list(w))
            .map(|w| Pattern::parse(&w))
            .collect::<Result<_, _>>()?;
        Ok(Rules { ignore, values, strict: strict || kept.strict, skip_gone: skip_gone || kept.skip_gone })
    }

    /// Whether a rule expects the difference `d` in the answer to `method` (naming `name`);
    /// the rule that did counts it.
    pub fn expects(&self, method: &str, name: Option<&str>, d: &Difference) -> bool {
        if let Some(rule) = self.ignore.iter().find(|r| r.applies(method, name, &d.path)) {
            rule.matched.fetch_add(1, Ordering::Relaxed);
            return true;
        }
        // The values differ only where the patterns match, all of them taken together.
        let text = |v: &Option<Value>| match v {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let (Some(mut old), Some(mut new)) = (text(&d.old), text(&d.new)) else { return false };
        let mut used = Vec::new();
        for pattern in &self.values {
            let (o, n) = (pattern.masked(&old), pattern.masked(&new));
            if o != old || n != new {
                used.push(pattern);
            }
            (old, new) = (o, n);
        }
        if old != new || used.is_empty() {
            return false;
        }
        for pattern in used {
            pattern.matched.fetch_add(1, Ordering::Relaxed);
        }
        true
    }

    /// The rules, as written, that matched nothing.
    pub fn unmatched(&self) -> Vec<String> {
        let paths =
            self.ignore.iter().filter(|r| r.matched() == 0).map(|r| format!("--ignore {}", r.written));
        let values =
            self.values.iter().filter(|p| p.matched() == 0).map(|p| format!("--ignore-values {}", p.written));
        paths.chain(values).collect()
    }
}

/// `uuid,iso-time` is two patterns; a regex with a comma is written alone (one with `{2,3}`
/// stays whole, since it is not a list of the names).
fn split_list(written: &str) -> Vec<String> {
    let parts: Vec<&str> = written.split(',').map(str::trim).collect();
    if parts.len() > 1 && parts.iter().all(|p| ["uuid", "iso-time", "epoch"].contains(p)) {
        parts.into_iter().map(str::to_owned).collect()
    } else {
        vec![written.to_owned()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn difference(path: &str, old: Value, new: Value) -> Difference {
        Difference { path: path.into(), steps: vec![], old: Some(old), new: Some(new) }
    }

    #[test]
    fn an_ignore_rule_is_scoped_to_its_method_and_name() {
        let rules =
            Rules::new(None, &["tools/call get_time:result.content[*].text".into()], &[], false, false)
                .unwrap();
        let d = difference("result.content[0].text", json!("12:00"), json!("12:01"));
        assert!(!rules.expects("tools/call", Some("echo"), &d), "another tool");
        assert!(!rules.expects("prompts/get", Some("get_time"), &d), "another method");
        assert_eq!(rules.unmatched(), ["--ignore tools/call get_time:result.content[*].text"]);
        assert!(rules.expects("tools/call", Some("get_time"), &d));
        assert!(rules.unmatched().is_empty());
        // A URI holds colons: the path begins after the last colon before result.
        let uri = Ignore::parse("resources/read notes://readme:result.contents").unwrap();
        assert!(uri.applies("resources/read", Some("notes://readme"), "result.contents[0].text"));
        assert!(Ignore::parse("content[0].text")
            .unwrap_err()
            .to_string()
            .contains("is not a path to ignore"));
        assert!(Ignore::parse(":result").unwrap_err().to_string().contains("names no method"));
    }

    #[test]
    fn a_value_pattern_explains_only_what_differs_where_it_matches() {
        let rules = Rules::new(None, &[], &["uuid,iso-time".into(), "epoch".into()], false, false).unwrap();
        let time = difference(
            "result.content[0].text",
            json!("It is 2026-12-06T20:00:00Z, id 0b5e3a4c-1d2e-4f50-8a9b-0c1d2e3f4a5b"),
            json!("It is 2026-12-06T20:05:09.5Z, id 7c2f0e1a-9b8d-4c7e-a6f5-e4d3c2b1a090"),
        );
        assert!(rules.expects("tools/call", Some("t"), &time));
        let words =
            difference("result.content[0].text", json!("It is 2026-12-06"), json!("It was 2026-12-07"));
        assert!(!rules.expects("tools/call", Some("t"), &words), "other words differ too");
        let same_text = difference("result.x", json!("abc"), json!("abd"));
        assert!(!rules.expects("tools/call", None, &same_text));
        assert!(rules.expects(
            "tools/call",
            None,
            &difference("result.at", json!(1765051200), json!(1765051260))
        ));
        assert!(rules.unmatched().is_empty(), "{:?}", rules.unmatched());
        assert!(Pattern::parse("(").unwrap_err().to_string().contains("neither uuid"));
        assert_eq!(split_list(r"\d{2,3}"), [r"\d{2,3}"]);
    }

    #[test]
    fn the_replay_file_holds_the_same_rules_and_refuses_unknown_keys() {
        let dir = std::env::temp_dir().join(format!("sonde-replay-rules-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(REPLAY_RULES_FILE);
        std::fs::write(&file, "ignore:\n  - result.stamp\nignore-values: [uuid]\nstrict: true\n").unwrap();
        let rules = Rules::new(Some(&file), &["result.other".into()], &[], false, false).unwrap();
        assert_eq!(rules.ignore.len(), 2);
        assert_eq!(rules.values.len(), 1);
        assert!(rules.strict && !rules.skip_gone);
        std::fs::write(&file, "ignores: [result.stamp]\n").unwrap();
        let error = Rules::new(Some(&file), &[], &[], false, false).unwrap_err();
        assert_eq!(error.code(), ErrorCode::BadInput, "{error}");
        let error = error.to_string();
        assert!(error.contains("is not a replay file") && error.contains("ignores"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A replay file that cannot be read is `io`; a rule that is wrong `bad_input`.
    #[test]
    fn a_missing_replay_file_is_io_and_a_wrong_rule_is_bad_input() {
        let dir = tempfile::tempdir().unwrap();
        let missing =
            Rules::new(Some(&dir.path().join(REPLAY_RULES_FILE)), &[], &[], false, false).unwrap_err();
        assert_eq!(missing.code(), ErrorCode::Io, "{missing}");
        let rule = Rules::new(None, &["content[0].text".into()], &[], false, false).unwrap_err();
        assert_eq!(rule.code(), ErrorCode::BadInput, "{rule}");
        assert_eq!(Pattern::parse("(").unwrap_err().code(), ErrorCode::BadInput);
    }
}
