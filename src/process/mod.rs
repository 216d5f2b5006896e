//! Owning a server process: its group, its pipes, its stderr terminal, its death.
//!
//! Owns: spawning a server in a process group of its own with stdin/stdout as pipes and stderr
//! through a pty; watching for its exit; the shutdown ladder (close stdin → grace → SIGTERM to
//! the group → grace → SIGKILL to the group → reap), applied to stragglers in the group too;
//! the keeper that stops the groups if Sonde itself dies. Every step is a lifecycle entry.
//! Refuses: anything about JSON-RPC. The connection reads stdout and writes stdin.
//!
//! A process's life is never tied to a caller's deadline: the child is owned by a watcher task,
//! and only [`Process::shutdown`] (or dropping the [`Process`], as a backstop) ends it.

mod env;
mod group;
mod keeper;
mod pty;

pub use env::PASSED_THROUGH;
pub use group::{group_usage, live_members, GroupUsage};
// The events this module records, re-exported: they are what a caller of a process reads.
pub use crate::lifecycle::{duration_words, ExitInfo, Lifecycle, Signal};

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::{oneshot, watch};

use crate::log::{Direction, Entry, Kind, WireLog};
use crate::sync::Lock;
use pty::{Capture, StderrPty};

/// What to run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpawnSpec {
    pub program: String,
    pub args: Vec<String>,
    pub cwd: Option<PathBuf>,
    /// Variables set on top of the default environment; they win over inherited ones.
    pub env: Vec<(String, String)>,
    /// Pass Sonde's whole environment instead of the minimal default.
    pub inherit_env: bool,
}

impl SpawnSpec {
    pub fn new(program: impl Into<String>, args: impl IntoIterator<Item = impl Into<String>>) -> SpawnSpec {
        SpawnSpec {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            ..SpawnSpec::default()
        }
    }

    /// The command line as one string, each word quoted when it needs to be.
    pub fn command_line(&self) -> String {
        std::iter::once(&self.program).chain(&self.args).map(|w| quote(w)).collect::<Vec<_>>().join(" ")
    }
}

fn quote(word: &str) -> String {
    let plain =
        !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@+%".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// How long each polite step of the shutdown ladder waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Graces {
    /// After closing stdin, before SIGTERM.
    pub stdin: Duration,
    /// After SIGTERM, before SIGKILL.
    pub term: Duration,
}

impl Default for Graces {
    fn default() -> Self {
        Graces { stdin: Duration::from_secs(2), term: Duration::from_secs(2) }
    }
}

/// How long to wait for the kernel after SIGKILL before reporting the group stuck.
const KILL_DEADLINE: Duration = Duration::from_secs(5);
/// How long a shutdown waits for the stderr recorder to read the last of what the server wrote,
/// and for the owner of stdout to have recorded its end.
const DRAIN: Duration = Duration::from_secs(1);

/// Hears each lifecycle event as it is recorded (the connection turns them into its status).
pub type Observer = Arc<dyn Fn(&Lifecycle) + Send + Sync>;

/// Where a process's lifecycle events go: the log, its history, and the observer.
struct Events {
    log: Arc<WireLog>,
    conn: u64,
    history: Mutex<Vec<(SystemTime, Lifecycle)>>,
    observer: Option<Observer>,
    /// Held to record an event, and across sending a signal and recording it: an exit the
    /// signal causes, recorded by the reaping task, then follows the signal in the log.
    turn: Mutex<()>,
}

impl Events {
    fn record(&self, event: Lifecycle) {
        let _turn = self.turn.locked();
        self.record_in_turn(event);
    }

    /// Records `event`; the caller holds `turn`.
    fn record_in_turn(&self, event: Lifecycle) {
        let mut entry = Entry::new(self.conn, Kind::Lifecycle, Direction::Meta).with_detail(event.describe());
        entry.lifecycle = Some(event.clone());
        self.log.append(entry);
        // After the log: whoever hears of the event finds it already recorded.
        if let Some(observer) = &self.observer {
            observer(&event);
        }
        self.history.locked().push((SystemTime::now(), event));
    }
}

