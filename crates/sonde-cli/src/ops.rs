//! What each server command does once connected, in either era.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use sonde_core::{CompletionRef, ListKind, ListenEvent, ListenSpec, OutputCheck, RequestError, Session};

use crate::exit::{OK, PROTOCOL, TOOL_ERROR, USAGE};
use crate::{print, recording};

pub enum Op {
    /// A paginated list, every page.
    List(ListKind),
    Call {
        tool: String,
        /// The object `--args` gave, and the `key=value` words to set on it (with the tool's
        /// schema, once it is listed).
        given: Option<Value>,
        pairs: Vec<String>,
        /// Ask for a task where the tool makes one optional.
        task: bool,
        /// Call it even when the server does not list it.
        unlisted: bool,
    },
    Tasks(crate::tasks::TaskOp),
    Skills(crate::skills_cmd::SkillsOp),
    Info,
    /// `resources/read` of a URI.
    Read(String),
    /// `prompts/get` with string arguments.
    Prompt {
        name: String,
        arguments: BTreeMap<String, String>,
    },
    /// `completion/complete` of an argument, with the others as context.
    Complete {
        reference: CompletionRef,
        argument: String,
        value: String,
        context: BTreeMap<String, String>,
    },
    Listen(ListenSpec, Option<usize>),
    /// Many steps on one connection (`shell`), run by `run` rather than here.
    Shell,
    /// The interface as a snapshot, written to the file or printed.
    Snapshot(Option<std::path::PathBuf>),
    /// What changed from this snapshot to the server's interface now.
    Diff(Box<sonde_core::Snapshot>),
    /// The interface compared with the server's baseline (`target`'s), and with `accept` kept
    /// as its new one.
    Baseline {
        accept: bool,
        target: Option<Box<sonde_core::Target>>,
    },
    /// A recorded session's requests sent again, each answer compared with the recorded one
    /// (`unanswered`: how many recorded requests had no answer to compare with).
    Replay {
        recording: Box<sonde_core::RecordedRequests>,
        rules: Box<sonde_core::Rules>,
    },
    /// A load run: calls at a rate or by callers, measured and reported.
    Load(Box<crate::load_cmd::LoadOpts>),
    /// A suite of saved calls run as tests, reported as asked.
    Test {
        suite: Box<sonde_core::Suite>,
        /// Where its reports go.
        to: crate::test_cmd::Outputs,
    },
}

