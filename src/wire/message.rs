//! The JSON-RPC 2.0 envelope as MCP uses it: strict envelope, loose payload.
//!
//! Owns: `RequestId` (keeps its JSON type, so `1` and `"1"` differ), `Message` and its decoding
//! from one frame, with an error that says exactly what did not fit.
//! Refuses: payload typing. `params`, `result` and error `data` stay `serde_json::Value` until a
//! typed view asks for them, so a server that sends odd payloads is still shown as it is.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// A JSON-RPC request id: a string or a number, never null, compared with its JSON type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(serde_json::Number),
    String(String),
}

impl From<u64> for RequestId {
    fn from(n: u64) -> Self {
        RequestId::Number(n.into())
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

impl fmt::Display for RequestId {
    /// Shown as JSON, so a string id keeps its quotes and never looks like a number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{}", Value::String(s.clone())),
        }
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// One JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: RequestId,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// A reply. `id` is `None` only for an error that answers a request the peer could not parse.
    Response {
        id: Option<RequestId>,
        outcome: Result<Value, ErrorObject>,
    },
}

/// Why a frame is not one JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("not UTF-8 at byte {0}")]
    NotUtf8(usize),
    #[error("not JSON (non-protocol output)")]
    NotJson,
    #[error("invalid JSON: {0}")]
    InvalidJson(String),
    #[error("a JSON array: batches are not allowed in MCP 2025-06-18 and later")]
    Batch,
    #[error("JSON {0}, not an object")]
    NotAnObject(&'static str),
    #[error("invalid envelope: {0}")]
    Envelope(String),
}

impl Message {
    pub fn request(id: RequestId, method: &str, params: Option<Value>) -> Self {
        Message::Request { id, method: method.to_owned(), params }
    }

    pub fn notification(method: &str, params: Option<Value>) -> Self {
        Message::Notification { method: method.to_owned(), params }
    }

    pub fn result(id: RequestId, result: Value) -> Self {
        Message::Response { id: Some(id), outcome: Ok(result) }
    }

    pub fn error(id: RequestId, code: i64, message: &str) -> Self {
        Message::Response {
            id: Some(id),
            outcome: Err(ErrorObject { code, message: message.to_owned(), data: None }),
        }
    }

    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request { method, .. } | Message::Notification { method, .. } => Some(method),
            Message::Response { .. } => None,
        }
    }

    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Message::Request { id, .. } => Some(id),
            Message::Response { id, .. } => id.as_ref(),
            Message::Notification { .. } => None,
        }
    }

    /// The message as one line of JSON without the terminator, members in the conventional
    /// order (`jsonrpc`, `id`, `method`, `params`; `result` or `error`). Written from borrowed
    /// parts: a request's params are not copied into a tree first.
    pub fn to_json(&self) -> Vec<u8> {
        let mut envelope =
            Envelope { jsonrpc: "2.0", id: None, method: None, params: None, result: None, error: None };
        match self {
            Message::Request { id, method, params } => {
                envelope.id = Some(Some(id));
                envelope.method = Some(method);
                envelope.params = params.as_ref();
            }
            Message::Notification { method, params } => {
                envelope.method = Some(method);
                envelope.params = params.as_ref();
            }
            Message::Response { id, outcome } => {
                envelope.id = Some(id.as_ref());
                match outcome {
                    Ok(result) => envelope.result = Some(result),
                    Err(error) => envelope.error = Some(error),
                }
            }
        }
        serde_json::to_vec(&envelope).expect("a JSON-RPC envelope serializes")
    }

    /// Decodes one frame. Every way a frame can fail is a distinct [`DecodeError`].
    pub fn decode(frame: &[u8]) -> Result<Message, DecodeError> {
        let text = std::str::from_utf8(frame).map_err(|e| DecodeError::NotUtf8(e.valid_up_to()))?;
        let trimmed = text.trim_start();
        match trimmed.as_bytes().first() {
            Some(b'{') | Some(b'[') => {}
            _ => return Err(DecodeError::NotJson),
        }
        let value: Value = serde_json::from_str(text).map_err(|e| DecodeError::InvalidJson(e.to_string()))?;
        Message::from_value(value)
    }

    /// Reads the envelope of an already parsed JSON value.
    pub fn from_value(value: Value) -> Result<Message, DecodeError> {
        let mut obj = match value {
            Value::Object(o) => o,
            Value::Array(_) => return Err(DecodeError::Batch),
            other => return Err(DecodeError::NotAnObject(json_type(&other))),
        };
        let bad = |s: &str| DecodeError::Envelope(s.to_owned());
        if obj.get("jsonrpc") != Some(&Value::String("2.0".into())) {
            return Err(bad("\"jsonrpc\" must be \"2.0\""));
        }
        let id = match obj.remove("id") {
            None => None,
            Some(Value::Null) => Some(None),
            Some(v) => Some(Some(parse_id(v).ok_or_else(|| bad("\"id\" must be a string or a number"))?)),
        };
        let params = obj.remove("params");
        if let Some(p) = &params {
            if !p.is_object() && !p.is_array() {
                return Err(bad("\"params\" must be an object or an array"));
            }
        }
        match (obj.remove("method"), obj.remove("result"), obj.remove("error")) {
            (Some(Value::String(method)), None, None) => match id {
                None => Ok(Message::Notification { method, params }),
                Some(Some(id)) => Ok(Message::Request { id, method, params }),
                Some(None) => Err(bad("a request's \"id\" must not be null")),
            },
            (Some(_), None, None) => Err(bad("\"method\" must be a string")),
            (None, Some(result), None) => match id {
                Some(Some(id)) => Ok(Message::Response { id: Some(id), outcome: Ok(result) }),
                _ => Err(bad("a result needs a string or number \"id\"")),
            },
            (None, None, Some(error)) => {
                let error: ErrorObject = serde_json::from_value(error)
                    .map_err(|e| bad(&format!("\"error\" is not {{code, message, data?}}: {e}")))?;
                match id {
                    Some(id) => Ok(Message::Response { id, outcome: Err(error) }),
                    None => Err(bad("an error reply needs an \"id\" (null is allowed)")),
                }
            }
            (None, None, None) => Err(bad("none of \"method\", \"result\" or \"error\"")),
            _ => Err(bad("more than one of \"method\", \"result\" and \"error\"")),
        }
    }
}

