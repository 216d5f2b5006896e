//! The one listener Sonde opens: the loopback redirect of an authorization (RFC 8252 §7.3).
//! It binds `127.0.0.1` on a port the system picks, exists only while a flow waits for its
//! redirect, accepts the one request whose `state` matches, answers it with a small page saying
//! the browser window can be closed, and closes. Other requests get a `400` and the wait goes
//! on, until the limit.
//!
//! Owns: the socket, reading one request line, and the two pages. Refuses: anything but `GET`
//! on the callback path, keep-alive, and any address other than the loopback one.

use std::collections::HashMap;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::error::AuthError;

/// How long the browser step may take before the flow gives up.
pub const LOOPBACK_LIMIT: Duration = Duration::from_secs(300);
const PATH: &str = "/callback";
/// The most read of one request's head.
const MAX_HEAD: usize = 16 * 1024;

pub struct Loopback {
    listener: TcpListener,
    redirect_uri: String,
}

impl Loopback {
    pub async fn bind() -> Result<Loopback, AuthError> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.map_err(AuthError::Loopback)?;
        let port = listener.local_addr().map_err(AuthError::LoopbackAddress)?.port();
        Ok(Loopback { listener, redirect_uri: format!("http://127.0.0.1:{port}{PATH}") })
    }

    /// `http://127.0.0.1:PORT/callback`.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// Waits for the redirect that carries `state`, at most `limit`; returns its query
    /// parameters. The listener closes when this returns (it is consumed).
    pub async fn wait(self, state: &str, limit: Duration) -> Result<HashMap<String, String>, AuthError> {
        let wait = async {
            loop {
                let Ok((stream, _)) = self.listener.accept().await else { continue };
                if let Some(params) = answer(stream, state).await {
                    return params;
                }
            }
        };
        tokio::time::timeout(limit, wait).await.map_err(|_| AuthError::NoRedirect {
            redirect_uri: self.redirect_uri.clone(),
            minutes: limit.as_secs() / 60,
        })
    }
}

/// Reads one request; answers it; returns its parameters when it is the awaited redirect.
async fn answer(mut stream: TcpStream, state: &str) -> Option<HashMap<String, String>> {
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    let read = async {
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_HEAD {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(&buf[..n]),
            }
        }
    };
    // A connection that says nothing must not hold the wait up.
    let _ = tokio::time::timeout(Duration::from_secs(10), read).await;
    let line = String::from_utf8_lossy(&head).lines().next().unwrap_or_default().to_owned();
    let params = parse_request_line(&line);
    let (status, page) = match &params {
        Some(p) if p.get("state").map(String::as_str) == Some(state) => ("200 OK", DONE),
        _ => ("400 Bad Request", NOT_THIS),
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
        page.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
    params.filter(|p| p.get("state").map(String::as_str) == Some(state))
}

/// The query parameters of `GET /callback?… HTTP/1.1`; `None` for anything else.
fn parse_request_line(line: &str) -> Option<HashMap<String, String>> {
    let mut parts = line.split(' ');
    let (method, target) = (parts.next()?, parts.next()?);
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    (method == "GET" && path == PATH)
        .then(|| url::form_urlencoded::parse(query.as_bytes()).into_owned().collect())
}

const DONE: &str = "<!doctype html><meta charset=utf-8><title>Sonde</title>\
<body style=\"font-family:sans-serif;margin:3em\"><h1>Sonde is authorized</h1>\
<p>You can close this window and go back to Sonde.</p></body>";
const NOT_THIS: &str = "<!doctype html><meta charset=utf-8><title>Sonde</title>\
<body style=\"font-family:sans-serif;margin:3em\"><h1>Not the redirect Sonde waits for</h1>\
<p>This request does not carry the authorization Sonde asked for.</p></body>";

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(uri: &str, path: &str) -> String {
        let addr = uri.trim_start_matches("http://").trim_end_matches(PATH).to_owned();
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes()).await.unwrap();
        let mut out = String::new();
        stream.read_to_string(&mut out).await.unwrap();
        out
    }

    #[tokio::test]
    async fn only_the_request_with_the_state_ends_the_wait_and_the_listener_closes() {
        let loopback = Loopback::bind().await.unwrap();
        let uri = loopback.redirect_uri().to_owned();
        assert!(uri.starts_with("http://127.0.0.1:") && uri.ends_with("/callback"), "{uri}");
        let waiting = tokio::spawn(async move { loopback.wait("s-1", Duration::from_secs(10)).await });
        assert!(get(&uri, "/callback?code=c&state=other").await.starts_with("HTTP/1.1 400"));
        assert!(get(&uri, "/favicon.ico").await.starts_with("HTTP/1.1 400"));
        let page = get(&uri, "/callback?code=c%2B1&state=s-1&iss=https%3A%2F%2Fas").await;
        assert!(page.starts_with("HTTP/1.1 200") && page.contains("close this window"), "{page}");
        let params = waiting.await.unwrap().unwrap();
        assert_eq!(params["code"], "c+1");
        assert_eq!(params["iss"], "https://as");
        let addr = uri.trim_start_matches("http://").trim_end_matches(PATH).to_owned();
        assert!(TcpStream::connect(addr).await.is_err(), "the listener is closed");
    }

    #[tokio::test]
    async fn the_wait_has_a_limit() {
        let loopback = Loopback::bind().await.unwrap();
        let err = loopback.wait("s", Duration::from_millis(50)).await.unwrap_err();
        assert!(matches!(err, AuthError::NoRedirect { .. }), "{err}");
        assert!(err.to_string().starts_with("no redirect reached"), "{err}");
    }
}
