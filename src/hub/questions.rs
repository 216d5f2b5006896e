//! Server requests that a person answers: elicitation (a form, or a link to open) and sampling
//! (a reply to write), for a front end with someone at the keyboard (the window).
//!
//! Owns: the questions waiting, numbered, each with its connection and the channel its answer
//! goes back on; the limit of [`MAX_OPEN_QUESTIONS`] waiting per connection (a question past it is
//! declined at once, with a note in the wire log); declining all of a connection's questions;
//! forgetting them when the connection stops or ends (whoever ended it); the links (URL
//! elicitations) whose completion is awaited, and saying when the server reports one complete;
//! and the responder of every connection of a hub that asks a person ([`Hub::with_questions`]).
//! `ping` and `roots/list` are answered at once; the connection never waits on the person.
//! Refuses: presentation (the front end shows the question, from [`Questions::feed`]) and the
//! wire (the connection sends the reply when it comes).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::Value;
use tokio::sync::{broadcast, oneshot};

use super::{ConnState, Hub};
use crate::connection::{
    elicitation_capability, refused, sampling_capability, Answer, BasicResponder, ElicitAnswer, RequestError,
    Responder,
};
use crate::feed::Feed;
use crate::log::{Direction, Entry, Filter, Kind, WireLog};
use crate::session::notices::{notice_of, Notice, Noticed, Notices};
use crate::sync::Lock;
use crate::url_elicitation::{completed_id, links_required, Awaiting, UrlElicitation};
use crate::wire::ErrorObject;

/// How many questions of one connection may wait for the person at once. A server that asks
/// more (a loop, or a hostile one asking a hundred at once) has the rest declined, so the window
/// never fills with questions and the person can still reach everything else.
pub const MAX_OPEN_QUESTIONS: usize = 8;

/// A server request waiting for the person at the keyboard.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Serialize)]
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

/// What a front end hears about server questions.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Serialize)]
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
    question: ServerQuestion,
    /// A URL elicitation's id: once the person accepts it, its completion is awaited.
    link_id: Option<String>,
    reply: oneshot::Sender<Reply>,
}

