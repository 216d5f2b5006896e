//! The HTTP proxy's clients told apart: each gets a connection number of its own in the session
//! log, so its requests and replies are correlated apart from another client's (two clients
//! both send id 1) and each is named, as a window or `sonde log` shows them (`#1`, `#2`).
//!
//! Owns: which client an exchange belongs to, and each client's recorder. A client is known by
//! its session (`Mcp-Session-Id`, or the 2024-11-05 transport's `sessionId` query parameter,
//! bound to it when the server hands it out), else by the `clientInfo` its 2026-07-28 requests
//! carry in `_meta`, else by its TCP connection; an `initialize` without a session always
//! starts a new client. Refuses: the exchanges themselves (`http` forwards them).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::Recorder;
use crate::log::WireLog;

pub struct Clients {
    log: Arc<WireLog>,
    max_line: usize,
    by_key: HashMap<String, u64>,
    recorders: HashMap<u64, Arc<Mutex<Recorder>>>,
    last: u64,
}

impl Clients {
    pub fn new(log: Arc<WireLog>, max_line: usize) -> Clients {
        Clients { log, max_line, by_key: HashMap::new(), recorders: HashMap::new(), last: 0 }
    }

    /// The client that sent `body` (a request's), with its session if it named one, over the
    /// TCP connection from `peer`.
    pub fn of(&mut self, session: Option<&str>, body: &[u8], peer: SocketAddr) -> u64 {
        match key(session, body, peer) {
            Some(key) => {
                let next = self.last + 1;
                let conn = *self.by_key.entry(key).or_insert(next);
                self.last = self.last.max(conn);
                conn
            }
            None => {
                self.last += 1;
                self.last
            }
        }
    }

    /// The server handed `session` to the client `conn`: its later requests name it.
    pub fn bind_session(&mut self, session: &str, conn: u64) {
        self.by_key.entry(format!("session {session}")).or_insert(conn);
    }

    /// The recorder of the client `conn`, which correlates its requests and replies.
    pub fn recorder(&mut self, conn: u64) -> Arc<Mutex<Recorder>> {
        let (log, max_line) = (&self.log, self.max_line);
        self.recorders
            .entry(conn)
            .or_insert_with(|| Arc::new(Mutex::new(Recorder::new(log.clone(), conn, max_line))))
            .clone()
    }
}

/// What tells the sender of a request apart, or None for a new client (an `initialize`).
fn key(session: Option<&str>, body: &[u8], peer: SocketAddr) -> Option<String> {
    if let Some(session) = session {
        return Some(format!("session {session}"));
    }
    let message: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let first = message.as_array().and_then(|batch| batch.first()).unwrap_or(&message);
    if first.get("method").and_then(Value::as_str) == Some("initialize") {
        return None;
    }
    let info = first.pointer("/params/_meta/io.modelcontextprotocol~1clientInfo");
    match info.and_then(|i| Some((i.get("name")?.as_str()?, i.get("version").and_then(Value::as_str)))) {
        Some((name, version)) => Some(format!("client {name} {}", version.unwrap_or("?"))),
        None => Some(format!("peer {peer}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_are_told_apart_by_session_client_info_or_connection() {
        let dir = tempfile::tempdir().unwrap();
        let mut clients = Clients::new(WireLog::create_in(dir.path()).unwrap(), 1 << 20);
        let (a, b): (SocketAddr, SocketAddr) =
            ("127.0.0.1:5001".parse().unwrap(), "127.0.0.1:5002".parse().unwrap());
        let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"c","version":"1"}}}"#;
        // Two 2025-11-25 clients, each given its session.
        let first = clients.of(None, init, a);
        clients.bind_session("s1", first);
        let second = clients.of(None, init, a);
        clients.bind_session("s2", second);
        assert_ne!(first, second);
        assert_eq!(clients.of(Some("s1"), b"{}", b), first);
        assert_eq!(clients.of(Some("s2"), b"{}", a), second);
        // A 2026-07-28 client by its clientInfo, whatever TCP connection it uses.
        let modern = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"m","version":"2"}}}}"#;
        let third = clients.of(None, modern, a);
        assert!(third > second);
        assert_eq!(clients.of(None, modern, b), third);
        // A client that says neither, by its connection.
        let anonymous = clients.of(None, b"{}", b);
        assert!(anonymous > third);
        assert_eq!(clients.of(None, b"", b), anonymous);
    }
}
