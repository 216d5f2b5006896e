//! Server requests that a person answers: elicitation (a form) and sampling (a reply to write).
//!
//! Owns: the questions waiting for the UI, numbered, each with the channel its answer goes back
//! on, and the responder every connection of the app gets. `ping` and `roots/list` are answered
//! at once from the saved server's settings; the connection never waits on the person.
//! Refuses: presentation (the UI renders the question) and the protocol (the connection sends
//! the reply when it comes).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::{json, Value};
use sonde_core::connection::{Answer, BasicResponder, Responder};
use sonde_core::wire::ErrorObject;
use tauri::ipc::Channel;
use tokio::sync::oneshot;

/// A server request waiting for the person at the keyboard.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerQuestion {
    /// Names the question in the answer.
    pub qid: u64,
    /// The connection that asked.
    pub conn: u64,
    pub method: String,
    pub params: Value,
}

type Reply = Result<Value, ErrorObject>;

/// The questions waiting, and where new ones are shown.
#[derive(Default)]
pub struct Questions {
    next: AtomicU64,
    waiting: Mutex<HashMap<u64, oneshot::Sender<Reply>>>,
    ui: Mutex<Option<Channel<ServerQuestion>>>,
}

impl Questions {
    /// New questions go to this channel (the window's) from now on.
    pub fn show_on(&self, channel: Channel<ServerQuestion>) {
        *self.ui.lock().unwrap() = Some(channel);
    }

    /// Hands the person's answer to the connection that asked. False if no such question is
    /// waiting (answered already, or its connection is gone).
    pub fn answer(&self, qid: u64, reply: Reply) -> bool {
        match self.waiting.lock().unwrap().remove(&qid) {
            Some(waiting) => waiting.send(reply).is_ok(),
            None => false,
        }
    }

    /// Asks the UI; `None` when no window is listening.
    fn ask(&self, conn: u64, method: &str, params: Option<&Value>) -> Option<oneshot::Receiver<Reply>> {
        let ui = self.ui.lock().unwrap();
        let channel = ui.as_ref()?;
        let qid = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = oneshot::channel();
        self.waiting.lock().unwrap().insert(qid, tx);
        let question = ServerQuestion {
            qid,
            conn,
            method: method.to_owned(),
            params: params.cloned().unwrap_or(Value::Null),
        };
        if channel.send(question).is_err() {
            self.waiting.lock().unwrap().remove(&qid);
            return None;
        }
        Some(rx)
    }
}

/// The responder of the app's connections.
pub struct UiResponder {
    conn: u64,
    fixed: BasicResponder,
    questions: Arc<Questions>,
}

impl UiResponder {
    pub fn new(conn: u64, fixed: BasicResponder, questions: Arc<Questions>) -> UiResponder {
        UiResponder { conn, fixed, questions }
    }
}

impl Responder for UiResponder {
    fn capabilities(&self) -> Value {
        let mut caps = self.fixed.capabilities();
        caps["elicitation"] = json!({ "form": {} });
        caps["sampling"] = json!({});
        caps
    }

    fn answer(&self, method: &str, params: Option<&Value>) -> Answer {
        if !matches!(method, "elicitation/create" | "sampling/createMessage") {
            return self.fixed.answer(method, params);
        }
        let Some(asked) = self.questions.ask(self.conn, method, params) else {
            return Answer::Now(nobody_there(method));
        };
        let method = method.to_owned();
        Answer::Later(Box::pin(async move { asked.await.unwrap_or_else(|_| nobody_there(&method)) }))
    }
}

/// What a server gets when no one can answer: elicitation is dismissed, sampling refused.
fn nobody_there(method: &str) -> Reply {
    if method == "elicitation/create" {
        Ok(json!({ "action": "cancel" }))
    } else {
        Err(ErrorObject {
            code: -1,
            message: "no one is there to answer the sampling request".into(),
            data: None,
        })
    }
}
