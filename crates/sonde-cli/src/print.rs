//! Human output of the CLI. JSON output is one `serde_json` call and lives with each command.

use serde_json::Value;
use sonde_core::{content_view, structured_in_text, ContentView, Entry, Kind, ServerDescription};

/// JSON on stdout: one line for a pipe (scripts read line by line), indented for a person at a
/// terminal.
pub fn json_line(v: &Value) {
    use std::io::IsTerminal;
    outln!("{}", json_text(v, std::io::stdout().is_terminal()));
}

/// A failure as `--json` prints it on stdout (`../shared/contracts.md`): the core's code, the
/// exit code and the words stderr said, so a script reads why without parsing stderr.
pub fn json_error(code: sonde_core::ErrorCode, exit: i32, message: &str) {
    json_line(&serde_json::json!({"error": {"code": code, "exit": exit, "message": message}}));
}

fn json_text(v: &Value, terminal: bool) -> String {
    if terminal { serde_json::to_string_pretty(v) } else { serde_json::to_string(v) }.expect("serializes")
}

/// A list of tools, prompts, resources or templates: one line each, name then description.
pub fn items(key: &str, items: &[Value]) {
    let label = |item: &Value| -> String {
        let field = |k: &str| item.get(k).and_then(Value::as_str);
        field("name").or(field("uri")).or(field("uriTemplate")).unwrap_or("(unnamed)").to_owned()
    };
    let width = items.iter().map(|i| label(i).len()).max().unwrap_or(0);
    for item in items {
        let detail = match key {
            "resources" => item["uri"].as_str().unwrap_or_default().to_owned(),
            "resourceTemplates" => item["uriTemplate"].as_str().unwrap_or_default().to_owned(),
            _ => item["description"].as_str().unwrap_or("").lines().next().unwrap_or("").to_owned(),
        };
        outln!("{:width$}  {}{detail}", label(item), app_mark(key, item));
        for argument in arguments(key, item) {
            outln!("{:width$}    {argument}", "");
        }
    }
    let (one, many) = match key {
        "tools" => ("tool", "tools"),
        "prompts" => ("prompt", "prompts"),
        "resources" => ("resource", "resources"),
        "resourceTemplates" => ("resource template", "resource templates"),
        other => (other, other),
    };
    noteln!("sonde: {} {}", items.len(), if items.len() == 1 { one } else { many });
}

/// How a tool stands with MCP Apps, before its description: `[app ui://…]` for a tool that
/// draws one, `[app only]` for one only apps call (no client offers it to a model), nothing
/// for the rest.
fn app_mark(key: &str, item: &Value) -> String {
    let link = if key == "tools" { sonde_core::app_link(item) } else { None };
    match link {
        Some(l) if l.app_only => "[app only] ".to_owned(),
        Some(l) => l.resource_uri.map(|uri| format!("[app {uri}] ")).unwrap_or_default(),
        None => String::new(),
    }
}

/// A progress notification's params as one line.
pub fn progress(p: &Value) -> String {
    let done = &p["progress"];
    let of = p.get("total").map(|t| format!("/{t}")).unwrap_or_default();
    let message = p.get("message").and_then(Value::as_str).map(|m| format!(" {m}")).unwrap_or_default();
    format!("progress {done}{of}{message}")
}

/// The result of resources/read, prompts/get or completion/complete, for people.
pub fn result(method: &str, result: &Value) {
    match method {
        "resources/read" => {
            for content in result["contents"].as_array().into_iter().flatten() {
                match content_view(content) {
                    Ok(ContentView { text: Some(text), .. }) => outln!("{text}"),
                    Ok(view) => outln!(
                        "[blob {} {}, {} bytes]",
                        view.uri.as_deref().unwrap_or(""),
                        view.mime_type.as_deref().unwrap_or("?"),
                        view.size
                    ),
                    Err(_) => outln!("{content}"),
                }
            }
        }
        "prompts/get" => {
            for message in result["messages"].as_array().into_iter().flatten() {
                let role = message["role"].as_str().unwrap_or("?");
                match message["content"]["text"].as_str() {
                    Some(text) => outln!("{role}: {text}"),
                    None => outln!("{role}: {}", message["content"]),
                }
            }
        }
        _ => outln!("{}", serde_json::to_string_pretty(result).expect("serializes")),
    }
}

pub fn call_result(result: &Value) {
    for line in call_result_lines(result) {
        outln!("{line}");
    }
}

