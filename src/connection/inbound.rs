//! Classifying what a server sent, one frame at a time, for both transports (a stdout line, an
//! HTTP body or SSE event): every frame becomes exactly one log entry, and one that is a
//! JSON-RPC message also becomes a `Message` for the connection to act on.
//!
//! Owns: the mapping from decode outcomes to entry kinds and details (non-protocol text, a
//! batch, a decode error, a line not UTF-8 kept as its bytes and read with U+FFFD, a line that
//! ended without a newline), the frame-level findings those carry (`diagnose`), the outline the
//! log's index keeps of a message (`summary`, with the name or URI a request targets), the fast
//! path for notifications the connection does not route (their method only, params left in
//! the entry's bytes), and the id sniffed from the head or tail of a line too long to parse, so
//! its request fails at once.
//! Refuses: correlation (the loop owns the pending table), the rules on results and on traffic
//! (`pending`, `spine`), and any I/O or recording (the loop records what this returns).

use crate::log::{Direction, Entry, Kind, Summary};
use crate::wire::{DecodeError, Message, RequestId};

/// What one stdout line turned out to be.
pub struct Inbound {
    pub entry: Entry,
    pub message: Option<Message>,
}

/// Decodes one line into its entry and, when it is one, its message.
/// Notifications the connection acts on (and so needs with their params): progress and a
/// server's cancel go to their requests, and an acknowledgement lifts its listen request's
/// deadline.
const ROUTED: [&str; 3] =
    ["notifications/progress", "notifications/cancelled", "notifications/subscriptions/acknowledged"];

pub fn classify(conn: u64, line: Vec<u8>, terminated: bool) -> Inbound {
    if let Some(method) = Message::peek_notification(&line).filter(|m| !ROUTED.contains(&m.as_str())) {
        // Its params are in the entry's bytes; nothing downstream reads them.
        let message = Message::Notification { method, params: None };
        let entry = with_summary(
            Entry::new(conn, Kind::Message, Direction::In).with_owned_bytes(line).json_frame(),
            &message,
        );
        return finish(Inbound { entry, message: Some(message) }, terminated);
    }
    let decoded = Message::decode(&line);
    let lossy = match &decoded {
        Err(DecodeError::NotUtf8(_)) => Some(Message::decode(String::from_utf8_lossy(&line).as_bytes())),
        _ => None,
    };
    // The line moves into the entry: a frame is copied once, into the log's file buffer.
    let entry = Entry::new(conn, Kind::Message, Direction::In).with_owned_bytes(line);
    let inbound = match decoded {
        Ok(message) => Inbound { entry: with_summary(entry.json_frame(), &message), message: Some(message) },
        Err(DecodeError::NotUtf8(at)) => {
            match lossy.expect("decoded lossily above") {
                // The bytes are kept exactly (base64); the message is read with U+FFFD in place of
                // the bad bytes so a server with one bad string still gets its reply matched.
                Ok(message) => {
                    let mut entry = with_summary(entry, &message).with_detail(format!(
                        "not UTF-8 at byte {at}; read with U+FFFD in place of the invalid bytes"
                    ));
                    entry.findings.push(crate::diagnose::not_utf8(at));
                    Inbound { entry, message: Some(message) }
                }
                Err(e) => {
                    let mut inbound =
                        rejected(entry, Kind::DecodeError, format!("not UTF-8 at byte {at}, and then {e}"));
                    inbound.entry.findings.push(crate::diagnose::not_utf8(at));
                    inbound
                }
            }
        }
        Err(DecodeError::NotJson) => {
            let mut inbound = rejected(entry, Kind::NonProtocol, "non-protocol output on stdout".into());
            inbound.entry.findings.push(crate::diagnose::stdout_not_protocol());
            inbound
        }
        Err(e @ DecodeError::Batch) => {
            let mut inbound = rejected(entry, Kind::Batch, e.to_string());
            inbound.entry.findings.push(crate::diagnose::batch());
            inbound
        }
        Err(e) => {
            let mut inbound = rejected(entry, Kind::DecodeError, e.to_string());
            inbound.entry.findings.push(crate::diagnose::envelope(&e.to_string()));
            inbound
        }
    };
    finish(inbound, terminated)
}

