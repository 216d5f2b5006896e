//! A server's interface as one JSON document: what it is, which era it was listed in and whether
//! the client forced that era or it was negotiated, what it declares and everything it lists,
//! each listing followed to its end, in a stable order (items by name or URI, object keys
//! sorted) so two snapshots of one server diff cleanly, as JSON and as text.
//!
//! Owns: the snapshot's shape and its format version, taking one from a live session, and
//! reading one back, of this format or an earlier one (anything else is refused, naming what was
//! expected), with `SnapshotError` saying why not (a file that cannot be read `io`, one that is
//! not a snapshot or a session that can stand in `bad_input`). Refuses: comparing them (`diff`), and the evidence of how an era was decided
//! (the session log keeps it; it varies from run to run of one server).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::connection::RequestError;
use crate::era::Era;
use crate::error_code::ErrorCode;
use crate::session::listing::ListKind;
use crate::session::Session;

/// The format version a snapshot carries, so a later Sonde can read an earlier one. Format 2
/// records how the era was chosen (`eraChoice`) in place of format 1's `decidedBy`.
pub const FORMAT: u32 = 2;

/// How the era a snapshot was listed in was chosen: forced by the client (`--era legacy` or
/// `modern`), or negotiated with the server (a probe, a cached verdict, `initialize` after a
/// refusal). Only a negotiated era says what the server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EraChoice {
    Forced,
    Negotiated,
}