pub async fn run(session: &Session, op: Op, json: bool) -> Result<i32, RequestError> {
    match op {
        Op::Snapshot(out) => {
            let snapshot = sonde_core::Snapshot::take(session).await?;
            if let Err(e) = crate::diff_cmd::write(&snapshot, out.as_deref()) {
                errln!("sonde: cannot write the snapshot: {e}");
                return Ok(crate::exit::FAILED);
            }
            Ok(OK)
        }
        Op::Test { suite, to } => crate::test_cmd::run(session, &suite, &to).await,
        Op::Load(opts) => Ok(crate::load_cmd::run(std::slice::from_ref(session), *opts).await),
        Op::Replay { recording, rules } => {
            Ok(crate::replay_cmd::run(session, &recording, &rules, json).await)
        }
        Op::Diff(old) => {
            let now = sonde_core::Snapshot::take(session).await?;
            Ok(crate::diff_cmd::compared(&old, &now, json))
        }
        Op::Baseline { accept, target } => {
            let now = sonde_core::Snapshot::take(session).await?;
            let target = target.expect("the run sets the baseline's server");
            Ok(crate::diff_cmd::against_baseline(&target, &now, accept, json))
        }
        Op::List(kind) => {
            let key = kind.key();
            let listing = session.list_all(kind).await?;
            if json {
                let mut out = json!({ key: listing.items });
                if let Some(why) = &listing.stopped {
                    out["stopped"] = json!(why);
                }
                recording::document(session, &out);
            } else {
                print::items(key, &listing.items);
            }
            // A list cut short is said where a person looks, not only in the session log.
            if let Some(why) = listing.stopped {
                errln!("sonde: {why}");
            }
            Ok(OK)
        }
        Op::Call { tool, given, pairs, task, unlisted } => {
            call(session, &tool, Words { given, pairs }, task, unlisted, json).await
        }
        Op::Tasks(op) => crate::tasks::run(session, op, json).await,
        Op::Skills(op) => crate::skills_cmd::run(session, op, json).await,
        Op::Info => {
            if json {
                recording::document(session, &serde_json::to_value(&session.server).expect("serializes"));
            } else {
                print::server(&session.server);
            }
            Ok(OK)
        }
        Op::Read(uri) => {
            let read = session.read_resource(&uri).await?;
            if json {
                recording::document(session, &read.result);
            } else {
                print::result("resources/read", &read.result);
            }
            for problem in &read.problems {
                errln!("sonde: the result is malformed: {problem}");
            }
            Ok(OK)
        }
        Op::Prompt { name, arguments } => {
            let got = session.get_prompt(&name, &arguments).await?;
            if json {
                recording::document(session, &got.result);
            } else {
                print::result("prompts/get", &got.result);
            }
            for problem in &got.problems {
                errln!("sonde: the result is malformed: {problem}");
            }
            Ok(OK)
        }
        Op::Complete { reference, argument, value, context } => {
            let completion = session.complete(&reference, &argument, &value, &context).await?;
            if json {
                recording::document(session, &json!({ "completion": completion }));
            } else {
                for value in &completion.values {
                    outln!("{value}");
                }
            }
            Ok(OK)
        }
        Op::Listen(spec, count) => listen(session, spec, count, json).await,
        Op::Shell => Err(RequestError::Protocol("the shell is not a single operation".into())),
    }
}

/// A call's arguments as typed, set into one object once the tool's schema is known.
struct Words {
    given: Option<Value>,
    pairs: Vec<String>,
}

/// Calls `tool`: first looked up in the listing (followed to its end), so a name the server does
/// not list is not called, whatever the server's SDK would answer (a JSON-RPC error, or an
/// `isError` result); `unlisted` calls it all the same. Exit 3 for an `isError` result, 4 for a
/// result that breaks the protocol (malformed, or `structuredContent` against the
/// `outputSchema`).
async fn call(
    session: &Session,
    tool: &str,
    words: Words,
    task: bool,
    unlisted: bool,
    json: bool,
) -> Result<i32, RequestError> {
    // A server that cannot list its tools may still answer a call: it is made unchecked.
    let (definition, not_listed) = match crate::suggest::find_tool(session, tool).await {
        Ok(Ok(definition)) => (Some(definition), None),
        Ok(Err(words)) => (None, Some(words)),
        Err(_) => (None, None),
    };
    if let (Some(words), false) = (not_listed, unlisted) {
        errln!("sonde: {words}");
        errln!("sonde: {tool} was not called (--unlisted calls a tool the server does not list)");
        if json {
            print::json_error(sonde_core::ErrorCode::NotFound, USAGE, &words);
        }
        if let Some(note) = undeclared(&session.conn.client_capabilities()) {
            errln!("sonde: {note}");
        }
        return Ok(USAGE);
    }
    let schema = definition.as_ref().map(|d| &d["inputSchema"]);
    let arguments = match crate::arguments::with_words(words.given, &words.pairs, schema) {
        Ok(arguments) => arguments,
        Err(e) => {
            errln!("sonde: {e}");
            return Ok(USAGE);
        }
    };
    let called = session
        .call_tool_checked(tool, definition.as_ref(), arguments, task, |p| {
            noteln!("sonde: {}", print::progress(&p))
        })
        .await;
    let mut outcome = match called {
        Ok(outcome) => outcome,
        // The server's JSON-RPC error: said (and, with --json, printed) where every failure is.
        Err(e) => return Err(e),
    };
    // A call that became a task prints like any other once the task has its result.
    if let Some(task) = outcome.task.take() {
        match crate::tasks::follow(session, tool, task, outcome.call.take()).await {
            Ok(done) => outcome = done,
            Err(code) => return Ok(code),
        }
    }
    if json {
        recording::document(session, &outcome.result);
    } else {
        print::call_result(&outcome.result);
    }
    let mut codes = vec![OK];
    for problem in &outcome.problems {
        errln!("sonde: the result is malformed: {problem}");
        codes.push(PROTOCOL);
    }
    if let Some(check) = outcome.check {
        if check == OutputCheck::Valid {
            noteln!("sonde: {}", check.describe());
        } else {
            errln!("sonde: {}", check.describe());
            codes.push(PROTOCOL);
        }
    }
    if outcome.result.get("isError") == Some(&Value::Bool(true)) {
        errln!("sonde: {tool} returned a result with isError: true");
        codes.push(TOOL_ERROR);
    }
    Ok(crate::exit::worst(codes))
}

