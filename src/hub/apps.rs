//! The MCP Apps open in a front end: each app's resource read from its server and kept per
//! connection, each open app's state, and every message between an app and Sonde recorded in
//! the session log as a `Kind::App` entry, beside the server frames it causes.
//!
//! Owns: opening an app (its resource read and checked, the tools it may call), turning each
//! message from the app into what to post back (a server call made for it, an answer, a question
//! for the window), the host's own notifications, and closing an app with its teardown.
//! Refuses: the frame, the person and the page's transport; the front end posts what it is given.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::{json, Value};

use super::{Hub, HubError};
use crate::apps::bridge::{self, Step};
use crate::apps::{AppAsk, AppNote, AppResource, HostContext};
use crate::connection::RequestError;
use crate::log::{Direction, Entry, Kind};
use crate::sync::Lock;

/// The apps a hub has open, and the resources they were drawn from.
#[derive(Default)]
pub struct Apps {
    next: AtomicU64,
    open: Mutex<HashMap<u64, OpenApp>>,
    /// Each connection's app resources by URI, read once (a reload reads again).
    resources: Mutex<HashMap<(u64, String), Arc<AppResource>>>,
    /// Requests not answered yet, each way, by app, direction and id (as JSON text): the seq of
    /// the request's entry, its method and what it names, which the reply carries in the log,
    /// as a server's reply carries its request's.
    asked: Mutex<HashMap<(u64, Direction, String), Asked>>,
}

/// A request of an app's exchange not answered yet: its entry's seq, its method and what it
/// names.
type Asked = (u64, Option<String>, Option<String>);

struct OpenApp {
    conn: u64,
    resource: Arc<AppResource>,
    /// The listing's tool definitions, for what the app may call.
    tools: Vec<Value>,
    input: Value,
    /// How the call ended, once it has: its result, or why it did not give one.
    // Err is the call's own ending in words, told to the app as they are: data, not a failure.
    ended: Option<Result<Value, String>>,
    /// The app said `ui/notifications/initialized` (since its last `ui/initialize`: a frame that
    /// loaded again starts over): what it is sent now goes at once, and nothing goes before.
    ready: bool,
    /// Its teardown was sent: it answers that, and nothing else of it is acted on.
    closing: bool,
    context: HostContext,
    asks: HashMap<u64, (Value, AppAsk)>,
}

/// The notification that tells an app how its call ended.
fn ending(ended: &Result<Value, String>) -> Value {
    match ended {
        Ok(result) => bridge::tool_result(result),
        Err(why) => bridge::tool_cancelled(why),
    }
}

/// An app opened for the window to draw.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppOpened {
    pub app: u64,
    pub resource: AppResource,
    /// The Content Security Policy the frame's page is served with.
    pub policy: String,
    /// The frame's `allow` attribute: the permissions it declared, and no others.
    pub allow: String,
    /// There is a page to draw (the resource resolved and holds HTML); when not, the findings
    /// say why, and no frame is drawn.
    pub drawable: bool,
}

/// A question for the window, with the id its answer names.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Serialize)]
pub struct AskOf {
    pub id: u64,
    pub ask: AppAsk,
}

/// What one step of an app's conversation gives the window: messages to post to the app, in
/// order, a question to decide, and a line for the app pane.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, Serialize)]
pub struct AppTurn {
    pub post: Vec<String>,
    pub ask: Option<AskOf>,
    pub note: Option<AppNote>,
    /// The app is closed (it answered its teardown, or was never ready for one): its frame goes.
    pub gone: bool,
}

/// A JSON-RPC error as an app reads it, from a request that failed.
fn error_object(e: &RequestError) -> Value {
    match e {
        RequestError::Rpc { error, .. } => serde_json::to_value(error).unwrap_or_else(|_| json!({})),
        other => json!({ "code": -32603, "message": other.to_string() }),
    }
}

