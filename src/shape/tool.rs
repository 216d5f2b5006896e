//! A `tools/list` entry as a front end shows it: every field it reads has the kind it expects,
//! or is absent and the problem says why.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use super::{schema_problems, Problems};

/// One listed tool, read.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolView {
    /// `None` when the entry has no name that is a string: such a tool cannot be called.
    pub name: Option<String>,
    /// What to call it: `title`, else the `annotations.title` older servers use, when a string.
    pub title: Option<String>,
    pub description: Option<String>,
    /// The `inputSchema` when it is an object a form can start from (its inner problems are in
    /// `problems`; a form copes with them); `None` when the arguments can only be typed as JSON.
    pub input_schema: Option<Value>,
    /// The icons that may be shown: `data:` raster images only (no SVG, nothing fetched).
    pub icons: Vec<String>,
    /// The annotations that are hints set to `true` (`readOnlyHint` → `readOnly`).
    pub hints: Vec<String>,
    /// What is wrong with the entry, in words; empty when nothing is.
    pub problems: Vec<String>,
    /// What its `_meta` says about MCP Apps (the app it bears, whether it is for apps only).
    pub app: Option<super::app_link::AppLink>,
    /// The entry exactly as the server sent it (a call passes it back for the outputSchema check).
    pub raw: Value,
}

/// Reads every entry of a listing. Two entries with one name are a problem on both: a call names
/// its tool, so the server cannot tell them apart.
pub fn read_tools(tools: &[Value]) -> Vec<ToolView> {
    let mut views: Vec<ToolView> = tools.iter().map(read_tool).collect();
    let mut seen: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, view) in views.iter().enumerate() {
        if let Some(name) = &view.name {
            seen.entry(name.clone()).or_default().push(i);
        }
    }
    for (name, at) in seen.into_iter().filter(|(_, at)| at.len() > 1) {
        let positions: Vec<String> = at.iter().map(|i| (i + 1).to_string()).collect();
        for &i in &at {
            views[i].problems.push(format!(
                "the name {name:?} is listed {} times (entries {}); a call cannot tell them apart",
                at.len(),
                positions.join(", ")
            ));
        }
    }
    views
}

fn read_tool(raw: &Value) -> ToolView {
    let mut problems = Problems::default();
    let mut view = ToolView {
        name: None,
        title: None,
        description: None,
        input_schema: None,
        icons: Vec::new(),
        hints: Vec::new(),
        problems: Vec::new(),
        app: super::app_link::app_link(raw),
        raw: raw.clone(),
    };
    let Value::Object(tool) = raw else {
        problems.wrong("the entry", raw, "an object");
        view.problems = problems.into_vec();
        return view;
    };
    let text = |field: &str, problems: &mut Problems| match tool.get(field) {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            problems.wrong(field, other, "a string");
            None
        }
    };
    view.name = text("name", &mut problems);
    if view.name.is_none() && tool.get("name").is_none() {
        problems.push("name is missing; the tool cannot be called".into());
    }
    view.title = text("title", &mut problems);
    view.description = text("description", &mut problems);
    match tool.get("inputSchema") {
        None => problems.push("inputSchema is missing; arguments can only be typed as JSON".into()),
        Some(schema @ Value::Object(_)) => {
            if let Some(t) = schema.get("type").filter(|t| t.as_str() != Some("object")) {
                problems.push(format!("inputSchema.type is {t}, not \"object\""));
            }
            for problem in schema_problems(schema, "inputSchema") {
                problems.push(problem);
            }
            view.input_schema = Some(schema.clone());
        }
        Some(other) => problems.wrong("inputSchema", other, "an object; arguments can only be typed as JSON"),
    }
    if let Some(schema) = tool.get("outputSchema").filter(|s| !s.is_object()) {
        problems.wrong("outputSchema", schema, "an object; results cannot be checked against it");
    }
    match tool.get("annotations") {
        None => {}
        Some(Value::Object(annotations)) => {
            for (key, value) in annotations {
                let Some(hint) = key.strip_suffix("Hint") else { continue };
                match value {
                    Value::Bool(true) => view.hints.push(hint.to_owned()),
                    Value::Bool(false) => {}
                    other => problems.wrong(&format!("annotations.{key}"), other, "true or false"),
                }
            }
            match annotations.get("title") {
                Some(Value::String(title)) if view.title.is_none() => view.title = Some(title.clone()),
                Some(Value::String(_)) | None => {}
                Some(other) => problems.wrong("annotations.title", other, "a string"),
            }
        }
        Some(other) => problems.wrong("annotations", other, "an object"),
    }
    match tool.get("icons") {
        None => {}
        Some(Value::Array(icons)) => {
            for (i, icon) in icons.iter().enumerate() {
                match icon.get("src") {
                    Some(Value::String(src)) if shown_icon(src) => view.icons.push(src.clone()),
                    Some(Value::String(_)) => {}
                    Some(other) => problems.wrong(&format!("icons[{i}].src"), other, "a string"),
                    None if icon.is_object() => problems.push(format!("icons[{i}] has no src")),
                    None => problems.wrong(&format!("icons[{i}]"), icon, "an icon (an object with a src)"),
                }
            }
        }
        Some(other) => problems.wrong("icons", other, "an array"),
    }
    view.problems = problems.into_vec();
    view
}

