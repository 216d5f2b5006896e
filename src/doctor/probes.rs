//! The checks that ask the server something and read the answer: ping, a method it cannot have,
//! params it must refuse, its tools' schemas, its listings, and, when a tool is named, whether
//! cancelling a call of it is honoured.
//!
//! Owns: what each probe sends and its verdict. Refuses: effects the user did not ask for (no
//! tool is called unless named) and reading the log for what the rules found (`evidence` does).

use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::{Check, CheckStatus, Checks};
use crate::connection::{Request, RequestError};
use crate::log::Followed;
use crate::session::listing::ListKind;
use crate::session::Session;
use crate::wire::RequestId;

/// The probes that only ask, in order. Once the server has gone, the rest are not run: one
/// cause is one `fail`, the checks after it `skip`s that name it, not a `fail` each for the same
/// death. Returns that cause, when there was one.
pub async fn ask(session: &Session, checks: &mut Checks<'_>) -> Option<String> {
    let mut died: Option<String> = None;
    for id in ["ping", "unknown-method", "invalid-params", "lists"] {
        if died.is_none() {
            died = gone(session, checks).await;
        }
        if let Some(ended) = &died {
            let skipped: &[&str] = if id == "lists" { &["tool-schemas", "listings"] } else { &[id] };
            for skipped in skipped {
                let detail = format!("not run: {ended}");
                checks.push(Check::new(skipped, CheckStatus::Skip, detail, None, session.conn.id()));
            }
            continue;
        }
        match id {
            "ping" => checks.push(ping(session, checks.timeout).await),
            "unknown-method" => checks.push(unknown_method(session, checks.timeout).await),
            "invalid-params" => checks.push(invalid_params(session, checks.timeout).await),
            _ => {
                let (schemas, listings, apps, tools) = lists(session).await;
                checks.push(schemas);
                checks.push(listings);
                if let Some(apps) = apps {
                    checks.push(apps);
                }
                let conn = session.conn.id();
                if let Some(tools) = tools.as_ref().filter(|t| !t.is_empty()) {
                    checks.push(super::tools::names(tools, conn));
                    checks.push(super::tools::context_cost(tools, checks.token_budget, conn));
                }
                if let Some((host, server)) = checks.host.clone() {
                    checks.push(super::hosts::tools(
                        host,
                        tools.as_deref().unwrap_or_default(),
                        &server,
                        conn,
                    ));
                    if !checks.beside.is_empty() {
                        let tools = tools.as_deref().unwrap_or_default();
                        checks.push(super::hosts::shadowing(host, (&server, tools), checks.beside, conn));
                    }
                    checks.push(super::hosts::shows(host, &session.server.capabilities, conn));
                    checks.push(super::hosts::version(host, &session.server.protocol_version, conn));
                }
                if let Some(skills) = super::skills::skills(session).await {
                    checks.push(skills);
                }
            }
        }
    }
    died
}

/// Why the connection can be asked nothing more, once it has ended: the check it ended at and
/// how (`the server ended during ping: server exited with code 1`).
async fn gone(session: &Session, checks: &Checks<'_>) -> Option<String> {
    let mut status = session.conn.status();
    // A probe that failed may have failed because the server died: its exit is seen a moment
    // after the pipe closes, so it is waited for a little before the next probe is sent.
    if checks.report.checks.last().is_some_and(|c| c.status == CheckStatus::Fail) {
        let _ = tokio::time::timeout(Duration::from_secs(1), status.wait_for(|s| s.is_ended())).await;
    }
    let ended = status.borrow().clone();
    let crate::connection::Status::Ended { reason, .. } = ended else { return None };
    let at = checks.report.checks.last().map(|c| c.id.as_str()).unwrap_or("the opening");
    Some(format!("the server ended during {at}: {reason}"))
}

