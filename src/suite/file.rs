//! The suite file: `tests:`, each with a name, one request (`call` with `args`, `read`,
//! `prompt` with `args`, `skill` with an optional `file`, or `method` with `params`), `unlisted: true` on a call of a tool the
//! server need not list, and its expectations. YAML, of which JSON
//! is a part; a key the file does not know is an error that names it and the keys allowed.
//! `SuiteError` says what kept a suite from being read or a test from being added (a file that
//! cannot be read or written `io`, anything wrong in what it holds `bad_input`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error_code::ErrorCode;

/// Why a suite cannot be read, or a test not added to one, in the words the person reads.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// The text is not a suite's YAML: the parser's words, which say where.
    #[error("{0}")]
    Syntax(String),
    /// A test that names no request, or more than one.
    #[error(
        "the test {name:?} names {requests} requests; each names one: call, read, prompt, skill or method"
    )]
    Requests { name: String, requests: usize },
    /// `unlisted: true` on a test that is not a call.
    #[error("the test {0:?} says unlisted, which only a call takes (a tool the server need not list)")]
    UnlistedNotACall(String),
    /// `file` on a test that is not a skill's.
    #[error(
        "the test {0:?} names a file, which only a skill test takes (a file of the skill, by its path in it)"
    )]
    FileNotASkill(String),
    /// A test to add that names no request, or more than one.
    #[error("a test names one request: call, read, prompt, skill or method")]
    OneRequest,
    #[error("cannot read {}: {source}", path.display())]
    Unreadable { path: PathBuf, source: std::io::Error },
    /// The file to add a test to holds no suite.
    #[error("{} is not a test suite: {source}", path.display())]
    NotASuite { path: PathBuf, source: Box<SuiteError> },
    /// The suite with the test added no longer reads.
    #[error("the test could not be added to {}: {source}", path.display())]
    NotAdded { path: PathBuf, source: Box<SuiteError> },
    /// The file's `tests:` is not its last key, so a test at its end would not join them.
    #[error(
        "{}'s tests are not its last key, so a test added at its end would not be one of them; add it by hand",
        path.display()
    )]
    NotLast { path: PathBuf },
    #[error("cannot write {}: {source}", path.display())]
    Unwritable { path: PathBuf, source: std::io::Error },
}

