//! An ordinary entry's line, written by hand exactly as serde writes it.
//!
//! Owns: [`write`], which writes an entry of the common shape (a frame with its summary, a
//! reply's `answers` and latency) as the JSON object `serde_json` would, byte for byte, but
//! without escaping every key: recording a flood of notifications is bounded by the thread
//! that records, and on it serde's escaping of each line's dozen keys and words was about a
//! seventh of the time (a profile of `sonde-bench --only ingest`). Values that come from
//! outside (the time, a method, an id, the text) are still written by `serde_json`.
//!
//! Refuses: any entry with a field it does not write. It says so before writing anything, and
//! serde writes that entry; the fields are destructured whole, so a field added to [`Entry`]
//! or [`Summary`] does not compile until it is decided here, and its test holds it to serde's
//! bytes.

use serde::Serialize;

use super::{Entry, Summary};

/// Writes `entry` as one JSON object, as `serde_json::to_writer` would, and returns true; or
/// returns false, having written nothing, when the entry has a field this does not write.
pub(super) fn write(buf: &mut Vec<u8>, entry: &Entry) -> bool {
    let Entry {
        seq,
        time,
        ms,
        conn,
        kind,
        dir,
        text,
        base64,
        summary,
        answers,
        latency_ms,
        part_of,
        ends,
        detail,
        lifecycle,
        probe,
        http,
        whole_size,
        findings,
        json: _,
        frame: _,
    } = entry;
    let rare = base64.is_some()
        || part_of.is_some()
        || ends.is_some()
        || detail.is_some()
        || lifecycle.is_some()
        || *probe
        || http.is_some()
        || whole_size.is_some()
        || !findings.is_empty();
    if rare {
        return false;
    }
    buf.extend_from_slice(b"{\"seq\":");
    value(buf, seq);
    field(buf, b",\"time\":", Some(time));
    field(buf, b",\"ms\":", Some(ms));
    field(buf, b",\"conn\":", Some(conn));
    buf.extend_from_slice(b",\"kind\":\"");
    buf.extend_from_slice(kind.name().as_bytes());
    buf.extend_from_slice(b"\",\"dir\":\"");
    buf.extend_from_slice(dir.name().as_bytes());
    buf.push(b'"');
    field(buf, b",\"text\":", text.as_ref());
    if let Some(summary) = summary {
        buf.extend_from_slice(b",\"summary\":");
        write_summary(buf, summary);
    }
    field(buf, b",\"answers\":", answers.as_ref());
    field(buf, b",\"latency_ms\":", latency_ms.as_ref());
    buf.push(b'}');
    true
}

fn write_summary(buf: &mut Vec<u8>, summary: &Summary) {
    let Summary { kind, method, id, error_code, target, is_error } = summary;
    buf.extend_from_slice(b"{\"type\":");
    value(buf, kind);
    field(buf, b",\"method\":", method.as_ref());
    field(buf, b",\"id\":", id.as_ref());
    field(buf, b",\"error_code\":", error_code.as_ref());
    field(buf, b",\"target\":", target.as_ref());
    if *is_error {
        buf.extend_from_slice(b",\"is_error\":true");
    }
    buf.push(b'}');
}

/// A member, its key as written after a comma, when it has a value (serde skips a `None`).
fn field(buf: &mut Vec<u8>, key: &[u8], v: Option<&(impl Serialize + ?Sized)>) {
    if let Some(v) = v {
        buf.extend_from_slice(key);
        value(buf, v);
    }
}

/// A value as serde writes it: strings escaped, numbers as `serde_json` formats them (a
/// non-finite one as `null`).
fn value(buf: &mut Vec<u8>, v: &(impl Serialize + ?Sized)) {
    serde_json::to_writer(&mut *buf, v).expect("a string or a number serializes");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{Direction, Kind};

    fn serde_line(entry: &Entry) -> Vec<u8> {
        serde_json::to_vec(entry).unwrap()
    }

    fn by_hand(entry: &Entry) -> Option<Vec<u8>> {
        let mut buf = b"before".to_vec();
        let wrote = write(&mut buf, entry);
        assert_eq!(&buf[..6], b"before", "what the buffer held is kept");
        wrote.then(|| buf[6..].to_vec()).or_else(|| {
            assert_eq!(buf, b"before", "nothing is written for an entry serde writes");
            None
        })
    }

    #[test]
    fn every_kind_direction_and_summary_is_written_as_serde_writes_it() {
        let odd = "quote \" backslash \\ tab \t nul \u{0} é 😀 \u{7f} </script>";
        let mut entries = Vec::new();
        for kind in Kind::ALL {
            for dir in [Direction::Out, Direction::In, Direction::Meta] {
                let mut e = Entry::new(3, kind, dir);
                e.seq = 41;
                e.time = "2026-12-04T10:17:58.123Z".into();
                e.ms = 1234.5678;
                entries.push(e);
            }
        }
        let base = entries[0].clone();
        for (text, ms) in [(None, 0.0), (Some(odd), 1e-7), (Some(""), 1e21), (Some("{\"a\":1}"), 0.1 + 0.2)] {
            let mut e = base.clone();
            e.text = text.map(str::to_owned);
            e.ms = ms;
            e.seq = u64::MAX;
            e.conn = 0;
            entries.push(e);
        }
        for kind in ["request", "notification", "result", "error"] {
            for (method, id, code, target, is_error) in [
                (None, None, None, None, false),
                (Some("notifications/message"), None, None, None, false),
                (Some("tools/call"), Some("7"), None, Some("echo"), true),
                (None, Some("\"a \\\"b\\\"\""), Some(-32601), None, false),
                (Some(odd), Some(odd), Some(i64::MIN), Some(odd), true),
            ] {
                let mut e = base.clone();
                e.summary = Some(Summary {
                    kind: kind.into(),
                    method: method.map(str::to_owned),
                    id: id.map(str::to_owned),
                    error_code: code,
                    target: target.map(str::to_owned),
                    is_error,
                });
                entries.push(e.clone());
                e.answers = Some(40);
                e.latency_ms = Some(5.25);
                entries.push(e.clone());
                e.latency_ms = Some(f64::NAN);
                entries.push(e);
            }
        }
        for e in &entries {
            let line = by_hand(e).unwrap_or_else(|| panic!("an ordinary entry is written by hand: {e:?}"));
            assert_eq!(String::from_utf8(line).unwrap(), String::from_utf8(serde_line(e)).unwrap());
        }
    }

    #[test]
    fn an_entry_with_any_other_field_is_left_to_serde() {
        let mut base = Entry::new(1, Kind::Message, Direction::In);
        base.summary = Some(Summary { kind: "notification".into(), ..Summary::default() });
        let rare: Vec<fn(&mut Entry)> = vec![
            |e| e.base64 = Some("AAE=".into()),
            |e| e.part_of = Some("1".into()),
            |e| e.ends = Some(crate::log::RequestOutcome::TimedOut),
            |e| e.detail = Some("a note".into()),
            |e| e.probe = true,
            |e| e.whole_size = Some(1),
            |e| e.http = Some(Default::default()),
            |e| e.lifecycle = Some(crate::lifecycle::Lifecycle::Server { name: "demo".into() }),
            |e| {
                e.findings = vec![crate::diagnose::Finding {
                    rule: "result-shape".into(),
                    severity: crate::diagnose::Severity::Warning,
                    detail: "d".into(),
                    spec: "s".into(),
                }]
            },
        ];
        for set in rare {
            let mut e = base.clone();
            set(&mut e);
            assert_eq!(by_hand(&e), None, "{e:?}");
        }
    }
}
