//! The requests of a recorded session that a replay sends again, each with its recorded answer,
//! and the recorded client's own answers (`answers`); `RecordingError` when a session cannot
//! be read (`io`) or opened no server to replay (`bad_input`).

use serde_json::Value;

use super::answers::RecordedAnswers;
use crate::error_code::ErrorCode;
use crate::log::{Direction, Entry, Filter, Kind, WireLog};

/// Why a session cannot be replayed, in words that follow "the session X is".
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    #[error("cannot read the session: {0}")]
    Unreadable(std::io::Error),
    /// No server answered an opening request in the session, so nothing was asked of one.
    #[error("a session in which no server was opened (no initialize or server/discover)")]
    NoServerOpened,
}

impl RecordingError {
    /// `io` when the session could not be read; `bad_input` when it holds nothing to replay.
    pub fn code(&self) -> ErrorCode {
        match self {
            RecordingError::Unreadable(_) => ErrorCode::Io,
            RecordingError::NoServerOpened => ErrorCode::BadInput,
        }
    }
}

/// One recorded client request and the answer it got (`{"result": …}` or `{"error": …}`).
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub seq: u64,
    pub method: String,
    /// Its params without `_meta`, which the replaying session sets for its own era.
    pub params: Option<Value>,
    pub answer: Value,
}

impl Recorded {
    /// The tool, prompt or resource the request names, if any.
    pub fn name(&self) -> Option<String> {
        let params = self.params.as_ref()?;
        ["name", "uri"].iter().find_map(|k| params.get(*k).and_then(Value::as_str)).map(str::to_owned)
    }
}

/// Methods a session makes by itself when it opens: never replayed as requests.
const HANDSHAKE: [&str; 2] = ["initialize", "server/discover"];

/// A request that lives until the client ends it (a 2026-07-28 listen): its answer says when
/// the recording stopped it, not what the server does; not replayed.
const LONG_LIVED: [&str; 1] = ["subscriptions/listen"];

/// What a replay sends again and answers with, read from a recorded session.
#[derive(Debug, Clone)]
pub struct RecordedRequests {
    pub requests: Vec<Recorded>,
    /// Recorded requests not sent again (a listen, one never answered).
    pub not_sent: usize,
    /// The recorded client's capabilities and its answers to the server's own requests.
    pub answers: RecordedAnswers,
}

/// The client requests of the first server `log` opened, in order, each with its recorded
/// answer, and the client's own answers. Not replayed: the handshake, the era probe, a notification, an `input_required`
/// round's retry (the session answers its rounds again itself); a listen and a request never
/// answered (one its server died under) are counted in the second value.
pub fn recorded_requests(log: &WireLog) -> Result<RecordedRequests, RecordingError> {
    let entries = log.entries(&Filter::default()).map_err(RecordingError::Unreadable)?;
    let frame = |e: &Entry| e.text.as_deref().and_then(|t| serde_json::from_str::<Value>(t).ok());
    let request = |e: &Entry| e.kind == Kind::Message && e.dir == Direction::Out && !e.probe;
    // The era probe's server/discover opens the connection too, when it decided the era.
    let opening = |e: &Entry| e.kind == Kind::Message && e.dir == Direction::Out;
    let conn = entries
        .iter()
        .find(|e| opening(e) && frame(e).is_some_and(|f| HANDSHAKE.iter().any(|m| f["method"] == *m)))
        .map(|e| e.conn)
        .ok_or(RecordingError::NoServerOpened)?;
    let mut out = Vec::new();
    let mut unanswered = 0;
    for sent in entries.iter().filter(|e| e.conn == conn && request(e)) {
        let Some(f) = frame(sent) else { continue };
        let (Some(method), Some(_)) = (f["method"].as_str(), f.get("id")) else { continue };
        let round = f.pointer("/params/inputResponses").is_some();
        if HANDSHAKE.contains(&method) || round {
            continue;
        }
        if LONG_LIVED.contains(&method) {
            unanswered += 1;
            continue;
        }
        // The final answer: an input_required round's last retry answers for the request.
        let answer = entries
            .iter()
            .filter(|e| e.conn == conn && e.dir == Direction::In && e.answers.is_some())
            .filter_map(|e| frame(e).map(|reply| (e, reply)))
            .find(|(e, _)| e.answers == Some(sent.seq))
            .map(|(_, reply)| reply);
        let Some(answer) = answer.and_then(|reply| reply_of(&reply, &entries, conn, &frame)) else {
            unanswered += 1;
            continue;
        };
        let mut params = f.get("params").cloned();
        if let Some(Value::Object(p)) = params.as_mut() {
            p.remove("_meta");
        }
        out.push(Recorded { seq: sent.seq, method: method.to_owned(), params, answer });
    }
    Ok(RecordedRequests {
        requests: out,
        not_sent: unanswered,
        answers: RecordedAnswers::read(&entries, conn),
    })
}

/// A reply as `{"result": …}` or `{"error": …}`, following an `input_required` result to the
/// answer of its last round (the retry that carries its `requestState`).
fn reply_of(
    reply: &Value,
    entries: &[Entry],
    conn: u64,
    frame: &impl Fn(&Entry) -> Option<Value>,
) -> Option<Value> {
    if let Some(error) = reply.get("error") {
        return Some(serde_json::json!({ "error": error }));
    }
    let result = reply.get("result")?;
    if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return Some(serde_json::json!({ "result": result }));
    }
    // The retry sends the round's requestState back; its answer stands for the request.
    let state = result.get("requestState");
    let retry = entries.iter().find(|e| {
        e.conn == conn
            && e.dir == Direction::Out
            && frame(e).is_some_and(|f| {
                f.pointer("/params/inputResponses").is_some() && f.pointer("/params/requestState") == state
            })
    })?;
    let answer = entries.iter().find(|e| e.conn == conn && e.answers == Some(retry.seq)).and_then(frame)?;
    reply_of(&answer, entries, conn, frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session that opened no server holds nothing to replay: the person's choice, so
    /// `bad_input`; one that cannot be read is `io`.
    #[test]
    fn a_session_without_a_server_is_bad_input_and_an_unreadable_one_io() {
        let dir = tempfile::tempdir().unwrap();
        let log = WireLog::create_in(dir.path()).unwrap();
        let empty = recorded_requests(&log).unwrap_err();
        assert!(matches!(empty, RecordingError::NoServerOpened), "{empty}");
        assert_eq!(empty.code(), ErrorCode::BadInput);
        let unreadable = RecordingError::Unreadable(std::io::Error::other("gone"));
        assert_eq!(unreadable.code(), ErrorCode::Io);
        assert_eq!(unreadable.to_string(), "cannot read the session: gone");
    }
}
