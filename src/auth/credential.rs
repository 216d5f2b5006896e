//! One authorization's record, as it is kept between runs: the issuer and resource it is keyed
//! by, the client registration, the tokens and where to refresh them; and the view of it that a
//! front end may show.
//!
//! Owns: the record, its JSON form (the same in the Secret Service and in `credentials.json`)
//! and keeping its secrets out of sight: `Debug` and [`CredentialView`] show none. Refuses:
//! where records are kept (`store`, `keychain`) and when one is used or replaced (the flow).

use serde::{Deserialize, Serialize};

/// What one authorization left: keyed by `issuer` and `resource`.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct Credential {
    pub issuer: String,
    /// The MCP server's URL, as Sonde connects to it.
    pub resource: String,
    pub token_endpoint: String,
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `client_secret_basic`, `client_secret_post` or `none`.
    pub auth_method: String,
    pub access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes asked for (and granted, when the server said).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credential")
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .field("client_id", &self.client_id)
            .field("scope", &self.scope)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

impl Credential {
    pub fn expired(&self, now: u64) -> bool {
        self.expires_at.is_some_and(|at| at <= now)
    }

    /// What a front end may show of it: everything but its secrets.
    pub fn view(&self) -> CredentialView {
        CredentialView {
            resource: self.resource.clone(),
            issuer: self.issuer.clone(),
            client_id: self.client_id.clone(),
            scope: self.scope.clone(),
            expires_at: self.expires_at,
            refreshable: self.refresh_token.is_some(),
        }
    }
}

/// A credential as a front end shows it: which server, which authorization server and client,
/// the scopes, when the token expires and whether it can be refreshed; never a secret.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CredentialView {
    pub resource: String,
    pub issuer: String,
    pub client_id: String,
    pub scope: Option<String>,
    /// Seconds since the Unix epoch.
    pub expires_at: Option<u64>,
    pub refreshable: bool,
}
