//! The state of every connection the hub has opened: a table of the latest, and a stream of
//! every change, for front ends to show as it happens.
//!
//! Owns: [`ConnState`] (the closed set of states a connection can be in), [`StateEvent`] (one
//! change, with the lineage of restarts the connection belongs to and what it replaces), the
//! table of each connection's latest state and config, the broadcast of changes, and the halt
//! flag that stops a lineage's supervision.
//! Refuses: deciding states (the hub does, from the opening and the connections' status) and
//! presentation beyond the factual words the states carry.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tokio::sync::{broadcast, Notify};

use super::Stage;
use crate::feed::Feed;
use crate::last_words::LastWords;
use crate::server_config::ServerConfig;
use crate::session::ServerDescription;
use crate::sync::Lock;

/// Where a connection is. Every state a front end shows comes from here.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ConnState {
    /// Being opened, at this stage.
    Opening { stage: Stage },
    /// Open in its era; requests may be sent.
    Ready { pid: Option<u32>, server: Box<ServerDescription> },
    /// Sonde is shutting it down; `step` names the step of the ladder it is at.
    Stopping { step: String },
    /// The opening failed; `reason` says how, `words` what the server last said.
    Failed { reason: String, words: LastWords },
    /// It ended. `requested` is true when Sonde stopped it (the user, a restart, quitting).
    Exited { reason: String, requested: bool, words: LastWords },
    /// Supervised: it ended by itself and attempt `attempt` starts after `wait_ms`.
    Waiting { attempt: u32, wait_ms: u64, reason: String },
    /// Supervised: it ended too often (`exits` times within the window), so Sonde stopped
    /// trying. `reason` and `words` are those of the last exit.
    CrashLoop { exits: u32, reason: String, words: LastWords },
}

impl ConnState {
    /// True for the states a connection does not leave by itself.
    pub fn is_final(&self) -> bool {
        matches!(self, ConnState::Failed { .. } | ConnState::Exited { .. } | ConnState::CrashLoop { .. })
    }
}

/// One change of one connection's state.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StateEvent {
    /// Increases with every event of the hub: a front end keeps the newest it has seen.
    pub version: u64,
    pub conn: u64,
    /// The first connection of its lineage: a restart starts a new connection on the same
    /// lineage. (Serialized as `line`, its name before the rename; serialized names never change.)
    #[serde(rename = "line")]
    pub lineage: u64,
    /// The connection this one was started to replace.
    pub replaces: Option<u64>,
    /// Started for one job (a comparison, a replay, a check-up) and stopped after it.
    pub job: bool,
    pub state: ConnState,
}

struct Row {
    event: StateEvent,
    config: Arc<ServerConfig>,
}

#[derive(Default)]
struct Table {
    version: u64,
    rows: BTreeMap<u64, Row>,
    /// Connections whose supervision the user stopped: no restart follows their end.
    halted: HashSet<u64>,
}

/// The table and its stream.
pub struct States {
    table: Mutex<Table>,
    changes: broadcast::Sender<StateEvent>,
    halts: Notify,
}

impl Default for States {
    fn default() -> Self {
        States { table: Mutex::default(), changes: broadcast::channel(1024).0, halts: Notify::new() }
    }
}

impl States {
    /// Starts tracking connection `conn`, opened with `config`, perhaps to replace another.
    /// Its lineage is that of the connection it replaces, or its own.
    pub fn begin(&self, conn: u64, config: &ServerConfig, replaces: Option<u64>, stage: Stage) {
        let mut table = self.table.locked();
        let lineage = replaces.and_then(|r| table.rows.get(&r)).map_or(conn, |r| r.event.lineage);
        table.version += 1;
        let event = StateEvent {
            version: table.version,
            conn,
            lineage,
            replaces,
            job: config.job,
            state: ConnState::Opening { stage },
        };
        table.rows.insert(conn, Row { event: event.clone(), config: Arc::new(config.clone()) });
        // Sent under the lock, so the stream's order is the version order.
        let _ = self.changes.send(event);
    }

    /// Moves `conn` to `state` and tells every follower. Unknown connections are ignored.
    pub fn set(&self, conn: u64, state: ConnState) {
        let mut table = self.table.locked();
        let version = table.version + 1;
        let Some(row) = table.rows.get_mut(&conn) else { return };
        if row.event.state == state {
            return;
        }
        row.event.version = version;
        row.event.state = state;
        let event = row.event.clone();
        table.version = version;
        let _ = self.changes.send(event);
    }

    /// The latest state of `conn`.
    pub fn get(&self, conn: u64) -> Option<StateEvent> {
        self.table.locked().rows.get(&conn).map(|r| r.event.clone())
    }

    /// The config `conn` was opened with.
    pub fn config(&self, conn: u64) -> Option<Arc<ServerConfig>> {
        self.table.locked().rows.get(&conn).map(|r| r.config.clone())
    }

    /// The newest state of every lineage (its latest connection's), oldest lineage first.
    pub fn snapshot(&self) -> Vec<StateEvent> {
        let table = self.table.locked();
        let mut newest: BTreeMap<u64, &StateEvent> = BTreeMap::new();
        for row in table.rows.values() {
            let e = &row.event;
            if newest.get(&e.lineage).is_none_or(|n| n.version < e.version) {
                newest.insert(e.lineage, e);
            }
        }
        newest.into_values().cloned().collect()
    }

    /// The lineage connection `conn` belongs to.
    pub fn lineage_of(&self, conn: u64) -> Option<u64> {
        self.table.locked().rows.get(&conn).map(|r| r.event.lineage)
    }

    /// Every connection of `lineage` the table still holds, oldest first.
    pub fn lineage_conns(&self, lineage: u64) -> Vec<u64> {
        let table = self.table.locked();
        let mut conns: Vec<u64> =
            table.rows.values().filter(|r| r.event.lineage == lineage).map(|r| r.event.conn).collect();
        conns.sort_unstable();
        conns
    }

    /// The newest connection of `lineage` (the one a restart replaces), if it has any.
    pub fn newest(&self, lineage: u64) -> Option<u64> {
        let table = self.table.locked();
        table.rows.values().filter(|r| r.event.lineage == lineage).map(|r| r.event.conn).max()
    }

    /// Every change from now on. A follower that falls more than 1024 changes behind hears
    /// `Lagged` and should take a [`States::snapshot`], as [`States::feed`] does.
    pub fn follow(&self) -> broadcast::Receiver<StateEvent> {
        self.changes.subscribe()
    }

    /// Every lineage's newest state now, then each change as it happens.
    pub fn feed(self: &Arc<Self>) -> Feed<StateEvent> {
        let changes = self.follow();
        let states = self.clone();
        Feed::new(changes, move || states.snapshot(), Some)
    }

    /// Stops supervision after `conn`: no restart replaces it. A restart the user asks for
    /// starts a new connection, which is not halted.
    pub fn halt(&self, conn: u64) {
        self.table.locked().halted.insert(conn);
        self.halts.notify_waiters();
    }

    pub fn is_halted(&self, conn: u64) -> bool {
        self.table.locked().halted.contains(&conn)
    }

    /// Resolves once `conn` is halted (at once if it already is).
    pub async fn halted(&self, conn: u64) {
        loop {
            let notified = self.halts.notified();
            tokio::pin!(notified);
            // Registered before the check, so a halt between the two is not missed.
            notified.as_mut().enable();
            if self.is_halted(conn) {
                return;
            }
            notified.await;
        }
    }
}
