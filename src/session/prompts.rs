//! Getting a prompt with its arguments.
//!
//! Owns: `prompts/get`, and what is wrong with the messages it returns.
//! Refuses: rendering the messages (their content blocks are those of a tool result).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use crate::connection::RequestError;
use crate::session::Session;

/// A `GetPromptResult` and what keeps it from being read as the protocol says.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptView {
    pub result: Value,
    pub problems: Vec<String>,
    /// The messages whose content is an embedded resource, read by kind, by message index.
    pub embedded: Vec<crate::shape::content::EmbeddedView>,
}

impl Session {
    /// `prompts/get` of `name`; arguments are strings, as the protocol says.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
    ) -> Result<PromptView, RequestError> {
        let mut params = json!({ "name": name });
        if !arguments.is_empty() {
            params["arguments"] = json!(arguments);
        }
        let result = self.request("prompts/get", Some(params)).await?;
        let problems = prompt_problems(&result);
        let messages =
            result.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let embedded = crate::shape::content::embedded_in(
            messages.iter().map(|m| m.get("content").unwrap_or(&Value::Null)),
        );
        Ok(PromptView { result, problems, embedded })
    }
}

/// What is wrong with a prompt's messages: each needs a role of `user` or `assistant` and one
/// content block.
pub fn prompt_problems(result: &Value) -> Vec<String> {
    let Some(messages) = result.get("messages") else {
        return vec!["the result has no `messages`".to_owned()];
    };
    let Some(messages) = messages.as_array() else {
        return vec![format!("`messages` is {}, not an array", crate::shape::kind(messages))];
    };
    let mut problems = Vec::new();
    for (at, message) in messages.iter().enumerate() {
        match message.get("role").and_then(Value::as_str) {
            Some("user" | "assistant") => {}
            Some(other) => {
                problems.push(format!("messages[{at}]: role {other:?} is neither user nor assistant"))
            }
            None => problems.push(format!("messages[{at}]: no role")),
        }
        match message.get("content") {
            Some(Value::Object(block)) => {
                let wrapped = json!({ "content": [Value::Object(block.clone())] });
                for problem in crate::shape::result_problems(&wrapped) {
                    problems.push(format!("messages[{at}]: {problem}"));
                }
            }
            Some(other) => problems
                .push(format!("messages[{at}]: content is {}, not a block", crate::shape::kind(other))),
            None => problems.push(format!("messages[{at}]: no content")),
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_checked() {
        let ok = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]});
        assert!(prompt_problems(&ok).is_empty());
        let bad = json!({"messages": [{"role": "system", "content": "hi"}, {}]});
        assert_eq!(
            prompt_problems(&bad),
            [
                "messages[0]: role \"system\" is neither user nor assistant",
                "messages[0]: content is a string, not a block",
                "messages[1]: no role",
                "messages[1]: no content"
            ]
        );
    }
}
