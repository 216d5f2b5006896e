//! `{{seq}}` and `{{rand}}` in a load run's arguments and URIs, filled for each call.
//!
//! Owns: the two placeholders and what each becomes. A value that is only a placeholder becomes
//! a number (`"{{seq}}"` → `7`) unless the tool's `inputSchema` says the property is a string; a
//! placeholder inside other text is replaced in the text (`"id-{{seq}}"` → `"id-7"`).
//! Refuses: any other template language; text around a placeholder is kept as it is.

use serde_json::Value;

const SEQ: &str = "{{seq}}";
const RAND: &str = "{{rand}}";

/// The values of one call: its number in the run (from 0, warm-up included) and a random one.
#[derive(Debug, Clone, Copy)]
pub struct Fill {
    pub seq: u64,
    pub rand: u64,
}

/// Whether any string in `value` holds a placeholder (so a call can send it as it is).
pub fn has_placeholders(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains(SEQ) || s.contains(RAND),
        Value::Array(items) => items.iter().any(has_placeholders),
        Value::Object(map) => map.values().any(has_placeholders),
        _ => false,
    }
}

/// `value` with its placeholders filled; `schema` is the JSON Schema `value` is for, which says
/// where a whole-placeholder value stays a string.
pub fn filled(value: &Value, schema: Option<&Value>, fill: Fill) -> Value {
    match value {
        Value::String(s) => {
            let whole = match s.as_str() {
                SEQ => Some(fill.seq),
                RAND => Some(fill.rand),
                _ => None,
            };
            match whole {
                Some(n) if !wants_string(schema) => Value::from(n),
                _ => Value::String(filled_text(s, fill)),
            }
        }
        Value::Array(items) => {
            let item = schema.and_then(|s| s.get("items"));
            Value::Array(items.iter().map(|v| filled(v, item, fill)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let property = schema.and_then(|s| s.get("properties")).and_then(|p| p.get(k));
                    (k.clone(), filled(v, property, fill))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `text` with each placeholder replaced by its number.
fn filled_text(text: &str, fill: Fill) -> String {
    text.replace(SEQ, &fill.seq.to_string()).replace(RAND, &fill.rand.to_string())
}

/// Whether a property's schema takes a string and no number.
fn wants_string(schema: Option<&Value>) -> bool {
    let Some(kind) = schema.and_then(|s| s.get("type")) else { return false };
    let has = |t: &str| match kind {
        Value::String(k) => k == t,
        Value::Array(ks) => ks.iter().any(|k| k == t),
        _ => false,
    };
    has("string") && !has("number") && !has("integer")
}

/// A small, fast random source for `{{rand}}` (xorshift64*): the same seed gives the same run.
#[derive(Debug, Clone)]
pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Random {
        Random(seed.max(1))
    }

    /// The next value, below 2³¹ so every JSON reader keeps it exact.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const FILL: Fill = Fill { seq: 7, rand: 42 };

    #[test]
    fn a_whole_placeholder_is_a_number_unless_the_schema_wants_text() {
        let schema = json!({"properties": {"a": {"type": "integer"}, "s": {"type": "string"}}});
        let args = json!({"a": "{{seq}}", "s": "{{seq}}", "free": "{{rand}}", "id": "id-{{seq}}-{{rand}}"});
        assert_eq!(
            filled(&args, Some(&schema), FILL),
            json!({"a": 7, "s": "7", "free": 42, "id": "id-7-42"})
        );
        assert!(has_placeholders(&args));
        assert!(!has_placeholders(&json!({"a": 1, "b": ["{{sequel}}"]})));
    }

    #[test]
    fn nested_values_follow_their_schema() {
        let schema = json!({"properties": {"tags": {"type": "array", "items": {"type": "string"}}}});
        assert_eq!(filled(&json!({"tags": ["{{seq}}"]}), Some(&schema), FILL), json!({"tags": ["7"]}));
    }

    #[test]
    fn the_same_seed_gives_the_same_values() {
        let (mut a, mut b) = (Random::new(9), Random::new(9));
        let first: Vec<u64> = (0..5).map(|_| a.next()).collect();
        assert_eq!(first, (0..5).map(|_| b.next()).collect::<Vec<_>>());
        assert!(first.iter().all(|&v| v < 1 << 31));
        assert_ne!(first[0], first[1]);
    }
}
