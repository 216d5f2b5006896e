//! The CLI's side of OAuth: the browser step (the system browser, or the URL printed with
//! `--no-browser`), and `sonde auth list` / `sonde auth logout [URL]` over the credentials kept
//! between runs.
//!
//! Owns: those words on the terminal. Refuses: the flow (`sonde_core::auth`) and printing a
//! token: listings say what a credential is for, never what it holds.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::json;
use sonde_core::{AuthError, Authorizer, Browser, CredentialStore, StoreError};

use crate::exit::{FAILED, OK};

/// Opens the system browser on the authorization URL, and prints it too (a browser that does
/// not open leaves the person the URL to copy).
pub struct SystemBrowser;

impl Browser for SystemBrowser {
    fn open(&self, url: &url::Url) -> Result<(), AuthError> {
        errln!("sonde: the server asks for authorization; opening your browser at\n  {url}");
        if let Err(e) = open::that_detached(url.as_str()) {
            errln!("sonde: could not open a browser ({e}); open the URL above yourself");
        }
        Ok(())
    }
}

/// `--no-browser`: prints the URL and waits for the redirect.
pub struct PrintedUrl;

impl Browser for PrintedUrl {
    fn open(&self, url: &url::Url) -> Result<(), AuthError> {
        errln!(
            "sonde: the server asks for authorization; open this URL in a browser on this machine:\n  {url}"
        );
        Ok(())
    }
}

/// The authorizer for a run: the browser step chosen by `--no-browser`, credentials in the
/// config directory (or for this run only when that cannot be found).
pub fn authorizer(no_browser: bool) -> Authorizer {
    let browser: Arc<dyn Browser> = if no_browser { Arc::new(PrintedUrl) } else { Arc::new(SystemBrowser) };
    let store = CredentialStore::default_location().unwrap_or_else(|e| {
        errln!("sonde: credentials are kept for this run only: {e}");
        CredentialStore::in_memory()
    });
    Authorizer::new(browser, store)
}

/// `sonde auth list`.
pub fn list(json_out: bool) -> i32 {
    let store = match CredentialStore::default_location() {
        Ok(store) => store,
        Err(e) => {
            errln!("sonde: {e}");
            return FAILED;
        }
    };
    let credentials = match store.list() {
        Ok(list) => list,
        Err(e) => {
            errln!("sonde: {e}");
            return FAILED;
        }
    };
    if json_out {
        // One JSON array, `[]` when nothing is kept: a script reads the answer, never silence.
        let all: Vec<_> = credentials
            .iter()
            .map(|c| {
                json!({
                    "resource": c.resource, "issuer": c.issuer, "client_id": c.client_id,
                    "scope": c.scope, "expires_at": c.expires_at, "refreshable": c.refresh_token.is_some(),
                })
            })
            .collect();
        outln!("{}", json!(all));
        return OK;
    }
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    for c in &credentials {
        let expiry = match c.expires_at {
            Some(at) if at <= now => "expired".to_owned(),
            Some(at) => {
                format!("expires in {}", sonde_core::duration_words(std::time::Duration::from_secs(at - now)))
            }
            None => "no expiry given".to_owned(),
        };
        let refresh = if c.refresh_token.is_some() { ", refreshable" } else { "" };
        let scope = c.scope.as_deref().map(|s| format!(", scope {s}")).unwrap_or_default();
        outln!("{}\n  issuer {}, client {}{scope}, {expiry}{refresh}", c.resource, c.issuer, c.client_id);
    }
    if credentials.is_empty() {
        errln!("sonde: no credentials kept (in {})", store.describe());
    }
    OK
}

/// `sonde auth logout [URL]`: forgets the credentials of one server, or all.
pub fn logout(url: Option<&str>) -> i32 {
    // Credentials are kept under the URL as Sonde spells it (`http://host/` for `http://host`).
    let url = url.map(|u| url::Url::parse(u).map_or_else(|_| u.to_owned(), String::from));
    let url = url.as_deref();
    let result =
        CredentialStore::default_location().map_err(StoreError::from).and_then(|store| store.remove(url));
    match result {
        Ok(gone) if gone.is_empty() => {
            errln!("sonde: no credentials kept{}", url.map(|u| format!(" for {u}")).unwrap_or_default());
            if url.is_some() {
                FAILED
            } else {
                OK
            }
        }
        Ok(gone) => {
            for c in gone {
                errln!("sonde: forgot the credentials for {} (issuer {})", c.resource, c.issuer);
            }
            OK
        }
        Err(e) => {
            errln!("sonde: {e}");
            FAILED
        }
    }
}
