//! Exporting a session: the entries a filter matches, in a private file, with the person's
//! secrets redacted in every field. The formats: JSONL here, HAR in `har`; the redaction of an
//! entry is [`redacted`], the one place every format (and the HTML report) takes it from.
//!
//! Owns: the export's file, its format's name, and the redaction. Refuses: choosing the secrets
//! (the saved servers know them) and the path (the window asks, the CLI is told).

use std::io::{self, BufWriter, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Entry, Filter, WireLog};
use crate::error_code::ErrorCode;

/// What an export writes: the entries as JSONL, the HTTP exchanges as HAR 1.2, a report
/// readable in any browser, or the requests as OpenTelemetry spans.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    Jsonl,
    Har,
    Html,
    Otlp,
}

impl ExportFormat {
    pub const ALL: [ExportFormat; 4] =
        [ExportFormat::Jsonl, ExportFormat::Har, ExportFormat::Html, ExportFormat::Otlp];

    /// The name the CLI takes: `jsonl`, `har`, `html`, `otlp`.
    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::Jsonl => "jsonl",
            ExportFormat::Har => "har",
            ExportFormat::Html => "html",
            ExportFormat::Otlp => "otlp",
        }
    }

    /// The extension of a file written in it: its name, but `otlp.json` (a JSON file to
    /// every tool that opens it).
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Otlp => "otlp.json",
            other => other.name(),
        }
    }

    /// How a person calls it: `JSONL`, `HAR`, `HTML`.
    pub fn label(self) -> &'static str {
        match self {
            ExportFormat::Jsonl => "JSONL",
            ExportFormat::Har => "HAR",
            ExportFormat::Html => "HTML",
            ExportFormat::Otlp => "OTLP",
        }
    }

    pub fn parse(s: &str) -> Option<ExportFormat> {
        ExportFormat::ALL.into_iter().find(|f| f.name().eq_ignore_ascii_case(s))
    }
}

/// Why an export wrote nothing, or not all of it.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// HAR asked of entries that belong to no HTTP exchange; no file was created.
    #[error(
        "HAR describes HTTP exchanges, and {} none{}; export it as jsonl or html instead",
        if *.filtered_out { "the entries the filter keeps belong to" } else { "this session has" },
        if *.filtered_out { "" } else { " (its servers spoke stdio)" }
    )]
    NoHttp {
        /// The session has HTTP exchanges, but the filter kept none of their entries.
        filtered_out: bool,
    },
    /// Spans asked of entries that hold no request; no file was created.
    #[error(
        "spans stand for requests, and {}; export it as jsonl or html instead",
        if *.filtered_out { "the filter keeps none" } else { "this session has none" }
    )]
    NoRequests {
        /// The session has requests, but the filter kept none.
        filtered_out: bool,
    },
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl ExportError {
    /// The stable code a front end shows with the message.
    pub fn code(&self) -> ErrorCode {
        match self {
            ExportError::NoHttp { .. } | ExportError::NoRequests { .. } => ErrorCode::BadInput,
            ExportError::Io(_) => ErrorCode::Io,
        }
    }
}

/// Writes the entries matching `filter` to `path` (0600) as JSONL, each [`redacted`] of every
/// one of `secrets` (environment values, secret header values, client secrets). Returns how
/// many entries were written.
pub fn export_jsonl(log: &WireLog, filter: &Filter, secrets: &[String], path: &Path) -> io::Result<u64> {
    let mut out = BufWriter::new(crate::files::create_private(path)?);
    let secrets = secret_words(secrets);
    let mut from = 0;
    let mut written = 0;
    loop {
        let page = log.page(from, u64::MAX, filter, 1000)?;
        for entry in page.entries {
            serde_json::to_writer(&mut out, &redacted(entry, &secrets)).map_err(io::Error::other)?;
            out.write_all(b"\n")?;
            written += 1;
        }
        match page.next {
            Some(next) => from = next,
            None => break,
        }
    }
    out.flush()?;
    Ok(written)
}

/// What stands in for a secret in an export.
pub const REDACTED_MARK: &str = "«redacted»";

/// The secrets worth looking for, as [`redacted`] takes them: an empty one would match
/// everywhere.
pub fn secret_words(secrets: &[String]) -> Vec<&str> {
    secrets.iter().map(String::as_str).filter(|s| !s.is_empty()).collect()
}

/// Entry fields whose values are words of a closed set (a kind, a direction, a lifecycle
/// event, a severity, a rule, an outcome) or a timestamp, not recorded text: a secret that
/// happens to be one of those words (an environment value `http`, `true`) must not break the
/// entry's shape. Every other string, whatever field holds it now or later, is redacted.
const CLOSED_WORDS: &[&str] = &["kind", "dir", "type", "event", "signal", "severity", "rule", "ends", "time"];

