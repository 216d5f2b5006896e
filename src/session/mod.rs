//! `Session`: MCP over one connection whose era is decided, and the opening exchanges that
//! decide nothing themselves.
//!
//! Owns: what Sonde says about itself (`clientInfo`, or the recorded client a replay's responder
//! stands for; the capabilities its responder supports, less `roots.listChanged` in 2026-07-28,
//! plus the tasks extension), `initialize` then `notifications/initialized` (2025-11-25) and
//! `server/discover` with what its reply says to the era classifier (2026-07-28), the server's
//! description (an icon kept only as a data raster image); on every 2026-07-28 request the
//! `_meta` envelope, shared by a session's clones, which carries the log level asked for (in
//! 2025-11-25 that is `logging/setLevel`, sent only to a server that declares `logging`);
//! `resultType` (`complete`, `task` for a call, and `input_required` answered through the
//! responder and retried with a new id, at most `MAX_ROUNDS` rounds, each a note in the log);
//! and tool calls: asking for a task in 2025-11-25, recognising the task a call became, progress
//! handed to the caller, and the result read (`CallOutcome`: its shape's problems, embedded
//! resources, the `outputSchema` verdict).
//! Refuses: choosing the era or racing a probe (`negotiate` does), following tasks
//! (`tasks` does), listing and following pages (`listing` does), and transport
//! concerns (`connection` does). An unknown `resultType` is an error, never a guess.
//!
//! Its features, the MCP surface beyond tools, are written here once for both front ends, a
//! file each: resources and their templates, prompts, completion, the server's log level,
//! ping, the stream of server notifications, subscriptions to changes, listings with caps, and
//! tasks followed to their end. Each makes its requests in either era and reads their results
//! into values a front end shows as they are (what a content item is, what a notification
//! says); none presents anything.

pub mod completion;
pub mod listen;
pub mod listing;
pub mod notices;
pub mod ping;
pub mod prompts;
pub mod resources;
pub mod skills;
pub mod tasks;
pub mod template;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

use crate::connection::{Call, Connection, Request, RequestError};
use crate::era::{self, Era, ProbeOutcome};
use crate::log_level::{LogLevel, LOG_LEVEL_META};
use crate::output_check::{check_output, OutputCheck};
use crate::shape::task::{ask_for_task, created_task, server_runs_tool_tasks, Task, TASKS_EXTENSION};
use crate::sync::Lock;
use crate::wire::RequestId;

/// Who Sonde is, as sent in `clientInfo`.
pub fn client_info() -> Value {
    json!({"name": "sonde", "title": "Sonde", "version": env!("CARGO_PKG_VERSION")})
}

/// The `clientInfo` a connection presents: Sonde's, unless its responder stands for another
/// client (a replay's recorded one).
fn presented(conn: &Connection) -> Value {
    conn.client_info().unwrap_or_else(client_info)
}

/// The capabilities a 2026-07-28 request declares: the responder's, less `roots.listChanged`,
/// which that era does not have (it has no roots notification), plus the tasks extension: Sonde
/// follows tasks itself (`session::tasks`), so every request may be given one.
fn modern_capabilities(conn: &Connection) -> Value {
    let mut caps = conn.client_capabilities();
    if let Some(roots) = caps.get_mut("roots").and_then(Value::as_object_mut) {
        roots.remove("listChanged");
    }
    if let Some(caps) = caps.as_object_mut() {
        let extensions = caps.entry("extensions").or_insert_with(|| json!({}));
        if let Some(extensions) = extensions.as_object_mut() {
            extensions.insert(TASKS_EXTENSION.into(), json!({}));
        }
    }
    caps
}

