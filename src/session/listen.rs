//! Subscriptions to what changes on a server: list changes and resource updates, in either era,
//! as one stream that can be stopped.
//!
//! 2025-11-25: list changes arrive unasked, and `resources/subscribe` asks for a resource's
//! updates (`resources/unsubscribe` stops them). 2026-07-28: one long-lived
//! `subscriptions/listen` request opts into each kind; its notifications carry its id as
//! `subscriptionId`, the server acknowledges first and may end it by answering the request;
//! Sonde stops it by cancelling the request.
//!
//! Owns: starting and stopping a subscription, and telling its notifications from everything
//! else on the wire (the live wire log holds every frame, in order).
//! Refuses: presentation.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;

use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::watch;

use super::notices::{notice_of, Notice, NoticeKind};
use crate::connection::{Request, RequestError, Status, LISTEN};
use crate::era::Era;
use crate::log::{Follow, Followed};
use crate::session::Session;
use crate::wire::RequestId;

/// What a subscription asks for; with nothing asked, every change notification is heard.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ListenSpec {
    #[serde(default)]
    pub tools: bool,
    #[serde(default)]
    pub prompts: bool,
    #[serde(default)]
    pub resources: bool,
    /// Resources whose updates are asked for.
    #[serde(default)]
    pub uris: Vec<String>,
}

impl ListenSpec {
    fn asks_for_nothing(&self) -> bool {
        !(self.tools || self.prompts || self.resources || !self.uris.is_empty())
    }

    /// Whether a notice is of a kind this subscription asked for. The acknowledgement always
    /// is; a server may send changes nobody asked about (2025-11-25 servers always do).
    fn asks_for(&self, notice: &Notice) -> bool {
        match &notice.what {
            NoticeKind::Acknowledged { .. } => true,
            _ if self.asks_for_nothing() => {
                !matches!(notice.what, NoticeKind::Log { .. } | NoticeKind::Progress { .. })
            }
            NoticeKind::ListChanged { list } => match list.as_str() {
                "tools" => self.tools,
                "prompts" => self.prompts,
                _ => self.resources,
            },
            NoticeKind::ResourceUpdated { uri } => self.uris.iter().any(|u| u == uri),
            _ => false,
        }
    }
}

/// What a subscription hears.
#[derive(Debug, Clone, PartialEq)]
pub enum ListenEvent {
    /// 2026-07-28: the server's acknowledgement, with what it granted.
    Acknowledged(Value),
    /// A change: a list changed, or a subscribed resource was updated.
    Change(Box<Notice>),
    /// This many log entries went by too fast to read; the wire log still has them.
    Skipped(u64),
    /// The subscription is over, in words: the server ended it, it was cancelled, or the
    /// connection ended.
    Ended(String),
    /// The listen request failed (the server refused it, or it timed out).
    Failed(RequestError),
}

type Outcome = Pin<Box<dyn Future<Output = Result<Value, RequestError>> + Send>>;

/// A running subscription. Dropping it without [`Listening::stop`] leaves the server sending.
pub struct Listening {
    session: Session,
    spec: ListenSpec,
    live: Follow,
    status: watch::Receiver<Status>,
    /// 2026-07-28: the listen request's id (its JSON value tags the notifications) and reply.
    request: Option<(RequestId, Value)>,
    outcome: Option<Outcome>,
    /// Events read ahead while the subscription ended, given out before its end.
    ahead: VecDeque<ListenEvent>,
    ended: bool,
}

impl Session {
    /// Starts a subscription. Following the log starts first, so nothing the server sends in
    /// answer is missed.
    pub async fn listen(&self, spec: ListenSpec) -> Result<Listening, RequestError> {
        let live = self.conn.log().follow();
        let status = self.conn.status();
        let (request, outcome) = match self.era() {
            Era::Modern => {
                let params = json!({"notifications": {
                    "toolsListChanged": spec.tools,
                    "promptsListChanged": spec.prompts,
                    "resourcesListChanged": spec.resources,
                    "resourceSubscriptions": spec.uris,
                }});
                let call = self.start(Request::new(LISTEN, Some(params)))?;
                let tag = serde_json::to_value(&call.id).expect("an id serializes");
                let id = call.id.clone();
                (Some((id, tag)), Some(Box::pin(call.outcome()) as Outcome))
            }
            Era::Legacy => {
                for uri in &spec.uris {
                    self.request("resources/subscribe", Some(json!({ "uri": uri }))).await?;
                }
                (None, None)
            }
        };
        Ok(Listening {
            session: self.clone(),
            spec,
            live,
            status,
            request,
            outcome,
            ahead: VecDeque::new(),
            ended: false,
        })
    }
}

