//! The demo server bundled with Sonde (`sonde demo-server`, and the desktop app run with
//! `demo-server`): a small, friendly MCP server on stdio, the default thing to inspect.
//!
//! Tools: `echo`, `add`, `slow` (reports progress, honours cancellation), `image` (a PNG) and
//! `greet`, which asks the user who they are: an `input_required` round in 2026-07-28, an
//! `elicitation/create` request in 2025-11-25.
//! Dual-era: it answers `server/discover` and serves every request that carries 2026-07-28
//! `_meta` statelessly, and it answers `initialize` for 2025-11-25 clients. Each tools/call
//! runs on its own thread so a slow call never blocks another request; stdout is written
//! whole-line under a lock.

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

/// A 32×32 PNG of a blue disc.
const IMAGE_PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAACzUlEQVR42u3XMavVSACGYX/YNjanSZMmTZo0abLFFAZkEMZiCgMShFikMCBBiEUKD8jFwsLCQg7+qbMPtxDEe73HXd1lweLpAvM2Q765dz6f7/2X7v0O+N8GhD9P555IIvPLA5pwOrd0BHoiiczAyBQuj7noo+rB6VzT0NIR6IkkMgMjEzPLg7tD7jy8fHg6V9Q0tHQEeiKJzMDIxMzC+vD7Ed89vHh0OpdU1DS0dAR6IonMwMjEzMLK9uj2iFsPPzw+nQtKKmoaWjoCPZFEZmBkYmZhZWN/fHPE7QFZACUVNQ0tHYGeSCIzMDIxs7CysecfCLj/5HQ+UFBSUdPQ0hHoiSQyAyMTMwsrGzvHJ99G3BzwVAAFJRU1DS0dgZ5IIjMwMjGzsLKxc3x6acAzARSUVNQ0tHQEeiKJzMDIxMzCysbO8dkFAX88P53vc6CgpKKmoaUj0BNJZAZGJmYWVjZ2jlw9/zri24BZAAcKSipqGlo6Aj2RRGZgZGJmYWVj58jVfFfACwEcKCipqGlo6Qj0RBKZgZGJmYWVjZ0jVy/uCngpgAMFJRU1DS0dgZ5IIjMwMjGzsLKxc+Tq5V0BrwRwoKCkoqahpSPQE0lkBkYmZhZWNnaOXL26I+D6FrwWQEFJRU1DS0egJ5LIDIxMzCysbOwcX196DXcBFJRU1DS0dAR6IonMwMjEzMLKxs5xvzTgjQAKSipqGlo6Aj2RRGZgZGJmYWVj5/jmwoDrf8FbAZRU1DS0dAR6IonMwMjEzMLKxv72R39G7wRQUlHT0NIR6IkkMgMjEzMLKxv7ux8MuN4D7wVQUdPQ0hHoiSQyAyMTMwsr2/u/sQe+LKIPAqhpaOkI9EQSmYGRiZmF9cM/WERfNuFHATS0dAR6IonMwMjEzPLxJ2zCr1bxJwF0BHoiiczAyPTpJ6/iG98FnwUQSeTP/8K74PfT7Ff4C/wLsQK6rXixAAAAAElFTkSuQmCC";

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";
const VERSION_META: &str = "/_meta/io.modelcontextprotocol~1protocolVersion";
const INSTRUCTIONS: &str = "A demo server bundled with Sonde. Try `slow` to watch progress notifications.";

type Out = Arc<Mutex<io::Stdout>>;
/// Requests this server sent the client (2025-11-25 elicitation), by id, waiting for replies.
type Asks = Arc<Mutex<HashMap<String, std::sync::mpsc::Sender<Value>>>>;

/// A 2026-07-28 request at a version this server does not speak gets `-32022`.
fn unsupported_version(params: &Value) -> Option<Value> {
    let requested = params.pointer(VERSION_META)?.as_str().unwrap_or_default();
    (requested != MODERN).then(|| {
        json!({"code": -32022, "message": "Unsupported protocol version",
               "data": {"supported": [MODERN, LEGACY], "requested": requested}})
    })
}

/// Modern results say they are complete and who answered.
fn stamp(mut result: Value, modern: bool) -> Value {
    if modern {
        if let Some(o) = result.as_object_mut() {
            o.entry("resultType").or_insert(json!("complete"));
            o.insert("_meta".into(), json!({"io.modelcontextprotocol/serverInfo": server_info()}));
        }
    }
    result
}

