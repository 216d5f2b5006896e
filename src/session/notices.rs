//! What servers tell the client unasked: every notification a server sends, read once, for a
//! front end to list as it arrives.
//!
//! Owns: recognising a server notification in the wire log and reading what it says (a log
//! message's level, logger and data; which list changed; which resource was updated), and the
//! stream of them from the live log, which already holds every frame in order.
//! Refuses: deciding what a person is shown or interrupted with (nothing here interrupts).

use serde::Serialize;
use serde_json::Value;

use crate::log::{Direction, Entry, Follow, Followed, Kind, WireLog};

/// A notification a server sent.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Notice {
    /// The wire log entry that holds it.
    pub seq: u64,
    pub conn: u64,
    /// Wall-clock time it was recorded.
    pub time: String,
    pub method: String,
    pub what: NoticeKind,
    pub params: Value,
    /// The 2026-07-28 subscription it belongs to (the listen request's id), if any.
    pub subscription: Option<Value>,
}

/// What a notification says.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NoticeKind {
    /// `notifications/message`: the level as sent (a server may send one the protocol does not
    /// name), the logger if any, and the data.
    Log { level: String, logger: Option<String>, data: Value },
    /// `notifications/{tools,prompts,resources}/list_changed`: which list.
    ListChanged { list: String },
    /// `notifications/resources/updated`.
    ResourceUpdated { uri: String },
    /// `notifications/progress`.
    Progress { progress: Option<f64>, total: Option<f64>, message: Option<String> },
    /// `notifications/subscriptions/acknowledged`: what the server granted.
    Acknowledged { granted: Value },
    /// Anything else (`notifications/cancelled`, task status, an extension's).
    Other,
}

/// The server notification an entry holds, if it holds one.
pub fn notice_of(entry: &Entry) -> Option<Notice> {
    if entry.kind != Kind::Message || entry.dir != Direction::In {
        return None;
    }
    // Cheap test first: most entries are responses and requests.
    let text = entry.text.as_deref()?;
    if !text.contains("notifications/") {
        return None;
    }
    let message: Value = serde_json::from_str(text).ok()?;
    if message.get("id").is_some() {
        return None;
    }
    let method = message.get("method")?.as_str()?.to_owned();
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let string = |key: &str| params.get(key).and_then(Value::as_str).map(str::to_owned);
    let what = match method.as_str() {
        "notifications/message" => NoticeKind::Log {
            level: string("level").unwrap_or_default(),
            logger: string("logger"),
            data: params.get("data").cloned().unwrap_or(Value::Null),
        },
        "notifications/tools/list_changed" => NoticeKind::ListChanged { list: "tools".into() },
        "notifications/prompts/list_changed" => NoticeKind::ListChanged { list: "prompts".into() },
        "notifications/resources/list_changed" => NoticeKind::ListChanged { list: "resources".into() },
        "notifications/resources/updated" => {
            NoticeKind::ResourceUpdated { uri: string("uri").unwrap_or_default() }
        }
        "notifications/progress" => NoticeKind::Progress {
            progress: params.get("progress").and_then(Value::as_f64),
            total: params.get("total").and_then(Value::as_f64),
            message: string("message"),
        },
        "notifications/subscriptions/acknowledged" => {
            NoticeKind::Acknowledged { granted: params.get("notifications").cloned().unwrap_or(Value::Null) }
        }
        _ => NoticeKind::Other,
    };
    let subscription = params.pointer("/_meta/io.modelcontextprotocol~1subscriptionId").cloned();
    Some(Notice {
        seq: entry.seq,
        conn: entry.conn,
        time: entry.time.clone(),
        method,
        what,
        params,
        subscription,
    })
}

/// What a follower of notices gets next.
#[derive(Debug, Clone, PartialEq)]
pub enum Noticed {
    Notice(Box<Notice>),
    /// This many log entries went by too fast to read; the wire log still has them.
    Skipped(u64),
}

/// Every server notification recorded in a log from now on, of every connection.
pub struct Notices {
    live: Follow,
}

impl crate::feed::Source<Noticed> for Notices {
    fn now(&self) -> Vec<Noticed> {
        Vec::new()
    }

    fn next(&mut self) -> crate::feed::Next<'_, Noticed> {
        Box::pin(async move { Notices::next(self).await.map(|noticed| vec![noticed]) })
    }
}

impl Notices {
    pub fn follow(log: &WireLog) -> Notices {
        Notices { live: log.follow() }
    }

    /// The next notice; `None` once the log is gone. Cancellation-safe, as [`Follow::next`] is.
    pub async fn next(&mut self) -> Option<Noticed> {
        loop {
            match self.live.next().await? {
                Followed::Entry(entry, _) => {
                    if let Some(notice) = notice_of(&entry) {
                        return Some(Noticed::Notice(Box::new(notice)));
                    }
                }
                Followed::Skipped(n) => return Some(Noticed::Skipped(n)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn incoming(text: &str) -> Entry {
        let mut entry = Entry::new(7, Kind::Message, Direction::In).with_bytes(text.as_bytes());
        entry.seq = 3;
        entry
    }

    #[test]
    fn notifications_are_read_by_what_they_say() {
        let log = incoming(
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"db","data":{"x":1}}}"#,
        );
        let notice = notice_of(&log).unwrap();
        assert_eq!(notice.conn, 7);
        assert_eq!(
            notice.what,
            NoticeKind::Log {
                level: "error".into(),
                logger: Some("db".into()),
                data: serde_json::json!({"x": 1})
            }
        );
        let updated = incoming(
            r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"a://b","_meta":{"io.modelcontextprotocol/subscriptionId":4}}}"#,
        );
        let notice = notice_of(&updated).unwrap();
        assert_eq!(notice.what, NoticeKind::ResourceUpdated { uri: "a://b".into() });
        assert_eq!(notice.subscription, Some(serde_json::json!(4)));
    }

    #[test]
    fn requests_responses_and_outgoing_frames_are_not_notices() {
        assert!(notice_of(&incoming(r#"{"jsonrpc":"2.0","id":1,"method":"notifications/odd"}"#)).is_none());
        assert!(
            notice_of(&incoming(r#"{"jsonrpc":"2.0","id":1,"result":{"m":"notifications/x"}}"#)).is_none()
        );
        let out = Entry::new(1, Kind::Message, Direction::Out)
            .with_bytes(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert!(notice_of(&out).is_none());
    }
}
