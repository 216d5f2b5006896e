//! The commands the UI invokes. Each is a few lines over one core call; errors cross IPC as
//! `{code, message}` (`error.rs`) so the UI never matches on error strings.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use sonde_core::{
    read_tools, CallOutcome, ConnectionLabel, Entry, ErrorCode, ErrorObject, ExportFormat, Filter,
    FilterView, Hub, Imported, LogBatch, MatchCount, OpenedSession, Outcome, Page, QuestionEvent, Rebuild,
    Recording, Responder, SavedServer, Session, SessionInfo, Stage, StateEvent, ToolView, WireLog,
    COUNT_BUDGET,
};
use tauri::ipc::Channel;
use tauri::State;

use crate::error::{err, io_error, Result};
use crate::state::{AppState, Lineages};

fn filter_of(expr: &str) -> Result<Filter> {
    Ok(Filter::parse(expr)?)
}

#[tauri::command]
#[specta::specta]
pub fn servers_list(state: State<'_, AppState>) -> Vec<SavedServer> {
    state.servers.list()
}

/// Adds a server (empty id) or replaces the one with its id; returns the new list.
#[tauri::command]
#[specta::specta]
pub fn servers_save(state: State<'_, AppState>, server: SavedServer) -> Result<Vec<SavedServer>> {
    Ok(state.servers.save(server)?)
}

#[tauri::command]
#[specta::specta]
pub fn servers_delete(state: State<'_, AppState>, id: String) -> Result<Vec<SavedServer>> {
    Ok(state.servers.delete(&id)?)
}

/// Imports `mcpServers` JSON, saves what it can, and says what it skipped. Every entry is
/// shown natively first, as a new server's first launch is: importing them is approving them.
#[tauri::command]
#[specta::specta]
pub async fn servers_import(state: State<'_, AppState>, text: String) -> Result<Imported> {
    let imported = sonde_core::import_mcp_servers(&text)?;
    if imported.servers.is_empty() {
        return Ok(imported);
    }
    crate::confirm::import(&state, &imported.servers).await?;
    state.servers.add_all(&imported.servers)?;
    Ok(imported)
}

/// Adds `name` to the saved server's environment with the value it has in Sonde's environment
/// (the fix for a withheld variable); the value never crosses to the UI. Returns the new list.
#[tauri::command]
#[specta::specta]
pub fn servers_add_env_from_host(
    state: State<'_, AppState>,
    server_id: String,
    name: String,
) -> Result<Vec<SavedServer>> {
    Ok(state.servers.add_env_from_host(&server_id, &name)?)
}

/// A connection's state as the window shows it: the core's event, and the saved server its
/// lineage was started from.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionState {
    pub event: StateEvent,
    /// The saved server, when the lineage was started from one.
    pub server_id: Option<String>,
    pub name: String,
}

/// Starts a saved server and opens it in its era; returns the connection's id. Its stages,
/// and everything after, arrive as states (`connections_follow`).
#[tauri::command]
#[specta::specta]
pub async fn connect(state: State<'_, AppState>, server_id: String) -> Result<u64> {
    let saved = state.servers.get(&server_id)?;
    // Restart on change watches from the first connection, ready or failed: the next save
    // tries again.
    let watched = crate::on_change_cmd::watch_of(&saved)?;
    let (first, opened) = start_saved_begun(&state, &saved).await?;
    if let (Some((watch, build)), Some(first)) = (watched, first) {
        state.watches.start(state.hub.clone(), first, watch, build);
    }
    opened
}

/// Starts the saved server `saved` as a new connection of its own lineage, named after it,
/// after the confirmation a new or changed launch asks for; returns the connection's id.
pub async fn start_saved(state: &AppState, saved: &SavedServer) -> Result<u64> {
    start_saved_begun(state, saved).await?.1
}

/// [`start_saved`], with the id of the connection it began, ready or failed (`None` when the
/// launch was not confirmed, or nothing could be begun).
async fn start_saved_begun(state: &AppState, saved: &SavedServer) -> Result<(Option<u64>, Result<u64>)> {
    crate::confirm::launch(state, saved).await?;
    let config = saved.to_config()?;
    let report = named_after(state, saved);
    let (begun, opened) = state.hub.connect_begun(&config, &report).await;
    match &opened {
        Ok(id) => tracing::info!(server = %saved.name, connection = id, "connected"),
        Err(e) => tracing::warn!(server = %saved.name, "connect failed: {e}"),
    }
    Ok((begun, opened.map_err(Into::into)))
}

