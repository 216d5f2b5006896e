//! The requests a connection is waiting on, whatever the transport: correlation of replies,
//! progress, timeouts, server-side cancellation, and the late replies of requests given up on.
//!
//! Owns: the pending map and the abandoned map, and what a reply, a progress update or a
//! server's `notifications/cancelled` does to them. Refuses: any I/O. The stdio and HTTP loops
//! own their transports and decide how a timeout or a cancel reaches the server.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::{Request, RequestError};
use crate::log::Entry;
use crate::wire::{ErrorObject, RequestId};

pub type Reply = oneshot::Sender<Result<Value, RequestError>>;

/// An outcome on its way to the caller that waits for it.
type Delivery = (Reply, Result<Value, RequestError>);

pub struct Pending {
    pub method: String,
    /// What the request names (its tool, prompt or resource), given to its reply's summary.
    pub target: Option<String>,
    /// The seq of the request's log entry, for correlation.
    pub seq: u64,
    pub sent: Instant,
    /// When Sonde stops waiting; `None` for a 2026-07-28 subscription the server has
    /// acknowledged, which lives until it is stopped or the connection ends.
    pub deadline: Option<Instant>,
    pub timeout: Duration,
    /// Probe replies are marked in the log too, so the transcript says why an era was chosen.
    pub probe: bool,
    pub progress: Option<mpsc::UnboundedSender<Value>>,
    pub check: Option<super::ReplyCheck>,
    pub answered_at: Option<super::AnsweredAt>,
    pub reply: Reply,
}

impl Pending {
    /// A request just recorded at `seq`, waiting from now.
    pub fn new(request: Request, seq: u64, default_timeout: Duration, reply: Reply) -> Pending {
        let timeout = request.timeout.unwrap_or(default_timeout);
        let now = Instant::now();
        Pending {
            target: super::inbound::target_of(request.params.as_ref()),
            method: request.method,
            seq,
            sent: now,
            deadline: Some(now + timeout),
            timeout,
            probe: request.probe,
            progress: request.progress,
            check: request.check,
            answered_at: request.answered_at,
            reply,
        }
    }

    pub fn fail(self, error: RequestError) {
        let _ = self.reply.send(Err(error));
    }
}

#[derive(Default)]
pub struct Table {
    pending: HashMap<RequestId, Pending>,
    /// Requests given up on, kept to recognise their late replies: method and why
    /// ("had timed out", "was cancelled").
    abandoned: HashMap<RequestId, (String, &'static str)>,
    /// The ids answered most recently, oldest first, to tell a second reply from a reply to
    /// nothing; bounded, as a session may run millions of requests.
    answered: VecDeque<RequestId>,
    answered_set: HashSet<RequestId>,
}

/// The 2026-07-28 subscription request: long-lived, bounded only until it is acknowledged.
pub const LISTEN: &str = "subscriptions/listen";

/// What a request waits for within its timeout: a listen request only its acknowledgement.
pub fn awaited(method: &str) -> &'static str {
    if method == LISTEN {
        "acknowledgement"
    } else {
        "reply"
    }
}

/// How many answered ids are remembered for recognising a second reply.
const ANSWERED_KEPT: usize = 4096;

impl Table {
    pub fn insert(&mut self, id: RequestId, pending: Pending) {
        self.pending.insert(id, pending);
    }

    pub fn remove(&mut self, id: &RequestId) -> Option<Pending> {
        self.pending.remove(id)
    }

    pub fn get(&self, id: &RequestId) -> Option<&Pending> {
        self.pending.get(id)
    }

    pub fn get_mut(&mut self, id: &RequestId) -> Option<&mut Pending> {
        self.pending.get_mut(id)
    }

    pub fn contains(&self, id: &RequestId) -> bool {
        self.pending.contains_key(id)
    }

    /// The requests that are calls: everything but `subscriptions/listen`, which is a
    /// subscription stopped by its own handle, not a call the person waits on.
    pub fn call_ids(&self) -> Vec<RequestId> {
        self.pending.iter().filter(|(_, p)| p.method != LISTEN).map(|(id, _)| id.clone()).collect()
    }

