//! Arguments as people type them: `--args` as JSON text, `@file.json` or `-` (stdin), and
//! `key=value` words after the tool or prompt name.
//!
//! Owns: reading those into one JSON object. A `key=value` value is JSON when it parses as
//! JSON (`a=2`, `ok=true`, `tags=["x"]`) and a string otherwise (`city=Paris`); a dotted key
//! nests (`to.city=Paris`); words override `--args`. Where the tool's `inputSchema` says a
//! property is a string, its word is the string as typed (`message=123` is `"123"`). Refuses:
//! checking the arguments against the schema (the server does, and says so).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The arguments object from `--args` (`flag` names it in errors) and the `key=value` words.
pub fn object(flag: &str, text: Option<String>, pairs: &[String]) -> Result<Option<Value>, String> {
    with_words(given(flag, text)?, pairs, None)
}

/// The object `--args` gives (`flag` names it in errors): the text, a file's, or stdin's.
pub fn given(flag: &str, text: Option<String>) -> Result<Option<Value>, String> {
    text.map(|text| parse_object(flag, &read(flag, &text)?)).transpose()
}

/// `object` with the `key=value` words set on it; a word for a property `schema` (an
/// `inputSchema`) says is a string stays the text typed.
pub fn with_words(
    mut object: Option<Value>,
    pairs: &[String],
    schema: Option<&Value>,
) -> Result<Option<Value>, String> {
    for pair in pairs {
        let (key, value) = pair.split_once('=').ok_or_else(|| {
            format!(
                "{pair:?} is not KEY=VALUE; arguments are KEY=VALUE words or --args JSON, and the \
                 server's command goes after `--`"
            )
        })?;
        if key.is_empty() || key.split('.').any(str::is_empty) {
            return Err(format!("{pair:?} has an empty key"));
        }
        let value = match schema.and_then(|s| property(s, key)) {
            Some(property) if wants_string(property) => Value::String(value.to_owned()),
            _ => serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_owned())),
        };
        let root = object.get_or_insert_with(|| Value::Object(Map::new()));
        set(root, key, value).map_err(|at| format!("{pair:?}: {at} is already a value, not an object"))?;
    }
    Ok(object)
}

/// The schema of the property at the dotted `key` of an object schema.
fn property<'s>(schema: &'s Value, key: &str) -> Option<&'s Value> {
    key.split('.').try_fold(schema, |at, part| at.get("properties")?.get(part))
}

/// Whether a property's schema takes only strings (`"type": "string"`, or a list of types whose
/// only scalar besides null is string): a word for it is never read as JSON.
fn wants_string(property: &Value) -> bool {
    match &property["type"] {
        Value::String(t) => t == "string",
        Value::Array(types) => {
            let named: Vec<&str> = types.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect();
            named == ["string"]
        }
        _ => false,
    }
}

/// Prompt arguments are strings in MCP: any other value is sent as its JSON text, and stderr
/// says so, rather than the server failing on it with a bare `-32603`.
pub fn strings(args: Value) -> BTreeMap<String, String> {
    let Value::Object(map) = args else { return BTreeMap::new() };
    map.into_iter()
        .map(|(key, value)| match value {
            Value::String(text) => (key, text),
            other => {
                let text = other.to_string();
                errln!("sonde: prompt arguments are strings; {key} is sent as {text:?}");
                (key, text)
            }
        })
        .collect()
}

/// The text of `--args`: itself, a file's contents (`@path`), or standard input (`-`).
fn read(flag: &str, text: &str) -> Result<String, String> {
    if text == "-" {
        return std::io::read_to_string(std::io::stdin())
            .map_err(|e| format!("{flag} -: cannot read stdin: {e}"));
    }
    match text.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path).map_err(|e| format!("{flag} @{path}: {e}")),
        None => Ok(text.to_owned()),
    }
}

fn parse_object(flag: &str, text: &str) -> Result<Value, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(other) => Err(format!("{flag} must be a JSON object, not {other}")),
        Err(e) => Err(format!("{flag} is not JSON: {e}")),
    }
}

/// Sets `value` at the dotted `key` of `root`, making objects on the way; the error names the
/// part of the key that is already something else.
fn set(root: &mut Value, key: &str, value: Value) -> Result<(), String> {
    let mut at = root;
    let parts: Vec<&str> = key.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let Value::Object(map) = at else { return Err(parts[..i].join(".")) };
        if i == parts.len() - 1 {
            map.insert((*part).to_owned(), value);
            return Ok(());
        }
        at = map.entry((*part).to_owned()).or_insert_with(|| Value::Object(Map::new()));
    }
    unreachable!("a key has at least one part")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn words_are_json_when_they_parse_strings_otherwise_and_dots_nest() {
        let got =
            object("--args", None, &words(&["a=2", "b=x y", "ok=true", "to.city=Paris", "to.zip=75001"]));
        assert_eq!(
            got.unwrap(),
            Some(json!({"a": 2, "b": "x y", "ok": true, "to": {"city": "Paris", "zip": 75001}}))
        );
        let merged = object("--args", Some(r#"{"a":1,"c":3}"#.into()), &words(&["a=5"])).unwrap();
        assert_eq!(merged, Some(json!({"a": 5, "c": 3})), "a word overrides --args");
        assert_eq!(object("--args", None, &[]).unwrap(), None);
    }

    #[test]
    fn mistakes_say_what_is_wrong() {
        let bare = object("--args", None, &words(&["npx"])).unwrap_err();
        assert!(bare.contains("not KEY=VALUE") && bare.contains("after `--`"), "{bare}");
        let clash = object("--args", None, &words(&["a=1", "a.b=2"])).unwrap_err();
        assert_eq!(clash, r#""a.b=2": a is already a value, not an object"#);
        assert!(object("--args", Some("[1]".into()), &[]).unwrap_err().contains("must be a JSON object"));
        assert!(object("--args", Some("@/nonexistent/args.json".into()), &[])
            .unwrap_err()
            .starts_with("--args @/nonexistent"));
    }

    #[test]
    fn a_word_for_a_string_property_is_the_text_typed() {
        let schema = json!({"properties": {
            "message": {"type": "string"},
            "count": {"type": "integer"},
            "note": {"type": ["string", "null"]},
            "to": {"properties": {"zip": {"type": "string"}}},
        }});
        let got = with_words(
            None,
            &words(&["message=123", "count=7", "note=true", "to.zip=75001", "x=1"]),
            Some(&schema),
        );
        assert_eq!(
            got.unwrap(),
            Some(json!({"message": "123", "count": 7, "note": "true", "to": {"zip": "75001"}, "x": 1}))
        );
        // Without a schema (a tool not listed), words are JSON when they parse.
        assert_eq!(with_words(None, &words(&["message=123"]), None).unwrap(), Some(json!({"message": 123})));
    }

    #[test]
    fn prompt_arguments_become_strings() {
        let expected: BTreeMap<String, String> =
            [("n", "2"), ("ok", "true"), ("s", "x")].map(|(k, v)| (k.to_owned(), v.to_owned())).into();
        assert_eq!(strings(json!({"n": 2, "ok": true, "s": "x"})), expected);
    }

    #[test]
    fn args_come_from_a_file() {
        let path = std::env::temp_dir().join(format!("sonde-args-{}.json", std::process::id()));
        std::fs::write(&path, r#"{"text": "from a file"}"#).unwrap();
        let got = object("--args", Some(format!("@{}", path.display())), &[]).unwrap();
        assert_eq!(got, Some(json!({"text": "from a file"})));
    }
}
