//! Links a server asks the person to open (URL-mode elicitation): opening one in the system
//! browser when the person clicks.
//!
//! Owns: handing a link the core allows (http and https only) to the system browser through the
//! opener plugin, with a note in the wire log saying so.
//! Refuses: deciding what may be opened or what is suspicious (the core's `url_elicitation`),
//! hearing when a link is complete (the core's questions), opening anything the person did not
//! click, and fetching the page (the spec forbids it).

use sonde_core::{Direction, Entry, ErrorCode, Kind};
use tauri::State;

use crate::error::{err, Result};
use crate::state::AppState;

/// Opens `url`, which connection `id`'s server asked the person to open, in the system browser.
/// Refused, with the core's words, for a link that is not http or https.
#[tauri::command]
#[specta::specta]
pub fn link_open(state: State<'_, AppState>, id: u64, url: String) -> Result<()> {
    let opens = sonde_core::openable_link(&url)?;
    tauri_plugin_opener::open_url(&opens, None::<&str>)
        .map_err(|e| err(ErrorCode::Io, format!("the system browser could not be started: {e}")))?;
    let detail = format!("the person opened {opens} in the system browser");
    state.hub.log().append(Entry::new(id, Kind::Note, Direction::Meta).with_detail(detail));
    Ok(())
}