/// A tool's result as `sonde call` prints it: each content block (text as it is, media by type
/// and size), then `structuredContent` when it adds to the text.
pub fn call_result_lines(result: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    for block in result["content"].as_array().into_iter().flatten() {
        match block["type"].as_str() {
            Some("text") => lines.push(block["text"].as_str().unwrap_or("").to_owned()),
            Some(kind @ ("image" | "audio")) => {
                let bytes = block["data"].as_str().map_or(0, |d| d.len() * 3 / 4);
                lines.push(format!(
                    "[{kind} {}, about {bytes} bytes]",
                    block["mimeType"].as_str().unwrap_or("?")
                ));
            }
            _ => lines.push(serde_json::to_string_pretty(block).expect("serializes")),
        }
    }
    // Printed only when it adds to the text: a server that sends the same JSON both ways
    // (as the spec suggests) would otherwise have its result printed twice.
    if let Some(structured) = result.get("structuredContent").filter(|_| !structured_in_text(result)) {
        lines.push(format!(
            "structuredContent: {}",
            serde_json::to_string_pretty(structured).expect("serializes")
        ));
    }
    lines
}

pub fn server(s: &ServerDescription) {
    let name = s.server_info["name"].as_str().unwrap_or("(unnamed)");
    let version = s.server_info["version"].as_str().unwrap_or("");
    outln!("protocol      {} ({})", s.protocol_version, s.decided_by);
    outln!("server        {name} {version}");
    let caps: Vec<&String> = s.capabilities.as_object().map(|o| o.keys().collect()).unwrap_or_default();
    let caps: Vec<&str> = caps.iter().map(|s| s.as_str()).collect();
    outln!("capabilities  {}", if caps.is_empty() { "(none)".to_owned() } else { caps.join(", ") });
    if let (Some(ttl), Some(scope)) = (s.ttl_ms, &s.cache_scope) {
        outln!("cacheable     ttlMs {ttl}, cacheScope {scope}");
    }
    if let Some(instructions) = &s.instructions {
        outln!("instructions  {instructions}");
    }
}

/// How much of an entry's bytes a human line shows.
const CLIP: usize = 240;

/// One entry as a line: seq, time since start, connection, glyph, kind, then what it says.
/// One entry on one line; `full` keeps the frame whole instead of clipping it.
pub fn entry(e: &Entry, full: bool) -> String {
    let clip = |text: &str| if full { text.to_owned() } else { clip(text) };
    let body = match e.kind {
        Kind::Lifecycle | Kind::Note | Kind::Truncated => e.detail.clone().unwrap_or_default(),
        _ => {
            let raw = match (&e.text, &e.base64) {
                (Some(t), _) => clip(&t.replace('\n', "\\n").replace('\r', "\\r").replace('\x1b', "\\e")),
                (None, Some(b)) => format!("base64:{}", clip(b)),
                (None, None) => String::new(),
            };
            match &e.detail {
                Some(d) => format!("{raw}  ({d})"),
                None => raw,
            }
        }
    };
    let latency = e.latency_ms.map(|l| format!(" [{l:.1} ms]")).unwrap_or_default();
    let mut line = format!(
        "{:>6} {:>10.1}ms #{} {} {:<12} {body}{latency}",
        e.seq,
        e.ms,
        e.conn,
        e.dir.glyph(),
        e.kind.name()
    );
    // Each finding on a line of its own under its frame: the rule, the fix, where it is written.
    for f in &e.findings {
        line.push_str(&format!("\n{:>6} {} {}: {} [{}]", "", f.severity.name(), f.rule, f.detail, f.spec));
    }
    line
}

fn clip(s: &str) -> String {
    if s.len() <= CLIP {
        return s.to_owned();
    }
    let mut end = CLIP;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &s[..end], s.len())
}

/// A tool's or a prompt's arguments, one line each: name, type, whether it is required.
fn arguments(key: &str, item: &Value) -> Vec<String> {
    match key {
        "tools" => {
            let schema = &item["inputSchema"];
            let required: Vec<&str> =
                schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            let properties = schema["properties"].as_object().into_iter().flatten();
            properties
                .map(|(name, p)| {
                    let kind = p["type"].as_str().map_or_else(|| p["type"].to_string(), str::to_owned);
                    let kind = if p.get("type").is_some() { kind } else { "any".to_owned() };
                    let need = if required.contains(&name.as_str()) { ", required" } else { "" };
                    format!("{name}: {kind}{need}")
                })
                .collect()
        }
        "prompts" => item["arguments"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| {
                let need = if a["required"] == Value::Bool(true) { ", required" } else { "" };
                format!("{}: string{need}", a["name"].as_str().unwrap_or("?"))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A session's servers, as its card names them.
pub fn servers(s: &sonde_core::SessionInfo) -> String {
    match &s.servers {
        None => "servers not recorded".into(),
        Some(list) if list.is_empty() => "no server".into(),
        Some(list) => list.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_is_one_line_for_a_pipe_and_indented_for_a_terminal() {
        let v = json!({"a": [1, 2]});
        assert_eq!(json_text(&v, false), r#"{"a":[1,2]}"#);
        assert_eq!(json_text(&v, true), "{\n  \"a\": [\n    1,\n    2\n  ]\n}");
    }
}
