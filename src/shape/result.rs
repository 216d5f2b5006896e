//! A `tools/call` result as a front end shows it: `content` is a list of blocks of the kinds
//! the protocol names, each with the fields its kind needs.

use serde_json::Value;

use super::Problems;

/// What is wrong with a `CallToolResult`, in words; empty when nothing is. A block of a kind
/// Sonde does not know is said too: it is shown as JSON.
pub fn result_problems(result: &Value) -> Vec<String> {
    let mut problems = Problems::default();
    let Value::Object(fields) = result else {
        problems.wrong("the result", result, "an object");
        return problems.into_vec();
    };
    match fields.get("content") {
        None => problems.push("content is missing; a result lists its content blocks".into()),
        Some(Value::Array(blocks)) => {
            for (i, block) in blocks.iter().enumerate() {
                check_block(block, &format!("content[{i}]"), &mut problems);
            }
        }
        Some(other) => problems.wrong("content", other, "an array"),
    }
    if let Some(v) = fields.get("isError").filter(|v| !v.is_boolean()) {
        problems.wrong("isError", v, "true or false");
    }
    if let Some(v) = fields.get("structuredContent").filter(|v| !v.is_object()) {
        problems.wrong("structuredContent", v, "an object");
    }
    problems.into_vec()
}

/// Whether a result's `structuredContent` only repeats a text block of its `content`: the same
/// JSON, as the spec suggests a server send it both ways, or an object of one field that holds
/// the text itself or its JSON (server-filesystem sends `{"content": text}`, server-memory
/// `{"entities": […]}` for a text of that array). A front end then shows it once.
pub fn structured_in_text(result: &Value) -> bool {
    let Some(structured) = result.get("structuredContent") else { return false };
    let wrapped = structured.as_object().filter(|o| o.len() == 1).and_then(|o| o.values().next());
    let mut texts = result["content"].as_array().into_iter().flatten().filter_map(|b| b["text"].as_str());
    texts.any(|text| {
        let parsed = serde_json::from_str::<Value>(text).ok();
        parsed.as_ref() == Some(structured)
            || wrapped.is_some_and(|inner| inner.as_str() == Some(text) || parsed.as_ref() == Some(inner))
    })
}

fn check_block(block: &Value, at: &str, problems: &mut Problems) {
    let Value::Object(fields) = block else {
        return problems.wrong(at, block, "a content block (an object)");
    };
    let kind = match fields.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(other) => return problems.wrong(&format!("{at}.type"), other, "a string"),
        None => return problems.push(format!("{at} has no type")),
    };
    let needs: &[&str] = match kind {
        "text" => &["text"],
        "image" | "audio" => &["data", "mimeType"],
        "resource_link" => &["uri", "name"],
        "resource" => return check_resource(fields.get("resource"), at, problems),
        other => {
            return problems
                .push(format!("{at} is of type {other:?}, which Sonde does not know; shown as JSON"))
        }
    };
    for field in needs {
        match fields.get(*field) {
            Some(Value::String(_)) => {}
            Some(other) => problems.wrong(&format!("{at}.{field}"), other, "a string"),
            None => problems.push(format!("{at} ({kind}) has no {field}")),
        }
    }
}

fn check_resource(resource: Option<&Value>, at: &str, problems: &mut Problems) {
    let Some(resource) = resource else { return problems.push(format!("{at} (resource) has no resource")) };
    let Value::Object(fields) = resource else {
        return problems.wrong(&format!("{at}.resource"), resource, "an object");
    };
    if !fields.get("uri").is_some_and(Value::is_string) {
        problems.push(format!("{at}.resource has no uri that is a string"));
    }
    let text = fields.get("text").is_some_and(Value::is_string);
    let blob = fields.get("blob").is_some_and(Value::is_string);
    if !text && !blob {
        problems.push(format!("{at}.resource has neither text nor blob as a string"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structured_content_that_only_repeats_a_text_is_known_as_such() {
        let text = |t: &str| json!([{"type": "text", "text": t}]);
        // The same JSON both ways (server-everything's weather).
        let same = json!({"content": text(r#"{"t": 21}"#), "structuredContent": {"t": 21}});
        // The text wrapped in one field (server-filesystem), or its JSON (server-memory).
        let files =
            json!({"content": text("[FILE] a.txt"), "structuredContent": {"content": "[FILE] a.txt"}});
        let graph = json!({"content": text(r#"[{"name": "x"}]"#), "structuredContent": {"entities": [{"name": "x"}]}});
        for repeats in [same, files, graph] {
            assert!(structured_in_text(&repeats), "{repeats}");
        }
        // Data of its own is shown: another value, or more than the one field.
        let other =
            json!({"content": text("[FILE] a.txt"), "structuredContent": {"content": "[FILE] b.txt"}});
        let more = json!({"content": text("[FILE] a.txt"), "structuredContent": {"content": "[FILE] a.txt", "n": 1}});
        for own in [other, more, json!({"content": text("hi")})] {
            assert!(!structured_in_text(&own), "{own}");
        }
    }

    #[test]
    fn every_known_block_kind_with_its_fields_passes() {
        let result = json!({"content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a", "name": "a"},
            {"type": "resource", "resource": {"uri": "file:///a", "text": "x"}},
            {"type": "resource", "resource": {"uri": "file:///b", "blob": "AAAA"}}],
            "structuredContent": {"sum": 3}, "isError": false});
        assert_eq!(result_problems(&result), Vec::<String>::new());
    }

    #[test]
    fn content_that_is_not_an_array_is_said() {
        let result = json!({"content": {"type": "text", "text": "not in a list"}});
        assert_eq!(result_problems(&result), ["content is an object, not an array"]);
        assert_eq!(result_problems(&json!({})), ["content is missing; a result lists its content blocks"]);
        assert_eq!(result_problems(&json!("done")), ["the result is a string, not an object"]);
    }

    #[test]
    fn each_bad_block_is_named_by_its_place() {
        let result = json!({"content": [
            "text", {"text": "no type"}, {"type": 1}, {"type": "text", "text": {"a": 1}},
            {"type": "image", "data": "AAAA"}, {"type": "video", "url": "x"},
            {"type": "resource", "resource": {"uri": 3}}],
            "isError": "no", "structuredContent": [1]});
        assert_eq!(
            result_problems(&result),
            [
                "content[0] is a string, not a content block (an object)",
                "content[1] has no type",
                "content[2].type is a number, not a string",
                "content[3].text is an object, not a string",
                "content[4] (image) has no mimeType",
                "content[5] is of type \"video\", which Sonde does not know; shown as JSON",
                "content[6].resource has no uri that is a string",
                "content[6].resource has neither text nor blob as a string",
                "isError is a string, not true or false",
                "structuredContent is an array, not an object",
            ]
        );
    }
}
