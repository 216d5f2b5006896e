//! The browser step of OAuth in the window: the system browser, through the opener plugin, and
//! the app's authorizer built on it.
//!
//! Owns: handing an authorization URL to the system browser. Refuses: the flow (the core's
//! `auth`) and the commands over it (`auth_cmd.rs`).

use std::sync::Arc;

use sonde_core::{AuthError, Authorizer, Browser, CredentialStore};

/// The system browser, through the opener plugin. A browser that does not start leaves the
/// flow waiting: the window shows the URL, to open again or copy.
pub struct SystemBrowser;

impl Browser for SystemBrowser {
    fn open(&self, url: &url::Url) -> std::result::Result<(), AuthError> {
        if let Err(e) = tauri_plugin_opener::open_url(url.as_str(), None::<&str>) {
            tracing::warn!("the system browser could not be started for an authorization: {e}");
        }
        Ok(())
    }
}

/// The app's authorizer: the system browser, and credentials in the config directory (for this
/// run only when there is none).
pub fn authorizer() -> Authorizer {
    let store = CredentialStore::default_location().unwrap_or_else(|e| {
        tracing::warn!("credentials are kept for this run only: {e}");
        CredentialStore::in_memory()
    });
    Authorizer::new(Arc::new(SystemBrowser), store)
}
