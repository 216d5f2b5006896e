//! The HTTP exchanges of an authorization flow, each recorded in the wire log as the MCP ones
//! are: an `http` entry for the request (method, URL, headers, body) and one for the response
//! (status, headers, body), with the step it belongs to in its detail and every credential
//! shown as `[redacted]`.
//!
//! Owns: sending one request and recording both halves. Refuses: what the bodies mean.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::error::AuthError;
use super::progress::Flows;
pub use super::progress::Step;
use crate::log::{Direction, Entry, HttpInfo, Kind, WireLog};
use crate::transport::sse::error_chain;

/// How long one exchange of the flow may take, head and body.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest body read from an authorization or metadata endpoint.
const MAX_BODY: usize = 1 << 20;

/// A response, read whole.
pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Response {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The start of the body, for an error message; credentials removed.
    pub fn excerpt(&self) -> String {
        let shown = super::redact::body(&self.body);
        let text = String::from_utf8_lossy(&shown);
        let text: String = text.chars().filter(|c| !c.is_control()).take(300).collect();
        if text.is_empty() {
            "an empty body".into()
        } else {
            text
        }
    }
}

/// Sends the flow's requests on the connection's behalf and records them in its log.
#[derive(Clone)]
pub struct Recorder {
    pub client: reqwest::Client,
    pub log: Arc<WireLog>,
    pub conn: u64,
    /// The connection's exchange numbers, shared with its HTTP loop.
    pub exchanges: Arc<AtomicU64>,
    /// Where the flow's steps are shown as they happen.
    pub flows: Arc<Flows>,
}

impl Recorder {
    /// `step` starts (the one before it is done).
    pub fn step(&self, step: Step) {
        self.flows.step(self.conn, step);
    }

    /// The running step failed with `reason`, and the flow goes on another way.
    pub fn failed(&self, reason: &str) {
        self.flows.failed(self.conn, reason);
    }

    /// The flow waits for the person at `url`.
    pub fn waiting(&self, url: &url::Url) {
        self.flows.waiting(self.conn, url.as_str());
    }

    /// A note in the connection's log about the flow.
    pub fn note(&self, step: Step, text: impl AsRef<str>) {
        let detail = format!("authorization · {}: {}", step.word(), text.as_ref());
        self.log.append(Entry::new(self.conn, Kind::Note, Direction::Meta).with_detail(detail));
    }

    pub async fn get(&self, step: Step, url: &url::Url) -> Result<Response, AuthError> {
        self.send(step, reqwest::Method::GET, url, vec![("Accept".into(), "application/json".into())], None)
            .await
    }

    /// A POST of `body` as `content_type`.
    pub async fn post(
        &self,
        step: Step,
        url: &url::Url,
        content_type: &str,
        mut headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> Result<Response, AuthError> {
        headers.push(("Content-Type".into(), content_type.into()));
        headers.push(("Accept".into(), "application/json".into()));
        self.send(step, reqwest::Method::POST, url, headers, Some(body)).await
    }

    async fn send(
        &self,
        step: Step,
        method: reqwest::Method,
        url: &url::Url,
        headers: Vec<(String, String)>,
        body: Option<Vec<u8>>,
    ) -> Result<Response, AuthError> {
        let ex = self.exchanges.fetch_add(1, Ordering::Relaxed);
        let shown_url = super::redact::url(url);
        let mut out = Entry::new(self.conn, Kind::Http, Direction::Out)
            .with_detail(format!("authorization · {}: {method} {shown_url}", step.word()));
        if let Some(body) = &body {
            out = out.with_owned_bytes(super::redact::body(body));
        }
        out.http = Some(HttpInfo {
            exchange: ex,
            method: Some(method.to_string()),
            url: Some(shown_url.clone()),
            headers: redacted(&headers),
            ..HttpInfo::default()
        });
        self.log.append(out);
        let mut request = self.client.request(method.clone(), url.clone()).timeout(EXCHANGE_TIMEOUT);
        for (name, value) in &headers {
            request = request.header(name, value);
        }
        if let Some(body) = body {
            request = request.body(body);
        }
        let failed = |why: String| {
            let detail = format!("authorization · {}: {method} {shown_url} failed: {why}", step.word());
            let mut entry = Entry::new(self.conn, Kind::Http, Direction::In).with_detail(detail.clone());
            entry.http = Some(HttpInfo { exchange: ex, ..HttpInfo::default() });
            self.log.append(entry);
            AuthError::Exchange { method: method.to_string(), url: shown_url.clone(), why }
        };
        let response = request.send().await.map_err(|e| failed(error_chain(&e)))?;
        let status = response.status().as_u16();
        let headers: Vec<(String, String)> = response
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect();
        let mut body = Vec::new();
        let mut response = response;
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) if body.len() + chunk.len() <= MAX_BODY => body.extend_from_slice(&chunk),
                Ok(Some(_)) => return Err(failed(format!("the body is larger than {MAX_BODY} bytes"))),
                Ok(None) => break,
                Err(e) => return Err(failed(error_chain(&e))),
            }
        }
        let reason =
            reqwest::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("");
        let mut entry = Entry::new(self.conn, Kind::Http, Direction::In)
            .with_detail(format!("authorization · {}: HTTP {status} {reason}", step.word()));
        if !body.is_empty() {
            entry = entry.with_owned_bytes(super::redact::body(&body));
        }
        entry.http = Some(HttpInfo {
            exchange: ex,
            status: Some(status),
            headers: redacted(&headers),
            ..HttpInfo::default()
        });
        self.log.append(entry);
        Ok(Response { status, body })
    }
}

fn redacted(headers: &[(String, String)]) -> Vec<(String, String)> {
    crate::transport::recorded_headers(headers, |_| false)
}
