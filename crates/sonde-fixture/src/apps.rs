//! `--app KIND`: an MCP App's tools and resource, well made or broken on purpose.

use serde_json::{json, Value};

const URI: &str = "ui://fixture/app.html";
const MIME: &str = "text/html;profile=mcp-app";

/// The tools the app brings: one that shows it, one only apps call, one only the model calls.
pub fn tools(kind: &str) -> Vec<Value> {
    let uri = if kind == "missing" { "ui://fixture/gone.html" } else { URI };
    vec![
        json!({"name": "show_app", "description": "Shows the fixture's app.",
               "inputSchema": {"type": "object"}, "_meta": {"ui": {"resourceUri": uri}}}),
        json!({"name": "poll", "description": "Only the app calls it.",
               "inputSchema": {"type": "object"}, "_meta": {"ui": {"visibility": ["app"]}}}),
        json!({"name": "secret", "description": "Only the model may call it.",
               "inputSchema": {"type": "object"}, "_meta": {"ui": {"visibility": ["model"]}}}),
    ]
}

/// Whether a call is one of the app's tools.
pub fn calls(params: &Value) -> bool {
    matches!(params.get("name").and_then(Value::as_str), Some("show_app" | "poll" | "secret"))
}

pub fn call(params: &Value) -> Value {
    let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
    json!({"content": [{"type": "text", "text": format!("{name} answered")}]})
}

/// `resources/list`: the app's resource (none for `missing`, whose tool names one that is not).
pub fn listed(kind: &str) -> Value {
    let mime = if kind == "broken" { "text/html" } else { MIME };
    let resources =
        if kind == "missing" { json!([]) } else { json!([{"uri": URI, "name": "app", "mimeType": mime}]) };
    json!({ "resources": resources })
}

/// `resources/read` of the app, or the error a resource that does not resolve gets.
pub fn read(kind: &str, params: &Value) -> Result<Value, Value> {
    let uri = params.get("uri").and_then(Value::as_str).unwrap_or_default();
    if uri != URI {
        return Err(json!({"code": -32002, "message": format!("Resource not found: {uri}")}));
    }
    let item = match kind {
        "broken" => json!({"uri": URI, "mimeType": "text/html", "text": include_str!("apps/broken.html"),
            "_meta": {"ui": {"csp": {"connectDomains": ["*"], "scriptDomains": ["https://cdn.example"]},
                             "permissions": {"telepathy": {}}}}}),
        _ => json!({"uri": URI, "mimeType": MIME, "text": include_str!("apps/hostile.html"),
            "_meta": {"ui": {"csp": {"connectDomains": ["https://allowed.invalid"]}}}}),
    };
    Ok(json!({"contents": [item]}))
}
