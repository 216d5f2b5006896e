//! Saved calls with expectations, run as tests (`sonde test`): a suite file (YAML, of which
//! JSON is a part) names each test's request and what its answer must hold; running it gives
//! each test's verdict, with every expectation that failed in words.
//!
//! Owns: the file's keys (an unknown key is an error naming it and the keys allowed), sending
//! each test's request (a call only of a tool the server lists, unless the test says
//! `unlisted`; a skill only by a name the server lists once, its file verified), judging its answer (with the core's JSON comparison for `structured`, the
//! output-schema check for `schema`, and the diagnostics' rule on results: an answer that breaks
//! the protocol fails whatever the test expects), and the verdicts as a report (`reports`: JSON,
//! JUnit, SARIF). Refuses: starting servers, and picking the reporter or writing the file (the
//! front ends).

mod file;
mod skill;

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use crate::connection::RequestError;
use crate::diagnose::Severity;
use crate::era::Era;
use crate::interface::values::differences;
use crate::output_check::OutputCheck;
pub use crate::report::{Failure, Report, Subject};
use crate::session::listing::{ListKind, Listing};
use crate::session::Session;
pub use file::{append_test, Expect, Suite, SuiteError, Test};

/// What each kind of failure checks, in SARIF's rules.
const RULES: [(&str, &str); 8] = [
    ("listed", "The server lists the tool the test calls."),
    ("protocol", "The answer is one the protocol allows."),
    ("isError", "The result is, or is not, an error."),
    ("text", "The result's text holds the expected words."),
    ("structured", "structuredContent holds the expected keys and values."),
    ("schema", "structuredContent is valid against the tool's outputSchema."),
    ("within_ms", "The answer came within the time allowed."),
    ("request", "The request was answered."),
];

/// The report of `suite` (read from `file`) run to `verdicts`.
pub fn suite_report(file: &std::path::Path, suite: &Suite, verdicts: &[TestVerdict]) -> Report {
    let cases = verdicts
        .iter()
        .enumerate()
        .map(|(i, v)| crate::report::Case {
            failures: v.failures.clone(),
            error: v
                .error
                .clone()
                .map(|message| crate::report::CaseError { message, last_words: Vec::new() }),
            line: suite.lines.get(i).copied().flatten(),
            ..crate::report::Case::new(v.name.clone(), Some(v.ms))
        })
        .collect();
    Report { command: "sonde test".into(), subject: Subject::File(file.to_path_buf()), rules: rules(), cases }
}

/// The report of a suite in `file` that could not run: the server did not start (`reason`),
/// after `ms`, and said `words` last.
pub fn unstarted_report(file: &std::path::Path, reason: &str, words: &crate::LastWords, ms: f64) -> Report {
    Report::unstarted("sonde test", Subject::File(file.to_path_buf()), rules(), reason, words, ms)
}

fn rules() -> Vec<(String, String)> {
    RULES.iter().map(|(id, text)| (id.to_string(), text.to_string())).collect()
}

/// One test's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestVerdict {
    pub name: String,
    /// Each expectation that failed: which (`isError`, `text`, `structured`, `schema`,
    /// `within_ms`; `listed` when a call's tool is not listed, `protocol` when the answer
    /// breaks the protocol, `request` when no answer came) and why, in words. Empty: it passed.
    pub failures: Vec<Failure>,
    /// Why the test could not run: the connection was gone (its server died) before the answer.
    pub error: Option<String>,
    /// Milliseconds from sending the request to its answer.
    pub ms: f64,
}

impl TestVerdict {
    pub fn passed(&self) -> bool {
        self.failures.is_empty() && self.error.is_none()
    }
}

