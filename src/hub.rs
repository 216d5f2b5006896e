//! The facade both front ends use: live sessions by id, and the commands on them.
//!
//! Owns: connecting (spawn, then the opening exchange of the chosen era, bounded by the
//! connect deadline, which never bounds the process), remembering era verdicts, the table of
//! live sessions, every connection's state as it changes (`states`), restarts and supervision
//! (`lineage`), the tasks calls became (`tasks`), and disconnecting.
//! Refuses: presentation. It returns values and errors (each error with its stable code); the
//! CLI prints and the UI renders.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde_json::Value;

use crate::auth::Authorizer;
use crate::connection::{Connection, RequestError, Responder};
use crate::era::EraPolicy;
use crate::error_code::ErrorCode;
use crate::last_words::{self, LastWords};
use crate::log::{Direction, Entry, Kind, WireLog};
use crate::negotiate::{self, Plan, ReachedBy};
use crate::process::{duration_words, ExitInfo};
use crate::saved::era_cache::{CachedEra, EraCache};
use crate::session::{ServerDescription, Session};
use crate::transport::HttpMode;

mod apps;
mod authorizing;
mod backoff;
mod hosts;
mod lineage;
mod live_roots;
mod load;
mod on_change;
mod one_job;
mod questions;
mod roots;
mod starting;
mod states;
mod subscriptions;
mod tasks;

pub use apps::{AppOpened, AppTurn, Apps};
pub use live_roots::RootsChange;
pub use on_change::{Rebuild, RebuildOutcome, Rebuilds, RestartOnChange};
pub use one_job::OneJob;
pub use questions::{PersonResponder, QuestionEvent, Questions, ServerQuestion, MAX_OPEN_QUESTIONS};
pub use states::{ConnState, StateEvent, States};
pub use subscriptions::SubscriptionEvent;
pub use tasks::Tasks;

// What a connect takes, re-exported: callers of the facade name it as the hub's.
pub use crate::server_config::{ServerConfig, Target};
use crate::sync::Lock;

/// Where an opening connection is, for a front end to show.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Starting the server process.
    Spawning,
    /// The server has written nothing at all yet, neither on stdout nor on stderr, for this
    /// many seconds: it is still starting (`npx -y` and `uvx` install first), not silent.
    /// Reported about once a second after the first; once it writes, the stage before comes
    /// back.
    Starting(u32),
    /// Reaching an HTTP server.
    Connecting,
    /// Asking `server/discover` to find the era (`auto` with no cached verdict).
    Probing,
    /// The 2025-11-25 handshake.
    Initializing,
    /// `server/discover` in 2026-07-28.
    Discovering,
    /// The server asked for OAuth authorization: waiting for the person to authorize Sonde in a
    /// browser (the flow's steps are in `auth::progress`). The stage before comes back after.
    Authorizing,
}

#[derive(Debug, thiserror::Error)]
pub enum HubError {
    #[error("no connection {0}")]
    NoSuchConnection(u64),
    #[error("could not start {command}: {source}")]
    Spawn { command: String, source: std::io::Error },
    /// The opening failed; `words` holds what the server last said and the environment hint.
    #[error("could not connect to {command}: {reason}")]
    Handshake { command: String, reason: String, words: LastWords },
    #[error(transparent)]
    Request(#[from] RequestError),
    /// Roots that cannot be used, or cannot change on this connection.
    #[error("{0}")]
    Roots(String),
    /// An app that is not open (closed, or its connection gone).
    #[error("no app {0}")]
    NoSuchApp(u64),
    /// A tool that names no app was asked for one.
    #[error("{0}")]
    NotAnApp(String),
    /// A restart of a connection its lineage had already replaced.
    #[error("connection {conn} was already replaced by connection {by}")]
    Replaced { conn: u64, by: u64 },
    /// A load run that cannot go (another runs on the connection, a tool it does not list).
    #[error("{0}")]
    Load(String),
}

impl HubError {
    /// Why an opening failed, and what the server last said (empty when it said nothing or
    /// there was no server to speak).
    pub fn failure(&self) -> (String, LastWords) {
        match self {
            HubError::Handshake { reason, words, .. } => (reason.clone(), words.clone()),
            other => (other.to_string(), LastWords::default()),
        }
    }

