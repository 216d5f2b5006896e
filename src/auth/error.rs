//! Why an authorization flow failed: one variant per refusal or failure, grouped by the step
//! that meets it, each with the words the log, the flow's progress and a failed request show.
//!
//! Owns: [`AuthError`] and its words. Refuses: a code for a front end. A flow's failure never
//! reaches one as an error of its own: the HTTP loop fails the requests that waited for the flow
//! as an HTTP `401` with these words, and nothing branches on which refusal it was. Credentials
//! that cannot be kept are the store's errors (`store::StoreError`), which carry a code.

use url::Url;

/// Why an authorization (or a refresh) did not give a credential.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// An exchange of the flow got no whole response: refused, timed out, a body over the cap.
    #[error("{method} {url} failed: {why}")]
    Exchange { method: String, url: String, why: String },

    // Discovery.
    #[error("the protected-resource metadata at {url} is not valid: {error}")]
    ResourceMetadata { url: Url, error: serde_json::Error },
    /// RFC 9728 §3.3: metadata for another resource than the server Sonde connected to.
    #[error(
        "the protected-resource metadata is for \"{named}\", not for \"{ours}\", which Sonde connected to; refusing it (RFC 9728 §3.3)"
    )]
    OtherResource { named: String, ours: String },
    #[error("the authorization server {issuer:?} is not a URL: {error}")]
    IssuerNotUrl { issuer: String, error: url::ParseError },
    #[error("the authorization-server metadata at {url} is not valid: {error}")]
    ServerMetadata { url: Url, error: serde_json::Error },
    /// Every well-known URL of the issuer answered with something else than metadata.
    #[error("found no authorization-server metadata for {issuer}; tried {}", .tried.join(", "))]
    NoServerMetadata { issuer: String, tried: Vec<String> },
    /// RFC 8414 §3.3: the metadata names another issuer than the one it was fetched for.
    #[error(
        "the authorization server's metadata names issuer \"{named}\", but it was fetched for \
         \"{expected}\"; refusing it (RFC 8414 §3.3)"
    )]
    OtherIssuer { expected: String, named: String },
    #[error("the authorization server's metadata fetched for \"{expected}\" names no issuer; refusing it")]
    NoIssuer { expected: String },
    /// The metadata lacks `authorization_endpoint` or `token_endpoint` (the field's name).
    #[error("the authorization server's metadata has no {0}")]
    NoEndpoint(&'static str),
    #[error("{name} {text:?} is not a URL: {error}")]
    EndpointNotUrl { name: &'static str, text: String, error: url::ParseError },
    /// PKCE is offered, but not with `S256` (the methods offered).
    #[error(
        "the authorization server supports PKCE with {} only, not S256, which MCP requires; \
         not authorizing",
        .0.join(", ")
    )]
    NoS256(Vec<String>),
    #[error(
        "the authorization server's metadata has no code_challenge_methods_supported, so it \
         may not support PKCE, which MCP requires; not authorizing"
    )]
    NoPkce,

    // Registration.
    /// No client id was given and the server offers no way to get one.
    #[error(
        "{} supports neither dynamic client registration nor{} client metadata documents, so Sonde \
         needs a client registered there: give its client id (and secret, if it has one): \
         --client-id and --client-secret in the CLI, the server's OAuth client in the window",
        issuer_or_server(.issuer),
        without_document(.metadata_url)
    )]
    NoClient { issuer: Option<String>, metadata_url: bool },
    #[error("registration_endpoint {endpoint:?}: {error}")]
    RegistrationEndpoint { endpoint: String, error: url::ParseError },
    #[error("client registration was refused (HTTP {status}): {excerpt}")]
    RegistrationRefused { status: u16, excerpt: String },
    #[error("the registration response has no client id: {error}: {excerpt}")]
    NoClientId { error: serde_json::Error, excerpt: String },

    // The browser step and the redirect.
    #[error("could not open the loopback listener for the redirect: {0}")]
    Loopback(std::io::Error),
    /// The listener's own address could not be read.
    #[error("{0}")]
    LoopbackAddress(std::io::Error),
    /// The front end could not show the person the URL; its words.
    #[error("{0}")]
    Browser(String),
    /// The person did not finish in time (or never started).
    #[error(
        "no redirect reached {redirect_uri} within {minutes} minutes; the authorization was not finished in the browser"
    )]
    NoRedirect { redirect_uri: String, minutes: u64 },
    /// The redirect carried an `error`: the person declined, or the server refused.
    #[error("the authorization server refused the authorization: {error}{}", described(.description))]
    Refused { error: String, description: Option<String> },
    /// RFC 9207: the response's `iss` is not the issuer the request went to.
    #[error(
        "the authorization response came from issuer \"{iss}\", not \"{recorded}\", which the \
         request went to; refusing it (RFC 9207)"
    )]
    OtherIss { iss: String, recorded: String },
    /// RFC 9207: the issuer advertised `iss` and the response has none.
    #[error(
        "\"{recorded}\" says it sends `iss` in authorization responses, and this one has none; \
         refusing it (RFC 9207)"
    )]
    NoIss { recorded: String },
    #[error("the redirect carries no authorization code")]
    NoCode,

    // The token endpoint.
    /// An OAuth error response (RFC 6749 §5.2).
    #[error("the token endpoint refused (HTTP {status}): {error}{}", described(.description))]
    TokenRefused { status: u16, error: String, description: Option<String> },
    /// A status that is not success, with no OAuth error in the body.
    #[error("the token endpoint answered HTTP {status}: {excerpt}")]
    TokenStatus { status: u16, excerpt: String },
    #[error("the token response is not a token: {error}: {excerpt}")]
    NotAToken { error: serde_json::Error, excerpt: String },
    #[error("the token endpoint issued a {0} token; MCP uses Bearer tokens")]
    NotBearer(String),
    /// A kept credential's token endpoint cannot be read (it was written by hand, or by
    /// another version).
    #[error("token endpoint: {0}")]
    KeptTokenEndpoint(url::ParseError),
    /// A kept credential's resource cannot be read.
    #[error("{0}")]
    KeptResource(url::ParseError),

    /// One request caused as many flows as it may (`scope::MAX_AUTHORIZATIONS`, the number).
    #[error("the server still refuses after {0} authorizations; giving up rather than asking again")]
    TooManyAuthorizations(u32),
}

