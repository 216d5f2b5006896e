//! The 2026-07-28 Streamable HTTP header rule, checked by one request Sonde sends outside its
//! connection on purpose: a `tools/list` whose `Mcp-Method` header says `prompts/list`. A server
//! must refuse a header that disagrees with the body (400, `-32020`); one that answers it lets a
//! proxy or gateway routing on headers be told one thing while the server does another.
//!
//! Owns: that request, its record in the session log (headers as recorded everywhere: secret
//! values redacted) and the verdict. Refuses: everything the connection does (it never sees
//! this request) and servers that need authorization (their 401 says nothing of the rule).

use std::time::Duration;

use serde_json::{json, Value};

use super::{Check, CheckStatus};
use crate::log::{Direction, Entry, HttpInfo, Kind, WireLog};
use crate::session::Session;
use crate::transport::{is_secret_name, shown_url, HttpTarget, REDACTED};

const ID: &str = "http-headers";

pub async fn header_mismatch(session: &Session, target: &HttpTarget, log: &WireLog) -> Check {
    let conn = session.conn.id();
    let version = &session.server.protocol_version;
    let meta = crate::era::request_meta(version, &json!({}), &crate::session::client_info());
    let body = json!({"jsonrpc": "2.0", "id": "sonde-doctor-headers", "method": "tools/list", "params": {"_meta": meta}});
    let mut headers = vec![
        ("Content-Type".to_owned(), "application/json".to_owned()),
        ("Accept".to_owned(), "application/json, text/event-stream".to_owned()),
        ("MCP-Protocol-Version".to_owned(), version.clone()),
        ("Mcp-Method".to_owned(), "prompts/list".to_owned()),
    ];
    headers.extend(target.headers.iter().map(|h| (h.name.clone(), h.value.clone())));
    let recorded = headers
        .iter()
        .map(|(name, value)| {
            let secret = is_secret_name(name)
                || target.headers.iter().any(|h| h.secret && h.name.eq_ignore_ascii_case(name));
            (name.clone(), if secret { REDACTED.to_owned() } else { value.clone() })
        })
        .collect();
    let text = body.to_string();
    let mut sent = Entry::new(conn, Kind::Http, Direction::Out)
        .with_bytes(text.as_bytes())
        .with_detail("sonde doctor: a tools/list whose Mcp-Method header says prompts/list, sent outside the connection to check the header rule");
    sent.http = Some(HttpInfo {
        exchange: 0,
        method: Some("POST".into()),
        url: Some(shown_url(&target.url)),
        headers: recorded,
        ..HttpInfo::default()
    });
    log.append(sent);
    let client = reqwest::Client::builder().timeout(Duration::from_secs(10)).build();
    let mut request = match client {
        Ok(client) => client.post(target.url.clone()).body(text),
        Err(e) => {
            return Check::new(
                ID,
                CheckStatus::Fail,
                format!("could not build an HTTP client: {e}"),
                None,
                conn,
            )
        }
    };
    for (name, value) in &headers {
        request = request.header(name, value);
    }
    let (status, answer) = match request.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            (status, response.text().await.unwrap_or_default())
        }
        Err(e) => return Check::new(ID, CheckStatus::Fail, format!("the request failed: {e}"), None, conn),
    };
    let mut got = Entry::new(conn, Kind::Http, Direction::In).with_bytes(answer.as_bytes());
    got.http = Some(HttpInfo { exchange: 0, status: Some(status), ..HttpInfo::default() });
    let seq = log
        .append(got.with_detail(format!("sonde doctor: HTTP {status} to the mismatched Mcp-Method header")));
    let code = answer_code(&answer);
    let (verdict, detail) = match (status, code) {
        (400, Some(-32020)) => (CheckStatus::Pass, "a request whose Mcp-Method header disagreed with its body was refused: 400, -32020".to_owned()),
        (400, _) => (CheckStatus::Pass, format!("a request whose Mcp-Method header disagreed with its body was refused with 400{}", code.map(|c| format!(" ({c}, where -32020 names the fault)")).unwrap_or_default())),
        (401 | 403, _) => (CheckStatus::Skip, format!("the server wants authorization first (HTTP {status}); the header rule was not reached")),
        (200..=299, _) => (
            CheckStatus::Warn,
            "a tools/list whose Mcp-Method header said prompts/list was answered: refuse a header that disagrees with the body with 400 and -32020".to_owned(),
        ),
        _ => (CheckStatus::Warn, format!("a request whose Mcp-Method header disagreed with its body got HTTP {status}, where 400 (-32020) is due")),
    };
    Check::new(ID, verdict, detail, Some(seq), conn)
}

/// The JSON-RPC error code in a body (JSON, or the first SSE `data:` line).
fn answer_code(body: &str) -> Option<i64> {
    let json = body.lines().find_map(|l| l.strip_prefix("data:")).unwrap_or(body);
    let value: Value = serde_json::from_str(json.trim()).ok()?;
    value.pointer("/error/code")?.as_i64()
}
