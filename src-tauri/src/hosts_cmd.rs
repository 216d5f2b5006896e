//! The host profiles in the window: the hosts a saved server can connect as ("Connect as"), and
//! every host beside a connection's listed tools (the Diagnostics panel's Hosts table). The
//! profiles and the verdicts are the core's.

use sonde_core::{HostProfile, HostView};
use tauri::State;

use crate::error::Result;
use crate::state::AppState;

/// Every host profile, with its sources.
#[tauri::command]
#[specta::specta]
pub fn hosts_list() -> Vec<HostProfile> {
    sonde_core::host_profiles().to_vec()
}

/// Every host beside connection `id`'s tools (listed now, every page) and capabilities, the
/// other ready connections' tools beside them.
#[tauri::command]
#[specta::specta]
pub async fn hosts_table(state: State<'_, AppState>, id: u64) -> Result<Vec<HostView>> {
    Ok(state.hub.hosts_table(id).await?)
}
