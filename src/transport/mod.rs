//! What HTTP transports share: the target (URL, headers, timeouts), which headers are secret,
//! server-sent events, and the 2026-07-28 header mirror.
//!
//! Owns: the description of an HTTP server to connect to (and `TargetError`, why a URL or a
//! header given for one cannot be used: `bad_input`) and the pure pieces of the wire.
//! Refuses: the exchanges themselves, which the HTTP connection loop runs
//! (`connection::http`), and stdio, which lives in `process` and the stdio loop.

pub mod headers;
pub mod sse;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error_code::ErrorCode;

/// Why a URL or a header given for an HTTP server cannot be used, in the words the person reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// Text with no colon between a name and a value.
    #[error("{0:?} is not a header: write Name: value")]
    NotAHeader(String),
    #[error("{0:?} is not a header name")]
    NotAHeaderName(String),
    /// The header's value (named by its header) holds control characters.
    #[error("the value of {0} has control characters")]
    ControlCharacters(String),
    #[error("{text:?} is not a URL: {source}")]
    NotAUrl { text: String, source: url::ParseError },
    #[error("{0} is not an http:// or https:// URL")]
    NotHttp(String),
}

impl TargetError {
    /// Every one is about what the person gave: `bad_input`.
    pub fn code(&self) -> ErrorCode {
        ErrorCode::BadInput
    }
}

/// One extra request header. Secret ones are never written to the log.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub name: String,
    pub value: String,
    #[serde(default)]
    pub secret: bool,
}

impl Header {
    /// Parses `Name: value` (the CLI's `--header`).
    pub fn parse(text: &str, secret: bool) -> Result<Header, TargetError> {
        let (name, value) = text.split_once(':').ok_or_else(|| TargetError::NotAHeader(text.to_owned()))?;
        let name = name.trim();
        if !headers::is_token(name) {
            return Err(TargetError::NotAHeaderName(name.to_owned()));
        }
        let value = value.trim();
        if value.bytes().any(|b| b < 0x20 && b != b'\t' || b == 0x7f) {
            return Err(TargetError::ControlCharacters(name.to_owned()));
        }
        Ok(Header { name: name.to_owned(), value: value.to_owned(), secret: secret || is_secret_name(name) })
    }
}

/// Headers whose values are credentials whatever the user said: Authorization, Cookie, and any
/// name with token, secret, key, password or credential in it (`X-Auth-Key`, `X-API-Key`),
/// as `--secret-header`'s help promises. A name that merely holds "key" (an idempotency key)
/// is redacted too: a value hidden by mistake costs less than a credential shown.
pub fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["authorization", "proxy-authorization", "cookie", "set-cookie"].contains(&lower.as_str())
        || ["token", "secret", "key", "password", "credential"].iter().any(|w| lower.contains(w))
}

/// Headers as Sonde records them: the values of secret ones (by name, or by `marked`) replaced
/// by `[redacted]`, and a redirect's target shown as [`shown_url_text`] shows a URL.
pub fn recorded_headers(
    headers: &[(String, String)],
    marked: impl Fn(&str) -> bool,
) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            let value = if is_secret_name(name) || marked(name) {
                REDACTED.to_owned()
            } else if name.eq_ignore_ascii_case("location") {
                // A redirect's target may carry a token in its query.
                shown_url_text(value)
            } else {
                value.clone()
            };
            (name.clone(), value)
        })
        .collect()
}

/// What stands in for a secret in what Sonde records.
pub const REDACTED: &str = "[redacted]";

/// Whether a query parameter's value is a credential by its name: `token`, `key`, `secret`,
/// `password`, `sig` or `code` anywhere in it, in any case (`api_key`, `X-Amz-Signature`,
/// `access_token`), or an OAuth secret (`assertion`).
pub fn is_secret_param(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["token", "key", "secret", "password", "sig", "code"].iter().any(|w| lower.contains(w))
        || lower.contains("assertion")
}

/// A URL as Sonde records it anywhere (the log, errors, era-cache keys, cards, traces): the
/// userinfo password and the values of secret query parameters replaced by `[redacted]`, the
/// rest as it was.
pub fn shown_url(url: &url::Url) -> String {
    let mut base = url.clone();
    base.set_query(None);
    base.set_fragment(None);
    let mut shown = base.to_string();
    if let Some(password) = url.password() {
        shown = shown.replacen(&format!(":{password}@"), &format!(":{REDACTED}@"), 1);
    }
    if let Some(query) = url.query() {
        shown.push('?');
        shown.push_str(&shown_query(query));
    }
    if let Some(fragment) = url.fragment() {
        shown.push('#');
        shown.push_str(fragment);
    }
    shown
}

/// A URL given as text, shown as [`shown_url`] does; text that is not a URL is returned whole.
pub fn shown_url_text(text: &str) -> String {
    url::Url::parse(text).map_or_else(|_| text.to_owned(), |u| shown_url(&u))
}

/// Text (an error, a note) with every `http://` or `https://` URL in it shown as
/// [`shown_url`] does: reqwest's errors name the URL they were sending to, userinfo and all.
pub fn shown_urls_in(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = ["http://", "https://"].iter().filter_map(|p| rest.find(p)).min() {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | '"' | '\'' | '>' | ','))
            .unwrap_or(tail.len());
        out.push_str(&shown_url_text(&tail[..end]));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// A query string (or form body) with the values of secret parameters replaced.
pub fn shown_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if is_secret_param(&decoded_name(name)) => format!("{name}={REDACTED}"),
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

