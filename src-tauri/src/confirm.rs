//! Native confirmations, outside the webview: a question the window's own code can neither
//! answer nor hide, asked before Sonde runs code it has not run before (a saved server's new or
//! changed launch, the entries of an import) and where an export is written.
//!
//! Owns: showing a GTK dialog (rfd, without the dialog plugin, whose script would replace the
//! webview's own alert and confirm with IPC calls) and waiting for the person's answer
//! without holding a thread, and the app handle that needs, given once the app is built.
//! Refuses: deciding what to ask (the core's `launches` reads a server into words) and any
//! answer without a person: with no app to ask in (the mock runtime of the IPC tests), the
//! answer is no, never yes.

use std::future::Future;
use std::path::PathBuf;
use std::sync::OnceLock;

use rfd::{AsyncFileDialog, AsyncMessageDialog, MessageButtons, MessageDialogResult, MessageLevel};
use sonde_core::error_code::ErrorCode;
use sonde_core::servers::SavedServer;
use tauri::{AppHandle, Manager, Wry};
use tokio::sync::oneshot;

use crate::commands::{err, io_error, ErrorDto};
use crate::state::AppState;

/// Before `saved` runs: when its launch is new or changed since it last ran, shows it and asks;
/// approves it on Run, and is `cancelled` otherwise (nothing runs).
pub async fn launch(state: &AppState, saved: &SavedServer) -> Result<(), ErrorDto> {
    let Some(review) = state.launches.review(saved) else { return Ok(()) };
    let (title, what) = match review.first {
        true => ("Run a new server?", "runs a command for the first time"),
        false => ("Run a changed server?", "runs a command that changed since it last ran"),
    };
    let message = format!("\"{}\" {what}, with your rights.\n\n{}", review.name, review.text());
    if !state.asker.ask(title, message, "Run").await {
        let why = format!("{} was not started: running it was not confirmed", saved.name);
        return Err(err(ErrorCode::Cancelled, why));
    }
    state.launches.approve(saved).map_err(io_error)
}

/// Before `servers` are imported: shows every entry's launch as [`launch`] does and asks once;
/// approves them all on Import (the person has seen them), and is `cancelled` otherwise.
pub async fn import(state: &AppState, servers: &[SavedServer]) -> Result<(), ErrorDto> {
    let entries: Vec<String> = servers
        .iter()
        .map(|s| match (state.launches.review(s), &s.url) {
            (Some(review), _) => format!("\"{}\"\n{}", s.name, review.text()),
            (None, url) => {
                format!("\"{}\"\nURL: {} (runs nothing here)", s.name, url.as_deref().unwrap_or(""))
            }
        })
        .collect();
    let message = format!(
        "Each server below runs with your rights when it is connected; nothing asks again unless it changes.\n\n{}",
        entries.join("\n\n")
    );
    let title = format!("Import {} server(s)?", servers.len());
    if !state.asker.ask(&title, message, "Import").await {
        return Err(err(ErrorCode::Cancelled, "nothing was imported: the import was not confirmed"));
    }
    servers.iter().try_for_each(|s| state.launches.approve(s)).map_err(io_error)
}

/// Asks the person, natively, once the app is there to ask in.
#[derive(Default)]
pub struct Asker(OnceLock<AppHandle<Wry>>);

impl Asker {
    /// The app to show dialogs in; set once, when it is built.
    pub fn set(&self, app: AppHandle<Wry>) {
        let _ = self.0.set(app);
    }

    /// A warning with `message`, answered by `ok` or Cancel: true only for `ok` (Escape and
    /// closing the dialog are Cancel).
    pub async fn ask(&self, title: &str, message: String, ok: &str) -> bool {
        let buttons = MessageButtons::OkCancelCustom(ok.to_owned(), "Cancel".to_owned());
        let ok = ok.to_owned();
        let title = title.to_owned();
        let answer = self
            .show(move |window| {
                let mut dialog = AsyncMessageDialog::new()
                    .set_level(MessageLevel::Warning)
                    .set_title(&title)
                    .set_description(message)
                    .set_buttons(buttons);
                if let Some(window) = window {
                    dialog = dialog.set_parent(window);
                }
                dialog.show()
            })
            .await;
        // GTK answers Ok for the first button; other platforms answer with its label.
        matches!(answer, Some(MessageDialogResult::Ok)) || answer == Some(MessageDialogResult::Custom(ok))
    }

    /// The native save dialog, offering `file_name` in the person's download directory; GTK
    /// asks before replacing a file. `None` when the person cancels (or there is no window to
    /// ask in).
    pub async fn save_path(&self, title: &str, file_name: &str) -> Option<PathBuf> {
        let (title, file_name) = (title.to_owned(), file_name.to_owned());
        let chosen = self
            .show(move |window| {
                let mut dialog = AsyncFileDialog::new().set_title(&title).set_file_name(&file_name);
                if let Some(dir) = sonde_core::files::download_dir() {
                    dialog = dialog.set_directory(dir);
                }
                if let Some(window) = window {
                    dialog = dialog.set_parent(window);
                }
                dialog.save_file()
            })
            .await;
        chosen.flatten().map(|file| file.path().to_owned())
    }

    /// Opens a dialog on the main thread, where GTK wants it, over the main window, and waits
    /// for its answer on a thread of its own; `None` when there is no app to ask in.
    async fn show<F, D>(&self, open: D) -> Option<F::Output>
    where
        D: FnOnce(Option<&tauri::WebviewWindow<Wry>>) -> F + Send + 'static,
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let Some(app) = self.0.get() else {
            tracing::warn!("no window to ask in, so the answer is no");
            return None;
        };
        let (tx, rx) = oneshot::channel();
        let window = app.get_webview_window("main");
        let opened = app.run_on_main_thread(move || {
            let answer = open(window.as_ref());
            std::thread::spawn(move || {
                let _ = tx.send(tauri::async_runtime::block_on(answer));
            });
        });
        if let Err(e) = opened {
            tracing::warn!("could not open a dialog: {e}");
            return None;
        }
        rx.await.ok()
    }
}
