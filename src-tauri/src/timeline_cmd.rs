//! The window's timeline and latency table (issue 37): the core builds both from the session's
//! index (`sonde_core::timeline`); this keeps one timeline per session the window reads (grown,
//! never rebuilt, as the session grows) with the filter's matches, and carries the answers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sonde_core::log::Filter;
use sonde_core::sync::Lock;
use sonde_core::timeline::{Latency, Shown, SpanDetail, Timeline, TimelineView, ViewQuery};
use sonde_core::{ErrorCode, WireLog};
use tauri::State;

use crate::error::{err, io_error, Result};
use crate::state::AppState;

/// Each session's timeline and the matches of the filter it was last drawn with.
#[derive(Default, Clone)]
pub struct Timelines(Arc<Mutex<HashMap<Option<u64>, Kept>>>);

struct Kept {
    timeline: Timeline,
    filter: String,
    shown: Shown,
}

impl Timelines {
    /// Runs `read` on the timeline of `session`, grown to the log as it is now, with what
    /// `filter` shows (its matches looked for a bounded amount more).
    fn with<T>(
        &self,
        session: Option<u64>,
        log: &WireLog,
        filter: &str,
        read: impl FnOnce(&Timeline, &Shown) -> T,
    ) -> Result<T> {
        let mut kept = self.0.locked();
        let kept = kept.entry(session).or_insert_with(|| Kept {
            timeline: Timeline::new(),
            filter: String::new(),
            shown: Shown::default(),
        });
        if kept.filter != filter {
            let parsed = Filter::parse(filter).map_err(|e| err(ErrorCode::BadInput, e))?;
            kept.shown = Shown::new(parsed);
            kept.filter = filter.to_owned();
        }
        kept.timeline.update(log);
        kept.shown.update(log).map_err(io_error)?;
        Ok(read(&kept.timeline, &kept.shown))
    }

    /// Lets go of a session's timeline (a past session closed).
    pub fn forget(&self, session: u64) {
        self.0.locked().remove(&Some(session));
    }
}

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
