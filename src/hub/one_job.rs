//! A server started for one job and stopped after it, whatever the job gave: a replay against a
//! saved server, a comparison with one, a one-shot command.
//!
//! Owns: opening the config (with the caller's stage reports and, for a replay, a responder of
//! its own) without a restart policy, since the job holds the one session it was given; handing
//! the job that session; and stopping the server with the full ladder once the job has ended,
//! whether it succeeded, failed or was dropped unfinished. A stop that fails is recorded as a
//! note on the connection and returned with the job's output, never hidden.
//! Refuses: the confirmation a front end asks for before a launch, and what the job does or how
//! its outcome is told (the caller's).

use std::future::Future;
use std::sync::Arc;

use super::{Hub, HubError, ServerConfig, Stage};
use crate::connection::Responder;
use crate::log::{Direction, Entry, Kind};
use crate::process::ExitInfo;
use crate::session::Session;

/// What a job on a server of its own gave, and how that server ended.
#[derive(Debug)]
pub struct OneJob<T> {
    /// The connection the job ran on: its entries in the log, its server's last words.
    pub conn: u64,
    /// What the job returned, a failure included: the server is stopped either way.
    pub output: T,
    /// How the server ended when it was stopped (`None` when it had ended already), or why it
    /// could not be stopped (also a note in the log).
    pub stopped: Result<Option<ExitInfo>, HubError>,
}

impl Hub {
    /// Starts `config` for one job, runs `job` with its session and stops the server after it,
    /// whatever the job returned. `answering`, when given, answers the server's requests
    /// instead of the hub's responders (a replay's recorded client); `report` hears each stage
    /// of the opening, as with [`Hub::connect_reporting`]. The server is never restarted: the
    /// job holds the session it was given. An opening that fails is the error, its server
    /// already stopped; a job whose future is dropped unfinished still has its server stopped.
    pub async fn one_job<T, Fut>(
        &self,
        config: &ServerConfig,
        answering: Option<Arc<dyn Responder>>,
        report: &(dyn Fn(u64, Stage) + Send + Sync),
        job: impl FnOnce(Session) -> Fut,
    ) -> Result<OneJob<T>, HubError>
    where
        Fut: Future<Output = T>,
    {
        let config = ServerConfig { restart: None, job: true, ..config.clone() };
        let conn = match answering {
            Some(responder) => self.connect_answering(&config, responder, report).await?,
            None => self.connect_reporting(&config, report).await?,
        };
        // Held until the stop below has finished, so a caller gone mid-stop still has it done.
        let mut guard = StopOnDrop { hub: self.clone(), conn: Some(conn) };
        let session = self.session(conn);
        let output = match session {
            Ok(session) => Ok(job(session).await),
            Err(e) => Err(e),
        };
        let stopped = self.stop_after_job(conn).await;
        guard.conn = None;
        Ok(OneJob { conn, output: output?, stopped })
    }

    /// Stops a job's server; a failure to do so is a note on its connection as well as the
    /// answer, so the log says it where the person looks.
    async fn stop_after_job(&self, conn: u64) -> Result<Option<ExitInfo>, HubError> {
        let stopped = self.disconnect(conn).await;
        if let Err(e) = &stopped {
            let detail = format!("the server started for one job could not be stopped: {e}");
            self.log.append(Entry::new(conn, Kind::Note, Direction::Meta).with_detail(detail));
        }
        stopped
    }
}

/// Stops the job's server if the job's future is dropped before the job ends (its caller
/// cancelled): the stop runs as a task of its own, on the runtime that was polling the job.
struct StopOnDrop {
    hub: Hub,
    conn: Option<u64>,
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        let Some(conn) = self.conn.take() else { return };
        let hub = self.hub.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = hub.stop_after_job(conn).await;
            });
        }
    }
}