/// What the server said about itself, and how its protocol version was decided.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerDescription {
    pub protocol_version: String,
    pub era: Era,
    /// The evidence for the version, in words: "server/discover",
    /// "server/discover answered -32601; initialize", "cached verdict; server/discover".
    pub decided_by: String,
    pub server_info: Value,
    pub capabilities: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// 2026-07-28 discover results are cacheable: how long, and for whom.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<String>,
    /// The serverInfo icons that may be shown (`shape::tool::shown_icon`), and how many others
    /// it named.
    pub icons: Vec<String>,
    pub icons_hidden: u32,
    /// The Skills extension, where the capabilities declare it (`crate::skills::declared`).
    pub skills: Option<crate::skills::SkillsDeclared>,
}

/// The icons of a serverInfo a window may show, and how many it may not.
fn icons_of(server_info: &Value) -> (Vec<String>, u32) {
    let all: Vec<&Value> =
        server_info.get("icons").and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default();
    let shown: Vec<String> = all
        .iter()
        .filter_map(|i| i.get("src").and_then(Value::as_str))
        .filter(|src| crate::shape::shown_icon(src))
        .map(str::to_owned)
        .collect();
    let hidden = u32::try_from(all.len() - shown.len()).unwrap_or(u32::MAX);
    (shown, hidden)
}

/// How many `input_required` rounds one request may take before Sonde gives up.
pub const MAX_ROUNDS: usize = 8;

/// A connection whose era is decided: requests carry what that era needs.
#[derive(Clone)]
pub struct Session {
    pub conn: Connection,
    pub server: ServerDescription,
    /// The `_meta` of every request, in the modern era. Shared by the session's clones, so a
    /// log level set on one is carried by the requests of all.
    meta: Option<Arc<Mutex<Value>>>,
    /// The level of server log messages asked for, if any (see [`Session::set_log_level`]).
    log_level: Arc<Mutex<Option<LogLevel>>>,
}

impl Session {
    /// Wraps an opened connection. `log_level` asks for server log messages: in 2026-07-28 it
    /// rides in every request's `_meta`; in 2025-11-25 the caller sends `logging/setLevel`.
    pub fn new(conn: Connection, server: ServerDescription, log_level: Option<LogLevel>) -> Session {
        let meta = (server.era == Era::Modern).then(|| {
            let mut meta =
                era::request_meta(&server.protocol_version, &modern_capabilities(&conn), &presented(&conn));
            if let Some(level) = log_level {
                meta[LOG_LEVEL_META] = json!(level);
            }
            Arc::new(Mutex::new(meta))
        });
        conn.settled(server.era, server.capabilities.clone());
        Session { conn, server, meta, log_level: Arc::new(Mutex::new(log_level)) }
    }

    /// `params` with the `_meta` every request carries in the modern era (unchanged in the
    /// old one), merged from the shared one under its lock rather than copied out first.
    fn with_era_meta(&self, params: Option<Value>) -> Option<Value> {
        match &self.meta {
            Some(meta) => Some(era::with_meta(params, &meta.locked())),
            None => params,
        }
    }

    /// The log level asked of the server so far, if any.
    pub fn log_level(&self) -> Option<LogLevel> {
        *self.log_level.locked()
    }

    /// Asks for server log messages at `level` and above from now on. In 2025-11-25 that is
    /// `logging/setLevel`, for the whole session; in 2026-07-28 every later request carries the
    /// level in its `_meta` (there is no request to send). A server that does not declare
    /// `logging` is not asked, and the error says so.
    pub async fn set_log_level(&self, level: LogLevel) -> Result<(), RequestError> {
        match &self.meta {
            Some(meta) => {
                meta.locked()[LOG_LEVEL_META] = json!(level);
            }
            None => {
                if self.server.capabilities.get("logging").is_none() {
                    return Err(RequestError::Protocol(
                        "the server does not declare the logging capability; Sonde did not send logging/setLevel"
                            .into(),
                    ));
                }
                self.request("logging/setLevel", Some(json!({ "level": level }))).await?;
            }
        }
        *self.log_level.locked() = Some(level);
        Ok(())
    }

    pub fn era(&self) -> Era {
        self.server.era
    }

    /// Sends a request with the era's envelope and returns its complete result.
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, RequestError> {
        self.request_with(Request::new(method, params)).await
    }