    /// Remembers a request given up on, so its late reply is recognised.
    pub fn abandon(&mut self, id: RequestId, method: String, why: &'static str) {
        self.abandoned.insert(id, (method, why));
    }

    pub fn next_deadline(&self) -> Option<Instant> {
        self.pending.values().filter_map(|p| p.deadline).min()
    }

    /// Removes and returns the requests whose deadline has passed.
    pub fn expired(&mut self, now: Instant) -> Vec<(RequestId, Pending)> {
        let ids: Vec<RequestId> = self
            .pending
            .iter()
            .filter(|(_, p)| p.deadline.is_some_and(|d| d <= now))
            .map(|(id, _)| id.clone())
            .collect();
        ids.into_iter().filter_map(|id| self.pending.remove(&id).map(|p| (id, p))).collect()
    }

    /// Fails every pending request with the reason words (`"… while tools/call was pending"`),
    /// in the order they were sent; calls `settled` with each first (the connection records
    /// that it was never answered), so the note is in the log before its caller hears of it.
    pub fn fail_all(&mut self, reason: &str, mut settled: impl FnMut(&RequestId, &Pending)) {
        let mut all: Vec<_> = self.pending.drain().collect();
        all.sort_by_key(|(_, p)| p.seq);
        for (id, pending) in all {
            settled(&id, &pending);
            let words = format!("{reason} while {} was pending", pending.method);
            pending.fail(RequestError::Gone(words));
        }
    }

    /// A reply: fills its entry in (what it answers, latency), gives it to `record`, and only
    /// then hands the outcome to the caller, so that nothing the caller writes on hearing the
    /// answer (a note, a verdict) is recorded before the reply itself.
    pub fn on_reply(
        &mut self,
        entry: Entry,
        id: RequestId,
        outcome: Result<Value, ErrorObject>,
        modern: bool,
        record: impl FnOnce(Entry),
    ) {
        let (entry, delivery) = self.annotate_reply(entry, id, outcome, modern);
        record(entry);
        if let Some((reply, result)) = delivery {
            let _ = reply.send(result);
        }
    }

    /// The reply's entry filled in, and the outcome for its caller if one waits.
    fn annotate_reply(
        &mut self,
        mut entry: Entry,
        id: RequestId,
        outcome: Result<Value, ErrorObject>,
        modern: bool,
    ) -> (Entry, Option<Delivery>) {
        if let Some(pending) = self.pending.remove(&id) {
            if let Some(at) = &pending.answered_at {
                let _ = at.set(std::time::Instant::now());
            }
            self.remember_answered(&id);
            entry.answers = Some(pending.seq);
            entry.latency_ms = Some(round_ms(pending.sent.elapsed()));
            if let Some(s) = entry.summary.as_mut() {
                s.method = Some(pending.method.clone());
                s.target = pending.target.clone();
            }
            entry.probe = pending.probe;
            if let Ok(result) = &outcome {
                entry.findings.extend(crate::diagnose::result_shape(&pending.method, result, modern));
                entry.findings.extend(crate::diagnose::skills_reply(&pending.method, result, modern));
                entry.findings.extend(crate::diagnose::tools_reply(&pending.method, result));
                entry.findings.extend(pending.check.iter().flat_map(|c| c.findings(result)));
            }
            let result =
                outcome.map_err(|error| RequestError::Rpc { method: pending.method, error: Box::new(error) });
            (entry, Some((pending.reply, result)))
        } else if let Some((method, why)) = self.abandoned.remove(&id) {
            if let Some(s) = entry.summary.as_mut() {
                s.method = Some(method.clone());
            }
            (entry.with_detail(format!("late reply to {method} {id}, which {why}; ignored")), None)
        } else if let Some(sent) = self.same_but_for_type(&id) {
            // JSON-RPC ids keep their type: `"1"` does not answer `1`. Waiting for a reply that
            // can never match would only end at the timeout, so the request fails now, saying why.
            let pending = self.pending.remove(&sent).expect("found just now");
            let why = format!(
                "the server answered {} with id {id} ({}), but it was sent with id {sent} ({}): \
                 JSON-RPC ids keep their JSON type, so this reply answers nothing",
                pending.method,
                kind(&id),
                kind(&sent),
            );
            entry.answers = Some(pending.seq);
            entry.findings.push(crate::diagnose::reply_id_type(why.clone()));
            let error = RequestError::Protocol(why.clone());
            (entry.with_detail(why), Some((pending.reply, Err(error))))
        } else if self.answered_set.contains(&id) {
            entry.findings.push(crate::diagnose::reply_duplicate(&id));
            (entry.with_detail(format!("a second reply to {id}, which was already answered; ignored")), None)
        } else {
            let why = format!("reply to id {id}, which Sonde never sent or already had answered");
            entry.findings.push(crate::diagnose::reply_unmatched(why.clone()));
            (entry.with_detail(why), None)
        }
    }

