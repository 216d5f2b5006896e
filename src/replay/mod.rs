//! Replaying a recorded session against a server: the session's client requests sent again,
//! in order, as new requests of the session given, each answer compared with the recorded one
//! (the core's JSON comparison, `interface::values`).
//!
//! Owns: which recorded requests are replayed (the first server's client requests; not the
//! handshake, the era probe, an `input_required` round's retry, which the session makes again
//! itself, or a notification), carrying values the server gave forward (a cursor or a task id
//! the client sent back is replaced by what the new server gave at the same point), and what
//! is ignored (the `_meta` a server stamps, and the paths the caller names), and the recorded
//! client's answers to the server's own requests (`answers`, a responder the front end gives
//! the replaying connection). Refuses: starting servers and printing (the front ends).

mod answers;
mod carried;
mod recorded;

use serde::Serialize;
use serde_json::{json, Value};

use crate::connection::RequestError;
use crate::interface::values::{differences, names, Difference};
use crate::mcp::Session;
pub use answers::RecordedAnswers;
pub use carried::Carried;
pub use recorded::{recording, Recorded, Recording};

/// What one replayed request gave, against what was recorded.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
pub struct Replayed {
    /// The recorded request's seq in its session.
    pub seq: u64,
    pub method: String,
    /// A tool's, prompt's or resource's name, when the request has one.
    pub name: Option<String>,
    /// Each difference not ignored; none when the answer is the same.
    pub differences: Vec<Difference>,
    /// The paths of the differences that were ignored.
    pub ignored: Vec<String>,
    /// The answer recorded, and the answer now (`{"result": …}`, `{"error": …}`, or
    /// `{"failed": words}` when none came).
    pub recorded: Value,
    pub answer: Value,
    /// The paths of values the server gave that the client sent back later (a cursor, a task
    /// id): they differ by nature, and what the new server gave was carried instead.
    pub carried: Vec<String>,
}

/// Paths that differ by nature: the `_meta` a server stamps on a result or an error, and the
/// era's envelope of a 2026-07-28 result (`resultType`, and a listing's cache hints), which a
/// session recorded in 2025-11-25 has none of.
pub const IGNORED_BY_DEFAULT: [&str; 5] =
    ["result._meta", "error.data._meta", "result.resultType", "result.ttlMs", "result.cacheScope"];

/// Sends each of `requests` again on `session`, in order, and compares its answer with the
/// recorded one, ignoring the differences `ignore` names (and [`IGNORED_BY_DEFAULT`]); each
/// request's outcome is handed to `each` as it is known.
pub async fn replay(
    session: &Session,
    requests: &[Recorded],
    ignore: &[String],
    mut each: impl FnMut(&Replayed),
) -> Vec<Replayed> {
    let mut carried = Carried::default();
    // Where each string the client sent was sent last: a value an answer gave is sent back
    // when a later request carries it.
    let mut last_sent = std::collections::HashMap::new();
    for (i, request) in requests.iter().enumerate() {
        let mut sent = std::collections::HashSet::new();
        carried::strings(request.params.as_ref(), &mut sent);
        last_sent.extend(sent.into_iter().map(|s| (s, i)));
    }
    let mut out = Vec::new();
    for (i, request) in requests.iter().enumerate() {
        let params = request.params.as_ref().map(|p| carried.applied(p));
        let answer = outcome(session.request(&request.method, params).await);
        carried.learn(&request.answer, &answer);
        let (mut replayed, mut ignored, mut carried_paths) = (Vec::new(), Vec::new(), Vec::new());
        for d in differences("", &request.answer, &answer) {
            let named = IGNORED_BY_DEFAULT.iter().copied().chain(ignore.iter().map(String::as_str));
            if named.into_iter().any(|p| names(p, &d.path)) {
                ignored.push(d.path);
            } else if d
                .old
                .as_ref()
                .and_then(Value::as_str)
                .is_some_and(|old| last_sent.get(old).is_some_and(|at| *at > i))
            {
                carried_paths.push(d.path);
            } else {
                replayed.push(d);
            }
        }
        let replayed = Replayed {
            seq: request.seq,
            method: request.method.clone(),
            name: request.name(),
            differences: replayed,
            ignored,
            carried: carried_paths,
            recorded: request.answer.clone(),
            answer,
        };
        each(&replayed);
        out.push(replayed);
    }
    out
}

/// An answer as a reply frame holds it: `{"result": …}` or `{"error": …}`; anything else that
/// ended the request (a timeout, a server gone) is `{"failed": words}`, which differs from
/// any recorded answer.
fn outcome(answer: Result<Value, RequestError>) -> Value {
    match answer {
        Ok(result) => json!({ "result": result }),
        Err(RequestError::Rpc { error, .. }) => json!({ "error": error }),
        Err(other) => json!({ "failed": other.to_string() }),
    }
}