impl Hub {
    /// Records a message of app `app` either way. A reply (Sonde's to the app, or the app's to
    /// Sonde) carries its request's method and name, and says which entry it answers.
    fn app_record(&self, app: u64, conn: u64, dir: Direction, text: &str, note: Option<&AppNote>) {
        use crate::wire::Message;
        let mut entry = Entry::new(conn, Kind::App, dir).with_bytes(text.as_bytes());
        let message = Message::decode(text.as_bytes()).ok();
        if let Some(message) = &message {
            entry = crate::connection::with_summary(entry, message);
        }
        let asked_the_other_way = if dir == Direction::In { Direction::Out } else { Direction::In };
        let reply_to = match &message {
            Some(m @ Message::Response { .. }) => m.id().map(|id| (app, asked_the_other_way, id.to_string())),
            _ => None,
        };
        if let Some(asked) = reply_to.and_then(|key| self.apps.asked.locked().remove(&key)) {
            let (seq, method, target) = asked;
            entry.answers = Some(seq);
            if let Some(summary) = entry.summary.as_mut() {
                (summary.method, summary.target) = (method, target);
            }
        }
        if let Some(note) = note {
            entry = entry.with_detail(format!("{}: {}", note.kind, note.text));
        }
        let summary = entry.summary.clone();
        let seq = self.log.append(entry);
        if let (Some(m @ Message::Request { .. }), Some(s)) = (&message, summary) {
            if let Some(id) = m.id() {
                self.apps.asked.locked().insert((app, dir, id.to_string()), (seq, s.method, s.target));
            }
        }
    }

    fn app_send(&self, app: u64, conn: u64, message: Value, turn: &mut AppTurn) {
        let text = message.to_string();
        self.app_record(app, conn, Direction::Out, &text, None);
        turn.post.push(text);
    }

    /// What Sonde or the frame said about an app outside its messages: a `Kind::App` entry of
    /// its own, with no bytes.
    fn app_meta(&self, conn: u64, detail: String) {
        self.log.append(Entry::new(conn, Kind::App, Direction::Meta).with_detail(detail));
    }

    fn app_conn(&self, app: u64) -> Result<u64, HubError> {
        self.apps.open.locked().get(&app).map(|a| a.conn).ok_or(HubError::NoSuchApp(app))
    }

    /// Opens the app of `tool` (its definition) on connection `conn`: the resource is read (or
    /// taken from what this connection read before, unless `reload`) and checked, and the
    /// tools are listed for what the app may call. `input` is the call's, sent to the app once it
    /// is ready, and `result` its result when the call has ended already ([`Hub::app_ended`]
    /// gives it later).
    pub async fn app_open(
        &self,
        conn: u64,
        tool: &Value,
        input: Value,
        result: Option<Value>,
        context: HostContext,
        reload: bool,
    ) -> Result<AppOpened, HubError> {
        let session = self.session(conn)?;
        let uri = crate::apps::tool::app_link(tool)
            .and_then(|l| l.resource_uri)
            .ok_or_else(|| HubError::NotAnApp("the tool names no app (`_meta.ui.resourceUri`)".into()))?;
        let key = (conn, uri.clone());
        let kept = if reload { None } else { self.apps.resources.locked().get(&key).cloned() };
        let resource = match kept {
            Some(r) => r,
            None => {
                let resource = Arc::new(self.app_read(&session, &uri).await);
                self.apps.resources.locked().insert(key, resource.clone());
                resource
            }
        };
        let tools = session.list_tools().await.map(|l| l.items).unwrap_or_default();
        let app = self.apps.next.fetch_add(1, Ordering::Relaxed) + 1;
        let opened = AppOpened {
            app,
            resource: (*resource).clone(),
            policy: resource.policy(),
            allow: resource.permissions.allow(),
            drawable: resource.drawable(),
        };
        let ended = result.map(Ok);
        let open = OpenApp {
            conn,
            resource,
            tools,
            input,
            ended,
            ready: false,
            closing: false,
            context,
            asks: HashMap::new(),
        };
        let live: Vec<u64> = self.live.locked().keys().copied().collect();
        self.apps.forget_ended(&live);
        self.apps.open.locked().insert(app, open);
        Ok(opened)
    }

    /// Reads an app's resource and records its findings, as a note on the connection, where
    /// the diagnostics find them.
    async fn app_read(&self, session: &crate::session::Session, uri: &str) -> AppResource {
        let resource = session.read_app(uri, None).await;
        let words = match resource.findings.len() {
            0 => format!("app resource {uri} checked: nothing wrong"),
            n => format!("app resource {uri} checked: {n} finding(s)"),
        };
        let mut entry = Entry::new(session.conn.id(), Kind::Note, Direction::Meta).with_detail(words);
        entry.findings = resource.findings.clone();
        self.log.append(entry);
        resource
    }

