//! How a connection stands, as its loop knows it: open, stopping (at which step), or ended
//! (and why). A front end's connection state is built on this, never guessed.
//!
//! Owns: [`Status`], its words, and turning a server process's lifecycle events into it.
//! Refuses: acting on it. The hub watches it and decides what an end means (an exit the user
//! asked for, or one to report and perhaps restart after).

use tokio::sync::watch;

use crate::lifecycle::{duration_words, ExitInfo, Lifecycle, Signal};
use crate::process::Graces;

/// Where a connection is.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Open,
    /// Sonde is shutting it down; the words name the step ("closed stdin; waiting up to 2 s").
    Stopping(String),
    /// It is over: the server process ended (stdio) or the connection was closed (HTTP).
    Ended {
        reason: String,
        exit: Option<ExitInfo>,
    },
}

impl Status {
    pub fn is_ended(&self) -> bool {
        matches!(self, Status::Ended { .. })
    }
}

/// The status a process's lifecycle event leads to from `now`, if it changes it. Nothing
/// moves an ended connection: the signals of the sweep after the server's own exit are
/// shutdown steps of its stragglers, not of the connection.
pub fn after(now: &Status, event: &Lifecycle, graces: Graces) -> Option<Status> {
    if now.is_ended() {
        return None;
    }
    match event {
        Lifecycle::StdinClosed { .. } => Some(Status::Stopping(format!(
            "closed stdin; waiting up to {} for it to exit",
            duration_words(graces.stdin)
        ))),
        Lifecycle::Signalled { signal: Signal::Term, .. } => Some(Status::Stopping(format!(
            "sent SIGTERM; waiting up to {} for it to exit",
            duration_words(graces.term)
        ))),
        Lifecycle::Signalled { signal: Signal::Kill, .. } => {
            Some(Status::Stopping("sent SIGKILL to its process group".into()))
        }
        Lifecycle::Exited(info) => Some(Status::Ended { reason: event.describe(), exit: Some(info.clone()) }),
        _ => None,
    }
}

/// Sets the status to what `event` leads to, telling the watchers only of a change.
pub fn observe(status: &watch::Sender<Status>, event: &Lifecycle, graces: Graces) {
    status.send_if_modified(|now| match after(now, event, graces) {
        Some(next) if next != *now => {
            *now = next;
            true
        }
        _ => false,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_reads_as_stopping_steps_and_the_exit_ends_it() {
        let graces = Graces::default();
        let stdin = after(&Status::Open, &Lifecycle::StdinClosed { grace_ms: 2000 }, graces).unwrap();
        assert_eq!(stdin, Status::Stopping("closed stdin; waiting up to 2 s for it to exit".into()));
        let term = Lifecycle::Signalled { signal: Signal::Term, pgid: 7, reason: String::new() };
        assert_eq!(
            after(&stdin, &term, graces),
            Some(Status::Stopping("sent SIGTERM; waiting up to 2 s for it to exit".into()))
        );
        let exit = ExitInfo { code: None, signal: Some(9), during: None };
        let ended = after(&stdin, &Lifecycle::Exited(exit.clone()), graces).unwrap();
        assert_eq!(ended, Status::Ended { reason: "server killed by SIGKILL".into(), exit: Some(exit) });
        // The sweep's signals after the exit do not bring the connection back to "stopping".
        assert_eq!(after(&ended, &term, graces), None);
        assert_eq!(after(&Status::Open, &Lifecycle::StdoutClosed, graces), None);
    }
}
