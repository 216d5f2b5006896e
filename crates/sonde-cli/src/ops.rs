//! What each server command does once connected, in either era.

use serde_json::{json, Value};
use sonde_core::connection::{Request, RequestError};
use sonde_core::era::Era;
use sonde_core::log::{Direction, Follow, Followed, Kind};
use sonde_core::mcp::Session;

use crate::exit::{FAILED, OK, TOOL_ERROR};
use crate::print;

pub enum Op {
    /// A paginated list method and the key of its items.
    List(&'static str, &'static str),
    Call {
        tool: String,
        arguments: Option<Value>,
        /// Ask for a task where the tool makes one optional.
        task: bool,
    },
    Tasks(crate::tasks::TaskOp),
    Info,
    /// One request whose result is printed as it is.
    Simple(&'static str, Value),
    Listen(ListenSpec),
    /// Many steps on one connection (`shell`), run by `run` rather than here.
    Shell,
}

pub struct ListenSpec {
    pub tools: bool,
    pub prompts: bool,
    pub resources: bool,
    pub uris: Vec<String>,
    pub count: Option<usize>,
}

impl ListenSpec {
    /// Whether a notification is of a kind this listen asked for; with no kind named, every
    /// change is. The acknowledgement always is.
    fn asks_for(&self, message: &Value) -> bool {
        if !(self.tools || self.prompts || self.resources || !self.uris.is_empty()) {
            return true;
        }
        match message["method"].as_str().unwrap_or_default() {
            "notifications/tools/list_changed" => self.tools,
            "notifications/prompts/list_changed" => self.prompts,
            "notifications/resources/list_changed" => self.resources,
            "notifications/resources/updated" => {
                message["params"]["uri"].as_str().is_some_and(|uri| self.uris.iter().any(|u| u == uri))
            }
            "notifications/subscriptions/acknowledged" => true,
            _ => false,
        }
    }
}

pub async fn run(session: &Session, op: Op, json: bool) -> Result<i32, RequestError> {
    match op {
        Op::List(method, key) => {
            let items = session.list_all(method, key).await?;
            if json {
                print::json_line(&json!({ key: items }));
            } else {
                print::items(key, &items);
            }
            Ok(OK)
        }
        Op::Call { tool, arguments, task } => call(session, &tool, arguments, task, json).await,
        Op::Tasks(op) => crate::tasks::run(session, op, json).await,
        Op::Info => {
            if json {
                print::json_line(&serde_json::to_value(&session.server).expect("serializes"));
            } else {
                print::server(&session.server);
            }
            Ok(OK)
        }
        Op::Simple(method, params) => {
            let result = session.request(method, Some(params)).await?;
            if json {
                print::json_line(&result);
            } else {
                print::result(method, &result);
            }
            Ok(OK)
        }
        Op::Listen(spec) => listen(session, spec, json).await,
        Op::Shell => Err(RequestError::Protocol("the shell is not a single operation".into())),
    }
}

async fn call(
    session: &Session,
    tool: &str,
    arguments: Option<Value>,
    task: bool,
    json: bool,
) -> Result<i32, RequestError> {
    let called = session
        .call_tool_checked(tool, None, arguments, task, |p| eprintln!("sonde: {}", print::progress(&p)))
        .await;
    let mut outcome = match called {
        Ok(outcome) => outcome,
        Err(e @ RequestError::Rpc { .. }) => {
            // The server's error first, then what it does have, when the name was the mistake.
            eprintln!("sonde: {e}");
            if let Ok(tools) = session.list_all("tools/list", "tools").await {
                let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
                if !names.contains(&tool) {
                    eprintln!("sonde: {}", crate::suggest::words(tool, &names, "tool"));
                    if let Some(note) = undeclared(&session.conn.client_capabilities()) {
                        eprintln!("sonde: {note}");
                    }
                }
            }
            return Ok(FAILED);
        }
        Err(e) => return Err(e),
    };
    // A call that became a task prints like any other once the task has its result.
    if let Some(task) = outcome.task.take() {
        match crate::tasks::follow(session, tool, task).await {
            Ok(done) => outcome = done,
            Err(code) => return Ok(code),
        }
    }
    if json {
        print::json_line(&outcome.result);
    } else {
        print::call_result(&outcome.result);
    }
    for problem in &outcome.problems {
        eprintln!("sonde: the result is malformed: {problem}");
    }
    if let Some(check) = outcome.check {
        eprintln!("sonde: {}", check.describe());
    }
    if outcome.result.get("isError") == Some(&Value::Bool(true)) {
        eprintln!("sonde: {tool} returned a result with isError: true");
        return Ok(TOOL_ERROR);
    }
    Ok(OK)
}

/// Prints notifications until `count` arrived, the server ends the subscription, or the user
/// interrupts. The notifications are read from the live wire log, which already holds them.
async fn listen(session: &Session, spec: ListenSpec, json: bool) -> Result<i32, RequestError> {
    let live = session.conn.log().follow();
    let conn = session.conn.id();
    let listen_id = match session.era() {
        Era::Modern => {
            let params = json!({"notifications": {
                "toolsListChanged": spec.tools,
                "promptsListChanged": spec.prompts,
                "resourcesListChanged": spec.resources,
                "resourceSubscriptions": spec.uris,
            }});
            let call = session.start(Request::new("subscriptions/listen", Some(params)))?;
            Some(call)
        }
        Era::Legacy => {
            for uri in &spec.uris {
                session.request("resources/subscribe", Some(json!({ "uri": uri }))).await?;
            }
            None
        }
    };
    let wanted_id = listen_id.as_ref().map(|c| serde_json::to_value(&c.id).expect("an id serializes"));
    let call_id = listen_id.as_ref().map(|c| c.id.clone());
    eprintln!("sonde: listening; Ctrl-C stops");
    let outcome = listen_id.map(|c| Box::pin(c.outcome()) as Outcome);
    let code = print_notifications(live, conn, wanted_id, outcome, &spec, json).await;
    // Ending it ourselves: cancel the listen request (2026-07-28 on stdio), or unsubscribe.
    match call_id {
        Some(id) => session.conn.cancel(&id, "sonde listen is done"),
        None => {
            for uri in &spec.uris {
                session.request("resources/unsubscribe", Some(json!({ "uri": uri }))).await?;
            }
        }
    }
    code
}

type Outcome = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value, RequestError>> + Send>>;

async fn print_notifications(
    mut live: Follow,
    conn: u64,
    wanted_id: Option<Value>,
    mut outcome: Option<Outcome>,
    spec: &ListenSpec,
    json: bool,
) -> Result<i32, RequestError> {
    let count = spec.count;
    let mut seen = 0usize;
    loop {
        let entry = tokio::select! {
            // Both are cancellation-safe: `next` loses no entry when dropped unfinished, and
            // the pinned outcome is polled again where it stopped.
            followed = live.next() => match followed {
                Some(Followed::Entry(entry)) => entry,
                Some(Followed::Skipped(n)) => {
                    skipped(n);
                    continue;
                }
                None => return Ok(OK),
            },
            ended = async { outcome.as_mut().expect("guarded").await }, if outcome.is_some() => {
                // Everything the server sent before ending is already in the log: print it.
                while let Some(followed) = live.try_next() {
                    match followed {
                        Followed::Entry(entry) => {
                            if let Some(message) = subscription_message(&entry, conn, wanted_id.as_ref(), spec) {
                                show(&message, json);
                            }
                        }
                        Followed::Skipped(n) => skipped(n),
                    }
                }
                match ended {
                    Ok(_) => eprintln!("sonde: the server ended the subscription"),
                    Err(RequestError::Cancelled { reason, .. }) => eprintln!("sonde: subscription ended: {reason}"),
                    Err(e) => return Err(e),
                }
                return Ok(OK);
            }
        };
        let Some(message) = subscription_message(&entry, conn, wanted_id.as_ref(), spec) else { continue };
        if !show(&message, json) {
            continue;
        }
        seen += 1;
        if count.is_some_and(|n| seen >= n) {
            return Ok(OK);
        }
    }
}

fn skipped(n: u64) {
    eprintln!("sonde: {n} log entries went by too fast to print; see sonde log");
}

/// The change notification an entry carries, if it belongs to this subscription: on this
/// connection, received, a notification other than progress and log messages, and (in
/// 2026-07-28) tagged with the listen request's id, JSON type included, and of a kind `spec`
/// asked for (a server may send changes nobody asked about; 2025-11-25 servers always do). The
/// server ending the subscription with `notifications/cancelled` is handled by the request itself.
fn subscription_message(
    entry: &sonde_core::log::Entry,
    conn: u64,
    wanted: Option<&Value>,
    spec: &ListenSpec,
) -> Option<Value> {
    if entry.conn != conn || entry.kind != Kind::Message || entry.dir != Direction::In {
        return None;
    }
    let message: Value = serde_json::from_str(entry.text.as_deref()?).ok()?;
    let method = message["method"].as_str()?;
    let skipped = ["notifications/progress", "notifications/message", "notifications/cancelled"];
    if !method.starts_with("notifications/") || skipped.contains(&method) || !spec.asks_for(&message) {
        return None;
    }
    if let Some(wanted) = wanted {
        if message.pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId") != Some(wanted) {
            return None;
        }
    }
    Some(message)
}

/// Prints a subscription message: the acknowledgement on stderr, a change on stdout. True for
/// a change, which counts towards `--count`.
fn show(message: &Value, json: bool) -> bool {
    if message["method"] == "notifications/subscriptions/acknowledged" {
        eprintln!("sonde: acknowledged: {}", message["params"]["notifications"]);
        return false;
    }
    if json {
        print::json_line(message);
    } else {
        let params = message.get("params").map(Value::to_string).unwrap_or_default();
        outln!("{} {params}", message["method"].as_str().unwrap_or_default());
    }
    true
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
