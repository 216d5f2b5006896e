//! The demo server bundled with Sonde (`sonde demo-server`, and the desktop app run with
//! `demo-server`): a small, friendly MCP server on stdio, the default thing to inspect.
//!
//! Tools: `echo`, `add`, `slow` (reports progress, honours cancellation) and `image` (a PNG).
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
            o.insert("resultType".into(), json!("complete"));
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
            continue; // a reply to something we never ask; nothing to do
        }
        let modern = params.pointer(VERSION_META).is_some();
        if let Some(error) = unsupported_version(&params) {
            send(&out, &json!({"jsonrpc": "2.0", "id": id, "error": error}));
            continue;
        }
        if method == "tools/call" {
            let flag = Arc::new(AtomicBool::new(false));
            cancels.lock().unwrap().insert(id.to_string(), flag.clone());
            let (out, cancels) = (out.clone(), cancels.clone());
            std::thread::spawn(move || {
                let reply = call(&out, &params, &flag).map(|r| stamp(r, modern));
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
        {"name": "image", "title": "Image", "description": "Returns a small PNG image.",
         "inputSchema": {"type": "object", "properties": {}},
         "annotations": {"readOnlyHint": true, "openWorldHint": false}}
    ])
}

fn call(out: &Out, params: &Value, cancelled: &AtomicBool) -> Result<Value, (i64, String)> {
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
