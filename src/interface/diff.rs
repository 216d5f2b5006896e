//! What changed between two snapshots of a server's interface, each change with a verdict for
//! the clients that use it: `breaking` (a client that worked may fail), `change` (it still
//! works; worth a look) or `addition` (something new to use).
//!
//! Owns: the classification. Input and output schemas break in opposite directions: an input
//! schema breaks clients when it accepts less, an output schema when it promises less.
//! Schemas are compared as the server sent them, `$ref`s within the document followed; where
//! a change cannot be judged (a pattern, a format), it is a `change` that says so, never a
//! guess. A listing never made (its capability absent) is the capability changing, not every
//! item removed. Refuses: taking snapshots (`snapshot`) and presenting the changes.

use serde_json::Value;

use super::change::{Change, Changes, Severity};
use super::schema_diff::Schemas;
use super::snapshot::{identity, Snapshot};
use crate::features::listing::ListKind;

/// Every change from `old` to `new`, breaking first, then changes, then additions, each group
/// in the order the interface lists them.
pub fn diff(old: &Snapshot, new: &Snapshot) -> Vec<Change> {
    let mut out = Changes(Vec::new());
    if old.era != new.era {
        out.push(
            Severity::Breaking,
            "era",
            "era",
            Some(&Value::from(old.protocol_version.clone())),
            Some(&Value::from(new.protocol_version.clone())),
            format!(
                "the era changed: {} ({}) is no longer what it speaks, now {} ({})",
                old.era, old.protocol_version, new.era, new.protocol_version
            ),
        );
    }
    capabilities(&old.capabilities, &new.capabilities, &mut out);
    let version = |s: &Snapshot| s.server_info.get("version").cloned();
    if version(old) != version(new) {
        let detail = "serverInfo version".to_owned();
        out.push(
            Severity::Change,
            "text",
            "serverInfo/version",
            version(old).as_ref(),
            version(new).as_ref(),
            detail,
        );
    }
    if old.instructions != new.instructions {
        let (o, n) = (old.instructions.clone().map(Value::from), new.instructions.clone().map(Value::from));
        out.push(
            Severity::Change,
            "text",
            "instructions",
            o.as_ref(),
            n.as_ref(),
            "the instructions changed".into(),
        );
    }
    for (kind, o, n) in [
        (ListKind::Tools, &old.tools, &new.tools),
        (ListKind::Prompts, &old.prompts, &new.prompts),
        (ListKind::Resources, &old.resources, &new.resources),
        (ListKind::Templates, &old.resource_templates, &new.resource_templates),
    ] {
        // A listing on one side only is its capability changing, said above.
        if let (Some(o), Some(n)) = (o, n) {
            listing(kind, o, n, &mut out);
        }
    }
    let mut changes = out.0;
    changes.sort_by_key(|c| c.severity);
    changes
}

fn capabilities(old: &Value, new: &Value, out: &mut Changes) {
    let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
    for key in keys(old) {
        let path = format!("capabilities/{key}");
        match new.get(&key) {
            None => out.push(
                Severity::Breaking,
                "capability",
                &path,
                old.get(&key),
                None,
                format!("the {key} capability was withdrawn"),
            ),
            Some(n) if Some(n) != old.get(&key) => out.push(
                Severity::Change,
                "capability",
                &path,
                old.get(&key),
                Some(n),
                format!("the {key} capability's options changed"),
            ),
            Some(_) => {}
        }
    }
    for key in keys(new).into_iter().filter(|k| old.get(k).is_none()) {
        let path = format!("capabilities/{key}");
        out.push(
            Severity::Addition,
            "capability",
            &path,
            None,
            new.get(&key),
            format!("the {key} capability is new"),
        );
    }
}

/// Every change between two listings of one kind, items matched by name or URI (never by
/// place), breaking first: what a replay and the inner loop judge a listing answer with.
pub fn listings(kind: ListKind, old: &[Value], new: &[Value]) -> Vec<Change> {
    let mut out = Changes(Vec::new());
    listing(kind, old, new, &mut out);
    let mut changes = out.0;
    changes.sort_by_key(|c| c.severity);
    changes
}

