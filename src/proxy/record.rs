//! What a proxy records of the lines it passes on: each one as an entry of the session log,
//! decoded and correlated as Sonde's own sessions are (a reply names the request it answers and
//! how long it took), with the rules' findings on what the server sent.
//!
//! Owns: the two directions' correlation maps and the entries. Refuses: the bytes themselves
//! (they were passed on before they are recorded) and any I/O but the log's.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use crate::connection::classify;
use crate::log::{Direction, Entry, HttpInfo, Kind, WireLog};
use crate::wire::{Message, Piece, RequestId};

/// A request seen going one way, waiting for its reply from the other side.
struct Asked {
    seq: u64,
    method: String,
    at: Instant,
    /// The request was made in 2026-07-28 (its result is judged by that era's shapes).
    modern: bool,
}

pub struct Recorder {
    log: Arc<WireLog>,
    conn: u64,
    max_line: usize,
    /// The client's requests, by id, until the server answers.
    client_asked: HashMap<RequestId, Asked>,
    /// The server's requests, by id, until the client answers.
    server_asked: HashMap<RequestId, Asked>,
    /// The client the log last named: an HTTP proxy may serve several in turn.
    named: Option<String>,
}

impl Recorder {
    pub fn new(log: Arc<WireLog>, conn: u64, max_line: usize) -> Recorder {
        Recorder {
            log,
            conn,
            max_line,
            client_asked: HashMap::new(),
            server_asked: HashMap::new(),
            named: None,
        }
    }

    /// Says in the log who the client is, from the requests that name it (`initialize`'s
    /// `clientInfo`, or 2026-07-28's `_meta`), each time that changes.
    fn name_client(&mut self, params: Option<&Value>) {
        let info = params.and_then(|p| {
            p.get("clientInfo").or_else(|| p.pointer("/_meta/io.modelcontextprotocol~1clientInfo"))
        });
        let Some(name) = info.and_then(|i| i.get("name")).and_then(Value::as_str) else { return };
        let version = info.and_then(|i| i.get("version")).and_then(Value::as_str).unwrap_or("?");
        let client = format!("{name} {version}");
        if self.named.as_ref() == Some(&client) {
            return;
        }
        self.named = Some(client.clone());
        self.log.set_client(client);
        let detail = format!("the client is {name} {version} (from its clientInfo)");
        self.log.append(Entry::new(self.conn, Kind::Note, Direction::Meta).with_detail(detail));
    }

    /// Records a piece of a line: `Out` what the client wrote to the server, `In` the reverse.
    pub fn piece(&mut self, piece: Piece, dir: Direction) {
        let (line, terminated) = match piece {
            Piece::Line(line) => (line, true),
            Piece::Unterminated(line) => (line, false),
            Piece::Head(head) => {
                let detail = format!("the first {} bytes of a line longer than the line cap", self.max_line);
                self.log.append(
                    Entry::new(self.conn, Kind::DecodeError, dir).with_bytes(&head).with_detail(detail),
                );
                return;
            }
            Piece::Truncated { total_len, .. } => {
                let detail = format!(
                    "a {total_len}-byte line, passed on whole, recorded up to the {}-byte line cap",
                    self.max_line
                );
                self.log.append(Entry::new(self.conn, Kind::Truncated, dir).with_detail(detail));
                return;
            }
        };
        self.line(line, terminated, dir, None);
    }

    /// Records one whole message a transport carried (an HTTP body, an SSE event's data), with
    /// the exchange it came in.
    pub fn message(&mut self, bytes: Vec<u8>, dir: Direction, http: HttpInfo) {
        self.line(bytes, true, dir, Some(http));
    }

    fn line(&mut self, line: Vec<u8>, terminated: bool, dir: Direction, http: Option<HttpInfo>) {
        let inbound = classify(self.conn, line, terminated);
        let mut entry = inbound.entry;
        entry.dir = dir;
        if http.is_some() {
            entry.http = http;
        }
        if dir == Direction::Out {
            // The rules judge the server; what the client wrote is recorded as it is.
            entry.findings.clear();
            if entry.kind == Kind::NonProtocol {
                entry.detail = Some("a line from the client that is not JSON".into());
            }
        }
        let Some(message) = inbound.message else {
            self.log.append(entry);
            return;
        };
        match (&message, dir) {
            (Message::Request { id, method, params }, _) => {
                // Each request says its era: 2026-07-28's all carry the modern `_meta`.
                let modern = method == "server/discover"
                    || params.as_ref().is_some_and(crate::era::carries_modern_meta);
                let seq = self.log.append(entry);
                if dir == Direction::Out {
                    self.name_client(params.as_ref());
                }
                let asked = Asked { seq, method: method.clone(), at: Instant::now(), modern };
                let waiting =
                    if dir == Direction::Out { &mut self.client_asked } else { &mut self.server_asked };
                waiting.insert(id.clone(), asked);
            }
            (Message::Response { id: Some(id), outcome }, _) => {
                let waiting =
                    if dir == Direction::In { &mut self.client_asked } else { &mut self.server_asked };
                if let Some(asked) = waiting.remove(id) {
                    entry.answers = Some(asked.seq);
                    entry.latency_ms = Some((asked.at.elapsed().as_secs_f64() * 1e6).round() / 1e3);
                    if let Some(s) = entry.summary.as_mut() {
                        s.method = Some(asked.method.clone());
                    }
                    if let (Direction::In, Ok(result)) = (dir, outcome) {
                        entry.findings.extend(crate::diagnose::result_shape(
                            &asked.method,
                            result,
                            asked.modern,
                        ));
                    }
                }
                self.log.append(entry);
            }
            _ => {
                self.log.append(entry);
            }
        }
    }
}
