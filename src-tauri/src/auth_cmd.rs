//! OAuth in the window: the browser step through the opener plugin, each connection's flow as
//! it happens (its steps, the URL the person is sent to), and the credentials Sonde keeps, which
//! the person can forget.
//!
//! Owns: the commands over the core's flows and credential store. Refuses: the flow (the core's
//! `auth`), the browser step (`browser.rs`), and opening any URL but the one a running flow
//! waits at. The loopback listener the core opens for the redirect is
//! the one listener this app ever opens.

use std::sync::Arc;

use sonde_core::{Authorizer, CredentialView, ErrorCode, Flow};
use tauri::ipc::Channel;
use tauri::State;

use crate::error::{err, Result};
use crate::state::AppState;

fn authorizing(state: &AppState) -> Result<&Arc<Authorizer>> {
    state
        .hub
        .authorizer()
        .ok_or_else(|| err(ErrorCode::BadInput, "this window does not authorize with servers"))
}

/// Every connection's latest authorization flow now; each change after it arrives on
/// `channel` as it happens.
#[tauri::command]
#[specta::specta]
pub fn auth_flows_follow(state: State<'_, AppState>, channel: Channel<Flow>) -> Vec<Flow> {
    match state.hub.authorizer() {
        Some(authorizer) => crate::feeds::forward(authorizer.flows.feed(), channel),
        None => Vec::new(),
    }
}

/// Opens the authorization URL connection `id`'s flow waits at in the system browser again.
#[tauri::command]
#[specta::specta]
pub fn auth_open(state: State<'_, AppState>, id: u64) -> Result<()> {
    let authorizer = authorizing(&state)?;
    let waiting = authorizer.flows.snapshot().into_iter().find(|f| f.conn == id).and_then(|f| f.waiting_at);
    let url = waiting.ok_or_else(|| {
        err(ErrorCode::BadInput, format!("connection {id} is not waiting for an authorization"))
    })?;
    tauri_plugin_opener::open_url(&url, None::<&str>)
        .map_err(|e| err(ErrorCode::Io, format!("the system browser could not be started: {e}")))
}

/// The credentials Sonde keeps, without their secrets.
#[tauri::command]
#[specta::specta]
pub fn credentials_list(state: State<'_, AppState>) -> Result<Vec<CredentialView>> {
    let list = authorizing(&state)?.store.list()?;
    Ok(list.iter().map(|c| c.view()).collect())
}

/// Forgets the credentials of the server at `resource` (all of them without one); returns
/// those left.
#[tauri::command]
#[specta::specta]
pub fn credentials_forget(
    state: State<'_, AppState>,
    resource: Option<String>,
) -> Result<Vec<CredentialView>> {
    let store = &authorizing(&state)?.store;
    store.remove(resource.as_deref())?;
    credentials_list(state)
}
