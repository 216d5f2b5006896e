//! The window's protocol diagnostics: the findings of a connection's frames grouped by rule, and
//! the check-up of a saved server (`sonde doctor` in the window), its checks streamed as they are
//! made. The rules and the checks are the core's; these commands only carry what it says.

use sonde_core::{check_up, Check, Checkup, CheckupPlan, Filter, RuleGroup, Severity};
use tauri::ipc::Channel;
use tauri::State;

use crate::error::{io_error, Result};
use crate::state::AppState;

/// The findings on connection `conn`'s frames in the window's session, grouped by rule, the
/// most severe rules first.
#[tauri::command(async)]
#[specta::specta]
pub fn diagnostics(state: State<'_, AppState>, conn: u64) -> Result<Vec<RuleGroup>> {
    let filter = Filter { conn: Some(conn), diag: Some(Severity::Note), ..Filter::default() };
    let entries = state.hub.log().entries(&filter).map_err(io_error)?;
    Ok(sonde_core::group_findings(entries.iter().map(|e| (e.seq, e.findings.as_slice()))))
}

/// Checks the saved server `server_id` over on connections of its own (they are in the log as
/// they happen), after the same confirmation a Connect asks for; each check arrives on `channel`
/// as it is made, and the whole report is the answer.
#[tauri::command]
#[specta::specta]
pub async fn doctor_run(
    state: State<'_, AppState>,
    server_id: String,
    channel: Channel<Check>,
) -> Result<Checkup> {
    let saved = state.servers.get(&server_id)?;
    crate::confirm::launch(&state, &saved).await?;
    let config = saved.to_config()?;
    let each = move |check: &Check| {
        let _ = channel.send(check.clone());
    };
    let report = check_up(&state.hub, &config, &CheckupPlan::default(), &each).await;
    tracing::info!(server = %saved.name, "check-up: {}", report.tally);
    Ok(report)
}
