//! One HTTP exchange, run in a task of its own: send the request, then hand the loop the
//! response head, the body or each server-sent event, and how the exchange ended.
//!
//! Owns: the timeouts of one exchange (headers, idle stream) and the body cap, worded by name
//! when they run out. Refuses: meaning. The HTTP loop records, correlates and decides what a
//! status or an event means; aborting this task is how a stream is closed.

use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use crate::process::duration_words;
use crate::transport::sse::{self, error_chain};
use crate::transport::HttpTimeouts;

/// A request ready to go: every header is here, secrets included (the loop records them
/// redacted).
pub struct Outgoing {
    pub ex: u64,
    pub method: reqwest::Method,
    pub url: url::Url,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

/// What an exchange reports, in order: `Head`, then `Body` or any number of `Sse`, then `End`
/// (or `End` alone when no response came).
pub enum Event {
    Head {
        ex: u64,
        status: u16,
        headers: Vec<(String, String)>,
    },
    Body {
        ex: u64,
        bytes: Vec<u8>,
    },
    Sse {
        ex: u64,
        event: sse::Event,
    },
    /// The exchange is over; `error` says why when it did not end normally.
    End {
        ex: u64,
        error: Option<String>,
    },
}

/// Starts the exchange. Aborting the handle drops the connection (closing an SSE stream).
pub fn start(
    client: &reqwest::Client,
    out: Outgoing,
    timeouts: HttpTimeouts,
    cap: usize,
    events: mpsc::UnboundedSender<Event>,
) -> AbortHandle {
    let mut request = client.request(out.method, out.url);
    for (name, value) in &out.headers {
        request = request.header(name, value);
    }
    if let Some(body) = out.body {
        request = request.body(body);
    }
    let ex = out.ex;
    tokio::spawn(async move {
        let error = run(ex, request, timeouts, cap, &events).await.err();
        let _ = events.send(Event::End { ex, error });
    })
    .abort_handle()
}

// Err is the words of an exchange's end, recorded and given to the loop in `Event::End`.
async fn run(
    ex: u64,
    request: reqwest::RequestBuilder,
    timeouts: HttpTimeouts,
    cap: usize,
    events: &mpsc::UnboundedSender<Event>,
) -> Result<(), String> {
    let response = match tokio::time::timeout(timeouts.headers, request.send()).await {
        Err(_) => {
            return Err(format!(
                "no response headers within {} (the headers timeout)",
                duration_words(timeouts.headers)
            ))
        }
        Ok(Err(e)) => return Err(send_error(&e, timeouts.connect)),
        Ok(Ok(response)) => response,
    };
    let headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect();
    let is_sse = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.trim_start().to_ascii_lowercase().starts_with("text/event-stream"));
    let _ = events.send(Event::Head { ex, status: response.status().as_u16(), headers });
    if is_sse {
        let stream = sse::events(response.bytes_stream(), cap);
        futures_util::pin_mut!(stream);
        loop {
            match tokio::time::timeout(timeouts.idle, stream.next()).await {
                Err(_) => {
                    return Err(format!(
                        "the stream was silent for {} (the idle timeout)",
                        duration_words(timeouts.idle)
                    ))
                }
                Ok(None) => return Ok(()),
                Ok(Some(Ok(event))) => {
                    let _ = events.send(Event::Sse { ex, event });
                }
                Ok(Some(Err(e))) => return Err(e.to_string()),
            }
        }
    }
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    loop {
        let chunk = match tokio::time::timeout(timeouts.idle, stream.next()).await {
            Err(_) => {
                let _ = events.send(Event::Body { ex, bytes: body });
                return Err(format!(
                    "the body stopped for {} (the idle timeout)",
                    duration_words(timeouts.idle)
                ));
            }
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                let _ = events.send(Event::Body { ex, bytes: body });
                return Err(format!("the body broke off: {}", error_chain(&e)));
            }
            Ok(Some(Ok(chunk))) => chunk,
        };
        if body.len() + chunk.len() > cap {
            let total = body.len() + chunk.len();
            body.extend_from_slice(&chunk[..cap - body.len()]);
            let _ = events.send(Event::Body { ex, bytes: body });
            return Err(format!(
                "the body grew past the {cap}-byte cap ({total} bytes read); the rest was not read"
            ));
        }
        body.extend_from_slice(&chunk);
    }
    let _ = events.send(Event::Body { ex, bytes: body });
    Ok(())
}

/// Why a request got no response at all, in words that name the timeout that ran out.
fn send_error(e: &reqwest::Error, connect: Duration) -> String {
    let chain = error_chain(e);
    if e.is_connect() && e.is_timeout() {
        format!("could not connect within {} (the connect timeout): {chain}", duration_words(connect))
    } else if e.is_connect() {
        format!("could not connect: {chain}")
    } else if e.is_redirect() {
        format!("redirect refused: {chain}")
    } else {
        chain
    }
}
