//! One wire-log entry: what crossed the wire or happened to the server, with when and why.
//!
//! Owns: the entry shape that is persisted, exported and streamed, and the glyphs `>` `<` `*`.
//! Refuses: deciding what an entry means. Correlation and latency are filled in by the
//! connection that knows the pending requests.

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::lifecycle::Lifecycle;

/// How a request ended (the words of `../shared/contracts.md`, computed once in the core: `WireLog::outcome_of`, the timeline).
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestOutcome {
    Result,
    Error,
    /// Sonde cancelled it (the person, or its caller going away) before a reply came.
    Cancelled,
    /// No reply came within its timeout; Sonde stopped waiting (and told the server so).
    TimedOut,
    /// The connection gave it up: its server died or the connection closed first.
    NeverAnswered,
}

impl RequestOutcome {
    pub const ALL: [RequestOutcome; 5] = [
        RequestOutcome::Result,
        RequestOutcome::Error,
        RequestOutcome::Cancelled,
        RequestOutcome::TimedOut,
        RequestOutcome::NeverAnswered,
    ];

    /// Each outcome with its word, for a front end's legend.
    pub fn words() -> Vec<(RequestOutcome, &'static str)> {
        RequestOutcome::ALL.iter().map(|&o| (o, o.word())).collect()
    }

    /// The word every front end shows for it (`../shared/contracts.md`).
    pub fn word(self) -> &'static str {
        match self {
            RequestOutcome::Result => "result",
            RequestOutcome::Error => "error",
            RequestOutcome::Cancelled => "cancelled",
            RequestOutcome::TimedOut => "timed out",
            RequestOutcome::NeverAnswered => "never answered",
        }
    }

    /// The name a session file and an export give it: `timed_out`, `never_answered`.
    pub fn name(self) -> &'static str {
        match self {
            RequestOutcome::Result => "result",
            RequestOutcome::Error => "error",
            RequestOutcome::Cancelled => "cancelled",
            RequestOutcome::TimedOut => "timed_out",
            RequestOutcome::NeverAnswered => "never_answered",
        }
    }

    /// How a settling note ended its request: what it says, or never answered for a note of a
    /// file older than format 3, which said nothing.
    pub fn of_note(ends: Option<RequestOutcome>) -> RequestOutcome {
        ends.unwrap_or(RequestOutcome::NeverAnswered)
    }
}

/// What an entry records.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A JSON-RPC message, sent or received.
    Message,
    /// A stdout line that is not JSON at all: a banner, a stray `console.log`.
    NonProtocol,
    /// A stdout line that looks like JSON but is not one valid JSON-RPC message.
    DecodeError,
    /// A JSON array on the wire: batches are not allowed in these revisions.
    Batch,
    /// The end of a line longer than the cap; the entry before it holds the line's head.
    Truncated,
    /// A chunk the server wrote to stderr (through a pseudo-terminal, colours intact).
    Stderr,
    /// A process lifecycle event: spawn, a shutdown step, exit.
    Lifecycle,
    /// Something Sonde observed about the conversation (a late reply ignored, a timeout).
    Note,
    /// HTTP framing: a request without a JSON-RPC body (GET, DELETE), a response's status and
    /// headers, an SSE event that carries no message (a primer, an `endpoint`).
    Http,
    /// A message between an MCP App's frame and Sonde (`postMessage` JSON-RPC), or what the
    /// frame reported (a console error, a refusal).
    App,
}

impl Kind {
    pub const ALL: [Kind; 10] = [
        Kind::Message,
        Kind::NonProtocol,
        Kind::DecodeError,
        Kind::Batch,
        Kind::Truncated,
        Kind::Stderr,
        Kind::Lifecycle,
        Kind::Note,
        Kind::Http,
        Kind::App,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Message => "message",
            Kind::NonProtocol => "non_protocol",
            Kind::DecodeError => "decode_error",
            Kind::Batch => "batch",
            Kind::Truncated => "truncated",
            Kind::Stderr => "stderr",
            Kind::Lifecycle => "lifecycle",
            Kind::Note => "note",
            Kind::Http => "http",
            Kind::App => "app",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Which way an entry went: `>` sent by Sonde, `<` received from the server, `*` meta.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Out,
    In,
    Meta,
}

impl Direction {
    pub fn glyph(self) -> char {
        match self {
            Direction::Out => '>',
            Direction::In => '<',
            Direction::Meta => '*',
        }
    }