/// A probe's request, sent with the era's envelope and the check-up's probe timeout: its id and
/// outcome.
async fn probe(
    session: &Session,
    method: &str,
    params: Option<Value>,
    timeout: Duration,
) -> (Option<RequestId>, Result<Value, RequestError>) {
    let request = Request { timeout: Some(timeout), ..Request::new(method, params) };
    match session.start(request) {
        Ok(call) => {
            let id = call.id.clone();
            (Some(id), call.outcome().await)
        }
        Err(e) => (None, Err(e)),
    }
}

/// The seq of the reply to `id` (or of the request, when none came).
fn seq_of(session: &Session, id: Option<&RequestId>) -> Option<u64> {
    super::evidence::reply_seq(session.conn.log(), session.conn.id(), id?)
}

fn check(
    session: &Session,
    id: &str,
    status: CheckStatus,
    detail: String,
    request: Option<&RequestId>,
) -> Check {
    Check::new(id, status, detail, seq_of(session, request), session.conn.id())
}

/// 2025-11-25's `ping`; 2026-07-28 has none, and its lightest request every server must
/// answer is `server/discover`.
async fn ping(session: &Session, timeout: Duration) -> Check {
    if liveness(session) == "server/discover" {
        let (id, outcome) = probe(session, "server/discover", None, timeout).await;
        let (status, detail) = match outcome {
            Ok(_) => (
                CheckStatus::Pass,
                "2026-07-28 has no ping; server/discover, its liveness check, was answered".to_owned(),
            ),
            Err(e) => {
                (CheckStatus::Fail, format!("server/discover, 2026-07-28's liveness check: {}", words(&e)))
            }
        };
        return check(session, "ping", status, detail, id.as_ref());
    }
    let (id, outcome) = probe(session, "ping", None, timeout).await;
    let (status, detail) = match outcome {
        Ok(result) if result.as_object().is_some_and(|o| o.keys().all(|k| k == "_meta")) => {
            (CheckStatus::Pass, "ping was answered with an empty result".to_owned())
        }
        Ok(result) => (
            CheckStatus::Warn,
            format!("ping was answered with {}, where the result must be empty", cut(&result.to_string())),
        ),
        Err(e) => (CheckStatus::Fail, format!("{}; every server must answer ping", words(&e))),
    };
    check(session, "ping", status, detail, id.as_ref())
}

/// The request that tells a server is there: `ping`, or `server/discover` in 2026-07-28.
fn liveness(session: &Session) -> &'static str {
    match session.era() {
        crate::era::Era::Legacy => "ping",
        crate::era::Era::Modern => "server/discover",
    }
}

/// An error in one line of at most 160 characters, its whitespace folded: a server's message
/// may hold a whole validation report.
fn words(e: &RequestError) -> String {
    cut(&e.to_string())
}

fn cut(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut shown: String = flat.chars().take(160).collect();
    if shown.len() < flat.len() {
        shown.push('…');
    }
    shown
}

/// Who answers a request that way, when it is an SDK and not the server's own code: the
/// TypeScript SDK answers params that fail its request schema with -32603 and Zod's issues as
/// the message.
fn whose(code: i64, message: &str) -> &'static str {
    let zod =
        message.trim_start().starts_with('[') && message.contains("\"code\"") && message.contains("\"path\"");
    if code == -32603 && zod {
        "; this is the TypeScript SDK's own answer when a request fails its schema (Zod's issues as \
         the message), not your code's: clients see an internal error for their mistake; it is the SDK's \
         to fix"
    } else {
        ""
    }
}