/// Sonde shows only raster images carried in the listing itself: an icon is never fetched, and
/// an SVG can hold script.
/// Whether a server's icon may be shown: a `data:` raster image (PNG, JPEG, GIF, WebP), never
/// an SVG or anything the window would fetch from a host the server chose.
pub fn shown_icon(src: &str) -> bool {
    ["data:image/png", "data:image/jpeg", "data:image/gif", "data:image/webp"]
        .iter()
        .any(|prefix| src.strip_prefix(prefix).is_some_and(|rest| rest.starts_with([';', ','])))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_well_formed_tool_is_read_without_problems() {
        let raw = json!({"name": "add", "title": "Add", "description": "Adds.",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]},
            "annotations": {"readOnlyHint": true, "destructiveHint": false},
            "icons": [{"src": "data:image/png;base64,AAAA"}, {"src": "https://example.com/a.png"},
                      {"src": "data:image/svg+xml,<svg/>"}]});
        let view = &read_tools(std::slice::from_ref(&raw))[0];
        assert_eq!(view.problems, Vec::<String>::new());
        assert_eq!(view.name.as_deref(), Some("add"));
        assert_eq!(view.title.as_deref(), Some("Add"));
        assert_eq!(view.input_schema, Some(raw["inputSchema"].clone()));
        assert_eq!(view.icons, ["data:image/png;base64,AAAA"]);
        assert_eq!(view.hints, ["readOnly"]);
        assert_eq!(view.raw, raw);
    }

    #[test]
    fn malformed_fields_are_left_out_and_said_in_words() {
        let raw = json!({"name": "bad", "title": {"text": "Bad"}, "description": 3,
            "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}, "required": 5},
            "outputSchema": "yes", "annotations": {"title": "Old title", "readOnlyHint": "yes"},
            "icons": {"src": "data:image/png;base64,AAAA"}});
        let view = &read_tools(&[raw])[0];
        assert_eq!(view.title.as_deref(), Some("Old title"), "annotations.title stands in");
        assert_eq!(view.description, None);
        assert!(view.input_schema.is_some(), "a form copes with a bad required");
        assert!(view.icons.is_empty());
        assert_eq!(
            view.problems,
            [
                "title is an object, not a string",
                "description is a number, not a string",
                "inputSchema.required is a number, not a list of property names",
                "outputSchema is a string, not an object; results cannot be checked against it",
                "annotations.readOnlyHint is a string, not true or false",
                "icons is an object, not an array",
            ]
        );
    }

    #[test]
    fn an_entry_that_is_no_tool_at_all_is_still_listed() {
        let views =
            read_tools(&[json!("echo"), json!({"title": "No name", "inputSchema": "x"}), json!({"name": 7})]);
        assert_eq!(views[0].problems, ["the entry is a string, not an object"]);
        assert_eq!(views[0].name, None);
        assert_eq!(
            views[1].problems,
            [
                "name is missing; the tool cannot be called",
                "inputSchema is a string, not an object; arguments can only be typed as JSON"
            ]
        );
        assert_eq!(views[1].input_schema, None);
        assert_eq!(views[2].problems[0], "name is a number, not a string");
    }

    #[test]
    fn a_name_listed_twice_is_a_problem_on_both() {
        let schema = json!({"type": "object"});
        let views = read_tools(&[
            json!({"name": "a", "inputSchema": schema}),
            json!({"name": "b", "inputSchema": schema}),
            json!({"name": "a", "inputSchema": schema}),
        ]);
        let twice = "the name \"a\" is listed 2 times (entries 1, 3); a call cannot tell them apart";
        assert_eq!(views[0].problems, [twice]);
        assert_eq!(views[1].problems, Vec::<String>::new());
        assert_eq!(views[2].problems, [twice]);
    }

    #[test]
    fn an_input_schema_that_is_not_an_object_schema_is_said() {
        let views = read_tools(&[json!({"name": "s", "inputSchema": {"type": "string"}})]);
        assert_eq!(views[0].problems, ["inputSchema.type is \"string\", not \"object\""]);
    }
}
