//! `completion/complete`: suggestions for the greeting template's `name` and for the `review`
//! prompt's `language` and `style`, the style depending on the language already chosen
//! (`context.arguments`).
//!
//! Owns: which candidates fit a reference and argument, and filtering them by what was typed.
//! Refuses: errors; anything it has no suggestions for gets none.

use serde_json::{json, Value};

use crate::resources::GREETING_TEMPLATE;

const NAMES: &[&str] = &["Ada", "Alan", "Barbara", "Grace", "Linus", "Margaret"];
const LANGUAGES: &[&str] = &["go", "python", "rust", "typescript"];
const RUST_STYLES: &[&str] = &["clippy", "idiomatic", "unsafe-audit"];
const STYLES: &[&str] = &["concise", "thorough"];

/// The candidates for an argument of a reference, before filtering.
fn candidates(reference: &Value, argument: &str, context: &Value) -> &'static [&'static str] {
    let kind = reference["type"].as_str().unwrap_or_default();
    match (kind, argument) {
        ("ref/resource", "name") if reference["uri"] == GREETING_TEMPLATE => NAMES,
        ("ref/prompt", "language") if reference["name"] == "review" => LANGUAGES,
        ("ref/prompt", "style") if reference["name"] == "review" => match context["language"].as_str() {
            Some("rust") => RUST_STYLES,
            _ => STYLES,
        },
        _ => &[],
    }
}

/// The candidates that start with `typed`, ignoring case.
fn matching(candidates: &[&'static str], typed: &str) -> Vec<&'static str> {
    let typed = typed.to_lowercase();
    candidates.iter().copied().filter(|c| c.to_lowercase().starts_with(&typed)).collect()
}

/// The answer to `completion/complete`.
pub fn answer(params: &Value) -> Value {
    let argument = &params["argument"];
    let found = candidates(
        &params["ref"],
        argument["name"].as_str().unwrap_or_default(),
        &params["context"]["arguments"],
    );
    let values = matching(found, argument["value"].as_str().unwrap_or_default());
    json!({"completion": {"values": values, "total": values.len(), "hasMore": false}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete(reference: Value, name: &str, value: &str, context: Value) -> Value {
        answer(&json!({"ref": reference, "argument": {"name": name, "value": value},
                       "context": {"arguments": context}}))["completion"]
            .clone()
    }

    #[test]
    fn names_are_filtered_by_prefix_ignoring_case() {
        let greeting = json!({"type": "ref/resource", "uri": GREETING_TEMPLATE});
        let got = complete(greeting.clone(), "name", "a", json!({}));
        assert_eq!(got, json!({"values": ["Ada", "Alan"], "total": 2, "hasMore": false}));
        assert_eq!(complete(greeting.clone(), "name", "MAR", json!({}))["values"], json!(["Margaret"]));
        assert_eq!(complete(greeting, "name", "", json!({}))["total"], 6);
    }

    #[test]
    fn a_styles_suggestions_depend_on_the_language_chosen() {
        let review = json!({"type": "ref/prompt", "name": "review"});
        assert_eq!(complete(review.clone(), "language", "t", json!({}))["values"], json!(["typescript"]));
        let rust = complete(review.clone(), "style", "", json!({"language": "rust"}));
        assert_eq!(rust["values"], json!(["clippy", "idiomatic", "unsafe-audit"]));
        assert_eq!(
            complete(review.clone(), "style", "", json!({"language": "go"}))["values"],
            json!(["concise", "thorough"])
        );
        assert_eq!(complete(review, "style", "T", json!({}))["values"], json!(["thorough"]));
    }

    #[test]
    fn anything_else_gets_no_values() {
        let empty = json!({"values": [], "total": 0, "hasMore": false});
        assert_eq!(
            complete(json!({"type": "ref/prompt", "name": "hello"}), "language", "", json!({})),
            empty
        );
        assert_eq!(
            complete(json!({"type": "ref/resource", "uri": "demo://x/{name}"}), "name", "", json!({})),
            empty
        );
        assert_eq!(complete(json!({"type": "ref/prompt", "name": "review"}), "tone", "", json!({})), empty);
    }
}
