//! The window's comparison of two interfaces (issue 34, "Diff…"): each side a live
//! connection, a recorded session, a snapshot file, or a saved server started for the
//! comparison and stopped after it. The core takes each side's interface, compares them and
//! places every change on both sides; these commands only choose the sides and carry the answer.

use std::path::Path;

use serde::Deserialize;
use sonde_core::{diff, place_changes, BaselineCheck, Baselines, HubError, Placed, Snapshot};
use tauri::State;

use crate::error::{io_error, ErrorDto, Result};
use crate::state::AppState;

/// One side of a comparison.
#[derive(Debug, Clone, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Side {
    /// A connection open now: its interface listed again, to the end of each listing.
    Connection { id: u64 },
    /// A session in the sessions folder, by name: the interface as that session listed it.
    Session { name: String },
    /// A snapshot file (`sonde snapshot`), or a session file anywhere.
    File { path: String },
    /// A saved server, started for the comparison (after the confirmation a Connect asks for)
    /// and stopped once listed.
    Server { id: String },
}

/// What changed from the side `from` (the old interface) to `to` (the new), breaking first,
/// each change with its definition on both sides.
#[tauri::command]
#[specta::specta]
pub async fn interface_diff(state: State<'_, AppState>, from: Side, to: Side) -> Result<Vec<Placed>> {
    let old = snapshot_of(&state, from).await?;
    let new = snapshot_of(&state, to).await?;
    let changes = diff(&old, &new);
    Ok(place_changes(&old, &new, changes))
}

/// The native open dialog for a snapshot or a session file; `null` when the person cancels.
#[tauri::command]
#[specta::specta]
pub async fn snapshot_file_choose(state: State<'_, AppState>) -> Result<Option<String>> {
    let kinds = ("Snapshots and sessions", &["json", "jsonl"][..]);
    let chosen = state.asker.open_path("Diff against a snapshot or a session", kinds).await;
    Ok(chosen.map(|path| path.display().to_string()))
}

/// Saves connection `id`'s interface as a snapshot file (the format of `sonde snapshot`) where
/// the native save dialog says; the path written, or `null` when the person cancels.
#[tauri::command]
#[specta::specta]
pub async fn snapshot_save(state: State<'_, AppState>, id: u64) -> Result<Option<String>> {
    let snapshot = Snapshot::take(&state.hub.session(id)?).await?;
    // Offered under the server's name, in characters every file system takes.
    let name = snapshot.server_info.get("name").and_then(|n| n.as_str()).unwrap_or("server");
    let plain: String =
        name.chars().map(|c| if c.is_alphanumeric() || "-_.".contains(c) { c } else { '-' }).collect();
    let file_name = format!("{plain}.snapshot.json");
    let Some(path) = state.asker.save_path("Save the interface as a snapshot", &file_name).await else {
        return Ok(None);
    };
    std::fs::write(&path, snapshot.to_text()).map_err(crate::error::io_error)?;
    Ok(Some(path.display().to_string()))
}

async fn snapshot_of(state: &AppState, side: Side) -> Result<Snapshot> {
    let file = |path: &Path, what: &str| Snapshot::from_file(path).map_err(|e| ErrorDto::from(e).about(what));
    match side {
        Side::Connection { id } => Ok(Snapshot::take(&state.hub.session(id)?).await?),
        Side::Session { name } => file(&state.sessions.path_of(&name)?, &format!("the session {name}")),
        Side::File { path } => file(Path::new(&path), &path),
        Side::Server { id } => {
            let saved = state.servers.get(&id)?;
            // Started for this comparison only, and stopped once listed.
            let job = |session| async move { Snapshot::take(&session).await };
            Ok(crate::commands::one_job_on_saved(state, &saved, None, job).await??)
        }
    }
}

/// The interface of connection `id` beside its server's drift baseline (the interface last
/// accepted for it, kept between sessions): what changed since, breaking first. The first
/// time, or with `accept`, the interface listed now becomes the baseline.
#[tauri::command]
#[specta::specta]
pub async fn baseline_check(state: State<'_, AppState>, id: u64, accept: bool) -> Result<BaselineCheck> {
    let now = Snapshot::take(&state.hub.session(id)?).await?;
    let config = state.hub.states().config(id).ok_or(HubError::NoSuchConnection(id))?;
    let baselines = Baselines::default_location().map_err(io_error)?;
    baselines.check(&config.target, &now, accept).map_err(io_error)
}
