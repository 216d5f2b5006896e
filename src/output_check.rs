//! Checking a tool's `structuredContent` against its `outputSchema`.
//!
//! Owns: the verdict shown with a tool result. JSON Schema 2020-12 unless the schema's
//! `$schema` names another dialect; `$ref`s are never fetched from the network (the crate is
//! built without its HTTP and file resolvers).
//! Refuses: validating arguments before a call; the server is the judge of its inputs.

use serde::Serialize;
use serde_json::Value;

/// What Sonde found when it checked a result.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum OutputCheck {
    /// `structuredContent` matches the `outputSchema`.
    Valid,
    /// It does not; each error says where and why.
    Invalid { errors: Vec<String> },
    /// The tool declares an `outputSchema` but the result has no `structuredContent`.
    Missing,
    /// The `outputSchema` itself cannot be used.
    BadSchema { error: String },
}

impl OutputCheck {
    pub fn describe(&self) -> String {
        match self {
            OutputCheck::Valid => "structuredContent matches the outputSchema".into(),
            OutputCheck::Invalid { errors } => {
                format!("structuredContent does not match the outputSchema: {}", errors.join("; "))
            }
            OutputCheck::Missing => {
                "the tool has an outputSchema but the result has no structuredContent".into()
            }
            OutputCheck::BadSchema { error } => format!("the outputSchema cannot be used: {error}"),
        }
    }
}

/// Checks a `CallToolResult` against a tool definition. `None` when the tool declares no
/// `outputSchema`, or the result is an error result (`isError: true` need not conform).
pub fn check_output(tool: &Value, result: &Value) -> Option<OutputCheck> {
    let schema = tool.get("outputSchema")?;
    if result.get("isError") == Some(&Value::Bool(true)) {
        return None;
    }
    let Some(structured) = result.get("structuredContent") else { return Some(OutputCheck::Missing) };
    let validator = match jsonschema::validator_for(schema) {
        Ok(v) => v,
        Err(e) => return Some(OutputCheck::BadSchema { error: e.to_string() }),
    };
    let errors: Vec<String> = validator
        .iter_errors(structured)
        .map(|e| {
            let at = e.instance_path().to_string();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("at {at}: {e}")
            }
        })
        .collect();
    Some(if errors.is_empty() { OutputCheck::Valid } else { OutputCheck::Invalid { errors } })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool() -> Value {
        json!({"name": "add", "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}})
    }

    #[test]
    fn results_are_checked_against_the_output_schema() {
        assert_eq!(
            check_output(&tool(), &json!({"structuredContent": {"sum": 3}})),
            Some(OutputCheck::Valid)
        );
        let bad = check_output(&tool(), &json!({"structuredContent": {"sum": "3"}})).unwrap();
        assert!(
            matches!(&bad, OutputCheck::Invalid { errors } if errors[0].starts_with("at /sum:")),
            "{bad:?}"
        );
        assert_eq!(check_output(&tool(), &json!({"content": []})), Some(OutputCheck::Missing));
        assert_eq!(check_output(&tool(), &json!({"isError": true})), None);
        assert_eq!(check_output(&json!({"name": "x"}), &json!({"structuredContent": 1})), None);
    }

    #[test]
    fn a_remote_ref_is_never_fetched() {
        let tool = json!({"outputSchema": {"$ref": "https://example.invalid/schema.json"}});
        assert!(matches!(
            check_output(&tool, &json!({"structuredContent": {}})),
            Some(OutputCheck::BadSchema { .. })
        ));
    }
}
