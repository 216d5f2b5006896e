//! Human output of the CLI. JSON output is one `serde_json` call and lives with each command.

use serde_json::Value;
use sonde_core::log::{Entry, Kind};
use sonde_core::mcp::ServerDescription;

pub fn json_line(v: &Value) {
    println!("{}", serde_json::to_string(v).expect("serializes"));
}

pub fn tools(tools: &[Value]) {
    let width = tools.iter().filter_map(|t| t["name"].as_str()).map(str::len).max().unwrap_or(0);
    for tool in tools {
        let name = tool["name"].as_str().unwrap_or("(no name)");
        let description = tool["description"].as_str().unwrap_or("").lines().next().unwrap_or("");
        println!("{name:width$}  {description}");
    }
    eprintln!("sonde: {} tool{}", tools.len(), if tools.len() == 1 { "" } else { "s" });
}

pub fn call_result(result: &Value) {
    for block in result["content"].as_array().into_iter().flatten() {
        match block["type"].as_str() {
            Some("text") => println!("{}", block["text"].as_str().unwrap_or("")),
            Some(kind @ ("image" | "audio")) => {
                let bytes = block["data"].as_str().map_or(0, |d| d.len() * 3 / 4);
                println!("[{kind} {}, about {bytes} bytes]", block["mimeType"].as_str().unwrap_or("?"));
            }
            _ => println!("{}", serde_json::to_string_pretty(block).expect("serializes")),
        }
    }
    if let Some(structured) = result.get("structuredContent") {
        println!("structuredContent: {}", serde_json::to_string_pretty(structured).expect("serializes"));
    }
}

pub fn server(s: &ServerDescription) {
    let name = s.server_info["name"].as_str().unwrap_or("(unnamed)");
    let version = s.server_info["version"].as_str().unwrap_or("");
    println!("protocol      {} ({})", s.protocol_version, s.decided_by);
    println!("server        {name} {version}");
    let caps: Vec<&String> = s.capabilities.as_object().map(|o| o.keys().collect()).unwrap_or_default();
    let caps: Vec<&str> = caps.iter().map(|s| s.as_str()).collect();
    println!("capabilities  {}", if caps.is_empty() { "(none)".to_owned() } else { caps.join(", ") });
    if let (Some(ttl), Some(scope)) = (s.ttl_ms, &s.cache_scope) {
        println!("cacheable     ttlMs {ttl}, cacheScope {scope}");
    }
    if let Some(instructions) = &s.instructions {
        println!("instructions  {instructions}");
    }
}

/// How much of an entry's bytes a human line shows.
const CLIP: usize = 240;

/// One entry as a line: seq, time since start, connection, glyph, kind, then what it says.
pub fn entry(e: &Entry) -> String {
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
    format!(
        "{:>6} {:>10.1}ms #{} {} {:<12} {body}{latency}",
        e.seq,
        e.ms,
        e.conn,
        e.dir.glyph(),
        e.kind.name()
    )
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