fn listing(kind: ListKind, old: &[Value], new: &[Value], out: &mut Changes) {
    let what = match kind {
        ListKind::Tools => "tool",
        ListKind::Prompts => "prompt",
        ListKind::Resources => "resource",
        ListKind::Templates => "resource template",
    };
    let find = |items: &[Value], id: &str| items.iter().find(|i| identity(kind, i) == id).cloned();
    for o in old {
        let id = identity(kind, o);
        let path = format!("{}/{id}", kind.key());
        match find(new, &id) {
            None => out.push(
                Severity::Breaking,
                "removed",
                &path,
                Some(o),
                None,
                format!("the {what} was removed"),
            ),
            Some(n) => item(kind, &path, o, &n, out),
        }
    }
    for n in new.iter().filter(|n| find(old, &identity(kind, n)).is_none()) {
        let path = format!("{}/{}", kind.key(), identity(kind, n));
        out.push(Severity::Addition, "added", &path, None, Some(n), format!("a new {what}"));
    }
}

/// One item on both sides: its words, and for a tool its schemas, for a prompt its arguments.
fn item(kind: ListKind, path: &str, old: &Value, new: &Value, out: &mut Changes) {
    for key in ["title", "description", "annotations", "_meta", "mimeType", "name", "icons"] {
        if old.get(key) != new.get(key) {
            let detail = format!("its {key} changed");
            out.push(Severity::Change, "text", &format!("{path}/{key}"), old.get(key), new.get(key), detail);
        }
    }
    match kind {
        ListKind::Tools => {
            let (oi, ni) = (
                old.get("inputSchema").unwrap_or(&Value::Null),
                new.get("inputSchema").unwrap_or(&Value::Null),
            );
            Schemas { old_root: oi, new_root: ni, input: true, out }.compare(
                &format!("{path}/inputSchema"),
                oi,
                ni,
            );
            match (old.get("outputSchema"), new.get("outputSchema")) {
                (Some(o), None) => out.push(
                    Severity::Breaking,
                    "schema",
                    &format!("{path}/outputSchema"),
                    Some(o),
                    None,
                    "its outputSchema was removed: its structured results are no longer promised".into(),
                ),
                (None, Some(n)) => out.push(
                    Severity::Addition,
                    "schema",
                    &format!("{path}/outputSchema"),
                    None,
                    Some(n),
                    "it now promises structured results (an outputSchema)".into(),
                ),
                (Some(o), Some(n)) => Schemas { old_root: o, new_root: n, input: false, out }.compare(
                    &format!("{path}/outputSchema"),
                    o,
                    n,
                ),
                (None, None) => {}
            }
        }
        ListKind::Prompts => prompt_arguments(path, old, new, out),
        _ => {}
    }
}