/// A freshly started server: the process handle and its two pipes.
pub struct Spawned {
    pub process: Process,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
}

/// A running (or ended) server process and its group.
pub struct Process {
    pid: u32,
    /// When the leader started: a later process given the same pid is not it.
    start: Option<u64>,
    log: Arc<WireLog>,
    conn: u64,
    exit: watch::Receiver<Option<ExitInfo>>,
    /// The shutdown step reached, worded for [`ExitInfo::during`].
    step: Arc<Mutex<Option<String>>>,
    events: Arc<Events>,
    /// Held, never read: dropping it closes the terminal the server's stderr writes to. Behind
    /// a mutex only because portable-pty's master is `Send` but not `Sync`.
    _pty: Mutex<Capture>,
    /// Completes when the stderr recorder has read its last chunk; taken by the shutdown.
    stderr_drained: Mutex<Option<oneshot::Receiver<()>>>,
    /// True once the owner of stdout has recorded that it closed.
    stdout_closed: watch::Sender<bool>,
    done: AtomicBool,
}

/// Starts `spec` in a new process group, recording its lifecycle and stderr in `log`, and
/// telling `observer` of each lifecycle event once it is recorded.
///
/// Must be called inside a Tokio runtime: a task owns the child and reaps it.
pub fn spawn(
    spec: &SpawnSpec,
    log: Arc<WireLog>,
    conn: u64,
    observer: Option<Observer>,
) -> io::Result<Spawned> {
    spawn_with(spec, log, conn, observer, None)
}

/// [`spawn`] for the proxy: the server's stderr is the same kind of stream as `client_stderr`
/// (a terminal for a terminal, else a pipe), and what it writes there passes on to
/// `client_stderr` unchanged as it is recorded, as if Sonde were not between them.
pub fn spawn_passing_stderr(
    spec: &SpawnSpec,
    log: Arc<WireLog>,
    conn: u64,
    client_stderr: std::fs::File,
) -> io::Result<Spawned> {
    spawn_with(spec, log, conn, None, Some(client_stderr))
}

fn spawn_with(
    spec: &SpawnSpec,
    log: Arc<WireLog>,
    conn: u64,
    observer: Option<Observer>,
    tee: Option<std::fs::File>,
) -> io::Result<Spawned> {
    let events = Arc::new(Events {
        log: log.clone(),
        conn,
        history: Mutex::new(Vec::new()),
        observer,
        turn: Mutex::new(()),
    });
    let command_line = spec.command_line();
    use std::io::IsTerminal;
    let capture = match &tee {
        Some(client) if !client.is_terminal() => Capture::pipe(),
        _ => StderrPty::open().map(Capture::Pty),
    };
    let result = capture.and_then(|capture| start(spec, capture));
    let (mut child, pty) = match result {
        Ok(started) => started,
        Err(e) => {
            events.record(Lifecycle::SpawnFailed { command: command_line, error: e.to_string() });
            return Err(e);
        }
    };
    let pid = child.id().expect("a child that was just spawned has a pid");
    let start = group::start_time(pid as i32);
    if let Err(e) = keeper::register(pid as i32) {
        let note =
            format!("could not start the keeper ({e}); if Sonde is killed, this server may outlive it");
        log.append(Entry::new(conn, Kind::Note, Direction::Meta).with_detail(note));
    }
    events.record(Lifecycle::Spawned { pid, command: command_line });
    // Read only once the spawn is recorded, so a process's stderr always follows its spawn in
    // the log (the pty keeps what was written meanwhile) and the last words of a respawned
    // server are told apart from those of the process before it.
    let mut pty = pty;
    let stderr_drained = pty.record_into(log.clone(), conn, tee)?;

    let stdin = child.stdin.take().expect("stdin was piped");
    let stdout = child.stdout.take().expect("stdout was piped");
    let (exit_tx, exit_rx) = watch::channel(None);
    let step = Arc::new(Mutex::new(None::<String>));
    {
        let (events, step) = (events.clone(), step.clone());
        tokio::spawn(async move {
            let status = child.wait().await;
            let info = match status {
                Ok(status) => {
                    use std::os::unix::process::ExitStatusExt;
                    ExitInfo { code: status.code(), signal: status.signal(), during: step.locked().clone() }
                }
                Err(e) => ExitInfo { code: None, signal: None, during: Some(format!("(wait failed: {e})")) },
            };
            events.record(Lifecycle::Exited(info.clone()));
            // A group seen empty leaves the keeper's list at once: its id may be reused, and a
            // crash of Sonde must never signal a stranger's group.
            if group::live_members(pid as i32).is_empty() {
                keeper::forget(pid as i32);
            }
            let _ = exit_tx.send(Some(info));
        });
    }
    let process = Process {
        pid,
        start,
        log,
        conn,
        exit: exit_rx,
        step,
        events,
        _pty: Mutex::new(pty),
        stderr_drained: Mutex::new(Some(stderr_drained)),
        stdout_closed: watch::Sender::new(false),
        done: AtomicBool::new(false),
    };
    Ok(Spawned { process, stdin, stdout })
}