    /// The page of an open app, for the frame's own origin: its HTML and the policy it is
    /// served with.
    pub fn app_page(&self, app: u64) -> Option<(String, String)> {
        let open = self.apps.open.locked();
        let app = open.get(&app)?;
        Some((app.resource.html.clone(), app.resource.policy()))
    }

    /// One message from an app: recorded, then answered. A request the server answers is sent
    /// to it (recorded as any frame) and its answer posted back.
    pub async fn app_message(&self, app: u64, text: &str) -> Result<AppTurn, HubError> {
        let (conn, step, note) = {
            let mut open = self.apps.open.locked();
            let a = open.get_mut(&app).ok_or(HubError::NoSuchApp(app))?;
            if a.closing {
                let conn = a.conn;
                let answered = bridge::answers_teardown(text, app);
                let note = (!answered).then(|| AppNote {
                    kind: "refused".into(),
                    text: "sent after its teardown: not acted on".into(),
                });
                if answered {
                    open.remove(&app);
                }
                drop(open);
                self.app_record(app, conn, Direction::In, text, note.as_ref());
                return Ok(AppTurn { note, gone: answered, ..AppTurn::default() });
            }
            let tools = &a.tools;
            let may_call = |name: &str| crate::apps::tool::app_may_call(tools, name);
            let (step, note) = bridge::from_app(text, may_call, &a.context);
            if matches!(&step, Step::Reply(r) if r.pointer("/result/hostContext").is_some()) {
                a.ready = false;
            }
            (a.conn, step, note)
        };
        self.app_record(app, conn, Direction::In, text, note.as_ref());
        let mut turn = AppTurn { note, ..AppTurn::default() };
        match step {
            Step::Reply(reply) => self.app_send(app, conn, reply, &mut turn),
            Step::Forward { id, method, params } => {
                let outcome = match self.session(conn) {
                    Ok(session) => session.request(&method, Some(params)).await.map_err(|e| error_object(&e)),
                    Err(e) => Err(json!({ "code": -32603, "message": e.to_string() })),
                };
                self.app_send(app, conn, bridge::forwarded(&id, outcome), &mut turn);
            }
            Step::Ask { id, ask } => {
                let mut open = self.apps.open.locked();
                let a = open.get_mut(&app).ok_or(HubError::NoSuchApp(app))?;
                let asked = self.apps.next.fetch_add(1, Ordering::Relaxed) + 1;
                if let Some(id) = id {
                    a.asks.insert(asked, (id, ask.clone()));
                }
                turn.ask = Some(AskOf { id: asked, ask });
            }
            Step::Ready => {
                let told = {
                    let mut open = self.apps.open.locked();
                    let a = open.get_mut(&app).ok_or(HubError::NoSuchApp(app))?;
                    // Once per `ui/initialize`: the input and how the call ended, at most once.
                    let first = !std::mem::replace(&mut a.ready, true);
                    first.then(|| (a.input.clone(), a.ended.clone()))
                };
                if let Some((input, ended)) = told {
                    self.app_send(app, conn, bridge::tool_input(&input), &mut turn);
                    if let Some(ended) = ended {
                        self.app_send(app, conn, ending(&ended), &mut turn);
                    }
                }
            }
            Step::Nothing => {}
        }
        Ok(turn)
    }

    /// The app's call ended: with its result, or without one (`Err`: it failed or was
    /// cancelled, and why), told to the app now if it is ready, else once it is.
    // `ended`'s Err is the words the front end had for the call's end, passed on to the app.
    pub fn app_ended(&self, app: u64, ended: Result<Value, String>) -> Result<AppTurn, HubError> {
        let (conn, ready) = {
            let mut open = self.apps.open.locked();
            let a = open.get_mut(&app).ok_or(HubError::NoSuchApp(app))?;
            a.ended = Some(ended.clone());
            (a.conn, a.ready)
        };
        let mut turn = AppTurn::default();
        if ready {
            self.app_send(app, conn, ending(&ended), &mut turn);
        }
        Ok(turn)
    }

