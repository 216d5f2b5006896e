//! Replaying a recorded session against a server: the session's client requests sent again,
//! in order, as recorded, as new requests of the session given, each answer judged against
//! the recorded one.
//!
//! Owns: which recorded requests are replayed (the first server's client requests; not the
//! handshake, the era probe, an `input_required` round's retry, which the session makes again
//! itself, or a notification), the verdict on each (`ReplayVerdict`): an ordinary answer compared
//! with the core's JSON comparison (`interface::values`), a listing's items judged as a whole
//! with the diff's classification (`interface::listings`; each change said once a replay), a
//! call of a tool or prompt the server no longer lists said to be gone; mapping the protocol's
//! opaque tokens to the new server's (`tokens`: cursors and task ids, by where they came from,
//! nothing else); what is expected to differ (`rules`: the `_meta` a server stamps, and the
//! rules the caller gives); and the recorded client's answers to the server's own requests
//! (`answers`). Refuses: starting servers and printing (the front ends), and changing a name,
//! a URI or an argument of a recorded request.

mod answers;
mod listings;
mod recorded;
pub mod rules;
mod tokens;

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::{json, Value};

use crate::connection::RequestError;
use crate::interface::values::{differences, pattern_covers, Difference};
use crate::interface::Change;
use crate::session::listing::ListKind;
use crate::session::Session;
use listings::{Listed, Runs};
pub use recorded::{recorded_requests, Recorded, RecordedRequests, RecordingError};
pub use rules::{Rules, RulesError};
use tokens::Tokens;

/// What a replayed request's answer says of the new server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum ReplayVerdict {
    /// The answer is the recorded one, less what is expected to differ.
    Same,
    /// The answer differs from the recorded one.
    Differs,
    /// The request names a tool or prompt the server no longer lists.
    Gone,
    /// A listing whose items changed: each change with the diff's verdict.
    Changed,
    /// A page of a listing before its last: its items are judged with the last page's.
    Page,
    /// Not sent: its recorded cursor has no counterpart from the new server (whose listing
    /// ended sooner), or it names a gone tool and gone ones are skipped.
    Unsent,
}

impl ReplayVerdict {
    pub fn name(self) -> &'static str {
        match self {
            ReplayVerdict::Same => "same",
            ReplayVerdict::Differs => "differs",
            ReplayVerdict::Gone => "gone",
            ReplayVerdict::Changed => "changed",
            ReplayVerdict::Page => "page",
            ReplayVerdict::Unsent => "unsent",
        }
    }
}

/// What one replayed request gave, against what was recorded.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Replayed {
    /// The recorded request's seq in its session.
    pub seq: u64,
    pub method: String,
    /// A tool's, prompt's or resource's name, when the request has one.
    pub name: Option<String>,
    pub verdict: ReplayVerdict,
    /// Whether this request fails the replay: it differs or is gone, or its listing has a
    /// breaking change (any change, when strict).
    pub fails: bool,
    /// Why, in words, when the verdict needs them (gone, unsent, a listing cut short).
    pub why: Option<String>,
    /// Each difference not expected; none when the answer is the same.
    pub differences: Vec<Difference>,
    /// A listing's changes not said earlier in the replay, with the diff's verdicts.
    pub changes: Vec<Change>,
    /// How many of the listing's changes were said earlier in the replay.
    pub changes_said_before: u32,
    /// The paths of the differences that were ignored.
    pub ignored: Vec<String>,
    /// The answer recorded, and the answer now (`{"result": …}`, `{"error": …}`, `{"failed":
    /// words}` when none came, or `{"unsent": words}`).
    pub recorded: Value,
    pub answer: Value,
    /// The places in the answer of tokens the server gave (a cursor, a task id): they differ
    /// by nature, and the new server's were sent on where the recorded ones went back.
    pub carried: Vec<String>,
}

/// A whole replay: each request's outcome, and what the rules and the listings add.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Replay {
    pub replayed: Vec<Replayed>,
    /// How many requests fail the replay (and rules that matched nothing, when strict).
    pub failed: u32,
    /// The rules, as written, that matched no difference.
    pub unmatched: Vec<String>,
    /// Pages of the new server's listings fetched beyond the recorded ones, to judge a
    /// listing whole.
    pub pages_followed: u32,
}

/// Paths that differ by nature: the `_meta` a server stamps on a result or an error, and the
/// era's envelope of a 2026-07-28 result (`resultType`, and a listing's cache hints), which a
/// session recorded in 2025-11-25 has none of.
pub const IGNORED_BY_DEFAULT: [&str; 5] =
    ["result._meta", "error.data._meta", "result.resultType", "result.ttlMs", "result.cacheScope"];

