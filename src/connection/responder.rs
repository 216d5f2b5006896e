//! Answers to the requests a server sends the client (2025-11-25: `ping`, `roots/list`, …).
//!
//! Owns: the `Responder` interface the front ends implement, the basic responder that
//! answers `ping` and `roots/list` from configured roots, and the wrapper whose roots may change
//! while the connection is open (`LiveRoots`). Every request gets an answer;
//! anything a responder does not handle is `-32601`, so no server waits forever.
//! Refuses: asking a person. A front end with a UI supplies a responder that does, answering
//! [`Answer::Later`]; the connection goes on meanwhile and sends the reply when it comes.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::RwLock;

use serde_json::{json, Value};

use tokio::sync::mpsc;

use super::ReplyCheck;
use crate::era::Era;
use crate::sync::ReadWrite;
use crate::wire::{ErrorObject, Message, RequestId};

/// Answers server→client requests, and declares what it can answer.
pub trait Responder: Send + Sync {
    /// The client capabilities this responder really supports.
    fn capabilities(&self) -> Value;

    /// The result for `method`, or the error to send back: now, or later.
    fn answer(&self, method: &str, params: Option<&Value>) -> Answer;

    /// The `clientInfo` the client presents, when it is not Sonde's own (a replay presents the
    /// recorded client's).
    fn client_info(&self) -> Option<Value> {
        None
    }

    /// The 2025 protocol version the client asks for in `initialize`, when it is not Sonde's
    /// own (a host profile's).
    fn requested_version(&self) -> Option<String> {
        None
    }

    /// The roots it lists, when they may change while the connection is open; `None` when they
    /// are fixed for the connection's life.
    fn live_roots(&self) -> Option<&Roots> {
        None
    }

    /// What the client it plays checks of each reply to `method` (a host's result size), its
    /// findings on the reply beside the request's own check.
    fn reply_check(&self, _method: &str) -> Option<ReplyCheck> {
        None
    }
}

/// Roots that may change while a connection is open: the list `roots/list` answers from now.
#[derive(Debug, Default)]
pub struct Roots(RwLock<Vec<PathBuf>>);

impl Roots {
    pub fn new(roots: Vec<PathBuf>) -> Roots {
        Roots(RwLock::new(roots))
    }

    pub fn get(&self) -> Vec<PathBuf> {
        self.0.reading().clone()
    }

    /// Replaces the list; the next `roots/list` is answered with `roots`.
    pub fn set(&self, roots: Vec<PathBuf>) {
        *self.0.writing() = roots;
    }
}

/// A responder whose roots may change while the connection is open (a front end that lets the
/// person edit them): it declares `roots.listChanged`, answers `roots/list` from the current list,
/// an empty one included, and hands everything else to `inner`.
pub struct LiveRoots<R> {
    inner: R,
    roots: Roots,
}

impl<R: Responder> LiveRoots<R> {
    pub fn new(inner: R, roots: Vec<PathBuf>) -> LiveRoots<R> {
        LiveRoots { inner, roots: Roots::new(roots) }
    }
}

impl<R: Responder> Responder for LiveRoots<R> {
    fn capabilities(&self) -> Value {
        let mut caps = self.inner.capabilities();
        caps["roots"] = json!({ "listChanged": true });
        caps
    }

    fn answer(&self, method: &str, params: Option<&Value>) -> Answer {
        match method {
            "roots/list" => Answer::Now(Ok(roots_result(&self.roots.get()))),
            _ => self.inner.answer(method, params),
        }
    }

    fn live_roots(&self) -> Option<&Roots> {
        Some(&self.roots)
    }
}

/// The `ListRootsResult` for `roots`: each a `file://` URI named by its last component.
pub fn roots_result(roots: &[PathBuf]) -> Value {
    let roots: Vec<Value> = roots
        .iter()
        .map(|p| {
            let name = p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into());
            json!({ "uri": file_uri(p), "name": name })
        })
        .collect();
    json!({ "roots": roots })
}

/// A reply that is ready, or one that comes when someone has decided.
pub enum Answer {
    Now(Result<Value, ErrorObject>),
    Later(Pin<Box<dyn Future<Output = Result<Value, ErrorObject>> + Send>>),
}

impl Answer {
    /// Waits for the reply, whichever kind it is.
    pub async fn resolve(self) -> Result<Value, ErrorObject> {
        match self {
            Answer::Now(reply) => reply,
            Answer::Later(reply) => reply.await,
        }
    }
}