    /// The word a session file says it with.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Out => "out",
            Direction::In => "in",
            Direction::Meta => "meta",
        }
    }

    pub fn parse(s: &str) -> Option<Direction> {
        match s {
            "out" | ">" | "sent" => Some(Direction::Out),
            "in" | "<" | "received" => Some(Direction::In),
            "meta" | "*" => Some(Direction::Meta),
            _ => None,
        }
    }
}

/// The decoded outline of a message: enough to filter and correlate without parsing again.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// `request`, `notification`, `result` or `error`.
    // One of four words: borrowed, so not allocated for every frame.
    #[serde(rename = "type")]
    pub kind: std::borrow::Cow<'static, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The id as JSON text, so `1` and `"1"` stay different.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<i64>,
    /// What a request names, so rows of one method tell calls apart: the tool or prompt
    /// (`params.name`), else the resource (`params.uri`), else a completion's reference
    /// (`params.ref.name` or `.uri`). A reply carries its request's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// A result that says `isError: true`: the tool failed though the request did not
    /// (format 3 readers that do not know it read such a result as a plain one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

/// Where an entry sits in an HTTP exchange. Secret header values are never recorded.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HttpInfo {
    /// The exchange (one HTTP request and its response) this entry belongs to.
    pub exchange: u64,
    /// The request method and URL, on the entry that records the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The response status, on the entry that records the response head.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
    /// The SSE fields of the event this entry came in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sse_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sse_event: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sse_retry: Option<u64>,
}

impl HttpInfo {
    /// The record of an SSE event that came in exchange `exchange`, with its fields.
    pub fn of_event(
        exchange: u64,
        id: Option<String>,
        event: Option<String>,
        retry: Option<u64>,
    ) -> HttpInfo {
        HttpInfo { exchange, sse_id: id, sse_event: event, sse_retry: retry, ..HttpInfo::default() }
    }
}

/// What indexing a recorded line needs of it (the index row and the connection's label): the
/// entry without its payload, time or detail. Unescaping the payload is most of decoding an
/// entry, and opening a session indexes every line, so the payload is passed over unread. A
/// line whose payload is malformed is indexed all the same; it fails when read whole, which
/// only a line Sonde did not write can do.
#[derive(Deserialize)]
pub(super) struct Indexed {
    seq: u64,
    #[serde(default)]
    ms: f64,
    conn: u64,
    kind: Kind,
    dir: Direction,
    #[serde(default)]
    summary: Option<Summary>,
    #[serde(default)]
    answers: Option<u64>,
    #[serde(default)]
    part_of: Option<String>,
    #[serde(default)]
    ends: Option<RequestOutcome>,
    #[serde(default)]
    lifecycle: Option<Lifecycle>,
    #[serde(default)]
    http: Option<HttpInfo>,
    #[serde(default)]
    findings: Vec<crate::diagnose::Finding>,
    /// The marks a line may carry about the file itself (see `format`).
    #[serde(default)]
    pub(super) gap: Option<super::format::Gap>,
    #[serde(default)]
    pub(super) session_end: Option<super::format::End>,
}

impl Indexed {
    /// The seq the line says it holds.
    pub(super) fn seq(&self) -> u64 {
        self.seq
    }

    /// An entry with what was read and nothing else: fit for indexing, not for showing.
    pub(super) fn into_entry(self) -> Entry {
        Entry {
            seq: self.seq,
            ms: self.ms,
            summary: self.summary,
            answers: self.answers,
            part_of: self.part_of,
            ends: self.ends,
            lifecycle: self.lifecycle,
            http: self.http,
            findings: self.findings,
            ..Entry::new(self.conn, self.kind, self.dir)
        }
    }
}

