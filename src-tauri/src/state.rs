//! What the app holds while it runs: the hub (with its session log, its one table of live
//! connections and the questions waiting for the person), the saved servers, and the session
//! catalog (past sessions opened for reading), with each session's timeline the window draws.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use sonde_core::{
    sessions_budget, sessions_dir, Catalog, EraCache, Filter, Hub, Launches, Lock, Questions, SavedServer,
    ServerStore, Servers, SettingsFile, Shown, Timeline, WireLog,
};

use crate::error::{io_error, Result};

pub struct AppState {
    pub hub: Arc<Hub>,
    pub servers: Servers,
    /// Each saved server's last approved launch: a new or changed one is asked about first.
    pub launches: Launches,
    /// Native dialogs, once the app is built.
    pub asker: crate::dialogs::Asker,
    /// The saved server each lineage of connections was started from.
    pub lineages: Lineages,
    /// The lines restarted on each change of their source.
    pub watches: crate::on_change_cmd::Watches,
    /// This session and the past ones the window opened; the log commands read either.
    pub sessions: Catalog,
    /// The settings file (the sessions budget).
    pub settings: SettingsFile,
    /// What pruning the sessions folder removed as this session started, in words.
    pub pruned_at_start: Option<String>,
    /// Each session's timeline the window draws, grown as the session grows.
    pub timelines: Timelines,
    /// The session's spans, sent live to the collector Settings (or the environment) names.
    pub spans: crate::spans::Spans,
    quitting: AtomicBool,
}

/// The saved server (id and name) each lineage of connections was started from, by lineage.
#[derive(Clone, Default)]
pub struct Lineages(Arc<Mutex<HashMap<u64, (String, String)>>>);

impl Lineages {
    /// Lineage `lineage` was started from this saved server (the first report of it wins).
    pub fn started(&self, lineage: u64, origin: &(String, String)) {
        self.0.locked().entry(lineage).or_insert_with(|| origin.clone());
    }

    pub fn origin(&self, lineage: u64) -> Option<(String, String)> {
        self.0.locked().get(&lineage).cloned()
    }
}

impl AppState {
    /// The state in the user's directories.
    pub fn open() -> std::io::Result<AppState> {
        let dir = sessions_dir()?;
        let log = WireLog::create_in(&dir)?;
        // The folder kept within its budget from the start; the window says what went.
        let pruned = log
            .keep_within(sessions_budget(&dir))
            .map(|p| p.words())
            .unwrap_or_else(|e| Some(format!("could not prune old sessions in {}: {e}", dir.display())));
        let hub = Hub::new(log)
            .with_era_cache(EraCache::default_location()?)
            .with_authorizer(crate::browser::authorizer());
        let mut state = AppState::new(hub, ServerStore::default_location()?)?;
        state.pruned_at_start = pruned;
        Ok(state)
    }

    pub fn new(hub: Hub, store: ServerStore) -> std::io::Result<AppState> {
        let exe = std::env::current_exe()?;
        // The `sonde` CLI beside this executable (the package installs both in /usr/bin) serves
        // the demo in a few MiB; this GTK-linked executable serves it too, when there is no CLI.
        let cli = exe.with_file_name("sonde");
        let program = if cli.is_file() { cli } else { exe.clone() };
        let own = |program: &std::path::Path| {
            format!("{} demo-server", shell_words::quote(&program.to_string_lossy()))
        };
        let state = AppState::with_demo_command(hub, store, own(&program))?;
        // A demo saved by an older Sonde runs this executable: Sonde's own code too.
        state.trust_demo(&own(&exe))?;
        Ok(state)
    }

    /// Like [`AppState::new`] with another demo server command (tests run the `sonde` CLI's).
    pub fn with_demo_command(
        hub: Hub,
        store: ServerStore,
        demo_command: String,
    ) -> std::io::Result<AppState> {
        let launches = Launches::at(store.path().with_file_name("launches.json"));
        let settings = SettingsFile::at(store.path().with_file_name("settings.json"));
        let servers = Servers::load(store, &demo_command)?;
        let hub = hub.with_questions();
        let sessions = Catalog::new(hub.log().clone());
        let questions = hub.questions().expect("just added").clone();
        tauri::async_runtime::spawn(questions.keep(hub.clone()));
        let hub = Arc::new(hub);
        let state = AppState {
            hub,
            servers,
            launches,
            asker: Default::default(),
            sessions,
            timelines: Default::default(),
            spans: Default::default(),
            lineages: Lineages::default(),
            watches: Default::default(),
            settings,
            pruned_at_start: None,
            quitting: AtomicBool::new(false),
        };
        state.trust_demo(&demo_command)?;
        Ok(state)
    }

    /// The demo server as Sonde saved it (`command`, no environment or working directory) runs
    /// Sonde's own binary: nothing new to ask about before it runs.
    fn trust_demo(&self, command: &str) -> std::io::Result<()> {
        let own = |s: &&SavedServer| {
            s.id == "demo" && s.command == command && s.env.is_empty() && s.cwd.is_none() && !s.inherit_env
        };
        match self.servers.list().iter().find(own) {
            Some(demo) if self.launches.review(demo).is_some() => self.launches.approve(demo),
            _ => Ok(()),
        }
    }

    /// The questions for the person: this app's hub always asks one.
    pub fn questions(&self) -> &Arc<Questions> {
        self.hub.questions().expect("the app's hub is made with questions")
    }

    /// True the first time only: the caller then stops the servers and exits.
    pub fn begin_quit(&self) -> bool {
        !self.quitting.swap(true, Ordering::SeqCst)
    }
}

/// Each session's timeline and the matches of the filter it was last drawn with.
#[derive(Default, Clone)]
pub struct Timelines(Arc<Mutex<HashMap<Option<u64>, Kept>>>);

struct Kept {
    timeline: Timeline,
    filter: String,
    shown: Shown,
}

impl Kept {
    fn new() -> Kept {
        Kept { timeline: Timeline::new(), filter: String::new(), shown: Shown::default() }
    }
}

impl Timelines {
    /// Runs `read` on the timeline of `session`, grown to the log as it is now, with what
    /// `filter` shows (its matches looked for a bounded amount more).
    pub fn with<T>(
        &self,
        session: Option<u64>,
        log: &WireLog,
        filter: &str,
        read: impl FnOnce(&Timeline, &Shown) -> T,
    ) -> Result<T> {
        let mut kept = self.0.locked();
        let kept = kept.entry(session).or_insert_with(Kept::new);
        if kept.filter != filter {
            let parsed = Filter::parse(filter)?;
            kept.shown = Shown::new(parsed);
            kept.filter = filter.to_owned();
        }
        kept.timeline.update(log);
        kept.shown.update(log).map_err(io_error)?;
        Ok(read(&kept.timeline, &kept.shown))
    }

    /// Runs `read` on the timeline of `session`, grown to the log as it is now; what the
    /// timeline pane's filter shows is left as it is.
    pub fn grown<T>(&self, session: Option<u64>, log: &WireLog, read: impl FnOnce(&Timeline) -> T) -> T {
        let mut kept = self.0.locked();
        let kept = kept.entry(session).or_insert_with(Kept::new);
        kept.timeline.update(log);
        read(&kept.timeline)
    }

    /// Lets go of a session's timeline (a past session closed).
    pub fn forget(&self, session: u64) {
        self.0.locked().remove(&Some(session));
    }
}