/// Runs each test of `suite` on `session`, in order, handing each verdict to `each` as it is
/// known. The error of a connection that is gone before any test was answered (the server
/// died at once): then no test ran, and the run is that error, not a list of failures.
pub async fn run_suite(
    session: &Session,
    suite: &Suite,
    mut each: impl FnMut(&TestVerdict),
) -> Result<Vec<TestVerdict>, RequestError> {
    // The tools the server lists, for whether a call's tool is listed and for the output-schema
    // check (listed once, if any test calls one).
    let tools = match suite.tests.iter().any(|t| t.call.is_some()) {
        true => Some(listed_tools(session).await?),
        false => None,
    };
    let tools = tools.as_ref();
    let mut out = Vec::new();
    for test in &suite.tests {
        let unlisted = match (&test.call, tools) {
            (Some(name), Some(tools)) if !test.unlisted => not_listed(name, tools),
            _ => None,
        };
        let verdict = match unlisted {
            // Not sent: a server's answer for a tool it does not have (often an `isError` result
            // saying so) would otherwise meet expectations written for the tool.
            Some(message) => TestVerdict {
                name: test.name.clone(),
                failures: vec![Failure::new("listed", message)],
                error: None,
                ms: 0.0,
            },
            None => {
                let definitions = tools.and_then(|t| t.as_ref().ok()).map_or(&[][..], |l| &l.items[..]);
                let started = Instant::now();
                let answer = send(session, test, definitions).await;
                let ms = started.elapsed().as_secs_f64() * 1000.0;
                let (failures, error) = match answer {
                    Ok(Err(refused)) => (vec![refused], None),
                    Ok(Ok(answer)) => {
                        let schema_expected = test.expect.schema == Some(true);
                        let mut failures = answer.failures.clone();
                        failures.extend(malformed(&answer, session.era() == Era::Modern, schema_expected));
                        failures.extend(unexpected_error(&answer, &test.expect));
                        failures.extend(judge(&test.expect, &answer.result, answer.check.as_ref(), ms));
                        (failures, None)
                    }
                    Err(e @ RequestError::Gone(_)) if out.is_empty() => return Err(e),
                    // The server is gone: this test, and each after it, could not run.
                    Err(e @ RequestError::Gone(_)) => (Vec::new(), Some(e.to_string())),
                    Err(e) => (vec![Failure::new("request", e.to_string())], None),
                };
                TestVerdict { name: test.name.clone(), failures, error, ms }
            }
        };
        each(&verdict);
        out.push(verdict);
    }
    Ok(out)
}

/// Every tool the server lists, or why that cannot be known; the error of a connection that is
/// gone, which ends the run.
// The inner Err is words for a test's verdict ("could not tell whether … is listed"), not a failure.
async fn listed_tools(session: &Session) -> Result<Result<Listing, String>, RequestError> {
    if session.server.capabilities.get("tools").is_none() {
        return Ok(Err("the server declares no tools capability, so it lists no tools".into()));
    }
    match session.list_all(ListKind::Tools).await {
        Ok(listing) => Ok(Ok(listing)),
        Err(e @ RequestError::Gone(_)) => Err(e),
        Err(e) => Ok(Err(format!("tools/list failed: {e}"))),
    }
}

/// Why a call of `name` fails before it is sent: the server does not list the tool, or whether
/// it does cannot be told. `None` when it is listed.
fn not_listed(name: &str, tools: &Result<Listing, String>) -> Option<String> {
    let listing = match tools {
        Ok(listing) => listing,
        Err(why) => return Some(format!("could not tell whether {name} is listed: {why}")),
    };
    if listing.items.iter().any(|t| t.get("name").and_then(Value::as_str) == Some(name)) {
        return None;
    }
    Some(match &listing.stopped {
        Some(why) => format!("could not tell whether {name} is listed: the listing stopped early ({why})"),
        None => format!("the server does not list the tool {name} (unlisted: true calls it all the same)"),
    })
}

/// An answer to a test's request: its result (an error reply as `{"isError": true, "error":
/// …}`), the method whose result it is, what keeps it from being read as the protocol says (in
/// words), and for a tool call the output-schema verdict.
struct Answer {
    method: String,
    result: Value,
    problems: Vec<String>,
    check: Option<OutputCheck>,
    /// An error reply: no result to read against its method.
    rpc_error: bool,
    /// What the answer breaks beyond its result's shape: a skill file that is not what its entry
    /// lists.
    failures: Vec<Failure>,
}

