//! The window's timeline and latency table (issue 37): the core builds both from the session's
//! index (`sonde_core::timeline`); the state keeps one timeline per session the window reads
//! (`state::Timelines`: grown, never rebuilt, as the session grows); this carries the answers.

use sonde_core::{Latency, SpanDetail, TimelineView, ViewQuery};
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