fn finish(mut inbound: Inbound, terminated: bool) -> Inbound {
    if !terminated {
        let detail = inbound.entry.detail.take().map_or(String::new(), |d| format!("{d}; "));
        inbound.entry.detail = Some(format!("{detail}stdout ended without a final newline"));
    }
    inbound
}

fn rejected(mut entry: Entry, kind: Kind, detail: String) -> Inbound {
    entry.kind = kind;
    Inbound { entry: entry.with_detail(detail), message: None }
}

/// The outline of a message for the log's index.
pub fn summary(message: &Message) -> Summary {
    let (kind, error_code) = match message {
        Message::Request { .. } => ("request", None),
        Message::Notification { .. } => ("notification", None),
        Message::Response { outcome: Ok(_), .. } => ("result", None),
        Message::Response { outcome: Err(e), .. } => ("error", Some(e.code)),
    };
    let target = match message {
        Message::Request { params, .. } => target_of(params.as_ref()),
        _ => None,
    };
    Summary {
        kind: kind.into(),
        method: message.method().map(str::to_owned),
        id: message.id().map(|id| id.to_string()),
        error_code,
        target,
        is_error: matches!(message, Message::Response { outcome: Ok(result), .. } if result.get("isError") == Some(&serde_json::Value::Bool(true))),
    }
}

/// What a request's params name (see [`Summary::target`]), cut to a length a row can show.
pub fn target_of(params: Option<&serde_json::Value>) -> Option<String> {
    let params = params?;
    let named = |v: &serde_json::Value| {
        ["name", "uri"].iter().find_map(|k| v.get(k).and_then(|n| n.as_str()).map(str::to_owned))
    };
    let target = named(params).or_else(|| params.get("ref").and_then(named))?;
    Some(target.chars().take(200).collect())
}

pub fn with_summary(mut entry: Entry, message: &Message) -> Entry {
    entry.summary = Some(summary(message));
    entry
}

/// Finds the `"id"` of a reply from the first bytes of a line too long to parse whole.
///
/// Only a top-level `"id"` that comes before `"result"`/`"error"` is trusted; SDKs write the
/// envelope members first, and anything else is left for the request's timeout.
pub fn sniff_id(head: &[u8]) -> Option<RequestId> {
    let head = &head[..head.len().min(512)];
    let text = String::from_utf8_lossy(head);
    let at = text.find("\"id\"")?;
    if ["\"result\"", "\"error\"", "\"params\""].iter().any(|k| text.find(k).is_some_and(|p| p < at)) {
        return None;
    }
    let rest = text[at + 4..].trim_start().strip_prefix(':')?.trim_start();
    let mut de = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
    match de.next()? {
        Ok(serde_json::Value::Number(n)) => Some(RequestId::Number(n)),
        Ok(serde_json::Value::String(s)) => Some(RequestId::String(s)),
        _ => None,
    }
}

