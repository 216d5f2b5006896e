//! A JSON Schema as a form reads it: the keywords a form uses must have the kinds it expects.
//! Anything else in the schema is the server's business and is not looked at.

use serde_json::Value;

use super::Problems;

/// Deeper than this a form edits the value as JSON text, so nothing deeper is checked (the UI's
/// schema form stops at the same depth: it reads this constant from the bindings).
pub const MAX_DEPTH: usize = 8;

/// What keeps `schema` from being read by a form, each problem named by its path from `at`
/// (`inputSchema.properties.to.required is a number, not a list of property names`).
pub fn schema_problems(schema: &Value, at: &str) -> Vec<String> {
    let mut problems = Problems::default();
    check(schema, at, 0, &mut problems);
    problems.into_vec()
}

fn check(schema: &Value, at: &str, depth: usize, problems: &mut Problems) {
    if depth > MAX_DEPTH {
        return;
    }
    let node = match schema {
        Value::Object(node) => node,
        // `true` and `false` are schemas too: anything, and nothing.
        Value::Bool(_) => return,
        other => return problems.wrong(at, other, "a schema (an object)"),
    };
    for word in ["title", "description", "$ref"] {
        if let Some(v) = node.get(word).filter(|v| !v.is_string()) {
            problems.wrong(&format!("{at}.{word}"), v, "a string");
        }
    }
    match node.get("type") {
        None | Some(Value::String(_)) => {}
        Some(Value::Array(names)) if names.iter().all(Value::is_string) => {}
        Some(other) => problems.wrong(&format!("{at}.type"), other, "a type name or a list of them"),
    }
    match node.get("required") {
        None => {}
        Some(Value::Array(names)) => {
            for (i, name) in names.iter().enumerate().filter(|(_, n)| !n.is_string()) {
                problems.wrong(&format!("{at}.required[{i}]"), name, "a property name");
            }
        }
        Some(other) => problems.wrong(&format!("{at}.required"), other, "a list of property names"),
    }
    for word in ["enum", "enumNames"] {
        if let Some(v) = node.get(word).filter(|v| !v.is_array()) {
            problems.wrong(&format!("{at}.{word}"), v, "a list");
        }
    }
    for word in ["properties", "$defs", "definitions"] {
        match node.get(word) {
            None => {}
            Some(Value::Object(children)) => {
                for (name, child) in children {
                    check(child, &format!("{at}.{word}.{name}"), depth + 1, problems);
                }
            }
            Some(other) => problems.wrong(&format!("{at}.{word}"), other, "an object of schemas"),
        }
    }
    for word in ["oneOf", "anyOf", "allOf"] {
        match node.get(word) {
            None => {}
            Some(Value::Array(branches)) => {
                for (i, branch) in branches.iter().enumerate() {
                    check(branch, &format!("{at}.{word}[{i}]"), depth + 1, problems);
                }
            }
            Some(other) => problems.wrong(&format!("{at}.{word}"), other, "a list of schemas"),
        }
    }
    if let Some(items) = node.get("items") {
        check(items, &format!("{at}.items"), depth + 1, problems);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_well_formed_schema_has_no_problems() {
        let schema = json!({"type": "object", "title": "Args",
            "properties": {"to": {"type": "object", "properties": {"city": {"type": ["string", "null"]}},
                                  "required": ["city"]},
                           "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
                           "pay": {"oneOf": [true, {"$ref": "#/$defs/card"}]}},
            "$defs": {"card": {"type": "string"}},
            "required": ["to"]});
        assert_eq!(schema_problems(&schema, "inputSchema"), Vec::<String>::new());
    }

    #[test]
    fn each_keyword_of_the_wrong_kind_is_named_by_its_path() {
        let schema = json!({"type": 7, "title": {"text": "Args"}, "required": 5,
            "properties": {"to": {"required": ["city", 3], "properties": []},
                           "n": "number",
                           "tags": {"items": {"enum": "a"}}},
            "oneOf": {}});
        assert_eq!(
            schema_problems(&schema, "inputSchema"),
            [
                "inputSchema.title is an object, not a string",
                "inputSchema.type is a number, not a type name or a list of them",
                "inputSchema.required is a number, not a list of property names",
                "inputSchema.properties.to.required[1] is a number, not a property name",
                "inputSchema.properties.to.properties is an array, not an object of schemas",
                "inputSchema.properties.n is a string, not a schema (an object)",
                "inputSchema.properties.tags.items.enum is a string, not a list",
                "inputSchema.oneOf is an object, not a list of schemas",
            ]
        );
    }

    #[test]
    fn a_flood_of_problems_is_capped_and_counted() {
        let properties: serde_json::Map<String, Value> =
            (0..1000).map(|i| (format!("p{i}"), json!({"title": i}))).collect();
        let problems = schema_problems(&json!({ "properties": properties }), "s");
        assert_eq!(problems.len(), super::super::MAX_PROBLEMS + 1);
        assert_eq!(problems.last().unwrap(), "… and 980 more problems");
    }

    #[test]
    fn a_schema_nested_past_the_form_depth_is_not_walked() {
        let mut deep = json!({"title": 1});
        for _ in 0..50 {
            deep = json!({ "items": deep });
        }
        assert_eq!(schema_problems(&deep, "s"), Vec::<String>::new());
    }
}
