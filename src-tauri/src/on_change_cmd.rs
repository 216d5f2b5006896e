//! Restart on change in the window: a saved server with it set is watched from its Connect
//! until the person stops its line (or quits); each change restarts it through the core's loop
//! (`RestartOnChange`, the one `sonde watch` runs), and the window follows each step as it
//! happens (`rebuilds_follow`, in `commands.rs` with the other tables the window follows).
//!
//! Owns: starting a line's watch, stopping it (the core gives up a build under way and stops a
//! server a restart under way started), and waiting for every watch to end as the app quits.
//! Refuses: the loop's steps and their words (the core's), and what the window draws of them.

use std::collections::HashMap;
use std::sync::Arc;

use sonde_core::{BuildStep, Hub, Lock, RestartOnChange, SavedServer, Snapshot, SourceWatch, Target};
use tokio::sync::watch;

use crate::error::Result;

/// The watched lines, each with the switch that stops its watch and the task that runs it.
#[derive(Clone, Default)]
pub struct Watches(Arc<std::sync::Mutex<HashMap<u64, Watched>>>);

struct Watched {
    stop: watch::Sender<bool>,
    task: tauri::async_runtime::JoinHandle<()>,
}

/// The watch a saved server's Restart on change asks for, started before it connects (so a path
/// that is gone is said before anything runs); `None` when it is off.
pub fn watch_of(saved: &SavedServer) -> Result<Option<(SourceWatch, Option<BuildStep>)>> {
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
    /// Restarts the lineage of connection `first` (ready or failed) on each change `watch` sees,
    /// until [`Watches::stop`].
    pub fn start(&self, hub: Arc<Hub>, first: u64, watch: SourceWatch, build: Option<BuildStep>) {
        let (stop, stopped) = watch::channel(false);
        let lineage = hub.states().lineage_of(first).unwrap_or(first);
        let watches = self.clone();
        let mine = stop.clone();
        // Held until the entry is in, so the task's end never looks for it before it is there.
        let mut table = self.0.locked();
        let task = tauri::async_runtime::spawn(async move {
            let before = match hub.session(first) {
                Ok(session) => Snapshot::take(&session).await.ok(),
                Err(_) => None,
            };
            RestartOnChange::new(&hub, first, watch, build, before).run(&hub, stopped).await;
            // Ended by itself (the file watcher stopped) or stopped: the entry goes, if it is still
            // this watch's.
            let mut table = watches.0.locked();
            if table.get(&lineage).is_some_and(|w| w.stop.same_channel(&mine)) {
                table.remove(&lineage);
            }
        });
        if let Some(earlier) = table.insert(lineage, Watched { stop, task }) {
            let _ = earlier.stop.send(true);
        }
    }

    /// Stops the watch of `lineage`, if it has one; a build under way is stopped with it.
    pub fn stop(&self, lineage: u64) {
        if let Some(watched) = self.0.locked().remove(&lineage) {
            let _ = watched.stop.send(true);
        }
    }

    /// Stops every watch and waits until each has ended (the app quits): no build or server a
    /// watch started is left behind.
    pub async fn stop_all(&self) {
        let all: Vec<Watched> = self.0.locked().drain().map(|(_, w)| w).collect();
        for watched in &all {
            let _ = watched.stop.send(true);
        }
        for watched in all {
            let _ = watched.task.await;
        }
    }
}