/// The test's request, sent; a failure instead when it names what the server does not list (a
/// skill by a name no skill has, or several have), so it is not sent at all.
async fn send(
    session: &Session,
    test: &Test,
    tools: &[Value],
) -> Result<Result<Answer, Failure>, RequestError> {
    let answer = |method: &str, result: Value, problems: Vec<String>, check: Option<OutputCheck>| Answer {
        method: method.to_owned(),
        result,
        problems,
        check,
        rpc_error: false,
        failures: Vec::new(),
    };
    let (method, answered) = match test.request() {
        file::Request::Call(name) => {
            let definition = tools.iter().find(|t| t.get("name").and_then(Value::as_str) == Some(name));
            let called = session.call_tool_checked(name, definition, test.args.clone(), false, |_| {}).await;
            ("tools/call", called.map(|o| answer("tools/call", o.result, o.problems, o.check)))
        }
        file::Request::Read(uri) => {
            let read = session.read_resource(uri).await;
            ("resources/read", read.map(|r| answer("resources/read", r.result, r.problems, None)))
        }
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
            let got = session.get_prompt(name, &arguments).await;
            ("prompts/get", got.map(|p| answer("prompts/get", p.result, p.problems, None)))
        }
        file::Request::Skill(given, file) => {
            let entry = match skill::named(session, given).await {
                Ok(Ok(entry)) => Ok(entry),
                Ok(Err(refused)) => return Ok(Err(refused)),
                Err(e) => Err(e),
            };
            let read = match entry {
                Ok(entry) => {
                    let uri = match file {
                        None => entry.uri.clone(),
                        Some(path) => format!("{}/{}", entry.root(), path.trim_start_matches('/')),
                    };
                    session.read_skill_file(&entry, &uri).await.map(|read| skill::answer(&entry, read))
                }
                Err(e) => Err(e),
            };
            ("resources/read", read)
        }
        file::Request::Method(method) => {
            let got = session.request(method, test.params.clone()).await;
            (method, got.map(|r| answer(method, r, Vec::new(), None)))
        }
    };
    match answered {
        Err(RequestError::Rpc { error, .. }) => Ok(Ok(Answer {
            rpc_error: true,
            ..answer(method, serde_json::json!({ "isError": true, "error": error }), Vec::new(), None)
        })),
        other => other.map(Ok),
    }
}

/// The `protocol` failures of an answer that breaks the protocol, whatever the test expects
/// (`sonde call` exits 4 on each): each error the diagnostics' rule on results finds (the fields
/// its method requires, in the era the connection speaks); when the required fields are there,
/// what the result's reader found wrong inside them (a content block without its text); and a
/// tool's `structuredContent` against its `outputSchema`, unless `schema: true` already says so.
fn malformed(answer: &Answer, modern: bool, schema_expected: bool) -> Vec<Failure> {
    if answer.rpc_error {
        return Vec::new();
    }
    let mut failures: Vec<Failure> = crate::diagnose::result_shape(&answer.method, &answer.result, modern)
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| Failure::new("protocol", format!("{}: {}", f.rule, f.detail)))
        .collect();
    // The reader's words would only say the same of the missing fields again.
    if failures.is_empty() {
        failures.extend(
            answer.problems.iter().map(|p| Failure::new("protocol", format!("the result is malformed: {p}"))),
        );
    }
    match &answer.check {
        Some(check) if *check != OutputCheck::Valid && !schema_expected => {
            failures.push(Failure::new("protocol", check.describe()))
        }
        _ => {}
    }
    failures
}