impl Listening {
    /// The next event; `None` after [`ListenEvent::Ended`] or [`ListenEvent::Failed`]. Cancellation-safe: the log follower
    /// loses nothing when dropped unfinished, the pinned outcome is polled again where it
    /// stopped, and a status change not yet seen stays unseen.
    pub async fn next(&mut self) -> Option<ListenEvent> {
        loop {
            if let Some(event) = self.ahead.pop_front() {
                return Some(event);
            }
            if self.ended {
                return None;
            }
            tokio::select! {
                followed = self.live.next() => match followed {
                    Some(Followed::Entry(entry, _)) => {
                        if let Some(event) = self.event_of(&entry) {
                            return Some(event);
                        }
                    }
                    Some(Followed::Skipped(n)) => return Some(ListenEvent::Skipped(n)),
                    None => self.end("the session log ended".into()),
                },
                ended = async { self.outcome.as_mut().expect("guarded").await }, if self.outcome.is_some() => {
                    self.outcome = None;
                    self.read_ahead();
                    match ended {
                        Ok(_) => self.end("the server ended the subscription".into()),
                        Err(RequestError::Cancelled { reason, .. }) => self.end(format!("subscription ended: {reason}")),
                        Err(e) => {
                            self.ahead.push_back(ListenEvent::Failed(e));
                            self.ended = true;
                        }
                    }
                }
                changed = self.status.changed() => {
                    let over = match changed {
                        Ok(()) => match &*self.status.borrow_and_update() {
                            Status::Ended { reason, .. } => Some(reason.clone()),
                            _ => None,
                        },
                        Err(_) => Some("the connection is gone".to_owned()),
                    };
                    if let Some(reason) = over {
                        self.read_ahead();
                        self.end(format!("the connection ended: {reason}"));
                    }
                }
            }
        }
    }

    /// Stops the subscription: cancels the listen request (2026-07-28), or unsubscribes each
    /// resource (2025-11-25). A subscription already over needs nothing sent.
    pub async fn stop(self) -> Result<(), RequestError> {
        if self.ended || self.status.borrow().is_ended() {
            return Ok(());
        }
        match &self.request {
            Some((id, _)) => self.session.conn.cancel(id, "the subscription was stopped"),
            None => {
                for uri in &self.spec.uris {
                    self.session.request("resources/unsubscribe", Some(json!({ "uri": uri }))).await?;
                }
            }
        }
        Ok(())
    }

    fn end(&mut self, reason: String) {
        self.ahead.push_back(ListenEvent::Ended(reason));
        self.ended = true;
    }

    /// Reads what the log already holds: everything the server sent before the end.
    fn read_ahead(&mut self) {
        while let Some(followed) = self.live.try_next() {
            let event = match followed {
                Followed::Entry(entry, _) => self.event_of(&entry),
                Followed::Skipped(n) => Some(ListenEvent::Skipped(n)),
            };
            self.ahead.extend(event);
        }
    }

    /// The event an entry is for this subscription: a notification on its connection, of a
    /// kind it asked for, and (2026-07-28) tagged with its listen request's id, JSON type
    /// included.
    fn event_of(&self, entry: &crate::log::Entry) -> Option<ListenEvent> {
        if entry.conn != self.session.conn.id() {
            return None;
        }
        let notice = notice_of(entry)?;
        if let Some((_, tag)) = &self.request {
            if notice.subscription.as_ref() != Some(tag) {
                return None;
            }
        }
        if !self.spec.asks_for(&notice) {
            return None;
        }
        Some(match notice.what {
            NoticeKind::Acknowledged { granted } => ListenEvent::Acknowledged(granted),
            _ => ListenEvent::Change(Box::new(notice)),
        })
    }
}
