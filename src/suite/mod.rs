//! Saved calls with expectations, run as tests (`sonde test`): a suite file (YAML, of which
//! JSON is a part) names each test's request and what its answer must hold; running it gives
//! each test's verdict, with every expectation that failed in words.
//!
//! Owns: the file's keys (an unknown key is an error naming it and the keys allowed), sending
//! each test's request, and judging its answer (with the core's JSON comparison for
//! `structured`, and the output-schema check for `schema`). Refuses: starting servers and the
//! reports' formats (the front ends).

mod file;

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use crate::connection::RequestError;
use crate::features::listing::ListKind;
use crate::interface::values::differences;
use crate::mcp::Session;
use crate::schema::OutputCheck;
pub use file::{append, Expect, Suite, Test};

/// One test's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub name: String,
    /// Each expectation that failed: which (`isError`, `text`, `structured`, `schema`,
    /// `within_ms`, or `request` when no answer came) and why, in words. Empty: it passed.
    pub failures: Vec<Failure>,
    /// Milliseconds from sending the request to its answer.
    pub ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub expectation: String,
    pub message: String,
}

impl Verdict {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Runs each test of `suite` on `session`, in order, handing each verdict to `each` as it is
/// known.
pub async fn run(session: &Session, suite: &Suite, mut each: impl FnMut(&Verdict)) -> Vec<Verdict> {
    // The tools' definitions, for the output-schema check (listed once, if any test calls one).
    let tools = match suite.tests.iter().any(|t| t.call.is_some()) {
        true => session.list_all(ListKind::Tools).await.map(|l| l.items).unwrap_or_default(),
        false => Vec::new(),
    };
    let mut out = Vec::new();
    for test in &suite.tests {
        let started = Instant::now();
        let answer = send(session, test, &tools).await;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let failures = match answer {
            Ok((result, check)) => judge(&test.expect, &result, check.as_ref(), ms),
            Err(e) => vec![Failure { expectation: "request".into(), message: e.to_string() }],
        };
        let verdict = Verdict { name: test.name.clone(), failures, ms };
        each(&verdict);
        out.push(verdict);
    }
    out
}

/// The test's request, sent: its result (an error reply as `{"isError": true, "error": …}`),
/// and for a tool call the output-schema verdict.
async fn send(
    session: &Session,
    test: &Test,
    tools: &[Value],
) -> Result<(Value, Option<OutputCheck>), RequestError> {
    let answered = match test.request() {
        file::Request::Call(name) => {
            let definition = tools.iter().find(|t| t.get("name").and_then(Value::as_str) == Some(name));
            session
                .call_tool_checked(name, definition, test.args.clone(), false, |_| {})
                .await
                .map(|outcome| (outcome.result, outcome.check))
        }
        file::Request::Read(uri) => session.read_resource(uri).await.map(|read| (read.result, None)),
        file::Request::Prompt(name) => {
            let arguments: BTreeMap<String, String> = test
                .args
                .as_ref()
                .and_then(Value::as_object)
                .map(|a| {
                    a.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_owned)))
                        .collect()
                })
                .unwrap_or_default();
            session.get_prompt(name, &arguments).await.map(|p| (p.result, None))
        }
        file::Request::Method(method) => {
            session.request(method, test.params.clone()).await.map(|r| (r, None))
        }
    };
    match answered {
        Err(RequestError::Rpc { error, .. }) => {
            Ok((serde_json::json!({ "isError": true, "error": error }), None))
        }
        other => other,
    }
}