    /// The stable code a front end shows with the message.
    pub fn code(&self) -> ErrorCode {
        match self {
            HubError::NoSuchConnection(_) | HubError::NoSuchApp(_) => ErrorCode::NotFound,
            HubError::Spawn { .. } => ErrorCode::SpawnFailed,
            HubError::Handshake { .. } => ErrorCode::ConnectFailed,
            HubError::Roots(_) | HubError::NotAnApp(_) | HubError::Replaced { .. } | HubError::Load(_) => {
                ErrorCode::BadInput
            }
            HubError::Request(r) => match r {
                RequestError::Rpc { error, .. }
                    if error.code == crate::url_elicitation::URL_ELICITATION_REQUIRED =>
                {
                    ErrorCode::UrlElicitationRequired
                }
                RequestError::Rpc { .. } => ErrorCode::RpcError,
                RequestError::Timeout { .. } => ErrorCode::Timeout,
                RequestError::Cancelled { .. } => ErrorCode::Cancelled,
                RequestError::Gone(_) => ErrorCode::ServerGone,
                RequestError::Http { .. } => ErrorCode::HttpStatus,
                RequestError::Unreachable { .. } => ErrorCode::Unreachable,
                RequestError::TooLarge { .. } => ErrorCode::TooLarge,
                RequestError::Protocol(_) => ErrorCode::Protocol,
            },
        }
    }
}

/// Makes the responder of a connection (its id, its config); a front end that asks a person
/// supplies one.
pub type ResponderFactory = dyn Fn(u64, &ServerConfig) -> Arc<dyn Responder> + Send + Sync;

/// Live sessions sharing one session log. Cheap to clone: clones share everything, so the
/// tasks that watch connections hold one.
#[derive(Clone)]
pub struct Hub {
    log: Arc<WireLog>,
    responders: Option<Arc<ResponderFactory>>,
    /// Responders for single connections being opened, by id ([`Hub::connect_answering`]).
    answering: Arc<Mutex<HashMap<u64, Arc<dyn Responder>>>>,
    authorizer: Option<Arc<Authorizer>>,
    era_cache: Option<EraCache>,
    next_id: Arc<AtomicU64>,
    live: Arc<Mutex<HashMap<u64, Session>>>,
    states: Arc<States>,
    tasks: Arc<Tasks>,
    /// The questions for a person, when the front end has one to ask ([`Hub::with_questions`]).
    questions: Option<Arc<Questions>>,
    subscriptions: Arc<subscriptions::Subscriptions>,
    apps: Arc<Apps>,
    /// Each watched lineage's latest restart on change.
    rebuilds: Arc<Rebuilds>,
    /// One restart at a time per lineage.
    turns: Arc<lineage::Turns>,
    /// The load runs going on now, by connection.
    loads: Arc<load::Loads>,
}

impl Hub {
    pub fn new(log: Arc<WireLog>) -> Hub {
        Hub {
            log,
            responders: None,
            answering: Arc::default(),
            authorizer: None,
            era_cache: None,
            next_id: Arc::new(AtomicU64::new(1)),
            live: Arc::default(),
            states: Arc::default(),
            tasks: Arc::default(),
            questions: None,
            subscriptions: Arc::default(),
            apps: Arc::default(),
            rebuilds: Arc::default(),
            turns: Arc::default(),
            loads: Arc::default(),
        }
    }

    /// Remembers `auto` verdicts in `cache` and uses them on the next connect.
    pub fn with_era_cache(mut self, cache: EraCache) -> Hub {
        self.era_cache = Some(cache);
        self
    }

    /// Answers server requests with responders from `factory` instead of each config's
    /// fixed answers.
    pub fn with_responders(
        mut self,
        factory: impl Fn(u64, &ServerConfig) -> Arc<dyn Responder> + Send + Sync + 'static,
    ) -> Hub {
        self.responders = Some(Arc::new(factory));
        self
    }

