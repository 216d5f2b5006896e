//! Where a change is, on each side: the definition it belongs to (a tool, prompt, resource or
//! template; the capabilities; serverInfo; the instructions; the era) and the steps within it
//! to the value that changed, so that a window can set the two definitions side by side with
//! the changed key marked.
//!
//! Owns: reading a change's path back against a snapshot (the longest item name that prefixes
//! it, since a resource's URI has slashes of its own; an array's step by its element's name).
//! Refuses: finding changes (`diff`) and drawing them.

use serde::Serialize;
use serde_json::{json, Value};

use super::change::Change;
use super::snapshot::{identity, Snapshot};
use crate::session::listing::ListKind;

/// A change with its definition on each side.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
pub struct Placed {
    pub change: Change,
    /// What the change belongs to: `tools/add`, `capabilities`, `serverInfo`, `instructions`,
    /// `era`.
    pub definition: String,
    /// The definition in the old interface; absent when it has none (a tool added).
    pub old: Option<Definition>,
    pub new: Option<Definition>,
}

/// One side's definition, and the steps to the changed value within it (keys, and an array's
/// elements by index), as far as that side has them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
pub struct Definition {
    pub value: Value,
    pub at: Vec<String>,
}

/// Each change of `changes` (from `old` to `new`), placed on both sides.
pub fn place_changes(old: &Snapshot, new: &Snapshot, changes: Vec<Change>) -> Vec<Placed> {
    changes
        .into_iter()
        .map(|change| {
            let (definition, within) = split(old, new, &change.path);
            let within = to_required_list(&change, within);
            Placed {
                old: lookup(old, &definition).map(|value| walk(value, &within)),
                new: lookup(new, &definition).map(|value| walk(value, &within)),
                definition,
                change,
            }
        })
        .collect()
}

const KINDS: [ListKind; 4] = [ListKind::Tools, ListKind::Prompts, ListKind::Resources, ListKind::Templates];

fn items(snapshot: &Snapshot, kind: ListKind) -> &[Value] {
    let items = match kind {
        ListKind::Tools => &snapshot.tools,
        ListKind::Prompts => &snapshot.prompts,
        ListKind::Resources => &snapshot.resources,
        ListKind::Templates => &snapshot.resource_templates,
    };
    items.as_deref().unwrap_or_default()
}

/// A change's path as its definition and the steps within it: `tools/add/inputSchema/type` is
/// `tools/add` and `inputSchema`, `type`. An item's name is the longest one either side lists
/// that the path starts with.
fn split(old: &Snapshot, new: &Snapshot, path: &str) -> (String, Vec<String>) {
    for kind in KINDS {
        let Some(rest) = path.strip_prefix(kind.key()).and_then(|r| r.strip_prefix('/')) else { continue };
        let named = items(old, kind).iter().chain(items(new, kind)).map(|item| identity(kind, item));
        let id = named
            .filter(|id| rest == id || rest.strip_prefix(id.as_str()).is_some_and(|r| r.starts_with('/')))
            .max_by_key(String::len);
        if let Some(id) = id {
            let within = rest[id.len()..].split('/').filter(|s| !s.is_empty()).map(str::to_owned).collect();
            return (format!("{}/{id}", kind.key()), within);
        }
    }
    let mut steps = path.split('/').map(str::to_owned);
    let head = steps.next().unwrap_or_default();
    (head, steps.collect())
}

/// The definition named `definition` in `snapshot`, if it has one.
fn lookup(snapshot: &Snapshot, definition: &str) -> Option<Value> {
    for kind in KINDS {
        if let Some(id) = definition.strip_prefix(kind.key()).and_then(|r| r.strip_prefix('/')) {
            return items(snapshot, kind).iter().find(|item| identity(kind, item) == id).cloned();
        }
    }
    match definition {
        "capabilities" => Some(snapshot.capabilities.clone()),
        "serverInfo" => Some(snapshot.server_info.clone()),
        "instructions" => snapshot.instructions.clone().map(Value::from),
        "era" => Some(json!({
            "era": snapshot.era,
            "protocolVersion": snapshot.protocol_version,
            "eraChoice": snapshot.era_choice,
        })),
        _ => None,
    }
}

/// A property that became required (or optional) is a change of its schema's `required` list,
/// not of the property: the steps go to that list, and to the name in it where a side has it.
/// (A new required argument is the property itself, which one side lacks.)
fn to_required_list(change: &Change, mut within: Vec<String>) -> Vec<String> {
    let flipped = change.kind == "required" && change.old.is_none() && change.new.is_none();
    let n = within.len();
    if flipped && n >= 2 && within[n - 2] == "properties" {
        within[n - 2] = "required".into();
    }
    within
}

