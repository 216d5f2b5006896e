//! The host side of an app's protocol (JSON-RPC over `postMessage`), as data: each message an
//! app sends read into what it asks, and each answer and notification Sonde sends it built.
//!
//! Owns: which methods an app may use and what each is answered (an app calls only tools
//! visible to apps; `ui/message` and context updates are noted, since Sonde is not a chat
//! host; links and display modes are the window's to decide), the `ui/initialize` result, and
//! the host's notifications (tool input, result, cancellation, context changes, teardown).
//! Refuses: sending anything, calling the server and recording; the hub does (`hub/apps.rs`).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The protocol version of the extension Sonde's host speaks.
pub const PROTOCOL_VERSION: &str = "2026-01-26";

/// What the window tells an app about where it is drawn: theme, display mode, the modes it
/// offers, container size, locale, time zone and platform (`McpUiHostContext`), as the window
/// knows them. Kept as JSON: an app reads it as is.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostContext(pub Value);

/// What only the window (or the person in front of it) can decide for an app.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum AppAsk {
    /// `ui/open-link`: ask the person before the system browser opens it.
    OpenLink { url: String },
    /// `ui/request-display-mode`: the window answers with the mode it grants.
    DisplayMode { mode: String },
    /// `ui/notifications/size-changed`: the app's content size, honoured within the pane.
    Size { width: Option<f64>, height: Option<f64> },
    /// `ui/notifications/request-teardown`: the app asks to be closed.
    Teardown,
}

/// What one message from an app comes to.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Answer the app now with this message.
    Reply(Value),
    /// The server answers: send it `method` with `params`, then answer the app with
    /// [`forwarded`] under `id`.
    Forward { id: Value, method: String, params: Value },
    /// The window decides; answer (a request, with its `id`) with [`answered`].
    Ask { id: Option<Value>, ask: AppAsk },
    /// The app is ready: send it the tool's input and result.
    Ready,
    /// Nothing to send (a notification taken note of, a reply to Sonde's own request).
    Nothing,
}

/// A line for the app pane about a message: what the app logged or said, or why it was refused.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppNote {
    /// `log`, `message`, `context`, `refused` or `error`.
    pub kind: String,
    pub text: String,
}

fn note(kind: &str, text: impl Into<String>) -> Option<AppNote> {
    Some(AppNote { kind: kind.to_owned(), text: text.into() })
}

