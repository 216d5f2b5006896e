//! What a server's tool listing costs and risks as a whole, once listed to its end: names that
//! collide once hosts normalise them (one tool shadows the other), and the context its
//! definitions take in every request a host makes (bytes, and tokens estimated), the largest
//! first, against a budget.
//!
//! Owns: the `tool-names` and `context-cost` checks. Refuses: the estimate (`hosts::estimated_tokens`), what one tool's
//! definition shows by itself (the diagnostics' rules on the `tools/list` reply).

use serde_json::Value;

use super::{Check, CheckStatus};
use crate::hosts::{estimated_tokens, BYTES_PER_TOKEN};

/// The budget of a server's tool definitions, in estimated tokens, unless the plan says another.
pub const TOKEN_BUDGET: u64 = 8_000;

/// The name as hosts fold it when they prefix and sanitise tool names: lowercase, and every
/// character but a letter or digit an underscore.
fn folded(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect()
}

/// Tools whose names differ but fold to one: a host keeps one of them, or errors.
pub fn names(tools: &[Value], conn: u64) -> Check {
    let mut by_fold: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for name in tools.iter().filter_map(|t| t.get("name").and_then(Value::as_str)) {
        by_fold.entry(folded(name)).or_default().push(name);
    }
    let collide: Vec<String> = by_fold
        .values()
        .filter(|names| names.len() > 1)
        .map(|names| names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(" and "))
        .collect();
    match collide.is_empty() {
        true => Check::new("tool-names", CheckStatus::Pass, match tools.len() {
            1 => "1 tool name: nothing to fold onto".to_owned(),
            n => format!("{n} tool names, none folds onto another"),
        }, None, conn),
        false => Check::new(
            "tool-names",
            CheckStatus::Warn,
            format!(
                "{} collide once hosts lowercase names and turn other characters into _: one shadows the other; rename one",
                collide.join("; ")
            ),
            None,
            conn,
        ),
    }
}

/// The context the definitions take: the total, the largest five, and a warn past `budget`.
pub fn context_cost(tools: &[Value], budget: u64, conn: u64) -> Check {
    let mut costs: Vec<(&str, u64, u64)> = tools
        .iter()
        .map(|t| {
            let (bytes, tokens) = estimated_tokens(t);
            (t.get("name").and_then(Value::as_str).unwrap_or("?"), bytes, tokens)
        })
        .collect();
    costs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let bytes: u64 = costs.iter().map(|c| c.1).sum();
    let tokens: u64 = costs.iter().map(|c| c.2).sum();
    let largest: Vec<String> =
        costs.iter().take(5).map(|(name, bytes, tokens)| format!("{name} {bytes} B ~{tokens}")).collect();
    let head = format!(
        "{} {bytes} B, ~{tokens} tokens (estimated at {BYTES_PER_TOKEN} bytes a token) in every request a host makes; largest: {}",
        match tools.len() {
            1 => "1 tool definition takes".to_owned(),
            n => format!("{n} tool definitions take"),
        },
        largest.join(", ")
    );
    match tokens > budget {
        true => Check::new(
            "context-cost",
            CheckStatus::Warn,
            format!("{head}; past the budget of {budget} tokens: shorten descriptions and schemas, or split the server"),
            None,
            conn,
        ),
        false => Check::new("context-cost", CheckStatus::Pass, format!("{head}; within the budget of {budget} tokens"), None, conn),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_that_fold_onto_one_another_are_said_and_distinct_ones_pass() {
        let tools = [
            json!({"name": "get-user"}),
            json!({"name": "get_user"}),
            json!({"name": "Files.Read"}),
            json!({"name": "files_read"}),
            json!({"name": "other"}),
        ];
        let check = names(&tools, 1);
        assert_eq!(check.status, CheckStatus::Warn);
        assert!(
            check
                .detail
                .starts_with("\"Files.Read\" and \"files_read\"; \"get-user\" and \"get_user\" collide"),
            "{}",
            check.detail
        );
        assert_eq!(names(&tools[..1], 1).status, CheckStatus::Pass);
    }

    #[test]
    fn the_cost_lists_the_largest_first_and_warns_past_the_budget() {
        let big = json!({"name": "big", "description": "x".repeat(400)});
        let small = json!({"name": "small"});
        assert_eq!(estimated_tokens(&small), (16, 4));
        let within = context_cost(&[small.clone(), big.clone()], 1_000, 1);
        assert_eq!(within.status, CheckStatus::Pass);
        assert!(within.detail.contains("largest: big 431 B ~108, small 16 B ~4"), "{}", within.detail);
        let past = context_cost(&[small, big], 100, 1);
        assert_eq!(past.status, CheckStatus::Warn);
        assert!(
            past.detail.contains("~112 tokens") && past.detail.contains("past the budget of 100 tokens"),
            "{}",
            past.detail
        );
    }
}