fn server_info() -> Value {
    json!({"name": "sonde-demo", "title": "Sonde demo server", "version": env!("CARGO_PKG_VERSION")})
}

fn send(out: &Out, message: &Value) {
    let mut line = serde_json::to_vec(message).expect("serializes");
    line.push(b'\n');
    let mut out = out.lock().unwrap();
    // The client closing stdout means it is gone; the read loop will see EOF next.
    let _ = out.write_all(&line).and_then(|_| out.flush());
}

/// Runs the demo server until stdin closes; returns the process exit code.
pub fn serve() -> i32 {
    eprintln!("sonde demo-server {} ready on stdio", env!("CARGO_PKG_VERSION"));
    let out: Out = Arc::new(Mutex::new(io::stdout()));
    let cancels: Arc<Mutex<HashMap<String, Arc<AtomicBool>>>> = Arc::default();
    let asks: Asks = Arc::default();
    // Whether the 2025-11-25 client declared elicitation in `initialize`.
    let elicits = Arc::new(AtomicBool::new(false));
    for line in io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let message: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                let error = json!({"code": -32700, "message": format!("Parse error: {e}")});
                send(&out, &json!({"jsonrpc": "2.0", "id": null, "error": error}));
                continue;
            }
        };
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = message.get("id").cloned() else {
            if method == "notifications/cancelled" {
                let key = params["requestId"].to_string();
                if let Some(flag) = cancels.lock().unwrap().get(&key) {
                    flag.store(true, Ordering::SeqCst);
                }
            }
            continue;
        };
        if method.is_empty() {
            // A reply: to an elicitation a `greet` call is waiting on, or to nothing.
            if let Some(waiting) = asks.lock().unwrap().remove(&id.to_string()) {
                let _ = waiting.send(message);
            }
            continue;
        }
        if method == "initialize" {
            elicits.store(params.pointer("/capabilities/elicitation").is_some(), Ordering::SeqCst);
        }
        let modern = params.pointer(VERSION_META).is_some();
        if let Some(error) = unsupported_version(&params) {
            send(&out, &json!({"jsonrpc": "2.0", "id": id, "error": error}));
            continue;
        }
        if method == "tools/call" {
            let flag = Arc::new(AtomicBool::new(false));
            cancels.lock().unwrap().insert(id.to_string(), flag.clone());
            let (out, cancels, asks, elicits) = (out.clone(), cancels.clone(), asks.clone(), elicits.clone());
            std::thread::spawn(move || {
                let asker = Asker { asks: &asks, elicits: elicits.load(Ordering::SeqCst) };
                let reply = call(&out, &params, &flag, &asker).map(|r| stamp(r, modern));
                cancels.lock().unwrap().remove(&id.to_string());
                // A cancelled request gets no reply, as the protocol asks.
                if !flag.load(Ordering::SeqCst) {
                    send(&out, &reply_to(id, reply));
                }
            });
            continue;
        }
        let reply = match method.as_str() {
            "server/discover" => Ok(json!({
                "supportedVersions": [MODERN, LEGACY],
                "capabilities": {"tools": {}},
                "instructions": INSTRUCTIONS,
                "ttlMs": 60_000,
                "cacheScope": "public"
            })),
            "initialize" => Ok(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": server_info(),
                "instructions": INSTRUCTIONS
            })),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({ "tools": tools() })),
            other => Err((-32601, format!("Method not found: {other}"))),
        };
        send(&out, &reply_to(id, reply.map(|r| stamp(r, modern))));
    }
    0
}

fn reply_to(id: Value, outcome: Result<Value, (i64, String)>) -> Value {
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err((code, message)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        }
    }
}

