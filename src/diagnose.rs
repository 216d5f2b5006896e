//! Protocol diagnostics: what a server did wrong, said as data on the frame that shows it, so a
//! server author sees the rule, the frame and the fix instead of a silent timeout or a blank.
//!
//! Owns: the shape of a finding (rule, severity, one sentence, the specification section), the
//! rules that read a reply's result against what its method requires, and the words of every
//! finding the connection records (replies that answer nothing, stdout that is not protocol).
//! Refuses: deciding which frame a rule applies to (correlation does, as it records), and
//! presenting findings (the front ends do).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How wrong a finding is: an error breaks what a client does, a warning is a fault real
/// clients meet, a note is worth knowing. Ordered, so `diag:warning` also finds errors.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub const ALL: [Severity; 3] = [Severity::Note, Severity::Warning, Severity::Error];

    pub fn name(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|v| v.name().eq_ignore_ascii_case(s))
    }
}

/// One thing a frame does wrong.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// A short stable name (`result-shape`, `reply-id-type`).
    pub rule: String,
    pub severity: Severity,
    /// One sentence: what is wrong with this frame, and the fix.
    pub detail: String,
    /// Where the rule comes from.
    pub spec: String,
}

impl Finding {
    pub fn new(rule: &str, severity: Severity, detail: impl Into<String>, spec: &str) -> Finding {
        Finding { rule: rule.to_owned(), severity, detail: detail.into(), spec: spec.to_owned() }
    }
}

/// A reply whose id names a request only in another JSON type (`"1"` for `1`).
pub fn reply_id_type(detail: String) -> Finding {
    Finding::new(
        "reply-id-type",
        Severity::Error,
        format!("{detail}; echo the request's id exactly as it was sent"),
        "JSON-RPC 2.0 §5: a response's id MUST be the same as the request's",
    )
}

/// A reply to an id Sonde never sent, or one already answered.
pub fn reply_unmatched(detail: String) -> Finding {
    Finding::new(
        "reply-unmatched",
        Severity::Warning,
        format!("{detail}: a client drops it; answer each request once, with its own id"),
        "JSON-RPC 2.0 §5: each request gets exactly one response, with its id",
    )
}

/// A line on stdout that is not a JSON-RPC message.
pub fn stdout_not_protocol() -> Finding {
    Finding::new(
        "stdout-not-protocol",
        Severity::Warning,
        "this line on stdout is not a JSON-RPC message: clients fail or drop it; log to stderr instead",
        "MCP basic/transports (stdio): the server MUST NOT write anything to stdout that is not a valid MCP message",
    )
}

/// A JSON-RPC batch (an array of messages).
pub fn batch() -> Finding {
    Finding::new(
        "batch",
        Severity::Error,
        "a JSON array of messages (a batch): MCP has no batches since 2025-06-18; send each message on its own line",
        "MCP basic: JSON-RPC batching is not supported",
    )
}

/// The kind of JSON a required field must be.
#[derive(Clone, Copy)]
enum Shape {
    Array,
    Object,
    String,
}

impl Shape {
    fn holds(self, v: &Value) -> bool {
        match self {
            Shape::Array => v.is_array(),
            Shape::Object => v.is_object(),
            Shape::String => v.is_string(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Shape::Array => "an array",
            Shape::Object => "an object",
            Shape::String => "a string",
        }
    }
}

/// The fields a method's result requires, and the schema type that says so.
fn required(method: &str) -> (&'static str, &'static [(&'static str, Shape)]) {
    use Shape::*;
    match method {
        "initialize" => (
            "InitializeResult",
            &[("protocolVersion", String), ("capabilities", Object), ("serverInfo", Object)],
        ),
        "server/discover" => ("DiscoverResult", &[("supportedVersions", Array), ("capabilities", Object)]),
        "tools/list" => ("ListToolsResult", &[("tools", Array)]),
        "tools/call" => ("CallToolResult", &[("content", Array)]),
        "resources/list" => ("ListResourcesResult", &[("resources", Array)]),
        "resources/templates/list" => ("ListResourceTemplatesResult", &[("resourceTemplates", Array)]),
        "resources/read" => ("ReadResourceResult", &[("contents", Array)]),
        "prompts/list" => ("ListPromptsResult", &[("prompts", Array)]),
        "prompts/get" => ("GetPromptResult", &[("messages", Array)]),
        "completion/complete" => ("CompleteResult", &[("completion", Object)]),
        _ => ("", &[]),
    }
}

/// What is wrong with the result of `method`, field by field. A result that is not the final
/// one (a task created, a 2026-07-28 `resultType` other than `complete`) has other fields and
/// is not read here.
pub fn result_shape(method: &str, result: &Value) -> Vec<Finding> {
    let finished = result.get("task").is_none()
        && result.get("resultType").is_none_or(|t| t.as_str() == Some("complete"));
    let (schema, fields) = required(method);
    if !finished || fields.is_empty() {
        return Vec::new();
    }
    fields
        .iter()
        .filter_map(|&(field, shape)| {
            let found = match result.get(field) {
                Some(v) if shape.holds(v) => return None,
                Some(v) => format!("is {}", crate::shape::kind(v)),
                None => "is missing".to_owned(),
            };
            Some(Finding::new(
                "result-shape",
                Severity::Error,
                format!("{method}'s result: `{field}` {found}, where {schema} requires {}", shape.name()),
                &format!("MCP schema: {schema}.{field}"),
            ))
        })
        .collect()
}

/// The most severe of `findings`, if any.
pub fn worst(findings: &[Finding]) -> Option<Severity> {
    findings.iter().map(|f| f.severity).max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_result_missing_what_its_method_requires_is_an_error_naming_the_field() {
        let found = result_shape("tools/call", &json!({"isError": false}));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "result-shape");
        assert_eq!(found[0].severity, Severity::Error);
        assert_eq!(
            found[0].detail,
            "tools/call's result: `content` is missing, where CallToolResult requires an array"
        );
        assert_eq!(found[0].spec, "MCP schema: CallToolResult.content");
        let wrong = result_shape("tools/list", &json!({"tools": {"echo": {}}}));
        assert!(wrong[0].detail.contains("`tools` is an object"), "{wrong:?}");
    }

    #[test]
    fn well_formed_results_and_results_that_are_not_final_have_no_finding() {
        assert!(result_shape("tools/call", &json!({"content": []})).is_empty());
        assert!(result_shape("tools/call", &json!({"task": {"taskId": "t"}})).is_empty());
        assert!(result_shape("tools/call", &json!({"resultType": "input_required"})).is_empty());
        assert!(result_shape("ping", &json!({})).is_empty());
        let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s"}});
        assert!(result_shape("initialize", &init).is_empty());
    }

    #[test]
    fn severities_order_and_read_back() {
        assert!(Severity::Note < Severity::Warning && Severity::Warning < Severity::Error);
        for s in Severity::ALL {
            assert_eq!(Severity::parse(s.name()), Some(s));
        }
        assert_eq!(worst(&[stdout_not_protocol(), batch()]), Some(Severity::Error));
        assert_eq!(worst(&[]), None);
    }
}
