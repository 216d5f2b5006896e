//! The window's timeline and latency table (issue 37): the core builds both from the session's
//! index (`sonde_core::timeline`); the state keeps one timeline per session the window reads
//! (`state::Timelines`: grown, never rebuilt, as the session grows); this carries the answers,
//! and the call history read from the same timeline (issue 53).

use serde::Serialize;
use sonde_core::{Latency, RecordedCall, SpanDetail, TimelineView, ViewQuery, HISTORY_LIMIT};
use tauri::State;

use crate::error::{io_error, Result};
use crate::state::AppState;

/// The part of the session's timeline `query` asks for, with what `filter` shows.
#[tauri::command(async)]
#[specta::specta]
pub fn timeline_view(
    state: State<'_, AppState>,
    session: Option<u64>,
    filter: String,
    query: ViewQuery,
) -> Result<TimelineView> {
    let log = state.sessions.log(session)?;
    state.timelines.with(session, &log, &filter, |timeline, shown| timeline.view(&query, shown))
}

/// Latency per method and per tool of the requests `filter` shows.
#[tauri::command(async)]
#[specta::specta]
pub fn timeline_latency(state: State<'_, AppState>, session: Option<u64>, filter: String) -> Result<Latency> {
    let log = state.sessions.log(session)?;
    state.timelines.with(session, &log, &filter, Latency::of)
}

/// What hovering the span of the request at `seq` shows.
#[tauri::command(async)]
#[specta::specta]
pub fn timeline_span(
    state: State<'_, AppState>,
    session: Option<u64>,
    filter: String,
    seq: u64,
) -> Result<Option<SpanDetail>> {
    let log = state.sessions.log(session)?;
    let detail = state.timelines.with(session, &log, &filter, |timeline, _| timeline.detail(&log, seq))?;
    detail.map_err(io_error)
}

/// The calls of `tool` (every tool when `None`) on the line of connection `conn`, newest first:
/// in the window's own session every connection of its lineage (restarts included), in a past
/// session that connection alone.
#[tauri::command(async)]
#[specta::specta]
pub fn call_history(
    state: State<'_, AppState>,
    session: Option<u64>,
    conn: u64,
    tool: Option<String>,
) -> Result<Vec<RecordedCall>> {
    let log = state.sessions.log(session)?;
    let states = state.hub.states();
    let conns = match (session, states.lineage_of(conn)) {
        (None, Some(lineage)) => states.lineage_conns(lineage),
        _ => vec![conn],
    };
    // The call just made is in the history: its reply is written out, and so indexed, first
    // (a file that stopped taking entries says so in its banner; the history is what it holds).
    let _ = log.flush();
    let calls =
        state.timelines.grown(session, &log, |t| t.calls(&log, &conns, tool.as_deref(), HISTORY_LIMIT));
    calls.map_err(io_error)
}

/// A call the log holds, and the line of the window it can be sent again on.
#[derive(Debug, Serialize, specta::Type)]
pub struct LoggedCall {
    pub call: RecordedCall,
    /// The line its connection belongs to, in the window's own session while the window still
    /// shows it; `None` in a past session.
    pub line: Option<u64>,
}

/// The call whose request is at `seq`, if that entry is one (the log's Send again and Edit and
/// send).
#[tauri::command(async)]
#[specta::specta]
pub fn call_at(state: State<'_, AppState>, session: Option<u64>, seq: u64) -> Result<Option<LoggedCall>> {
    let log = state.sessions.log(session)?;
    let _ = log.flush();
    let call = state.timelines.grown(session, &log, |t| t.call(&log, seq)).map_err(io_error)?;
    let line =
        |call: &RecordedCall| session.is_none().then(|| state.hub.states().lineage_of(call.conn)).flatten();
    Ok(call.map(|call| LoggedCall { line: line(&call), call }))
}
