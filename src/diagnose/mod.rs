//! Protocol diagnostics: what a server did wrong, said as data on the frame that shows it, so a
//! server author sees the rule, the frame and the fix instead of a silent timeout or a blank.
//!
//! Owns: the shape of a finding (rule, severity, one sentence, the specification section), the
//! rules that read a reply's result against what its method requires (`results`), the rules on
//! what a server may send when (`traffic`), and the words of every finding the connection
//! records (envelopes, replies that answer nothing or answer twice, stdout that is not
//! protocol, progress for nothing, cursors that loop).
//! Refuses: deciding which frame a rule applies to (correlation does, as it records), and
//! presenting findings (the front ends do).

mod results;
mod skills;
mod tools;
mod traffic;

pub use results::result_shape;
pub use skills::{skill_file_read, skills_reply};
pub use tools::tools_reply;
pub use traffic::{server_notification, server_request, Standing};

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

/// Every rule a finding can name, as a filter's `diag:` reads them (`diag:stdout-not-protocol`).
pub const DIAGNOSTIC_RULES: &[&str] = &[
    "app-csp",
    "app-html",
    "app-mime",
    "app-permission",
    "app-resource",
    "batch",
    "before-initialized",
    "capability-undeclared",
    "cursor-loop",
    "envelope",
    "era-method",
    "host-result-size",
    "not-utf8",
    "progress-unknown",
    "reply-duplicate",
    "reply-id-type",
    "reply-unmatched",
    "result-shape",
    "skill-entry",
    "skill-entry-invalid",
    "skill-file-unverified",
    "skill-frontmatter-mismatch",
    "skills-cache-fields",
    "stdout-not-protocol",
    "tool-hidden-text",
    "tool-schema-construct",
    "tool-text-to-model",
];

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

/// A frame that is JSON but not a JSON-RPC 2.0 message MCP allows (`why` from the decoder).
pub fn envelope(why: &str) -> Finding {
    Finding::new(
        "envelope",
        Severity::Error,
        format!("{why}: a client cannot read this frame; send `\"jsonrpc\": \"2.0\"`, a string or number id, and exactly one of method, result or error"),
        "JSON-RPC 2.0 §4–5; MCP basic: messages MUST follow JSON-RPC 2.0",
    )
}

/// A frame whose bytes are not UTF-8.
pub fn not_utf8(at: usize) -> Finding {
    Finding::new(
        "not-utf8",
        Severity::Error,
        format!("the frame is not UTF-8 (at byte {at}): clients reject it or read it garbled; encode every message as UTF-8"),
        "MCP basic/transports: JSON-RPC messages MUST be UTF-8 encoded",
    )
}

/// A second reply to a request already answered.
pub fn reply_duplicate(id: &crate::wire::RequestId) -> Finding {
    Finding::new(
        "reply-duplicate",
        Severity::Warning,
        format!("a second reply to request {id}, which was already answered: a client drops it; answer each request once"),
        "JSON-RPC 2.0 §5: each request gets exactly one response",
    )
}

/// Progress for a token no request in flight carries.
pub fn progress_unknown(token: &Value) -> Finding {
    Finding::new(
        "progress-unknown",
        Severity::Warning,
        format!("progress for token {token}, which no request in flight carries: send progress only with the progressToken of a request still running"),
        "MCP basic/utilities/progress: progress notifications MUST only reference tokens provided in an active request",
    )
}

/// A `nextCursor` the listing had already followed: the pages would never end.
pub fn cursor_loop(method: &str, cursor: &Value) -> Finding {
    Finding::new(
        "cursor-loop",
        Severity::Error,
        format!("{method} returned nextCursor {cursor} a second time: a client following it never ends; each page's cursor must lead further"),
        "MCP utilities/pagination: a cursor is an opaque token to the next page",
    )
}

/// The findings of many frames under one rule: how many, the first one's words, and the seqs
/// of the frames (the first [`GROUP_SEQS`]), for a list that jumps to each frame.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleGroup {
    pub rule: String,
    /// The most severe finding under the rule.
    pub severity: Severity,
    pub count: u32,
    /// The first finding's sentence and specification section.
    pub detail: String,
    pub spec: String,
    pub seqs: Vec<u64>,
}

/// How many frames a [`RuleGroup`] names by seq.
pub const GROUP_SEQS: usize = 100;

/// The findings of frames (each its seq and findings) grouped by rule, the most severe rules
/// first, then by name.
pub fn group_findings<'a>(frames: impl IntoIterator<Item = (u64, &'a [Finding])>) -> Vec<RuleGroup> {
    let mut groups: Vec<RuleGroup> = Vec::new();
    for (seq, findings) in frames {
        for f in findings {
            let at = match groups.iter().position(|g| g.rule == f.rule) {
                Some(at) => at,
                None => {
                    groups.push(RuleGroup {
                        rule: f.rule.clone(),
                        severity: f.severity,
                        count: 0,
                        detail: f.detail.clone(),
                        spec: f.spec.clone(),
                        seqs: Vec::new(),
                    });
                    groups.len() - 1
                }
            };
            let g = &mut groups[at];
            g.count += 1;
            g.severity = g.severity.max(f.severity);
            if g.seqs.len() < GROUP_SEQS && g.seqs.last() != Some(&seq) {
                g.seqs.push(seq);
            }
        }
    }
    groups.sort_by(|a, b| b.severity.cmp(&a.severity).then_with(|| a.rule.cmp(&b.rule)));
    groups
}

/// The most severe of `findings`, if any.
pub fn worst(findings: &[Finding]) -> Option<Severity> {
    findings.iter().map(|f| f.severity).max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_a_finding_names_is_listed() {
        // The rules are the first argument of each `Finding::new(` in this module's files, and
        // of each `finding(` and `Finding::new(` where MCP Apps' resources are checked.
        let sources = [
            include_str!("mod.rs"),
            include_str!("traffic.rs"),
            include_str!("results.rs"),
            include_str!("skills.rs"),
            include_str!("tools.rs"),
            include_str!("../hosts/mod.rs"),
        ];
        let apps = [include_str!("../apps/resource.rs"), include_str!("../apps/html.rs")];
        let mut named: Vec<&str> = sources
            .iter()
            .flat_map(|s| s.split("Finding::new(\n").skip(1))
            .chain(apps.iter().flat_map(|s| s.split("finding(").chain(s.split("Finding::new(")).skip(1)))
            .filter_map(|rest| rest.trim_start().strip_prefix('"')?.split('"').next())
            .collect();
        named.sort_unstable();
        named.dedup();
        assert_eq!(named, DIAGNOSTIC_RULES);
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

    #[test]
    fn findings_group_by_rule_with_counts_errors_first() {
        let banner = [stdout_not_protocol()];
        let both = [stdout_not_protocol(), batch()];
        let groups = group_findings([(4, &banner[..]), (9, &both[..])]);
        let shown: Vec<(&str, u32, &[u64])> =
            groups.iter().map(|g| (g.rule.as_str(), g.count, g.seqs.as_slice())).collect();
        assert_eq!(shown, [("batch", 1, &[9][..]), ("stdout-not-protocol", 2, &[4, 9][..])]);
    }
}
