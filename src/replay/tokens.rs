//! The opaque tokens a server gives and a client sends back, which the protocol makes the
//! server's: a listing's `nextCursor` (sent back as `cursor`) and a task's `taskId` (sent back
//! as `taskId`). During a replay the new server gives its own at the same point, and a later
//! request carries the new server's token where the recorded one carried the recorded
//! server's. Each token is mapped by where it came from (the answer to the same recorded
//! request, at the place the protocol defines), never by its place in a listing, and only
//! where the protocol sends it back: a name, a URI or an argument is never changed.
//!
//! The other tokens of the protocol need no mapping here: `Mcp-Session-Id` is the transport's
//! own, a 2026-07-28 `requestState` and its rounds are made again by the session, and a
//! subscription id is the id of a listen request the replay does not send.

use serde_json::{Map, Value};

/// Where a token comes from in an answer, and the param that sends it back.
const ORIGINS: [(&str, &str); 3] = [
    ("/result/nextCursor", "cursor"),
    // 2025-11-25's task-augmented call answers {task: {taskId}}; 2026-07-28's {taskId}.
    ("/result/task/taskId", "taskId"),
    ("/result/taskId", "taskId"),
];

/// The recorded server's tokens and the new server's, learnt answer by answer.
#[derive(Debug, Default)]
pub struct Tokens(Vec<(String, Value, Value)>);

impl Tokens {
    /// Learns the tokens of one answer, recorded and new, at the places the protocol defines.
    pub fn learn(&mut self, recorded: &Value, new: &Value) {
        for (origin, param) in ORIGINS {
            let (Some(old), Some(now)) = (recorded.pointer(origin), new.pointer(origin)) else { continue };
            self.0.retain(|(p, o, _)| !(p == param && o == old));
            self.0.push((param.to_owned(), old.clone(), now.clone()));
        }
    }

    /// A recorded token the new server gave no counterpart for (its listing ended sooner, say),
    /// when `params` sends one back: the request cannot be made as the new server would
    /// understand it.
    pub fn unknown(&self, params: Option<&Value>, given: &[(String, Value)]) -> Option<String> {
        let params = params?.as_object()?;
        ORIGINS.iter().map(|(_, p)| *p).find_map(|param| {
            let sent = params.get(param)?;
            let known = self.0.iter().any(|(p, o, _)| p == param && o == sent);
            let ours = given.iter().any(|(p, v)| p == param && v == sent);
            (!known && ours).then(|| param.to_owned())
        })
    }

    /// `params` with each token the recorded server gave replaced by the new server's.
    pub fn applied(&self, params: Option<&Value>) -> Option<Value> {
        let Some(Value::Object(map)) = params else { return params.cloned() };
        let out: Map<String, Value> = map
            .iter()
            .map(|(key, value)| {
                let now = self.0.iter().find(|(p, o, _)| p == key && o == value).map(|(_, _, n)| n.clone());
                (key.clone(), now.unwrap_or_else(|| value.clone()))
            })
            .collect();
        Some(Value::Object(out))
    }
}

/// The tokens a recorded answer gave, as the param that would send each back.
pub fn given(answer: &Value) -> Vec<(String, Value)> {
    ORIGINS
        .iter()
        .filter_map(|(origin, param)| answer.pointer(origin).map(|v| ((*param).to_owned(), v.clone())))
        .collect()
}

/// Whether the difference at `path` of an answer is a token's place: tokens differ by nature.
pub fn is_token(path: &str) -> bool {
    ["result.nextCursor", "result.task.taskId", "result.taskId"].contains(&path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_token_is_mapped_by_where_it_came_from_and_nothing_else_is_changed() {
        let mut tokens = Tokens::default();
        // The listing's items differ by place: never learnt.
        tokens.learn(
            &json!({"result": {"tools": [{"name": "divide"}], "nextCursor": "old-2"}}),
            &json!({"result": {"tools": [{"name": "div"}], "nextCursor": "new-2"}}),
        );
        tokens.learn(
            &json!({"result": {"task": {"taskId": "t-old"}}}),
            &json!({"result": {"task": {"taskId": "t-new"}}}),
        );
        let params = tokens.applied(Some(&json!({"cursor": "old-2", "name": "divide"})));
        assert_eq!(params, Some(json!({"cursor": "new-2", "name": "divide"})));
        // A name equal to a token is a name: only the param the token goes back in is mapped.
        let params = tokens.applied(Some(&json!({"name": "old-2", "taskId": "t-old"})));
        assert_eq!(params, Some(json!({"name": "old-2", "taskId": "t-new"})));
        // A recorded cursor the new server gave nothing for is known as such.
        let recorded = given(&json!({"result": {"tools": [], "nextCursor": "old-3"}}));
        assert_eq!(tokens.unknown(Some(&json!({"cursor": "old-3"})), &recorded), Some("cursor".into()));
        assert_eq!(tokens.unknown(Some(&json!({"cursor": "old-2"})), &recorded), None);
    }
}
