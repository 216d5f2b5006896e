//! Native dialogs, outside the webview: a warning answered by OK or Cancel, and the save and
//! open dialogs, shown over the main window on the main thread (where GTK wants them) without holding
//! a thread while the person decides.
//!
//! Owns: the app handle dialogs need, given once the app is built, and showing a dialog with it
//! (rfd, without the dialog plugin, whose script would replace the webview's own alert and
//! confirm with IPC calls). Refuses: what to ask (`confirm.rs`), and any answer without a
//! person: with no app to ask in (the mock runtime of the IPC tests), the answer is no.

use std::future::Future;
use std::path::PathBuf;
use std::sync::OnceLock;

use rfd::{AsyncFileDialog, AsyncMessageDialog, MessageButtons, MessageDialogResult, MessageLevel};
use tauri::{AppHandle, Manager, Wry};
use tokio::sync::oneshot;

/// Asks the person, natively, once the app is there to ask in.
#[derive(Default)]
pub struct Asker(OnceLock<AppHandle<Wry>>);

impl Asker {
    /// The app to show dialogs in; set once, when it is built.
    pub fn set(&self, app: AppHandle<Wry>) {
        let _ = self.0.set(app);
    }

    /// The app, once it is built (never in tests on the mock runtime).
    pub fn app(&self) -> Option<&AppHandle<Wry>> {
        self.0.get()
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
                if let Some(dir) = sonde_core::download_dir() {
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

    /// The native open dialog for one file of `kinds` (a name and its extensions), starting
    /// in the person's download directory. `None` when the person cancels.
    pub async fn open_path(&self, title: &str, kinds: (&str, &[&str])) -> Option<PathBuf> {
        let title = title.to_owned();
        let (name, extensions) =
            (kinds.0.to_owned(), kinds.1.iter().map(|e| e.to_string()).collect::<Vec<_>>());
        let chosen = self
            .show(move |window| {
                let mut dialog = AsyncFileDialog::new().set_title(&title).add_filter(&name, &extensions);
                if let Some(dir) = sonde_core::download_dir() {
                    dialog = dialog.set_directory(dir);
                }
                if let Some(window) = window {
                    dialog = dialog.set_parent(window);
                }
                dialog.pick_file()
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