    /// Sends every connection's elicitations and sampling requests to a person, through
    /// [`Hub::questions`]; `ping` and `roots/list` are still answered at once, the roots from
    /// each connection's config and changeable while it is open (the roots editor). The front
    /// end runs [`Questions::keep`] on its runtime.
    pub fn with_questions(self) -> Hub {
        let questions = Arc::new(Questions::new(self.log.clone()));
        let asked = questions.clone();
        let mut hub = self.with_responders(move |id, config| {
            let asks = PersonResponder::new(id, config.answers.clone(), asked.clone());
            Arc::new(crate::connection::LiveRoots::new(asks, config.answers.roots.clone()))
                as Arc<dyn Responder>
        });
        hub.questions = Some(questions);
        hub
    }

    /// The questions for a person, when this hub asks one.
    pub fn questions(&self) -> Option<&Arc<Questions>> {
        self.questions.as_ref()
    }

    /// Lets HTTP connections authorize when a server asks (OAuth), with `authorizer`'s browser
    /// step and credentials; without one a `401` fails the request.
    pub fn with_authorizer(mut self, authorizer: Authorizer) -> Hub {
        self.authorizer = Some(Arc::new(authorizer));
        self
    }

    /// The authorizer HTTP connections use, when there is one: its credentials and flows.
    pub fn authorizer(&self) -> Option<&Arc<Authorizer>> {
        self.authorizer.as_ref()
    }

    pub fn log(&self) -> &Arc<WireLog> {
        &self.log
    }

    /// Every connection's state: the newest of each lineage, and every change as it happens.
    pub fn states(&self) -> &Arc<States> {
        &self.states
    }

    /// Each watched lineage's latest restart on change ([`RestartOnChange`]).
    pub fn rebuilds(&self) -> &Arc<Rebuilds> {
        &self.rebuilds
    }

    /// Starts the server (stdio) or the loop that talks to it (HTTP). `fallback` asks for the
    /// second try: a respawn, or the 2024-11-05 HTTP+SSE transport.
    fn open(&self, id: u64, config: &ServerConfig, fallback: bool) -> std::io::Result<Connection> {
        let one = self.answering.locked().get(&id).cloned();
        let responder: Arc<dyn Responder> = match (one, &self.responders) {
            (Some(responder), _) => responder,
            (None, Some(factory)) => factory(id, config),
            (None, None) => Arc::new(config.answers.clone()),
        };
        let responder: Arc<dyn Responder> = match config.host {
            Some(host) => Arc::new(crate::hosts::AsHost::new(responder, host)),
            None => responder,
        };
        match &config.target {
            Target::Stdio(spec) => {
                Connection::spawn_stdio(id, spec, self.log.clone(), config.options, responder)
            }
            Target::Http(http) => {
                let mode = if fallback { HttpMode::LegacySse } else { HttpMode::Streamable };
                let mut http = http.clone();
                if let Some(host) = config.host {
                    host.headers_onto(&mut http.headers);
                }
                Connection::open_http(
                    id,
                    http,
                    mode,
                    self.log.clone(),
                    config.options,
                    responder,
                    self.authorizer.clone(),
                )
            }
        }
    }

    fn note(&self, conn: u64, detail: String) {
        self.log.append(Entry::new(conn, Kind::Note, Direction::Meta).with_detail(detail));
    }

    /// Starts a server and opens it in the era the policy and the evidence decide. On failure
    /// the server is shut down with the full ladder and the error says what happened.
    pub async fn connect(&self, config: &ServerConfig) -> Result<u64, HubError> {
        self.connect_reporting(config, &|_, _| {}).await
    }

    /// [`Hub::connect`], saying which stage the opening is in as it moves on: the id the
    /// connection will have, and the stage. A config with a restart policy is supervised from
    /// here on, a failed opening included: the error is returned and the restarts follow.
    pub async fn connect_reporting(
        &self,
        config: &ServerConfig,
        report: &(dyn Fn(u64, Stage) + Send + Sync),
    ) -> Result<u64, HubError> {
        self.open_lineage(config, None, report, lineage::of(config)).await
    }