/// Sends each of `requests` again on `session`, in order, as recorded (only the server's
/// tokens mapped), and judges each answer under `rules`; each request's outcome is handed to
/// `each` as it is known.
pub async fn replay(
    session: &Session,
    requests: &[Recorded],
    rules: &Rules,
    mut each: impl FnMut(&Replayed),
) -> Replay {
    let listed = Listed::take(session, requests).await;
    let mut tokens = Tokens::default();
    let mut given = Vec::new();
    let mut runs = Runs::default();
    let mut said: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    for (i, request) in requests.iter().enumerate() {
        let name = request.name();
        let gone = listed.gone(&request.method, name.as_deref());
        let kind = ListKind::ALL.into_iter().find(|k| k.method() == request.method);
        let stale = tokens.unknown(request.params.as_ref(), &given);
        let params = tokens.applied(request.params.as_ref());
        let mut carried = Vec::new();
        let unsent = match (&gone, stale) {
            (Some(why), _) if rules.skip_gone => Some(format!("{why}; not sent (skip-gone)")),
            (_, Some(param)) => Some(format!(
                "its recorded {param} has no counterpart: the new server's listing ended sooner"
            )),
            _ => None,
        };
        let answer = match &unsent {
            Some(why) => json!({ "unsent": why }),
            None => outcome(session.request(&request.method, params).await),
        };
        tokens.learn(&request.answer, &answer);
        given.extend(tokens::given(&request.answer));
        // A listing's items are judged as a whole; everything else of its answer as any answer.
        let (recorded_rest, answer_rest) = match kind {
            Some(kind) => {
                (listings::without_items(kind, &request.answer), listings::without_items(kind, &answer))
            }
            None => (request.answer.clone(), answer.clone()),
        };
        let mut replayed = Replayed {
            seq: request.seq,
            method: request.method.clone(),
            name: name.clone(),
            verdict: ReplayVerdict::Same,
            fails: false,
            why: None,
            differences: Vec::new(),
            changes: Vec::new(),
            changes_said_before: 0,
            ignored: Vec::new(),
            recorded: request.answer.clone(),
            answer: answer.clone(),
            carried: Vec::new(),
        };
        if unsent.is_none() {
            for d in differences("", &recorded_rest, &answer_rest) {
                if IGNORED_BY_DEFAULT.iter().any(|p| pattern_covers(p, &d.path))
                    || rules.expects(&request.method, name.as_deref(), &d)
                {
                    replayed.ignored.push(d.path);
                } else if tokens::is_token(&d.path) {
                    carried.push(d.path);
                } else {
                    replayed.differences.push(d);
                }
            }
        }
        replayed.carried = carried;
        if !replayed.differences.is_empty() {
            replayed.verdict = ReplayVerdict::Differs;
            replayed.fails = true;
        }
        if let Some(kind) = kind {
            match runs.add(session, kind, requests, i, &answer).await {
                listings::Judged::Page if replayed.verdict == ReplayVerdict::Same => {
                    replayed.verdict = ReplayVerdict::Page
                }
                listings::Judged::Page => {}
                listings::Judged::Whole { changes, cut_short } => {
                    let fresh: Vec<Change> =
                        changes.iter().filter(|c| said.insert(change_key(c))).cloned().collect();
                    replayed.changes_said_before =
                        u32::try_from(changes.len() - fresh.len()).unwrap_or(u32::MAX);
                    let breaking =
                        changes.iter().any(|c| c.severity == crate::interface::ChangeSeverity::Breaking);
                    if !changes.is_empty() && replayed.verdict == ReplayVerdict::Same {
                        replayed.verdict = ReplayVerdict::Changed;
                    }
                    replayed.fails |= breaking || (rules.strict && !changes.is_empty());
                    replayed.changes = fresh;
                    replayed.why = cut_short;
                }
            }
        }
        if let Some(why) = &unsent {
            if replayed.verdict == ReplayVerdict::Same || replayed.verdict == ReplayVerdict::Page {
                replayed.verdict = ReplayVerdict::Unsent;
            }
            replayed.why.get_or_insert_with(|| why.clone());
        }
        if let Some(why) = gone {
            replayed.verdict = ReplayVerdict::Gone;
            replayed.fails = true;
            replayed.why = Some(why);
        }
        each(&replayed);
        out.push(replayed);
    }
    let unmatched = rules.unmatched();
    let failed = out.iter().filter(|r| r.fails).count() + if rules.strict { unmatched.len() } else { 0 };
    Replay {
        replayed: out,
        failed: u32::try_from(failed).unwrap_or(u32::MAX),
        unmatched,
        pages_followed: runs.followed(),
    }
}

/// What makes one change the same as another said before.
fn change_key(c: &Change) -> String {
    format!("{}|{}|{}|{}", c.severity.name(), c.kind, c.path, c.detail)
}

/// An answer as a reply frame holds it: `{"result": …}` or `{"error": …}`; anything else that
/// ended the request (a timeout, a server gone) is `{"failed": words}`, which differs from
/// any recorded answer.
fn outcome(answer: Result<Value, RequestError>) -> Value {
    match answer {
        Ok(result) => json!({ "result": result }),
        Err(RequestError::Rpc { error, .. }) => json!({ "error": error }),
        Err(other) => json!({ "failed": other.to_string() }),
    }
}
