//! The commands the UI invokes. Each is a few lines over one core call; errors cross IPC as
//! `{code, message}` so the UI never matches on error strings.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use sonde_core::connection::RequestError;
use sonde_core::hub::{HubError, Stage};
use sonde_core::log::{Entry, Filter, Page};
use sonde_core::mcp::{tool_call as tool_call_request, ServerDescription};
use sonde_core::schema::{check_output, OutputCheck};
use sonde_core::servers::{import_mcp_servers, new_id, Imported, SavedServer};
use sonde_core::wire::ErrorObject;
use tauri::ipc::Channel;
use tauri::State;
use ts_rs::TS;

use crate::questions::ServerQuestion;
use crate::state::AppState;

/// An error as the UI sees it.
#[derive(Debug, Serialize, TS)]
pub struct ErrorDto {
    /// A stable code: `not_found`, `bad_input`, `io`, `spawn_failed`, `connect_failed`,
    /// `rpc_error`, `timeout`, `cancelled`, `server_gone`, `too_large`, `protocol`.
    pub code: String,
    pub message: String,
}

type Result<T> = std::result::Result<T, ErrorDto>;

fn err(code: &str, message: impl ToString) -> ErrorDto {
    ErrorDto { code: code.into(), message: message.to_string() }
}

impl From<HubError> for ErrorDto {
    fn from(e: HubError) -> Self {
        let code = match &e {
            HubError::NoSuchConnection(_) => "not_found",
            HubError::Spawn { .. } => "spawn_failed",
            HubError::Handshake { .. } => "connect_failed",
            HubError::Request(r) => match r {
                RequestError::Rpc { .. } => "rpc_error",
                RequestError::Timeout { .. } => "timeout",
                RequestError::Cancelled { .. } => "cancelled",
                RequestError::Gone(_) => "server_gone",
                RequestError::Http { .. } => "http_status",
                RequestError::Unreachable { .. } => "unreachable",
                RequestError::TooLarge { .. } => "too_large",
                RequestError::Protocol(_) => "protocol",
            },
        };
        err(code, e)
    }
}

impl From<RequestError> for ErrorDto {
    fn from(e: RequestError) -> Self {
        HubError::Request(e).into()
    }
}

#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    pub version: String,
    pub session_log: String,
}

#[tauri::command]
pub fn app_info(state: State<'_, AppState>) -> AppInfo {
    AppInfo {
        version: env!("CARGO_PKG_VERSION").into(),
        session_log: state.hub.log().path().display().to_string(),
    }
}

#[tauri::command]
pub fn servers_list(state: State<'_, AppState>) -> Vec<SavedServer> {
    state.servers.lock().unwrap().clone()
}

/// Adds a server (empty id) or replaces the one with its id; returns the new list.
#[tauri::command]
pub fn servers_save(state: State<'_, AppState>, mut server: SavedServer) -> Result<Vec<SavedServer>> {
    server.to_config().map_err(|e| err("bad_input", e))?;
    if server.name.trim().is_empty() {
        return Err(err("bad_input", "a server needs a name"));
    }
    let mut servers = state.servers.lock().unwrap();
    match servers.iter_mut().find(|s| s.id == server.id && !server.id.is_empty()) {
        Some(slot) => *slot = server,
        None => {
            server.id = new_id();
            servers.push(server);
        }
    }
    state.store.save(&servers).map_err(|e| err("io", e))?;
    Ok(servers.clone())
}

#[tauri::command]
pub fn servers_delete(state: State<'_, AppState>, id: String) -> Result<Vec<SavedServer>> {
    let mut servers = state.servers.lock().unwrap();
    servers.retain(|s| s.id != id);
    state.store.save(&servers).map_err(|e| err("io", e))?;
    Ok(servers.clone())
}

/// Imports `mcpServers` JSON, saves what it can, and says what it skipped.
#[tauri::command]
pub fn servers_import(state: State<'_, AppState>, text: String) -> Result<Imported> {
    let imported = import_mcp_servers(&text).map_err(|e| err("bad_input", e))?;
    let mut servers = state.servers.lock().unwrap();
    servers.extend(imported.servers.iter().cloned());
    state.store.save(&servers).map_err(|e| err("io", e))?;
    Ok(imported)
}

