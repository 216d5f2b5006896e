//! Restart on change in the window: a saved server with it set is watched from its Connect
//! until the person stops its line (or quits); each change restarts it through the core's loop
//! (`RestartOnChange`, the one `sonde watch` runs), and the window follows each step as it
//! happens (`rebuilds_follow`).
//!
//! Owns: starting a line's watch, and stopping it between changes (a restart under way ends
//! first, and a server it started after the stop is stopped). Refuses: the loop's steps and
//! their words (the core's), and what the window draws of them.

use std::collections::HashMap;
use std::sync::Arc;

use sonde_core::{Hub, Lock, Rebuild, RestartOnChange, SavedServer, Snapshot, SourceWatch, Target};
use tauri::ipc::Channel;
use tauri::State;
use tokio::sync::watch;

use crate::error::Result;
use crate::state::AppState;

/// The watched lines, each with the switch that stops its watch.
#[derive(Clone, Default)]
pub struct Watches(Arc<std::sync::Mutex<HashMap<u64, watch::Sender<bool>>>>);

/// The watch a saved server's Restart on change asks for, started before it connects (so a path
/// that is gone is said before anything runs); `None` when it is off.
pub fn watch_of(saved: &SavedServer) -> Result<Option<(SourceWatch, Option<sonde_core::BuildStep>)>> {
    let Some(on_change) = &saved.on_change else { return Ok(None) };
    let Target::Stdio(spawn) = saved.to_config()?.target else { return Ok(None) };
    let (spec, build) = on_change.plan(&spawn);
    let watch = SourceWatch::start(&spec)?;
    if let Some(why) = &watch.polling {
        tracing::warn!(server = %saved.name, "Restart on change polls: {why}");
    }
    Ok(Some((watch, build)))
}

impl Watches {
    /// Restarts the lineage of connection `first` (ready or failed) on each change `watch` sees.
    pub fn start(&self, hub: Arc<Hub>, first: u64, watch: SourceWatch, build: Option<sonde_core::BuildStep>) {
        let (stop, mut stopped) = watch::channel(false);
        let lineage = hub.states().get(first).map_or(first, |e| e.lineage);
        if let Some(earlier) = self.0.locked().insert(lineage, stop) {
            let _ = earlier.send(true);
        }
        tauri::async_runtime::spawn(async move {
            let before = match hub.session(first) {
                Ok(session) => Snapshot::take(&session).await.ok(),
                Err(_) => None,
            };
            let mut restarts = RestartOnChange::new(&hub, first, watch, build, before);
            loop {
                let change = tokio::select! {
                    change = restarts.changed() => change,
                    _ = stopped.wait_for(|stop| *stop) => return,
                };
                let Some(change) = change else {
                    tracing::warn!(lineage, "Restart on change: the file watcher stopped");
                    return;
                };
                restarts.answer(&hub, &change, &|_| {}).await;
                // Stopped while it restarted: the server it started goes too.
                if *stopped.borrow() {
                    if let Some(newest) = hub.states().newest(lineage) {
                        let _ = hub.disconnect(newest).await;
                    }
                    return;
                }
            }
        });
    }

    /// Stops the watch of `lineage`, if it has one.
    pub fn stop(&self, lineage: u64) {
        if let Some(stop) = self.0.locked().remove(&lineage) {
            let _ = stop.send(true);
        }
    }

    /// Stops every watch (the app quits).
    pub fn stop_all(&self) {
        for (_, stop) in self.0.locked().drain() {
            let _ = stop.send(true);
        }
    }
}

/// Each watched line's latest restart on change now; each step after it arrives on `channel`
/// as it happens.
#[tauri::command]
#[specta::specta]
pub fn rebuilds_follow(state: State<'_, AppState>, channel: Channel<Rebuild>) -> Vec<Rebuild> {
    crate::feeds::forward(state.hub.rebuilds().feed(), channel)
}
