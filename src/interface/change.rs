//! One change between two interfaces, as every comparison reports it (contracts: the JSON
//! comparison): its verdict, kind, path, the values on each side and a sentence.
//!
//! Owns: those words and their order (breaking first). Refuses: finding changes (`diff`,
//! `schema_diff`).

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
/// How much a change matters to a client: it breaks one, it is worth a look, or it only adds.
#[serde(rename_all = "lowercase")]
pub enum ChangeSeverity {
    Breaking,
    Change,
    Addition,
}

impl ChangeSeverity {
    pub fn name(self) -> &'static str {
        match self {
            ChangeSeverity::Breaking => "breaking",
            ChangeSeverity::Change => "change",
            ChangeSeverity::Addition => "addition",
        }
    }
}

/// One change: where (`tools/add`, `capabilities/prompts`), what kind, the values on each side.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
pub struct Change {
    pub severity: ChangeSeverity,
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
        severity: ChangeSeverity,
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
