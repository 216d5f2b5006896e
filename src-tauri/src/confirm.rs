//! Native confirmations, outside the webview: a question the window's own code can neither
//! answer nor hide, asked before Sonde runs code it has not run before (a saved server's new or
//! changed launch, the entries of an import).
//!
//! Owns: asking, in a native dialog (`dialogs.rs`), and approving what the person let run.
//! Refuses: deciding what to ask (the core's `launches` reads a server into words) and any
//! answer without a person: with no app to ask in (the mock runtime of the IPC tests), the
//! answer is no, never yes.

use sonde_core::{ErrorCode, SavedServer};

use crate::error::{err, io_error, ErrorDto};
use crate::state::AppState;

/// Before `saved` runs: when its launch is new or changed since it last ran, shows it and asks;
/// approves it on Run, and is `cancelled` otherwise (nothing runs).
pub async fn launch(state: &AppState, saved: &SavedServer) -> Result<(), ErrorDto> {
    let Some(review) = state.launches.review(saved) else { return Ok(()) };
    let (title, what) = match review.first {
        true => ("Run a new server?", "runs a command for the first time"),
        false => ("Run a changed server?", "runs a command that changed since it last ran"),
    };
    let message = format!("\"{}\" {what}, with your rights.\n\n{}", review.name, review.text());
    if !state.asker.ask(title, message, "Run").await {
        let why = format!("{} was not started: running it was not confirmed", saved.name);
        return Err(err(ErrorCode::Cancelled, why));
    }
    state.launches.approve(saved).map_err(io_error)
}

/// Before `servers` are imported: shows every entry's launch as [`launch`] does and asks once;
/// approves them all on Import (the person has seen them), and is `cancelled` otherwise.
pub async fn import(state: &AppState, servers: &[SavedServer]) -> Result<(), ErrorDto> {
    // One or two lines an entry (loaders always in full), so a dozen entries fit a screen.
    let entries: Vec<String> = servers
        .iter()
        .map(|s| match (state.launches.review(s), &s.url) {
            (Some(review), _) => review.brief(),
            (None, url) => {
                format!("\"{}\": {} (a URL: runs nothing here)", s.name, url.as_deref().unwrap_or(""))
            }
        })
        .collect();
    let message = format!(
        "Each server below runs with your rights when it is connected; nothing asks again unless it changes.\n\n{}",
        entries.join("\n")
    );
    let title = match servers.len() {
        1 => "Import 1 server?".to_owned(),
        n => format!("Import {n} servers?"),
    };
    if !state.asker.ask(&title, message, "Import").await {
        return Err(err(ErrorCode::Cancelled, "nothing was imported: the import was not confirmed"));
    }
    servers.iter().try_for_each(|s| state.launches.approve(s)).map_err(io_error)
}