    /// [`Hub::connect_reporting`], with the id of the connection it began, ready or failed
    /// (`None` when none was begun): a failed opening is still a lineage to restart.
    pub async fn connect_begun(
        &self,
        config: &ServerConfig,
        report: &(dyn Fn(u64, Stage) + Send + Sync),
    ) -> (Option<u64>, Result<u64, HubError>) {
        let begun = Mutex::new(None);
        let seen = |id: u64, stage: Stage| {
            begun.locked().get_or_insert(id);
            report(id, stage);
        };
        let opened = self.connect_reporting(config, &seen).await;
        let begun = *begun.locked();
        (begun, opened)
    }

    /// [`Hub::connect_reporting`] of a connection whose server requests `responder` answers,
    /// whatever the hub's responders are: a replay's, which answers as the recorded client did.
    pub async fn connect_answering(
        &self,
        config: &ServerConfig,
        responder: Arc<dyn Responder>,
        report: &(dyn Fn(u64, Stage) + Send + Sync),
    ) -> Result<u64, HubError> {
        let ids = std::sync::Mutex::new(Vec::new());
        // The first report names the id before the server is started (`open_one`).
        let answering = |id: u64, stage: Stage| {
            self.answering.locked().entry(id).or_insert_with(|| responder.clone());
            ids.locked().push(id);
            report(id, stage);
        };
        let opened = self.connect_reporting(config, &answering).await;
        // The connection holds its responder now: later openings (a restart) use the hub's.
        for id in ids.locked().iter() {
            self.answering.locked().remove(id);
        }
        opened
    }

    /// Opens one connection: the states table hears every stage, then `Ready` or `Failed`;
    /// `replaces` (the connection and why) is recorded as the new one's first lifecycle entry.
    /// A failure comes with the id the connection had.
    async fn open_one(
        &self,
        config: &ServerConfig,
        replaces: Option<(u64, String)>,
        report: &(dyn Fn(u64, Stage) + Send + Sync),
    ) -> Result<u64, (u64, HubError)> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let first =
            if matches!(config.target, Target::Stdio(_)) { Stage::Spawning } else { Stage::Connecting };
        // The caller hears the new id before anyone following the states does, so what it
        // keeps about the connection (the window: its saved server) is there for the first event.
        report(id, first);
        self.states.begin(id, config, replaces.as_ref().map(|r| r.0), first);
        if let Some(name) = &config.name {
            self.lifecycle(id, crate::lifecycle::Lifecycle::Server { name: name.clone() });
        }
        if let Some((previous, why)) = replaces {
            // The one it replaces has ended; its session is no longer asked for.
            self.live.locked().remove(&previous);
            self.lifecycle(id, crate::lifecycle::Lifecycle::Replaces { previous, why });
        }
        let report = |id, stage| {
            self.states.set(id, ConnState::Opening { stage });
            report(id, stage);
        };
        match self.open_reporting(id, config, &report).await {
            Ok(pid) => {
                let server = self.server(id).map_err(|e| (id, e))?;
                self.states.set(id, ConnState::Ready { pid, server: Box::new(server) });
                Ok(id)
            }
            Err(e) => {
                let (reason, words) = e.failure();
                self.states.set(id, ConnState::Failed { reason, words });
                Err((id, e))
            }
        }
    }

    /// Records a lifecycle event of connection `conn` that the hub decided.
    fn lifecycle(&self, conn: u64, event: crate::lifecycle::Lifecycle) {
        let mut entry = Entry::new(conn, Kind::Lifecycle, Direction::Meta).with_detail(event.describe());
        entry.lifecycle = Some(event);
        self.log.append(entry);
    }

