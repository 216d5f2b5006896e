//! Which tools an app may call: those the server lists whose visibility lets apps call them.

use serde_json::Value;

pub use crate::shape::app_link::app_link;

/// Whether an app may call the tool named so, among a listing's definitions: a tool the
/// listing lacks may not be called, and one whose visibility leaves apps out may not either.
pub fn app_may_call(tools: &[Value], name: &str) -> bool {
    tools
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
        .is_some_and(|t| app_link(t).is_none_or(|l| l.app_may_call))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_app_calls_only_listed_tools_visible_to_apps() {
        let tools = [
            json!({"name": "plain"}),
            json!({"name": "poll", "_meta": {"ui": {"visibility": ["app"]}}}),
            json!({"name": "secret", "_meta": {"ui": {"visibility": ["model"]}}}),
        ];
        assert!(app_may_call(&tools, "plain"));
        assert!(app_may_call(&tools, "poll"));
        assert!(!app_may_call(&tools, "secret"));
        assert!(!app_may_call(&tools, "absent"));
    }
}
