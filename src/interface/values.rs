//! The JSON comparison of values (contracts: one of each, in the core): where two JSON values
//! differ, each difference a path (`result.content[0].text`) with the value on each side.
//! Replay compares recorded answers with it, and test expectations read its paths.
//!
//! Owns: the path's notation and which differences there are (an object's key on one side
//! only, an array's length, a leaf's value). Arrays of named things (a listing's items, a
//! read's contents, content blocks with URIs) are matched by name or URI, their places written
//! `tools[name="divide"]`; any other array by place. Refuses: judging them (`diff` judges interfaces).

use serde::Serialize;
use serde_json::Value;

/// One place where two values differ; a side that lacks the place has `None`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
pub struct Difference {
    pub path: String,
    /// The path's steps (keys, and an array's indices), for a window to mark the place.
    pub steps: Vec<String>,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

/// Every difference from `old` to `new`, in document order, under the path `root` (empty for
/// the values themselves).
pub fn differences(root: &str, old: &Value, new: &Value) -> Vec<Difference> {
    let mut out = Vec::new();
    walk(root, &[], Some(old), Some(new), &mut out);
    out
}

/// `path` followed by the key `key`: `.key` for a plain name, `["…"]` for any other.
pub fn key_path(path: &str, key: &str) -> String {
    let plain = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    match (plain, path.is_empty()) {
        (true, true) => key.to_owned(),
        (true, false) => format!("{path}.{key}"),
        (false, _) => format!("{path}[{}]", Value::from(key)),
    }
}

fn walk(path: &str, steps: &[String], old: Option<&Value>, new: Option<&Value>, out: &mut Vec<Difference>) {
    let deeper = |step: String| [steps, &[step]].concat();
    match (old, new) {
        (Some(Value::Object(o)), Some(Value::Object(n))) => {
            for (key, value) in o {
                walk(&key_path(path, key), &deeper(key.clone()), Some(value), n.get(key), out);
            }
            for (key, value) in n.iter().filter(|(k, _)| !o.contains_key(*k)) {
                walk(&key_path(path, key), &deeper(key.clone()), None, Some(value), out);
            }
        }
        (Some(Value::Array(o)), Some(Value::Array(n))) => match (named(steps, o), named(steps, n)) {
            // Named things are matched by their name or URI: one removed is that one gone, not
            // every later one moved up a place.
            (Some((key, old_names)), Some((_, new_names))) => {
                for (name, value) in &old_names {
                    let step = format!("{key}={}", Value::from(name.as_str()));
                    let now = new_names.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
                    walk(&format!("{path}[{step}]"), &deeper(step.clone()), Some(value), now, out);
                }
                for (name, value) in new_names.iter().filter(|(n, _)| !old_names.iter().any(|(o, _)| o == n))
                {
                    let step = format!("{key}={}", Value::from(name.as_str()));
                    walk(&format!("{path}[{step}]"), &deeper(step.clone()), None, Some(value), out);
                }
            }
            _ => {
                for i in 0..o.len().max(n.len()) {
                    walk(&format!("{path}[{i}]"), &deeper(i.to_string()), o.get(i), n.get(i), out);
                }
            }
        },
        // A number is its value: 5 and 5.0 are the same number.
        (Some(Value::Number(o)), Some(Value::Number(n))) if same_number(o, n) => {}
        (o, n) if o != n => out.push(Difference {
            path: path.to_owned(),
            steps: steps.to_vec(),
            old: o.cloned(),
            new: n.cloned(),
        }),
        _ => {}
    }
}

/// The arrays whose items are named things, by the key that holds the array: a listing's
/// tools, prompts, resources and templates, a read's contents, and content blocks.
const NAMED_ARRAYS: [&str; 6] = ["tools", "prompts", "resources", "resourceTemplates", "contents", "content"];

/// An array's items with their names, when the array is one of [`NAMED_ARRAYS`] and every item
/// has a name or URI no other item has (`name`, `uri`, `uriTemplate`, or an embedded
/// resource's `resource.uri`); with the key that names them. Anything else is compared by place.
fn named<'a>(steps: &[String], items: &'a [Value]) -> Option<(&'static str, Vec<(String, &'a Value)>)> {
    if !steps.last().is_some_and(|s| NAMED_ARRAYS.contains(&s.as_str())) || items.is_empty() {
        return None;
    }
    fn name_of(item: &Value) -> Option<(&'static str, &str)> {
        ["uri", "uriTemplate", "name"]
            .into_iter()
            .find_map(|k| item.get(k).and_then(Value::as_str).map(|n| (k, n)))
            .or_else(|| item.pointer("/resource/uri").and_then(Value::as_str).map(|n| ("uri", n)))
    }
    let mut key = None;
    let mut out: Vec<(String, &Value)> = Vec::new();
    for item in items {
        let (k, name) = name_of(item)?;
        if key.is_some_and(|key| key != k) || out.iter().any(|(n, _)| n == name) {
            return None;
        }
        key = Some(k);
        out.push((name.to_owned(), item));
    }
    Some((key?, out))
}

