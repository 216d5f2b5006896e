//! Log messages (`notifications/message`) about each tools/call and resources/read: an `info`
//! line naming the method and the tool or URI, and a `debug` one with the params.
//!
//! The level comes from `logging/setLevel` for a 2025-11-25 session, and from each 2026-07-28
//! request's `_meta` (no level there: no messages for that request). The messages go out
//! before the request's reply, so in 2026-07-28 they belong to it.
//!
//! Owns: the levels, reading the level asked for, and the messages. Refuses: keeping the
//! session's level (the server holds it).

use serde_json::{json, Value};

use crate::{notify, Fault, Out};

const LOG_LEVEL_META: &str = "io.modelcontextprotocol/logLevel";

/// RFC 5424 severities as MCP names them, least severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

const NAMES: [(&str, Level); 8] = [
    ("debug", Level::Debug),
    ("info", Level::Info),
    ("notice", Level::Notice),
    ("warning", Level::Warning),
    ("error", Level::Error),
    ("critical", Level::Critical),
    ("alert", Level::Alert),
    ("emergency", Level::Emergency),
];

impl Level {
    fn parse(value: &Value) -> Result<Level, Fault> {
        let name = value.as_str().unwrap_or_default();
        NAMES.iter().find(|(n, _)| *n == name).map(|(_, level)| *level).ok_or_else(|| {
            let names: Vec<&str> = NAMES.iter().map(|(n, _)| *n).collect();
            Fault::invalid(format!("{value} is not a log level; the levels are {}", names.join(", ")))
        })
    }

    fn name(self) -> &'static str {
        NAMES.iter().find(|(_, l)| *l == self).map(|(n, _)| *n).expect("every level is named")
    }

    /// Whether a message at `self` is sent to a client that asked for `threshold` and above.
    fn shown_at(self, threshold: Option<Level>) -> bool {
        threshold.is_some_and(|t| self >= t)
    }
}

/// 2025-11-25 `logging/setLevel {level}`.
pub fn set_level(params: &Value) -> Result<Level, Fault> {
    Level::parse(&params["level"])
}

/// The level a 2026-07-28 request asks for in its `_meta`, if any.
pub fn requested(params: &Value) -> Result<Option<Level>, Fault> {
    match params["_meta"].get(LOG_LEVEL_META) {
        None => Ok(None),
        Some(level) => Level::parse(level).map(Some),
    }
}

/// The messages about a request (`what`: its method and the tool or URI), each sent if the
/// level asked for shows it. The debug one carries the params without the era's `_meta`.
pub fn announce(out: &Out, level: Option<Level>, what: &str, params: &Value) {
    for (at, data) in messages(level, what, params) {
        notify(out, "notifications/message", json!({"level": at.name(), "logger": "demo", "data": data}));
    }
}

fn messages(level: Option<Level>, what: &str, params: &Value) -> Vec<(Level, Value)> {
    let mut said = Vec::new();
    if Level::Info.shown_at(level) {
        said.push((Level::Info, json!(what)));
    }
    if Level::Debug.shown_at(level) {
        let mut params = params.clone();
        if let Some(o) = params.as_object_mut() {
            o.remove("_meta");
        }
        said.push((Level::Debug, params));
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_shown_at_its_level_and_any_less_severe_one() {
        assert!(Level::Info.shown_at(Some(Level::Debug)));
        assert!(Level::Info.shown_at(Some(Level::Info)));
        assert!(!Level::Info.shown_at(Some(Level::Notice)));
        assert!(!Level::Debug.shown_at(Some(Level::Info)));
        assert!(!Level::Emergency.shown_at(None), "no level asked for, no messages");
        assert!(Level::Emergency.shown_at(Some(Level::Warning)));
    }

    #[test]
    fn debug_adds_the_params_without_meta_and_warning_hears_nothing() {
        let params = json!({"name": "echo", "arguments": {"text": "hi"}, "_meta": {"progressToken": 1}});
        let debug = messages(Some(Level::Debug), "tools/call echo", &params);
        assert_eq!(
            debug,
            vec![
                (Level::Info, json!("tools/call echo")),
                (Level::Debug, json!({"name": "echo", "arguments": {"text": "hi"}})),
            ]
        );
        assert_eq!(messages(Some(Level::Info), "x", &params).len(), 1);
        assert!(messages(Some(Level::Warning), "x", &params).is_empty());
    }

    #[test]
    fn levels_are_read_from_set_level_and_from_meta() {
        assert_eq!(set_level(&json!({"level": "notice"})), Ok(Level::Notice));
        let bad = set_level(&json!({"level": "loud"})).unwrap_err();
        assert_eq!(bad.code, -32602);
        assert!(bad.message.contains("\"loud\" is not a log level"), "{}", bad.message);
        let meta = json!({"_meta": {"io.modelcontextprotocol/logLevel": "debug"}});
        assert_eq!(requested(&meta), Ok(Some(Level::Debug)));
        assert_eq!(requested(&json!({"_meta": {}})), Ok(None));
        assert_eq!(
            requested(&json!({"_meta": {"io.modelcontextprotocol/logLevel": 3}})).unwrap_err().code,
            -32602
        );
    }
}
