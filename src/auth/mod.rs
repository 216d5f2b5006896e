//! OAuth 2.1 for remote servers, as the MCP authorization specification of each revision asks
//! of a client (protocol.md §7): reading a server's `401`/`403` challenge, finding its
//! protected-resource and authorization-server metadata, PKCE, scopes, the client's
//! registration, the browser step on a loopback listener, tokens and their refresh, and keeping
//! credentials between runs.
//!
//! Owns: the flow (`flow`) and its rules as pure functions, each testable without a network,
//! and why a flow fails ([`AuthError`]) or credentials cannot be kept ([`StoreError`]).
//! Refuses: opening a browser (a front end supplies a [`Browser`]), the MCP requests themselves
//! (the HTTP loop holds them while a flow runs and sends them again with the token), and any
//! other grant than the authorization code with PKCE.

pub mod credential;
pub mod discovery;
pub mod error;
pub mod flow;
pub mod follow;
pub mod issuer;
pub mod keychain;
pub mod loopback;
pub mod metadata;
pub mod pkce;
pub mod progress;
pub mod record;
pub mod redact;
pub mod register;
pub mod scope;
pub mod store;
pub mod token;

use std::sync::Arc;

pub use credential::{Credential, CredentialView};
pub use error::AuthError;
pub use store::{CredentialStore, StoreError};

pub use crate::transport::OAuthSettings as Settings;

/// Shows the person an authorization URL: opens the system browser, prints it, or (the
/// conformance client) follows it without a person. An error ([`AuthError::Browser`], in the
/// front end's words) ends the flow.
pub trait Browser: Send + Sync {
    fn open(&self, url: &url::Url) -> Result<(), AuthError>;
}

/// What a front end gives the core so its HTTP connections can authorize, and where it sees
/// each flow's steps.
pub struct Authorizer {
    pub browser: Arc<dyn Browser>,
    pub store: CredentialStore,
    pub flows: Arc<progress::Flows>,
}

impl Authorizer {
    pub fn new(browser: Arc<dyn Browser>, store: CredentialStore) -> Authorizer {
        Authorizer { browser, store, flows: Arc::default() }
    }
}