/// Prints the subscription's changes until `count` arrived, the server ends it, or the user
/// interrupts; then stops it.
async fn listen(
    session: &Session,
    spec: ListenSpec,
    count: Option<usize>,
    json: bool,
) -> Result<i32, RequestError> {
    let mut listening = session.listen(spec).await?;
    errln!("sonde: listening; Ctrl-C stops");
    let mut seen = 0usize;
    while let Some(event) = listening.next().await {
        match event {
            ListenEvent::Acknowledged(granted) => errln!("sonde: acknowledged: {granted}"),
            ListenEvent::Skipped(n) => {
                errln!("sonde: {n} log entries went by too fast to print; see sonde log")
            }
            ListenEvent::Ended(reason) => {
                errln!("sonde: {reason}");
                return Ok(OK);
            }
            ListenEvent::Failed(e) => return Err(e),
            ListenEvent::Change(notice) => {
                // A notification sent without params is printed without them, never as null.
                let params = (!notice.params.is_null()).then_some(&notice.params);
                if json {
                    let mut line = json!({"jsonrpc": "2.0", "method": notice.method});
                    if let Some(params) = params {
                        line["params"] = params.clone();
                    }
                    print::json_line(&line);
                } else {
                    match params {
                        Some(params) => outln!("{} {params}", notice.method),
                        None => outln!("{}", notice.method),
                    }
                }
                seen += 1;
                if count.is_some_and(|n| seen >= n) {
                    break;
                }
            }
        }
    }
    // What was asked for arrived: a subscription the server will not end is said, and the run
    // stays a good one (the connection's end ends it anyway).
    if let Err(e) = listening.stop().await {
        errln!("sonde: the subscription could not be ended: {e}; closing the connection ends it");
    }
    Ok(OK)
}

/// Some servers list more tools to clients that can answer them (roots, sampling,
/// elicitation): which of those Sonde did not declare here, and the flag that would.
fn undeclared(capabilities: &Value) -> Option<String> {
    let flags = [("roots", "--root DIR"), ("sampling", "--sample-reply TEXT"), ("elicitation", "--elicit …")];
    let missing: Vec<String> = flags
        .iter()
        .filter(|(capability, _)| capabilities.get(capability).is_none())
        .map(|(capability, flag)| format!("{capability} ({flag})"))
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "some servers list more tools to clients that declare {}; Sonde did not declare them in this run",
            missing.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_names_the_capabilities_not_declared_and_their_flags() {
        let note = undeclared(&json!({"roots": {}})).unwrap();
        assert_eq!(
            note,
            "some servers list more tools to clients that declare sampling (--sample-reply TEXT), \
             elicitation (--elicit …); Sonde did not declare them in this run"
        );
        assert_eq!(undeclared(&json!({"roots": {}, "sampling": {}, "elicitation": {}})), None);
    }
}
