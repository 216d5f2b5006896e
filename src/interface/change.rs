//! One change between two interfaces, as every comparison reports it (contracts: the JSON
//! comparison): its verdict, kind, path, the values on each side and a sentence.
//!
//! Owns: those words and their order (breaking first). Refuses: finding changes (`diff`,
//! `schema_diff`).

use serde::Serialize;
use serde_json::Value;

use super::snapshot::identity;
use crate::session::listing::ListKind;

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

/// The changes counted in words, breaking first: "1 breaking change, 1 tool added", or
/// "interface unchanged".
pub fn in_brief(changes: &[Change]) -> String {
    if changes.is_empty() {
        return "interface unchanged".into();
    }
    let counted = |n: usize, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    let of = |severity: ChangeSeverity| changes.iter().filter(move |c| c.severity == severity);
    let mut words = Vec::new();
    let breaking = of(ChangeSeverity::Breaking).count();
    if breaking > 0 {
        words.push(counted(breaking, "breaking change"));
    }
    // A whole item added is said by its kind ("2 tools added"); other additions are counted.
    let whole = |c: &Change, kind: ListKind| {
        c.kind == "added"
            && c.new.as_ref().is_some_and(|n| c.path == format!("{}/{}", kind.key(), identity(kind, n)))
    };
    let mut additions = of(ChangeSeverity::Addition).count();
    for kind in ListKind::ALL {
        let added = of(ChangeSeverity::Addition).filter(|c| whole(c, kind)).count();
        if added > 0 {
            words.push(format!("{} added", counted(added, what(kind))));
            additions -= added;
        }
    }
    let changed = of(ChangeSeverity::Change).count();
    if changed > 0 {
        words.push(counted(changed, "change"));
    }
    if additions > 0 {
        words.push(counted(additions, "other addition"));
    }
    words.join(", ")
}

/// An item's kind in words: "tool", "resource template".
pub(super) fn what(kind: ListKind) -> &'static str {
    match kind {
        ListKind::Tools => "tool",
        ListKind::Prompts => "prompt",
        ListKind::Resources => "resource",
        ListKind::Templates => "resource template",
    }
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
