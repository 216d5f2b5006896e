//! The suite file: `tests:`, each with a name, one request (`call` with `args`, `read`,
//! `prompt` with `args`, or `method` with `params`) and its expectations. YAML, of which JSON
//! is a part; a key the file does not know is an error that names it and the keys allowed.

use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    pub tests: Vec<Test>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Test {
    pub name: String,
    /// `tools/call` of this tool, with `args`.
    #[serde(default)]
    pub call: Option<String>,
    /// `resources/read` of this URI.
    #[serde(default)]
    pub read: Option<String>,
    /// `prompts/get` of this prompt, with `args` (as strings).
    #[serde(default)]
    pub prompt: Option<String>,
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

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
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
    Method(&'a str),
}

impl Test {
    pub(super) fn request(&self) -> Request<'_> {
        match (&self.call, &self.read, &self.prompt, &self.method) {
            (Some(name), ..) => Request::Call(name),
            (_, Some(uri), ..) => Request::Read(uri),
            (_, _, Some(name), _) => Request::Prompt(name),
            (.., Some(method)) => Request::Method(method),
            (None, None, None, None) => unreachable!("Suite::parse refuses a test without a request"),
        }
    }
}

impl Suite {
    /// Reads a suite from its text; an error says where and what is wrong.
    pub fn parse(text: &str) -> Result<Suite, String> {
        let suite: Suite = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
        for test in &suite.tests {
            let requests =
                [&test.call, &test.read, &test.prompt, &test.method].iter().filter(|r| r.is_some()).count();
            if requests != 1 {
                return Err(format!(
                    "the test {:?} names {requests} requests; each names one: call, read, prompt or method",
                    test.name
                ));
            }
        }
        Ok(suite)
    }
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
        let unknown =
            Suite::parse("tests:\n  - name: x\n    call: add\n    expect:\n      txt: hi\n").unwrap_err();
        assert!(unknown.contains("txt") && unknown.contains("within_ms"), "{unknown}");
        let two = Suite::parse("tests:\n  - name: x\n    call: add\n    read: y\n").unwrap_err();
        assert!(two.contains("names 2 requests"), "{two}");
    }
}
