//! JSON Schema comparison for `diff`: two schemas of one tool, an input schema (what the
//! server accepts) or an output schema (what it promises), each change with its verdict.
//!
//! Owns: types, null allowed or not (`anyOf`/`oneOf` `[T, {type: null}]`, `type: [T, "null"]`),
//! enums, numeric bounds, properties and `required`, items, and the keywords it cannot judge
//! (said so, never guessed); each side's `$ref`s resolved within its own document. Refuses:
//! everything outside a schema (`diff`).

use serde_json::Value;

use super::change::{ChangeSeverity, Changes};

/// Two JSON Schemas compared: an input schema (what the server accepts) or an output schema
/// (what it promises), each side's `$ref`s resolved within its own document.
pub(super) struct Schemas<'a> {
    pub(super) old_root: &'a Value,
    pub(super) new_root: &'a Value,
    pub(super) input: bool,
    pub(super) out: &'a mut Changes,
}

impl Schemas<'_> {
    /// Accepting less breaks an input's clients; promising less (a wider output) breaks an
    /// output's. `narrower` is whether the new side allows less than the old.
    fn verdict(&self, narrower: bool) -> ChangeSeverity {
        match (self.input, narrower) {
            (true, true) | (false, false) => ChangeSeverity::Breaking,
            _ => ChangeSeverity::Addition,
        }
    }

    pub(super) fn compare(&mut self, path: &str, old: &Value, new: &Value) {
        let (old, new) = (resolve(self.old_root, old), resolve(self.new_root, new));
        if old == new {
            return;
        }
        let (was_null, old_core) = nullable(self.old_root, old);
        let (is_null, new_core) = nullable(self.new_root, new);
        if was_null || is_null {
            if was_null != is_null {
                self.null(path, old, new, was_null);
            }
            // What remains besides null is compared as any two schemas.
            self.compare(path, &old_core, &new_core);
            return;
        }
        self.types(path, old, new);
        self.enums(path, old, new);
        self.bounds(path, old, new);
        self.properties(path, old, new);
        if let (Some(o), Some(n)) = (old.get("items"), new.get("items")) {
            self.compare(&format!("{path}/items"), o, n);
        }
        for key in ["description", "title", "default", "examples"] {
            if old.get(key) != new.get(key) {
                self.out.push(
                    ChangeSeverity::Change,
                    "text",
                    &format!("{path}/{key}"),
                    old.get(key),
                    new.get(key),
                    format!("its {key} changed"),
                );
            }
        }
        for key in [
            "pattern",
            "format",
            "const",
            "oneOf",
            "anyOf",
            "allOf",
            "not",
            "if",
            "then",
            "else",
            "additionalItems",
            "patternProperties",
            "propertyNames",
            "dependentRequired",
            "dependentSchemas",
            "contains",
            "uniqueItems",
            "multipleOf",
        ] {
            if old.get(key) != new.get(key) {
                let detail = format!(
                    "its {key} changed; could not tell whether this narrows what it {}",
                    if self.input { "accepts" } else { "promises" }
                );
                // A check that cannot tell does not pass (contracts: verdicts are never false).
                self.out.push(
                    ChangeSeverity::Breaking,
                    "schema",
                    &format!("{path}/{key}"),
                    old.get(key),
                    new.get(key),
                    detail,
                );
            }
        }
    }

    /// Null allowed on one side only. Taken as the issue decided, on purpose not as "accepts
    /// less" alone: in an input, a nullable `T` becoming `T` is a `change`, not breaking, since
    /// MCP clients leave an optional argument out rather than send null, and schema generators
    /// such as Pydantic write `Optional[T]` as `anyOf [T, null]`, so dropping the null is the
    /// server tidying its schema; `T` becoming nullable accepts more, an addition. In an output
    /// either way breaks: dropping the null changes the result's declared shape, which generated
    /// client types see, and adding it promises less (a client reading a `T` may get null).
    fn null(&mut self, path: &str, old: &Value, new: &Value, was_null: bool) {
        let (severity, detail) = match (self.input, was_null) {
            (true, true) => (
                ChangeSeverity::Change,
                "null is no longer accepted; clients leave an optional argument out rather than send \
                 null, so this is the schema tidied",
            ),
            (true, false) => (ChangeSeverity::Addition, "null is now accepted too"),
            (false, true) => (
                ChangeSeverity::Breaking,
                "it is no longer declared nullable: the result's declared shape changed, which \
                 generated client types see",
            ),
            (false, false) => (ChangeSeverity::Breaking, "it may now be null: the output promises less"),
        };
        self.out.push(severity, "nullable", path, Some(old), Some(new), detail.to_owned());
    }

    fn types(&mut self, path: &str, old: &Value, new: &Value) {
        let (Some(o), Some(n)) = (types(old), types(new)) else {
            if old.get("type") != new.get("type") {
                let detail = "its type changed; could not tell whether this narrows".to_owned();
                self.out.push(
                    ChangeSeverity::Breaking,
                    "type",
                    &format!("{path}/type"),
                    old.get("type"),
                    new.get("type"),
                    detail,
                );
            }
            return;
        };
        let within = |a: &[String], b: &[String]| {
            a.iter().all(|t| b.contains(t) || (t == "integer" && b.iter().any(|x| x == "number")))
        };
        if o == n {
            return;
        }
        let (narrower, wider) = (within(&n, &o), within(&o, &n));
        let severity = match (narrower, wider) {
            (true, false) => self.verdict(true),
            (false, true) => self.verdict(false),
            _ => ChangeSeverity::Breaking,
        };
        let detail = format!("type {} became {}", o.join("|"), n.join("|"));
        self.out.push(severity, "type", &format!("{path}/type"), old.get("type"), new.get("type"), detail);
    }

    fn enums(&mut self, path: &str, old: &Value, new: &Value) {
        let (Some(o), Some(n)) =
            (old.get("enum").and_then(Value::as_array), new.get("enum").and_then(Value::as_array))
        else {
            if let (None, Some(n)) = (old.get("enum"), new.get("enum")) {
                let detail = "its values are now limited to an enum".to_owned();
                self.out.push(self.verdict(true), "enum", &format!("{path}/enum"), None, Some(n), detail);
            }
            return;
        };
        for gone in o.iter().filter(|v| !n.contains(v)) {
            self.out.push(
                self.verdict(true),
                "enum",
                &format!("{path}/enum"),
                Some(gone),
                None,
                format!("enum value {gone} was removed"),
            );
        }
        for added in n.iter().filter(|v| !o.contains(v)) {
            self.out.push(
                self.verdict(false),
                "enum",
                &format!("{path}/enum"),
                None,
                Some(added),
                format!("enum value {added} was added"),
            );
        }
    }

    /// Numeric bounds: a lower bound raised, or an upper one lowered, allows less.
    fn bounds(&mut self, path: &str, old: &Value, new: &Value) {
        const LOWER: [&str; 4] = ["minimum", "exclusiveMinimum", "minLength", "minItems"];
        const UPPER: [&str; 4] = ["maximum", "exclusiveMaximum", "maxLength", "maxItems"];
        for (key, lower) in LOWER.iter().map(|k| (k, true)).chain(UPPER.iter().map(|k| (k, false))) {
            let (o, n) = (old.get(*key).and_then(Value::as_f64), new.get(*key).and_then(Value::as_f64));
            if o == n {
                continue;
            }
            // A bound added allows less; one removed allows more.
            let narrower = match (o, n) {
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (Some(o), Some(n)) => {
                    if lower {
                        n > o
                    } else {
                        n < o
                    }
                }
                (None, None) => continue,
            };
            let detail = format!(
                "{key} {} became {}",
                o.map_or("none".into(), |v| v.to_string()),
                n.map_or("none".into(), |v| v.to_string())
            );
            self.out.push(
                self.verdict(narrower),
                "bounds",
                &format!("{path}/{key}"),
                old.get(*key),
                new.get(*key),
                detail,
            );
        }
    }

    fn properties(&mut self, path: &str, old: &Value, new: &Value) {
        let props = |v: &Value| v.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        let required = |v: &Value| -> Vec<String> {
            v.get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|r| r.as_str().map(str::to_owned))
                .collect()
        };
        let (op, np, or, nr) = (props(old), props(new), required(old), required(new));
        let closed = |v: &Value| v.get("additionalProperties") == Some(&Value::Bool(false));
        for (name, o) in &op {
            let at = format!("{path}/properties/{name}");
            match np.get(name) {
                None if self.input && closed(new) => self.out.push(
                    ChangeSeverity::Breaking,
                    "removed",
                    &at,
                    Some(o),
                    None,
                    format!("property {name:?} was removed, and no other is accepted"),
                ),
                None if self.input => self.out.push(
                    ChangeSeverity::Change,
                    "removed",
                    &at,
                    Some(o),
                    None,
                    format!("property {name:?} is no longer described"),
                ),
                None => self.out.push(
                    ChangeSeverity::Breaking,
                    "removed",
                    &at,
                    Some(o),
                    None,
                    format!("property {name:?} is no longer in the output"),
                ),
                Some(n) => {
                    let (was, is) = (or.contains(name), nr.contains(name));
                    if was != is {
                        // Required now: an input accepts less; optional now: an output promises less.
                        let now = if is { "required" } else { "optional" };
                        let detail = format!("property {name:?} is now {now}");
                        self.out.push(self.verdict(is), "required", &at, None, None, detail);
                    }
                    self.compare(&at, o, n);
                }
            }
        }
        for (name, n) in np.iter().filter(|(name, _)| !op.contains_key(*name)) {
            let at = format!("{path}/properties/{name}");
            let kind = n
                .get("type")
                .map(|t| format!(" ({})", t.as_str().map_or(t.to_string(), str::to_owned)))
                .unwrap_or_default();
            if self.input && nr.contains(name) {
                self.out.push(
                    ChangeSeverity::Breaking,
                    "required",
                    &at,
                    None,
                    Some(n),
                    format!("new required argument {name:?}{kind}"),
                );
            } else if self.input {
                self.out.push(
                    ChangeSeverity::Addition,
                    "added",
                    &at,
                    None,
                    Some(n),
                    format!("new optional argument {name:?}{kind}"),
                );
            } else {
                self.out.push(
                    ChangeSeverity::Addition,
                    "added",
                    &at,
                    None,
                    Some(n),
                    format!("new property {name:?}{kind} in the output"),
                );
            }
        }
    }
}