    /// The opening itself; returns the server's pid, if it has one.
    async fn open_reporting(
        &self,
        id: u64,
        config: &ServerConfig,
        report: &(dyn Fn(u64, Stage) + Send + Sync),
    ) -> Result<Option<u32>, HubError> {
        let command = config.target.describe();
        let key = EraCache::key(&config.target);
        // Followed from before the spawn, so the server's first byte cannot be missed.
        let follow = self.log.follow();
        let conn = self
            .open(id, config, false)
            .map_err(|source| HubError::Spawn { command: command.clone(), source })?;
        let cached = match (config.era, &self.era_cache) {
            (EraPolicy::Auto, Some(cache)) if !config.fresh_era => cache.get(&key),
            _ => None,
        };
        let stage = match (config.era, cached.as_ref().map(|c| c.era)) {
            (EraPolicy::Legacy, _) | (EraPolicy::Auto, Some(crate::era::Era::Legacy)) => Stage::Initializing,
            (EraPolicy::Modern, _) | (EraPolicy::Auto, Some(crate::era::Era::Modern)) => Stage::Discovering,
            (EraPolicy::Auto, None) => Stage::Probing,
        };
        report(id, stage);
        let plan = Plan {
            policy: config.era,
            probe_timeout: config.probe_timeout,
            request_timeout: config.options.request_timeout,
            cached: cached.as_ref(),
            http: matches!(config.target, Target::Http(_)),
        };
        // The handle kept here lets a timed-out opening still shut its server down: the
        // timeout cancels only this wait, never the process, which the connection task owns.
        let keep = conn.clone();
        let authorizing = conn.authorizing();
        let authorizing_stage = conn.authorizing();
        let opened = crate::connection::deadline::within(
            config.connect_timeout,
            authorizing,
            negotiate::open(conn, plan, || self.open(id, config, true)),
        );
        let opened = async {
            tokio::pin!(opened);
            if matches!(config.target, Target::Stdio(_)) {
                // Biased: when the first output and the end of the opening come together, the
                // output is seen first, so a front end hears the stage come back.
                tokio::select! {
                    biased;
                    () = starting::report_until_output(follow, id, stage, report) => {}
                    opened = &mut opened => return opened,
                }
            } else {
                tokio::select! {
                    () = authorizing::report_authorizing(authorizing_stage, id, stage, report) => {}
                    opened = &mut opened => return opened,
                }
            }
            opened.await
        };
        let (conn, reason) = match opened.await {
            Ok(Ok((conn, server, reached))) => {
                if reached == ReachedBy::Answer {
                    self.remember(config, cached.as_ref(), &server);
                } else {
                    self.note(
                        id,
                        "the era verdict is not cached: a deadline reached it, not an answer".into(),
                    );
                }
                self.note(id, format!("protocol {} ({})", server.protocol_version, server.decided_by));
                let session = Session::new(conn, server, config.log_level);
                if let Some(level) = config.log_level {
                    // A level the server cannot take does not stop the session; the log says why.
                    if let Err(e) = session.set_log_level(level).await {
                        self.note(id, format!("log level {level} not set: {e}"));
                    }
                }
                if !config.answers.roots.is_empty() && session.era() == crate::era::Era::Legacy {
                    roots::wait_for_ask(&self.log, id, roots::ASK_WAIT).await;
                }
                let pid = session.conn.pid().await;
                self.live.locked().insert(id, session);
                return Ok(pid);
            }
            Ok(Err((conn, reason))) => (conn, reason),
            Err(_) => (
                keep,
                format!(
                    "no answer to the opening exchange within {}",
                    duration_words(config.connect_timeout)
                ),
            ),
        };
        if cached.is_some() {
            if let Some(cache) = &self.era_cache {
                let _ = cache.forget(&key);
                self.note(id, "dropped the cached era verdict for this server".into());
            }
        }
        // A server that had closed its stdout before Sonde began to stop it was going by itself,
        // whichever of its exit and the first shutdown step the kernel reports first.
        let going = self.stdout_closed(id);
        // The ladder's steps reach the states table as they are taken.
        let mut status = conn.status();
        let (exit, _) = tokio::join!(conn.shutdown(), self.follow_status(id, &mut status));
        // An exit Sonde did not ask for (no shutdown step) is the server ending by itself.
        let ended_itself = going || exit.as_ref().is_some_and(|e| e.during.is_none());
        let words = self.last_words(id, config, ended_itself);
        let reason = match exit {
            Some(exit) if !reason.contains(&exit.describe()) => {
                format!("{reason}; the server {}", exit.after_subject())
            }
            _ => reason,
        };
        Err(HubError::Handshake { command, reason, words })
    }

    /// Whether the log says connection `id`'s server closed its stdout.
    fn stdout_closed(&self, id: u64) -> bool {
        let filter =
            crate::log::Filter { conn: Some(id), kinds: vec![Kind::Lifecycle], ..Default::default() };
        let entries = self.log.entries(&filter).unwrap_or_default();
        entries.iter().any(|e| matches!(e.lifecycle, Some(crate::lifecycle::Lifecycle::StdoutClosed)))
    }