/// The id of a reply whose `"id"` is its last member, from the line's last bytes: `…,"id":3}`.
/// Only a top-level id counts: the value must be followed by the one closing brace.
pub fn sniff_last_id(tail: &[u8]) -> Option<RequestId> {
    let text = String::from_utf8_lossy(tail);
    let at = text.rfind("\"id\"")?;
    let rest = text[at + 4..].trim_start().strip_prefix(':')?.trim_start();
    let mut de = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
    let value = de.next()?.ok()?;
    if rest[de.byte_offset()..].trim() != "}" {
        return None;
    }
    match value {
        serde_json::Value::Number(n) => Some(RequestId::Number(n)),
        serde_json::Value::String(s) => Some(RequestId::String(s)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_whose_id_comes_last_is_named_by_its_tail_and_a_nested_id_is_not() {
        let tail = br#"xxxxx"}]},"jsonrpc":"2.0","id":3}"#;
        assert_eq!(sniff_last_id(tail), Some(RequestId::from(3u64)));
        assert_eq!(
            sniff_last_id(br#""more":{"id":"a"},"id":"req-7"}"#),
            Some(RequestId::String("req-7".into()))
        );
        assert_eq!(sniff_last_id(br#"{"data":{"id":5}}"#), None, "an id inside the result");
        assert_eq!(sniff_last_id(br#"xxxx"jsonrpc":"2.0"}"#), None);
    }

    #[test]
    fn every_line_is_one_entry_of_the_right_kind() {
        // With whether the line is recorded verbatim, as JSON: only a JSON object with nothing
        // around it, as it decoded.
        let cases: &[(&[u8], Kind, bool)] = &[
            (br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, Kind::Message, true),
            (br#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#, Kind::Message, true),
            (br#" {"jsonrpc":"2.0","id":1,"result":{}}"#, Kind::Message, false),
            (b"Secure MCP Filesystem Server running on stdio", Kind::NonProtocol, false),
            (br#"{"not":"json"#, Kind::DecodeError, false),
            (br#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#, Kind::Batch, false),
            (br#"{"jsonrpc":"2.0","id":1}"#, Kind::DecodeError, false),
            (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"\xff\"}}", Kind::Message, false),
            (b"\xff\xfe", Kind::DecodeError, false),
        ];
        for (line, kind, json) in cases {
            let inbound = classify(1, line.to_vec(), true);
            assert_eq!(inbound.entry.kind, *kind, "{}", String::from_utf8_lossy(line));
            assert_eq!(inbound.entry.bytes().unwrap(), *line);
            assert_eq!(inbound.message.is_some(), *kind == Kind::Message);
            assert_eq!(inbound.entry.json, *json, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn each_broken_line_names_its_rule() {
        let cases: &[(&[u8], &[&str])] = &[
            (br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, &[]),
            (b"banner", &["stdout-not-protocol"]),
            (br#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#, &["batch"]),
            (br#"{"jsonrpc":"1.0","id":1,"result":{}}"#, &["envelope"]),
            (br#"{"jsonrpc":"2.0","id":{"n":1},"result":{}}"#, &["envelope"]),
            (br#"{"jsonrpc":"2.0","id":1,"result":{"#, &["envelope"]),
            (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"\xff\"}}", &["not-utf8"]),
        ];
        for (line, rules) in cases {
            let found: Vec<String> =
                classify(1, line.to_vec(), true).entry.findings.into_iter().map(|f| f.rule).collect();
            assert_eq!(found, *rules, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn replies_are_summarised_with_their_error_code() {
        let inbound = classify(
            1,
            br#"{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"x"}}"#.to_vec(),
            true,
        );
        let s = inbound.entry.summary.unwrap();
        assert_eq!((&*s.kind, s.id.as_deref(), s.error_code), ("error", Some("\"a\""), Some(-32601)));
    }

    #[test]
    fn an_unterminated_line_says_so() {
        let inbound = classify(1, b"bye".to_vec(), false);
        assert_eq!(
            inbound.entry.detail.as_deref(),
            Some("non-protocol output on stdout; stdout ended without a final newline")
        );
    }

    #[test]
    fn ids_are_sniffed_only_from_the_envelope() {
        assert_eq!(
            sniff_id(br#"{"jsonrpc":"2.0","id":12,"result":{"content":[{"text":"xxxx"#),
            Some(12.into())
        );
        assert_eq!(sniff_id(br#"{"jsonrpc":"2.0", "id" : "a","result":"#), Some("a".into()));
        assert_eq!(sniff_id(br#"{"jsonrpc":"2.0","result":{"id":3,"#), None);
        assert_eq!(sniff_id(b"xxxxxxxx"), None);
    }
}
