//! The commands that read and change a live connection's roots (the roots editor).
//!
//! Owns: nothing but the adapters; the core reads the list, hands it to the responder and
//! decides what the server is told (`Hub::set_roots`).
//! Refuses: saving the list with the saved server (the server dialog does that).

use sonde_core::RootsChange;
use tauri::State;

use crate::error::{ErrorDto, Result};
use crate::state::AppState;

/// The roots connection `id` lists now, as paths.
#[tauri::command]
#[specta::specta]
pub fn connection_roots(state: State<'_, AppState>, id: u64) -> Result<Vec<String>> {
    let roots = state.hub.roots(id)?;
    Ok(roots.iter().map(|p| p.display().to_string()).collect())
}

/// Replaces connection `id`'s roots with `roots` (absolute paths; blank ones are left out) and
/// says what the server was told.
#[tauri::command]
#[specta::specta]
pub fn connection_roots_set(state: State<'_, AppState>, id: u64, roots: Vec<String>) -> Result<RootsChange> {
    state.hub.set_roots(id, &roots).map_err(ErrorDto::from)
}
