//! The Sonde desktop shell: Tauri wiring over `sonde-core`, and nothing else.
//!
//! Owns: the app state (one hub with its session log and live connections, the saved servers,
//! the catalog of past sessions opened), the menu, the command list, and stopping every server
//! before the app exits.
//! Refuses: protocol logic, loops and sleeps; those live in the core. Commands are a few lines.

pub mod auth_cmd;
pub mod bindings;
pub mod browser;
pub mod clients_cmd;
pub mod commands;
pub mod confirm;
pub mod dialogs;
pub mod doctor_cmd;
pub mod error;
pub mod feeds;
pub mod links;
mod menu;
pub mod roots_cmd;
pub mod state;
pub mod surface;
pub mod tasks_cmd;

use tauri::{Manager, RunEvent, Runtime};

/// Sonde's version and the commit it was built from (`build.rs`), as Help → About says it.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("SONDE_COMMIT"), ")");

/// Every command the UI can invoke, in one list: the invoke handler is built from it and the
/// TypeScript bindings (`bindings.rs`) are generated from it, so the two cannot disagree.
pub fn commands<R: Runtime>() -> tauri_specta::Builder<R> {
    tauri_specta::Builder::new().commands(tauri_specta::collect_commands![
        commands::servers_list,
        commands::servers_save,
        commands::servers_delete,
        commands::servers_import,
        commands::servers_add_env_from_host,
        commands::connect,
        commands::restart,
        commands::connections_follow,
        commands::disconnect,
        commands::tool_resend_risk,
        commands::tools_list,
        commands::tool_call,
        commands::request_cancel,
        commands::log_page,
        commands::log_entry,
        commands::log_count_matches,
        commands::log_match_page,
        commands::log_follow,
        commands::log_export,
        commands::log_filter,
        commands::log_reply,
        commands::log_connections,
        commands::sessions_list,
        commands::session_open,
        commands::session_close,
        commands::server_requests_follow,
        commands::server_request_answer,
        commands::server_requests_decline_all,
        surface::list_page,
        surface::list_all,
        surface::resource_read,
        surface::resource_save,
        surface::template_variables,
        surface::template_expand,
        surface::prompt_get,
        surface::complete,
        surface::log_level_get,
        surface::log_level_set,
        surface::ping,
        surface::notifications_follow,
        surface::subscribe,
        surface::unsubscribe,
        links::link_open,
        auth_cmd::auth_flows_follow,
        auth_cmd::auth_open,
        auth_cmd::credentials_list,
        auth_cmd::credentials_forget,
        roots_cmd::connection_roots,
        roots_cmd::connection_roots_set,
        tasks_cmd::tasks_follow,
        tasks_cmd::tasks_list,
        tasks_cmd::task_get,
        tasks_cmd::task_cancel,
        doctor_cmd::diagnostics,
        doctor_cmd::doctor_run,
        clients_cmd::server_client_snippet,
    ])
}

/// Wires a builder (generic, so tests can pass `tauri::test::mock_builder()`).
pub fn configure<R: Runtime>(builder: tauri::Builder<R>, state: state::AppState) -> tauri::Builder<R> {
    builder.manage(state).invoke_handler(commands().invoke_handler())
}

/// Traces go to `sonde-desktop.log` in the data directory (next to `sessions/`), never to a
/// network sink.
fn start_tracing() {
    let Ok(dir) = sonde_core::sessions_dir() else { return };
    let Some(data) = dir.parent() else { return };
    // Private, like everything Sonde writes: 0600 in a 0700 directory.
    let Ok(file) = sonde_core::files::append_private(&data.join("sonde-desktop.log")) else { return };
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
            app.state::<state::AppState>().asker.set(app.handle().clone());
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
                let hub = state.hub.clone();
                let handle = handle.clone();
                tauri::async_runtime::spawn(async move {
                    hub.disconnect_all().await;
                    // The shutdown steps just recorded, and the session's end, must reach the
                    // file before the process ends.
                    if let Some(stop) = hub.log().close().stopped {
                        tracing::warn!("the session log stopped at entry {}: {}", stop.at, stop.error);
                    }
                    handle.exit(0);
                });
            }
        }
    });
}