/// What a connection does with a server request: `Err` with the words to record when the era
/// forbids it (2026-07-28: servers send no requests; it is flagged and left unanswered), else the
/// reply to send now, or `None` when the answer comes later and is sent through `late`, so the
/// connection never waits on a person.
pub(super) fn reply_to(
    responder: &dyn Responder,
    era: Option<Era>,
    id: RequestId,
    method: &str,
    params: Option<&Value>,
    late: &mpsc::UnboundedSender<Message>,
) -> Result<Option<Message>, &'static str> {
    if era == Some(Era::Modern) {
        return Err("a server request on a 2026-07-28 connection breaks the protocol; not answered");
    }
    let message = |id: RequestId, reply: Result<Value, ErrorObject>| match reply {
        Ok(result) => Message::result(id, result),
        Err(error) => Message::Response { id: Some(id), outcome: Err(error) },
    };
    match responder.answer(method, params) {
        Answer::Now(reply) => Ok(Some(message(id, reply))),
        Answer::Later(reply) => {
            let late = late.clone();
            tokio::spawn(async move {
                let _ = late.send(message(id, reply.await));
            });
            Ok(None)
        }
    }
}

/// How to answer an elicitation (`--elicit accept:JSON|decline|cancel`).
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitAnswer {
    Accept(Value),
    /// Accept with the `default` of every property of the requested schema.
    Defaults,
    Decline,
    Cancel,
}

impl std::str::FromStr for ElicitAnswer {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.split_once(':') {
            Some(("accept", json)) => match serde_json::from_str::<Value>(json) {
                Ok(v @ Value::Object(_)) => Ok(ElicitAnswer::Accept(v)),
                Ok(other) => Err(format!("accept needs a JSON object, not {other}")),
                Err(e) => Err(format!("accept:JSON has bad JSON: {e}")),
            },
            None if s == "accept" => Ok(ElicitAnswer::Accept(json!({}))),
            None if s == "defaults" => Ok(ElicitAnswer::Defaults),
            None if s == "decline" => Ok(ElicitAnswer::Decline),
            None if s == "cancel" => Ok(ElicitAnswer::Cancel),
            _ => Err(format!("{s:?} is not accept:JSON, defaults, decline or cancel")),
        }
    }
}

impl ElicitAnswer {
    /// The `ElicitResult` this answer gives an `elicitation/create` with `params`.
    pub fn reply(&self, params: Option<&Value>) -> Value {
        match self {
            ElicitAnswer::Accept(content) => json!({"action": "accept", "content": content}),
            ElicitAnswer::Defaults => json!({"action": "accept", "content": defaults(params)}),
            ElicitAnswer::Decline => json!({"action": "decline"}),
            ElicitAnswer::Cancel => json!({"action": "cancel"}),
        }
    }
}

/// The `elicitation` capability of a client that fills in forms, and opens links too when `url`.
pub fn elicitation_capability(url: bool) -> Value {
    if url {
        json!({ "form": {}, "url": {} })
    } else {
        json!({ "form": {} })
    }
}

/// The `sampling` capability: Sonde declares no sub-capability (no tools, no context).
pub fn sampling_capability() -> Value {
    json!({})
}

/// The error a server request Sonde refuses gets (a sampling request declined, a question over
/// the limit), with the words why; JSON-RPC leaves a refusal's code to the client, and Sonde
/// uses -1.
pub fn refused(why: impl Into<String>) -> ErrorObject {
    ErrorObject { code: -1, message: why.into(), data: None }
}

/// Answers from fixed data: `ping`, `roots/list`, and, when configured, `elicitation/create`
/// and `sampling/createMessage`. Everything else is `-32601`. It declares exactly what it
/// can answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BasicResponder {
    pub roots: Vec<PathBuf>,
    pub elicit: Option<ElicitAnswer>,
    /// The text of every sampling reply.
    pub sample_reply: Option<String>,
}

impl Responder for BasicResponder {
    fn capabilities(&self) -> Value {
        let mut caps = serde_json::Map::new();
        // Roots are declared only when some are configured: a server told the client has roots
        // may ask for them after Sonde has already closed stdin (server-everything does, then
        // waits for the answer instead of exiting).
        if !self.roots.is_empty() {
            caps.insert("roots".into(), json!({}));
        }
        if self.elicit.is_some() {
            caps.insert("elicitation".into(), elicitation_capability(false));
        }
        if self.sample_reply.is_some() {
            caps.insert("sampling".into(), sampling_capability());
        }
        Value::Object(caps)
    }

    fn answer(&self, method: &str, params: Option<&Value>) -> Answer {
        Answer::Now(self.answer_now(method, params))
    }
}

impl BasicResponder {
    /// The fixed answer to `method` (every unhandled method gets `-32601`).
    pub fn answer_now(&self, method: &str, params: Option<&Value>) -> Result<Value, ErrorObject> {
        match (method, &self.elicit, &self.sample_reply) {
            ("ping", _, _) => Ok(json!({})),
            ("roots/list", _, _) if !self.roots.is_empty() => Ok(roots_result(&self.roots)),
            ("elicitation/create", Some(answer), _) => Ok(answer.reply(params)),
            ("sampling/createMessage", _, Some(text)) => Ok(json!({
                "role": "assistant",
                "content": {"type": "text", "text": text},
                "model": "sonde-scripted-reply",
                "stopReason": "endTurn"
            })),
            _ => Err(not_handled(method)),
        }
    }
}