/// Every expectation of `expect` that `result` (answered in `ms`) does not meet.
fn judge(expect: &Expect, result: &Value, check: Option<&OutputCheck>, ms: f64) -> Vec<Failure> {
    let mut failures = Vec::new();
    let mut fail = |expectation: &str, message: String| {
        failures.push(Failure { expectation: expectation.into(), message });
    };
    let is_error = result.get("isError").and_then(Value::as_bool).unwrap_or(false);
    if let Some(wanted) = expect.is_error {
        if wanted != is_error {
            let said = texts(result).join(" ");
            fail(
                "isError",
                format!(
                    "isError was {is_error}, expected {wanted}{}",
                    if said.is_empty() { String::new() } else { format!(": {said}") }
                ),
            );
        }
    }
    if let Some(wanted) = &expect.text {
        let said = texts(result);
        if !said.iter().any(|t| t.contains(wanted.as_str())) {
            fail("text", format!("no text holds {wanted:?}; the text was {:?}", said.join(" ")));
        }
    }
    if let Some(wanted) = &expect.structured {
        let got = result.get("structuredContent").cloned().unwrap_or(Value::Null);
        match wanted.as_object() {
            Some(keys) => {
                for (key, value) in keys {
                    let found = got.get(key).cloned().unwrap_or(Value::Null);
                    if let Some(d) = differences(
                        &crate::interface::values::key_path("structuredContent", key),
                        value,
                        &found,
                    )
                    .first()
                    {
                        let shown =
                            |v: &Option<Value>| v.as_ref().map_or("nothing".to_owned(), Value::to_string);
                        fail(
                            "structured",
                            format!("{}: {} expected, {} given", d.path, shown(&d.old), shown(&d.new)),
                        );
                    }
                }
            }
            None => fail("structured", "structured lists keys and their values (an object)".into()),
        }
    }
    if expect.schema == Some(true) {
        match check {
            Some(OutputCheck::Valid) => {}
            Some(OutputCheck::Invalid { errors }) => {
                fail("schema", format!("structuredContent breaks the outputSchema: {}", errors.join("; ")))
            }
            Some(OutputCheck::Missing) => fail(
                "schema",
                "the tool declares an outputSchema but the result has no structuredContent".into(),
            ),
            Some(OutputCheck::BadSchema { error }) => {
                fail("schema", format!("the outputSchema cannot be used: {error}"))
            }
            None => fail(
                "schema",
                "no outputSchema to check against (the tool declares none, or the result is an error)".into(),
            ),
        }
    }
    if let Some(limit) = expect.within_ms {
        if ms > limit as f64 {
            fail("within_ms", format!("answered in {} ms, over {limit} ms", ms.round()));
        }
    }
    failures
}

/// Every `text` string of a result, at any depth (a tool's content, a resource's contents, a
/// prompt's messages), and an error's message.
fn texts(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    match (key.as_str(), v) {
                        ("text" | "message", Value::String(s)) => out.push(s.clone()),
                        _ => walk(v, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    walk(value, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_expectation_that_fails_says_why() {
        let result =
            json!({"content": [{"type": "text", "text": "2 + 3 = 5"}], "structuredContent": {"sum": 5}});
        let expect = Expect {
            is_error: Some(false),
            text: Some("= 5".into()),
            structured: Some(json!({"sum": 5})),
            schema: Some(true),
            within_ms: Some(1000),
        };
        assert_eq!(judge(&expect, &result, Some(&OutputCheck::Valid), 12.0), vec![]);
        let wrong = Expect {
            is_error: Some(true),
            text: Some("= 6".into()),
            structured: Some(json!({"sum": 6})),
            schema: Some(true),
            within_ms: Some(10),
        };
        let failed: Vec<(String, String)> =
            judge(&wrong, &result, None, 12.0).into_iter().map(|f| (f.expectation, f.message)).collect();
        assert_eq!(
            failed,
            [
                ("isError", "isError was false, expected true: 2 + 3 = 5"),
                ("text", "no text holds \"= 6\"; the text was \"2 + 3 = 5\""),
                ("structured", "structuredContent.sum: 6 expected, 5 given"),
                (
                    "schema",
                    "no outputSchema to check against (the tool declares none, or the result is an error)"
                ),
                ("within_ms", "answered in 12 ms, over 10 ms"),
            ]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
        );
    }
}