/// An error reply to a test that does not say whether to expect one: the request itself failed
/// (a resource or prompt that is gone, a method the server no longer has), which no other
/// expectation would catch.
fn unexpected_error(answer: &Answer, expect: &Expect) -> Option<Failure> {
    if !answer.rpc_error || expect.is_error.is_some() {
        return None;
    }
    let error = &answer.result["error"];
    Some(Failure::new(
        "isError",
        format!(
            "the server answered with an error ({}: {}); a test that expects one says isError: true",
            error["code"],
            error["message"].as_str().unwrap_or("no message")
        ),
    ))
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

    /// A tool is listed, gone (renamed or removed), or cannot be known to be listed; the last
    /// two fail the call's test and say which.
    #[test]
    fn a_call_of_a_tool_not_listed_fails_and_so_does_one_whose_listing_cannot_be_told() {
        let listing =
            Listing { items: vec![json!({"name": "add"}), json!({"name": "subtract"})], stopped: None };
        assert_eq!(not_listed("add", &Ok(listing.clone())), None);
        assert_eq!(
            not_listed("divide", &Ok(listing.clone())).unwrap(),
            "the server does not list the tool divide (unlisted: true calls it all the same)"
        );
        // A rename: the old name is gone even though a tool of the same kind is there.
        assert!(not_listed("Add", &Ok(listing.clone())).is_some());
        let cut = Listing { stopped: Some("over 10000 items".into()), ..listing };
        assert_eq!(
            not_listed("divide", &Ok(cut)).unwrap(),
            "could not tell whether divide is listed: the listing stopped early (over 10000 items)"
        );
        assert_eq!(
            not_listed("add", &Err("tools/list failed: boom".into())).unwrap(),
            "could not tell whether add is listed: tools/list failed: boom"
        );
    }

    fn answered(method: &str, result: Value, problems: &[&str], check: Option<OutputCheck>) -> Answer {
        Answer {
            method: method.into(),
            result,
            problems: problems.iter().map(|p| p.to_string()).collect(),
            check,
            rpc_error: false,
            failures: Vec::new(),
        }
    }

    /// A result the protocol does not allow fails whatever the test expects, naming the rule;
    /// a well-formed one and an error reply add nothing.
    #[test]
    fn a_malformed_answer_fails_as_protocol_naming_the_rule() {
        let fine = answered("tools/call", json!({"content": [], "isError": false}), &[], None);
        assert_eq!(malformed(&fine, false, false), vec![]);
        let bare = answered("tools/call", json!({"isError": false}), &["content is missing"], None);
        assert_eq!(
            malformed(&bare, false, false),
            vec![Failure::new(
                "protocol",
                "result-shape: tools/call's result: `content` is missing, where CallToolResult requires an array"
            )]
        );
        // 2026-07-28 results say their type.
        assert_eq!(malformed(&fine, true, false)[0].expectation, "protocol");
        let block =
            answered("tools/call", json!({"content": [{"type": "text"}]}), &["content[0]: no text"], None);
        assert_eq!(
            malformed(&block, false, false),
            vec![Failure::new("protocol", "the result is malformed: content[0]: no text")]
        );
        let read = answered("resources/read", json!({}), &[], None);
        assert!(malformed(&read, false, false)[0].message.contains("`contents` is missing"));
        let invalid = OutputCheck::Invalid { errors: vec!["sum: not a number".into()] };
        let off = answered("tools/call", json!({"content": []}), &[], Some(invalid));
        assert_eq!(
            malformed(&off, false, false),
            vec![Failure::new(
                "protocol",
                "structuredContent does not match the outputSchema: sum: not a number"
            )]
        );
        assert_eq!(malformed(&off, false, true), vec![], "schema: true says it already");
        let error = Answer { rpc_error: true, ..answered("tools/call", json!({"isError": true}), &[], None) };
        assert_eq!(malformed(&error, false, false), vec![]);
    }

    /// A request the server answers with an error fails a test that expects nothing of the
    /// kind, passes one that says `isError: true`, and a result is never taken for one.
    #[test]
    fn an_error_reply_fails_a_test_unless_it_expects_one() {
        let reply = json!({"isError": true, "error": {"code": -32002, "message": "Resource not found"}});
        let error = Answer { rpc_error: true, ..answered("resources/read", reply, &[], None) };
        assert_eq!(
            unexpected_error(&error, &Expect::default()),
            Some(Failure::new(
                "isError",
                "the server answered with an error (-32002: Resource not found); a test that expects one says isError: true"
            ))
        );
        assert_eq!(unexpected_error(&error, &Expect { is_error: Some(true), ..Expect::default() }), None);
        // isError: false says it already, in judge's words.
        assert_eq!(unexpected_error(&error, &Expect { is_error: Some(false), ..Expect::default() }), None);
        let tool_error = answered("tools/call", json!({"content": [], "isError": true}), &[], None);
        assert_eq!(unexpected_error(&tool_error, &Expect::default()), None);
    }
}