/// The questions waiting, and the feed that shows them.
pub struct Questions {
    log: Arc<WireLog>,
    next: AtomicU64,
    waiting: Mutex<HashMap<u64, Waiting>>,
    /// Per connection, how many questions were declined for being over the limit.
    declined: Mutex<HashMap<u64, u64>>,
    /// Links whose completion the person waits for.
    links: Awaiting,
    /// Every event, to whoever follows; with no follower, nobody is there to ask.
    events: broadcast::Sender<QuestionEvent>,
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
            events: broadcast::channel(1024).0,
        }
    }

    /// The questions waiting now (as `Asked`, oldest first), then every event as it happens.
    /// While no one follows, a question is not asked: the server gets the answer of nobody there.
    pub fn feed(self: &Arc<Self>) -> Feed<QuestionEvent> {
        let events = self.events.subscribe();
        let questions = self.clone();
        Feed::new(events, move || questions.waiting_now(), Some)
    }

    fn waiting_now(&self) -> Vec<QuestionEvent> {
        let waiting = self.waiting.locked();
        let mut questions: Vec<&ServerQuestion> = waiting.values().map(|w| &w.question).collect();
        questions.sort_unstable_by_key(|q| q.qid);
        questions.into_iter().map(|q| QuestionEvent::Asked { question: Box::new(q.clone()) }).collect()
    }

    /// Hands the person's answer to the connection that asked. False if no such question is
    /// waiting (answered already, or its connection is gone).
    pub fn answer(&self, qid: u64, reply: Reply) -> bool {
        let Some(waiting) = self.waiting.locked().remove(&qid) else { return false };
        let accepted = matches!(&reply, Ok(result) if result["action"] == "accept");
        if let (Some(id), true) = (&waiting.link_id, accepted) {
            self.links.expect(waiting.question.conn, id);
        }
        waiting.reply.send(reply).is_ok()
    }

    /// A request of connection `conn` failed: when the error is a `-32042` listing links (the
    /// front end shows them with the error), their completion is awaited.
    pub fn expect_links_of(&self, conn: u64, error: &RequestError) {
        let RequestError::Rpc { error, .. } = error else { return };
        let Some(links) = links_required(error) else { return };
        for id in links.elicitations.iter().filter_map(|e| e.elicitation_id.as_deref()) {
            self.links.expect(conn, id);
        }
    }

    /// The server of connection `conn` said link `id` is complete: followers hear it when the
    /// link was awaited; an unknown or already completed id is ignored, as the spec says.
    pub fn link_completed(&self, conn: u64, id: &str) {
        if self.links.complete(conn, id) {
            self.tell(QuestionEvent::LinkCompleted { conn, elicitation_id: id.to_owned() });
        }
    }

    /// Declines every question of connection `conn` still waiting, as the person asked: an
    /// elicitation gets `decline`, a sampling request a refusal. Returns how many.
    pub fn decline_all(&self, conn: u64) -> usize {
        let gone = self.take_connection(conn);
        let qids: Vec<u64> = gone.iter().map(|(qid, _)| *qid).collect();
        for (_, waiting) in gone {
            let reply = if waiting.question.method == "elicitation/create" {
                Ok(ElicitAnswer::Decline.reply(None))
            } else {
                Err(refused("the user declined the request"))
            };
            // The connection may have ended meanwhile; then no one hears it, and that is fine.
            let _ = waiting.reply.send(reply);
        }
        let count = qids.len();
        if count > 0 {
            self.note(conn, format!("the person declined all {count} waiting questions of this connection"));
        }
        self.withdraw(qids, "declined all from this server");
        count
    }

    /// Drops every question of connection `conn` (it stopped or ended) and tells followers to
    /// remove them. A question dropped unanswered resolves as "no one is there" for whoever
    /// still waits.
    pub fn forget_connection(&self, conn: u64) {
        let gone = self.take_connection(conn);
        self.declined.locked().remove(&conn);
        self.links.forget_connection(conn);
        self.withdraw(gone.into_iter().map(|(qid, _)| qid).collect(), "the connection ended");
    }

    /// Keeps the inbox true for as long as the hub runs: a connection that is stopping or has
    /// ended asks nothing more, and a link's completion reaches the person. The front end that
    /// made the hub runs this on its runtime.
    pub async fn keep(self: Arc<Self>, hub: Hub) {
        tokio::join!(self.forget_ended(&hub), self.pass_on_completions(&hub));
    }

    /// Forgets the questions of every connection as soon as the core reports it stopping or
    /// ended, whoever ended it: the user's Stop, a restart, or the server.
    async fn forget_ended(&self, hub: &Hub) {
        let ends = |state: &ConnState| state.is_final() || matches!(state, ConnState::Stopping { .. });
        let mut states = hub.states().feed();
        let mut events = states.now();
        loop {
            for event in events.iter().filter(|e| ends(&e.state)) {
                self.forget_connection(event.conn);
            }
            match states.next().await {
                Some(next) => events = next,
                None => return,
            }
        }
    }

    /// Hands every `notifications/elicitation/complete` a server sends to [`Self::link_completed`],
    /// which ignores the links no one waits for. Runs as long as the log.
    async fn pass_on_completions(&self, hub: &Hub) {
        let pass_on = |notice: &Notice| {
            if let Some(id) = completed_id(&notice.method, Some(&notice.params)) {
                self.link_completed(notice.conn, id);
            }
        };
        let mut notices = Notices::follow(hub.log());
        while let Some(noticed) = notices.next().await {
            match noticed {
                Noticed::Notice(notice) => pass_on(&notice),
                // Entries went by unread: the log has every completion; one passed on again is
                // ignored, as a completion of a link no longer awaited always is.
                Noticed::Skipped(_) => {
                    let filter = Filter::parse("dir:in method:notifications/elicitation/complete")
                        .expect("a fixed filter parses");
                    for entry in hub.log().entries(&filter).unwrap_or_default() {
                        if let Some(notice) = notice_of(&entry) {
                            pass_on(&notice);
                        }
                    }
                }
            }
        }
    }

    /// Removes and returns the waiting questions of `conn`, oldest first.
    fn take_connection(&self, conn: u64) -> Vec<(u64, Waiting)> {
        let mut waiting = self.waiting.locked();
        let mut qids: Vec<u64> =
            waiting.iter().filter(|(_, w)| w.question.conn == conn).map(|(&q, _)| q).collect();
        qids.sort_unstable();
        qids.into_iter().filter_map(|qid| waiting.remove(&qid).map(|w| (qid, w))).collect()
    }

    fn withdraw(&self, qids: Vec<u64>, reason: &str) {
        if !qids.is_empty() {
            self.tell(QuestionEvent::Withdrawn { qids, reason: reason.into() });
        }
    }

    /// Tells every follower; none following is no error (the next question finds it out).
    fn tell(&self, event: QuestionEvent) {
        let _ = self.events.send(event);
    }

    fn note(&self, conn: u64, detail: String) {
        self.log.append(Entry::new(conn, Kind::Note, Direction::Meta).with_detail(detail));
    }

    /// Asks the person. `Err` with the reply when the question cannot be asked: no one follows,
    /// or the connection already has [`MAX_OPEN_QUESTIONS`] questions waiting.
    fn ask(
        &self,
        conn: u64,
        method: &str,
        params: Option<&Value>,
    ) -> Result<oneshot::Receiver<Reply>, Reply> {
        let mut waiting = self.waiting.locked();
        if self.events.receiver_count() == 0 {
            return Err(nobody_there(method));
        }
        if waiting.values().filter(|w| w.question.conn == conn).count() >= MAX_OPEN_QUESTIONS {
            drop(waiting);
            return Err(self.decline_over_limit(conn, method));
        }
        let qid = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let params = params.cloned().unwrap_or(Value::Null);
        let (link, problems) = read_question(method, &params);
        let link_id = link.as_ref().and_then(|l| l.elicitation_id.clone());
        let question = ServerQuestion { qid, conn, method: method.to_owned(), params, problems, link };
        let (tx, rx) = oneshot::channel();
        waiting.insert(qid, Waiting { question: question.clone(), link_id, reply: tx });
        // Sent under the lock, so a follower's snapshot and this event never both miss it.
        if self.events.send(QuestionEvent::Asked { question: Box::new(question) }).is_err() {
            waiting.remove(&qid);
            return Err(nobody_there(method));
        }
        Ok(rx)
    }

    /// Declines a question over the per-connection limit, with a note and an event saying so.
    fn decline_over_limit(&self, conn: u64, method: &str) -> Reply {
        let declined = {
            let mut all = self.declined.locked();
            let count = all.entry(conn).or_default();
            *count += 1;
            *count
        };
        self.note(
            conn,
            format!(
                "declined {method} at once: {MAX_OPEN_QUESTIONS} questions of this connection already wait for \
                 the person (Sonde's limit); {declined} declined so far"
            ),
        );
        self.tell(QuestionEvent::Declined {
            conn,
            method: method.to_owned(),
            declined,
            limit: MAX_OPEN_QUESTIONS as u64,
        });
        let why = format!(
            "Sonde declined this {method}: {MAX_OPEN_QUESTIONS} questions from this server already wait for an answer"
        );
        Err(refused(why))
    }
}