/// An opening connection's stage, as it moves on.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ConnectStage {
    #[ts(type = "number")]
    pub id: u64,
    pub stage: Stage,
}

/// A live connection as the sidebar shows it.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionDto {
    #[ts(type = "number")]
    pub id: u64,
    pub server_id: String,
    pub name: String,
    pub pid: Option<u32>,
    pub server: ServerDescription,
}

async fn describe(state: &AppState, id: u64, saved: &SavedServer) -> Result<ConnectionDto> {
    let session = state.hub.session(id)?;
    let pid = session.conn.pid().await;
    Ok(ConnectionDto {
        id,
        server_id: saved.id.clone(),
        name: saved.name.clone(),
        pid,
        server: session.server,
    })
}

/// Starts a saved server and opens it in its era.
#[tauri::command]
pub async fn connect(
    state: State<'_, AppState>,
    server_id: String,
    stages: Channel<ConnectStage>,
) -> Result<ConnectionDto> {
    let saved = state.servers.lock().unwrap().iter().find(|s| s.id == server_id).cloned();
    let saved = saved.ok_or_else(|| err("not_found", format!("no saved server {server_id}")))?;
    let config = saved.to_config().map_err(|e| err("bad_input", e))?;
    let report = move |id: u64, stage: Stage| {
        let _ = stages.send(ConnectStage { id, stage });
    };
    let id = state
        .hub
        .connect_reporting(&config, &report)
        .await
        .inspect_err(|e| tracing::warn!(server = %saved.name, "connect failed: {e}"))?;
    tracing::info!(server = %saved.name, connection = id, "connected");
    state.live.lock().unwrap().insert(id, saved.clone());
    describe(&state, id, &saved).await
}

/// Stops a connection's server with the full shutdown ladder; returns how it ended.
#[tauri::command]
pub async fn disconnect(state: State<'_, AppState>, id: u64) -> Result<Option<String>> {
    let exit = state.hub.disconnect(id).await?;
    tracing::info!(connection = id, "stopped: {exit:?}");
    state.live.lock().unwrap().remove(&id);
    Ok(exit.map(|e| format!("server {}", e.describe())))
}

#[tauri::command]
pub async fn connections(state: State<'_, AppState>) -> Result<Vec<ConnectionDto>> {
    let live: Vec<(u64, SavedServer)> =
        state.live.lock().unwrap().iter().map(|(k, v)| (*k, v.clone())).collect();
    let mut out = Vec::new();
    for (id, saved) in live {
        out.push(describe(&state, id, &saved).await?);
    }
    out.sort_by_key(|c| c.id);
    Ok(out)
}

#[tauri::command]
pub async fn tools_list(state: State<'_, AppState>, id: u64) -> Result<Vec<Value>> {
    Ok(state.hub.list_tools(id).await?)
}

/// A tool result and the outputSchema verdict for it.
#[derive(Debug, Serialize, TS)]
pub struct CallOutcome {
    #[ts(type = "unknown")]
    pub result: Value,
    pub check: Option<OutputCheck>,
}

/// Calls `tool` (its definition, for the outputSchema check); progress updates arrive on
/// `progress` as they come.
#[tauri::command]
pub async fn tool_call(
    state: State<'_, AppState>,
    id: u64,
    tool: Value,
    arguments: Option<Value>,
    progress: Channel<Value>,
) -> Result<CallOutcome> {
    let session = state.hub.session(id)?;
    let name =
        tool.get("name").and_then(Value::as_str).ok_or_else(|| err("bad_input", "the tool has no name"))?;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut request = tool_call_request(name, arguments);
    request.progress = Some(tx);
    let forward = tauri::async_runtime::spawn(async move {
        while let Some(update) = rx.recv().await {
            let _ = progress.send(update);
        }
    });
    let result = session.request_with(request).await;
    // Every sender is gone with the request, so the forwarder ends once it has passed on the
    // last updates (which may have come just before the result); the bound is a safety net.
    let _ = tokio::time::timeout(Duration::from_secs(1), forward).await;
    let result = result?;
    let check = check_output(&tool, &result);
    Ok(CallOutcome { result, check })
}

