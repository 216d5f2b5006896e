//! A browser step with no person: GET the authorization URL and follow its redirects, as a
//! browser would when the authorization server asks nothing (the conformance suite's servers,
//! and the test servers that redirect at once). The last redirect lands on the loopback
//! listener like a person's browser would.
//!
//! Owns: that request. Refuses: pages that ask for anything (a login form stays unanswered and
//! the flow runs into the listener's limit).

use super::{AuthError, Browser};

pub struct FollowRedirects;

impl Browser for FollowRedirects {
    fn open(&self, url: &url::Url) -> Result<(), AuthError> {
        let url = url.clone();
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::limited(10))
            .build()
            .map_err(|e| AuthError::Browser(format!("could not build the HTTP client: {e}")))?;
        // The listener answers the last redirect; the flow waits there, not here.
        tokio::spawn(async move {
            let _ = client.get(url).send().await;
        });
        Ok(())
    }
}
