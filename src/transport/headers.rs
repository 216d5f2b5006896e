//! The 2026-07-28 HTTP headers that mirror a request's body (protocol.md §4.2, §8 items 6–7):
//! `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` from `x-mcp-header`.
//!
//! Owns: encoding a JSON value as a header value (the base64 sentinel), validating a tool's
//! `x-mcp-header` annotations, and computing the headers of one request. Refuses: I/O, and
//! deciding the era (a request carries the modern headers exactly when its `_meta` names a
//! protocol version).

use base64::Engine as _;
use serde_json::Value;

use crate::wire::Message;

/// The `_meta` key that names the protocol version of a 2026-07-28 request.
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The largest integer a header may carry: ±(2^53 − 1).
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// A string as a header value: as-is when it is plain printable ASCII, else the base64
/// sentinel `=?base64?…?=` (non-ASCII, control characters, leading or trailing whitespace, or
/// a value that itself looks like the sentinel).
pub fn encode_text(s: &str) -> String {
    let plain = s.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !s.starts_with([' ', '\t'])
        && !s.ends_with([' ', '\t'])
        && !looks_like_sentinel(s);
    if plain {
        s.to_owned()
    } else {
        format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(s.as_bytes()))
    }
}

fn looks_like_sentinel(s: &str) -> bool {
    s.len() >= 11 && s[..9].eq_ignore_ascii_case("=?base64?") && s.ends_with("?=")
}

/// Decodes a header value written by [`encode_text`] (for tests and the fuzzer's round trip).
pub fn decode_text(s: &str) -> Option<String> {
    if !looks_like_sentinel(s) {
        return Some(s.to_owned());
    }
    let bytes = base64::engine::general_purpose::STANDARD.decode(&s[9..s.len() - 2]).ok()?;
    String::from_utf8(bytes).ok()
}

/// An argument value as a header value: strings (see [`encode_text`]), integers within
/// ±(2^53 − 1) in decimal, booleans as `true`/`false`. Anything else has no header form.
pub fn encode_value(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(encode_text(s)),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => n.as_i64().filter(|i| i.abs() <= MAX_SAFE_INTEGER).map(|i| i.to_string()),
        _ => None,
    }
}

/// One `x-mcp-header` annotation: the header suffix and the argument's path below
/// `arguments` (nested objects are reached through `properties` keys only).
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderParam {
    pub header: String,
    pub path: Vec<String>,
}

/// The `x-mcp-header` annotations of a tool's `inputSchema`, or why the tool must be left out
/// of calls over HTTP (an HTTP client MUST drop such tools).
pub fn header_params(schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    walk(schema, Some(Vec::new()), &mut found)?;
    let mut seen: Vec<String> = Vec::new();
    for param in &found {
        let lower = param.header.to_ascii_lowercase();
        if seen.contains(&lower) {
            return Err(format!(
                "x-mcp-header {:?} is used twice (names are case-insensitive)",
                param.header
            ));
        }
        seen.push(lower);
    }
    Ok(found)
}

/// The `x-mcp-header` annotations of one tool of a `tools/list` result (those of its
/// `inputSchema`), or why the tool must be left out of calls over HTTP. The one reading of a
/// tool's annotations: `mcp` leaves out the tools it refuses, the HTTP loop mirrors the rest.
// Err is words on the server's schema: the listing leaves the tool out with a note saying them.
pub fn tool_header_params(tool: &Value) -> Result<Vec<HeaderParam>, String> {
    header_params(tool.get("inputSchema").unwrap_or(&Value::Null))
}

/// Walks every node of a schema. `via` is the property path when the node is reachable from
/// the root through `properties` keys alone, `None` otherwise.
fn walk(node: &Value, via: Option<Vec<String>>, found: &mut Vec<HeaderParam>) -> Result<(), String> {
    match node {
        Value::Object(map) => {
            if let Some(name) = map.get("x-mcp-header") {
                found.push(check_annotation(map, name, via.as_ref())?);
            }
            for (key, child) in map {
                if key == "properties" {
                    if let Value::Object(props) = child {
                        for (prop, schema) in props {
                            let path = via.clone().map(|mut p| {
                                p.push(prop.clone());
                                p
                            });
                            walk(schema, path, found)?;
                        }
                        continue;
                    }
                }
                walk(child, None, found)?;
            }
            Ok(())
        }
        Value::Array(items) => items.iter().try_for_each(|item| walk(item, None, found)),
        _ => Ok(()),
    }
}

fn check_annotation(
    map: &serde_json::Map<String, Value>,
    name: &Value,
    via: Option<&Vec<String>>,
) -> Result<HeaderParam, String> {
    let Some(name) = name.as_str() else {
        return Err(format!("x-mcp-header {name} is not a string"));
    };
    if !is_token(name) {
        return Err(format!("x-mcp-header {name:?} is not an HTTP header token"));
    }
    let path = match via {
        Some(path) if !path.is_empty() => path.clone(),
        _ => {
            return Err(format!(
                "x-mcp-header {name:?} is not on a property reached through `properties` alone"
            ))
        }
    };
    match map.get("type").and_then(Value::as_str) {
        Some("string" | "integer" | "boolean") => Ok(HeaderParam { header: name.to_owned(), path }),
        Some(other) => Err(format!(
            "x-mcp-header {name:?} is on a property of type {other}; only string, integer and boolean may be"
        )),
        None => Err(format!("x-mcp-header {name:?} is on a property without a single primitive type")),
    }
}

