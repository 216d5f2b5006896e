//! Restart on change: a lineage whose server's source is watched is started again after each
//! change, and what the change did is told (`sonde watch`, a saved server's Restart on change).
//!
//! Owns: one step of that loop ([`RestartOnChange::next`]: wait for a change, run the build,
//! restart the lineage's newest connection with the change as its cause, list the interface and
//! compare it with the previous build's), the whole loop until a front end stops it
//! ([`RestartOnChange::run`]: a build under way is given up, no restart begins after the stop),
//! and [`Rebuilds`], each lineage's latest step as a table a front end follows. A failed build
//! restarts nothing; a failed start leaves the lineage failed until the next change. Refuses: watching files
//! ([`SourceWatch`]), running the build ([`BuildStep`]), comparing ([`diff`]), and what runs on the
//! new build (the front end's check).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;
use tokio::sync::{broadcast, watch};

use super::Hub;
use crate::feed::Feed;
use crate::interface::{diff, in_brief, Change, Snapshot};
use crate::sync::Lock;
use crate::watch::{BuildStep, SourceChange, SourceWatch};

/// One step of a watched lineage, as it happens: the change that caused it and where it is.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rebuild {
    /// Increases with every step of every lineage: a front end keeps the newest it has seen.
    pub version: u64,
    /// The lineage (serialized as `line`, as the connection states name it).
    #[serde(rename = "line")]
    pub lineage: u64,
    /// The change in words: "a change to server.py".
    pub cause: String,
    pub outcome: RebuildOutcome,
}

/// Where a step is, or how it ended.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum RebuildOutcome {
    /// The build runs.
    Building { command: String },
    /// The server is being restarted.
    Restarting,
    /// The build failed: the server was not restarted.
    BuildFailed { command: String, status: String, output: String },
    /// The new server did not start; the lineage's state has its reason and last words.
    StartFailed { reason: String },
    /// The watch stopped (the person stopped the line): nothing more follows.
    Stopped,
    /// The new server is ready as connection `conn`, `took_ms` after the restart began.
    /// `changes` are those since the previous build (breaking first), `None` when either
    /// interface could not be listed; `brief` says them in words, or why they are not known.
    Restarted {
        conn: u64,
        #[serde(rename = "tookMs")]
        took_ms: u64,
        changes: Option<Vec<Change>>,
        brief: String,
    },
}

/// Each watched lineage's latest step, and the stream of every step.
pub struct Rebuilds {
    table: Mutex<(u64, BTreeMap<u64, Rebuild>)>,
    changes: broadcast::Sender<Rebuild>,
}

impl Default for Rebuilds {
    fn default() -> Self {
        Rebuilds { table: Mutex::default(), changes: broadcast::channel(256).0 }
    }
}

impl Rebuilds {
    fn tell(&self, lineage: u64, cause: &str, outcome: RebuildOutcome) -> Rebuild {
        let mut table = self.table.locked();
        table.0 += 1;
        let rebuild = Rebuild { version: table.0, lineage, cause: cause.to_owned(), outcome };
        table.1.insert(lineage, rebuild.clone());
        // Sent under the lock, so the stream's order is the version order.
        let _ = self.changes.send(rebuild.clone());
        rebuild
    }

    /// Each watched lineage's latest step now.
    pub fn snapshot(&self) -> Vec<Rebuild> {
        self.table.locked().1.values().cloned().collect()
    }

    /// The latest steps now, then each step as it happens.
    pub fn feed(self: &Arc<Self>) -> Feed<Rebuild> {
        let changes = self.changes.subscribe();
        let rebuilds = self.clone();
        Feed::new(changes, move || rebuilds.snapshot(), Some)
    }
}

/// A lineage restarted on each change of its source.
pub struct RestartOnChange {
    lineage: u64,
    watch: SourceWatch,
    build: Option<BuildStep>,
    /// The interface of the previous build, when it could be listed.
    before: Option<Snapshot>,
    /// Told each line of the build's output as it comes.
    echo: Box<dyn Fn(&str) + Send + Sync>,
    /// Set to true when the watch is to stop ([`RestartOnChange::run`]).
    stop: watch::Receiver<bool>,
}

impl RestartOnChange {
    /// Watches with `watch` for the lineage of connection `first` (ready or failed), whose
    /// interface is `before` when it was listed.
    pub fn new(
        hub: &Hub,
        first: u64,
        watch: SourceWatch,
        build: Option<BuildStep>,
        before: Option<Snapshot>,
    ) -> Self {
        let lineage = hub.states.lineage_of(first).unwrap_or(first);
        // Never stopped until `run` is given a switch.
        let stop = watch::channel(false).1;
        RestartOnChange { lineage, watch, build, before, echo: Box::new(|_| {}), stop }
    }

