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
use crate::log::{Direction, Entry, Kind, WireLog};
use crate::wire::{Message, Piece, RequestId};

/// A request seen going one way, waiting for its reply from the other side.
struct Asked {
    seq: u64,
    method: String,
    at: Instant,
}

pub struct Recorder {
    log: Arc<WireLog>,
    conn: u64,
    max_line: usize,
    /// The client's requests, by id, until the server answers.
    client_asked: HashMap<RequestId, Asked>,
    /// The server's requests, by id, until the client answers.
    server_asked: HashMap<RequestId, Asked>,
    /// The client speaks 2026-07-28 (its requests carry the modern `_meta`).
    modern: bool,
    /// The log says who the client is.
    named: bool,
}

impl Recorder {
    pub fn new(log: Arc<WireLog>, conn: u64, max_line: usize) -> Recorder {
        Recorder {
            log,
            conn,
            max_line,
            client_asked: HashMap::new(),
            server_asked: HashMap::new(),
            modern: false,
            named: false,
        }
    }

    /// Says in the log who the client is, once, from the first request that names it
    /// (`initialize`'s `clientInfo`, or 2026-07-28's `_meta`).
    fn name_client(&mut self, params: Option<&Value>) {
        if self.named {
            return;
        }
        let info = params.and_then(|p| {
            p.get("clientInfo").or_else(|| p.pointer("/_meta/io.modelcontextprotocol~1clientInfo"))
        });
        let Some(name) = info.and_then(|i| i.get("name")).and_then(Value::as_str) else { return };
        let version = info.and_then(|i| i.get("version")).and_then(Value::as_str).unwrap_or("?");
        self.named = true;
        self.log.set_client(format!("{name} {version}"));
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
        let inbound = classify(self.conn, line, terminated);
        let mut entry = inbound.entry;
        entry.dir = dir;
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
                if dir == Direction::Out && !self.modern {
                    self.modern = method == "server/discover"
                        || params.as_ref().is_some_and(crate::era::carries_modern_meta);
                }
                let seq = self.log.append(entry);
                if dir == Direction::Out {
                    self.name_client(params.as_ref());
                }
                let asked = Asked { seq, method: method.clone(), at: Instant::now() };
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
                            self.modern,
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
