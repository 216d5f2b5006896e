//! A lineage of connections to one configured server: the first, and each one started to replace
//! the one before (a restart the user asked for, or supervision's).
//!
//! Owns: watching a ready connection until it ends (its stopping steps and its end reach the
//! states table as they happen, with the server's last words), restarting on request (one
//! restart of a lineage at a time), and
//! supervision: after an end the server did not ask for, waiting as the [`Backoff`] says and
//! starting the same config again, until it is healthy, halted, or in a crash loop.
//! Refuses: the opening itself (`Hub::open_one`) and deciding when to wait (`backoff`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use super::backoff::{Backoff, Next};
use super::{ConnState, Hub, HubError, Stage};
use crate::connection::Status;
use crate::last_words::LastWords;
use crate::lifecycle::{ExitInfo, Lifecycle};
use crate::server_config::ServerConfig;
use crate::sync::Lock;

/// The restart schedule a supervised lineage shares across its connections.
pub(super) type Lineage = Option<Arc<Mutex<Backoff>>>;

pub(super) fn of(config: &ServerConfig) -> Lineage {
    config.restart.map(|policy| Arc::new(Mutex::new(Backoff::new(policy))))
}

/// One restart at a time per lineage: the lock each lineage's restarts take their turn on.
#[derive(Default)]
pub(super) struct Turns(Mutex<HashMap<u64, Arc<tokio::sync::Mutex<()>>>>);

impl Turns {
    async fn take(&self, lineage: u64) -> tokio::sync::OwnedMutexGuard<()> {
        let lock = self.0.locked().entry(lineage).or_default().clone();
        lock.lock_owned().await
    }
}

/// How an ended connection ended, for what follows.
struct End {
    conn: u64,
    reason: String,
    words: LastWords,
    /// How long it was ready (zero when it never opened).
    ran: Duration,
}

impl Hub {
    /// Opens a connection of a lineage and watches it; when the opening fails on a supervised
    /// lineage, supervision takes over (the error is still returned).
    pub(super) async fn open_lineage(
        &self,
        config: &ServerConfig,
        replaces: Option<(u64, String)>,
        report: &(dyn Fn(u64, Stage) + Send + Sync),
        lineage: Lineage,
    ) -> Result<u64, HubError> {
        match self.open_one(config, replaces, report).await {
            Ok(id) => {
                self.adopt(id, lineage).await;
                Ok(id)
            }
            Err((conn, error)) => {
                if lineage.is_some() {
                    let (reason, words) = error.failure();
                    let end = End { conn, reason, words, ran: Duration::ZERO };
                    self.spawn_supervise(Arc::new(config.clone()), end, lineage);
                }
                Err(error)
            }
        }
    }

    /// Stops connection `id` (if it is still up) and starts its config again as a new
    /// connection on the same lineage. Returns the new connection's id.
    pub async fn restart(
        &self,
        id: u64,
        report: &(dyn Fn(u64, Stage) + Send + Sync),
    ) -> Result<u64, HubError> {
        self.restart_because(id, "restart", report).await
    }

    /// [`Hub::restart`] with `config` instead of the one connection `id` was started with: a
    /// saved server as it is saved now (a variable added after a failed start).
    pub async fn restart_with(
        &self,
        id: u64,
        config: &ServerConfig,
        report: &(dyn Fn(u64, Stage) + Send + Sync),
    ) -> Result<u64, HubError> {
        let lineage = self.states.lineage_of(id).ok_or(HubError::NoSuchConnection(id))?;
        let _turn = self.turns.take(lineage).await;
        self.newest_is(lineage, id)?;
        self.restart_now(id, config, "restart", report).await
    }

    /// [`Hub::restart`], its cause (`a change to server.py`) said in the new connection's
    /// lifecycle entry. A connection its lineage has replaced meanwhile (another restart came
    /// first) is not restarted again: two restarts of one lineage never run at once.
    pub async fn restart_because(
        &self,
        id: u64,
        why: &str,
        report: &(dyn Fn(u64, Stage) + Send + Sync),
    ) -> Result<u64, HubError> {
        let lineage = self.states.lineage_of(id).ok_or(HubError::NoSuchConnection(id))?;
        let _turn = self.turns.take(lineage).await;
        self.newest_is(lineage, id)?;
        let config = self.states.config(id).ok_or(HubError::NoSuchConnection(id))?;
        self.restart_now(id, &config, why, report).await
    }

    /// Refuses a restart of a connection its lineage has replaced since.
    fn newest_is(&self, lineage: u64, id: u64) -> Result<(), HubError> {
        match self.states.newest(lineage).filter(|&newest| newest != id) {
            Some(by) => Err(HubError::Replaced { conn: id, by }),
            None => Ok(()),
        }
    }

    /// Restarts the newest connection of `lineage`, whichever it is once no other restart of
    /// the lineage runs. Returns the new connection's id.
    pub async fn restart_lineage(
        &self,
        lineage: u64,
        why: &str,
        report: &(dyn Fn(u64, Stage) + Send + Sync),
    ) -> Result<u64, HubError> {
        let _turn = self.turns.take(lineage).await;
        let newest = self.states.newest(lineage).ok_or(HubError::NoSuchConnection(lineage))?;
        let config = self.states.config(newest).ok_or(HubError::NoSuchConnection(newest))?;
        self.restart_now(newest, &config, why, report).await
    }