/// Starts the saved server `saved` for one job, as [`start_saved`] does, runs `job` on its
/// session and stops the server after it, whatever the job gave (`Hub::one_job`); `answering`,
/// when given, answers the server's requests in the hub's stead. A server that could not be
/// stopped is a note in the log (the core's) and a warning in the app's trace.
pub async fn one_job_on_saved<T, Fut>(
    state: &AppState,
    saved: &SavedServer,
    answering: Option<Arc<dyn Responder>>,
    job: impl FnOnce(Session) -> Fut,
) -> Result<T>
where
    Fut: Future<Output = T>,
{
    crate::confirm::launch(state, saved).await?;
    let config = saved.to_config()?;
    let done = state.hub.one_job(&config, answering, &named_after(state, saved), job).await?;
    if let Err(e) = &done.stopped {
        tracing::warn!(server = %saved.name, "could not stop the server started for one job: {e}");
    }
    Ok(done.output)
}

/// The stage report that names a new lineage after the saved server it was started from: its
/// first stage names the lineage's id, and the saved server is known from then on.
fn named_after(state: &AppState, saved: &SavedServer) -> impl Fn(u64, Stage) + Send + Sync + 'static {
    let lineages = state.lineages.clone();
    let origin = (saved.id.clone(), saved.name.clone());
    move |id: u64, _: Stage| lineages.started(id, &origin)
}

/// Stops connection `id` and starts its server again as a new connection on the same lineage.
#[tauri::command]
#[specta::specta]
pub async fn restart(state: State<'_, AppState>, id: u64) -> Result<u64> {
    // A saved server's line restarts as the server is saved now (a variable added after a failed
    // start), asking first when its launch changed, as Connect does.
    let origin = state.hub.states().lineage_of(id).and_then(|lineage| state.lineages.origin(lineage));
    let Some(saved) = origin.and_then(|(server_id, _)| state.servers.get(&server_id).ok()) else {
        return Ok(state.hub.restart(id, &|_, _| {}).await?);
    };
    crate::confirm::launch(&state, &saved).await?;
    Ok(state.hub.restart_with(id, &saved.to_config()?, &|_, _| {}).await?)
}

/// Every lineage's newest state now; each change after it arrives on `channel` as it happens.
#[tauri::command]
#[specta::specta]
pub fn connections_follow(
    state: State<'_, AppState>,
    channel: Channel<ConnectionState>,
) -> Vec<ConnectionState> {
    let (hub, lineages) = (state.hub.clone(), state.lineages.clone());
    let feed = state.hub.states().feed().filter_map(move |event| Some(named(&hub, &lineages, event)));
    crate::feeds::forward(feed, channel)
}

/// Each watched line's latest restart on change now (`on_change_cmd.rs`); each step after it
/// arrives on `channel` as it happens.
#[tauri::command]
#[specta::specta]
pub fn rebuilds_follow(state: State<'_, AppState>, channel: Channel<Rebuild>) -> Vec<Rebuild> {
    crate::feeds::forward(state.hub.rebuilds().feed(), channel)
}

/// An event with the saved server of its lineage when Connect started it; otherwise the name its
/// config carries (a check-up's connections are the saved server's too), else its command or URL,
/// as the log names it.
fn named(hub: &Hub, lineages: &Lineages, event: StateEvent) -> ConnectionState {
    match lineages.origin(event.lineage) {
        Some((server_id, name)) => ConnectionState { event, server_id: Some(server_id), name },
        None => {
            let config = hub.states().config(event.conn);
            let name =
                config.map(|c| c.name.clone().unwrap_or_else(|| c.target.describe())).unwrap_or_default();
            ConnectionState { event, server_id: None, name }
        }
    }
}

/// Stops a connection's server with the full shutdown ladder; returns how it ended.
#[tauri::command]
#[specta::specta]
pub async fn disconnect(state: State<'_, AppState>, id: u64) -> Result<Option<String>> {
    // The person stopped the line (or removed its card): a change no longer starts it again.
    if let Some(lineage) = state.hub.states().lineage_of(id) {
        state.watches.stop(lineage);
    }
    // Its questions leave the window when the core reports it stopping (state.rs), whoever stops it.
    let exit = state.hub.disconnect(id).await?;
    tracing::info!(connection = id, "stopped: {exit:?}");
    Ok(exit.map(|e| format!("server {}", e.describe())))
}

/// Why sending a call of `tool` again (after its server died) needs the person's
/// confirmation, or `null` when its annotations say it is safe.
#[tauri::command]
#[specta::specta]
pub fn tool_resend_risk(tool: Value) -> Option<String> {
    sonde_core::resend_risk(&tool)
}

