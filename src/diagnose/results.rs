//! The rule that reads a reply's result against the fields its method requires.

use serde_json::Value;

use super::{Finding, Severity};

/// The kind of JSON a required field must be.
#[derive(Clone, Copy)]
enum Shape {
    Array,
    Object,
    String,
    Number,
}

impl Shape {
    fn holds(self, v: &Value) -> bool {
        match self {
            Shape::Array => v.is_array(),
            Shape::Object => v.is_object(),
            Shape::String => v.is_string(),
            Shape::Number => v.is_number(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Shape::Array => "an array",
            Shape::Object => "an object",
            Shape::String => "a string",
            Shape::Number => "a number",
        }
    }
}

/// The fields a method's result requires, and the schema type that says so.
fn required(method: &str) -> (&'static str, &'static [(&'static str, Shape)]) {
    use Shape::*;
    match method {
        "initialize" => (
            "InitializeResult",
            &[("protocolVersion", String), ("capabilities", Object), ("serverInfo", Object)],
        ),
        "server/discover" => ("DiscoverResult", &[("supportedVersions", Array), ("capabilities", Object)]),
        "tools/list" => ("ListToolsResult", &[("tools", Array)]),
        "tools/call" => ("CallToolResult", &[("content", Array)]),
        "resources/list" => ("ListResourcesResult", &[("resources", Array)]),
        "resources/templates/list" => ("ListResourceTemplatesResult", &[("resourceTemplates", Array)]),
        "resources/read" => ("ReadResourceResult", &[("contents", Array)]),
        "prompts/list" => ("ListPromptsResult", &[("prompts", Array)]),
        "prompts/get" => ("GetPromptResult", &[("messages", Array)]),
        "completion/complete" => ("CompleteResult", &[("completion", Object)]),
        _ => ("", &[]),
    }
}

/// What 2026-07-28 adds to a result: `resultType` on every one, and how long it may be kept on
/// those a client may cache (`CacheableResult`).
fn modern_fields(method: &str) -> &'static [(&'static str, Shape)] {
    use Shape::*;
    match method {
        "server/discover"
        | "tools/list"
        | "resources/list"
        | "resources/templates/list"
        | "resources/read"
        | "prompts/list" => &[("resultType", String), ("ttlMs", Number), ("cacheScope", String)],
        "tools/call" | "prompts/get" | "completion/complete" => &[("resultType", String)],
        _ => &[],
    }
}

/// What is wrong with the result of `method`, field by field, in the era the connection speaks
/// (`modern`: 2026-07-28, whose discover answers before the era is settled). A result that is
/// not the final one (a task created, a 2026-07-28 `resultType` other than `complete`) has other
/// fields and is not read here.
pub fn result_shape(method: &str, result: &Value, modern: bool) -> Vec<Finding> {
    // Another `resultType` names another shape; one that is not a string is itself wrong.
    let finished = result.get("task").is_none()
        && result.get("resultType").and_then(Value::as_str).is_none_or(|t| t == "complete");
    let (schema, fields) = required(method);
    if !finished || fields.is_empty() {
        return Vec::new();
    }
    let modern = modern || method == "server/discover";
    let extra = if modern { modern_fields(method) } else { &[] };
    fields
        .iter()
        .chain(extra)
        .filter_map(|&(field, shape)| {
            let found = match result.get(field) {
                Some(v) if shape.holds(v) => return None,
                Some(v) => format!("is {}", crate::shape::kind(v)),
                None => "is missing".to_owned(),
            };
            let era = if modern { " (2026-07-28)" } else { "" };
            Some(Finding::new(
                "result-shape",
                Severity::Error,
                format!(
                    "{method}'s result: `{field}` {found}, where {schema}{era} requires {}",
                    shape.name()
                ),
                &format!("MCP schema: {schema}.{field}"),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_result_missing_what_its_method_requires_is_an_error_naming_the_field() {
        let found = result_shape("tools/call", &json!({"isError": false}), false);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "result-shape");
        assert_eq!(found[0].severity, Severity::Error);
        assert_eq!(
            found[0].detail,
            "tools/call's result: `content` is missing, where CallToolResult requires an array"
        );
        assert_eq!(found[0].spec, "MCP schema: CallToolResult.content");
        let wrong = result_shape("tools/list", &json!({"tools": {"echo": {}}}), false);
        assert!(wrong[0].detail.contains("`tools` is an object"), "{wrong:?}");
    }

    #[test]
    fn well_formed_results_and_results_that_are_not_final_have_no_finding() {
        assert!(result_shape("tools/call", &json!({"content": []}), false).is_empty());
        assert!(result_shape("tools/call", &json!({"task": {"taskId": "t"}}), true).is_empty());
        assert!(result_shape("tools/call", &json!({"resultType": "input_required"}), true).is_empty());
        assert!(result_shape("ping", &json!({}), false).is_empty());
        let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s"}});
        assert!(result_shape("initialize", &init, false).is_empty());
    }

    #[test]
    fn a_2026_07_28_result_says_its_type_and_how_long_it_may_be_kept() {
        let legacy_list = json!({"tools": []});
        assert!(result_shape("tools/list", &legacy_list, false).is_empty());
        let missing: Vec<String> =
            result_shape("tools/list", &legacy_list, true).into_iter().map(|f| f.detail).collect();
        assert_eq!(missing.len(), 3, "{missing:?}");
        assert!(missing[0]
            .contains("`resultType` is missing, where ListToolsResult (2026-07-28) requires a string"));
        let whole = json!({"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "public"});
        assert!(result_shape("tools/list", &whole, true).is_empty());
        let call = json!({"content": [], "resultType": "complete"});
        assert!(result_shape("tools/call", &call, true).is_empty());
    }
}
