//! MCP on top of a connection, in either era: the opening exchange and the typed calls both
//! front ends make.
//!
//! Owns: what Sonde says about itself (clientInfo, the capabilities its responder supports),
//! `initialize` (2025-11-25) and `server/discover` (2026-07-28), the `_meta` envelope on every
//! modern request, `resultType` checks, paginated listing and tool calls.
//! Refuses: choosing the era (`negotiate` does) and transport concerns (`connection` does).

use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

use crate::connection::{Connection, Request, RequestError};
use crate::era::{self, Era, ProbeOutcome};

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
    pub era: Era,
    /// The evidence for the version, in words: "server/discover",
    /// "server/discover answered -32601; initialize", "cached verdict; server/discover".
    pub decided_by: String,
    pub server_info: Value,
    pub capabilities: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// 2026-07-28 discover results are cacheable: how long, and for whom.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<String>,
}

/// A connection whose era is decided: requests carry what that era needs.
#[derive(Clone)]
pub struct Session {
    pub conn: Connection,
    pub server: ServerDescription,
    /// The `_meta` of every request, in the modern era.
    meta: Option<Value>,
}

impl Session {
    pub fn new(conn: Connection, server: ServerDescription) -> Session {
        let meta = (server.era == Era::Modern).then(|| {
            era::request_meta(&server.protocol_version, &conn.client_capabilities(), &client_info())
        });
        conn.set_era(server.era);
        Session { conn, server, meta }
    }

    /// Sends a request with the era's envelope and checks the result's `resultType`.
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, RequestError> {
        let params = match &self.meta {
            Some(meta) => Some(era::with_meta(params, meta)),
            None => params,
        };
        let result = self.conn.request(Request::new(method, params)).await?;
        check_result_type(method, &result)?;
        Ok(result)
    }

    /// Lists every item of a paginated list method (`tools/list` → `tools`), following
    /// `nextCursor` until it is absent. In 2026-07-28 `""` is a cursor, not the end.
    pub async fn list_all(&self, method: &str, key: &str) -> Result<Vec<Value>, RequestError> {
        let mut items = Vec::new();
        let mut cursor: Option<Value> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
            let page = self.request(method, params).await?;
            if let Some(list) = page.get(key).and_then(Value::as_array) {
                items.extend(list.iter().cloned());
            }
            match page.get("nextCursor") {
                None | Some(Value::Null) => return Ok(items),
                Some(next) if Some(next) == cursor.as_ref() => {
                    return Err(RequestError::Protocol(format!(
                        "{method} returned the same nextCursor twice ({next}); stopped"
                    )));
                }
                Some(next) => cursor = Some(next.clone()),
            }
        }
        Err(RequestError::Protocol(format!("{method} was still paging after {MAX_PAGES} pages; stopped")))
    }

    /// Calls a tool and returns its `CallToolResult`.
    pub async fn call_tool(&self, name: &str, arguments: Option<Value>) -> Result<Value, RequestError> {
        let mut params = json!({ "name": name });
        if let Some(args) = arguments {
            params["arguments"] = args;
        }
        self.request("tools/call", Some(params)).await
    }
}

/// An absent `resultType` means complete (a legacy server); unknown values are invalid.
fn check_result_type(method: &str, result: &Value) -> Result<(), RequestError> {
    match result.get("resultType").and_then(Value::as_str) {
        None | Some("complete") => Ok(()),
        Some("input_required") => Err(RequestError::Protocol(format!(
            "{method} answered resultType \"input_required\"; Sonde does not run multi-round-trip requests yet"
        ))),
        Some(other) => Err(RequestError::Protocol(format!("{method} answered an unknown resultType {other:?}"))),
    }
}

/// The 2025-11-25 handshake: `initialize`, then `notifications/initialized` before anything else.
pub async fn initialize(conn: &Connection, decided_by: String) -> Result<ServerDescription, RequestError> {
    let params = json!({
        "protocolVersion": era::LEGACY,
        "capabilities": conn.client_capabilities(),
        "clientInfo": client_info(),
    });
    let result = conn.request(Request::new("initialize", Some(params))).await?;
    let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or_default().to_owned();
    if era::ProtocolVersion(version.clone()).era() != Some(Era::Legacy) {
        return Err(RequestError::Protocol(format!(
            "initialize answered protocolVersion {version:?}, which Sonde cannot speak after a handshake"
        )));
    }
    conn.notify("notifications/initialized", None)?;
    Ok(ServerDescription {
        protocol_version: version,
        era: Era::Legacy,
        decided_by,
        server_info: result.get("serverInfo").cloned().unwrap_or(Value::Null),
        capabilities: result.get("capabilities").cloned().unwrap_or_else(|| json!({})),
        instructions: result.get("instructions").and_then(Value::as_str).map(str::to_owned),
        ttl_ms: None,
        cache_scope: None,
    })
}

/// Sends `server/discover` at `version`. Returns the outcome the era classifier reads; a
/// probe is marked in the log and never cancelled.
pub async fn discover(conn: &Connection, version: &str, timeout: Duration, probe: bool) -> ProbeOutcome {
    let meta = era::request_meta(version, &conn.client_capabilities(), &client_info());
    let mut request = Request::new("server/discover", Some(era::with_meta(None, &meta)));
    request.timeout = Some(timeout);
    request.probe = probe;
    match conn.request(request).await {
        Ok(result) => ProbeOutcome::Result(result),
        Err(RequestError::Rpc { error, .. }) => ProbeOutcome::Error(*error),
        Err(RequestError::Timeout { .. }) => ProbeOutcome::Timeout,
        Err(other) => {
            let how = conn.exit_info().await.map_or_else(|| other.to_string(), |exit| exit.describe());
            ProbeOutcome::Died(how)
        }
    }
}

/// The server's description from a `DiscoverResult`.
pub fn describe_discovered(result: &Value, version: &str, decided_by: String) -> ServerDescription {
    ServerDescription {
        protocol_version: version.to_owned(),
        era: Era::Modern,
        decided_by,
        server_info: result
            .pointer("/_meta/io.modelcontextprotocol~1serverInfo")
            .cloned()
            .unwrap_or(Value::Null),
        capabilities: result.get("capabilities").cloned().unwrap_or_else(|| json!({})),
        instructions: result.get("instructions").and_then(Value::as_str).map(str::to_owned),
        ttl_ms: result.get("ttlMs").and_then(Value::as_i64),
        cache_scope: result.get("cacheScope").and_then(Value::as_str).map(str::to_owned),
    }
}