/// The server's tools, and why the listing stopped early if a cap stopped it.
#[derive(Debug, Serialize, specta::Type)]
pub struct ToolsListing {
    pub tools: Vec<ToolView>,
    pub stopped: Option<String>,
}

/// Every tool of the server, each read into the core's checked view (with its raw entry).
#[tauri::command]
#[specta::specta]
pub async fn tools_list(state: State<'_, AppState>, id: u64) -> Result<ToolsListing> {
    let listing = state.hub.list_tools(id).await?;
    Ok(ToolsListing { tools: read_tools(&listing.items), stopped: listing.stopped })
}

/// Calls `tool` (its definition, for the outputSchema check); progress updates arrive on
/// `progress` as they come. A call that becomes a task returns at once with the task, which the
/// core follows from then on (`tasks_follow`). The arguments are `args`: the generated TypeScript
/// function takes the same names, and `arguments` cannot name a parameter in strict-mode
/// JavaScript.
#[tauri::command]
#[specta::specta]
pub async fn tool_call(
    state: State<'_, AppState>,
    id: u64,
    tool: Value,
    args: Option<Value>,
    progress: Channel<Value>,
) -> Result<CallOutcome> {
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| err(ErrorCode::BadInput, "the tool has no name"))?;
    let on_progress = |update| {
        let _ = progress.send(update);
    };
    // Links a -32042 lists are shown with the error; the core awaits their completion.
    Ok(state.hub.call_tool_checked(id, name, Some(&tool), args, false, on_progress).await?)
}

/// Cancels every request in flight on a connection (the UI runs one call at a time).
#[tauri::command]
#[specta::specta]
pub fn request_cancel(state: State<'_, AppState>, id: u64) -> Result<()> {
    state.hub.connection(id)?.cancel_all("cancelled by the user");
    Ok(())
}

// The log commands read the window's own session (`session` null) or a past one it opened
// (`session_open`'s id): one code path for both. Those that read files run on the async
// runtime's threads (`async`), never on the main thread, which draws the window: opening a big
// session or counting a filter's matches must not freeze it.

/// A page of a session log: entries with seq in `from..to` matching `filter`, at most `limit`.
/// Each entry is a preview (`Entry::preview`): `log_entry` reads one whole.
#[tauri::command(async)]
#[specta::specta]
pub fn log_page(
    state: State<'_, AppState>,
    session: Option<u64>,
    from: u64,
    to: u64,
    filter: String,
    limit: usize,
) -> Result<Page> {
    let filter = filter_of(&filter)?;
    let mut page = state.sessions.log(session)?.page(from, to, &filter, limit.min(5000)).map_err(io_error)?;
    page.entries = previews(page.entries);
    Ok(page)
}

/// The entries at rows `from..from + limit` of a session log: by their position among the
/// entries its file holds, so that a gap (entries a failed write lost) is the one row of its
/// note. Each entry is a preview, as in `log_page`.
#[tauri::command(async)]
#[specta::specta]
pub fn log_rows(
    state: State<'_, AppState>,
    session: Option<u64>,
    from: u64,
    limit: usize,
) -> Result<Vec<Entry>> {
    let entries = state.sessions.log(session)?.row_page(from, limit.min(5000)).map_err(io_error)?;
    Ok(previews(entries))
}

/// The row of the entry with seq `seq` (see `log_rows`); null when the file does not hold it
/// (a failed write lost it).
#[tauri::command]
#[specta::specta]
pub fn log_row(state: State<'_, AppState>, session: Option<u64>, seq: u64) -> Result<Option<u64>> {
    Ok(state.sessions.log(session)?.row_of(seq))
}

/// One entry whole, however large its payload: what a window asks for when a person wants to
/// see more than the preview every page and batch carries.
#[tauri::command(async)]
#[specta::specta]
pub fn log_entry(state: State<'_, AppState>, session: Option<u64>, seq: u64) -> Result<Entry> {
    let page = state.sessions.log(session)?.page(seq, seq + 1, &Filter::default(), 1).map_err(io_error)?;
    page.entries
        .into_iter()
        .next()
        .ok_or_else(|| err(ErrorCode::NotFound, format!("no entry {seq} in this session")))
}

fn previews(entries: Vec<Entry>) -> Vec<Entry> {
    entries.into_iter().map(Entry::preview).collect()
}

/// Counts `filter`'s matches among the entries below `to`, a bounded amount of work per call:
/// call again until `scanned` reaches `to`.
#[tauri::command(async)]
#[specta::specta]
pub fn log_count_matches(
    state: State<'_, AppState>,
    session: Option<u64>,
    filter: String,
    to: u64,
) -> Result<MatchCount> {
    let filter = filter_of(&filter)?;
    state.sessions.log(session)?.count_matches(&filter, to, COUNT_BUDGET).map_err(io_error)
}

