//! The requests a connection is waiting on, whatever the transport: correlation of replies,
//! progress, timeouts, server-side cancellation, and the late replies of requests given up on.
//!
//! Owns: the pending map and the abandoned map, and what a reply, a progress update or a
//! server's `notifications/cancelled` does to them. Refuses: any I/O. The stdio and HTTP loops
//! own their transports and decide how a timeout or a cancel reaches the server.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::{Request, RequestError};
use crate::log::Entry;
use crate::wire::{ErrorObject, RequestId};

pub type Reply = oneshot::Sender<Result<Value, RequestError>>;

pub struct Pending {
    pub method: String,
    /// The seq of the request's log entry, for correlation.
    pub seq: u64,
    pub sent: Instant,
    pub deadline: Instant,
    pub timeout: Duration,
    /// Probe replies are marked in the log too, so the transcript says why an era was chosen.
    pub probe: bool,
    pub progress: Option<mpsc::UnboundedSender<Value>>,
    pub reply: Reply,
}

impl Pending {
    /// A request just recorded at `seq`, waiting from now.
    pub fn new(request: Request, seq: u64, default_timeout: Duration, reply: Reply) -> Pending {
        let timeout = request.timeout.unwrap_or(default_timeout);
        let now = Instant::now();
        Pending {
            method: request.method,
            seq,
            sent: now,
            deadline: now + timeout,
            timeout,
            probe: request.probe,
            progress: request.progress,
            reply,
        }
    }

    pub fn fail(self, error: RequestError) {
        let _ = self.reply.send(Err(error));
    }
}

#[derive(Default)]
pub struct Table {
    pending: HashMap<RequestId, Pending>,
    /// Requests given up on, kept to recognise their late replies: method and why
    /// ("had timed out", "was cancelled").
    abandoned: HashMap<RequestId, (String, &'static str)>,
}

impl Table {
    pub fn insert(&mut self, id: RequestId, pending: Pending) {
        self.pending.insert(id, pending);
    }

    pub fn remove(&mut self, id: &RequestId) -> Option<Pending> {
        self.pending.remove(id)
    }

    pub fn get(&self, id: &RequestId) -> Option<&Pending> {
        self.pending.get(id)
    }

    pub fn contains(&self, id: &RequestId) -> bool {
        self.pending.contains_key(id)
    }

    pub fn ids(&self) -> Vec<RequestId> {
        self.pending.keys().cloned().collect()
    }

    /// Remembers a request given up on, so its late reply is recognised.
    pub fn abandon(&mut self, id: RequestId, method: String, why: &'static str) {
        self.abandoned.insert(id, (method, why));
    }

    pub fn next_deadline(&self) -> Option<Instant> {
        self.pending.values().map(|p| p.deadline).min()
    }

    /// Removes and returns the requests whose deadline has passed.
    pub fn expired(&mut self, now: Instant) -> Vec<(RequestId, Pending)> {
        let ids: Vec<RequestId> =
            self.pending.iter().filter(|(_, p)| p.deadline <= now).map(|(id, _)| id.clone()).collect();
        ids.into_iter().filter_map(|id| self.pending.remove(&id).map(|p| (id, p))).collect()
    }

    /// Fails every pending request with the reason words (`"… while tools/call was pending"`).
    pub fn fail_all(&mut self, reason: &str) {
        for (_, pending) in self.pending.drain() {
            let words = format!("{reason} while {} was pending", pending.method);
            pending.fail(RequestError::Gone(words));
        }
    }

    /// A reply: fills its entry in (what it answers, latency) and hands the outcome to the
    /// caller. Returns the entry to record.
    pub fn on_reply(
        &mut self,
        mut entry: Entry,
        id: RequestId,
        outcome: Result<Value, ErrorObject>,
    ) -> Entry {
        if let Some(pending) = self.pending.remove(&id) {
            entry.answers = Some(pending.seq);
            entry.latency_ms = Some(round_ms(pending.sent.elapsed()));
            if let Some(s) = entry.summary.as_mut() {
                s.method = Some(pending.method.clone());
            }
            entry.probe = pending.probe;
            let result =
                outcome.map_err(|error| RequestError::Rpc { method: pending.method, error: Box::new(error) });
            let _ = pending.reply.send(result);
            entry
        } else if let Some((method, why)) = self.abandoned.remove(&id) {
            if let Some(s) = entry.summary.as_mut() {
                s.method = Some(method.clone());
            }
            entry.with_detail(format!("late reply to {method} {id}, which {why}; ignored"))
        } else {
            entry.with_detail(format!("reply to id {id}, which Sonde never sent or already had answered"))
        }
    }

    /// A notification: progress goes to its request (resetting that request's timeout, never
    /// past `hard_max`), a server's `notifications/cancelled` ends the request it names.
    /// Returns the entry to record, linked to the request it concerns.
    pub fn on_notification(
        &mut self,
        mut entry: Entry,
        method: &str,
        params: Option<&Value>,
        hard_max: Duration,
    ) -> Entry {
        match method {
            "notifications/progress" => entry.answers = self.on_progress(params, hard_max),
            "notifications/cancelled" => entry.answers = self.on_server_cancel(params),
            _ => {}
        }
        entry
    }

    fn on_progress(&mut self, params: Option<&Value>, hard_max: Duration) -> Option<u64> {
        let token = params?.get("progressToken")?;
        let id: RequestId = serde_json::from_value(token.clone()).ok()?;
        let pending = self.pending.get_mut(&id)?;
        let sender = pending.progress.as_ref()?;
        let _ = sender.send(params?.clone());
        let now = Instant::now();
        pending.deadline = (now + pending.timeout).min(pending.sent + hard_max);
        Some(pending.seq)
    }

    /// A server may end one of Sonde's requests itself (2026-07-28 ends a listen stream this
    /// way): the request fails as cancelled, with the server's reason.
    fn on_server_cancel(&mut self, params: Option<&Value>) -> Option<u64> {
        let id: RequestId = serde_json::from_value(params?.get("requestId")?.clone()).ok()?;
        let pending = self.pending.remove(&id)?;
        let reason = params?.get("reason").and_then(Value::as_str).unwrap_or("no reason given");
        let reason = format!("the server cancelled it ({reason})");
        let (seq, method) = (pending.seq, pending.method.clone());
        pending.fail(RequestError::Cancelled { method, reason });
        Some(seq)
    }
}

/// Sleeps until a deadline, or forever when there is none (a `select!` branch that is re-armed
/// from state on every turn of a loop).
pub async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

pub fn round_ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1_000_000.0).round() / 1000.0
}
