//! `sonde conformance-client URL`: the client the official MCP conformance harness runs.
//!
//! Owns: the harness contract (`../shared/peers/README.md`): the scenario from
//! `MCP_CONFORMANCE_SCENARIO`, the era from `MCP_CONFORMANCE_PROTOCOL_VERSION`, tool calls
//! from `MCP_CONFORMANCE_CONTEXT`, and an overall deadline so the process always exits by
//! itself (the harness waits for the exit, and its own timeout cannot reach a client it
//! started through a shell). Refuses: any protocol logic of its own. Every exchange goes
//! through the same hub, negotiation and HTTP transport as every other command.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use sonde_core::{
    Authorizer, CredentialStore, ElicitAnswer, Era, EraPolicy, FollowRedirects, Hub, HubError, ListKind,
    OAuthSettings, ProtocolVersion, Session, Target,
};

use crate::args::{Global, Server};
use crate::exit::{FAILED, OK, USAGE};
use crate::run::session_log;

/// The harness gives a client 30 s; finishing well inside it leaves time to shut down.
const DEADLINE: Duration = Duration::from_secs(20);

pub async fn run(global: &Global, url: &str) -> i32 {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_else(|_| "2025-11-25".into());
    let context: Value = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                errln!("sonde: MCP_CONFORMANCE_CONTEXT is not JSON: {e}");
                return USAGE;
            }
        },
        Err(_) => Value::Null,
    };
    let mut global = global.clone();
    global.url = Some(url.to_owned());
    if global.elicit.is_none() {
        global.elicit = Some(ElicitAnswer::Defaults);
    }
    let mut config = match global.server_config(&Server { command: Vec::new() }) {
        Ok(config) => config,
        Err(e) => {
            errln!("sonde: {e}");
            return USAGE;
        }
    };
    // The harness names the revision; negotiation still runs (and retries a -32022) within it.
    config.era = match ProtocolVersion(version.clone()).era() {
        Some(Era::Modern) => EraPolicy::Modern,
        Some(Era::Legacy) => EraPolicy::Legacy,
        None => {
            errln!("sonde: MCP_CONFORMANCE_PROTOCOL_VERSION {version:?} is no revision Sonde speaks");
            return USAGE;
        }
    };
    let Some(log) = session_log() else { return FAILED };
    errln!("sonde: conformance scenario {scenario:?} at {version}; session log {}", log.path().display());
    let teller = crate::recording::start(&log);
    // The harness's authorization servers ask nothing of a person: the browser step follows
    // their redirect to the loopback listener. Credentials last for the run only.
    if let Target::Http(http) = &mut config.target {
        http.auth = auth_settings(&context);
    }
    let authorizer = Authorizer::new(Arc::new(FollowRedirects), CredentialStore::in_memory());
    let hub = Hub::new(log.clone()).with_authorizer(authorizer);
    let work = async {
        let id = hub.connect(&config).await?;
        let session = hub.session(id)?;
        exercise(&session, &scenario, &context).await
    };
    let code = match tokio::time::timeout(DEADLINE, work).await {
        Ok(Ok(())) => OK,
        Ok(Err(e)) => {
            errln!("sonde: {e}");
            FAILED
        }
        Err(_) => {
            errln!("sonde: the scenario did not finish within {} s; stopping", DEADLINE.as_secs());
            FAILED
        }
    };
    hub.cancel_all("the conformance run is over");
    hub.disconnect_all().await;
    crate::recording::finish(&log, teller).await;
    code
}

/// The client the harness expects: pre-registered credentials from the context, else its
/// Client ID Metadata Document URL (used where the authorization server supports them; the
/// harness does not serve it), else dynamic registration.
fn auth_settings(context: &Value) -> OAuthSettings {
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
    OAuthSettings {
        client_id: text("client_id"),
        client_secret: text("client_secret"),
        scope: None,
        client_metadata_url: Some(CIMD_URL.to_owned()),
    }
}

/// The conformance suite's Client ID Metadata Document URL (`basic-cimd`).
const CIMD_URL: &str = "https://conformance-test.local/client-metadata.json";