/// Cancels every request in flight on a connection (the UI runs one call at a time).
#[tauri::command]
pub fn request_cancel(state: State<'_, AppState>, id: u64) -> Result<()> {
    state.hub.connection(id)?.cancel_all("cancelled by the user");
    Ok(())
}

/// A page of the session log: entries with seq in `from..to` matching `filter`, at most `limit`.
#[tauri::command]
pub fn log_page(
    state: State<'_, AppState>,
    from: u64,
    to: u64,
    filter: String,
    limit: usize,
) -> Result<Page> {
    let filter = Filter::parse(&filter).map_err(|e| err("bad_input", e))?;
    state.hub.log().page(from, to, &filter, limit.min(5000)).map_err(|e| err("io", e))
}

/// Entries as they are appended, in batches at most ~60 times a second.
#[derive(Debug, Clone, Serialize, TS)]
pub struct LogBatch {
    pub entries: Vec<Entry>,
    /// Entries that went by too fast to stream; the UI reads them by page.
    #[ts(type = "number")]
    pub skipped: u64,
}

/// Streams new entries on `channel`; returns the number of entries already in the log (the
/// UI pages those). An entry may arrive both ways; the UI keeps one per seq.
#[tauri::command]
pub fn log_follow(state: State<'_, AppState>, channel: Channel<LogBatch>) -> u64 {
    let mut live = state.hub.log().subscribe();
    let existing = state.hub.log().len();
    tauri::async_runtime::spawn(async move {
        let mut batch = LogBatch { entries: Vec::new(), skipped: 0 };
        let mut beat = tokio::time::interval(Duration::from_millis(16));
        loop {
            tokio::select! {
                // Both branches are cancellation-safe: a broadcast receive loses nothing when
                // dropped unfinished, and a missed tick is simply the next one.
                entry = live.recv() => match entry {
                    Ok(entry) => batch.entries.push((*entry).clone()),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => batch.skipped += n,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                },
                _ = beat.tick() => {
                    if !batch.entries.is_empty() || batch.skipped > 0 {
                        let full = std::mem::replace(&mut batch, LogBatch { entries: Vec::new(), skipped: 0 });
                        if channel.send(full).is_err() {
                            return;
                        }
                    }
                }
            }
        }
    });
    existing
}

/// Writes the session (or the entries matching `filter`) as JSONL to `path`, with the values
/// of every saved server's environment variables redacted. Returns how many entries.
#[tauri::command]
pub fn log_export(state: State<'_, AppState>, path: String, filter: String) -> Result<u64> {
    let filter = Filter::parse(&filter).map_err(|e| err("bad_input", e))?;
    let secrets: Vec<String> = state
        .servers
        .lock()
        .unwrap()
        .iter()
        .flat_map(|s| s.env.iter().map(|v| v.value.clone()))
        .filter(|v| v.len() >= 4)
        .collect();
    sonde_core::log::export_jsonl(state.hub.log(), &filter, &secrets, std::path::Path::new(&path))
        .map_err(|e| err("io", e))
}

/// Shows server requests that need a person (elicitation, sampling) on this channel.
#[tauri::command]
pub fn server_requests_follow(state: State<'_, AppState>, on_question: Channel<ServerQuestion>) {
    state.questions.show_on(on_question);
}

/// The person's answer to a server request: a result, or a refusal in words.
#[tauri::command]
pub fn server_request_answer(
    state: State<'_, AppState>,
    qid: u64,
    result: Option<serde_json::Value>,
    refusal: Option<String>,
) -> Result<()> {
    let reply = match (result, refusal) {
        (_, Some(words)) => Err(ErrorObject { code: -1, message: words, data: None }),
        (Some(result), None) => Ok(result),
        (None, None) => return Err(err("bad_input", "an answer needs a result or a refusal")),
    };
    if state.questions.answer(qid, reply) {
        Ok(())
    } else {
        Err(err(
            "not_found",
            format!("question {qid} is no longer waiting (answered, or its connection closed)"),
        ))
    }
}

/// How the core reads a filter expression: its chips, or what is wrong with it. The UI shows
/// this and never parses the grammar itself.
#[tauri::command]
pub fn log_filter(filter: String) -> sonde_core::log::FilterView {
    sonde_core::log::FilterView::of(&filter)
}