fn issuer_or_server(issuer: &Option<String>) -> &str {
    issuer.as_deref().unwrap_or("the authorization server")
}

fn without_document(metadata_url: &bool) -> &'static str {
    if *metadata_url {
        ""
    } else {
        " (without a metadata document URL)"
    }
}

/// `: DESCRIPTION` after an OAuth error code, when the response gave one.
fn described(description: &Option<String>) -> String {
    description.as_ref().map(|d| format!(": {d}")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words a person reads did not change when the errors became typed: each case's
    /// expectation is the `format!` the flow built the message with before.
    #[test]
    fn each_failure_says_what_the_flow_said_before_it_was_typed() {
        let json = || serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        let not_url = || Url::parse("not a url").unwrap_err();
        let io = || std::io::Error::from(std::io::ErrorKind::AddrInUse);
        let url = Url::parse("https://as.example/.well-known/oauth-authorization-server").unwrap();
        let (issuer, named, ours) = ("https://as.example", "https://evil.example/mcp", "http://s/mcp");
        let (status, excerpt, text) = (400, "an empty body", "ftp:x");
        let tried = vec![format!("{url} (HTTP 404)"), "https://as.example/x (HTTP 500)".to_owned()];
        let cases: Vec<(AuthError, String)> = vec![
            (
                AuthError::Exchange { method: "POST".into(), url: url.to_string(), why: "refused".into() },
                format!("{} {url} failed: {}", "POST", "refused"),
            ),
            (
                AuthError::ResourceMetadata { url: url.clone(), error: json() },
                format!("the protected-resource metadata at {url} is not valid: {}", json()),
            ),
            (
                AuthError::OtherResource { named: named.into(), ours: ours.into() },
                format!(
                    "the protected-resource metadata is for \"{named}\", not for \"{ours}\", which Sonde connected to; refusing it (RFC 9728 §3.3)"
                ),
            ),
            (
                AuthError::IssuerNotUrl { issuer: "as".into(), error: not_url() },
                format!("the authorization server {:?} is not a URL: {}", "as", not_url()),
            ),
            (
                AuthError::ServerMetadata { url: url.clone(), error: json() },
                format!("the authorization-server metadata at {url} is not valid: {}", json()),
            ),
            (
                AuthError::NoServerMetadata { issuer: issuer.into(), tried: tried.clone() },
                format!("found no authorization-server metadata for {issuer}; tried {}", tried.join(", ")),
            ),
            (
                AuthError::OtherIssuer { expected: issuer.into(), named: named.into() },
                format!(
                    "the authorization server's metadata names issuer \"{named}\", but it was fetched for \
                     \"{issuer}\"; refusing it (RFC 8414 §3.3)"
                ),
            ),
            (
                AuthError::NoIssuer { expected: issuer.into() },
                format!(
                    "the authorization server's metadata fetched for \"{issuer}\" names no issuer; refusing it"
                ),
            ),
            (
                AuthError::NoEndpoint("token_endpoint"),
                format!("the authorization server's metadata has no {}", "token_endpoint"),
            ),
            (
                AuthError::EndpointNotUrl { name: "token_endpoint", text: text.into(), error: not_url() },
                format!("{} {text:?} is not a URL: {}", "token_endpoint", not_url()),
            ),
            (
                AuthError::NoS256(vec!["plain".into(), "S384".into()]),
                format!(
                    "the authorization server supports PKCE with {} only, not S256, which MCP requires; \
                     not authorizing",
                    ["plain", "S384"].join(", ")
                ),
            ),
            (
                AuthError::NoPkce,
                "the authorization server's metadata has no code_challenge_methods_supported, so it \
                 may not support PKCE, which MCP requires; not authorizing"
                    .to_owned(),
            ),
            (
                AuthError::NoClient { issuer: Some(issuer.into()), metadata_url: true },
                format!(
                    "{} supports neither dynamic client registration nor{} client metadata documents, so Sonde \
                     needs a client registered there: give its client id (and secret, if it has one): \
                     --client-id and --client-secret in the CLI, the server's OAuth client in the window",
                    issuer, ""
                ),
            ),
            (
                AuthError::NoClient { issuer: None, metadata_url: false },
                format!(
                    "{} supports neither dynamic client registration nor{} client metadata documents, so Sonde \
                     needs a client registered there: give its client id (and secret, if it has one): \
                     --client-id and --client-secret in the CLI, the server's OAuth client in the window",
                    "the authorization server", " (without a metadata document URL)"
                ),
            ),
            (
                AuthError::RegistrationEndpoint { endpoint: text.into(), error: not_url() },
                format!("registration_endpoint {text:?}: {}", not_url()),
            ),
            (
                AuthError::RegistrationRefused { status, excerpt: excerpt.into() },
                format!("client registration was refused (HTTP {}): {}", status, excerpt),
            ),
            (
                AuthError::NoClientId { error: json(), excerpt: excerpt.into() },
                format!("the registration response has no client id: {}: {}", json(), excerpt),
            ),
            (
                AuthError::Loopback(io()),
                format!("could not open the loopback listener for the redirect: {}", io()),
            ),
            (AuthError::LoopbackAddress(io()), io().to_string()),
            (
                AuthError::Browser("could not build the HTTP client: x".into()),
                "could not build the HTTP client: x".to_owned(),
            ),
            (
                AuthError::NoRedirect { redirect_uri: "http://127.0.0.1:9/callback".into(), minutes: 5 },
                format!(
                    "no redirect reached {} within {} minutes; the authorization was not finished in the browser",
                    "http://127.0.0.1:9/callback", 5
                ),
            ),
            (
                AuthError::Refused { error: "access_denied".into(), description: Some("no".into()) },
                format!("the authorization server refused the authorization: {}{}", "access_denied", ": no"),
            ),
            (
                AuthError::Refused { error: "access_denied".into(), description: None },
                format!("the authorization server refused the authorization: {}{}", "access_denied", ""),
            ),
            (
                AuthError::OtherIss { iss: named.into(), recorded: issuer.into() },
                format!(
                    "the authorization response came from issuer \"{named}\", not \"{issuer}\", which the \
                     request went to; refusing it (RFC 9207)"
                ),
            ),
            (
                AuthError::NoIss { recorded: issuer.into() },
                format!(
                    "\"{issuer}\" says it sends `iss` in authorization responses, and this one has none; \
                     refusing it (RFC 9207)"
                ),
            ),
            (AuthError::NoCode, "the redirect carries no authorization code".to_owned()),
            (
                AuthError::TokenRefused {
                    status,
                    error: "invalid_grant".into(),
                    description: Some("expired".into()),
                },
                format!("the token endpoint refused (HTTP {}): {}{}", status, "invalid_grant", ": expired"),
            ),
            (
                AuthError::TokenRefused { status, error: "invalid_grant".into(), description: None },
                format!("the token endpoint refused (HTTP {}): {}{}", status, "invalid_grant", ""),
            ),
            (
                AuthError::TokenStatus { status, excerpt: excerpt.into() },
                format!("the token endpoint answered HTTP {}: {}", status, excerpt),
            ),
            (
                AuthError::NotAToken { error: json(), excerpt: excerpt.into() },
                format!("the token response is not a token: {}: {}", json(), excerpt),
            ),
            (
                AuthError::NotBearer("mac".into()),
                format!("the token endpoint issued a {} token; MCP uses Bearer tokens", "mac"),
            ),
            (AuthError::KeptTokenEndpoint(not_url()), format!("token endpoint: {}", not_url())),
            (AuthError::KeptResource(not_url()), not_url().to_string()),
            (
                AuthError::TooManyAuthorizations(3),
                format!(
                    "the server still refuses after {} authorizations; giving up rather than asking again",
                    3
                ),
            ),
        ];
        for (error, words) in cases {
            assert_eq!(error.to_string(), words, "{error:?}");
        }
    }
}
