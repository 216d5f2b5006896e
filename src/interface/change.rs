//! One change between two interfaces, as every comparison reports it (contracts: the JSON
//! comparison): its verdict, kind, path, the values on each side and a sentence.
//!
//! Owns: those words and their order (breaking first). Refuses: finding changes (`diff`,
//! `schema_diff`).

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
// Named Verdict in the window's bindings, beside the diagnostics' Severity.
#[serde(rename = "Verdict", rename_all = "lowercase")]
pub enum Severity {
    Breaking,
    Change,
    Addition,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Breaking => "breaking",
            Severity::Change => "change",
            Severity::Addition => "addition",
        }
    }
}

/// One change: where (`tools/add`, `capabilities/prompts`), what kind, the values on each side.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
pub struct Change {
    pub severity: Severity,
    /// `removed`, `added`, `required`, `type`, `enum`, `text`, `schema`, `capability`, `era`…
    pub kind: String,
    pub path: String,
    pub old: Option<Value>,
    pub new: Option<Value>,
    pub detail: String,
}

pub(super) struct Changes(pub(super) Vec<Change>);

impl Changes {
    pub(super) fn push(
        &mut self,
        severity: Severity,
        kind: &str,
        path: &str,
        old: Option<&Value>,
        new: Option<&Value>,
        detail: String,
    ) {
        self.0.push(Change {
            severity,
            kind: kind.to_owned(),
            path: path.to_owned(),
            old: old.cloned(),
            new: new.cloned(),
            detail,
        });
    }
}
