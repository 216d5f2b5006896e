//! `completion/complete`: values the server suggests for a prompt argument or a template
//! variable, given what is typed so far and the other arguments already filled.
//!
//! Owns: the request, and reading its result; not asking a server that does not declare
//! `completions` (the protocol requires the capability).
//! Refuses: when to ask (a front end debounces as the person types).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::connection::RequestError;
use crate::session::Session;

/// What is being completed: a prompt's argument or a resource template's variable.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionRef {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

/// The server's suggestions.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    pub values: Vec<String>,
    pub total: Option<u64>,
    pub has_more: bool,
}

impl Session {
    /// Whether the server declares `completions`.
    pub fn completes(&self) -> bool {
        self.server.capabilities.get("completions").is_some()
    }

    /// Asks for completions of `argument`, typed so far as `value`; `context` holds the other
    /// arguments already filled (sent as `context.arguments` when there are any).
    pub async fn complete(
        &self,
        reference: &CompletionRef,
        argument: &str,
        value: &str,
        context: &BTreeMap<String, String>,
    ) -> Result<Completion, RequestError> {
        if !self.completes() {
            return Err(RequestError::Protocol(
                "the server does not declare the completions capability; Sonde did not ask".into(),
            ));
        }
        let mut params = json!({ "ref": reference, "argument": { "name": argument, "value": value } });
        if !context.is_empty() {
            params["context"] = json!({ "arguments": context });
        }
        let result = self.request("completion/complete", Some(params)).await?;
        completion_of(&result)
    }
}

/// Reads a `CompleteResult`.
pub fn completion_of(result: &Value) -> Result<Completion, RequestError> {
    let bad = |why: String| RequestError::Protocol(format!("completion/complete answered {why}"));
    let completion = result.get("completion").ok_or_else(|| bad("without `completion`".into()))?;
    let values = match completion.get("values") {
        Some(Value::Array(values)) => values
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| bad(format!("a value that is {}", crate::shape::kind(v))))
            })
            .collect::<Result<Vec<String>, _>>()?,
        _ => return Err(bad("without a `completion.values` array".into())),
    };
    Ok(Completion {
        values,
        total: completion.get("total").and_then(Value::as_u64),
        has_more: completion.get("hasMore").and_then(Value::as_bool).unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_serialize_as_the_protocol_names_them() {
        let r = CompletionRef::Prompt { name: "p".into() };
        assert_eq!(serde_json::to_value(&r).unwrap(), json!({"type": "ref/prompt", "name": "p"}));
        let r = CompletionRef::Resource { uri: "demo://{x}".into() };
        assert_eq!(serde_json::to_value(&r).unwrap(), json!({"type": "ref/resource", "uri": "demo://{x}"}));
    }

    #[test]
    fn results_are_read() {
        let got = completion_of(&json!({"completion": {"values": ["a", "b"], "total": 9, "hasMore": true}}))
            .unwrap();
        assert_eq!(got, Completion { values: vec!["a".into(), "b".into()], total: Some(9), has_more: true });
        assert!(completion_of(&json!({"completion": {"values": [1]}})).is_err());
        assert!(completion_of(&json!({})).is_err());
    }
}