/// Where the entry at `seq` stands among `filter`'s matches (its row in the list the filter
/// shows), or null when the filter does not show it.
#[tauri::command(async)]
#[specta::specta]
pub fn log_match_position(
    state: State<'_, AppState>,
    session: Option<u64>,
    filter: String,
    seq: u64,
) -> Result<Option<u64>> {
    let filter = filter_of(&filter)?;
    state.sessions.log(session)?.match_position(&filter, seq).map_err(io_error)
}

/// The matches of `filter` at positions `from..from + limit` among all its matches.
#[tauri::command(async)]
#[specta::specta]
pub fn log_match_page(
    state: State<'_, AppState>,
    session: Option<u64>,
    filter: String,
    from: u64,
    limit: usize,
) -> Result<Vec<Entry>> {
    let filter = filter_of(&filter)?;
    let entries =
        state.sessions.log(session)?.match_page(&filter, from, limit.min(5000)).map_err(io_error)?;
    Ok(previews(entries))
}

/// How long a session log is.
#[derive(Debug, Clone, Copy, serde::Serialize, specta::Type)]
pub struct LogLength {
    /// The seq the next entry gets: entries a failed write lost count too.
    pub entries: u64,
    /// How many entries its file holds: the rows of `log_rows`.
    pub rows: u64,
}

/// Streams new entries on `channel`, each a preview with its row; returns how long the log is
/// already (the UI pages those). An entry may arrive both ways; the UI keeps one per row. A
/// batch with `ended` is the last: the session can grow no more.
#[tauri::command]
#[specta::specta]
pub fn log_follow(
    state: State<'_, AppState>,
    session: Option<u64>,
    channel: Channel<LogBatch>,
) -> Result<LogLength> {
    let log = state.sessions.log(session)?;
    let follow = log.follow();
    // About 60 batches a second at most: smooth to watch, never one message per frame.
    // Each entry goes as a preview, as in a page: a 64 MiB frame must not ride in a batch.
    let batches = follow.batches(Duration::from_millis(16), move |mut batch: LogBatch| {
        batch.entries = previews(batch.entries);
        channel.send(batch).is_ok()
    });
    tauri::async_runtime::spawn(batches);
    Ok(length(&log))
}

/// How long a session log is now: what a view that joins a stream already under way starts
/// from (the batches after it say the rest).
#[tauri::command]
#[specta::specta]
pub fn log_length(state: State<'_, AppState>, session: Option<u64>) -> Result<LogLength> {
    Ok(length(&*state.sessions.log(session)?))
}

fn length(log: &WireLog) -> LogLength {
    LogLength { entries: log.len(), rows: log.rows() }
}

/// Whether the window's own session file takes every entry now; each change after it (the file
/// stopped, and the note of the gap once it took entries again) arrives on `channel` as it
/// happens.
#[tauri::command]
#[specta::specta]
pub fn recording_follow(state: State<'_, AppState>, channel: Channel<Recording>) -> Vec<Recording> {
    crate::feeds::forward(state.hub.log().follow_recording(), channel)
}

/// Where an export was written, and how many entries (for HAR: exchanges; for OTLP: spans) it
/// holds.
#[derive(Debug, Serialize, specta::Type)]
pub struct Exported {
    pub path: String,
    pub entries: u64,
}

/// Writes a session (or the entries matching `filter`) in `format` where the person chooses in
/// the native save dialog, which asks before replacing a file: the webview never names a path
/// to write. The name offered is the session's (`-filtered` for a filter's matches) with the
/// format's extension. Every saved secret is redacted. `None` when the person cancelled. HAR of
/// entries in no HTTP exchange is refused (`bad_input`, in the core's words) and writes nothing.
#[tauri::command]
#[specta::specta]
pub async fn log_export(
    state: State<'_, AppState>,
    session: Option<u64>,
    filter: String,
    format: ExportFormat,
) -> Result<Option<Exported>> {
    let filtered = !filter.trim().is_empty();
    let filter = filter_of(&filter)?;
    let (log, secrets) = (state.sessions.log(session)?, state.servers.secrets());
    // Offered under the session's own name, so an export says which session it came from.
    let stem = log.path().file_stem().map_or("sonde-session".into(), |s| s.to_string_lossy().into_owned());
    let ext = format.extension();
    let name = if filtered { format!("{stem}-filtered.{ext}") } else { format!("{stem}.{ext}") };
    let title = format!("Export the log as {}", format.label());
    // What HAR cannot hold is refused before a file name is asked for.
    if format == ExportFormat::Har {
        let (log, filter) = (log.clone(), filter.clone());
        tauri::async_runtime::spawn_blocking(move || sonde_core::check_har(&log, &filter))
            .await
            .map_err(|e| err(ErrorCode::Io, e))?
            .map_err(|e| err(e.code(), &e))?;
    }
    let Some(path) = state.asker.save_path(&title, &name).await else {
        return Ok(None);
    };
    let write = path.clone();
    let entries = tauri::async_runtime::spawn_blocking(move || match format {
        ExportFormat::Jsonl => sonde_core::export_jsonl(&log, &filter, &secrets, &write).map_err(io_error),
        ExportFormat::Har => {
            sonde_core::export_har(&log, &filter, &secrets, &write).map_err(|e| err(e.code(), &e))
        }
        ExportFormat::Html => sonde_core::export_html(&log, &filter, &secrets, &write).map_err(io_error),
        ExportFormat::Otlp => sonde_core::export_otlp(&log, &filter, &secrets, &write)
            .map(|traces| traces.spans)
            .map_err(|e| err(e.code(), &e)),
    })
    .await
    .map_err(|e| err(ErrorCode::Io, e))??;
    Ok(Some(Exported { path: path.display().to_string(), entries }))
}