/// One entry of the wire log.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub seq: u64,
    /// Wall-clock time, RFC 3339 with milliseconds.
    pub time: String,
    /// Milliseconds since the session started, from a monotonic clock.
    // Always finite: a plain number in TypeScript (a bare f64 could be NaN, which JSON sends as null).
    #[cfg_attr(feature = "bindings", specta(type = serde_json::Number))]
    pub ms: f64,
    /// The connection this entry belongs to (0 for the session itself).
    pub conn: u64,
    pub kind: Kind,
    pub dir: Direction,
    /// The bytes, when they are UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The bytes, base64-encoded, when they are not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base64: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    /// The seq of the request this entry answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<u64>,
    /// Milliseconds between the request and this reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    /// On a request that continues an operation (an `input_required` round's retry, a task's
    /// `tasks/get`): the id, as JSON text, of the request on the same connection that began it.
    /// Sonde's own ids never repeat on a connection, so the id names one request (format 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_of: Option<String>,
    /// On a note that settles a request (`answers` names it): how it ended without a reply —
    /// it timed out, was cancelled, or was never answered (format 3; a note of an older file
    /// that answers a request means never answered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends: Option<RequestOutcome>,
    /// Human words: a decode error, a lifecycle step, a note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<Lifecycle>,
    /// True for frames of the era probe, so the transcript says why an era was chosen.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub probe: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpInfo>,
    /// Set on a preview only (what a window is sent, never what is recorded): the size in bytes
    /// of the whole payload, of which `text` or `base64` hold the first [`PREVIEW_BYTES`]. The
    /// whole entry is read from the log by its seq.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whole_size: Option<u64>,
    /// What this frame does wrong, by the rules of `diagnose`, found as it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<crate::diagnose::Finding>,
    /// `text` is exactly one JSON object (it was decoded as one, or Sonde wrote it), so the
    /// session file holds it verbatim as the line's `frame` rather than escaped into a string
    /// (format 4): escaping was the largest single cost of recording one. Front ends and
    /// exports are sent `text` as ever.
    #[serde(skip)]
    #[cfg_attr(feature = "bindings", specta(skip))]
    pub(crate) json: bool,
    /// A line's `frame` as it was read (format 4); [`Entry::from_line`] moves it into `text`.
    #[serde(default, skip_serializing, deserialize_with = "verbatim")]
    #[cfg_attr(feature = "bindings", specta(skip))]
    pub(crate) frame: Option<String>,
}

/// A JSON value taken as the exact text the line holds it in.
fn verbatim<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
    Ok(Some(Box::<str>::from(raw).into_string()))
}

/// How many bytes of a payload a preview carries: a window sent a 64 MiB frame in every batch
/// and every page would spend its memory on bytes no one asked to see.
pub const PREVIEW_BYTES: usize = 64 * 1024;

impl Entry {
    /// A new entry; the log assigns `seq`, `time` and `ms` when it is appended.
    pub fn new(conn: u64, kind: Kind, dir: Direction) -> Entry {
        Entry {
            seq: 0,
            time: String::new(),
            ms: 0.0,
            conn,
            kind,
            dir,
            text: None,
            base64: None,
            summary: None,
            answers: None,
            latency_ms: None,
            part_of: None,
            ends: None,
            detail: None,
            lifecycle: None,
            probe: false,
            http: None,
            whole_size: None,
            findings: Vec::new(),
            json: false,
            frame: None,
        }
    }

    /// The entry a session file's line holds: a `frame` (format 4) becomes the entry's text.
    pub fn from_line(line: &[u8]) -> serde_json::Result<Entry> {
        let mut entry: Entry = serde_json::from_slice(line)?;
        if let Some(frame) = entry.frame.take() {
            entry.text = Some(frame);
            entry.json = true;
        }
        Ok(entry)
    }

    /// Marks the text as one JSON object, to be recorded verbatim (see `json`): for bytes that
    /// decoded as JSON, or that Sonde serialized. Bytes with anything around the object (a
    /// `\r`, spaces) stay text, which keeps them exactly.
    pub(crate) fn json_frame(mut self) -> Entry {
        self.json = self.text.as_deref().is_some_and(|t| t.starts_with('{') && t.ends_with('}'));
        self
    }