    /// Stops `id` and starts `config` on its lineage; the caller holds the lineage's turn.
    async fn restart_now(
        &self,
        id: u64,
        config: &ServerConfig,
        why: &str,
        report: &(dyn Fn(u64, Stage) + Send + Sync),
    ) -> Result<u64, HubError> {
        // Halts any supervision waiting to replace it: this restart is the replacement.
        self.disconnect(id).await?;
        self.open_lineage(config, Some((id, why.into())), report, of(config)).await
    }

    /// Publishes the stopping steps of connection `id` until it ends; returns how it ended.
    pub(super) async fn follow_status(
        &self,
        id: u64,
        status: &mut watch::Receiver<Status>,
    ) -> (String, Option<ExitInfo>) {
        loop {
            let now = status.borrow_and_update().clone();
            match now {
                Status::Open => {}
                Status::Stopping(step) => self.states.set(id, ConnState::Stopping { step }),
                Status::Ended { reason, exit } => return (reason, exit),
            }
            if status.changed().await.is_err() {
                return ("the connection ended".into(), None);
            }
        }
    }

    /// Watches a connection that just opened; one the user stopped while it was opening is
    /// stopped now.
    async fn adopt(&self, id: u64, lineage: Lineage) {
        self.spawn_watch(id, lineage);
        if self.states.is_halted(id) {
            // The stop's effect is in the states and the log; there is nothing to return it to.
            let _ = self.disconnect(id).await;
        }
    }

    // A plain function that spawns: the watch and the supervision start each other, and an
    // async function cannot hold a future of its own type.
    fn spawn_watch(&self, id: u64, lineage: Lineage) {
        let hub = self.clone();
        tokio::spawn(async move { hub.watch(id, lineage).await });
    }

    fn spawn_supervise(&self, config: Arc<ServerConfig>, end: End, lineage: Lineage) {
        let hub = self.clone();
        tokio::spawn(async move { hub.supervise(config, end, lineage).await });
    }

    /// Watches a ready connection until it ends, then records the end with the server's last
    /// words and, on a supervised lineage, hands over to supervision.
    async fn watch(self, id: u64, lineage: Lineage) {
        let Ok(conn) = self.connection(id) else { return };
        let Some(config) = self.states.config(id) else { return };
        let ready_at = Instant::now();
        let mut status = conn.status();
        let (reason, exit) = self.follow_status(id, &mut status).await;
        let ran = ready_at.elapsed();
        // Sonde asked when it had started the ladder (or closed the HTTP connection).
        let requested = exit.as_ref().is_none_or(|e| e.during.is_some());
        // What a server said before Sonde stopped it explains nothing; its own end it may.
        let words =
            |hub: &Hub| if requested { LastWords::default() } else { hub.last_words(id, &config, false) };
        self.states.set(id, ConnState::Exited { reason: reason.clone(), requested, words: words(&self) });
        // The ladder sweeps what the server left in its group and reads the last of its
        // stderr; for a shutdown Sonde started, this waits for that one to finish.
        // The session stays until it is disconnected or replaced, so a request sent to it
        // later is refused with the facts ("server exited with code 1; tools/list was not sent").
        conn.shutdown().await;
        let words = words(&self);
        self.states.set(id, ConnState::Exited { reason: reason.clone(), requested, words: words.clone() });
        if !requested && lineage.is_some() && !self.states.is_halted(id) {
            self.supervise(config, End { conn: id, reason, words, ran }, lineage).await;
        }
    }

    /// After an end the server did not ask for: waits as the lineage's schedule says and starts
    /// the config again, each attempt a new connection replacing the last; stops at a crash
    /// loop or when the user halts the lineage.
    async fn supervise(self, config: Arc<ServerConfig>, mut end: End, lineage: Lineage) {
        let Some(schedule) = lineage.clone() else { return };
        loop {
            let next = schedule.locked().on_exit(Instant::now(), end.ran);
            let (attempt, after) = match next {
                Next::GiveUp { exits } => {
                    let window = config.restart.map_or(Duration::ZERO, |p| p.window);
                    let window_ms = u64::try_from(window.as_millis()).unwrap_or(u64::MAX);
                    self.lifecycle(end.conn, Lifecycle::CrashLoop { exits, window_ms });
                    self.states
                        .set(end.conn, ConnState::CrashLoop { exits, reason: end.reason, words: end.words });
                    return;
                }
                Next::Wait { attempt, after } => (attempt, after),
            };
            let wait_ms = u64::try_from(after.as_millis()).unwrap_or(u64::MAX);
            let reason = end.reason.clone();
            self.lifecycle(end.conn, Lifecycle::RestartWait { attempt, wait_ms, reason: reason.clone() });
            self.states.set(end.conn, ConnState::Waiting { attempt, wait_ms, reason });
            tokio::select! {
                () = tokio::time::sleep(after) => {}
                () = self.states.halted(end.conn) => {
                    let reason = format!("{}; not restarted: stopped by the user", end.reason);
                    self.states.set(end.conn, ConnState::Exited { reason, requested: true, words: end.words });
                    return;
                }
            }
            let why = format!("supervised restart, attempt {attempt}");
            match self.open_one(&config, Some((end.conn, why)), &|_, _| {}).await {
                Ok(id) => {
                    self.adopt(id, lineage).await;
                    return;
                }
                Err((conn, error)) => {
                    let (reason, words) = error.failure();
                    end = End { conn, reason, words, ran: Duration::ZERO };
                }
            }
        }
    }
}