/// The verdict on a request the server must refuse with error `want` (`-32601 (method not
/// found)`): that code passes, another code or a result warns, and silence fails, since a client
/// waits for the refusal forever.
fn refused(sent: &str, outcome: Result<Value, RequestError>, code: i64, name: &str) -> (CheckStatus, String) {
    let due = format!("{code} ({name})");
    match outcome {
        Err(RequestError::Rpc { error, .. }) if error.code == code => {
            (CheckStatus::Pass, format!("{sent} was answered {due}"))
        }
        Err(RequestError::Rpc { error, .. }) => (
            CheckStatus::Warn,
            format!(
                "{sent} was answered {} ({}), where JSON-RPC says {due}{}",
                error.code,
                cut(&error.message),
                whose(error.code, &error.message),
            ),
        ),
        Ok(result) => (
            CheckStatus::Warn,
            format!("{sent} was answered with a result ({}), where {due} is due", cut(&result.to_string())),
        ),
        Err(e @ RequestError::Timeout { .. }) => {
            (CheckStatus::Fail, format!("{e}: a client that sends it waits forever; answer {due}"))
        }
        Err(e) => (CheckStatus::Fail, words(&e)),
    }
}

/// A method no server has must be answered `-32601`.
async fn unknown_method(session: &Session, timeout: Duration) -> Check {
    let method = "sonde/no-such-method";
    let (id, outcome) = probe(session, method, None, timeout).await;
    let (status, detail) = refused(method, outcome, -32601, "method not found");
    check(session, "unknown-method", status, detail, id.as_ref())
}

/// A request without the params its method requires must be refused with `-32602`. The request
/// is one that can have no effect: a call with no tool named, a read with no URI.
async fn invalid_params(session: &Session, timeout: Duration) -> Check {
    let caps = &session.server.capabilities;
    let (method, params, missing) = if caps.get("tools").is_some() {
        ("tools/call", json!({"arguments": {}}), "name")
    } else if caps.get("prompts").is_some() {
        ("prompts/get", json!({}), "name")
    } else if caps.get("resources").is_some() {
        ("resources/read", json!({}), "uri")
    } else {
        let detail = "the server declares no tools, prompts or resources to send invalid params to";
        return Check::new("invalid-params", CheckStatus::Skip, detail, None, session.conn.id());
    };
    let (id, outcome) = probe(session, method, Some(params), timeout).await;
    let (status, detail) =
        refused(&format!("{method} without `{missing}`"), outcome, -32602, "invalid params");
    check(session, "invalid-params", status, detail, id.as_ref())
}

/// Every listing the server declares, followed to its end (a cursor loop is the rules' to
/// name), and every tool's schemas read as JSON Schema.
async fn lists(session: &Session) -> (Check, Check, Option<Check>, Option<Vec<Value>>) {
    let conn = session.conn.id();
    let caps = &session.server.capabilities;
    let mut listed = Vec::new();
    let mut failed = Vec::new();
    let mut doubts = Vec::new();
    let mut tools = None;
    let mut resources = Vec::new();
    for kind in ListKind::ALL {
        let key = kind.key();
        if caps.get(kind.capability()).is_none() {
            continue;
        }
        match session.list_all(kind).await {
            Ok(listing) => {
                listed.push(format!("{key}: {}", listing.items.len()));
                if key == "tools" {
                    tools = Some(listing.items);
                } else if kind == ListKind::Resources {
                    resources = listing.items;
                }
            }
            // Declaring resources without answering for templates: a judgement, not a fault
            // of the protocol's letter, and the usual cause is known.
            Err(RequestError::Rpc { error, .. }) if kind == ListKind::Templates && error.code == -32601 => {
                doubts.push(
                    "resources/templates/list is not answered (-32601) though `resources` is declared: \
                     clients that list templates with the resources get an error; answer it, with an empty \
                     list when there are none (in the Python SDK's low-level Server, register \
                     list_resource_templates)"
                        .to_owned(),
                )
            }
            Err(e) => failed.push(words(&e)),
        }
    }
    let listings = match (listed.is_empty(), failed.is_empty()) {
        (true, true) => {
            Check::new("listings", CheckStatus::Skip, "the server declares nothing to list", None, conn)
        }
        (_, true) if doubts.is_empty() => Check::new(
            "listings",
            CheckStatus::Pass,
            format!("listed to the end: {}", listed.join(", ")),
            None,
            conn,
        ),
        (_, true) => Check::new(
            "listings",
            CheckStatus::Warn,
            format!("listed to the end: {}; {}", listed.join(", "), doubts.join("; ")),
            None,
            conn,
        ),
        _ => Check::new("listings", CheckStatus::Fail, failed.join("; "), None, conn),
    };
    let apps = app_resources(session, tools.as_deref().unwrap_or_default(), &resources).await;
    let schemas = match &tools {
        None => Check::new("tool-schemas", CheckStatus::Skip, "no tools were listed", None, conn),
        Some(tools) => tool_schemas(tools, conn),
    };
    (schemas, listings, apps, tools)
}