type Started = (tokio::process::Child, Capture);

fn start(spec: &SpawnSpec, mut pty: Capture) -> io::Result<Started> {
    // Said apart from a missing program: spawning in a missing directory fails with the same
    // ENOENT, and "No such file or directory" would send the user looking for the program.
    if let Some(dir) = spec.cwd.as_ref().filter(|d| !d.is_dir()) {
        let what = if dir.exists() { "is not a directory" } else { "does not exist" };
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("the working directory {} {what}", dir.display()),
        ));
    }
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args)
        .env_clear()
        .envs(env::build(spec.inherit_env, &spec.env))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(pty.child_stderr()?)
        .process_group(0);
    if let Some(dir) = &spec.cwd {
        cmd.current_dir(dir);
    }
    let child = cmd.spawn()?;
    // The Command holds our copy of the pty slave; dropping it lets the reader see EOF once
    // the server and its children have closed theirs.
    drop(cmd);
    Ok((child, pty))
}

impl Process {
    /// The server's pid, which is also its process group id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Watches for the exit; the value is `Some` once the server process has ended.
    pub fn exit_watch(&self) -> watch::Receiver<Option<ExitInfo>> {
        self.exit.clone()
    }

    pub fn exit_info(&self) -> Option<ExitInfo> {
        self.exit.borrow().clone()
    }

    /// Records that the server closed its stdout.
    pub fn note_stdout_closed(&self) {
        self.record(Lifecycle::StdoutClosed);
        self.stdout_closed.send_replace(true);
    }

    fn record(&self, event: Lifecycle) {
        self.events.record(event);
    }

    fn set_step(&self, words: String) {
        *self.step.locked() = Some(words);
    }

    async fn wait_exit(&self, limit: Duration) -> bool {
        let mut exit = self.exit.clone();
        let exited = matches!(tokio::time::timeout(limit, exit.wait_for(|e| e.is_some())).await, Ok(Ok(_)));
        exited
    }

    fn signal(&self, signal: Signal, reason: String) {
        let pgid = self.pid as i32;
        let _turn = self.events.turn.locked();
        match group::signal(pgid, signal.number()) {
            Ok(()) => self.events.record_in_turn(Lifecycle::Signalled { signal, pgid, reason }),
            // ESRCH: the group emptied between the check and the signal; nothing to record.
            Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {}
            Err(e) => {
                let note = format!("could not send {} to process group {pgid}: {e}", signal.name());
                self.log.append(Entry::new(self.conn, Kind::Note, Direction::Meta).with_detail(note));
            }
        }
    }

    /// Records step one of the ladder. The owner of the stdin pipe calls this just before it
    /// closes the pipe, so an exit that follows at once is attributed to it.
    pub fn stdin_closing(&self, graces: Graces) {
        let mut step = self.step.locked();
        // A server that has ended already is not asked to end: the pipe just closes.
        if step.is_none() && self.exit_info().is_none() {
            *step = Some("after stdin was closed".into());
            drop(step);
            self.record(Lifecycle::StdinClosed { grace_ms: graces.stdin.as_millis() as u64 });
        }
    }