/// `value` with the steps of `within` that it has: a key of an object, or an element of an
/// array by its `name` (a prompt's arguments), by being that string (a `required` list's
/// names) or by its index.
fn walk(value: Value, within: &[String]) -> Definition {
    let mut at = Vec::new();
    let mut here = &value;
    for step in within {
        let next = match here {
            Value::Object(map) => map.get(step).map(|v| (step.clone(), v)),
            Value::Array(items) => items
                .iter()
                .position(|item| item.get("name").and_then(Value::as_str) == Some(step.as_str()))
                .or_else(|| items.iter().position(|item| item.as_str() == Some(step.as_str())))
                .or_else(|| step.parse().ok().filter(|i| *i < items.len()))
                .map(|i| (i.to_string(), &items[i])),
            _ => None,
        };
        let Some((key, next)) = next else { break };
        at.push(key);
        here = next;
    }
    Definition { value, at }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interface::diff;

    fn snapshot(tools: Value, resources: Value, prompts: Value) -> Snapshot {
        Snapshot {
            sonde_snapshot: 1,
            server_info: json!({"name": "s", "version": "1"}),
            protocol_version: "2025-11-25".into(),
            era: "legacy".into(),
            era_choice: super::super::snapshot::EraChoice::Negotiated,
            capabilities: json!({"tools": {}, "resources": {}, "prompts": {}}),
            instructions: None,
            tools: serde_json::from_value(tools).unwrap(),
            prompts: serde_json::from_value(prompts).unwrap(),
            resources: serde_json::from_value(resources).unwrap(),
            resource_templates: Some(vec![]),
            skills: None,
        }
    }

    #[test]
    fn a_change_is_placed_in_its_definition_on_both_sides_down_to_the_key() {
        let old = snapshot(
            json!([{"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}}}]),
            json!([{"uri": "file:///a/b", "name": "b"}]),
            json!([{"name": "greet", "arguments": [{"name": "who"}]}]),
        );
        let mut new = snapshot(
            json!([{"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}]),
            json!([{"uri": "file:///a/b", "name": "b", "description": "now described"}]),
            json!([{"name": "greet", "arguments": [{"name": "who", "required": true}]}]),
        );
        new.server_info = json!({"name": "s", "version": "2"});
        let placed = place_changes(&old, &new, diff(&old, &new));
        let find = |path: &str| {
            placed.iter().find(|p| p.change.path == path).unwrap_or_else(|| panic!("{path}: {placed:#?}"))
        };

        let typed = find("tools/add/inputSchema/properties/a/type");
        assert_eq!(typed.definition, "tools/add");
        let at = ["inputSchema", "properties", "a", "type"].map(String::from).to_vec();
        assert_eq!(typed.old.as_ref().unwrap().at, at);
        assert_eq!(typed.new.as_ref().unwrap().value["inputSchema"]["properties"]["a"]["type"], "string");

        // A URI's own slashes are the item's name, not steps within it.
        let described = find("resources/file:///a/b/description");
        assert_eq!(described.definition, "resources/file:///a/b");
        assert_eq!(
            described.old.as_ref().unwrap().at,
            Vec::<String>::new(),
            "the old side has no description"
        );
        assert_eq!(described.new.as_ref().unwrap().at, vec!["description".to_owned()]);

        // A prompt's argument is found in its array by name.
        let required = find("prompts/greet/arguments/who");
        assert_eq!(required.new.as_ref().unwrap().at, ["arguments", "0"].map(String::from).to_vec());

        let version = find("serverInfo/version");
        assert_eq!(
            (version.definition.as_str(), version.new.as_ref().unwrap().at.clone()),
            ("serverInfo", vec!["version".to_owned()])
        );
    }

    #[test]
    fn a_property_made_required_marks_the_required_list_not_the_property() {
        let schema = |required: Value| {
            json!([{"name": "spend", "inputSchema": {"type": "object",
                "properties": {"budget": {"type": "number"}, "note": {"type": "string"}}, "required": required}}])
        };
        let old = snapshot(schema(json!(["note"])), json!([]), json!([]));
        let new = snapshot(schema(json!(["note", "budget"])), json!([]), json!([]));
        let placed = place_changes(&old, &new, diff(&old, &new));
        let required = placed.iter().find(|p| p.change.kind == "required").expect("a required change");
        assert_eq!(required.change.path, "tools/spend/inputSchema/properties/budget");
        // The old list lacks the name: the list is marked; the new one has it: the name is.
        assert_eq!(required.old.as_ref().unwrap().at, ["inputSchema", "required"].map(String::from).to_vec());
        assert_eq!(
            required.new.as_ref().unwrap().at,
            ["inputSchema", "required", "1"].map(String::from).to_vec()
        );
    }

    #[test]
    fn a_removed_item_has_its_definition_on_the_old_side_only() {
        let old = snapshot(json!([{"name": "gone"}]), json!([]), json!([]));
        let new = snapshot(json!([]), json!([]), json!([]));
        let placed = place_changes(&old, &new, diff(&old, &new));
        assert_eq!(placed.len(), 1);
        assert_eq!(placed[0].definition, "tools/gone");
        assert_eq!(placed[0].old.as_ref().unwrap().value["name"], "gone");
        assert!(placed[0].new.is_none());
    }
}
