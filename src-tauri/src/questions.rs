//! Server requests that a person answers: elicitation (a form, or a link to open) and sampling
//! (a reply to write).
//!
//! Owns: the questions waiting for the UI, numbered, each with its connection and the channel its
//! answer goes back on; the limit of [`MAX_OPEN`] waiting per connection (a question past it is
//! declined at once, with a note in the wire log); declining all of a connection's questions;
//! forgetting them when the connection ends; the links (URL elicitations) whose completion the
//! window waits for, and telling it when the server says one is complete; and the responder
//! every connection of the app gets. `ping` and `roots/list` are answered at once (the roots
//! from the saved server's settings, changeable while connected); the connection never waits on
//! the person.
//! Refuses: presentation (the UI renders the question) and the protocol (the connection sends
//! the reply when it comes).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::{json, Value};
use sonde_core::connection::{Answer, BasicResponder, Responder};
use sonde_core::log::{Direction, Entry, Kind, WireLog};
use sonde_core::url_elicitation::{Awaiting, LinksRequired, UrlElicitation};
use sonde_core::wire::ErrorObject;
use tauri::ipc::Channel;
use tokio::sync::oneshot;

/// How many questions of one connection may wait for the person at once. A server that asks
/// more (a loop, or a hostile one asking a hundred at once) has the rest declined, so the window
/// never fills with questions and the person can still reach everything else.
pub const MAX_OPEN: usize = 8;

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
    /// What keeps an elicitation's `requestedSchema` from being read as a form, or a URL-mode
    /// elicitation from being shown, in words (the core's checks); empty when nothing does.
    pub problems: Vec<String>,
    /// A URL-mode elicitation as the core reads it: the link to show, and what is suspicious
    /// about it. `null` for a form, and for sampling.
    pub link: Option<UrlElicitation>,
}

/// What the window hears about server questions.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum QuestionEvent {
    /// A question for the person.
    Asked { question: Box<ServerQuestion> },
    /// A question declined at once: its connection already had `limit` waiting. `declined`
    /// counts the questions of that connection declined so far for this reason.
    Declined { conn: u64, method: String, declined: u64, limit: u64 },
    /// Questions that no longer wait: the person declined them all, or their connection ended.
    Withdrawn { qids: Vec<u64>, reason: String },
    /// The server said a link it asked the person to open (an accepted URL elicitation, or one
    /// a `-32042` error listed) is done: `notifications/elicitation/complete`.
    LinkCompleted {
        conn: u64,
        #[serde(rename = "elicitationId")]
        elicitation_id: String,
    },
}

type Reply = Result<Value, ErrorObject>;

/// One question waiting for its answer.
struct Waiting {
    conn: u64,
    method: String,
    /// A URL elicitation's id: once the person accepts it, its completion is awaited.
    link_id: Option<String>,
    reply: oneshot::Sender<Reply>,
}

/// The questions waiting, and where new ones are shown.
pub struct Questions {
    log: Arc<WireLog>,
    next: AtomicU64,
    waiting: Mutex<HashMap<u64, Waiting>>,
    /// Per connection, how many questions were declined for being over the limit.
    declined: Mutex<HashMap<u64, u64>>,
    /// Links whose completion the window waits for.
    links: Awaiting,
    ui: Mutex<Option<Channel<QuestionEvent>>>,
}

impl Questions {
    /// Questions whose notes (a question declined for the limit, all declined at once) go to `log`.
    pub fn new(log: Arc<WireLog>) -> Questions {
        Questions {
            log,
            next: AtomicU64::new(0),
            waiting: Mutex::new(HashMap::new()),
            declined: Mutex::new(HashMap::new()),
            links: Awaiting::default(),
            ui: Mutex::new(None),
        }
    }

    /// New questions go to this channel (the window's) from now on.
    pub fn show_on(&self, channel: Channel<QuestionEvent>) {
        *self.ui.lock().unwrap() = Some(channel);
    }

    /// Hands the person's answer to the connection that asked. False if no such question is
    /// waiting (answered already, or its connection is gone).
    pub fn answer(&self, qid: u64, reply: Reply) -> bool {
        let Some(waiting) = self.waiting.lock().unwrap().remove(&qid) else { return false };
        let accepted = matches!(&reply, Ok(result) if result["action"] == "accept");
        if let (Some(id), true) = (&waiting.link_id, accepted) {
            self.links.expect(waiting.conn, id);
        }
        waiting.reply.send(reply).is_ok()
    }

    /// A `-32042` error of connection `conn` listed these links: the window shows them and waits
    /// for their completion.
    pub fn expect_links(&self, conn: u64, required: &LinksRequired) {
        for id in required.elicitations.iter().filter_map(|e| e.elicitation_id.as_deref()) {
            self.links.expect(conn, id);
        }
    }

    /// The server of connection `conn` said link `id` is complete: the window hears it when the
    /// link was awaited; an unknown or already completed id is ignored, as the spec says.
    pub fn link_completed(&self, conn: u64, id: &str) {
        if !self.links.complete(conn, id) {
            return;
        }
        if let Some(ui) = self.ui.lock().unwrap().as_ref() {
            let _ = ui.send(QuestionEvent::LinkCompleted { conn, elicitation_id: id.to_owned() });
        }
    }

