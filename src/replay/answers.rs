//! The recorded client's side of a session, for a replay: who it said it was (`clientInfo`),
//! the capabilities it declared, and its answers to the server's own requests (an elicitation,
//! a sampling request, `roots/list`) given again in the order they were given, per method. In 2025-11-25 those are requests the
//! server sent; in 2026-07-28 they are an `input_required` result's questions and the retry's
//! `inputResponses`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::connection::{Answer, Responder};
use crate::log::{Direction, Entry, Kind};
use crate::sync::Lock;
use crate::wire::ErrorObject;

type Given = Result<Value, ErrorObject>;

/// Answers a replayed server's requests as the recorded client did.
#[derive(Debug, Clone, Default)]
pub struct RecordedAnswers {
    capabilities: Value,
    client_info: Option<Value>,
    answers: Arc<Mutex<HashMap<String, VecDeque<Given>>>>,
}

impl RecordedAnswers {
    /// The client's capabilities and answers on connection `conn` of `entries`.
    pub fn read(entries: &[Entry], conn: u64) -> RecordedAnswers {
        let frame = |e: &Entry| e.text.as_deref().and_then(|t| serde_json::from_str::<Value>(t).ok());
        let ours = || entries.iter().filter(move |e| e.conn == conn && e.kind == Kind::Message && !e.probe);
        let sent: Vec<(&Entry, Value)> =
            ours().filter(|e| e.dir == Direction::Out).filter_map(|e| frame(e).map(|f| (e, f))).collect();
        // Declared in initialize (2025-11-25), or in every request's _meta (2026-07-28).
        let declared = |legacy: &str, modern: &str| {
            sent.iter().find_map(|(_, f)| {
                let opened = (f["method"] == "initialize").then(|| f.pointer(legacy).cloned()).flatten();
                opened.or_else(|| f.pointer(modern).cloned())
            })
        };
        let capabilities =
            declared("/params/capabilities", "/params/_meta/io.modelcontextprotocol~1clientCapabilities")
                .unwrap_or_else(|| json!({}));
        let client_info = declared("/params/clientInfo", "/params/_meta/io.modelcontextprotocol~1clientInfo");
        let mut answers: HashMap<String, VecDeque<Given>> = HashMap::new();
        for asked in ours().filter(|e| e.dir == Direction::In) {
            let Some(f) = frame(asked) else { continue };
            // 2025-11-25: a request the server sent, and the reply the client sent to it.
            if let (Some(method), Some(_)) = (f["method"].as_str(), f.get("id")) {
                let reply = sent.iter().find(|(e, _)| e.answers == Some(asked.seq)).map(|(_, r)| r);
                if let Some(reply) = reply {
                    let given = match reply.get("error") {
                        Some(error) => {
                            Err(serde_json::from_value(error.clone()).unwrap_or_else(|_| refused()))
                        }
                        None => Ok(reply["result"].clone()),
                    };
                    answers.entry(method.to_owned()).or_default().push_back(given);
                }
                continue;
            }
            // 2026-07-28: an input_required result's questions, answered by the retry that
            // sends its requestState back.
            let Some(questions) = f.pointer("/result/inputRequests").and_then(Value::as_object) else {
                continue;
            };
            let state = f.pointer("/result/requestState");
            let retry = sent.iter().find(|(e, r)| {
                e.seq > asked.seq
                    && r.pointer("/params/inputResponses").is_some()
                    && r.pointer("/params/requestState") == state
            });
            let Some((_, retry)) = retry else { continue };
            for (key, question) in questions {
                let (Some(method), Some(given)) = (
                    question["method"].as_str(),
                    retry.pointer(&format!("/params/inputResponses/{}", pointer_key(key))),
                ) else {
                    continue;
                };
                answers.entry(method.to_owned()).or_default().push_back(Ok(given.clone()));
            }
        }
        RecordedAnswers { capabilities, client_info, answers: Arc::new(Mutex::new(answers)) }
    }
}

fn pointer_key(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn refused() -> ErrorObject {
    crate::connection::refused("the recorded client refused it")
}

impl Responder for RecordedAnswers {
    fn capabilities(&self) -> Value {
        self.capabilities.clone()
    }

    fn client_info(&self) -> Option<Value> {
        self.client_info.clone()
    }

    fn answer(&self, method: &str, _params: Option<&Value>) -> Answer {
        if method == "ping" {
            return Answer::Now(Ok(json!({})));
        }
        let next = self.answers.locked().get_mut(method).and_then(VecDeque::pop_front);
        Answer::Now(next.unwrap_or_else(|| {
            Err(ErrorObject {
                code: -32601,
                message: format!("the recorded session has no further answer to {method}"),
                data: None,
            })
        }))
    }
}
