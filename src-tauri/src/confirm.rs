//! Native confirmations, outside the webview: a question the window's own code can neither
//! answer nor hide, asked before Sonde runs code it has not run before (a saved server's new or
//! changed launch, the entries of an import) and where an export is written.
//!
//! Owns: showing a GTK dialog through the dialog plugin and waiting for the person's answer
//! without holding a thread, and the app handle that needs, given once the app is built.
//! Refuses: deciding what to ask (the core's `launches` reads a server into words) and any
//! answer without a person: with no app to ask in (the mock runtime of the IPC tests), the
//! answer is no, never yes.

use std::path::PathBuf;
use std::sync::OnceLock;

use tauri::{AppHandle, Manager, Wry};
use tauri_plugin_dialog::{DialogExt, MessageDialogButtons, MessageDialogKind};
use tokio::sync::oneshot;

/// Asks the person, natively, once the app is there to ask in.
#[derive(Default)]
pub struct Asker(OnceLock<AppHandle<Wry>>);

impl Asker {
    /// The app to show dialogs in; set once, when it is built.
    pub fn set(&self, app: AppHandle<Wry>) {
        let _ = self.0.set(app);
    }

    /// A warning with `message`, answered by `ok` or Cancel: true only for `ok`.
    pub async fn ask(&self, title: &str, message: String, ok: &str) -> bool {
        let Some(app) = self.0.get() else {
            tracing::warn!("{title}: no window to ask in, so the answer is no");
            return false;
        };
        let (tx, rx) = oneshot::channel();
        let mut dialog = app
            .dialog()
            .message(message)
            .title(title)
            .kind(MessageDialogKind::Warning)
            .buttons(MessageDialogButtons::OkCancelCustom(ok.to_owned(), "Cancel".to_owned()));
        if let Some(window) = app.get_webview_window("main") {
            dialog = dialog.parent(&window);
        }
        dialog.show(move |yes| {
            let _ = tx.send(yes);
        });
        rx.await.unwrap_or(false)
    }

    /// The native save dialog, offering `file_name` in the person's download directory; GTK
    /// asks before overwriting a file. `None` when the person cancels (or there is no window
    /// to ask in).
    pub async fn save_path(&self, title: &str, file_name: &str) -> Option<PathBuf> {
        let app = self.0.get()?;
        let (tx, rx) = oneshot::channel();
        let mut dialog = app.dialog().file().set_title(title).set_file_name(file_name);
        if let Some(dir) = sonde_core::files::download_dir() {
            dialog = dialog.set_directory(dir);
        }
        if let Some(window) = app.get_webview_window("main") {
            dialog = dialog.set_parent(&window);
        }
        dialog.save_file(move |path| {
            let _ = tx.send(path.and_then(|p| p.into_path().ok()));
        });
        rx.await.ok().flatten()
    }
}