/// An RFC 9110 token (a header name, an `x-mcp-header` name): one or more `tchar`.
pub fn is_token(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The headers that mirror a 2026-07-28 request, or nothing for a message without a
/// `_meta` protocol version (legacy, or a notification). `params_for` gives the tool's
/// `x-mcp-header` annotations for `tools/call`.
pub fn mirror(message: &Message, params_for: impl Fn(&str) -> Vec<HeaderParam>) -> Vec<(String, String)> {
    let Message::Request { method, params, .. } = message else { return Vec::new() };
    let Some(params) = params else { return Vec::new() };
    let Some(version) = params.pointer("/_meta").and_then(|m| m.get(VERSION_KEY)).and_then(Value::as_str)
    else {
        return Vec::new();
    };
    let mut headers = vec![
        ("MCP-Protocol-Version".to_owned(), version.to_owned()),
        ("Mcp-Method".to_owned(), method.clone()),
    ];
    let name = match method.as_str() {
        "tools/call" | "prompts/get" => params.get("name"),
        "resources/read" => params.get("uri"),
        // The tasks extension's HTTP binding: so a task's requests reach the instance holding it.
        "tasks/get" | "tasks/update" | "tasks/cancel" => params.get("taskId"),
        _ => None,
    };
    if let Some(name) = name.and_then(Value::as_str) {
        headers.push(("Mcp-Name".to_owned(), encode_text(name)));
    }
    if method == "tools/call" {
        let tool = params.get("name").and_then(Value::as_str).unwrap_or_default();
        let arguments = params.get("arguments").unwrap_or(&Value::Null);
        for param in params_for(tool) {
            let value = param.path.iter().try_fold(arguments, |v, key| v.get(key));
            if let Some(value) = value.and_then(encode_value) {
                headers.push((format!("Mcp-Param-{}", param.header), value));
            }
        }
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_plain_or_base64_by_the_rules() {
        let cases = [
            (json!("us-west1"), Some("us-west1")),
            (json!(42), Some("42")),
            (json!(-7), Some("-7")),
            (json!(true), Some("true")),
            (json!("héllo"), Some("=?base64?aMOpbGxv?=")),
            (json!(" lead"), Some("=?base64?IGxlYWQ=?=")),
            (json!("tab\tin"), Some("=?base64?dGFiCWlu?=")),
            (json!("=?base64?abc?="), Some("=?base64?PT9iYXNlNjQ/YWJjPz0=?=")),
            (json!(1.5), None),
            (json!(9007199254740992_i64), None),
            (json!(null), None),
            (json!({"a": 1}), None),
        ];
        for (value, want) in cases {
            assert_eq!(encode_value(&value).as_deref(), want, "{value}");
        }
        for s in ["héllo", " x ", "=?BASE64?x?=", "plain"] {
            assert_eq!(decode_text(&encode_text(s)).as_deref(), Some(s));
        }
    }

    #[test]
    fn annotations_are_checked() {
        let ok = json!({"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "opts":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}}});
        let params = header_params(&ok).unwrap();
        assert_eq!(params[1], HeaderParam { header: "N".into(), path: vec!["opts".into(), "n".into()] });
        let bad = [
            json!({"properties":{"a":{"type":"number","x-mcp-header":"A"}}}),
            json!({"properties":{"a":{"type":"string","x-mcp-header":"Bad Name"}}}),
            json!({"properties":{"a":{"type":"string","x-mcp-header":""}}}),
            json!({"properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}),
            json!({"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}),
            json!({"properties":{"a":{"anyOf":[{"type":"string","x-mcp-header":"A"}]}}}),
            json!({"$defs":{"d":{"type":"string","x-mcp-header":"A"}}}),
        ];
        for schema in bad {
            assert!(header_params(&schema).is_err(), "{schema}");
        }
    }

    #[test]
    fn a_tool_is_read_through_its_input_schema() {
        let schema = json!({"properties":{"region":{"type":"string","x-mcp-header":"Region"}}});
        let tool = json!({"name": "t", "inputSchema": schema});
        assert_eq!(tool_header_params(&tool), header_params(&schema));
        assert_eq!(tool_header_params(&tool).unwrap()[0].header, "Region");
        assert_eq!(tool_header_params(&json!({"name": "bare"})), Ok(Vec::new()));
        let bad =
            json!({"name": "t", "inputSchema": {"properties":{"a":{"type":"number","x-mcp-header":"A"}}}});
        assert!(tool_header_params(&bad).is_err());
    }

    #[test]
    fn a_modern_call_mirrors_its_body() {
        let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28"});
        let call = Message::request(
            1.into(),
            "tools/call",
            Some(json!({"_meta": meta, "name":"wéather","arguments":{"region":"eu","n":null}})),
        );
        let params = |_: &str| {
            vec![
                HeaderParam { header: "Region".into(), path: vec!["region".into()] },
                HeaderParam { header: "N".into(), path: vec!["n".into()] },
            ]
        };
        let headers = mirror(&call, params);
        let want = [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "=?base64?d8OpYXRoZXI=?="),
            ("Mcp-Param-Region", "eu"),
        ];
        let got: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(got, want);
        let legacy = Message::request(2.into(), "tools/list", None);
        assert!(mirror(&legacy, params).is_empty());
    }

    #[test]
    fn a_task_request_names_its_task() {
        let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28"});
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            let request = Message::request(3.into(), method, Some(json!({"_meta": meta, "taskId": "t-1"})));
            let headers = mirror(&request, |_| Vec::new());
            assert_eq!(headers[2], ("Mcp-Name".to_owned(), "t-1".to_owned()), "{method}");
        }
    }
}
