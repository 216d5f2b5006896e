//! Sending a call again after its server died: what a tool's annotations say about the risk.
//!
//! Owns: the rule and its words. A call whose server died may have run before it died, so it
//! is sent again only as a new request, and only after the person has read why that may be
//! unsafe: a tool not marked `idempotentHint: true`, or not marked `destructiveHint: false`
//! (the default is destructive), is a risk. A read-only tool (`readOnlyHint: true`) changes
//! nothing, so it is none (the spec gives the other two hints meaning only for tools that are
//! not read-only).
//! Refuses: sending anything, and asking: a front end shows the words and asks.

use serde_json::Value;

/// Why sending a call of `tool` again needs the person's confirmation, or `None` when the
/// annotations say it is safe.
pub fn resend_risk(tool: &Value) -> Option<String> {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("this tool");
    let hint = |key: &str| tool.get("annotations").and_then(|a| a.get(key)).and_then(Value::as_bool);
    if hint("readOnlyHint") == Some(true) {
        return None;
    }
    let mut why = Vec::new();
    if hint("idempotentHint") != Some(true) {
        why.push("it is not marked idempotent, so running it twice may not be the same as once");
    }
    match hint("destructiveHint") {
        Some(false) => {}
        Some(true) => why.push("it is marked destructive"),
        None => why.push("it is not marked non-destructive, and tools are destructive by default"),
    }
    if why.is_empty() {
        return None;
    }
    Some(format!(
        "{name} may have run before its server ended, and {}. Send it again as a new request?",
        why.join("; and ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_read_only_or_idempotent_non_destructive_tools_go_again_without_asking() {
        let tool = |annotations: Value| json!({"name": "t", "annotations": annotations});
        assert_eq!(resend_risk(&tool(json!({"readOnlyHint": true}))), None);
        assert_eq!(resend_risk(&tool(json!({"idempotentHint": true, "destructiveHint": false}))), None);
        let bare = resend_risk(&json!({"name": "delete_file"})).unwrap();
        assert_eq!(
            bare,
            "delete_file may have run before its server ended, and it is not marked idempotent, so \
             running it twice may not be the same as once; and it is not marked non-destructive, \
             and tools are destructive by default. Send it again as a new request?"
        );
        let destructive =
            resend_risk(&tool(json!({"idempotentHint": true, "destructiveHint": true}))).unwrap();
        assert!(destructive.contains("and it is marked destructive."), "{destructive}");
        let not_idempotent = resend_risk(&tool(json!({"destructiveHint": false}))).unwrap();
        assert!(not_idempotent.contains("not marked idempotent"), "{not_idempotent}");
        assert!(!not_idempotent.contains("destructive"), "{not_idempotent}");
    }
}
