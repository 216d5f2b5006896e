//! The Sonde desktop shell: Tauri wiring over `sonde-core`, and nothing else.
//!
//! Owns: the app state (one hub with its session log and live connections, the saved servers,
//! the catalog of past sessions opened), the menu, the command list, and stopping every server
//! before the app exits.
//! Refuses: protocol logic, loops and sleeps; those live in the core. Commands are a few lines.

pub mod apps_cmd;
pub mod auth_cmd;
pub mod bindings;
pub mod browser;
pub mod clients_cmd;
pub mod commands;
pub mod confirm;
pub mod dialogs;
pub mod diff_cmd;
pub mod doctor_cmd;
pub mod error;
pub mod feeds;
pub mod hosts_cmd;
pub mod links;
pub mod load_cmd;
mod menu;
pub mod on_change_cmd;
pub mod replay_cmd;
pub mod roots_cmd;
pub mod settings_cmd;
pub mod skills_cmd;
pub mod spans;
pub mod state;
pub mod suite_cmd;
pub mod surface;
pub mod tasks_cmd;
pub mod timeline_cmd;

use tauri::{Manager, RunEvent, Runtime};

/// Sonde's version and the commit it was built from (`build.rs`), as Help → About says it.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("SONDE_COMMIT"), ")");

/// Every command the UI can invoke, in one list: the invoke handler is built from it and the
/// TypeScript bindings (`bindings.rs`) are generated from it, so the two cannot disagree. The list
/// is every `#[tauri::command]` of this crate, gathered by `build.rs`: writing a command registers
/// it.
pub fn commands<R: Runtime>() -> tauri_specta::Builder<R> {
    tauri_specta::Builder::new().commands(include!(concat!(env!("OUT_DIR"), "/commands.rs")))
}

/// Wires a builder (generic, so tests can pass `tauri::test::mock_builder()`).
pub fn configure<R: Runtime>(builder: tauri::Builder<R>, state: state::AppState) -> tauri::Builder<R> {
    builder
        .manage(state)
        .invoke_handler(commands().invoke_handler())
        .register_uri_scheme_protocol(apps_cmd::SCHEME, apps_cmd::serve)
}

/// Traces go to `sonde-desktop.log` in the data directory (next to `sessions/`), never to a
/// network sink.
fn start_tracing() {
    let Ok(dir) = sonde_core::sessions_dir() else { return };
    let Some(data) = dir.parent() else { return };
    // Private, like everything Sonde writes: 0600 in a 0700 directory.
    let Ok(file) = sonde_core::append_private(&data.join("sonde-desktop.log")) else { return };
    let _ = tracing_subscriber::fmt().with_writer(std::sync::Mutex::new(file)).with_ansi(false).try_init();
}

pub fn run() {
    start_tracing();
    tracing::info!(version = VERSION, "Sonde starting");
    let state = match state::AppState::open() {
        Ok(state) => state,
        Err(e) => {
            tracing::error!("cannot start: {e}");
            eprintln!("sonde: cannot start: {e}");
            std::process::exit(1);
        }
    };
    let app = configure(tauri::Builder::default(), state)
        .setup(|app| {
            menu::install(app)?;
            let state = app.state::<state::AppState>();
            state.asker.set(app.handle().clone());
            // The theme chosen in Settings, on the window's native side from the start.
            if let Some(window) = app.get_webview_window("main") {
                let theme = state.settings.load().ok().and_then(|s| s.theme).unwrap_or_default();
                settings_cmd::apply_theme(&window, theme);
            }
            // Spans to the collector Settings (or the environment) names, from the start.
            let setting = state.settings.load().ok().and_then(|s| s.otel_endpoint);
            let (spans, log, secrets) =
                (state.spans.clone(), state.hub.log().clone(), state.servers.secrets());
            tauri::async_runtime::spawn(async move { spans.restart(log, setting.as_deref(), secrets).await });
            Ok(())
        })
        .build(tauri::generate_context!("../tauri.conf.json"))
        .expect("the Tauri app builds");
    app.run(|handle, event| {
        // Quitting stops every server with the full ladder first; nothing is left running.
        if let RunEvent::ExitRequested { api, .. } = event {
            let state = handle.state::<state::AppState>();
            if state.begin_quit() {
                tracing::info!("quitting: stopping every server first");
                api.prevent_exit();
                let (hub, watches, spans) = (state.hub.clone(), state.watches.clone(), state.spans.clone());
                let handle = handle.clone();
                tauri::async_runtime::spawn(async move {
                    // No watch restarts a server while the others stop.
                    watches.stop_all().await;
                    hub.disconnect_all().await;
                    // The last spans, the shutdown's among them, before the session ends.
                    spans.finish().await;
                    // The shutdown steps just recorded, and the session's end, must reach the
                    // file before the process ends.
                    if let Some(stop) = hub.log().close().stopped {
                        tracing::warn!("the session log stopped at entry {}: {}", stop.at, stop.error);
                    }
                    // The folder pruned again now the session is whole; no window is left to
                    // say what went, so the app's trace does.
                    match hub.log().prune_again() {
                        Some(Ok(pruned)) => {
                            pruned.words().into_iter().for_each(|words| tracing::info!("{words}"))
                        }
                        Some(Err(e)) => tracing::warn!("could not prune old sessions: {e}"),
                        None => {}
                    }
                    handle.exit(0);
                });
            }
        }
    });
}