impl SuiteError {
    /// `io` when the file could not be read or written; `bad_input` for what it holds.
    pub fn code(&self) -> ErrorCode {
        match self {
            SuiteError::Unreadable { .. } | SuiteError::Unwritable { .. } => ErrorCode::Io,
            _ => ErrorCode::BadInput,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    pub tests: Vec<Test>,
    /// The 1-based line of the file where each test is named, when it can be found.
    #[serde(skip)]
    pub lines: Vec<Option<usize>>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[serde(deny_unknown_fields)]
pub struct Test {
    pub name: String,
    /// `tools/call` of this tool, with `args`.
    #[serde(default)]
    pub call: Option<String>,
    /// Call the tool even when the server does not list it (a test of what a server answers
    /// for a tool it does not have); without it, a call of a tool the server does not list
    /// fails its test. The window saves tests of the tools it lists, so its bindings leave it
    /// out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "bindings", specta(skip))]
    pub unlisted: bool,
    /// `resources/read` of this URI.
    #[serde(default)]
    pub read: Option<String>,
    /// `prompts/get` of this prompt, with `args` (as strings).
    #[serde(default)]
    pub prompt: Option<String>,
    /// A skill (the Skills extension), by its name as listed or its SKILL.md's URI: its SKILL.md,
    /// or `file`, read and verified against its entry. The window saves no skill test, so its
    /// bindings leave both out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "bindings", specta(skip))]
    pub skill: Option<String>,
    /// With `skill`: another file of the skill, by its path in it (`scripts/run.sh`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "bindings", specta(skip))]
    pub file: Option<String>,
    /// Any method, with `params`.
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default)]
    pub args: Option<Value>,
    #[serde(default)]
    pub params: Option<Value>,
    #[serde(default)]
    pub expect: Expect,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The result is (or is not) an error: `isError`, or an error reply.
    #[serde(default, rename = "isError")]
    pub is_error: Option<bool>,
    /// A substring of the result's text.
    #[serde(default)]
    pub text: Option<String>,
    /// Keys that must be equal in `structuredContent`.
    #[serde(default)]
    pub structured: Option<Value>,
    /// `structuredContent` valid against the tool's `outputSchema`.
    #[serde(default)]
    pub schema: Option<bool>,
    /// Answered within this many milliseconds.
    #[serde(default)]
    pub within_ms: Option<u64>,
}

/// What a test sends.
pub(super) enum Request<'a> {
    Call(&'a str),
    Read(&'a str),
    Prompt(&'a str),
    /// A skill by name or URI, and the file of it to read (SKILL.md when `None`).
    Skill(&'a str, Option<&'a str>),
    Method(&'a str),
}

impl Test {
    /// How many requests the test names (a test names one).
    fn request_count(&self) -> usize {
        [&self.call, &self.read, &self.prompt, &self.skill, &self.method]
            .iter()
            .filter(|r| r.is_some())
            .count()
    }

    pub(super) fn request(&self) -> Request<'_> {
        match (&self.call, &self.read, &self.prompt, &self.skill, &self.method) {
            (Some(name), ..) => Request::Call(name),
            (_, Some(uri), ..) => Request::Read(uri),
            (_, _, Some(name), ..) => Request::Prompt(name),
            (_, _, _, Some(skill), _) => Request::Skill(skill, self.file.as_deref()),
            (.., Some(method)) => Request::Method(method),
            (None, None, None, None, None) => unreachable!("Suite::parse refuses a test without a request"),
        }
    }
}

impl Suite {
    /// Reads a suite from its text; an error says where and what is wrong.
    pub fn parse(text: &str) -> Result<Suite, SuiteError> {
        let mut suite: Suite = serde_saphyr::from_str(text).map_err(|e| SuiteError::Syntax(e.to_string()))?;
        for test in &suite.tests {
            let requests = test.request_count();
            if requests != 1 {
                return Err(SuiteError::Requests { name: test.name.clone(), requests });
            }
            if test.unlisted && test.call.is_none() {
                return Err(SuiteError::UnlistedNotACall(test.name.clone()));
            }
            if test.file.is_some() && test.skill.is_none() {
                return Err(SuiteError::FileNotASkill(test.name.clone()));
            }
        }
        suite.lines = lines_of(text, &suite.tests);
        Ok(suite)
    }
}

/// The line where each test is named: the first line after the previous test's that holds
/// `name` and the test's name (as YAML or JSON writes it), so two tests of one name get
/// their own lines.
fn lines_of(text: &str, tests: &[Test]) -> Vec<Option<usize>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut from = 0;
    tests
        .iter()
        .map(|test| {
            let quoted = serde_json::to_string(&test.name).expect("a string serializes");
            let found = lines[from.min(lines.len())..].iter().position(|l| {
                let value = l.split_once("name").map(|(_, rest)| rest);
                value.is_some_and(|v| v.contains(&test.name) || v.contains(&quoted))
            })?;
            from += found + 1;
            Some(from)
        })
        .collect()
}

/// Adds `test` to the suite file at `path` (a new file when `fresh`, replacing what was there),
/// as YAML whose values are JSON, so it reads back exactly; returns how many tests the suite
/// holds now. An existing file whose `tests:` list is not where a test can be added (not its
/// last key, or not a suite) is left as it was, and the error says why.
pub fn append_test(path: &Path, test: &Test, fresh: bool) -> Result<usize, SuiteError> {
    if test.request_count() != 1 {
        return Err(SuiteError::OneRequest);
    }
    let before = if fresh {
        String::new()
    } else {
        std::fs::read_to_string(path)
            .map_err(|source| SuiteError::Unreadable { path: path.to_owned(), source })?
    };
    let had = match before.trim() {
        "" => 0,
        _ => Suite::parse(&before)
            .map_err(|e| SuiteError::NotASuite { path: path.to_owned(), source: Box::new(e) })?
            .tests
            .len(),
    };
    let mut text = if had == 0 { "tests:\n".to_owned() } else { before.clone() };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text += &entry(test);
    let after = Suite::parse(&text)
        .map_err(|e| SuiteError::NotAdded { path: path.to_owned(), source: Box::new(e) })?;
    if after.tests.len() != had + 1 || after.tests.last() != Some(test) {
        return Err(SuiteError::NotLast { path: path.to_owned() });
    }
    crate::files::write_private(path, text.as_bytes())
        .map_err(|source| SuiteError::Unwritable { path: path.to_owned(), source })?;
    Ok(after.tests.len())
}

/// One test as an item of the `tests:` list: a key a line, each value as JSON (which YAML
/// reads as it is), the keys it leaves out absent.
fn entry(test: &Test) -> String {
    let Value::Object(fields) = serde_json::to_value(test).expect("a test serializes") else {
        unreachable!()
    };
    // In the order a person writes them: the name, the request, then the expectations.
    let order = ["name", "call", "unlisted", "read", "prompt", "method", "args", "params", "expect"];
    let kept: Vec<(&str, &Value)> =
        order.iter().filter_map(|k| fields.get(*k).filter(|v| !v.is_null()).map(|v| (*k, v))).collect();
    let mut out = String::new();
    for (i, (key, value)) in kept.into_iter().enumerate() {
        let value = match (key, value) {
            ("expect", Value::Object(expect)) => Value::Object(
                expect.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect(),
            ),
            _ => value.clone(),
        };
        out += &format!("{}{key}: {value}\n", if i == 0 { "  - " } else { "    " });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suite_reads_from_yaml_and_json_and_an_unknown_key_is_named_with_those_allowed() {
        let yaml = "tests:\n  - name: adds\n    call: add\n    args: {a: 2, b: 3}\n    expect:\n      isError: false\n      text: \"5\"\n      structured: {sum: 5}\n      schema: true\n      within_ms: 1000\n";
        let suite = Suite::parse(yaml).unwrap();
        assert_eq!(suite.tests[0].args, Some(serde_json::json!({"a": 2, "b": 3})));
        assert_eq!(suite.tests[0].expect.structured, Some(serde_json::json!({"sum": 5})));
        let json = r#"{"tests": [{"name": "reads", "read": "demo://readme"}]}"#;
        assert_eq!(Suite::parse(json).unwrap().tests[0].read.as_deref(), Some("demo://readme"));
        assert_eq!(Suite::parse(yaml).unwrap().lines, [Some(2)]);
        let twice = "tests:\n  - name: same\n    method: ping\n  - {name: \"same\", method: ping}\n";
        assert_eq!(Suite::parse(twice).unwrap().lines, [Some(2), Some(4)]);
        let refused = |text: &str| Suite::parse(text).unwrap_err().to_string();
        let unknown = refused("tests:\n  - name: x\n    call: add\n    expect:\n      txt: hi\n");
        assert!(unknown.contains("txt") && unknown.contains("within_ms"), "{unknown}");
        let two = refused("tests:\n  - name: x\n    call: add\n    read: y\n");
        assert!(two.contains("names 2 requests"), "{two}");
        let unlisted = "tests:\n  - name: x\n    call: divide\n    unlisted: true\n";
        assert!(Suite::parse(unlisted).unwrap().tests[0].unlisted);
        let read = refused("tests:\n  - name: x\n    read: a://b\n    unlisted: true\n");
        assert!(read.contains("only a call takes"), "{read}");
    }

    #[test]
    fn a_skill_test_names_its_file_and_only_a_skill_test_takes_one() {
        let suite = Suite::parse("tests:\n  - name: pdf\n    skill: pdf\n    file: reference.md\n").unwrap();
        assert!(matches!(suite.tests[0].request(), Request::Skill("pdf", Some("reference.md"))));
        let refused = Suite::parse("tests:\n  - name: x\n    read: a://b\n    file: c\n").unwrap_err();
        assert_eq!(
            refused.to_string(),
            "the test \"x\" names a file, which only a skill test takes (a file of the skill, by its path in it)"
        );
        let two = Suite::parse("tests:\n  - name: y\n    skill: pdf\n    call: add\n").unwrap_err();
        assert!(two
            .to_string()
            .contains("names 2 requests; each names one: call, read, prompt, skill or method"));
    }

    #[test]
    fn a_test_is_appended_and_reads_back_and_a_file_it_cannot_join_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("suite.yaml");
        let test = Test {
            name: "adds: \"two\" numbers".into(),
            call: Some("add".into()),
            unlisted: false,
            read: None,
            prompt: None,
            skill: None,
            file: None,
            method: None,
            args: Some(serde_json::json!({"a": 2, "b": 3})),
            params: None,
            expect: Expect { is_error: Some(false), text: Some("5".into()), ..Expect::default() },
        };
        assert_eq!(append_test(&path, &test, true).unwrap(), 1);
        assert_eq!(append_test(&path, &test, false).unwrap(), 2);
        let written = std::fs::read_to_string(&path).unwrap();
        assert_eq!(Suite::parse(&written).unwrap().tests, vec![test.clone(), test.clone()]);
        assert!(
            written.starts_with("tests:\n  - name: \"adds: \\\"two\\\" numbers\"\n    call: \"add\"\n"),
            "{written}"
        );
        // A suite whose tests are not its last key: a test at its end would not join them.
        let other = dir.path().join("other.yaml");
        let text = "tests:\n  - name: x\n    method: ping\nmore: 1\n";
        std::fs::write(&other, text).unwrap();
        assert!(append_test(&other, &test, false).is_err());
        assert_eq!(std::fs::read_to_string(&other).unwrap(), text, "left as it was");
    }

    /// A suite file that cannot be read is `io`; one that holds no suite, or to which a test
    /// cannot be added, `bad_input`: the window tells them apart by code.
    #[test]
    fn a_missing_suite_is_io_and_a_file_that_is_no_suite_is_bad_input() {
        let dir = tempfile::tempdir().unwrap();
        let test = Test {
            name: "pings".into(),
            call: None,
            unlisted: false,
            read: None,
            prompt: None,
            skill: None,
            file: None,
            method: Some("ping".into()),
            args: None,
            params: None,
            expect: Expect::default(),
        };
        let missing = append_test(&dir.path().join("gone.yaml"), &test, false).unwrap_err();
        assert_eq!(missing.code(), ErrorCode::Io, "{missing}");
        let other = dir.path().join("notes.yaml");
        std::fs::write(&other, "- just\n- a list\n").unwrap();
        let wrong = append_test(&other, &test, false).unwrap_err();
        assert_eq!(wrong.code(), ErrorCode::BadInput, "{wrong}");
        assert!(wrong.to_string().starts_with(&format!("{} is not a test suite: ", other.display())));
        let last = dir.path().join("last.yaml");
        std::fs::write(&last, "tests:\n  - name: x\n    method: ping\nmore: 1\n").unwrap();
        assert_eq!(append_test(&last, &test, false).unwrap_err().code(), ErrorCode::BadInput);
    }
}
