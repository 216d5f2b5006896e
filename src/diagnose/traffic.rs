//! The rules on what a server may send, and when: requests and notifications read against the
//! era, the handshake and the capabilities the server declared.
//!
//! Owns: which methods a server may send before `notifications/initialized` (2025-11-25), which
//! notification needs which declared capability, and that 2026-07-28 has no server requests.
//! Refuses: knowing where the connection stands (the connection loop says, in [`Standing`]).

use serde_json::Value;

use super::{Finding, Severity};
use crate::era::Era;

/// Where the connection stands when a server request or notification arrives.
#[derive(Debug, Clone, Copy, Default)]
pub struct Standing<'a> {
    /// The era, once decided.
    pub era: Option<Era>,
    /// 2025-11-25: `initialize` was sent and `notifications/initialized` was not yet.
    pub mid_handshake: bool,
    /// The capabilities the server declared, once known.
    pub capabilities: Option<&'a Value>,
}

/// What is wrong with a server request of `method`, arriving now.
pub fn server_request(standing: Standing, method: &str) -> Vec<Finding> {
    let mut found = Vec::new();
    if standing.era == Some(Era::Modern) {
        found.push(Finding::new(
            "era-method",
            Severity::Error,
            format!("a {method} request from the server: 2026-07-28 has no server-to-client requests; ask for input with an input_required result instead"),
            "MCP 2026-07-28 basic: servers do not send requests; multi-round-trip requests replace them",
        ));
    } else if standing.mid_handshake && method != "ping" {
        found.push(before_initialized("request", method));
    }
    found
}

/// What is wrong with a server notification of `method`, arriving now.
pub fn server_notification(standing: Standing, method: &str) -> Vec<Finding> {
    if standing.mid_handshake && method != "notifications/message" {
        return vec![before_initialized("notification", method)];
    }
    // 2026-07-28 sends change notifications only on an acknowledged subscriptions/listen,
    // which is its own consent; the capability rule is 2025-11-25's.
    let (Some(Era::Legacy), Some(capabilities)) = (standing.era, standing.capabilities) else {
        return Vec::new();
    };
    let Some((path, name)) = needs(method) else { return Vec::new() };
    let declared = path.iter().try_fold(capabilities, |v, key| v.get(key));
    let on = match (declared, path.len()) {
        // `logging: {}` declares logging; `listChanged: false` does not declare list changes.
        (Some(v), 1) => !v.is_null(),
        (Some(v), _) => v.as_bool() == Some(true),
        (None, _) => false,
    };
    if on {
        return Vec::new();
    }
    vec![Finding::new(
        "capability-undeclared",
        Severity::Warning,
        format!("{method} from a server that did not declare `{name}` in its capabilities: clients may ignore it; declare the capability or do not send it"),
        "MCP 2025-11-25 basic/lifecycle: both parties MUST only use capabilities that were negotiated",
    )]
}

/// The capability a notification needs, as a path into the capabilities object and in words.
fn needs(method: &str) -> Option<(&'static [&'static str], &'static str)> {
    Some(match method {
        "notifications/tools/list_changed" => (&["tools", "listChanged"], "tools.listChanged"),
        "notifications/prompts/list_changed" => (&["prompts", "listChanged"], "prompts.listChanged"),
        "notifications/resources/list_changed" => (&["resources", "listChanged"], "resources.listChanged"),
        "notifications/resources/updated" => (&["resources", "subscribe"], "resources.subscribe"),
        "notifications/message" => (&["logging"], "logging"),
        _ => return None,
    })
}

fn before_initialized(what: &str, method: &str) -> Finding {
    Finding::new(
        "before-initialized",
        Severity::Warning,
        format!("a {method} {what} before the client sent notifications/initialized: until then a server sends only pings and log messages; wait for initialized"),
        "MCP 2025-11-25 basic/lifecycle: the server SHOULD NOT send requests other than pings and logging before receiving initialized",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn legacy(capabilities: &Value) -> Standing<'_> {
        Standing { era: Some(Era::Legacy), mid_handshake: false, capabilities: Some(capabilities) }
    }

    fn rules(found: Vec<Finding>) -> Vec<String> {
        found.into_iter().map(|f| f.rule).collect()
    }

    #[test]
    fn a_notification_needs_the_capability_that_declares_it() {
        let caps =
            json!({"tools": {"listChanged": true}, "logging": {}, "resources": {"listChanged": false}});
        let s = legacy(&caps);
        assert!(server_notification(s, "notifications/tools/list_changed").is_empty());
        assert!(server_notification(s, "notifications/message").is_empty());
        assert!(server_notification(s, "notifications/progress").is_empty());
        assert_eq!(
            rules(server_notification(s, "notifications/resources/list_changed")),
            ["capability-undeclared"]
        );
        assert_eq!(
            rules(server_notification(s, "notifications/resources/updated")),
            ["capability-undeclared"]
        );
        let bare = json!({});
        let found = server_notification(legacy(&bare), "notifications/message");
        assert!(found[0].detail.contains("did not declare `logging`"), "{found:?}");
    }

    #[test]
    fn before_initialized_only_pings_and_log_messages_are_allowed() {
        let s = Standing { era: None, mid_handshake: true, capabilities: None };
        assert!(server_request(s, "ping").is_empty());
        assert!(server_notification(s, "notifications/message").is_empty());
        assert_eq!(rules(server_request(s, "roots/list")), ["before-initialized"]);
        assert_eq!(rules(server_notification(s, "notifications/tools/list_changed")), ["before-initialized"]);
    }

    #[test]
    fn the_modern_era_has_no_server_requests_and_no_capability_rule() {
        let caps = json!({});
        let s = Standing { era: Some(Era::Modern), mid_handshake: false, capabilities: Some(&caps) };
        assert_eq!(rules(server_request(s, "elicitation/create")), ["era-method"]);
        assert!(server_notification(s, "notifications/tools/list_changed").is_empty());
        assert!(server_request(legacy(&caps), "roots/list").is_empty());
    }
}