    /// Like [`Session::request`] for a prepared request (a progress listener, a timeout).
    ///
    /// In 2026-07-28 an `input_required` result is answered through the responder and retried
    /// with a new id, the original params, `inputResponses` and the `requestState` exactly as
    /// received (none if none was sent), at most [`MAX_ROUNDS`] times; each round is a note in
    /// the log.
    pub async fn request_with(&self, request: Request) -> Result<Value, RequestError> {
        self.request_headed(request).await.map(|(result, _)| result)
    }

    /// Like [`Session::request_with`], also returning the id of the request that began it (its
    /// first round), which every later round's entry names as the operation it continues.
    pub async fn request_headed(&self, request: Request) -> Result<(Value, RequestId), RequestError> {
        let method = request.method.clone();
        let original = request.params.clone();
        let mut next = request;
        let mut head: Option<RequestId> = None;
        for round in 1..=MAX_ROUNDS + 1 {
            next.params = self.with_era_meta(next.params.take());
            if head.is_some() {
                next.part_of = head.clone();
            }
            // The params go with the request: a later round builds its own from `original`.
            let params = next.params.take();
            let call = self.conn.start(Request { params, ..next.clone() })?;
            let id = head.get_or_insert_with(|| call.id.clone()).clone();
            let result = call.outcome().await?;
            match result.get("resultType").and_then(Value::as_str) {
                None | Some("complete") => return Ok((result, id)),
                // The tasks extension Sonde declares: the caller reads the task it created.
                Some("task") if method == "tools/call" && self.meta.is_some() => return Ok((result, id)),
                Some("input_required") if self.meta.is_some() => {
                    if round > MAX_ROUNDS {
                        return Err(RequestError::Protocol(format!(
                            "{method} still asked for input after {MAX_ROUNDS} rounds; Sonde stopped"
                        )));
                    }
                    next.params = Some(self.answer_round(&method, round, original.clone(), &result).await?);
                }
                Some(other) => {
                    return Err(RequestError::Protocol(format!(
                        "{method} answered an unknown resultType {other:?}"
                    )))
                }
            }
        }
        unreachable!("the loop returns by its last round")
    }

    /// Builds the retry's params for one `input_required` round.
    async fn answer_round(
        &self,
        method: &str,
        round: usize,
        params: Option<Value>,
        result: &Value,
    ) -> Result<Value, RequestError> {
        let mut params = match params {
            Some(Value::Object(o)) => o,
            _ => serde_json::Map::new(),
        };
        let mut responses = serde_json::Map::new();
        let mut asked = Vec::new();
        for (key, input) in result.get("inputRequests").and_then(Value::as_object).into_iter().flatten() {
            let input_method = input.get("method").and_then(Value::as_str).unwrap_or_default();
            let answer = self.conn.responder().answer(input_method, input.get("params")).resolve().await;
            let answer = answer.map_err(|e| {
                RequestError::Protocol(format!(
                    "{method} asked for {input_method} ({key}), which Sonde cannot answer: {}",
                    e.message
                ))
            })?;
            asked.push(format!("{input_method} ({key})"));
            responses.insert(key.clone(), answer);
        }
        if !responses.is_empty() {
            params.insert("inputResponses".into(), Value::Object(responses));
        }
        // Echoed exactly as received; never invented when the server sent none.
        if let Some(state) = result.get("requestState") {
            params.insert("requestState".into(), state.clone());
        }
        let what = if asked.is_empty() {
            "nothing asked".to_owned()
        } else {
            format!("answered {}", asked.join(", "))
        };
        let note = format!("{method} needs input (round {round}): {what}; retrying with a new id");
        self.conn.log().append(
            crate::log::Entry::new(self.conn.id(), crate::log::Kind::Note, crate::log::Direction::Meta)
                .with_detail(note),
        );
        Ok(Value::Object(params))
    }