/// The `default` of each property of an elicitation's `requestedSchema`.
fn defaults(params: Option<&Value>) -> Value {
    let properties = params.and_then(|p| p.pointer("/requestedSchema/properties")).and_then(Value::as_object);
    let content: serde_json::Map<String, Value> = properties
        .into_iter()
        .flatten()
        .filter_map(|(name, schema)| Some((name.clone(), schema.get("default")?.clone())))
        .collect();
    Value::Object(content)
}

/// The `-32601` every unhandled server request gets.
pub fn not_handled(method: &str) -> ErrorObject {
    ErrorObject {
        code: -32601,
        message: format!("Method not found: Sonde does not handle {method}"),
        data: None,
    }
}

/// A `file://` URI for an absolute path, percent-encoding what a URI cannot hold.
pub fn file_uri(path: &std::path::Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut uri = String::from("file://");
    for b in absolute.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_requests_are_answered_in_2025_11_25_and_refused_in_2026_07_28() {
        let (late, _) = mpsc::unbounded_channel();
        let r = BasicResponder::default();
        let modern = reply_to(&r, Some(Era::Modern), 7.into(), "ping", None, &late);
        assert!(modern.unwrap_err().contains("breaks the protocol"));
        let legacy = reply_to(&r, Some(Era::Legacy), 7.into(), "ping", None, &late).unwrap().unwrap();
        assert_eq!(legacy, Message::result(7.into(), json!({})));
    }

    #[test]
    fn roots_are_listed_as_file_uris_and_unknown_methods_are_refused() {
        let r = BasicResponder { roots: vec![PathBuf::from("/srv/my project")], ..BasicResponder::default() };
        assert_eq!(
            r.answer_now("roots/list", None).unwrap(),
            json!({"roots": [{"uri": "file:///srv/my%20project", "name": "my project"}]})
        );
        assert_eq!(r.answer_now("ping", None).unwrap(), json!({}));
        assert_eq!(r.answer_now("sampling/createMessage", None).unwrap_err().code, -32601);
        assert_eq!(r.capabilities(), json!({"roots": {}}));
    }

    #[test]
    fn live_roots_declare_list_changed_and_answer_the_newest_list_even_when_empty() {
        let inner = BasicResponder { roots: vec![PathBuf::from("/old")], ..BasicResponder::default() };
        let live = LiveRoots::new(inner, vec![]);
        assert_eq!(live.capabilities(), json!({"roots": {"listChanged": true}}));
        let list = |r: &dyn Responder| match r.answer("roots/list", None) {
            Answer::Now(reply) => reply.unwrap(),
            Answer::Later(_) => panic!("roots are answered at once"),
        };
        assert_eq!(list(&live), json!({"roots": []}), "its own list, not the inner one's");
        live.live_roots().unwrap().set(vec![PathBuf::from("/srv/a"), PathBuf::from("/srv/b")]);
        assert_eq!(list(&live)["roots"][1], json!({"uri": "file:///srv/b", "name": "b"}));
        assert!(matches!(live.answer("ping", None), Answer::Now(Ok(_))), "the rest goes to the inner one");
        assert!(BasicResponder::default().live_roots().is_none());
    }

    #[test]
    fn elicitation_and_sampling_are_answered_only_when_configured() {
        let none = BasicResponder::default();
        assert_eq!(none.capabilities(), json!({}));
        assert_eq!(none.answer_now("elicitation/create", None).unwrap_err().code, -32601);
        let r = BasicResponder {
            elicit: Some("accept:{\"name\":\"Ada\"}".parse().unwrap()),
            sample_reply: Some("hello".into()),
            ..BasicResponder::default()
        };
        assert_eq!(r.capabilities(), json!({"elicitation": {"form": {}}, "sampling": {}}));
        assert_eq!(
            r.answer_now("elicitation/create", None).unwrap(),
            json!({"action": "accept", "content": {"name": "Ada"}})
        );
        assert_eq!(r.answer_now("sampling/createMessage", None).unwrap()["content"]["text"], "hello");
        assert_eq!("decline".parse::<ElicitAnswer>(), Ok(ElicitAnswer::Decline));
        let defaults =
            BasicResponder { elicit: Some("defaults".parse().unwrap()), ..BasicResponder::default() };
        let asked = json!({"requestedSchema": {"properties": {
            "name": {"type": "string", "default": "John Doe"}, "age": {"type": "integer", "default": 30},
            "note": {"type": "string"}}}});
        assert_eq!(
            defaults.answer_now("elicitation/create", Some(&asked)).unwrap(),
            json!({"action": "accept", "content": {"name": "John Doe", "age": 30}})
        );
        assert!("accept:[1]".parse::<ElicitAnswer>().is_err());
    }
}