    fn remember_answered(&mut self, id: &RequestId) {
        if self.answered.len() == ANSWERED_KEPT {
            if let Some(old) = self.answered.pop_front() {
                self.answered_set.remove(&old);
            }
        }
        self.answered.push_back(id.clone());
        self.answered_set.insert(id.clone());
    }

    /// The pending request whose id is `id` written as the other JSON type (`1` for `"1"`).
    fn same_but_for_type(&self, id: &RequestId) -> Option<RequestId> {
        let other = match id {
            RequestId::String(s) => RequestId::Number(s.parse::<serde_json::Number>().ok()?),
            RequestId::Number(n) => RequestId::String(n.to_string()),
        };
        self.pending.contains_key(&other).then_some(other)
    }

    /// A notification: progress goes to its request (resetting that request's timeout, never
    /// past `hard_max`), a server's `notifications/cancelled` ends the request it names.
    /// Returns the entry to record, linked to the request it concerns.
    pub fn on_notification(
        &mut self,
        mut entry: Entry,
        method: &str,
        params: Option<&Value>,
        hard_max: Duration,
    ) -> Entry {
        match method {
            "notifications/progress" => {
                let answers = self.on_progress(&mut entry, params, hard_max);
                entry.answers = answers;
            }
            "notifications/cancelled" => entry.answers = self.on_server_cancel(params),
            "notifications/subscriptions/acknowledged" => self.on_acknowledged(params),
            _ => {}
        }
        entry
    }

    fn on_progress(&mut self, entry: &mut Entry, params: Option<&Value>, hard_max: Duration) -> Option<u64> {
        let token = params?.get("progressToken")?;
        let id: Option<RequestId> = serde_json::from_value(token.clone()).ok();
        let in_flight = id.as_ref().and_then(|id| self.pending.get_mut(id));
        let Some(pending) = in_flight else {
            // Progress racing a cancel or a timeout is not the server's fault.
            if !id.is_some_and(|id| self.abandoned.contains_key(&id)) {
                entry.findings.push(crate::diagnose::progress_unknown(token));
            }
            return None;
        };
        let sender = pending.progress.as_ref()?;
        let _ = sender.send(params?.clone());
        let now = Instant::now();
        pending.deadline = Some((now + pending.timeout).min(pending.sent + hard_max));
        Some(pending.seq)
    }

    /// A 2026-07-28 subscription's acknowledgement: only the acknowledgement was bounded by
    /// the request timeout, so from now on the listen request waits without a deadline (the
    /// person stops it, the server ends it, or the connection ends). The acknowledgement names
    /// its listen request by `subscriptionId`, JSON type included.
    fn on_acknowledged(&mut self, params: Option<&Value>) {
        let Some(tag) = params.and_then(|p| p.pointer("/_meta/io.modelcontextprotocol~1subscriptionId"))
        else {
            return;
        };
        let Ok(id) = serde_json::from_value::<RequestId>(tag.clone()) else { return };
        if let Some(pending) = self.pending.get_mut(&id).filter(|p| p.method == LISTEN) {
            pending.deadline = None;
        }
    }

