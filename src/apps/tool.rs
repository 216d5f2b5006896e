//! Which tools an app may call: those the server lists whose visibility lets apps call them.

use serde_json::Value;

pub use crate::shape::app_link::app_link;

/// Why an app may not call a tool, in the words its refusal (`-32602`) carries.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("the server does not list a tool {0:?}")]
    NotListed(String),
    #[error("the tool {0:?} is not for apps: its visibility leaves them out")]
    NotForApps(String),
}

/// Whether an app may call the tool named so, among a listing's definitions, and if not, why:
/// a tool the listing lacks is not listed, and one whose visibility leaves apps out is the
/// server's to keep from apps.
pub fn app_may_call(tools: &[Value], name: &str) -> Result<(), Refused> {
    let Some(tool) = tools.iter().find(|t| t.get("name").and_then(Value::as_str) == Some(name)) else {
        return Err(Refused::NotListed(name.to_owned()));
    };
    match app_link(tool) {
        Some(link) if !link.app_may_call => Err(Refused::NotForApps(name.to_owned())),
        _ => Ok(()),
    }
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
        assert_eq!(app_may_call(&tools, "plain"), Ok(()));
        assert_eq!(app_may_call(&tools, "poll"), Ok(()));
        let secret = app_may_call(&tools, "secret").unwrap_err().to_string();
        assert_eq!(secret, "the tool \"secret\" is not for apps: its visibility leaves them out");
        let absent = app_may_call(&tools, "absent").unwrap_err().to_string();
        assert_eq!(absent, "the server does not list a tool \"absent\"");
    }
}
