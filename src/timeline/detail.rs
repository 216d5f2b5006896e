//! What hovering a span shows: its method and name, how it ended and after how long, and the
//! size of what went each way; for a part of an operation, the operation too.
//!
//! Owns: [`SpanDetail`]. Refuses: the words of outcomes (`log::RequestOutcome::word`).

use std::io;

use serde::Serialize;

use super::{OperationKind, Timeline};
use crate::log::{Filter, RequestOutcome, WireLog};

#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpanDetail {
    pub seq: u64,
    pub conn: u64,
    pub method: String,
    pub target: Option<String>,
    pub outcome: Option<RequestOutcome>,
    /// The outcome in the words every front end uses, or `waiting`.
    pub outcome_word: String,
    #[cfg_attr(feature = "bindings", specta(type = Option<serde_json::Number>))]
    pub latency_ms: Option<f64>,
    /// Bytes of the request, and of its reply when it has one.
    pub request_bytes: u64,
    pub reply_bytes: Option<u64>,
    /// The entry that settled it.
    pub settled_by: Option<u64>,
    pub progress: u32,
    /// The operation it is part of.
    pub operation: Option<PartOf>,
}

/// The operation a span is part of: its kind, how many requests it has, how long it took.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartOf {
    pub kind: OperationKind,
    pub parts: u32,
    #[cfg_attr(feature = "bindings", specta(type = serde_json::Number))]
    pub took_ms: f64,
}

impl Timeline {
    /// The detail of the span of the request at `seq`, reading its two entries for their sizes.
    pub fn detail(&self, log: &WireLog, seq: u64) -> io::Result<Option<SpanDetail>> {
        let Some(span) = self.span(seq) else { return Ok(None) };
        let size = |seq: u64| -> io::Result<Option<u64>> {
            let page = log.page(seq, seq + 1, &Filter::default(), 1)?;
            Ok(page.entries.first().and_then(|e| e.bytes()).map(|b| b.len() as u64))
        };
        let reply_bytes = match (span.settled_by, span.outcome) {
            (Some(reply), Some(RequestOutcome::Result | RequestOutcome::Error)) => size(reply)?,
            _ => None,
        };
        let operation = self.operation_of(seq).map(|o| PartOf {
            kind: o.kind,
            parts: o.parts.len() as u32,
            took_ms: o.end - o.start,
        });
        Ok(Some(SpanDetail {
            seq,
            conn: span.conn,
            method: span.method.to_string(),
            target: span.target.as_deref().map(str::to_owned),
            outcome: span.outcome,
            outcome_word: span.outcome.map_or("waiting", RequestOutcome::word).to_owned(),
            latency_ms: span.end.map(|end| end - span.start),
            request_bytes: size(seq)?.unwrap_or(0),
            reply_bytes,
            settled_by: span.settled_by,
            progress: span.progress,
            operation,
        }))
    }
}
