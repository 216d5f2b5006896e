//! The Settings dialog's commands: the sessions budget as the settings file holds it, the
//! numbers it comes to, what pruning removed; and pinning a session so it is never pruned.

use serde::Serialize;
use sonde_core::log::{list_sessions, pin_session, Budget};
use sonde_core::saved::settings::{free_space, SessionsSettings, SettingsError};
use sonde_core::SessionInfo;
use tauri::State;

use crate::error::{err, io_error, Result};
use crate::state::AppState;

impl From<SettingsError> for crate::error::ErrorDto {
    fn from(e: SettingsError) -> Self {
        err(e.code(), e)
    }
}

/// The sessions budget as the dialog shows it.
#[derive(Debug, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SessionsBudget {
    /// As the settings file holds it: a value left out takes its default.
    pub settings: SessionsSettings,
    /// What the defaults come to on this disk now.
    pub defaults: Budget,
    /// Where the sessions are, how many, and their bytes now.
    pub folder: String,
    pub sessions: u64,
    pub bytes: u64,
    /// What the last prune of this window removed, in words; `None` when it removed nothing.
    pub pruned: Option<String>,
}

/// The sessions folder: where this window's own session is written.
fn folder(state: &AppState) -> std::path::PathBuf {
    state.hub.log().path().parent().map(std::path::Path::to_path_buf).unwrap_or_default()
}

fn view(state: &AppState, pruned: Option<String>) -> Result<SessionsBudget> {
    let folder = folder(state);
    let listed = list_sessions(&folder).map_err(io_error)?;
    Ok(SessionsBudget {
        settings: state.settings.load()?.sessions,
        defaults: SessionsSettings::default().budget(free_space(&folder)),
        folder: folder.display().to_string(),
        sessions: listed.len() as u64,
        bytes: listed.iter().map(|s| s.size).sum(),
        pruned,
    })
}

/// The sessions budget, and what pruning removed when this window's session started.
#[tauri::command]
#[specta::specta]
pub fn sessions_budget_get(state: State<'_, AppState>) -> Result<SessionsBudget> {
    view(&state, state.pruned_at_start.clone())
}

/// Saves the sessions budget and prunes the folder to it now; says what that removed.
#[tauri::command]
#[specta::specta]
pub fn sessions_budget_set(state: State<'_, AppState>, settings: SessionsSettings) -> Result<SessionsBudget> {
    let saved = state.settings.set_sessions(settings)?;
    let folder = folder(&state);
    let pruned = state.hub.log().keep_within(saved.sessions.budget(free_space(&folder))).map_err(io_error)?;
    view(&state, pruned.words())
}

/// Pins the session `name` (or unpins it): a pinned session is never pruned. Returns the
/// sessions as Open Session lists them.
#[tauri::command]
#[specta::specta]
pub fn session_pin(state: State<'_, AppState>, name: String, pinned: bool) -> Result<Vec<SessionInfo>> {
    let folder = folder(&state);
    pin_session(&folder, &name, pinned).map_err(io_error)?;
    state.sessions.list().map_err(io_error)
}