fn decoded_name(name: &str) -> String {
    url::form_urlencoded::parse(format!("{name}=").as_bytes())
        .next()
        .map(|(k, _)| k.into_owned())
        .unwrap_or_default()
}

/// What the person said about the client Sonde is (`--client-id`, `--client-secret`,
/// `--scope`, `--client-metadata-url`).
#[derive(Clone, Default, PartialEq)]
pub struct OAuthSettings {
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// Replaces the scopes the server asks for.
    pub scope: Option<String>,
    /// An HTTPS URL serving Sonde's Client ID Metadata Document.
    pub client_metadata_url: Option<String>,
}

impl std::fmt::Debug for OAuthSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthSettings")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| REDACTED))
            .field("scope", &self.scope)
            .field("client_metadata_url", &self.client_metadata_url)
            .finish()
    }
}

/// How long HTTP may take, each reported by name when it runs out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HttpTimeouts {
    /// Opening the TCP (and TLS) connection.
    pub connect: Duration,
    /// From sending a request to its response headers.
    pub headers: Duration,
    /// The longest silence on a response stream before it is given up (and, for the GET
    /// stream, reopened).
    pub idle: Duration,
}

impl Default for HttpTimeouts {
    fn default() -> Self {
        HttpTimeouts {
            connect: Duration::from_secs(10),
            headers: Duration::from_secs(60),
            idle: Duration::from_secs(300),
        }
    }
}

/// An HTTP server to connect to.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpTarget {
    pub url: url::Url,
    pub headers: Vec<Header>,
    pub timeouts: HttpTimeouts,
    /// Who Sonde is to the server's authorization server, when it asks for one.
    pub auth: OAuthSettings,
}

impl HttpTarget {
    pub fn new(text: &str) -> Result<HttpTarget, TargetError> {
        let url =
            url::Url::parse(text).map_err(|source| TargetError::NotAUrl { text: text.to_owned(), source })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(TargetError::NotHttp(text.to_owned()));
        }
        Ok(HttpTarget {
            url,
            headers: Vec::new(),
            timeouts: HttpTimeouts::default(),
            auth: Default::default(),
        })
    }
}

/// Which HTTP transport a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpMode {
    /// Streamable HTTP (2025-11-25 with sessions, or 2026-07-28 stateless).
    Streamable,
    /// The deprecated HTTP+SSE transport of 2024-11-05: a GET stream that names a POST endpoint.
    LegacySse,
}

#[cfg(test)]
mod redaction_tests {
    use super::*;

    #[test]
    fn header_names_that_hold_credentials_are_secret_as_the_help_says() {
        let secret =
            ["Authorization", "cookie", "X-Auth-Key", "X-API-Key", "x-apikey", "X-Token", "Client-Secret"];
        for name in secret.into_iter().chain(["X-Password", "X-Credential"]) {
            assert!(is_secret_name(name), "{name}");
        }
        for name in ["Accept", "Mcp-Session-Id", "Keep-Alive", "Last-Event-ID", "User-Agent"] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    /// A URL or a header that cannot be used is the person's input, `bad_input`, in the words
    /// the CLI's `--header` and the window's URL field have always shown.
    #[test]
    fn a_bad_url_or_header_is_bad_input() {
        let not_a_url = HttpTarget::new("no url").unwrap_err();
        assert!(not_a_url.to_string().starts_with("\"no url\" is not a URL: "), "{not_a_url}");
        let not_http = HttpTarget::new("ftp://h/x").unwrap_err();
        assert_eq!(not_http.to_string(), "ftp://h/x is not an http:// or https:// URL");
        let header = Header::parse("X-Key value", false).unwrap_err();
        assert_eq!(header.to_string(), "\"X-Key value\" is not a header: write Name: value");
        for e in [not_a_url, not_http, header, Header::parse("X: a\u{7f}", false).unwrap_err()] {
            assert_eq!(e.code(), ErrorCode::BadInput, "{e}");
        }
    }

    #[test]
    fn a_url_keeps_its_shape_and_loses_its_password_and_secret_parameters() {
        let url = url::Url::parse(
            "http://alice:PASSWORD@host:8080/mcp?api_key=KEY&x=1&Signature=S&code=C&state=s#frag",
        )
        .unwrap();
        assert_eq!(
            shown_url(&url),
            "http://alice:[redacted]@host:8080/mcp?api_key=[redacted]&x=1&Signature=[redacted]&code=[redacted]&state=s#frag"
        );
        assert_eq!(shown_url(&url::Url::parse("https://h/p?q=1").unwrap()), "https://h/p?q=1");
        for name in [
            "token",
            "ACCESS_TOKEN",
            "apiKey",
            "client_secret",
            "password",
            "sig",
            "X-Amz-Signature",
            "assertion",
        ] {
            assert!(is_secret_param(name), "{name}");
        }
        assert!(!is_secret_param("state") && !is_secret_param("cursor"));
    }

    #[test]
    fn urls_inside_errors_are_shown_without_their_secrets() {
        let error =
            "error sending request for url (http://alice:PASSWORD@host/mcp?api_key=KEY): connection refused";
        let shown = shown_urls_in(error);
        assert!(!shown.contains("PASSWORD") && !shown.contains("KEY"), "{shown}");
        assert_eq!(shown, "error sending request for url (http://alice:[redacted]@host/mcp?api_key=[redacted]): connection refused");
        assert_eq!(shown_urls_in("no url here"), "no url here");
    }
}