/// Every MCP App the server declares (a tool's `_meta.ui.resourceUri`, a listed resource of the
/// app MIME type), read and checked as the window would draw it: it resolves, its MIME type has
/// the profile, its HTML parses, its CSP and permissions are ones the extension knows. `None`
/// for a server with no app.
async fn app_resources(session: &Session, tools: &[Value], resources: &[Value]) -> Option<Check> {
    let mut uris: Vec<String> =
        tools.iter().filter_map(|t| crate::apps::tool::app_link(t).and_then(|l| l.resource_uri)).collect();
    for r in resources {
        let mime = r.get("mimeType").and_then(Value::as_str).unwrap_or_default();
        if crate::apps::resource::is_app_mime(mime) {
            uris.extend(r.get("uri").and_then(Value::as_str).map(str::to_owned));
        }
    }
    uris.sort();
    uris.dedup();
    if uris.is_empty() {
        return None;
    }
    let conn = session.conn.id();
    let (mut worst, mut said) = (CheckStatus::Pass, Vec::new());
    for uri in &uris {
        let listed = resources.iter().find(|r| r.get("uri").and_then(Value::as_str) == Some(uri));
        let app = session.read_app(uri, listed).await;
        for finding in &app.findings {
            let status = match finding.severity {
                crate::diagnose::Severity::Error => CheckStatus::Fail,
                _ => CheckStatus::Warn,
            };
            worst = worst.max(status);
            said.push(format!("{uri}: {}", finding.detail));
        }
        if app.findings.is_empty() {
            let csp = match app.csp == crate::apps::Csp::default() {
                true => "declares no CSP domains (no network)".to_owned(),
                false => "declares its CSP domains".to_owned(),
            };
            said.push(format!("{uri}: readable, {}, parses, {csp}", crate::apps::MIME));
        }
    }
    Some(Check::new("apps", worst, said.join("; "), None, conn))
}

/// Every tool's `inputSchema` (and `outputSchema`) is a JSON Schema of an object.
fn tool_schemas(tools: &[Value], conn: u64) -> Check {
    let mut problems = Vec::new();
    for tool in tools {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
        for (field, required) in [("inputSchema", true), ("outputSchema", false)] {
            match tool.get(field) {
                None if required => problems.push(format!("{name}: no {field}")),
                None => {}
                Some(schema) => {
                    if let Some(why) = schema_problem(schema) {
                        problems.push(format!("{name}: {field} {why}"));
                    }
                }
            }
        }
    }
    if problems.is_empty() {
        let listed = if tools.len() == 1 {
            "the 1 listed tool".to_owned()
        } else {
            format!("the {} listed tools", tools.len())
        };
        let detail =
            format!("every inputSchema and outputSchema of {listed} is a valid JSON Schema of an object");
        return Check::new("tool-schemas", CheckStatus::Pass, detail, None, conn);
    }
    let shown: Vec<&str> = problems.iter().take(5).map(String::as_str).collect();
    let more = problems.len().saturating_sub(shown.len());
    let detail = format!(
        "{}{}: clients cannot build arguments from a broken schema",
        shown.join("; "),
        if more > 0 { format!(" (and {more} more)") } else { String::new() }
    );
    Check::new("tool-schemas", CheckStatus::Fail, detail, None, conn)
}

