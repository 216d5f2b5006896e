//! Links a server asks the person to open (URL-mode elicitation): opening one in the system
//! browser when the person clicks, and hearing when the server says one is complete.
//!
//! Owns: handing a link the core allows (http and https only) to the system browser through the
//! opener plugin, with a note in the wire log saying so; passing each
//! `notifications/elicitation/complete` to the questions, which tell the window.
//! Refuses: deciding what may be opened or what is suspicious (the core's `url_elicitation`),
//! opening anything the person did not click, and fetching the page (the spec forbids it).

use std::sync::Arc;

use sonde_core::error_code::ErrorCode;
use sonde_core::features::notices::{notice_of, Notice, Noticed, Notices};
use sonde_core::hub::Hub;
use sonde_core::log::{Direction, Entry, Filter, Kind};
use sonde_core::url_elicitation::completed_id;
use tauri::State;

use crate::commands::{err, Result};
use crate::questions::Questions;
use crate::state::AppState;

/// Opens `url`, which connection `id`'s server asked the person to open, in the system browser.
/// Refused, with the core's words, for a link that is not http or https.
#[tauri::command]
#[specta::specta]
pub fn link_open(state: State<'_, AppState>, id: u64, url: String) -> Result<()> {
    let opens = sonde_core::url_elicitation::openable(&url).map_err(|why| err(ErrorCode::BadInput, why))?;
    tauri_plugin_opener::open_url(&opens, None::<&str>)
        .map_err(|e| err(ErrorCode::Io, format!("the system browser could not be started: {e}")))?;
    let detail = format!("the person opened {opens} in the system browser");
    state.hub.log().append(Entry::new(id, Kind::Note, Direction::Meta).with_detail(detail));
    Ok(())
}

/// Hands every `notifications/elicitation/complete` a server sends to the questions, which tell
/// the window about the links it waits for and ignore the rest. Runs as long as the log.
pub async fn pass_on_completions(hub: Arc<Hub>, questions: Arc<Questions>) {
    let pass_on = |notice: &Notice| {
        if let Some(id) = completed_id(&notice.method, Some(&notice.params)) {
            questions.link_completed(notice.conn, id);
        }
    };
    let mut notices = Notices::follow(hub.log());
    while let Some(noticed) = notices.next().await {
        match noticed {
            Noticed::Notice(notice) => pass_on(&notice),
            // Entries went by unread: the log has every completion; one passed on again is
            // ignored, as a completion of a link no longer awaited always is.
            Noticed::Skipped(_) => {
                let filter = Filter::parse("dir:in method:notifications/elicitation/complete")
                    .expect("a fixed filter parses");
                for entry in hub.log().entries(&filter).unwrap_or_default() {
                    if let Some(notice) = notice_of(&entry) {
                        pass_on(&notice);
                    }
                }
            }
        }
    }
}
