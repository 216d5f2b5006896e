//! The call history: the tool calls of a session as a person looks back on them, newest first,
//! each with the arguments it was sent with and how it ended, read from the log (so a session
//! opened later has the same history as the window that made it).
//!
//! Owns: [`RecordedCall`], which calls a history lists (those Sonde sent, by connection and by
//! tool; an operation's later rounds are its first request's, not calls of their own), and the
//! last round's reply as the call's answer. Refuses: sending anything (a front end sends a call
//! again through the hub, as a new request) and pairing replies (the timeline's spans did).

use std::io;

use serde::Serialize;
use serde_json::Value;

use super::{OperationKind, Span, Timeline};
use crate::log::{Entry, Filter, RequestOutcome, WireLog};
use crate::session::CallOutcome;

/// How many calls a history lists at most, newest first.
pub const HISTORY_LIMIT: usize = 200;

/// One `tools/call` Sonde sent, and how it ended.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordedCall {
    /// The request's seq in the session.
    pub seq: u64,
    pub conn: u64,
    /// When it was sent: wall-clock time, RFC 3339.
    pub time: String,
    pub tool: String,
    /// `params.arguments` as sent; `None` when the request had none.
    pub arguments: Option<Value>,
    /// `None` while it waits.
    pub outcome: Option<RequestOutcome>,
    /// From sent to settled (its last round's, for a call answered in rounds).
    #[cfg_attr(feature = "bindings", specta(type = Option<serde_json::Number>))]
    pub took_ms: Option<f64>,
    /// The tool's result, when one came (with the problems of its shape; no outputSchema
    /// verdict, which needs the listing of its time).
    pub result: Option<CallOutcome>,
    /// The result says `isError: true`: the tool failed, though the request did not.
    pub is_error: bool,
    /// The JSON-RPC error (`-32602 Unknown tool: x`) or why it was never answered.
    pub error: Option<String>,
    /// The call became a task: `result` is its `CreateTaskResult`.
    pub task: bool,
}

impl Timeline {
    /// The calls Sonde sent on `conns` (every connection when empty), of `tool` when given,
    /// newest first, at most `limit`.
    pub fn calls(
        &self,
        log: &WireLog,
        conns: &[u64],
        tool: Option<&str>,
        limit: usize,
    ) -> io::Result<Vec<RecordedCall>> {
        let heads = self.spans.iter().rev().filter(|s| {
            is_call(s)
                && (conns.is_empty() || conns.contains(&s.conn))
                && tool.is_none_or(|t| s.target.as_deref() == Some(t))
        });
        heads.take(limit).map(|span| self.recorded(log, span)).collect()
    }

    /// The call whose request is at `seq`, if it is one a history lists.
    pub fn call(&self, log: &WireLog, seq: u64) -> io::Result<Option<RecordedCall>> {
        match self.span(seq) {
            Some(span) if is_call(span) => self.recorded(log, span).map(Some),
            _ => Ok(None),
        }
    }

    fn recorded(&self, log: &WireLog, span: &Span) -> io::Result<RecordedCall> {
        let request = entry(log, span.seq)?;
        let params = request.as_ref().and_then(message).and_then(|m| m.get("params").cloned());
        // A call answered in rounds ends with its last round: that reply is the call's answer.
        let operation = self.operation_of(span.seq);
        let last = match operation {
            Some(o) if o.kind == OperationKind::Rounds => {
                o.parts.last().and_then(|&p| self.span(p)).unwrap_or(span)
            }
            _ => span,
        };
        let mut call = RecordedCall {
            seq: span.seq,
            conn: span.conn,
            time: request.as_ref().map(|e| e.time.clone()).unwrap_or_default(),
            tool: span.target.as_deref().unwrap_or_default().to_owned(),
            arguments: params.as_ref().and_then(|p| p.get("arguments").cloned()),
            outcome: last.outcome,
            took_ms: last.end.map(|end| end - span.start),
            result: None,
            is_error: false,
            error: None,
            task: operation.is_some_and(|o| o.kind == OperationKind::Task),
        };
        let Some(settled) = last.settled_by else { return Ok(call) };
        let Some(reply) = entry(log, settled)? else { return Ok(call) };
        match last.outcome {
            Some(RequestOutcome::Result) => {
                let result = reply_part(&reply, "result").unwrap_or(Value::Null);
                call.is_error = result.get("isError") == Some(&Value::Bool(true));
                call.result = Some(CallOutcome::of(result, None));
            }
            Some(RequestOutcome::Error) => {
                let error = reply_part(&reply, "error").unwrap_or(Value::Null);
                let code = error.get("code").map(Value::to_string).unwrap_or_default();
                let words = error.get("message").and_then(Value::as_str).unwrap_or_default();
                call.error = Some(format!("{code} {words}").trim().to_owned());
            }
            Some(_) => call.error = reply.detail.clone(),
            None => {}
        }
        Ok(call)
    }
}

/// A request Sonde sent to call a tool, and not a later round of an operation.
fn is_call(span: &Span) -> bool {
    &*span.method == "tools/call" && !span.from_server && span.operation.is_none_or(|head| head == span.seq)
}

fn entry(log: &WireLog, seq: u64) -> io::Result<Option<Entry>> {
    Ok(log.page(seq, seq + 1, &Filter::default(), 1)?.entries.into_iter().next())
}

fn message(entry: &Entry) -> Option<Value> {
    serde_json::from_str(entry.text.as_deref()?).ok()
}

fn reply_part(reply: &Entry, part: &str) -> Option<Value> {
    message(reply)?.get_mut(part).map(Value::take)
}
