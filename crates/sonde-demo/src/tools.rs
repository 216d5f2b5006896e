//! The demo's tools: `echo`, `add` (with structured output), `slow` (progress, honours
//! cancellation), `greet` (in `greet`), `image` (the logo's PNG, from `resources`) and `touch`
//! (sends list_changed for resources and prompts, whose lists never change otherwise).
//!
//! Owns: the tool list and running one call. Refuses: threads and replies, which the read loop
//! owns.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{json, Value};

use crate::listen::Touched;
use crate::resources::IMAGE_PNG_BASE64;
use crate::{greet, notify, tool_error, Fault, Server};

pub fn list() -> Value {
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
         "annotations": {"readOnlyHint": true, "openWorldHint": false}},
        {"name": "touch", "title": "Touch the lists",
         "description": "Sends list_changed for resources and prompts (the lists stay as they are), to watch list changes arrive.",
         "inputSchema": {"type": "object", "properties": {}},
         "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}}
    ])
}

fn text(t: String) -> Value {
    json!({"content": [{"type": "text", "text": t}]})
}

/// Runs one call. A `slow` call that sees `cancelled` stops early; its result is not sent.
pub fn call(server: &Server, params: &Value, cancelled: &AtomicBool, modern: bool) -> Result<Value, Fault> {
    let args = &params["arguments"];
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
        "slow" => Ok(slow(server, params, cancelled)),
        "greet" => greet::greet(server, params),
        "image" => Ok(json!({"content": [
            {"type": "image", "data": IMAGE_PNG_BASE64, "mimeType": "image/png"},
            {"type": "text", "text": "a 32×32 blue disc"}
        ]})),
        "touch" => Ok(text(touched(modern, server.streams.touch(modern)))),
        other => Err(Fault::invalid(format!("Unknown tool: {other}"))),
    }
}

fn slow(server: &Server, params: &Value, cancelled: &AtomicBool) -> Value {
    let args = &params["arguments"];
    let seconds = args["seconds"].as_f64().unwrap_or(3.0).clamp(0.0, 60.0);
    let steps = args["steps"].as_u64().unwrap_or(5).clamp(1, 100);
    let token = params.pointer("/_meta/progressToken").cloned();
    for step in 1..=steps {
        std::thread::sleep(Duration::from_secs_f64(seconds / steps as f64));
        if cancelled.load(Ordering::SeqCst) {
            return Value::Null;
        }
        if let Some(token) = &token {
            let progress = json!({"progressToken": token, "progress": step, "total": steps,
                                  "message": format!("step {step} of {steps}")});
            notify(&server.out, "notifications/progress", progress);
        }
    }
    text(format!("done after {seconds} s in {steps} steps"))
}

/// What `touch` says it did. In 2026-07-28 list changes go only to listen streams that opted
/// in, so the text says so when some kind reached none.
fn touched(modern: bool, sent: Touched) -> String {
    if !modern || (sent.resources > 0 && sent.prompts > 0) {
        return "sent list_changed for resources and prompts".into();
    }
    format!(
        "sent list_changed for resources to {} and for prompts to {} listen streams: in 2026-07-28 \
         they go only to subscriptions/listen streams that opted in",
        sent.resources, sent.prompts
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touch_says_when_a_kind_of_list_change_reached_no_stream() {
        let both = Touched { resources: 1, prompts: 2 };
        assert_eq!(touched(true, both), "sent list_changed for resources and prompts");
        assert_eq!(touched(false, Touched::default()), "sent list_changed for resources and prompts");
        let none = touched(true, Touched { resources: 1, prompts: 0 });
        assert!(none.starts_with("sent list_changed for resources to 1 and for prompts to 0 listen streams"));
    }
}