fn same_number(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
        (Some(x), Some(y), ..) => x == y,
        (.., Some(x), Some(y)) => x == y,
        _ => a.as_f64() == b.as_f64(),
    }
}

/// Whether the difference at `path` is one `pattern` names: the same path, or a place under
/// it; `[*]` stands for any index and `.*` for any key.
pub fn pattern_covers(pattern: &str, path: &str) -> bool {
    let (p, q) = (steps(pattern), steps(path));
    p.len() <= q.len()
        && p.iter().zip(&q).all(|(p, q)| p == q || *p == "[*]" || (*p == ".*" && q.starts_with('.')))
}

/// A path's steps: `a.b[0]["c d"]` is `.a`, `.b`, `[0]`, `["c d"]`.
fn steps(path: &str) -> Vec<String> {
    let path = if path.starts_with(['.', '[']) { path.to_owned() } else { format!(".{path}") };
    let mut out = Vec::new();
    let mut rest = path.as_str();
    while let Some(first) = rest.chars().next() {
        let end = match (first, rest.strip_prefix("[\"")) {
            // A quoted key may hold a bracket: it ends at its closing quote.
            ('[', Some(quoted)) => quoted.find("\"]").map_or(rest.len(), |i| i + 4),
            ('[', None) => rest.find(']').map_or(rest.len(), |i| i + 1),
            _ => rest[1..].find(['.', '[']).map_or(rest.len(), |i| i + 1),
        };
        out.push(rest[..end].to_owned());
        rest = &rest[end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_name_each_place_with_both_values() {
        let old =
            json!({"result": {"content": [{"type": "text", "text": "Hello, Ann!"}], "x-y": 1, "gone": true}});
        let new = json!({"result": {"content": [{"type": "text", "text": "Hi Ann"}, {"type": "text", "text": "more"}], "x-y": 2}});
        let found = differences("", &old, &new);
        let paths: Vec<&str> = found.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["result.content[0].text", "result.content[1]", "result[\"x-y\"]", "result.gone"]);
        assert_eq!(
            (found[0].old.clone(), found[0].new.clone()),
            (Some(json!("Hello, Ann!")), Some(json!("Hi Ann")))
        );
        assert_eq!(found[1].old, None);
        assert_eq!(found[2].steps, ["result", "x-y"]);
        assert_eq!(found[3].new, None);
        assert!(differences("", &old, &old).is_empty());
        assert!(
            differences("", &json!({"sum": 5}), &json!({"sum": 5.0})).is_empty(),
            "5 and 5.0 are one number"
        );
    }

    #[test]
    fn named_things_are_matched_by_name_or_uri_not_place() {
        let old = json!({"result": {"resources": [
            {"uri": "notes://readme", "name": "readme"},
            {"uri": "config://units", "name": "units"},
        ]}});
        let new = json!({"result": {"resources": [{"uri": "config://units", "name": "units"}]}});
        let found = differences("", &old, &new);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].path, "result.resources[uri=\"notes://readme\"]");
        assert_eq!(found[0].steps, ["result", "resources", "uri=\"notes://readme\""]);
        assert_eq!(found[0].new, None);
        // An item added before the others is that one added.
        let old = json!({"tools": [{"name": "b"}]});
        let new = json!({"tools": [{"name": "a"}, {"name": "b", "description": "B"}]});
        let paths: Vec<String> = differences("", &old, &new).into_iter().map(|d| d.path).collect();
        assert_eq!(paths, ["tools[name=\"b\"].description", "tools[name=\"a\"]"]);
        // Text blocks have no name: compared by place.
        let old = json!({"content": [{"type": "text", "text": "a"}]});
        let new = json!({"content": [{"type": "text", "text": "b"}]});
        assert_eq!(differences("", &old, &new)[0].path, "content[0].text");
        assert!(pattern_covers("result.resources[*]", "result.resources[uri=\"notes://readme\"]"));
    }

    #[test]
    fn a_pattern_names_its_place_and_what_is_under_it() {
        assert!(pattern_covers("result._meta", "result._meta.stamp"));
        assert!(pattern_covers("result.content[*].text", "result.content[3].text"));
        assert!(pattern_covers("result.*.time", "result.clock.time"));
        assert!(pattern_covers("result[\"x-y\"]", "result[\"x-y\"]"));
        assert!(!pattern_covers("result.content[0].text", "result.content[1].text"));
        assert!(!pattern_covers("result._meta", "result._metadata"));
        assert!(!pattern_covers("result.content[0].text.more", "result.content[0].text"));
    }
}