    /// Declines every question of connection `conn` still waiting, as the person asked: an
    /// elicitation gets `decline`, a sampling request a refusal. Returns how many.
    pub fn decline_all(&self, conn: u64) -> usize {
        let gone = self.take_connection(conn);
        let qids: Vec<u64> = gone.iter().map(|(qid, _)| *qid).collect();
        for (_, waiting) in gone {
            let reply = if waiting.method == "elicitation/create" {
                Ok(json!({ "action": "decline" }))
            } else {
                Err(ErrorObject { code: -1, message: "the user declined the request".into(), data: None })
            };
            // The connection may have ended meanwhile; then no one hears it, and that is fine.
            let _ = waiting.reply.send(reply);
        }
        if !qids.is_empty() {
            let count = qids.len();
            self.note(conn, format!("the person declined all {count} waiting questions of this connection"));
        }
        let count = qids.len();
        self.withdraw(qids, "declined all from this server");
        count
    }

    /// Drops every question of connection `conn` (it ended) and tells the window to remove them.
    /// A question dropped unanswered resolves as "no one is there" for whoever still waits.
    pub fn forget_connection(&self, conn: u64) {
        let gone = self.take_connection(conn);
        self.declined.lock().unwrap().remove(&conn);
        self.links.forget_connection(conn);
        self.withdraw(gone.into_iter().map(|(qid, _)| qid).collect(), "the connection ended");
    }

    /// Removes and returns the waiting questions of `conn`, oldest first.
    fn take_connection(&self, conn: u64) -> Vec<(u64, Waiting)> {
        let mut waiting = self.waiting.lock().unwrap();
        let mut qids: Vec<u64> = waiting.iter().filter(|(_, w)| w.conn == conn).map(|(&q, _)| q).collect();
        qids.sort_unstable();
        qids.into_iter().filter_map(|qid| waiting.remove(&qid).map(|w| (qid, w))).collect()
    }

    fn withdraw(&self, qids: Vec<u64>, reason: &str) {
        if qids.is_empty() {
            return;
        }
        if let Some(ui) = self.ui.lock().unwrap().as_ref() {
            let _ = ui.send(QuestionEvent::Withdrawn { qids, reason: reason.into() });
        }
    }

    fn note(&self, conn: u64, detail: String) {
        self.log.append(Entry::new(conn, Kind::Note, Direction::Meta).with_detail(detail));
    }

    /// Asks the UI. `Now` with the reply when the question cannot be asked: no window is
    /// listening, or the connection already has [`MAX_OPEN`] questions waiting.
    fn ask(
        &self,
        conn: u64,
        method: &str,
        params: Option<&Value>,
    ) -> Result<oneshot::Receiver<Reply>, Reply> {
        let ui = self.ui.lock().unwrap();
        let Some(channel) = ui.as_ref() else { return Err(nobody_there(method)) };
        let mut waiting = self.waiting.lock().unwrap();
        if waiting.values().filter(|w| w.conn == conn).count() >= MAX_OPEN {
            drop(waiting);
            let declined = {
                let mut all = self.declined.lock().unwrap();
                let count = all.entry(conn).or_default();
                *count += 1;
                *count
            };
            self.note(
                conn,
                format!(
                    "declined {method} at once: {MAX_OPEN} questions of this connection already wait for \
                     the person (Sonde's limit); {declined} declined so far"
                ),
            );
            let _ = channel.send(QuestionEvent::Declined {
                conn,
                method: method.to_owned(),
                declined,
                limit: MAX_OPEN as u64,
            });
            return Err(Err(ErrorObject {
                code: -1,
                message: format!(
                    "Sonde declined this {method}: {MAX_OPEN} questions from this server already wait \
                     for an answer"
                ),
                data: None,
            }));
        }
        let qid = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let params = params.cloned().unwrap_or(Value::Null);
        let elicitation = method == "elicitation/create";
        let (link, problems) = match UrlElicitation::from_params(Some(&params)) {
            Some(Ok(link)) if elicitation => (Some(link), Vec::new()),
            Some(Err(why)) if elicitation => (None, vec![why]),
            _ => match params.get("requestedSchema") {
                Some(schema) if elicitation => {
                    (None, sonde_core::shape::schema_problems(schema, "requestedSchema"))
                }
                _ => (None, Vec::new()),
            },
        };
        let link_id = link.as_ref().and_then(|l| l.elicitation_id.clone());
        let (tx, rx) = oneshot::channel();
        waiting.insert(qid, Waiting { conn, method: method.to_owned(), link_id, reply: tx });
        drop(waiting);
        let question = ServerQuestion { qid, conn, method: method.to_owned(), params, problems, link };
        if channel.send(QuestionEvent::Asked { question: Box::new(question) }).is_err() {
            self.waiting.lock().unwrap().remove(&qid);
            return Err(nobody_there(method));
        }
        Ok(rx)
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
        caps["elicitation"] = json!({ "form": {}, "url": {} });
        caps["sampling"] = json!({});
        caps
    }

    fn answer(&self, method: &str, params: Option<&Value>) -> Answer {
        if !matches!(method, "elicitation/create" | "sampling/createMessage") {
            return self.fixed.answer(method, params);
        }
        match self.questions.ask(self.conn, method, params) {
            Err(now) => Answer::Now(now),
            Ok(asked) => {
                let method = method.to_owned();
                Answer::Later(Box::pin(async move { asked.await.unwrap_or_else(|_| nobody_there(&method)) }))
            }
        }
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
