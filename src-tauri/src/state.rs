//! What the app holds while it runs: the hub (with its session log and its one table of live
//! connections), the saved servers, the questions waiting for the person, and the session
//! catalog (past sessions opened for reading).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use sonde_core::connection::Responder;
use sonde_core::era_cache::EraCache;
use sonde_core::hub::Hub;
use sonde_core::log::{sessions_dir, Catalog, WireLog};
use sonde_core::servers::{ServerStore, Servers};

use crate::questions::{Questions, UiResponder};

pub struct AppState {
    pub hub: Arc<Hub>,
    pub servers: Servers,
    /// Server requests waiting for the person (elicitation, sampling).
    pub questions: Arc<Questions>,
    /// This session and the past ones the window opened; the log commands read either.
    pub sessions: Catalog,
    quitting: AtomicBool,
}

impl AppState {
    /// The state in the user's directories.
    pub fn open() -> std::io::Result<AppState> {
        let log = WireLog::create_in(&sessions_dir()?)?;
        let hub = Hub::new(log).with_era_cache(EraCache::default_location()?);
        AppState::new(hub, ServerStore::default_location()?)
    }

    pub fn new(hub: Hub, store: ServerStore) -> std::io::Result<AppState> {
        let exe = std::env::current_exe()?;
        AppState::with_demo_command(
            hub,
            store,
            format!("{} demo-server", shell_words::quote(&exe.to_string_lossy())),
        )
    }

    /// Like [`AppState::new`] with another demo server command (tests run the `sonde` CLI's).
    pub fn with_demo_command(
        hub: Hub,
        store: ServerStore,
        demo_command: String,
    ) -> std::io::Result<AppState> {
        let servers = Servers::load(store, &demo_command)?;
        let questions = Arc::new(Questions::default());
        let asked = questions.clone();
        let hub = hub.with_responders(move |id, config| {
            Arc::new(UiResponder::new(id, config.answers.clone(), asked.clone())) as Arc<dyn Responder>
        });
        let sessions = Catalog::new(hub.log().clone());
        Ok(AppState { hub: Arc::new(hub), questions, servers, sessions, quitting: AtomicBool::new(false) })
    }

    /// True the first time only: the caller then stops the servers and exits.
    pub fn begin_quit(&self) -> bool {
        !self.quitting.swap(true, Ordering::SeqCst)
    }
}
