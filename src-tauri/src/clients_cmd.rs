//! "Use with a client": the entry a client's config needs to run a saved server through
//! `sonde proxy`, made by the core's `wrap` (the same edit `sonde wrap` makes to a config file).

use sonde_core::{wrap_snippet, ErrorCode, KnownClient};
use tauri::State;

use crate::error::{err, Result};
use crate::state::AppState;

/// The config text `client` needs to run the saved server `server_id` through `sonde proxy`.
#[tauri::command]
#[specta::specta]
pub fn server_client_snippet(
    state: State<'_, AppState>,
    server_id: String,
    client: String,
) -> Result<String> {
    let saved = state.servers.get(&server_id)?;
    let client = KnownClient::parse(&client)
        .ok_or_else(|| err(ErrorCode::BadInput, format!("no client named {client:?}")))?;
    if saved.url.as_deref().is_some_and(|u| !u.is_empty()) {
        return Err(err(
            ErrorCode::BadInput,
            "a server reached by URL: the proxy runs stdio servers only (the HTTP proxy is not built yet)",
        ));
    }
    let words = shell_words::split(&saved.command)
        .map_err(|e| err(ErrorCode::BadInput, format!("the command line cannot be split: {e}")))?;
    let (program, args) =
        words.split_first().ok_or_else(|| err(ErrorCode::BadInput, "the command line is empty"))?;
    // The `sonde` command the package installs beside this app, which client configs run.
    let beside = std::env::current_exe().ok().map(|e| e.with_file_name("sonde")).filter(|p| p.is_file());
    let sonde = beside.map_or_else(|| "sonde".to_owned(), |p| p.display().to_string());
    Ok(wrap_snippet(client, &saved.name, program, args, &sonde))
}