fn result(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

fn notification(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

/// The text of a content list (`ui/message`, `ui/update-model-context`), for a note.
fn content_text(params: &Value) -> String {
    let blocks = params.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let texts: Vec<&str> = blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect();
    match (texts.is_empty(), params.get("structuredContent")) {
        (false, _) => texts.join("\n"),
        (true, Some(structured)) => structured.to_string(),
        (true, None) => format!("{} content block(s) without text", blocks.len()),
    }
}

/// Reads one message from an app. `may_call` says whether the app may call a tool by name, and
/// if not, why.
pub fn from_app(
    text: &str,
    may_call: impl Fn(&str) -> Result<(), crate::apps::tool::Refused>,
    context: &HostContext,
) -> (Step, Option<AppNote>) {
    let Ok(message) = serde_json::from_str::<Value>(text) else {
        return (Step::Nothing, note("error", "the app sent a message that is not JSON"));
    };
    let id = message.get("id").cloned();
    let method = message.get("method").and_then(Value::as_str);
    let params = message.get("params").cloned().unwrap_or_else(|| json!({}));
    let Some(method) = method else {
        // A reply to Sonde's own request (`ui/resource-teardown`).
        return match message.get("error") {
            Some(e) => (Step::Nothing, note("error", format!("the app answered with an error: {e}"))),
            None => (Step::Nothing, None),
        };
    };
    let Some(id) = id else {
        return notification_from_app(method, &params);
    };
    match method {
        "ui/initialize" => {
            // The one version Sonde speaks, whatever the app asked: an app that cannot speak it
            // says so.
            let answer = json!({
                "protocolVersion": PROTOCOL_VERSION,
                "hostInfo": { "name": "sonde", "title": "Sonde", "version": env!("CARGO_PKG_VERSION") },
                "hostCapabilities": {
                    "openLinks": {},
                    "serverTools": {},
                    "serverResources": {},
                    "logging": {},
                    "message": { "text": {} },
                    "updateModelContext": { "text": {} },
                },
                "hostContext": context.0,
            });
            (Step::Reply(result(&id, answer)), None)
        }
        "ping" => (Step::Reply(result(&id, json!({}))), None),
        "tools/call" => {
            let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
            match may_call(name) {
                Ok(()) => (Step::Forward { id, method: method.to_owned(), params }, None),
                Err(why) => (
                    Step::Reply(error(&id, -32602, &why.to_string())),
                    note("refused", format!("tools/call refused: {why}")),
                ),
            }
        }
        "resources/read" | "resources/list" | "resources/templates/list" | "tools/list" => {
            (Step::Forward { id, method: method.to_owned(), params }, None)
        }
        "ui/open-link" => match params.get("url").and_then(Value::as_str) {
            Some(url) => (Step::Ask { id: Some(id), ask: AppAsk::OpenLink { url: url.to_owned() } }, None),
            None => (
                Step::Reply(error(&id, -32602, "ui/open-link needs a url")),
                note("error", "ui/open-link without a url"),
            ),
        },
        "ui/request-display-mode" => {
            let mode = params.get("mode").and_then(Value::as_str).unwrap_or("inline").to_owned();
            (Step::Ask { id: Some(id), ask: AppAsk::DisplayMode { mode } }, None)
        }
        "ui/message" => {
            let text = content_text(&params);
            (
                Step::Reply(result(&id, json!({}))),
                note("message", format!("the app would say to the model: {text}")),
            )
        }
        "ui/update-model-context" => {
            let text = content_text(&params);
            (
                Step::Reply(result(&id, json!({}))),
                note("context", format!("the app set the model's context: {text}")),
            )
        }
        _ => {
            let why = format!("Sonde's host does not offer {method}");
            (Step::Reply(error(&id, -32601, &why)), note("refused", why))
        }
    }
}

fn notification_from_app(method: &str, params: &Value) -> (Step, Option<AppNote>) {
    match method {
        "ui/notifications/initialized" => (Step::Ready, None),
        "notifications/message" => {
            let level = params.get("level").and_then(Value::as_str).unwrap_or("info");
            let data = match params.get("data") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            (Step::Nothing, note("log", format!("{level}: {data}")))
        }
        "ui/notifications/size-changed" => {
            let size = |k: &str| params.get(k).and_then(Value::as_f64);
            (Step::Ask { id: None, ask: AppAsk::Size { width: size("width"), height: size("height") } }, None)
        }
        "ui/notifications/request-teardown" => (Step::Ask { id: None, ask: AppAsk::Teardown }, None),
        _ => (Step::Nothing, None),
    }
}

/// The answer to an app's forwarded request: the server's result, or its error as it gave it.
pub fn forwarded(id: &Value, outcome: Result<Value, Value>) -> Value {
    match outcome {
        Ok(value) => result(id, value),
        Err(e) => json!({ "jsonrpc": "2.0", "id": id, "error": e }),
    }
}

/// The answer to an app's request the window decided: for a link, whether it opened; for a
/// display mode, the mode granted.
pub fn answered(id: &Value, ask: &AppAsk, granted: &Value) -> Option<Value> {
    match ask {
        AppAsk::OpenLink { .. } => {
            let opened = granted.as_bool().unwrap_or(false);
            Some(result(id, if opened { json!({}) } else { json!({ "isError": true }) }))
        }
        AppAsk::DisplayMode { .. } => {
            let mode = granted.as_str().unwrap_or("inline");
            Some(result(id, json!({ "mode": mode })))
        }
        AppAsk::Size { .. } | AppAsk::Teardown => None,
    }
}

/// `ui/notifications/tool-input`.
pub fn tool_input(arguments: &Value) -> Value {
    notification("ui/notifications/tool-input", json!({ "arguments": arguments }))
}

/// `ui/notifications/tool-result`: the call's result as the server gave it.
pub fn tool_result(call_result: &Value) -> Value {
    notification("ui/notifications/tool-result", call_result.clone())
}

/// `ui/notifications/tool-cancelled`.
pub fn tool_cancelled(reason: &str) -> Value {
    notification("ui/notifications/tool-cancelled", json!({ "reason": reason }))
}

/// `ui/notifications/host-context-changed`, with what changed.
pub fn context_changed(changed: &Value) -> Value {
    notification("ui/notifications/host-context-changed", changed.clone())
}

/// The answer to a request the window dropped in a flood, `None` for a message that awaits
/// none: an error, so the app's promise ends.
pub fn dropped(text: &str) -> Option<Value> {
    let message: Value = serde_json::from_str(text).ok()?;
    let id = message.get("id")?;
    message.get("method")?;
    Some(error(id, -32000, "dropped: the app sent more than the window takes at once; send it again"))
}

/// Whether `text` is the app's answer to the teardown Sonde sent app `app` ([`teardown`]).
pub fn answers_teardown(text: &str, app: u64) -> bool {
    let Ok(message) = serde_json::from_str::<Value>(text) else { return false };
    message.get("method").is_none() && message.get("id") == Some(&json!(format!("sonde-{app}")))
}

/// `ui/resource-teardown`: the app is about to go (its connection ended, or its result was
/// replaced), so it may save what it holds.
pub fn teardown(id: u64, reason: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": format!("sonde-{id}"), "method": "ui/resource-teardown", "params": { "reason": reason } })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(message: Value) -> (Step, Option<AppNote>) {
        let context = HostContext(json!({ "theme": "dark", "platform": "desktop" }));
        let may_call = |name: &str| match name {
            "get-time" => Ok(()),
            other => Err(crate::apps::tool::Refused::NotListed(other.to_owned())),
        };
        from_app(&message.to_string(), may_call, &context)
    }

    #[test]
    fn initialize_gets_the_host_context_and_capabilities() {
        let (step, _) = step(json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize",
            "params": {"protocolVersion": "2026-01-26", "appInfo": {"name": "a", "version": "1"}, "appCapabilities": {}}}));
        let Step::Reply(reply) = step else { panic!("{step:?}") };
        assert_eq!(reply["id"], 1);
        assert_eq!(reply["result"]["protocolVersion"], PROTOCOL_VERSION);
        assert_eq!(reply["result"]["hostContext"]["theme"], "dark");
        assert!(reply["result"]["hostCapabilities"]["openLinks"].is_object());
        let (ready, _) = super::from_app(
            r#"{"jsonrpc":"2.0","method":"ui/notifications/initialized"}"#,
            |_| Ok(()),
            &HostContext::default(),
        );
        assert_eq!(ready, Step::Ready);
    }

    #[test]
    fn an_app_calls_only_tools_it_may() {
        let (ok, _) = step(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get-time", "arguments": {}}}),
        );
        assert!(matches!(ok, Step::Forward { ref method, .. } if method == "tools/call"));
        let (refused, why) = step(
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "delete-all"}}),
        );
        let Step::Reply(reply) = refused else { panic!() };
        assert_eq!(reply["error"]["code"], -32602);
        assert_eq!(reply["error"]["message"], "the server does not list a tool \"delete-all\"");
        assert_eq!(why.unwrap().kind, "refused");
    }

    #[test]
    fn links_and_modes_are_asked_and_answered() {
        let (asked, _) = step(
            json!({"jsonrpc": "2.0", "id": "l", "method": "ui/open-link", "params": {"url": "https://example.com/"}}),
        );
        let Step::Ask { id: Some(id), ask } = asked else { panic!() };
        assert_eq!(ask, AppAsk::OpenLink { url: "https://example.com/".into() });
        assert_eq!(answered(&id, &ask, &json!(false)).unwrap()["result"]["isError"], true);
        assert_eq!(answered(&id, &ask, &json!(true)).unwrap()["result"], json!({}));
        let (mode, _) = step(
            json!({"jsonrpc": "2.0", "id": 5, "method": "ui/request-display-mode", "params": {"mode": "fullscreen"}}),
        );
        let Step::Ask { id: Some(id), ask } = mode else { panic!() };
        assert_eq!(answered(&id, &ask, &json!("fullscreen")).unwrap()["result"]["mode"], "fullscreen");
    }

    #[test]
    fn a_dropped_request_is_answered_and_a_dropped_notification_is_not() {
        let reply = dropped(r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#).unwrap();
        assert_eq!((reply["id"].clone(), reply["error"]["code"].clone()), (json!(9), json!(-32000)));
        assert_eq!(dropped(r#"{"jsonrpc":"2.0","method":"notifications/message"}"#), None);
        assert_eq!(dropped(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#), None);
    }

    #[test]
    fn messages_logs_and_the_unknown_become_notes() {
        let (reply, said) = step(json!({"jsonrpc": "2.0", "id": 6, "method": "ui/message",
            "params": {"role": "user", "content": [{"type": "text", "text": "hello"}]}}));
        assert!(matches!(reply, Step::Reply(ref r) if r["result"] == json!({})));
        assert_eq!(said.unwrap().text, "the app would say to the model: hello");
        let (_, logged) = step(
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "tick"}}),
        );
        assert_eq!(logged.unwrap().text, "info: tick");
        let (unknown, refused) =
            step(json!({"jsonrpc": "2.0", "id": 7, "method": "ui/download-file", "params": {}}));
        assert!(matches!(unknown, Step::Reply(ref r) if r["error"]["code"] == -32601));
        assert_eq!(refused.unwrap().kind, "refused");
        let (_, broken) = super::from_app("not json", |_| Ok(()), &HostContext::default());
        assert_eq!(broken.unwrap().kind, "error");
    }
}
