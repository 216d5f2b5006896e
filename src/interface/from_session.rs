//! A recorded session standing in for a snapshot: the interface as it was listed in that
//! session, read from its frames (the handshake's result, each listing's pages).
//!
//! Owns: reading an interface back from a session's entries. Refuses: what was never listed
//! there (a listing the session did not make is absent, as in a snapshot of a server that does
//! not declare it, and the diff says the capability changed only when the capabilities say so).

use std::path::Path;

use serde_json::Value;

use super::snapshot::{identity, kept_skills, sorted, EraChoice, Snapshot, SnapshotError, FORMAT};
use crate::era::MODERN_REVISION;
use crate::log::{Direction, Entry, Filter, Kind, WireLog};
use crate::session::listing::ListKind;

impl Snapshot {
    /// A file standing in for a snapshot: a session (told apart by the log's one check) as it
    /// listed the interface, or a snapshot file. An error says what the file is instead.
    pub fn from_file(path: &Path) -> Result<Snapshot, SnapshotError> {
        if WireLog::open(path).is_ok_and(|log| !log.is_empty() && log.is_a_session()) {
            let log = WireLog::open(path).map_err(SnapshotError::Unreadable)?;
            return Snapshot::from_session(&log);
        }
        let text = std::fs::read_to_string(path).map_err(SnapshotError::Unreadable)?;
        Snapshot::parse(&text)
    }

    /// The interface of the first server `log` opened, as that session listed it: each
    /// listing's last complete run of pages. An error says why the session cannot stand in.
    pub fn from_session(log: &WireLog) -> Result<Snapshot, SnapshotError> {
        let entries = log.entries(&Filter::default()).map_err(SnapshotError::SessionUnreadable)?;
        let message = |e: &Entry| e.text.as_deref().and_then(|t| serde_json::from_str::<Value>(t).ok());
        let reply_to = |e: &Entry, method: &str| {
            e.kind == Kind::Message
                && e.dir == Direction::In
                && e.summary
                    .as_ref()
                    .is_some_and(|s| s.kind == "result" && s.method.as_deref() == Some(method))
        };
        let opened = entries.iter().find(|e| reply_to(e, "initialize") || reply_to(e, "server/discover"));
        let Some(opened) = opened else { return Err(SnapshotError::NoServerOpened) };
        let conn = opened.conn;
        let result = message(opened).and_then(|m| m.get("result").cloned()).unwrap_or(Value::Null);
        let modern = reply_to(opened, "server/discover");
        let server_info = if modern {
            result.pointer("/_meta/io.modelcontextprotocol~1serverInfo").cloned()
        } else {
            result.get("serverInfo").cloned()
        };
        let protocol_version = if modern {
            MODERN_REVISION.to_owned()
        } else {
            result.get("protocolVersion").and_then(Value::as_str).unwrap_or_default().to_owned()
        };
        let ours: Vec<&Entry> = entries.iter().filter(|e| e.conn == conn).collect();
        let listed = |kind: ListKind| {
            let mut items: Vec<Value> =
                listing(&ours, &entries, kind.method(), kind.key(), message)?.iter().map(sorted).collect();
            items.sort_by_key(|item| identity(kind, item));
            Some(items)
        };
        // A skills server's last whole skills/list, where the server declares the extension.
        let skills = crate::skills::declared(result.get("capabilities").unwrap_or(&Value::Null))
            .and_then(|_| listing(&ours, &entries, "skills/list", "skills", message))
            .map(|raw| kept_skills(&raw.iter().map(crate::skills::skill_entry).collect::<Vec<_>>()));
        Ok(Snapshot {
            sonde_snapshot: FORMAT,
            server_info: sorted(&server_info.unwrap_or(Value::Null)),
            protocol_version,
            era: if modern { "modern" } else { "legacy" }.to_owned(),
            era_choice: era_choice(&ours),
            capabilities: sorted(result.get("capabilities").unwrap_or(&Value::Object(Default::default()))),
            instructions: result.get("instructions").and_then(Value::as_str).map(str::to_owned),
            tools: listed(ListKind::Tools),
            prompts: listed(ListKind::Prompts),
            resources: listed(ListKind::Resources),
            resource_templates: listed(ListKind::Templates),
            skills,
        })
    }
}

/// How the session's era was chosen, from the note Sonde writes when a connection opens
/// (`protocol 2025-11-25 (--era legacy; initialize)`). A session without one (a proxied
/// client's) is taken as negotiated, so an era change in it is judged as the server's.
fn era_choice(ours: &[&Entry]) -> EraChoice {
    ours.iter()
        .filter(|e| e.kind == Kind::Note)
        .filter_map(|e| e.detail.as_deref()?.strip_prefix("protocol ")?.split_once(" (")?.1.strip_suffix(')'))
        .map(EraChoice::of)
        .next()
        .unwrap_or(EraChoice::Negotiated)
}

/// The items (under `key`) of `method`'s last complete listing on the connection (`ours`): its
/// pages from a request without a cursor to a result without `nextCursor`. None when never
/// listed whole.
fn listing(
    ours: &[&Entry],
    all: &[Entry],
    method: &str,
    key: &str,
    message: impl Fn(&Entry) -> Option<Value>,
) -> Option<Vec<Value>> {
    let mut whole: Option<Vec<Value>> = None;
    let mut run: Option<Vec<Value>> = None;
    for reply in ours.iter().filter(|e| {
        e.dir == Direction::In
            && e.summary.as_ref().is_some_and(|s| s.kind == "result" && s.method.as_deref() == Some(method))
    }) {
        let asked = reply.answers.and_then(|seq| all.iter().find(|e| e.seq == seq)).and_then(&message);
        let first_page = asked.as_ref().is_none_or(|r| r.pointer("/params/cursor").is_none());
        let Some(result) = message(reply).and_then(|m| m.get("result").cloned()) else { continue };
        if first_page {
            run = Some(Vec::new());
        }
        let Some(items) = run.as_mut() else { continue };
        items.extend(result.get(key).and_then(Value::as_array).into_iter().flatten().cloned());
        if result.get("nextCursor").is_none_or(Value::is_null) {
            whole = run.take();
        }
    }
    whole
}