fn tools() -> Value {
    json!([
        {"name": "echo", "title": "Echo", "description": "Returns the text it is given.",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "description": "What to echo"}}, "required": ["text"]},
         "annotations": {"readOnlyHint": true, "openWorldHint": false}},
        {"name": "add", "title": "Add", "description": "Adds two numbers.",
         "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
         "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]},
         "annotations": {"readOnlyHint": true, "openWorldHint": false}},
        {"name": "slow", "title": "Slow task", "description": "Works for a few seconds, reporting progress if asked (progressToken).",
         "inputSchema": {"type": "object", "properties": {
             "seconds": {"type": "number", "minimum": 0, "maximum": 60, "default": 3},
             "steps": {"type": "integer", "minimum": 1, "maximum": 100, "default": 5}}},
         "annotations": {"readOnlyHint": true, "openWorldHint": false}},
        {"name": "greet", "title": "Greet", "description": "Asks who you are (an elicitation), then greets you.",
         "inputSchema": {"type": "object", "properties": {}},
         "annotations": {"readOnlyHint": true, "openWorldHint": false}},
        {"name": "image", "title": "Image", "description": "Returns a small PNG image.",
         "inputSchema": {"type": "object", "properties": {}},
         "annotations": {"readOnlyHint": true, "openWorldHint": false}}
    ])
}

/// What `greet` needs to ask a 2025-11-25 client.
struct Asker<'a> {
    asks: &'a Asks,
    elicits: bool,
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
fn greet(out: &Out, params: &Value, asker: &Asker<'_>) -> Result<Value, (i64, String)> {
    if params.pointer(VERSION_META).is_some() {
        if params.pointer("/_meta/io.modelcontextprotocol~1clientCapabilities/elicitation").is_none() {
            return Err((-32021, "greet needs the elicitation capability".into()));
        }
        return Ok(match params.pointer("/inputResponses/who") {
            Some(answer) => greeting(answer),
            None => json!({"resultType": "input_required", "requestState": "greet-v1",
                           "inputRequests": {"who": {"method": "elicitation/create", "params": who_are_you()}}}),
        });
    }
    if !asker.elicits {
        return Ok(tool_error("greet asks who you are, and this client did not declare elicitation"));
    }
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let id = json!(format!("demo-ask-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
    let (tx, rx) = std::sync::mpsc::channel();
    asker.asks.lock().unwrap().insert(id.to_string(), tx);
    send(out, &json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": who_are_you()}));
    match rx.recv_timeout(Duration::from_secs(600)) {
        Ok(reply) if reply.get("result").is_some() => Ok(greeting(&reply["result"])),
        Ok(reply) => Ok(tool_error(&format!("the elicitation failed: {}", reply["error"]))),
        Err(_) => Ok(tool_error("no answer to the elicitation within 10 minutes")),
    }
}

fn call(
    out: &Out,
    params: &Value,
    cancelled: &AtomicBool,
    asker: &Asker<'_>,
) -> Result<Value, (i64, String)> {
    let args = &params["arguments"];
    let text = |t: String| json!({"content": [{"type": "text", "text": t}]});
    match params["name"].as_str().unwrap_or_default() {
        "echo" => match args["text"].as_str() {
            Some(t) => Ok(text(t.to_owned())),
            None => Ok(tool_error("echo needs a string argument \"text\"")),
        },
        "add" => match (args["a"].as_f64(), args["b"].as_f64()) {
            (Some(a), Some(b)) => {
                let sum = a + b;
                let mut result = text(format!("{a} + {b} = {sum}"));
                result["structuredContent"] = json!({ "sum": sum });
                Ok(result)
            }
            _ => Ok(tool_error("add needs two numbers, \"a\" and \"b\"")),
        },
        "slow" => {
            let seconds = args["seconds"].as_f64().unwrap_or(3.0).clamp(0.0, 60.0);
            let steps = args["steps"].as_u64().unwrap_or(5).clamp(1, 100);
            let token = params.pointer("/_meta/progressToken").cloned();
            for step in 1..=steps {
                std::thread::sleep(Duration::from_secs_f64(seconds / steps as f64));
                if cancelled.load(Ordering::SeqCst) {
                    return Ok(Value::Null);
                }
                if let Some(token) = &token {
                    let progress = json!({"progressToken": token, "progress": step, "total": steps,
                                          "message": format!("step {step} of {steps}")});
                    send(
                        out,
                        &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": progress}),
                    );
                }
            }
            Ok(text(format!("done after {seconds} s in {steps} steps")))
        }
        "greet" => greet(out, params, asker),
        "image" => Ok(json!({"content": [
            {"type": "image", "data": IMAGE_PNG_BASE64, "mimeType": "image/png"},
            {"type": "text", "text": "a 32×32 blue disc"}
        ]})),
        other => Err((-32602, format!("Unknown tool: {other}"))),
    }
}

fn tool_error(message: &str) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}
