//! What a tool's `_meta` says about MCP Apps: the app it bears, and whether it is for apps only.

use serde::Serialize;
use serde_json::Value;

/// What a tool's `_meta` says about apps.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppLink {
    /// The app's resource (`_meta.ui.resourceUri`, or the older flat key `ui/resourceUri`);
    /// `None` for a tool that is only marked for apps.
    pub resource_uri: Option<String>,
    /// Only an app may call it (`_meta.ui.visibility` lists `app` and not `model`): the window
    /// shows it as app-only and never offers it as an ordinary tool.
    pub app_only: bool,
    /// An app may call it (`visibility` lists `app`, or says nothing).
    pub app_may_call: bool,
}

/// The app link of a tool definition, `None` when it says nothing about apps.
pub fn app_link(tool: &Value) -> Option<AppLink> {
    let meta = tool.get("_meta")?;
    let ui = meta.get("ui");
    let resource_uri = ui
        .and_then(|ui| ui.get("resourceUri"))
        .or_else(|| meta.get("ui/resourceUri"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let visibility: Option<Vec<&str>> = ui
        .and_then(|ui| ui.get("visibility"))
        .and_then(Value::as_array)
        .map(|v| v.iter().filter_map(Value::as_str).collect());
    if resource_uri.is_none() && visibility.is_none() {
        return None;
    }
    let (app_only, app_may_call) = match &visibility {
        None => (false, true),
        Some(v) => (v.contains(&"app") && !v.contains(&"model"), v.contains(&"app")),
    };
    Some(AppLink { resource_uri, app_only, app_may_call })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_keys_and_every_visibility_are_read() {
        let new = json!({"name": "t", "_meta": {"ui": {"resourceUri": "ui://a/x.html"}}});
        let old = json!({"name": "t", "_meta": {"ui/resourceUri": "ui://a/y.html"}});
        assert_eq!(app_link(&new).unwrap().resource_uri.as_deref(), Some("ui://a/x.html"));
        assert_eq!(app_link(&old).unwrap().resource_uri.as_deref(), Some("ui://a/y.html"));
        let only = json!({"name": "poll", "_meta": {"ui": {"visibility": ["app"]}}});
        assert_eq!(app_link(&only), Some(AppLink { resource_uri: None, app_only: true, app_may_call: true }));
        let model = json!({"name": "m", "_meta": {"ui": {"visibility": ["model"]}}});
        assert_eq!(app_link(&model).map(|l| (l.app_only, l.app_may_call)), Some((false, false)));
        assert_eq!(app_link(&json!({"name": "plain"})), None);
        assert_eq!(app_link(&json!({"name": "p", "_meta": {"other": 1}})), None);
    }
}