/// What keeps a question from being shown as asked (the core's checks), and its link when it
/// is a URL-mode elicitation.
fn read_question(method: &str, params: &Value) -> (Option<UrlElicitation>, Vec<String>) {
    if method != "elicitation/create" {
        return (None, Vec::new());
    }
    match UrlElicitation::from_params(Some(params)) {
        Some(Ok(link)) => (Some(link), Vec::new()),
        Some(Err(why)) => (None, vec![why]),
        None => match params.get("requestedSchema") {
            Some(schema) => (None, crate::shape::schema_problems(schema, "requestedSchema")),
            None => (None, Vec::new()),
        },
    }
}

/// What a server gets when no one can answer: elicitation is dismissed, sampling refused.
fn nobody_there(method: &str) -> Reply {
    if method == "elicitation/create" {
        Ok(ElicitAnswer::Cancel.reply(None))
    } else {
        Err(refused("no one is there to answer the sampling request"))
    }
}

/// The responder of a connection whose elicitations and sampling requests go to a person;
/// everything else is answered from the connection's fixed answers.
pub struct PersonResponder {
    conn: u64,
    fixed: BasicResponder,
    questions: Arc<Questions>,
}

impl PersonResponder {
    pub fn new(conn: u64, fixed: BasicResponder, questions: Arc<Questions>) -> PersonResponder {
        PersonResponder { conn, fixed, questions }
    }
}

impl Responder for PersonResponder {
    fn capabilities(&self) -> Value {
        let mut caps = self.fixed.capabilities();
        caps["elicitation"] = elicitation_capability(true);
        caps["sampling"] = sampling_capability();
        // A person's front end draws MCP Apps.
        crate::apps::declare(&mut caps);
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