/// The schema `schema` stands for in `root`: a `$ref` within the document followed (to a
/// depth, against cycles); any other `$ref` is left as it is.
fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..16 {
        let Some(pointer) = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#'))
        else {
            break;
        };
        match root.pointer(pointer) {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

/// Whether `schema` allows null beside what else it allows, and that else: `type: [T, "null"]`
/// is `type: T`, and `anyOf` (or `oneOf`) of a schema and `{type: null}` is that schema (its
/// `$ref` followed in `root`) with the wrapper's own keywords (`title`, `default`) kept.
fn nullable(root: &Value, schema: &Value) -> (bool, Value) {
    if let Some(Value::Array(types)) = schema.get("type") {
        let rest: Vec<&Value> = types.iter().filter(|t| t.as_str() != Some("null")).collect();
        if rest.len() < types.len() && !rest.is_empty() {
            let mut core = schema.clone();
            core["type"] = match rest.as_slice() {
                [one] => (*one).clone(),
                more => Value::Array(more.iter().map(|t| (*t).clone()).collect()),
            };
            return (true, core);
        }
    }
    let is_null = |branch: &Value| {
        let branch = resolve(root, branch);
        branch.get("type").and_then(Value::as_str) == Some("null")
            && branch
                .as_object()
                .is_some_and(|o| o.keys().all(|k| ["type", "title", "description"].contains(&k.as_str())))
    };
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = schema.get(key) else { continue };
        let [a, b] = branches.as_slice() else { continue };
        let other = match (is_null(a), is_null(b)) {
            (true, false) => b,
            (false, true) => a,
            _ => continue,
        };
        let mut core = resolve(root, other).clone();
        if let (Some(core), Some(wrapper)) = (core.as_object_mut(), schema.as_object()) {
            for (k, v) in wrapper.iter().filter(|(k, _)| k.as_str() != key) {
                core.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        return (true, core);
    }
    (false, schema.clone())
}

/// A schema's types, sorted; None when it names none.
fn types(schema: &Value) -> Option<Vec<String>> {
    let mut types: Vec<String> = match schema.get("type")? {
        Value::String(t) => vec![t.clone()],
        Value::Array(ts) => ts.iter().filter_map(|t| t.as_str().map(str::to_owned)).collect(),
        _ => return None,
    };
    types.sort();
    Some(types)
}