    /// The window's decision on a question an app asked (`granted`: whether a link opened,
    /// the display mode given), answered to the app.
    pub fn app_answer(&self, app: u64, ask: u64, granted: Value) -> Result<AppTurn, HubError> {
        let (conn, asked) = {
            let mut open = self.apps.open.locked();
            let a = open.get_mut(&app).ok_or(HubError::NoSuchApp(app))?;
            (a.conn, a.asks.remove(&ask))
        };
        let mut turn = AppTurn::default();
        if let Some(reply) = asked.and_then(|(id, asked)| bridge::answered(&id, &asked, &granted)) {
            self.app_send(app, conn, reply, &mut turn);
        }
        Ok(turn)
    }

    /// The window's context changed (theme, display mode, size): kept, and sent to the app once
    /// it is ready (before, `ui/initialize` gives it the context as it is then).
    pub fn app_context(&self, app: u64, changed: Value) -> Result<AppTurn, HubError> {
        let (conn, ready) = {
            let mut open = self.apps.open.locked();
            let a = open.get_mut(&app).ok_or(HubError::NoSuchApp(app))?;
            if let (Some(kept), Some(changed)) = (a.context.0.as_object_mut(), changed.as_object()) {
                kept.extend(changed.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            (a.conn, a.ready && !a.closing)
        };
        let mut turn = AppTurn::default();
        if ready {
            self.app_send(app, conn, bridge::context_changed(&changed), &mut turn);
        }
        Ok(turn)
    }

    /// What the frame itself reported (a console error, a policy violation, messages dropped
    /// in a flood): recorded as the app's, with no message of its own.
    pub fn app_note(&self, app: u64, what: &str) -> Result<(), HubError> {
        let conn = self.app_conn(app)?;
        self.app_meta(conn, what.chars().take(2000).collect());
        Ok(())
    }

    /// Messages of the app the window dropped in a flood: how many, recorded as one refusal,
    /// and each dropped request (as far as the window kept them) recorded and answered with an
    /// error, so the app waits for no answer that will never come.
    pub fn app_dropped(&self, app: u64, count: u64, requests: Vec<String>) -> Result<AppTurn, HubError> {
        let conn = self.app_conn(app)?;
        let text =
            format!("{count} message(s) from the app dropped: it sent faster than the window takes them");
        let note = AppNote { kind: "refused".into(), text };
        self.app_meta(conn, format!("{}: {}", note.kind, note.text));
        let mut turn = AppTurn { note: Some(note), ..AppTurn::default() };
        let dropped = AppNote { kind: "refused".into(), text: "dropped in a flood".into() };
        for request in requests {
            self.app_record(app, conn, Direction::In, &request, Some(&dropped));
            if let Some(reply) = bridge::dropped(&request) {
                self.app_send(app, conn, reply, &mut turn);
            }
        }
        Ok(turn)
    }

    /// Closes an app: its teardown request (`ui/resource-teardown`, with why), to post while
    /// its frame is still there; the app is gone once it answers ([`Hub::app_message`] says so)
    /// or the window gives up ([`Hub::app_forget`]). An app not yet ready is gone at once: it
    /// may be sent nothing.
    pub fn app_close(&self, app: u64, reason: &str) -> Result<AppTurn, HubError> {
        let mut open = self.apps.open.locked();
        let a = open.get_mut(&app).ok_or(HubError::NoSuchApp(app))?;
        let conn = a.conn;
        let mut turn = AppTurn::default();
        if !a.ready {
            open.remove(&app);
            turn.gone = true;
        } else if !std::mem::replace(&mut a.closing, true) {
            drop(open);
            self.app_send(app, conn, bridge::teardown(app, reason), &mut turn);
        }
        Ok(turn)
    }

    /// Forgets an app whose frame is gone (or goes now), saying why in the log when it was
    /// still open: it did not answer its teardown in time, or its pane closed with the window.
    pub fn app_forget(&self, app: u64, why: &str) {
        if let Some(a) = self.apps.open.locked().remove(&app) {
            self.app_meta(a.conn, format!("the app was closed: {why}"));
        }
        self.apps.asked.locked().retain(|(of, _, _), _| *of != app);
    }
}

impl Apps {
    /// Forgets the apps and resources of connections not in `live`: an app of a connection that
    /// ended is served no more.
    fn forget_ended(&self, live: &[u64]) {
        let mut open = self.open.locked();
        open.retain(|_, a| live.contains(&a.conn));
        self.asked.locked().retain(|(app, _, _), _| open.contains_key(app));
        self.resources.locked().retain(|(conn, _), _| live.contains(conn));
    }
}