/// A message's members as it is written; `id: Some(None)` is a reply's `"id": null`.
#[derive(Serialize)]
struct Envelope<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Option<&'a RequestId>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a ErrorObject>,
}

/// The envelope of a frame, read without building a tree of its payload.
#[derive(serde::Deserialize)]
struct Peek<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    method: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a serde_json::value::RawValue>,
    #[serde(default, deserialize_with = "present")]
    id: bool,
    #[serde(default, deserialize_with = "present")]
    result: bool,
    #[serde(default, deserialize_with = "present")]
    error: bool,
}

/// True when the member is there at all, whatever its value (`null` included).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(d)?;
    Ok(true)
}

impl Message {
    /// The method of a frame that is certainly a valid notification, found without decoding
    /// its params; `None` for anything else (which [`Message::decode`] then reads in full).
    ///
    /// The wire log keeps every byte, so a notification nobody acts on needs no tree of its
    /// payload: this is the fast path for a server that floods `notifications/message`.
    pub fn peek_notification(frame: &[u8]) -> Option<String> {
        let peek: Peek = serde_json::from_slice(frame).ok()?;
        let params_ok = peek.params.is_none_or(|p| matches!(p.get().as_bytes().first(), Some(b'{' | b'[')));
        let envelope_ok = peek.jsonrpc.as_deref() == Some("2.0") && !peek.id && !peek.result && !peek.error;
        if envelope_ok && params_ok {
            peek.method.map(|m| m.into_owned())
        } else {
            None
        }
    }
}