/// Why a tool schema cannot be used, if it cannot: not JSON Schema, or not of an object.
pub fn schema_problem(schema: &Value) -> Option<String> {
    if let Err(e) = jsonschema::meta::validate(schema) {
        return Some(format!("is not a valid JSON Schema: {e}"));
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "object" => None,
        Some(other) => Some(format!("has type {other}, where MCP requires \"object\"")),
        None => Some("has no `type`, where MCP requires \"type\": \"object\"".to_owned()),
    }
}

/// How long a call runs before it is cancelled, when it sends no progress first.
const RUN_BEFORE_CANCEL: Duration = Duration::from_millis(500);
/// How long a late reply to the cancelled call is watched for.
const WATCH_AFTER_CANCEL: Duration = Duration::from_secs(2);

/// Calls `tool`, cancels the call once it is running (its first progress, or half a second),
/// and watches for the reply a server should no longer send; then checks it still answers.
pub async fn cancellation(session: &Session, tool: &str, arguments: Value, timeout: Duration) -> Check {
    let conn = session.conn.id();
    let (progress, mut updates) = mpsc::unbounded_channel();
    let request = Request { progress: Some(progress), ..crate::session::tool_call(tool, Some(arguments)) };
    let call = match session.start(request) {
        Ok(call) => call,
        Err(e) => return Check::new("cancellation", CheckStatus::Fail, e.to_string(), None, conn),
    };
    let id = call.id.clone();
    let mut outcome = Box::pin(call.outcome());
    let ended_first = |done: Result<Value, RequestError>| {
        let how = match done {
            Ok(_) => "returned".to_owned(),
            Err(e) => e.to_string(),
        };
        let detail =
            format!("{tool} {how} before it could be cancelled (nothing was cancelled); name a slower call");
        check(session, "cancellation", CheckStatus::Skip, detail, Some(&id))
    };
    // The call's own end comes first when both are ready; a progress channel that closed (the
    // call is over) is no progress.
    tokio::select! {
        biased;
        done = &mut outcome => return ended_first(done),
        Some(_) = updates.recv() => {}
        _ = tokio::time::sleep(RUN_BEFORE_CANCEL) => {}
    }
    let mut follow = session.conn.log().follow();
    session.conn.cancel(&id, "sonde doctor: checking that a cancelled call stops");
    // Only a call the cancel ended was cancelled while running; one that ended otherwise (a
    // reply, a malformed one, the server gone) in the same instant was not.
    match outcome.await {
        Err(RequestError::Cancelled { .. }) => {}
        done => return ended_first(done),
    }
    let late = tokio::time::timeout(WATCH_AFTER_CANCEL, async {
        while let Some(followed) = follow.next().await {
            if let Followed::Entry(e, _) = followed {
                let answers =
                    e.summary.as_ref().is_some_and(|s| s.id.as_deref() == Some(id.to_string().as_str()));
                if e.conn == conn
                    && answers
                    && e.dir == crate::log::Direction::In
                    && e.summary.as_ref().is_some_and(|s| s.kind == "result" || s.kind == "error")
                {
                    return Some(e.seq);
                }
            }
        }
        None
    })
    .await
    .ok()
    .flatten();
    let still = probe(session, liveness(session), None, timeout).await.1.is_ok();
    let cancel_seq = seq_of(session, Some(&id));
    match (late, still) {
        (_, false) => Check::new("cancellation", CheckStatus::Fail, format!("after {tool} was cancelled the server no longer answered {}", liveness(session)), cancel_seq, conn),
        (Some(seq), true) => Check::new(
            "cancellation",
            CheckStatus::Warn,
            format!("{tool} was answered after it was cancelled: a receiver of notifications/cancelled should not reply; stop the work"),
            Some(seq),
            conn,
        ),
        (None, true) => Check::new(
            "cancellation",
            CheckStatus::Pass,
            format!("{tool} was cancelled while running: no reply came in the next {} s, and {} is still answered", WATCH_AFTER_CANCEL.as_secs(), liveness(session)),
            cancel_seq,
            conn,
        ),
    }
}