    /// Starts a request with the era's envelope without waiting (for `subscriptions/listen`,
    /// whose id is the subscription id). No `input_required` rounds.
    pub fn start(&self, mut request: Request) -> Result<Call, RequestError> {
        request.params = self.with_era_meta(request.params.take());
        self.conn.start(request)
    }

    /// Calls a tool and returns its `CallToolResult`, or, when a 2026-07-28 server made the
    /// call a task, its `CreateTaskResult` (`Hub::call_tool` follows it to the result).
    pub async fn call_tool(&self, name: &str, arguments: Option<Value>) -> Result<Value, RequestError> {
        self.request_with(tool_call(name, arguments)).await
    }
}

/// A `tools/call` request, ready for a progress listener or a timeout.
pub fn tool_call(name: &str, arguments: Option<Value>) -> Request {
    let mut params = json!({ "name": name });
    if let Some(args) = arguments {
        params["arguments"] = args;
    }
    Request::new("tools/call", Some(params))
}

/// A tool result, what is wrong with its shape, and the outputSchema verdict for it.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallOutcome {
    pub result: Value,
    /// What keeps the result from being read as the protocol says (`content` that is not an
    /// array, a block without its text), in words; empty when nothing does.
    pub problems: Vec<String>,
    /// No verdict when the tool declares no `outputSchema`, or the result is an error result.
    pub check: Option<OutputCheck>,
    /// The task the call became (`result` is then its `CreateTaskResult`, and the tool's result
    /// comes when the task is followed to its end).
    pub task: Option<Task>,
    /// Each embedded resource of the result's `content`, read by kind (decoded, pretty).
    pub embedded: Vec<crate::shape::content::EmbeddedView>,
    /// `structuredContent` only repeats a text block of `content` (the same JSON): a front end
    /// shows it once, as the CLI does ([`crate::shape::structured_in_text`]).
    pub structured_in_text: bool,
    /// The id of the `tools/call` that made the task, so polling it is recorded as part of
    /// the same operation; never sent to a front end.
    #[serde(skip)]
    #[cfg_attr(feature = "bindings", specta(skip))]
    pub call: Option<RequestId>,
}

impl CallOutcome {
    /// A tool's result with what is wrong with its shape, its embedded resources read, and the
    /// outputSchema verdict when there is one.
    pub fn of(result: Value, check: Option<OutputCheck>) -> CallOutcome {
        let problems = crate::shape::result_problems(&result);
        let embedded = crate::shape::content::embedded_views(&result);
        let structured_in_text = crate::shape::structured_in_text(&result);
        CallOutcome { result, problems, check, task: None, embedded, structured_in_text, call: None }
    }
}

impl Session {
    /// Calls a tool, handing each progress update to `on_progress` as it comes, and checks the
    /// result against the tool's `outputSchema`. `definition` is the tool as `tools/list` gave
    /// it; without one, a result that is not an error is checked against the definition listed
    /// after the call (the schema only rides in `tools/list`).
    ///
    /// The call may become a task: in 2025-11-25 Sonde asks for one when the server runs tool
    /// tasks and the tool requires one, or makes one optional and `ask_task` is set; in
    /// 2026-07-28 the server decides. The outcome then carries the task, to follow with
    /// `Session::follow_task` (in `session::tasks`).
    pub async fn call_tool_checked(
        &self,
        name: &str,
        definition: Option<&Value>,
        arguments: Option<Value>,
        ask_task: bool,
        mut on_progress: impl FnMut(Value),
    ) -> Result<CallOutcome, RequestError> {
        let (tx, mut progress) = tokio::sync::mpsc::unbounded_channel();
        let mut request = tool_call(name, arguments);
        let as_task = self.asks_for_task(name, definition, ask_task).await?;
        if as_task {
            // No ttl: the server keeps the task as long as it chooses, and says how long.
            request.params.as_mut().expect("tool_call has params")["task"] = json!({});
        }
        request.progress = Some(tx);
        let call = self.request_headed(request);
        tokio::pin!(call);
        let (result, head) = loop {
            tokio::select! {
                // Both are cancellation-safe: an unfinished receive loses no update, and the
                // pinned call is polled again where it stopped.
                Some(update) = progress.recv() => on_progress(update),
                result = &mut call => break result?,
            }
        };
        // The connection passes on a progress update before the reply that follows it, so the
        // last updates are already waiting here.
        while let Ok(update) = progress.try_recv() {
            on_progress(update);
        }
        if let Some(task) = created_task(&result, self.era(), as_task) {
            let task = task.map_err(|why| RequestError::Protocol(format!("tools/call {name}: {why}")))?;
            // A CreateTaskResult, not the tool's result: nothing to read in it.
            return Ok(CallOutcome {
                result,
                problems: Vec::new(),
                check: None,
                task: Some(task),
                embedded: Vec::new(),
                structured_in_text: false,
                call: Some(head),
            });
        }
        Ok(self.checked_outcome(name, definition, result).await)
    }

