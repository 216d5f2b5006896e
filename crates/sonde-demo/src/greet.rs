//! The `greet` tool, which asks the user who they are before it greets them: an
//! `input_required` round in 2026-07-28, an `elicitation/create` request in 2025-11-25 (the only
//! request this server ever sends the client).
//!
//! Owns: the question, the greeting, and the 2025-11-25 requests waiting for their replies.
//! Refuses: URL-mode elicitation.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use crate::{send, tool_error, Fault, Server, VERSION_META};

/// Requests this server sent the client (2025-11-25 elicitation), by id, waiting for replies.
pub type Asks = Arc<Mutex<HashMap<String, Sender<Value>>>>;

/// Hands a reply from the client to the `greet` call waiting on it; a reply to nothing is
/// dropped, as there is no one to tell.
pub fn answered(asks: &Asks, id: &Value, reply: Value) {
    if let Some(waiting) = crate::locked(asks).remove(&id.to_string()) {
        let _ = waiting.send(reply);
    }
}

/// The question `greet` asks.
fn who_are_you() -> Value {
    json!({"message": "Who is calling?", "requestedSchema": {"type": "object", "properties": {
        "name": {"type": "string", "title": "Your name", "default": "Ada"},
        "formal": {"type": "boolean", "title": "Formal greeting", "default": false}},
        "required": ["name"]}})
}

/// The greeting for an elicitation result.
fn greeting(result: &Value) -> Value {
    let text = match result["action"].as_str() {
        Some("accept") => {
            let name = result["content"]["name"].as_str().unwrap_or("stranger");
            if result["content"]["formal"] == json!(true) {
                format!("Good day, {name}.")
            } else {
                format!("Hello, {name}!")
            }
        }
        Some(other) => format!("No greeting: you chose to {other}."),
        None => "No greeting: the answer had no action.".to_owned(),
    };
    json!({"content": [{"type": "text", "text": text}]})
}

/// `greet`: 2026-07-28 returns `input_required` until the answer comes back in
/// `inputResponses`; 2025-11-25 sends `elicitation/create` and waits for the reply.
pub fn greet(server: &Server, params: &Value) -> Result<Value, Fault> {
    if params.pointer(VERSION_META).is_some() {
        if params.pointer("/_meta/io.modelcontextprotocol~1clientCapabilities/elicitation").is_none() {
            return Err(Fault::new(-32021, "greet needs the elicitation capability"));
        }
        return Ok(match params.pointer("/inputResponses/who") {
            Some(answer) => greeting(answer),
            None => json!({"resultType": "input_required", "requestState": "greet-v1",
                           "inputRequests": {"who": {"method": "elicitation/create", "params": who_are_you()}}}),
        });
    }
    if !server.elicits.load(Ordering::SeqCst) {
        return Ok(tool_error("greet asks who you are, and this client did not declare elicitation"));
    }
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let id = json!(format!("demo-ask-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
    let (tx, rx) = channel();
    crate::locked(&server.asks).insert(id.to_string(), tx);
    send(
        &server.out,
        &json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": who_are_you()}),
    );
    match rx.recv_timeout(Duration::from_secs(600)) {
        Ok(reply) if reply.get("result").is_some() => Ok(greeting(&reply["result"])),
        Ok(reply) => Ok(tool_error(&format!("the elicitation failed: {}", reply["error"]))),
        Err(_) => {
            crate::locked(&server.asks).remove(&id.to_string());
            Ok(tool_error("no answer to the elicitation within 10 minutes"))
        }
    }
}
