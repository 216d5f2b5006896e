//! A server's interface as one JSON document: what it is, how its era was decided, what it
//! declares and everything it lists, each listing followed to its end, in a stable order (items
//! by name or URI, object keys sorted) so two snapshots of one server diff cleanly.
//!
//! Owns: the snapshot's shape and its format version, taking one from a live session, and
//! reading one back (anything else is refused, naming what was expected). Refuses: comparing
//! them (`diff`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::connection::RequestError;
use crate::era::Era;
use crate::features::listing::ListKind;
use crate::mcp::Session;

/// The format version a snapshot carries, so a later Sonde can read an earlier one.
pub const FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// The format version ([`FORMAT`]); its presence says the file is a snapshot.
    pub sonde_snapshot: u32,
    pub server_info: Value,
    pub protocol_version: String,
    /// `legacy` (2025-11-25) or `modern` (2026-07-28), and how that was decided.
    pub era: String,
    pub decided_by: String,
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
            decided_by: server.decided_by.clone(),
            capabilities: sorted(&server.capabilities),
            instructions: server.instructions.clone(),
            tools: listed(ListKind::Tools).await?,
            prompts: listed(ListKind::Prompts).await?,
            resources: listed(ListKind::Resources).await?,
            resource_templates: listed(ListKind::Templates).await?,
        })
    }

    /// Reads a snapshot back from its text, or says what the text is instead.
    pub fn parse(text: &str) -> Result<Snapshot, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("not JSON ({e}); a snapshot was expected"))?;
        match value.get("sondeSnapshot").and_then(Value::as_u64) {
            None => {
                Err("not a snapshot (no sondeSnapshot format version); make one with sonde snapshot".into())
            }
            Some(v) if v > u64::from(FORMAT) => {
                Err(format!("a snapshot of format {v}, newer than this Sonde reads ({FORMAT})"))
            }
            Some(_) => {
                serde_json::from_value(value).map_err(|e| format!("a snapshot, but not a whole one: {e}"))
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
            decided_by: "initialize".into(),
            capabilities: json!({"tools": {}}),
            instructions: None,
            tools: Some(vec![json!({"name": "a", "inputSchema": {"type": "object"}})]),
            prompts: None,
            resources: None,
            resource_templates: None,
        };
        let text = snapshot.to_text();
        assert!(
            text.find("\"name\": \"s\"").unwrap() < text.find("\"version\": \"1\"").unwrap(),
            "keys sorted"
        );
        assert_eq!(Snapshot::parse(&text).unwrap().tools, snapshot.tools);
        assert!(Snapshot::parse("{\"seq\": 1}").unwrap_err().starts_with("not a snapshot"));
        assert!(Snapshot::parse("root:x:0:0").unwrap_err().starts_with("not JSON"));
        assert!(Snapshot::parse("{\"sondeSnapshot\": 9}").unwrap_err().contains("newer"));
    }
}
