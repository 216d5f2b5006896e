//! Values a server gave that the client sent back (a cursor, a task id, a subscription id, a
//! `requestState`): during a replay the new server gives its own at the same point, and the
//! later requests carry those instead of the recorded ones, so a paged or task session does
//! not differ by its ids.

use serde_json::Value;

use crate::interface::values::differences;

/// The recorded server's strings and the new server's, learnt answer by answer.
#[derive(Debug, Default)]
pub struct Carried(Vec<(String, String)>);

impl Carried {
    /// Learns from one answer, recorded and new: each string that differs at the same place.
    pub fn learn(&mut self, recorded: &Value, new: &Value) {
        for d in differences("", recorded, new) {
            if let (Some(Value::String(old)), Some(Value::String(now))) = (d.old, d.new) {
                self.0.retain(|(o, _)| *o != old);
                self.0.push((old, now));
            }
        }
    }

    /// `params` with every string the recorded server gave replaced by the new server's.
    pub fn applied(&self, params: &Value) -> Value {
        match params {
            Value::String(s) => {
                let now = self.0.iter().find(|(old, _)| old == s).map(|(_, now)| now.clone());
                Value::String(now.unwrap_or_else(|| s.clone()))
            }
            Value::Array(items) => Value::Array(items.iter().map(|v| self.applied(v)).collect()),
            Value::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), self.applied(v))).collect())
            }
            other => other.clone(),
        }
    }
}

/// Every string in `value`, at any depth, added to `into`.
pub(super) fn strings(value: Option<&Value>, into: &mut std::collections::HashSet<String>) {
    match value {
        Some(Value::String(s)) => {
            into.insert(s.clone());
        }
        Some(Value::Array(items)) => items.iter().for_each(|v| strings(Some(v), into)),
        Some(Value::Object(map)) => map.values().for_each(|v| strings(Some(v), into)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_cursor_the_new_server_gave_replaces_the_recorded_one_in_later_params() {
        let mut carried = Carried::default();
        carried.learn(
            &json!({"result": {"tools": [], "nextCursor": "old-2"}}),
            &json!({"result": {"tools": [], "nextCursor": "new-2"}}),
        );
        assert_eq!(
            carried.applied(&json!({"cursor": "old-2", "other": "old-3"})),
            json!({"cursor": "new-2", "other": "old-3"})
        );
    }
}