    /// Tells `echo` each line of the build's output as it comes (a terminal shows it live).
    pub fn echo_build(mut self, echo: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.echo = Box::new(echo);
        self
    }

    /// The lineage restarted.
    pub fn lineage(&self) -> u64 {
        self.lineage
    }

    /// Answers each change until `stop` turns true (or the file watcher stops): a build under
    /// way is stopped with its whole group, no restart begins after the stop, and a server a
    /// restart under way started is stopped once it is up. The last step told is
    /// [`RebuildOutcome::Stopped`].
    pub async fn run(mut self, hub: &Hub, stop: watch::Receiver<bool>) {
        self.stop = stop;
        let mut stopping = self.stop.clone();
        loop {
            let change = tokio::select! {
                change = self.watch.next() => change,
                _ = stopping.wait_for(|stop| *stop) => None,
            };
            let Some(change) = change else { break };
            self.answer(hub, &change, &|_| {}).await;
            if self.stopped() {
                break;
            }
        }
        hub.rebuilds.tell(self.lineage, "the watch", RebuildOutcome::Stopped);
    }

    /// Waits for the next change and answers it: the build, the restart, the comparison. Each
    /// step is told in the hub's [`Rebuilds`] and to `step` as it happens; the last is
    /// returned. `None` once the file watcher has stopped.
    pub async fn next(&mut self, hub: &Hub, step: &(dyn Fn(&Rebuild) + Send + Sync)) -> Option<Rebuild> {
        let change = self.watch.next().await?;
        Some(self.answer(hub, &change, step).await)
    }

    fn stopped(&self) -> bool {
        *self.stop.borrow()
    }

    /// Answers `change`: the build (given up when the watch stops), the restart (not begun once
    /// it has), the comparison.
    async fn answer(
        &mut self,
        hub: &Hub,
        change: &SourceChange,
        step: &(dyn Fn(&Rebuild) + Send + Sync),
    ) -> Rebuild {
        let cause = change.cause();
        let tell = |outcome| {
            let rebuild = hub.rebuilds.tell(self.lineage, &cause, outcome);
            step(&rebuild);
            rebuild
        };
        if let Some(build) = &self.build {
            tell(RebuildOutcome::Building { command: build.command.clone() });
            let mut stopping = self.stop.clone();
            let built = tokio::select! {
                built = build.run(&*self.echo) => Some(built),
                // Dropping the build kills its process group.
                _ = stopping.wait_for(|stop| *stop) => None,
            };
            match built {
                Some(Ok(())) => {}
                Some(Err(e)) => {
                    return tell(RebuildOutcome::BuildFailed {
                        command: e.command,
                        status: e.status,
                        output: e.output,
                    })
                }
                None => return tell(RebuildOutcome::Stopped),
            }
        }
        if self.stopped() {
            return tell(RebuildOutcome::Stopped);
        }
        tell(RebuildOutcome::Restarting);
        let began = Instant::now();
        let conn = match hub.restart_lineage(self.lineage, &cause, &|_, _| {}).await {
            Ok(conn) => conn,
            Err(e) => return tell(RebuildOutcome::StartFailed { reason: e.failure().0 }),
        };
        if self.stopped() {
            // Stopped while it opened: the server it started goes too.
            let _ = hub.disconnect(conn).await;
            return tell(RebuildOutcome::Stopped);
        }
        let took_ms = u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX);
        let now = match hub.session(conn) {
            Ok(session) => Snapshot::take(&session).await.map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let changes = match (self.before.take(), now) {
            (Some(before), Ok(now)) => {
                let mut changes = diff(&before, &now);
                changes.sort_by_key(|c| c.severity);
                self.before = Some(now);
                Ok(changes)
            }
            (None, Ok(now)) => {
                self.before = Some(now);
                Err("the previous build's interface was not listed".to_owned())
            }
            // Compared with nothing next time: the changes said then would span two builds.
            (_, Err(why)) => Err(format!("the interface could not be listed: {why}")),
        };
        let brief = changes.as_deref().map_or_else(|why| why.clone(), in_brief);
        let outcome = RebuildOutcome::Restarted { conn, took_ms, changes: changes.ok(), brief };
        tell(outcome)
    }
}