impl EraChoice {
    /// The choice the words of a `decided_by` record: the client's when `--era` forced it.
    pub fn of(decided_by: &str) -> EraChoice {
        if decided_by.starts_with(crate::negotiate::FORCED) {
            EraChoice::Forced
        } else {
            EraChoice::Negotiated
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// The format version ([`FORMAT`]); its presence says the file is a snapshot.
    pub sonde_snapshot: u32,
    pub server_info: Value,
    pub protocol_version: String,
    /// `legacy` (2025-11-25) or `modern` (2026-07-28), and how that was chosen. How it was
    /// decided (`decided_by`: a cached verdict, a probe, a probe's deadline) is not kept: it
    /// differs between two runs against one unchanged server, and would make their files differ.
    pub era: String,
    pub era_choice: EraChoice,
    pub capabilities: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Each listing the server declares, followed to its end; absent when not declared (a
    /// listing never made is not an empty one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_templates: Option<Vec<Value>>,
    /// The skills of a server that declares the Skills extension, by URI: each entry's URI,
    /// frontmatter and files with their digests (no file is read); absent when not declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<Value>>,
}

/// Why a file (or a session) cannot stand in for a snapshot, in words that follow "X is".
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// The file could not be read.
    #[error("cannot read it: {0}")]
    Unreadable(std::io::Error),
    /// A session file whose entries could not be read.
    #[error("cannot read the session: {0}")]
    SessionUnreadable(std::io::Error),
    #[error("not JSON ({0}); a snapshot was expected")]
    NotJson(serde_json::Error),
    #[error("not a snapshot (no sondeSnapshot format version); make one with sonde snapshot")]
    NotASnapshot,
    #[error("a snapshot of format {0}, newer than this Sonde reads ({FORMAT})")]
    Newer(u64),
    #[error("a snapshot, but not a whole one: {0}")]
    NotWhole(serde_json::Error),
    /// A session in which no server answered the opening, so no interface was listed.
    #[error("a session in which no server was opened (no initialize or server/discover result)")]
    NoServerOpened,
}

impl SnapshotError {
    /// `io` when the file could not be read; `bad_input` when what it holds cannot stand in.
    pub fn code(&self) -> ErrorCode {
        match self {
            SnapshotError::Unreadable(_) | SnapshotError::SessionUnreadable(_) => ErrorCode::Io,
            _ => ErrorCode::BadInput,
        }
    }
}

/// A skills server's skills as a snapshot keeps them: each entry's URI, frontmatter and files
/// (`"dynamic"` as the server says it), sorted by URI; `None` when the server does not declare
/// the extension.
async fn skills(session: &Session) -> Result<Option<Vec<Value>>, RequestError> {
    if session.skills_declared().is_none() {
        return Ok(None);
    }
    Ok(Some(kept_skills(&session.list_skills().await?.skills)))
}

/// Skill entries as a snapshot keeps them (URI, frontmatter, files), sorted by URI.
pub(super) fn kept_skills(entries: &[crate::skills::SkillEntry]) -> Vec<Value> {
    let mut skills: Vec<Value> = entries
        .iter()
        .map(|s| {
            let files = s.files.as_ref().map_or(Value::from("dynamic"), |files| {
                files
                    .iter()
                    .map(|f| serde_json::json!({"uri": f.uri, "digest": f.digest, "size": f.size}))
                    .collect()
            });
            serde_json::json!({"uri": s.uri, "frontmatter": sorted(&s.frontmatter), "resources": files})
        })
        .collect();
    skills.sort_by(|a, b| a["uri"].as_str().cmp(&b["uri"].as_str()));
    skills
}

impl Snapshot {
    /// Lists everything `session`'s server declares, to the end of each listing.
    pub async fn take(session: &Session) -> Result<Snapshot, RequestError> {
        let server = &session.server;
        let declared = |kind: ListKind| server.capabilities.get(kind.capability()).is_some();
        let listed = |kind: ListKind| async move {
            if !declared(kind) {
                return Ok(None);
            }
            let mut items: Vec<Value> = session.list_all(kind).await?.items.iter().map(sorted).collect();
            items.sort_by_key(|item| identity(kind, item));
            Ok::<_, RequestError>(Some(items))
        };
        Ok(Snapshot {
            sonde_snapshot: FORMAT,
            server_info: sorted(&server.server_info),
            protocol_version: server.protocol_version.clone(),
            era: match server.era {
                Era::Legacy => "legacy",
                Era::Modern => "modern",
            }
            .to_owned(),
            era_choice: EraChoice::of(&server.decided_by),
            capabilities: sorted(&server.capabilities),
            instructions: server.instructions.clone(),
            tools: listed(ListKind::Tools).await?,
            prompts: listed(ListKind::Prompts).await?,
            resources: listed(ListKind::Resources).await?,
            resource_templates: listed(ListKind::Templates).await?,
            skills: skills(session).await?,
        })
    }

    /// Reads a snapshot back from its text, of this format or an earlier one, or says what the
    /// text is instead.
    pub fn parse(text: &str) -> Result<Snapshot, SnapshotError> {
        let mut value: Value = serde_json::from_str(text).map_err(SnapshotError::NotJson)?;
        match value.get("sondeSnapshot").and_then(Value::as_u64) {
            None => Err(SnapshotError::NotASnapshot),
            Some(v) if v > u64::from(FORMAT) => Err(SnapshotError::Newer(v)),
            Some(version) => {
                // Format 1 kept the evidence (`decidedBy`), from which the choice is read.
                if version < 2 && value.get("eraChoice").is_none() {
                    let decided_by = value.get("decidedBy").and_then(Value::as_str).unwrap_or_default();
                    let choice =
                        serde_json::to_value(EraChoice::of(decided_by)).expect("a choice serializes");
                    if let Some(object) = value.as_object_mut() {
                        object.insert("eraChoice".into(), choice);
                    }
                }
                serde_json::from_value(value).map_err(SnapshotError::NotWhole)
            }
        }
    }

    /// The snapshot as pretty JSON, keys in a stable order.
    pub fn to_text(&self) -> String {
        let value = sorted(&serde_json::to_value(self).expect("a snapshot serializes"));
        serde_json::to_string_pretty(&value).expect("JSON serializes") + "\n"
    }
}

/// What names an item of a listing: a tool's or prompt's name, a resource's URI, a template's.
pub fn identity(kind: ListKind, item: &Value) -> String {
    let key = match kind {
        ListKind::Resources => "uri",
        ListKind::Templates => "uriTemplate",
        _ => "name",
    };
    item.get(key).and_then(Value::as_str).unwrap_or_default().to_owned()
}

/// `value` with every object's keys sorted, at every depth.
pub(super) fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&map[k]))).collect::<Map<_, _>>())
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_snapshot_reads_back_and_anything_else_is_named() {
        let snapshot = Snapshot {
            sonde_snapshot: FORMAT,
            server_info: json!({"version": "1", "name": "s"}),
            protocol_version: "2025-11-25".into(),
            era: "legacy".into(),
            era_choice: EraChoice::Negotiated,
            capabilities: json!({"tools": {}}),
            instructions: None,
            tools: Some(vec![json!({"name": "a", "inputSchema": {"type": "object"}})]),
            prompts: None,
            resources: None,
            resource_templates: None,
            skills: None,
        };
        let text = snapshot.to_text();
        assert!(
            text.find("\"name\": \"s\"").unwrap() < text.find("\"version\": \"1\"").unwrap(),
            "keys sorted"
        );
        assert_eq!(Snapshot::parse(&text).unwrap().tools, snapshot.tools);
        let refused = |text: &str| Snapshot::parse(text).unwrap_err().to_string();
        assert!(refused("{\"seq\": 1}").starts_with("not a snapshot"));
        assert!(refused("root:x:0:0").starts_with("not JSON"));
        assert!(refused("{\"sondeSnapshot\": 9}").contains("newer"));
    }

    /// A format 1 file still reads, its `decidedBy` read for the choice; the file written now
    /// has the choice and not the evidence, which differs between runs of one server.
    #[test]
    fn a_format_1_snapshot_reads_with_its_era_choice_and_the_evidence_is_not_written() {
        let format_1 = |decided_by: &str| {
            json!({"sondeSnapshot": 1, "serverInfo": {"name": "s"}, "protocolVersion": "2025-11-25",
                   "era": "legacy", "decidedBy": decided_by, "capabilities": {}})
            .to_string()
        };
        let forced = Snapshot::parse(&format_1("--era legacy; initialize")).unwrap();
        assert_eq!(forced.era_choice, EraChoice::Forced);
        for negotiated in ["server/discover answered -32601; initialize", "cached verdict; initialize"] {
            assert_eq!(Snapshot::parse(&format_1(negotiated)).unwrap().era_choice, EraChoice::Negotiated);
        }
        let text = forced.to_text();
        assert!(!text.contains("decidedBy") && !text.contains("--era"), "{text}");
        assert!(text.contains("\"eraChoice\": \"forced\""), "{text}");
        assert_eq!(Snapshot::parse(&text).unwrap(), forced);
        assert!(Snapshot::parse(&format!("{{\"sondeSnapshot\": {}}}", FORMAT + 1))
            .unwrap_err()
            .to_string()
            .contains("newer"));
    }

    /// A file that cannot be read is `io`, one that holds no snapshot `bad_input`, so a front
    /// end can tell a missing file from a wrong one without reading the words.
    #[test]
    fn a_missing_file_is_io_and_a_file_that_is_no_snapshot_is_bad_input() {
        let dir = tempfile::tempdir().unwrap();
        let missing = Snapshot::from_file(&dir.path().join("gone.json")).unwrap_err();
        assert_eq!(missing.code(), ErrorCode::Io, "{missing}");
        assert!(missing.to_string().starts_with("cannot read it: "), "{missing}");
        let other = dir.path().join("other.json");
        std::fs::write(&other, "{\"seq\": 1}").unwrap();
        let wrong = Snapshot::from_file(&other).unwrap_err();
        assert_eq!(wrong.code(), ErrorCode::BadInput, "{wrong}");
        assert!(matches!(wrong, SnapshotError::NotASnapshot), "{wrong}");
        let newer = Snapshot::parse(&format!("{{\"sondeSnapshot\": {}}}", FORMAT + 1)).unwrap_err();
        assert_eq!(newer.code(), ErrorCode::BadInput);
    }
}
