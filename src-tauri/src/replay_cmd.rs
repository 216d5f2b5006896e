//! The window's "Replay against…" (issue 35): a recorded session sent again to a saved server,
//! started for it (after the confirmation a Connect asks for) and stopped after it, each
//! request's answer compared with the recorded one. The replay, the comparison and the recorded
//! client's answers are the core's (`sonde_core::replay`); this only starts and carries.

use std::sync::Arc;

use serde::Serialize;
use sonde_core::{recorded_requests, replay, Replay, Replayed, Responder, Rules, WireLog, REPLAY_RULES_FILE};
use tauri::ipc::Channel;
use tauri::State;

use crate::error::{io_error, ErrorDto, Result};
use crate::state::AppState;

/// A replay's end: each request's outcome (also sent on the channel as it came), how many
/// failed and which rules matched nothing, and how many recorded requests were not sent (a
/// listen, one never answered).
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ReplayRun {
    pub replay: Replay,
    pub not_sent: u32,
}

/// Replays the session `name` (in the sessions folder) against the saved server `server_id`;
/// each request's outcome arrives on `channel` as it is known.
#[tauri::command]
#[specta::specta]
pub async fn session_replay(
    state: State<'_, AppState>,
    name: String,
    server_id: String,
    channel: Channel<Replayed>,
) -> Result<ReplayRun> {
    let path = state.sessions.path_of(&name)?;
    // Replayed: lowering the sessions budget keeps it for the next hour, and says so.
    state.hub.log().in_use(&name);
    let log = WireLog::open(&path).map_err(io_error)?;
    let recording =
        recorded_requests(&log).map_err(|e| ErrorDto::from(e).about(format!("the session {name}")))?;
    let saved = state.servers.get(&server_id)?;
    // The project's replay file, where the server runs: the rules CI replays with.
    let file = saved.cwd.as_deref().map(|dir| std::path::Path::new(dir).join(REPLAY_RULES_FILE));
    let rules = Rules::new(file.as_deref().filter(|f| f.is_file()), &[], &[], false, false)?;
    let answers: Arc<dyn Responder> = Arc::new(recording.answers.clone());
    let (requests, not_sent) = (recording.requests, recording.not_sent);
    let done = crate::commands::one_job_on_saved(&state, &saved, Some(answers), |session| async move {
        replay(&session, &requests, &rules, |r| {
            let _ = channel.send(r.clone());
        })
        .await
    })
    .await?;
    Ok(ReplayRun { replay: done, not_sent: u32::try_from(not_sent).unwrap_or(u32::MAX) })
}