    /// Runs the shutdown ladder. The caller must have closed the server's stdin first (see
    /// [`Process::stdin_closing`]): that is step one, and only the owner of the pipe can take it.
    ///
    /// Returns how the server ended. Afterwards no process of the group is left running.
    pub async fn shutdown(&self, graces: Graces) -> Option<ExitInfo> {
        if self.done.load(Ordering::SeqCst) {
            return self.exit_info();
        }
        if self.exit_info().is_none() {
            self.stdin_closing(graces);
            if !self.wait_exit(graces.stdin).await {
                self.set_step(format!("after the {} stdin grace", duration_words(graces.stdin)));
                self.signal(Signal::Term, format!("after the {} stdin grace", duration_words(graces.stdin)));
                if !self.wait_exit(graces.term).await {
                    let after = format!("after the {} SIGTERM grace", duration_words(graces.term));
                    self.set_step(after.clone());
                    self.signal(Signal::Kill, after);
                    self.wait_exit(KILL_DEADLINE).await;
                }
            }
        }
        let gone = self.sweep(graces).await;
        // The group is gone, so the last holders of the terminal and of stdout have closed them:
        // wait for the stderr recorder to write what the server said last, and for stdout's end
        // to be recorded (its reader is a thread that may not have run yet), so the group's end
        // is the last event. Bounded, in case a process that left the group still holds either.
        let drained = self.stderr_drained.locked().take();
        if let Some(drained) = drained {
            let _ = tokio::time::timeout(DRAIN, drained).await;
        }
        if let Some(pgid) = gone {
            let mut closed = self.stdout_closed.subscribe();
            let _ = tokio::time::timeout(DRAIN, closed.wait_for(|c| *c)).await;
            self.record(Lifecycle::GroupGone { pgid });
        }
        self.done.store(true, Ordering::SeqCst);
        self.exit_info()
    }

    /// Stops what is left of the group after its leader ended: grandchildren get the same
    /// SIGTERM-then-SIGKILL steps, so nothing the server started outlives it. Returns the group
    /// once it is gone; a stuck group is recorded here.
    async fn sweep(&self, graces: Graces) -> Option<i32> {
        let pgid = self.pid as i32;
        let left = group::live_members(pgid);
        if !left.is_empty() {
            self.signal(
                Signal::Term,
                format!("({} left after the server ended)", plural(left.len(), "process")),
            );
            if !group::wait_empty(pgid, graces.term).await {
                let left = group::live_members(pgid);
                let reason = format!(
                    "({} still there after the {} SIGTERM grace)",
                    plural(left.len(), "process"),
                    duration_words(graces.term)
                );
                self.signal(Signal::Kill, reason);
                if !group::wait_empty(pgid, KILL_DEADLINE).await {
                    self.record(Lifecycle::GroupStuck { pgid, pids: group::live_members(pgid) });
                    return None;
                }
            }
        }
        keeper::forget(pgid);
        Some(pgid)
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}es")
    }
}

impl Drop for Process {
    /// A backstop only: a process dropped without [`Process::shutdown`] has its group killed at
    /// once, because no task is left to run the ladder, when the group is still the server's.
    fn drop(&mut self) {
        if !self.done.load(Ordering::SeqCst) {
            let pgid = self.pid as i32;
            // Only a group that still holds the server's processes: an id reused since is not ours.
            if group::still_ours(pgid, self.start) {
                let _ = group::signal(pgid, libc::SIGKILL);
            }
            keeper::forget(pgid);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_quote_only_what_needs_it() {
        let spec = SpawnSpec::new("npx", ["-y", "@scope/pkg@1.0", "a b", "it's"]);
        assert_eq!(spec.command_line(), r"npx -y @scope/pkg@1.0 'a b' 'it'\''s'");
    }
}
