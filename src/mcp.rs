//! MCP on top of a connection: the handshake and the typed calls both front ends make.
//!
//! Owns: what Sonde says about itself (clientInfo, the capabilities it really supports), the
//! 2025-11-25 handshake, paginated listing and tool calls.
//! Refuses: choosing the era (the hub does) and transport concerns (the connection does).

use serde::Serialize;
use serde_json::{json, Value};

use crate::connection::{Connection, Request, RequestError};

/// The legacy revision Sonde speaks.
pub const LEGACY_VERSION: &str = "2025-11-25";

/// How many pages a listing follows before deciding the server's cursors never end.
const MAX_PAGES: usize = 10_000;

/// Who Sonde is, as sent in `clientInfo`.
pub fn client_info() -> Value {
    json!({"name": "sonde", "title": "Sonde", "version": env!("CARGO_PKG_VERSION")})
}

/// What the server said about itself, and how its protocol version was decided.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerDescription {
    pub protocol_version: String,
    /// How the version was decided, in words: "initialize".
    pub decided_by: String,
    pub server_info: Value,
    pub capabilities: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// The 2025-11-25 handshake: `initialize`, then `notifications/initialized` before anything else.
pub async fn initialize(conn: &Connection) -> Result<ServerDescription, RequestError> {
    let params = json!({
        "protocolVersion": LEGACY_VERSION,
        "capabilities": conn.client_capabilities(),
        "clientInfo": client_info(),
    });
    let result = conn.request(Request::new("initialize", Some(params))).await?;
    conn.notify("notifications/initialized", None)?;
    let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or_default().to_owned();
    Ok(ServerDescription {
        decided_by: "initialize".into(),
        protocol_version: version,
        server_info: result.get("serverInfo").cloned().unwrap_or(Value::Null),
        capabilities: result.get("capabilities").cloned().unwrap_or_else(|| json!({})),
        instructions: result.get("instructions").and_then(Value::as_str).map(str::to_owned),
    })
}

/// Lists every item of a paginated list method (`tools/list` → `tools`), following
/// `nextCursor` until it is absent.
pub async fn list_all(conn: &Connection, method: &str, key: &str) -> Result<Vec<Value>, RequestError> {
    let mut items = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
        let page = conn.request(Request::new(method, params)).await?;
        if let Some(list) = page.get(key).and_then(Value::as_array) {
            items.extend(list.iter().cloned());
        }
        match page.get("nextCursor") {
            None | Some(Value::Null) => return Ok(items),
            Some(next) if Some(next) == cursor.as_ref() => {
                return Err(RequestError::Gone(format!(
                    "{method} returned the same nextCursor twice ({next}); stopped"
                )));
            }
            Some(next) => cursor = Some(next.clone()),
        }
    }
    Err(RequestError::Gone(format!("{method} was still paging after {MAX_PAGES} pages; stopped")))
}

/// Calls a tool and returns its `CallToolResult`.
pub async fn call_tool(
    conn: &Connection,
    name: &str,
    arguments: Option<Value>,
) -> Result<Value, RequestError> {
    let mut params = json!({ "name": name });
    if let Some(args) = arguments {
        params["arguments"] = args;
    }
    conn.request(Request::new("tools/call", Some(params))).await
}
