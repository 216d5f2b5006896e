//! Restart on change: a lineage whose server's source is watched is started again after each
//! change, and what the change did is told (`sonde watch`, a saved server's Restart on change).
//!
//! Owns: one step of that loop ([`RestartOnChange::next`]: wait for a change, run the build,
//! restart the lineage's newest connection with the change as its cause, list the interface and
//! compare it with the previous build's), and [`Rebuilds`], each lineage's latest step as a
//! table a front end follows. A failed build leaves the running server as it was; a failed
//! start leaves the lineage failed until the next change. Refuses: watching files
//! ([`SourceWatch`]), running the build ([`BuildStep`]), comparing ([`diff`]), and what runs on the
//! new build (the front end's check).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;
use tokio::sync::broadcast;

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
    /// The build failed: the running server was left as it was.
    BuildFailed { command: String, status: String, output: String },
    /// The new server did not start; the lineage's state has its reason and last words.
    StartFailed { reason: String },
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

impl RebuildOutcome {
    /// Whether the step is over (the next one comes with the next change).
    pub fn is_final(&self) -> bool {
        !matches!(self, RebuildOutcome::Building { .. } | RebuildOutcome::Restarting)
    }
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
        let lineage = hub.states.get(first).map_or(first, |e| e.lineage);
        RestartOnChange { lineage, watch, build, before, echo: Box::new(|_| {}) }
    }

    /// Tells `echo` each line of the build's output as it comes (a terminal shows it live).
    pub fn echo_build(mut self, echo: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.echo = Box::new(echo);
        self
    }

    /// Waits for the next change and answers it: the build, the restart, the comparison. Each
    /// step is told in the hub's [`Rebuilds`] and to `step` as it happens; the last is
    /// returned. `None` once the file watcher has stopped.
    pub async fn next(&mut self, hub: &Hub, step: &(dyn Fn(&Rebuild) + Send + Sync)) -> Option<Rebuild> {
        let change = self.changed().await?;
        Some(self.answer(hub, &change, step).await)
    }

    /// The next change of the source; `None` once the file watcher has stopped. Cancellation-
    /// safe: a front end that stops watching drops it.
    pub async fn changed(&mut self) -> Option<SourceChange> {
        self.watch.next().await
    }

    /// Answers `change` as [`RestartOnChange::next`] does. Not to be dropped half-way: a
    /// restart dropped while the new server opens would leave the lineage half-replaced.
    pub async fn answer(
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
            if let Err(e) = build.run(&*self.echo).await {
                return tell(RebuildOutcome::BuildFailed {
                    command: e.command,
                    status: e.status,
                    output: e.output,
                });
            }
        }
        tell(RebuildOutcome::Restarting);
        let began = Instant::now();
        // The lineage's newest connection: a restart the person asked for meanwhile moved it.
        let newest = hub.states.newest(self.lineage).unwrap_or(self.lineage);
        let conn = match hub.restart_because(newest, &cause, &|_, _| {}).await {
            Ok(conn) => conn,
            Err(e) => return tell(RebuildOutcome::StartFailed { reason: e.failure().0 }),
        };
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

    /// The lineage restarted.
    pub fn lineage(&self) -> u64 {
        self.lineage
    }
}