/// Every session file in the data directory, newest first: the window's own, other windows'
/// and the CLI's, with their servers and whether a process still writes them.
#[tauri::command(async)]
#[specta::specta]
pub fn sessions_list(state: State<'_, AppState>) -> Result<Vec<SessionInfo>> {
    state.sessions.list().map_err(io_error)
}

/// Opens a past session read-only by the name the listing gave it; the log commands read it by
/// the returned id until `session_close`.
#[tauri::command(async)]
#[specta::specta]
pub fn session_open(state: State<'_, AppState>, name: String) -> Result<OpenedSession> {
    let opened = state.sessions.open(&name)?;
    // Opened: lowering the sessions budget keeps it for the next hour, and says so.
    state.hub.log().in_use(&name);
    Ok(opened)
}

#[tauri::command]
#[specta::specta]
pub fn session_close(state: State<'_, AppState>, id: u64) -> Result<()> {
    state.timelines.forget(id);
    Ok(state.sessions.close(id)?)
}

/// Shows server requests that need a person (elicitation, sampling) on this channel, the ones
/// waiting first, with the ones declined for the per-connection limit and the ones withdrawn.
#[tauri::command]
#[specta::specta]
pub fn server_requests_follow(state: State<'_, AppState>, on_question: Channel<QuestionEvent>) {
    crate::feeds::stream(state.questions().feed(), on_question);
}

/// Declines every question connection `id` has waiting; returns how many.
#[tauri::command]
#[specta::specta]
pub fn server_requests_decline_all(state: State<'_, AppState>, id: u64) -> u64 {
    state.questions().decline_all(id) as u64
}

/// The person's answer to a server request: a result, or a refusal in words.
#[tauri::command]
#[specta::specta]
pub fn server_request_answer(
    state: State<'_, AppState>,
    qid: u64,
    result: Option<serde_json::Value>,
    refusal: Option<String>,
) -> Result<()> {
    let reply = match (result, refusal) {
        (_, Some(words)) => Err(ErrorObject { code: -1, message: words, data: None }),
        (Some(result), None) => Ok(result),
        (None, None) => return Err(err(ErrorCode::BadInput, "an answer needs a result or a refusal")),
    };
    if state.questions().answer(qid, reply) {
        Ok(())
    } else {
        Err(err(
            ErrorCode::NotFound,
            format!("question {qid} is no longer waiting (answered, or its connection closed)"),
        ))
    }
}

/// How the core reads a filter expression: its chips, or what is wrong with it. The UI shows
/// this and never parses the grammar itself.
#[tauri::command]
#[specta::specta]
pub fn log_filter(filter: String) -> FilterView {
    FilterView::of(&filter)
}

/// How the request at `seq` ended: its reply, as the core paired them when they were recorded,
/// or the note that says it was never answered; `None` while neither is there.
#[tauri::command(async)]
#[specta::specta]
pub fn log_outcome(state: State<'_, AppState>, session: Option<u64>, seq: u64) -> Result<Option<Outcome>> {
    state.sessions.log(session)?.outcome_of(seq).map_err(io_error)
}

/// The name each connection of a session goes by: its saved server, else its command or URL.
#[tauri::command(async)]
#[specta::specta]
pub fn log_connections(state: State<'_, AppState>, session: Option<u64>) -> Result<Vec<ConnectionLabel>> {
    Ok(state.sessions.log(session)?.connection_labels())
}