/// `entry` with every occurrence of each of `secrets` replaced by [`REDACTED_MARK`] in every
/// field that holds recorded text or words: the bytes (text, or base64 decoded, redacted and
/// encoded again), details, lifecycle command lines, URLs, headers, findings. A secret is
/// found as written and as JSON escapes it inside a recorded frame (quotes, backslashes).
/// An entry whose shape a redaction would break is replaced by a note saying it was left out,
/// so a secret never goes out for want of a place to hide it.
pub fn redacted(mut entry: Entry, secrets: &[&str]) -> Entry {
    let mut secrets: Vec<&str> = secrets.iter().copied().filter(|s| !s.is_empty()).collect();
    if secrets.is_empty() {
        return entry;
    }
    // Longest first: a secret that holds another is gone whole, not left in pieces.
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    if let Some(bytes) = entry.base64.is_some().then(|| entry.bytes()).flatten() {
        use base64::Engine;
        let mut bytes = bytes;
        for secret in &secrets {
            bytes = replace_bytes(&bytes, secret.as_bytes(), REDACTED_MARK.as_bytes());
        }
        entry.base64 = Some(base64::engine::general_purpose::STANDARD.encode(bytes));
    }
    // Most entries hold no secret: a secret JSON writes as it is is found in the entry's JSON
    // iff some field holds it, which is cheaper to ask than walking every field.
    let plain = |s: &&str| !s.chars().any(|c| c == '"' || c == '\\' || c.is_control());
    if secrets.iter().all(plain) {
        let line = serde_json::to_string(&entry).expect("an entry serializes");
        if !secrets.iter().any(|s| line.contains(s)) {
            return entry;
        }
    }
    let mut value = serde_json::to_value(&entry).expect("an entry serializes");
    if !redact_strings(&mut value, None, &secrets) {
        return entry;
    }
    match serde_json::from_value(value) {
        Ok(redacted) => redacted,
        Err(_) => {
            let (seq, time, ms, conn) = (entry.seq, entry.time, entry.ms, entry.conn);
            Entry {
                seq,
                time,
                ms,
                ..Entry::new(conn, super::Kind::Note, super::Direction::Meta).with_detail(
                    "an entry left out of the export: hiding a secret in it would break its shape",
                )
            }
        }
    }
}

/// Redacts every string in `value` but those under [`CLOSED_WORDS`]; whether any changed.
fn redact_strings(value: &mut Value, key: Option<&str>, secrets: &[&str]) -> bool {
    match value {
        Value::String(text) if !key.is_some_and(|k| CLOSED_WORDS.contains(&k)) => {
            let mut changed = false;
            for secret in secrets {
                // As it appears inside recorded JSON: escaped where it has quotes, backslashes
                // or control characters.
                let escaped = serde_json::to_string(secret).expect("a string serializes");
                let escaped = &escaped[1..escaped.len() - 1];
                for form in [*secret, escaped] {
                    if text.contains(form) {
                        *text = text.replace(form, REDACTED_MARK);
                        changed = true;
                    }
                }
            }
            changed
        }
        Value::Array(items) => items.iter_mut().fold(false, |c, v| redact_strings(v, key, secrets) | c),
        Value::Object(map) => {
            map.iter_mut().fold(false, |c, (k, v)| redact_strings(v, Some(k.as_str()), secrets) | c)
        }
        _ => false,
    }
}

fn replace_bytes(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if !needle.is_empty() && haystack[i..].starts_with(needle) {
            out.extend_from_slice(with);
            i += needle.len();
        } else {
            out.push(haystack[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{Direction, HttpInfo, Kind};

    /// A secret that is also a word of a closed set (a kind, a direction) leaves the entry's
    /// shape whole, and is gone from its text all the same.
    #[test]
    fn a_secret_that_is_a_closed_word_keeps_the_entry_whole() {
        let mut entry = Entry::new(1, Kind::Http, Direction::Out).with_bytes(b"{\"x\":\"http\"}");
        entry.http = Some(HttpInfo { exchange: 1, url: Some("http://h/mcp".into()), ..HttpInfo::default() });
        let out = redacted(entry, &["http"]);
        assert_eq!(out.kind, Kind::Http);
        assert_eq!(out.text.as_deref(), Some("{\"x\":\"«redacted»\"}"));
        assert_eq!(out.http.unwrap().url.as_deref(), Some("«redacted»://h/mcp"));
    }

    /// A secret with a quote is found inside a recorded frame, where JSON escaped it, and a
    /// longer secret holding a shorter one goes whole.
    #[test]
    fn a_secret_is_found_as_json_escapes_it_and_the_longest_first() {
        let frame = serde_json::json!({"token": "a\"b-1234", "other": "zz-1234-yy"}).to_string();
        let entry = Entry::new(1, Kind::Message, Direction::In).with_bytes(frame.as_bytes());
        let out = redacted(entry, &["1234", "a\"b-1234", ""]);
        let text = out.text.unwrap();
        assert!(!text.contains("a\\\"b") && !text.contains("1234"), "{text}");
        assert_eq!(text.matches(REDACTED_MARK).count(), 2, "{text}");
    }

    #[test]
    fn formats_parse_by_name_in_any_case() {
        for f in ExportFormat::ALL {
            assert_eq!(ExportFormat::parse(f.name()), Some(f));
            assert_eq!(serde_json::to_value(f).unwrap(), f.name());
        }
        assert_eq!(ExportFormat::parse("HAR"), Some(ExportFormat::Har));
        assert_eq!(ExportFormat::parse("csv"), None);
    }
}