    /// A server may end one of Sonde's requests itself (2026-07-28 ends a listen stream this
    /// way): the request fails as cancelled, with the server's reason.
    fn on_server_cancel(&mut self, params: Option<&Value>) -> Option<u64> {
        let id: RequestId = serde_json::from_value(params?.get("requestId")?.clone()).ok()?;
        let pending = self.pending.remove(&id)?;
        let reason = params?.get("reason").and_then(Value::as_str).unwrap_or("no reason given");
        let reason = format!("the server cancelled it ({reason})");
        let (seq, method) = (pending.seq, pending.method.clone());
        pending.fail(RequestError::Cancelled { method, reason });
        Some(seq)
    }
}

/// A request id's JSON type, in words.
fn kind(id: &RequestId) -> &'static str {
    match id {
        RequestId::Number(_) => "a number",
        RequestId::String(_) => "a string",
    }
}

/// Sleeps until a deadline, or forever when there is none (a `select!` branch that is re-armed
/// from state on every turn of a loop).
pub async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

pub fn round_ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::log::{Direction, Kind};

    /// A table with one request per `(id, method)`, recorded at seq 10, 11, …; the receivers
    /// get each request's outcome.
    fn table(requests: &[(RequestId, &str)]) -> (Table, Vec<oneshot::Receiver<Result<Value, RequestError>>>) {
        let mut table = Table::default();
        let mut outcomes = Vec::new();
        for (n, (id, method)) in requests.iter().enumerate() {
            let (reply, outcome) = oneshot::channel();
            let pending =
                Pending::new(Request::new(method, None), 10 + n as u64, Duration::from_secs(60), reply);
            table.insert(id.clone(), pending);
            outcomes.push(outcome);
        }
        (table, outcomes)
    }

    fn reply_entry() -> Entry {
        let mut entry = Entry::new(1, Kind::Message, Direction::In);
        entry.summary = Some(crate::log::Summary { kind: "result".into(), ..Default::default() });
        entry
    }

    /// A reply through the table, returning the entry it would record.
    fn reply(table: &mut Table, id: RequestId, outcome: Result<Value, ErrorObject>) -> Entry {
        let mut recorded = None;
        table.on_reply(reply_entry(), id, outcome, false, |entry| recorded = Some(entry));
        recorded.expect("every reply is recorded")
    }

    #[test]
    fn a_reply_is_recorded_before_its_caller_hears_it() {
        let (mut table, mut outcomes) = table(&[(5.into(), "tools/call")]);
        let mut waiting_while_recorded = false;
        table.on_reply(reply_entry(), 5.into(), Ok(json!({})), false, |_| {
            waiting_while_recorded = outcomes[0].try_recv().is_err();
        });
        assert!(waiting_while_recorded, "the caller heard the answer before it was recorded");
        assert_eq!(outcomes[0].try_recv().unwrap(), Ok(json!({})));
    }

    #[test]
    fn replies_find_their_request_by_id_keeping_its_json_type() {
        let number = RequestId::from(1);
        let string = RequestId::from("1");
        // (the id the reply carries, the index of the request it answers)
        let cases = [(number.clone(), 0), (string.clone(), 1)];
        for (reply_id, answered) in cases {
            let (mut table, mut outcomes) =
                table(&[(number.clone(), "tools/list"), (string.clone(), "ping")]);
            let entry = reply(&mut table, reply_id.clone(), Ok(json!({"n": answered})));
            assert_eq!(entry.answers, Some(10 + answered as u64), "{reply_id}");
            assert!(entry.latency_ms.is_some());
            let method = ["tools/list", "ping"][answered];
            assert_eq!(entry.summary.unwrap().method.as_deref(), Some(method));
            assert_eq!(outcomes[answered].try_recv().unwrap(), Ok(json!({"n": answered})));
            let other = 1 - answered;
            assert!(outcomes[other].try_recv().is_err(), "the other request is still waiting");
            assert!(table.contains(&[number.clone(), string.clone()][other]));
            assert!(!table.contains(&reply_id));
        }
    }

    #[test]
    fn a_reply_whose_id_differs_only_in_json_type_fails_its_request_at_once_saying_why() {
        for (sent, answered, words) in [
            (
                RequestId::from(1),
                RequestId::from("1"),
                r#"with id "1" (a string), but it was sent with id 1 (a number)"#,
            ),
            (
                RequestId::from("7"),
                RequestId::from(7),
                r#"with id 7 (a number), but it was sent with id "7" (a string)"#,
            ),
        ] {
            let (mut table, mut outcomes) = table(&[(sent.clone(), "tools/list")]);
            let entry = reply(&mut table, answered, Ok(json!({"tools": []})));
            assert_eq!(entry.answers, Some(10), "the entry points at the request it nearly answers");
            let detail = entry.detail.unwrap();
            assert!(detail.contains(&format!("the server answered tools/list {words}")), "{detail}");
            match outcomes[0].try_recv().unwrap() {
                Err(RequestError::Protocol(why)) => assert_eq!(why, detail),
                other => panic!("the request should fail now, not wait: {other:?}"),
            }
            assert!(!table.contains(&sent), "the request no longer waits");
        }
        // An id that is not a number as text has no number twin: nothing fails.
        let (mut table, mut outcomes) = table(&[(RequestId::from(1), "ping")]);
        reply(&mut table, RequestId::from("one"), Ok(json!({})));
        assert!(outcomes[0].try_recv().is_err());
    }

    #[test]
    fn an_error_reply_fails_its_request_with_the_method_named() {
        let (mut table, mut outcomes) = table(&[(7.into(), "tools/call")]);
        let error = ErrorObject { code: -32602, message: "bad".into(), data: None };
        reply(&mut table, 7.into(), Err(error.clone()));
        let got = outcomes[0].try_recv().unwrap();
        assert_eq!(got, Err(RequestError::Rpc { method: "tools/call".into(), error: Box::new(error) }));
    }

    #[test]
    fn replies_nobody_waits_for_say_why() {
        // (abandoned as, the reply's id, the words of its entry)
        let cases = [
            (Some("had timed out"), 3, "late reply to tools/call 3, which had timed out; ignored"),
            (Some("was cancelled"), 3, "late reply to tools/call 3, which was cancelled; ignored"),
            (None, 3, "reply to id 3, which Sonde never sent or already had answered"),
            (Some("had timed out"), 4, "reply to id 4, which Sonde never sent or already had answered"),
        ];
        for (why, reply_id, words) in cases {
            let mut table = Table::default();
            if let Some(why) = why {
                table.abandon(3.into(), "tools/call".into(), why);
            }
            let entry = reply(&mut table, reply_id.into(), Ok(json!({})));
            assert_eq!(entry.detail.as_deref(), Some(words));
            assert_eq!(entry.answers, None);
        }
        // A late reply is recognised once; a second copy is unknown.
        let mut table = Table::default();
        table.abandon(3.into(), "tools/call".into(), "had timed out");
        reply(&mut table, 3.into(), Ok(json!({})));
        let again = reply(&mut table, 3.into(), Ok(json!({})));
        assert!(again.detail.unwrap().starts_with("reply to id 3, which Sonde never sent"));
    }

    #[test]
    fn requests_expire_at_their_deadline_and_not_before() {
        let mut table = Table::default();
        for (id, secs) in [(1, 1), (2, 5)] {
            let (reply, _) = oneshot::channel();
            let mut request = Request::new("tools/call", None);
            request.timeout = Some(Duration::from_secs(secs));
            table.insert(id.into(), Pending::new(request, id, Duration::from_secs(60), reply));
        }
        let first = table.get(&1.into()).unwrap().deadline.unwrap();
        let second = table.get(&2.into()).unwrap().deadline.unwrap();
        assert_eq!(table.next_deadline(), Some(first));
        // (the time of the sweep, the ids that expire then)
        let cases = [(first - Duration::from_millis(1), vec![]), (first, vec![1]), (second, vec![2])];
        for (now, ids) in cases {
            let expired: Vec<RequestId> = table.expired(now).into_iter().map(|(id, _)| id).collect();
            assert_eq!(expired, ids.into_iter().map(RequestId::from).collect::<Vec<_>>());
        }
        assert_eq!(table.next_deadline(), None);
    }

    #[test]
    fn a_request_timeout_overrides_the_default() {
        let (reply, _outcome) = oneshot::channel();
        let mut request = Request::new("slow", None);
        request.timeout = Some(Duration::from_millis(250));
        let pending = Pending::new(request, 1, Duration::from_secs(60), reply);
        assert_eq!(pending.timeout, Duration::from_millis(250));
        assert_eq!(pending.deadline.unwrap() - pending.sent, Duration::from_millis(250));
    }

    #[test]
    fn progress_goes_to_its_request_and_moves_its_deadline_up_to_the_hard_maximum() {
        // (the progress token, whether it reaches request 5)
        let cases = [(json!(5), true), (json!("5"), false), (json!(6), false)];
        for (token, routed) in cases {
            let (reply, _outcome) = oneshot::channel();
            let (progress, mut updates) = mpsc::unbounded_channel();
            let mut request = Request::new("tools/call", None);
            request.progress = Some(progress);
            let mut pending = Pending::new(request, 42, Duration::from_secs(10), reply);
            // Sent 95 s ago with a hard maximum of 100 s: a reset may add 5 s, not 10.
            pending.sent = Instant::now() - Duration::from_secs(95);
            pending.deadline = Some(pending.sent);
            let mut table = Table::default();
            table.insert(5.into(), pending);
            let params = json!({"progressToken": token, "progress": 1});
            let entry = Entry::new(1, Kind::Message, Direction::In);
            let hard_max = Duration::from_secs(100);
            let entry = table.on_notification(entry, "notifications/progress", Some(&params), hard_max);
            let p = table.get(&5.into()).unwrap();
            if routed {
                assert_eq!(entry.answers, Some(42), "{token}");
                assert_eq!(updates.try_recv().unwrap(), params);
                assert_eq!(p.deadline, Some(p.sent + hard_max));
            } else {
                assert_eq!(entry.answers, None, "{token}");
                assert!(updates.try_recv().is_err());
                assert_eq!(p.deadline, Some(p.sent));
            }
        }
    }

    #[test]
    fn progress_within_the_hard_maximum_resets_the_full_timeout() {
        let (reply, _outcome) = oneshot::channel();
        let (progress, _updates) = mpsc::unbounded_channel();
        let mut request = Request::new("tools/call", None);
        request.progress = Some(progress);
        let mut table = Table::default();
        table.insert(1.into(), Pending::new(request, 1, Duration::from_secs(10), reply));
        let before = Instant::now();
        let params = json!({"progressToken": 1});
        let entry = Entry::new(1, Kind::Message, Direction::In);
        table.on_notification(entry, "notifications/progress", Some(&params), Duration::from_secs(600));
        let deadline = table.get(&1.into()).unwrap().deadline.unwrap();
        assert!(deadline >= before + Duration::from_secs(10));
        assert!(deadline <= Instant::now() + Duration::from_secs(10));
    }

    #[test]
    fn a_server_cancel_fails_the_request_it_names() {
        // (the requestId the server names, whether request 9 is cancelled)
        let cases = [(json!(9), true), (json!("9"), false)];
        for (named, ends) in cases {
            let (mut table, mut outcomes) = table(&[(9.into(), "subscriptions/listen")]);
            let params = json!({"requestId": named, "reason": "shutting down"});
            let entry = Entry::new(1, Kind::Message, Direction::In);
            let entry = table.on_notification(
                entry,
                "notifications/cancelled",
                Some(&params),
                Duration::from_secs(1),
            );
            if ends {
                assert_eq!(entry.answers, Some(10));
                assert_eq!(
                    outcomes[0].try_recv().unwrap(),
                    Err(RequestError::Cancelled {
                        method: "subscriptions/listen".into(),
                        reason: "the server cancelled it (shutting down)".into()
                    })
                );
                assert!(!table.contains(&9.into()));
            } else {
                assert_eq!(entry.answers, None);
                assert!(outcomes[0].try_recv().is_err());
                assert!(table.contains(&9.into()));
            }
        }
    }

    /// A table's `notifications/subscriptions/acknowledged` naming `subscription`.
    fn acknowledge(table: &mut Table, subscription: Value) {
        let params =
            json!({"_meta": {"io.modelcontextprotocol/subscriptionId": subscription}, "notifications": {}});
        let entry = Entry::new(1, Kind::Message, Direction::In);
        let method = "notifications/subscriptions/acknowledged";
        table.on_notification(entry, method, Some(&params), Duration::from_secs(1));
    }

    #[test]
    fn an_acknowledged_listen_waits_without_a_deadline_and_only_its_own_acknowledgement_counts() {
        let an_hour_on = Instant::now() + Duration::from_secs(3600);
        // (the subscriptionId acknowledged, whether listen 4 then waits without a deadline)
        for (acknowledged, lifted) in [(json!(4), true), (json!("4"), false), (json!(5), false)] {
            let (mut table, _outcomes) = table(&[(4.into(), LISTEN)]);
            acknowledge(&mut table, acknowledged.clone());
            assert_eq!(table.get(&4.into()).unwrap().deadline.is_none(), lifted, "{acknowledged}");
            assert_eq!(table.next_deadline().is_none(), lifted, "{acknowledged}");
            assert_eq!(table.expired(an_hour_on).is_empty(), lifted, "{acknowledged}");
        }
        // An acknowledgement naming a call changes nothing: only a listen is long-lived.
        let (mut table, _outcomes) = table(&[(7.into(), "tools/call")]);
        acknowledge(&mut table, json!(7));
        assert_eq!(table.expired(an_hour_on).len(), 1);
    }

    #[test]
    fn a_timeout_names_what_was_awaited() {
        let error =
            |method: &str| RequestError::Timeout { method: method.into(), after: Duration::from_millis(800) };
        assert_eq!(error(LISTEN).to_string(), "subscriptions/listen got no acknowledgement within 800 ms");
        assert_eq!(error("tools/call").to_string(), "tools/call got no reply within 800 ms");
    }

    #[test]
    fn other_notifications_touch_no_request() {
        let (mut table, mut outcomes) = table(&[(1.into(), "tools/call")]);
        let params = json!({"progressToken": 1, "requestId": 1});
        let entry = Entry::new(1, Kind::Message, Direction::In);
        let entry =
            table.on_notification(entry, "notifications/message", Some(&params), Duration::from_secs(1));
        assert_eq!(entry.answers, None);
        assert!(outcomes[0].try_recv().is_err());
        assert!(table.contains(&1.into()));
    }

    #[test]
    fn when_the_server_goes_every_request_fails_with_its_method_named() {
        let (mut table, mut outcomes) = table(&[(1.into(), "tools/list"), (2.into(), "ping")]);
        table.fail_all("server exited with code 1", |_, _| {});
        assert_eq!(
            outcomes[0].try_recv().unwrap(),
            Err(RequestError::Gone("server exited with code 1 while tools/list was pending".into()))
        );
        assert_eq!(
            outcomes[1].try_recv().unwrap(),
            Err(RequestError::Gone("server exited with code 1 while ping was pending".into()))
        );
        assert!(table.call_ids().is_empty());
    }

    #[test]
    fn milliseconds_are_rounded_to_the_microsecond() {
        assert_eq!(round_ms(Duration::from_nanos(1_234_567)), 1.235);
        assert_eq!(round_ms(Duration::from_secs(2)), 2000.0);
    }
}
