//! Load test… in the window: a run of one tool on a live connection, each second sent to the
//! window as it closes, the report at the end; Stop; runs kept to compare with a later one.
//! The plan, the run, the budget and the kept runs are the core's.

use serde_json::Value;
use sonde_core::{LoadReport, LoadRuns, LoadSecond, LoadSettings, SavedRun};
use tauri::ipc::Channel;
use tauri::State;

use crate::error::{err, io_error, Result};
use crate::state::AppState;

/// Runs `tool` with `args` on connection `id` as `settings` ask, sending each second's record
/// on `on_second`; the report (with the budget's verdicts) once it ends or is stopped.
#[tauri::command]
#[specta::specta]
pub async fn load_run(
    state: State<'_, AppState>,
    id: u64,
    tool: String,
    args: Option<Value>,
    settings: LoadSettings,
    on_second: Channel<LoadSecond>,
) -> Result<LoadReport> {
    let (plan, slo) = settings.plan(&tool, args).map_err(|e| err(e.code(), e))?;
    let report = state
        .hub
        .load(id, &plan, |second| {
            let _ = on_second.send(second.clone());
        })
        .await?;
    Ok(match slo {
        Some(slo) => report.judged(&slo).0,
        None => report,
    })
}

/// Stops the load running on connection `id` (its report still comes to `load_run`); false
/// when none runs there.
#[tauri::command]
#[specta::specta]
pub fn load_stop(state: State<'_, AppState>, id: u64) -> bool {
    state.hub.stop_load(id)
}

/// Every run kept, newest first.
#[tauri::command]
#[specta::specta]
pub fn load_runs() -> Result<Vec<SavedRun>> {
    LoadRuns::default_location().and_then(|runs| runs.list()).map_err(io_error)
}

/// Keeps `report`, a run on `server` of `what`, to compare a later run with.
#[tauri::command]
#[specta::specta]
pub fn load_keep(server: String, what: String, report: LoadReport) -> Result<SavedRun> {
    LoadRuns::default_location().and_then(|runs| runs.keep(&server, &what, &report)).map_err(io_error)
}
