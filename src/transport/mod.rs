//! What HTTP transports share: the target (URL, headers, timeouts), which headers are secret,
//! server-sent events, and the 2026-07-28 header mirror.
//!
//! Owns: the description of an HTTP server to connect to and the pure pieces of the wire.
//! Refuses: the exchanges themselves, which the HTTP connection loop runs
//! (`connection::http`), and stdio, which lives in `process` and the stdio loop.

pub mod headers;
pub mod sse;

use std::time::Duration;

use serde::{Deserialize, Serialize};

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
    pub fn parse(text: &str, secret: bool) -> Result<Header, String> {
        let (name, value) =
            text.split_once(':').ok_or_else(|| format!("{text:?} is not a header: write Name: value"))?;
        let name = name.trim();
        if !headers::is_token(name) {
            return Err(format!("{name:?} is not a header name"));
        }
        let value = value.trim();
        if value.bytes().any(|b| b < 0x20 && b != b'\t' || b == 0x7f) {
            return Err(format!("the value of {name} has control characters"));
        }
        Ok(Header { name: name.to_owned(), value: value.to_owned(), secret: secret || is_secret_name(name) })
    }
}

/// Headers whose values are credentials whatever the user said.
pub fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["authorization", "proxy-authorization", "cookie", "set-cookie"].contains(&lower.as_str())
        || ["token", "secret", "api-key", "apikey", "password"].iter().any(|w| lower.contains(w))
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
    pub auth: crate::auth::Settings,
}

impl HttpTarget {
    pub fn new(text: &str) -> Result<HttpTarget, String> {
        let url = url::Url::parse(text).map_err(|e| format!("{text:?} is not a URL: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("{text} is not an http:// or https:// URL"));
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
