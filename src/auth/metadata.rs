//! The two metadata documents a client reads before it authorizes: the protected resource's
//! (RFC 9728) and its authorization server's (RFC 8414 / OpenID Connect discovery), as far as
//! MCP authorization uses them.
//!
//! Owns: their shapes, read leniently (unknown fields ignored, a missing list is empty).
//! Refuses: fetching them and deciding which to trust (`discovery`, `issuer`).

use serde::Deserialize;

/// RFC 9728 protected-resource metadata.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ResourceMetadata {
    /// The resource identifier: what `resource` (RFC 8707) names in requests.
    #[serde(default)]
    pub resource: Option<String>,
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
}

/// RFC 8414 authorization-server metadata (OpenID Connect discovery has the same fields).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ServerMetadata {
    #[serde(default)]
    pub issuer: Option<String>,
    #[serde(default)]
    pub authorization_endpoint: Option<String>,
    #[serde(default)]
    pub token_endpoint: Option<String>,
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub grant_types_supported: Option<Vec<String>>,
    /// Client ID Metadata Documents (an HTTPS URL as `client_id`).
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    /// RFC 9207: the authorization response carries `iss`.
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
}
