//! The life of a server process as a closed set of events: the vocabulary shared by the
//! process supervisor, which produces these events, and the wire log, which records them.
//!
//! Owns: `Lifecycle` (what happened), `Signal`, `ExitInfo` (how it ended and who ended it) and
//! the factual wording of all three, durations and signal names included.
//! Refuses: acting on them (`process` does) and storing them (`log` does). It imports no other
//! module of the crate, so both can depend on it.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One step in a server process's life.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Lifecycle {
    /// The connection opens the saved server of this name: how the log and the window tell
    /// connections apart (a connection without one is known by its command or URL).
    Server { name: String },
    /// The process started in a process group of its own (pgid = pid).
    Spawned { pid: u32, command: String },
    /// The process could not be started.
    SpawnFailed { command: String, error: String },
    /// The server closed its stdout.
    StdoutClosed,
    /// Shutdown ladder step 1: Sonde closed the server's stdin, the polite request to exit.
    StdinClosed { grace_ms: u64 },
    /// Shutdown ladder step 2 or 3: a signal sent to the whole process group.
    Signalled { signal: Signal, pgid: i32, reason: String },
    /// The server process (the group leader) ended and was reaped.
    Exited(ExitInfo),
    /// The process group is empty: no server, no grandchild left.
    GroupGone { pgid: i32 },
    /// The group could not be emptied by the deadline (a process stuck in the kernel).
    GroupStuck { pgid: i32, pids: Vec<i32> },
    /// This connection was started to replace connection `previous` (`why`: a restart the
    /// user asked for, or supervision's attempt).
    Replaces { previous: u64, why: String },
    /// Supervision: the server ended by itself (`reason`); attempt `attempt` starts after
    /// `wait_ms`.
    RestartWait { attempt: u32, wait_ms: u64, reason: String },
    /// Supervision gave up: the server ended `exits` times within `window_ms`.
    CrashLoop { exits: u32, window_ms: u64 },
}

/// The two signals of the shutdown ladder.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Signal {
    #[serde(rename = "SIGTERM")]
    Term,
    #[serde(rename = "SIGKILL")]
    Kill,
}

impl Signal {
    pub fn name(self) -> &'static str {
        match self {
            Signal::Term => "SIGTERM",
            Signal::Kill => "SIGKILL",
        }
    }

    pub fn number(self) -> i32 {
        match self {
            Signal::Term => libc::SIGTERM,
            Signal::Kill => libc::SIGKILL,
        }
    }
}

/// How the server process ended.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExitInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
    /// The signal number that ended it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// The shutdown step Sonde had reached when it ended, if Sonde was stopping it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub during: Option<String>,
}

impl ExitInfo {
    /// [`ExitInfo::describe`] after "the server" in a sentence: "the server was killed by
    /// SIGTERM", "the server exited with code 1".
    pub fn after_subject(&self) -> String {
        match (self.code, self.signal) {
            (None, Some(_)) => format!("was {}", self.describe()),
            _ => self.describe(),
        }
    }

    /// What happened, in words made only of facts: "exited with code 1",
    /// "killed by SIGKILL after the 2 s SIGTERM grace".
    pub fn describe(&self) -> String {
        let how = match (self.code, self.signal) {
            (Some(code), _) => format!("exited with code {code}"),
            (None, Some(sig)) => format!("killed by {}", signal_name(sig)),
            (None, None) => "ended".to_owned(),
        };
        match &self.during {
            Some(step) => format!("{how} {step}"),
            None => how,
        }
    }
}

impl Lifecycle {
    /// One line for the log's `detail` and for people.
    pub fn describe(&self) -> String {
        match self {
            Lifecycle::Server { name } => format!("opens the saved server \"{name}\""),
            Lifecycle::Spawned { pid, command } => {
                format!("spawned pid {pid} (own process group): {command}")
            }
            Lifecycle::SpawnFailed { command, error } => {
                format!("could not start {command}: {error}")
            }
            Lifecycle::StdoutClosed => "server closed stdout".to_owned(),
            Lifecycle::StdinClosed { grace_ms } => {
                format!("closed stdin; waiting up to {} for exit", ms(*grace_ms))
            }
            Lifecycle::Signalled { signal, pgid, reason } => {
                format!("sent {} to process group {pgid} {reason}", signal.name())
            }
            Lifecycle::Exited(info) => format!("server {}", info.describe()),
            Lifecycle::GroupGone { pgid } => {
                format!("process group {pgid} is empty; shutdown complete")
            }
            Lifecycle::GroupStuck { pgid, pids } => {
                format!("process group {pgid} still has {pids:?} after SIGKILL")
            }
            Lifecycle::Replaces { previous, why } => format!("replaces connection {previous} ({why})"),
            Lifecycle::RestartWait { attempt, wait_ms, reason } => {
                format!("{reason}; restart attempt {attempt} in {}", ms(*wait_ms))
            }
            Lifecycle::CrashLoop { exits, window_ms } => {
                format!(
                    "crash loop: the server ended {exits} times within {}; not restarting it",
                    ms(*window_ms)
                )
            }
        }
    }
}

/// A duration as people say it: "2 s", "250 ms".
pub fn ms(ms: u64) -> String {
    if ms >= 1000 && ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else if ms >= 1000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{ms} ms")
    }
}

pub fn duration_words(d: Duration) -> String {
    ms(d.as_millis() as u64)
}

/// `SIGKILL` for 9, `signal 42` for what has no name.
pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGUSR2 => "SIGUSR2",
        _ => return format!("signal {sig}"),
    };
    name.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exits_are_worded_from_facts() {
        let crash = ExitInfo { code: Some(1), signal: None, during: None };
        assert_eq!(crash.describe(), "exited with code 1");
        let killed =
            ExitInfo { code: None, signal: Some(9), during: Some("after the 2 s SIGTERM grace".into()) };
        assert_eq!(killed.describe(), "killed by SIGKILL after the 2 s SIGTERM grace");
        assert_eq!(killed.after_subject(), "was killed by SIGKILL after the 2 s SIGTERM grace");
        assert_eq!(ms(250), "250 ms");
        assert_eq!(ms(2000), "2 s");
        assert_eq!(ms(1500), "1.5 s");
    }

    #[test]
    fn lifecycle_events_serialize_with_their_name() {
        let v =
            serde_json::to_value(Lifecycle::Signalled { signal: Signal::Kill, pgid: 7, reason: "x".into() })
                .unwrap();
        assert_eq!(v["event"], "signalled");
        assert_eq!(v["signal"], "SIGKILL");
        let exited =
            serde_json::to_value(Lifecycle::Exited(ExitInfo { code: Some(0), signal: None, during: None }))
                .unwrap();
        assert_eq!(exited, serde_json::json!({"event":"exited","code":0}));
    }
}