    /// The entry with at most [`PREVIEW_BYTES`] of its payload, and the whole size said, when
    /// the payload is larger; otherwise the entry as it is. Text is cut on a character boundary
    /// and base64 on a whole group, so a preview is the exact start of the bytes.
    pub fn preview(mut self) -> Entry {
        if let Some(text) = &mut self.text {
            if text.len() > PREVIEW_BYTES {
                self.whole_size = Some(text.len() as u64);
                let mut end = PREVIEW_BYTES;
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text.truncate(end);
            }
        } else if let Some(b64) = &mut self.base64 {
            let groups = PREVIEW_BYTES / 3;
            if b64.len() > groups * 4 {
                let padding = b64.bytes().rev().take_while(|&c| c == b'=').count();
                self.whole_size = Some((b64.len() / 4 * 3 - padding) as u64);
                b64.truncate(groups * 4);
            }
        }
        self
    }

    /// Keeps bytes exactly: as text when they are UTF-8, as base64 otherwise.
    pub fn with_bytes(mut self, bytes: &[u8]) -> Entry {
        match std::str::from_utf8(bytes) {
            Ok(text) => self.text = Some(text.to_owned()),
            Err(_) => self.base64 = Some(base64::engine::general_purpose::STANDARD.encode(bytes)),
        }
        self
    }

    /// Like [`Entry::with_bytes`], taking the bytes without copying them when they are UTF-8.
    pub fn with_owned_bytes(mut self, bytes: Vec<u8>) -> Entry {
        match String::from_utf8(bytes) {
            Ok(text) => self.text = Some(text),
            Err(e) => self.base64 = Some(base64::engine::general_purpose::STANDARD.encode(e.as_bytes())),
        }
        self
    }

    pub fn with_detail(mut self, detail: impl Into<String>) -> Entry {
        self.detail = Some(detail.into());
        self
    }

    /// The recorded bytes, decoded back from text or base64.
    pub fn bytes(&self) -> Option<Vec<u8>> {
        match (&self.text, &self.base64) {
            (Some(t), _) => Some(t.as_bytes().to_vec()),
            (None, Some(b)) => base64::engine::general_purpose::STANDARD.decode(b).ok(),
            (None, None) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outcomes_name_is_the_one_its_session_file_gives_it() {
        for outcome in RequestOutcome::ALL {
            assert_eq!(serde_json::to_value(outcome).unwrap(), outcome.name());
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_survive_a_round_trip_through_json() {
        let raw = b"{\"x\":\"\xff\xfe\"}";
        let e = Entry::new(1, Kind::DecodeError, Direction::In).with_bytes(raw);
        assert!(e.text.is_none());
        let back: Entry = serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
        assert_eq!(back.bytes().unwrap(), raw);
    }

    #[test]
    fn a_preview_is_the_exact_start_of_a_large_payload_and_says_its_whole_size() {
        let small = Entry::new(1, Kind::Message, Direction::In).with_bytes(b"{}");
        assert_eq!(small.clone().preview(), small, "a small entry is sent whole");

        // 'é' is two bytes: the cut falls inside one at PREVIEW_BYTES and moves back before it.
        let text = format!("a{}", "é".repeat(PREVIEW_BYTES));
        let cut = Entry::new(1, Kind::Message, Direction::In).with_bytes(text.as_bytes()).preview();
        assert_eq!(cut.whole_size, Some(text.len() as u64));
        assert_eq!(cut.text.as_deref(), Some(&text[..PREVIEW_BYTES - 1]));

        let raw: Vec<u8> = (0..PREVIEW_BYTES * 2 + 1).map(|i| if i % 7 == 0 { 0xff } else { b'x' }).collect();
        let cut = Entry::new(1, Kind::DecodeError, Direction::In).with_bytes(&raw).preview();
        assert_eq!(cut.whole_size, Some(raw.len() as u64));
        let start = cut.bytes().unwrap();
        assert!(start.len() <= PREVIEW_BYTES && start.len() > PREVIEW_BYTES - 3);
        assert_eq!(start, raw[..start.len()]);
    }

    #[test]
    fn kind_names_parse_back() {
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.name()), Some(k));
            assert_eq!(serde_json::to_value(k).unwrap(), k.name());
        }
    }
}