/// What each scenario needs the client to do, beyond connecting in its era.
async fn exercise(session: &Session, scenario: &str, context: &Value) -> Result<(), HubError> {
    let tools = session.list_tools().await?.items;
    step(format!("tools/list: {} tools", tools.len()));
    match scenario {
        // Listing is the whole exercise: these check the handshake, or that a network $ref in
        // a schema is never fetched.
        "initialize" | "json-schema-ref-no-deref" => return Ok(()),
        // The harness checks that every JSON Schema 2020-12 keyword of a tool's inputSchema
        // survived the client: the focal tool's schema goes back, as listed, through the echo tool.
        "json-schema-2020-12-preservation" => {
            let named =
                |name: &str| tools.iter().find(|t| t.get("name").and_then(Value::as_str) == Some(name));
            let schema = named("json_schema_2020_12_tool").and_then(|t| t.get("inputSchema")).cloned();
            call_tool(session, "json_schema_echo", Some(json!({ "schema": schema.unwrap_or(Value::Null) })))
                .await?;
            return Ok(());
        }
        "http-custom-headers" => {
            for call in context.get("toolCalls").and_then(Value::as_array).into_iter().flatten() {
                let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                call_tool(session, name, call.get("arguments").cloned()).await?;
            }
            return Ok(());
        }
        _ => {}
    }
    for tool in &tools {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        let arguments = example_arguments(tool.get("inputSchema").unwrap_or(&Value::Null));
        call_tool(session, name, Some(arguments)).await?;
    }
    if scenario == "http-standard-headers" {
        for resource in session.list_all(ListKind::Resources).await?.items {
            let uri = resource.get("uri").cloned().unwrap_or(Value::Null);
            session.request("resources/read", Some(json!({ "uri": uri }))).await?;
            step(format!("resources/read {uri}"));
        }
        for prompt in session.list_all(ListKind::Prompts).await?.items {
            let name = prompt.get("name").cloned().unwrap_or(Value::Null);
            let arguments: serde_json::Map<String, Value> = prompt
                .get("arguments")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|a| Some((a.get("name")?.as_str()?.to_owned(), json!("example"))))
                .collect();
            session.request("prompts/get", Some(json!({ "name": name, "arguments": arguments }))).await?;
            step(format!("prompts/get {name}"));
        }
    }
    Ok(())
}

async fn call_tool(session: &Session, name: &str, arguments: Option<Value>) -> Result<(), HubError> {
    let result = session.call_tool(name, arguments).await?;
    let verdict = if result.get("isError") == Some(&Value::Bool(true)) { "a tool error" } else { "ok" };
    step(format!("tools/call {name}: {verdict}"));
    Ok(())
}

fn step(words: String) {
    errln!("sonde: {words}");
}

/// Arguments a schema accepts: each property's default, else its first enum value, else a
/// plain value of its type (numbers count up from 2, so `a + b` has distinct operands).
pub fn example_arguments(schema: &Value) -> Value {
    let mut next_number = 2;
    let properties = schema.get("properties").and_then(Value::as_object);
    let args: serde_json::Map<String, Value> = properties
        .into_iter()
        .flatten()
        .map(|(name, prop)| {
            let value = prop
                .get("default")
                .or_else(|| prop.get("enum").and_then(|e| e.get(0)))
                .cloned()
                .unwrap_or_else(|| match prop.get("type").and_then(Value::as_str) {
                    Some("number" | "integer") => {
                        next_number += 1;
                        json!(next_number - 1)
                    }
                    Some("boolean") => json!(true),
                    Some("object") => json!({}),
                    Some("array") => json!([]),
                    _ => json!("example"),
                });
            (name.clone(), value)
        })
        .collect();
    Value::Object(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_arguments_follow_the_schema() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "number"}, "b": {"type": "integer"}, "on": {"type": "boolean"},
            "mode": {"type": "string", "enum": ["x", "y"]}, "name": {"type": "string", "default": "Ada"},
            "region": {"type": "string"}}});
        assert_eq!(
            example_arguments(&schema),
            json!({"a": 2, "b": 3, "on": true, "mode": "x", "name": "Ada", "region": "example"})
        );
        assert_eq!(example_arguments(&json!({})), json!({}));
    }
}