    /// Whether a 2025-11-25 call of `name` goes as a task; the tool's definition is listed
    /// when the caller has none and the server runs tool tasks at all.
    async fn asks_for_task(
        &self,
        name: &str,
        definition: Option<&Value>,
        ask: bool,
    ) -> Result<bool, RequestError> {
        if self.era() != Era::Legacy {
            return Ok(false);
        }
        let capabilities = &self.server.capabilities;
        let listed;
        let definition = match definition {
            Some(tool) => Some(tool),
            None if server_runs_tool_tasks(capabilities) => {
                listed = self.list_tools().await?;
                listed.items.iter().find(|t| t["name"] == name)
            }
            None => None,
        };
        ask_for_task(capabilities, definition, ask).map_err(RequestError::Protocol)
    }

    /// A tool's result with what is wrong with its shape and the outputSchema verdict (see
    /// [`Session::call_tool_checked`] for where the schema comes from).
    pub async fn checked_outcome(
        &self,
        name: &str,
        definition: Option<&Value>,
        result: Value,
    ) -> CallOutcome {
        let check = match definition {
            Some(tool) => check_output(tool, &result),
            None if result.get("isError") == Some(&Value::Bool(true)) => None,
            // A listing that fails leaves the result unchecked; the call itself succeeded.
            None => {
                let tools = self.list_tools().await.unwrap_or_default();
                tools.items.iter().find(|t| t["name"] == name).and_then(|t| check_output(t, &result))
            }
        };
        CallOutcome::of(result, check)
    }
}

/// The 2025-11-25 handshake: `initialize`, then `notifications/initialized` before anything else.
pub async fn initialize(conn: &Connection, decided_by: String) -> Result<ServerDescription, RequestError> {
    let reply = start_initialize(conn)?.outcome().await;
    initialized(conn, reply, decided_by)
}

/// Sends `initialize` without waiting for its reply (to race it against a late probe).
pub fn start_initialize(conn: &Connection) -> Result<Call, RequestError> {
    let version = conn.requested_version().unwrap_or_else(|| era::LEGACY_REVISION.to_owned());
    let params = json!({
        "protocolVersion": version,
        "capabilities": conn.client_capabilities(),
        "clientInfo": presented(conn),
    });
    conn.start(Request::new("initialize", Some(params)))
}

/// Reads the reply to `initialize` and ends the handshake with `notifications/initialized`.
pub fn initialized(
    conn: &Connection,
    reply: Result<Value, RequestError>,
    decided_by: String,
) -> Result<ServerDescription, RequestError> {
    let result = reply?;
    let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or_default().to_owned();
    if era::ProtocolVersion(version.clone()).era() != Some(Era::Legacy) {
        return Err(RequestError::Protocol(format!(
            "initialize answered protocolVersion {version:?}, which Sonde cannot speak after a handshake"
        )));
    }
    conn.notify("notifications/initialized", None)?;
    let server_info = result.get("serverInfo").cloned().unwrap_or(Value::Null);
    let (icons, icons_hidden) = icons_of(&server_info);
    let capabilities = result.get("capabilities").cloned().unwrap_or_else(|| json!({}));
    Ok(ServerDescription {
        protocol_version: version,
        era: Era::Legacy,
        decided_by,
        server_info,
        icons,
        icons_hidden,
        skills: crate::skills::declared(&capabilities),
        capabilities,
        instructions: result.get("instructions").and_then(Value::as_str).map(str::to_owned),
        ttl_ms: None,
        cache_scope: None,
    })
}