fn parse_id(v: Value) -> Option<RequestId> {
    match v {
        Value::Number(n) => Some(RequestId::Number(n)),
        Value::String(s) => Some(RequestId::String(s)),
        _ => None,
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decode(s: &str) -> Result<Message, DecodeError> {
        Message::decode(s.as_bytes())
    }

    #[test]
    fn requests_notifications_results_and_errors_decode() {
        assert_eq!(
            decode(r#"{"jsonrpc":"2.0","id":0,"method":"roots/list"}"#),
            Ok(Message::request(0.into(), "roots/list", None))
        );
        assert_eq!(
            decode(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#),
            Ok(Message::notification("notifications/progress", Some(json!({"progress":1}))))
        );
        assert_eq!(
            decode(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#),
            Ok(Message::result("a".into(), json!({})))
        );
        assert_eq!(
            decode(r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"nope"}}"#),
            Ok(Message::error(7.into(), -32601, "nope"))
        );
    }

    #[test]
    fn an_error_with_a_null_id_is_a_reply_to_nobody() {
        let m =
            decode(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#).unwrap();
        assert!(matches!(m, Message::Response { id: None, outcome: Err(ref e) } if e.code == -32700));
    }

    #[test]
    fn ids_keep_their_json_type() {
        let number = decode(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).unwrap();
        let string = decode(r#"{"jsonrpc":"2.0","id":"1","result":{}}"#).unwrap();
        assert_ne!(number.id(), string.id());
        assert_eq!(number.id().unwrap().to_string(), "1");
        assert_eq!(string.id().unwrap().to_string(), "\"1\"");
        assert_eq!(
            Message::result("1".into(), json!({})).to_json(),
            br#"{"jsonrpc":"2.0","id":"1","result":{}}"#
        );
    }

    #[test]
    fn malformed_frames_say_what_is_wrong() {
        let cases: &[(&[u8], DecodeError)] = &[
            (b"Server ready on stdio", DecodeError::NotJson),
            (b"", DecodeError::NotJson),
            (b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}]", DecodeError::Batch),
            (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\xff\"}", DecodeError::NotUtf8(34)),
        ];
        for (frame, want) in cases {
            assert_eq!(&Message::decode(frame).unwrap_err(), want, "{}", String::from_utf8_lossy(frame));
        }
        let envelope_errors = [
            r#"{"id":1,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","id":true,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
        ];
        for frame in envelope_errors {
            assert!(matches!(decode(frame), Err(DecodeError::Envelope(_))), "{frame}");
        }
        assert!(matches!(decode("{\"a\":"), Err(DecodeError::InvalidJson(_))));
        assert_eq!(decode("{}").unwrap_err(), DecodeError::Envelope("\"jsonrpc\" must be \"2.0\"".into()));
    }

    #[test]
    fn peeking_finds_exactly_the_valid_notifications() {
        let peek = |s: &str| Message::peek_notification(s.as_bytes());
        assert_eq!(
            peek(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}"#).as_deref(),
            Some("notifications/message")
        );
        assert_eq!(peek(r#"{"method":"a\u0062","jsonrpc":"2.0"}"#).as_deref(), Some("ab"));
        for not_one in [
            r#"{"jsonrpc":"2.0","id":null,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","method":"a","params":3}"#,
            r#"{"jsonrpc":"1.0","method":"a"}"#,
            r#"{"jsonrpc":"2.0","method":"a","result":{}}"#,
            r#"{"jsonrpc":"2.0","method":7}"#,
            r#"[{"jsonrpc":"2.0","method":"a"}]"#,
            "banner",
        ] {
            assert_eq!(peek(not_one), None, "{not_one}");
            // Whatever the peek says no to, the full decoder must not call a notification.
            assert!(
                !matches!(Message::decode(not_one.as_bytes()), Ok(Message::Notification { .. })),
                "{not_one}"
            );
        }
    }

    #[test]
    fn encoding_round_trips() {
        let messages = [
            Message::request("x".into(), "tools/call", Some(json!({"name":"echo"}))),
            Message::notification("notifications/initialized", None),
            Message::result(3.into(), json!({"tools":[]})),
            Message::error(4.into(), -32601, "Method not found"),
        ];
        for m in messages {
            assert_eq!(Message::decode(&m.to_json()).unwrap(), m);
        }
    }

    #[test]
    fn members_are_written_in_the_conventional_order() {
        let params =
            json!({"name": "echo", "arguments": {"text": "hé \"q\""}, "_meta": {"progressToken": 7}});
        let cases = [
            (
                Message::request(7.into(), "tools/call", Some(params.clone())),
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hé \"q\""},"_meta":{"progressToken":7}}}"#,
            ),
            (Message::request("a".into(), "ping", None), r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#),
            (
                Message::notification("notifications/progress", Some(json!({"progress": 1.5}))),
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1.5}}"#,
            ),
            (
                Message::notification("notifications/initialized", None),
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            ),
            (
                Message::result(3.into(), json!({"tools": []})),
                r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#,
            ),
            (
                Message::error(4.into(), -32601, "Method not found"),
                r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found"}}"#,
            ),
            (
                Message::Response {
                    id: None,
                    outcome: Err(ErrorObject {
                        code: -32700,
                        message: "Parse error".into(),
                        data: Some(json!([1])),
                    }),
                },
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":[1]}}"#,
            ),
        ];
        for (message, line) in cases {
            assert_eq!(String::from_utf8(message.to_json()).unwrap(), line);
        }
    }
}