fn prompt_arguments(path: &str, old: &Value, new: &Value, out: &mut Changes) {
    let args = |v: &Value| v.get("arguments").and_then(Value::as_array).cloned().unwrap_or_default();
    let (old_args, new_args) = (args(old), args(new));
    let named = |list: &[Value], name: &str| {
        list.iter().find(|a| a.get("name").and_then(Value::as_str) == Some(name)).cloned()
    };
    let required = |a: &Value| a.get("required").and_then(Value::as_bool).unwrap_or(false);
    for o in &old_args {
        let name = o.get("name").and_then(Value::as_str).unwrap_or_default();
        let at = format!("{path}/arguments/{name}");
        match named(&new_args, name) {
            None => out.push(
                Severity::Breaking,
                "removed",
                &at,
                Some(o),
                None,
                format!("argument {name:?} was removed"),
            ),
            Some(n) if required(&n) && !required(o) => out.push(
                Severity::Breaking,
                "required",
                &at,
                Some(o),
                Some(&n),
                format!("argument {name:?} is now required"),
            ),
            Some(n) if !required(&n) && required(o) => out.push(
                Severity::Addition,
                "required",
                &at,
                Some(o),
                Some(&n),
                format!("argument {name:?} is now optional"),
            ),
            Some(n) if n != *o => out.push(
                Severity::Change,
                "text",
                &at,
                Some(o),
                Some(&n),
                format!("argument {name:?}'s words changed"),
            ),
            Some(_) => {}
        }
    }
    for n in &new_args {
        let name = n.get("name").and_then(Value::as_str).unwrap_or_default();
        if named(&old_args, name).is_none() {
            let at = format!("{path}/arguments/{name}");
            if required(n) {
                out.push(
                    Severity::Breaking,
                    "required",
                    &at,
                    None,
                    Some(n),
                    format!("new required argument {name:?}"),
                );
            } else {
                out.push(
                    Severity::Addition,
                    "added",
                    &at,
                    None,
                    Some(n),
                    format!("new optional argument {name:?}"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn snapshot(tools: Value) -> Snapshot {
        Snapshot {
            sonde_snapshot: 1,
            server_info: json!({"name": "s", "version": "1"}),
            protocol_version: "2025-11-25".into(),
            era: "legacy".into(),
            decided_by: "initialize".into(),
            capabilities: json!({"tools": {}}),
            instructions: None,
            tools: Some(tools.as_array().unwrap().clone()),
            prompts: None,
            resources: None,
            resource_templates: None,
        }
    }

    fn lines(old: Value, new: Value) -> Vec<String> {
        diff(&snapshot(old), &snapshot(new))
            .iter()
            .map(|c| format!("{} {}: {}", c.severity.name(), c.path, c.detail))
            .collect()
    }

    #[test]
    fn input_schemas_break_when_they_accept_less() {
        let add = |props: Value, required: Value| json!([{"name": "add", "inputSchema": {"type": "object", "properties": props, "required": required}}]);
        let old = add(
            json!({"a": {"type": "number"}, "mode": {"type": "string", "enum": ["x", "y"]}}),
            json!(["a"]),
        );
        let new = add(
            json!({"a": {"type": "integer"}, "mode": {"type": "string", "enum": ["x"]}, "c": {"type": "integer"}}),
            json!(["a", "c"]),
        );
        assert_eq!(
            lines(old.clone(), new),
            [
                "breaking tools/add/inputSchema/properties/a/type: type number became integer",
                "breaking tools/add/inputSchema/properties/mode/enum: enum value \"y\" was removed",
                "breaking tools/add/inputSchema/properties/c: new required argument \"c\" (integer)",
            ]
        );
        let wider = add(
            json!({"a": {"type": ["number", "string"]}, "mode": {"type": "string", "enum": ["x", "y", "z"]}, "d": {"type": "string"}}),
            json!([]),
        );
        assert_eq!(
            lines(old, wider),
            [
                "addition tools/add/inputSchema/properties/a: property \"a\" is now optional",
                "addition tools/add/inputSchema/properties/a/type: type number became number|string",
                "addition tools/add/inputSchema/properties/mode/enum: enum value \"z\" was added",
                "addition tools/add/inputSchema/properties/d: new optional argument \"d\" (string)",
            ]
        );
    }

    #[test]
    fn output_schemas_break_when_they_promise_less_and_refs_are_followed() {
        let tool = |output: Value| json!([{"name": "weather", "inputSchema": {"type": "object"}, "outputSchema": output}]);
        let old = tool(
            json!({"type": "object", "$defs": {"t": {"type": "integer"}}, "properties": {"temp": {"$ref": "#/$defs/t"}, "sky": {"type": "string"}}, "required": ["temp", "sky"]}),
        );
        let new = tool(
            json!({"type": "object", "$defs": {"t": {"type": "number"}}, "properties": {"temp": {"$ref": "#/$defs/t"}}, "required": []}),
        );
        assert_eq!(
            lines(old, new),
            [
                "breaking tools/weather/outputSchema/properties/temp: property \"temp\" is now optional",
                "breaking tools/weather/outputSchema/properties/temp/type: type integer became number",
                "breaking tools/weather/outputSchema/properties/sky: property \"sky\" is no longer in the output",
            ]
        );
    }

    #[test]
    fn removed_and_added_items_words_and_undecidable_changes() {
        let old = json!([{"name": "a", "description": "A", "inputSchema": {"type": "object", "properties": {"s": {"type": "string", "pattern": "^x"}}}}, {"name": "gone", "inputSchema": {"type": "object"}}]);
        let new = json!([{"name": "a", "description": "A!", "inputSchema": {"type": "object", "properties": {"s": {"type": "string", "pattern": "^y"}}}}, {"name": "fresh", "inputSchema": {"type": "object"}}]);
        assert_eq!(
            lines(old.clone(), new),
            [
                "breaking tools/gone: the tool was removed",
                "change tools/a/description: its description changed",
                "change tools/a/inputSchema/properties/s/pattern: its pattern changed; could not tell whether this narrows what it accepts",
                "addition tools/fresh: a new tool",
            ]
        );
        assert!(lines(old.clone(), old).is_empty(), "a snapshot against itself has no change");
        // A capability withdrawn is said once, not as every tool removed.
        let mut none = snapshot(json!([]));
        none.capabilities = json!({});
        none.tools = None;
        let changes = diff(&snapshot(json!([{"name": "a"}])), &none);
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].detail, "the tools capability was withdrawn");
    }
}