/// Sends `server/discover` at `version`. Returns the outcome the era classifier reads; a
/// probe is marked in the log and never cancelled.
pub async fn discover(conn: &Connection, version: &str, timeout: Duration, probe: bool) -> ProbeOutcome {
    let reply = match start_discover(conn, version, timeout, probe) {
        Ok(call) => call.outcome().await,
        Err(e) => Err(e),
    };
    probe_outcome(conn, reply).await
}

/// Sends `server/discover` at `version` without waiting for its reply, so a probe can be
/// raced against its deadline and still be heard after it.
pub fn start_discover(
    conn: &Connection,
    version: &str,
    timeout: Duration,
    probe: bool,
) -> Result<Call, RequestError> {
    let meta = era::request_meta(version, &modern_capabilities(conn), &presented(conn));
    let mut request = Request::new("server/discover", Some(era::with_meta(None, &meta)));
    request.timeout = Some(timeout);
    request.probe = probe;
    conn.start(request)
}

/// What the reply to a `server/discover` says to the era classifier.
pub async fn probe_outcome(conn: &Connection, reply: Result<Value, RequestError>) -> ProbeOutcome {
    match reply {
        Ok(result) => ProbeOutcome::Result(result),
        Err(RequestError::Rpc { error, .. }) => ProbeOutcome::Error(*error),
        Err(RequestError::Timeout { .. }) => ProbeOutcome::Timeout,
        Err(RequestError::Http { status, detail, .. }) => ProbeOutcome::Http { status, detail },
        Err(e @ RequestError::Unreachable { .. }) => ProbeOutcome::Unreachable(e.to_string()),
        Err(other) => {
            let how = conn.exit_info().await.map_or_else(|| other.to_string(), |exit| exit.describe());
            ProbeOutcome::Died(how)
        }
    }
}

/// The server's description from a `DiscoverResult`.
pub fn describe_discovered(result: &Value, version: &str, decided_by: String) -> ServerDescription {
    let server_info =
        result.pointer("/_meta/io.modelcontextprotocol~1serverInfo").cloned().unwrap_or(Value::Null);
    let (icons, icons_hidden) = icons_of(&server_info);
    let capabilities = result.get("capabilities").cloned().unwrap_or_else(|| json!({}));
    ServerDescription {
        protocol_version: version.to_owned(),
        era: Era::Modern,
        decided_by,
        server_info,
        icons,
        icons_hidden,
        skills: crate::skills::declared(&capabilities),
        capabilities,
        instructions: result.get("instructions").and_then(Value::as_str).map(str::to_owned),
        ttl_ms: result.get("ttlMs").and_then(Value::as_i64),
        cache_scope: result.get("cacheScope").and_then(Value::as_str).map(str::to_owned),
    }
}

#[cfg(test)]
mod icon_tests {
    use super::*;

    #[test]
    fn a_server_icon_is_shown_only_as_a_data_raster_image() {
        let info = serde_json::json!({"icons": [
            {"src": "https://tracker.example/pixel.png"}, {"src": "data:image/svg+xml;base64,PHN2Zz4="},
            {"src": "data:image/png;base64,AAAA"}, {"sizes": ["16x16"]}]});
        assert_eq!(icons_of(&info), (vec!["data:image/png;base64,AAAA".to_owned()], 3));
        assert_eq!(icons_of(&Value::Null), (Vec::new(), 0));
    }
}
