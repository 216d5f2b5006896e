//! A replay's listings: what the new server lists now, for telling a call of a tool or prompt
//! it no longer lists (`Listed`), and each recorded listing judged as a whole against the new
//! server's (`Runs`): a listing is often several pages, and an item added before the others
//! moves every later one to another page, so its items are gathered page by page on both sides
//! and judged once, at the recording's last page, with the diff's classification, matched by
//! name or URI.

use serde_json::Value;

use super::recorded::Recorded;
use crate::interface::snapshot::identity;
use crate::interface::{listings, Change};
use crate::session::listing::ListKind;
use crate::session::Session;

/// At most this many pages of a new server's listing are followed past the recorded ones.
const MAX_PAGES: u32 = 1000;

/// The names the new server lists, for the kinds the recording calls (tools, prompts).
pub(super) struct Listed {
    // Err is words on why the listing is not known, said in the verdicts that need it.
    tools: Option<Result<Vec<String>, String>>,
    prompts: Option<Result<Vec<String>, String>>,
}

impl Listed {
    /// Lists each kind a recorded request calls by name, once, before the replay.
    pub(super) async fn take(session: &Session, requests: &[Recorded]) -> Listed {
        let calls = |method: &str| requests.iter().any(|r| r.method == method && r.name().is_some());
        let names = |kind: ListKind| async move {
            if session.server.capabilities.get(kind.capability()).is_none() {
                return Ok(Vec::new());
            }
            let listing = session.list_all(kind).await.map_err(|e| e.to_string())?;
            if let Some(why) = listing.stopped {
                return Err(format!("its listing was cut short ({why})"));
            }
            Ok(listing.items.iter().map(|item| identity(kind, item)).collect())
        };
        Listed {
            tools: if calls("tools/call") { Some(names(ListKind::Tools).await) } else { None },
            prompts: if calls("prompts/get") { Some(names(ListKind::Prompts).await) } else { None },
        }
    }

    /// Why a request of `method` naming `name` is gone, if it is: the server no longer lists
    /// it, or it cannot be told (which is not a pass).
    pub(super) fn gone(&self, method: &str, name: Option<&str>) -> Option<String> {
        let (listed, what) = match method {
            "tools/call" => (self.tools.as_ref()?, "tool"),
            "prompts/get" => (self.prompts.as_ref()?, "prompt"),
            _ => return None,
        };
        let name = name?;
        match listed {
            Ok(names) if names.iter().any(|n| n == name) => None,
            Ok(_) => Some(format!("the server no longer lists {name}")),
            Err(e) => Some(format!("could not tell whether the server still lists the {what} {name}: {e}")),
        }
    }
}

/// `answer` without its listing's items, for the comparison of the rest (its cursor is a
/// token, which differs by nature).
pub(super) fn without_items(kind: ListKind, answer: &Value) -> Value {
    let mut answer = answer.clone();
    if let Some(Value::Object(result)) = answer.get_mut("result") {
        result.remove(kind.key());
    }
    answer
}

/// A listing's judgement after one of its pages.
pub(super) enum Judged {
    /// Not its last recorded page: judged with the last.
    Page,
    /// Its last recorded page: every change of the listing, and why it could be judged only in
    /// part, if so.
    Whole { changes: Vec<Change>, cut_short: Option<String> },
}

/// One listing being gathered on both sides.
struct Run {
    recorded: Vec<Value>,
    new: Vec<Value>,
    /// The new server's cursor for its next page; `None` when it ended.
    next: Option<Value>,
    /// Why the new side is not whole (an answer that was not a listing page).
    broken: Option<String>,
}

/// The listings being gathered, one a method, and how many pages were followed.
#[derive(Default)]
pub(super) struct Runs {
    runs: Vec<(String, Run)>,
    followed: u32,
}

fn items(kind: ListKind, answer: &Value) -> Option<Vec<Value>> {
    answer.pointer(&format!("/result/{}", kind.key()))?.as_array().cloned()
}

impl Runs {
    pub(super) fn followed(&self) -> u32 {
        self.followed
    }

    /// Adds the page of request `i` of `requests` (a listing of `kind`), its new `answer`
    /// given, and judges the listing when that page is the recording's last of it.
    pub(super) async fn add(
        &mut self,
        session: &Session,
        kind: ListKind,
        requests: &[Recorded],
        i: usize,
        answer: &Value,
    ) -> Judged {
        let request = &requests[i];
        let method = request.method.as_str();
        let first = request.params.as_ref().and_then(|p| p.get("cursor")).is_none();
        if first || !self.runs.iter().any(|(m, _)| m == method) {
            self.runs.retain(|(m, _)| m != method);
            self.runs.push((
                method.to_owned(),
                Run { recorded: Vec::new(), new: Vec::new(), next: None, broken: None },
            ));
        }
        let run = &mut self.runs.iter_mut().find(|(m, _)| m == method).expect("a run was opened").1;
        run.recorded.extend(items(kind, &request.answer).unwrap_or_default());
        if answer.get("unsent").is_none() {
            match items(kind, answer) {
                Some(page) => {
                    run.new.extend(page);
                    run.next = answer.pointer("/result/nextCursor").cloned();
                }
                None => run.broken = Some(format!("the new server's page answered {}", short(answer))),
            }
        }
        // The recording's last page of this listing: no cursor given, or none sent back later.
        let cursor = request.answer.pointer("/result/nextCursor");
        let continued = cursor.is_some_and(|c| {
            requests[i + 1..]
                .iter()
                .any(|r| r.method == method && r.params.as_ref().and_then(|p| p.get("cursor")) == Some(c))
        });
        if continued {
            return Judged::Page;
        }
        let whole_recording = cursor.is_none();
        let (_, mut run) =
            self.runs.remove(self.runs.iter().position(|(m, _)| m == method).expect("the run"));
        if let Some(broken) = run.broken {
            return Judged::Whole {
                changes: Vec::new(),
                cut_short: Some(format!("could not judge the listing: {broken}")),
            };
        }
        let mut pages = 0;
        while let Some(cursor) = run.next.take() {
            if pages == MAX_PAGES {
                return Judged::Whole {
                    changes: Vec::new(),
                    cut_short: Some(format!("could not judge the listing: the new server gave more than {MAX_PAGES} further pages")),
                };
            }
            pages += 1;
            self.followed += 1;
            let page = session.request(method, Some(serde_json::json!({ "cursor": cursor }))).await;
            match page.as_ref().ok().and_then(|r| r.get(kind.key())).and_then(Value::as_array) {
                Some(found) => {
                    run.new.extend(found.iter().cloned());
                    run.next = page.as_ref().ok().and_then(|r| r.get("nextCursor")).cloned();
                }
                None => {
                    let said = match &page {
                        Ok(result) => short(result),
                        Err(e) => e.to_string(),
                    };
                    return Judged::Whole {
                        changes: Vec::new(),
                        cut_short: Some(format!(
                            "could not judge the listing: a further page answered {said}"
                        )),
                    };
                }
            }
        }
        // A recording that stopped paging early holds the first items only: each must still be
        // listed, but what is new cannot be told.
        let mut cut_short = None;
        if !whole_recording {
            let recorded: Vec<String> = run.recorded.iter().map(|item| identity(kind, item)).collect();
            run.new.retain(|item| recorded.contains(&identity(kind, item)));
            cut_short = Some(
                "the recording stopped paging early: only its items were judged, not what is new".into(),
            );
        }
        Judged::Whole { changes: listings(kind, &run.recorded, &run.new), cut_short }
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 120 {
        format!("{}…", text.chars().take(120).collect::<String>())
    } else {
        text
    }
}