    /// What connection `id` last wrote on stderr and, when it `ended_itself` during startup
    /// after being given the minimal environment, that hint and the withheld variables its
    /// stderr names. Call it after the shutdown: the log then holds all the server wrote.
    pub fn last_words(&self, id: u64, config: &ServerConfig, ended_itself: bool) -> LastWords {
        let lines =
            self.log.last_stderr(id, last_words::MAX_LINES, last_words::MAX_BYTES).unwrap_or_default();
        let spec = match &config.target {
            Target::Stdio(spec) if ended_itself && !spec.inherit_env => spec,
            _ => return LastWords { lines, ..LastWords::default() },
        };
        let mut given: Vec<&str> = crate::process::PASSED_THROUGH.to_vec();
        given.push("TERM");
        given.extend(spec.env.iter().map(|(k, _)| k.as_str()));
        let host: Vec<String> = std::env::vars_os().filter_map(|(k, _)| k.into_string().ok()).collect();
        let withheld = last_words::withheld_named(&lines.join("\n"), host.iter().map(String::as_str), &given);
        let minimal_env =
            !withheld.is_empty() || last_words::speaks_of_environment(&lines.join("\n"), &given);
        LastWords { lines, minimal_env, withheld }
    }

    fn remember(&self, config: &ServerConfig, cached: Option<&CachedEra>, server: &ServerDescription) {
        let (Some(cache), EraPolicy::Auto, false) = (&self.era_cache, config.era, config.fresh_era) else {
            return;
        };
        if cached.is_some_and(|c| c.era == server.era && c.version == server.protocol_version) {
            return;
        }
        let verdict = CachedEra {
            era: server.era,
            version: server.protocol_version.clone(),
            decided_by: server.decided_by.clone(),
            at: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        };
        // The cache only saves a probe next time; failing to write it changes nothing now.
        let _ = cache.put(&EraCache::key(&config.target), verdict);
    }

    pub fn session(&self, id: u64) -> Result<Session, HubError> {
        self.live.locked().get(&id).cloned().ok_or(HubError::NoSuchConnection(id))
    }

    pub fn connection(&self, id: u64) -> Result<Connection, HubError> {
        Ok(self.session(id)?.conn)
    }

    pub fn server(&self, id: u64) -> Result<ServerDescription, HubError> {
        Ok(self.session(id)?.server)
    }

    pub async fn list_tools(&self, id: u64) -> Result<crate::session::listing::Listing, HubError> {
        Ok(self.session(id)?.list_tools().await?)
    }

    pub async fn call_tool(&self, id: u64, name: &str, arguments: Option<Value>) -> Result<Value, HubError> {
        Ok(self.session(id)?.call_tool(name, arguments).await?)
    }

    /// Shuts the server down with the full ladder and forgets the connection; a supervised
    /// connection is not restarted after it, and one waiting to be restarted stays ended.
    pub async fn disconnect(&self, id: u64) -> Result<Option<ExitInfo>, HubError> {
        self.states.halt(id);
        let conn = match self.connection(id) {
            Ok(conn) => conn,
            // Ended already (perhaps waiting for a restart, which the halt has stopped).
            Err(e) => return if self.states.get(id).is_some() { Ok(None) } else { Err(e) },
        };
        let exit = conn.shutdown().await;
        self.live.locked().remove(&id);
        Ok(exit)
    }

    /// Cancels every pending call of every live connection.
    pub fn cancel_all(&self, reason: &str) {
        for session in self.live.locked().values() {
            session.conn.cancel_all(reason);
        }
    }

    /// Shuts every live connection down, concurrently, and stops all supervision.
    pub async fn disconnect_all(&self) {
        for event in self.states.snapshot() {
            self.states.halt(event.conn);
        }
        let conns: Vec<Connection> = self.live.locked().drain().map(|(_, s)| s.conn).collect();
        let mut tasks = tokio::task::JoinSet::new();
        for conn in conns {
            tasks.spawn(async move { conn.shutdown().await });
        }
        while tasks.join_next().await.is_some() {}
    }
}
