//! What each server command does once connected, in either era.

use serde_json::{json, Value};
use sonde_core::connection::{Request, RequestError};
use sonde_core::era::Era;
use sonde_core::log::{Direction, Kind};
use sonde_core::mcp::{tool_call, Session};
use sonde_core::schema::check_output;
use tokio::sync::mpsc;

use crate::exit::{OK, TOOL_ERROR};
use crate::print;

pub enum Op {
    /// A paginated list method and the key of its items.
    List(&'static str, &'static str),
    Call {
        tool: String,
        arguments: Option<Value>,
    },
    Info,
    /// One request whose result is printed as it is.
    Simple(&'static str, Value),
    Listen(ListenSpec),
}

pub struct ListenSpec {
    pub tools: bool,
    pub prompts: bool,
    pub resources: bool,
    pub uris: Vec<String>,
    pub count: Option<usize>,
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
        Op::Call { tool, arguments } => call(session, &tool, arguments, json).await,
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
    }
}

async fn call(
    session: &Session,
    tool: &str,
    arguments: Option<Value>,
    json: bool,
) -> Result<i32, RequestError> {
    let (progress_tx, mut progress) = mpsc::unbounded_channel();
    let mut request = tool_call(tool, arguments);
    request.progress = Some(progress_tx);
    let printer = tokio::spawn(async move {
        while let Some(p) = progress.recv().await {
            eprintln!("sonde: {}", print::progress(&p));
        }
    });
    let result = session.request_with(request).await;
    printer.abort();
    let result = result?;
    if json {
        print::json_line(&result);
    } else {
        print::call_result(&result);
    }
    // The verdict needs the tool's outputSchema, which only tools/list carries; an error
    // result need not conform, so it is not checked.
    if result.get("isError") != Some(&Value::Bool(true)) {
        let tools = session.list_tools().await.unwrap_or_default();
        if let Some(check) = tools.iter().find(|t| t["name"] == tool).and_then(|t| check_output(t, &result)) {
            eprintln!("sonde: {}", check.describe());
        }
    }
    if result.get("isError") == Some(&Value::Bool(true)) {
        eprintln!("sonde: {tool} returned a result with isError: true");
        return Ok(TOOL_ERROR);
    }
    Ok(OK)
}

/// Prints notifications until `count` arrived, the server ends the subscription, or the user
/// interrupts. The notifications are read from the live wire log, which already holds them.
async fn listen(session: &Session, spec: ListenSpec, json: bool) -> Result<i32, RequestError> {
    let live = session.conn.log().subscribe();
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
    let code = print_notifications(live, conn, wanted_id, outcome, spec.count, json).await;
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
    mut live: tokio::sync::broadcast::Receiver<std::sync::Arc<sonde_core::log::Entry>>,
    conn: u64,
    wanted_id: Option<Value>,
    mut outcome: Option<Outcome>,
    count: Option<usize>,
    json: bool,
) -> Result<i32, RequestError> {
    let mut seen = 0usize;
    loop {
        let entry = tokio::select! {
            entry = live.recv() => match entry {
                Ok(entry) => entry,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    eprintln!("sonde: {n} log entries went by too fast to print; see sonde log");
                    continue;
                }
                Err(_) => return Ok(OK),
            },
            ended = async { outcome.as_mut().expect("guarded").await }, if outcome.is_some() => {
                // Everything the server sent before ending is already in the log: print it.
                while let Ok(entry) = live.try_recv() {
                    if let Some(message) = subscription_message(&entry, conn, wanted_id.as_ref()) {
                        show(&message, json);
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
        let Some(message) = subscription_message(&entry, conn, wanted_id.as_ref()) else { continue };
        if !show(&message, json) {
            continue;
        }
        seen += 1;
        if count.is_some_and(|n| seen >= n) {
            return Ok(OK);
        }
    }
}

/// The change notification an entry carries, if it belongs to this subscription: on this
/// connection, received, a notification other than progress and log messages, and (in
/// 2026-07-28) tagged with the listen request's id, JSON type included. The server ending the
/// subscription with `notifications/cancelled` is handled by the request itself.
fn subscription_message(entry: &sonde_core::log::Entry, conn: u64, wanted: Option<&Value>) -> Option<Value> {
    if entry.conn != conn || entry.kind != Kind::Message || entry.dir != Direction::In {
        return None;
    }
    let message: Value = serde_json::from_str(entry.text.as_deref()?).ok()?;
    let method = message["method"].as_str()?;
    let skipped = ["notifications/progress", "notifications/message", "notifications/cancelled"];
    if !method.starts_with("notifications/") || skipped.contains(&method) {
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
        println!("{} {params}", message["method"].as_str().unwrap_or_default());
    }
    true
}
