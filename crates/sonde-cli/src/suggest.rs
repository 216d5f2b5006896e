//! "Did you mean": the names closest to one that is not there.
//!
//! Owns: the distance (Levenshtein, by characters), the sentence, and a tool looked up in its
//! server's listing with that sentence when it is not there (`find_tool`). Refuses: any other
//! fetching of names.

use serde_json::Value;
use sonde_core::{ListKind, RequestError, Session};

/// `tool`'s definition in the server's listing, or the words that say it is not listed (with the
/// nearest names); the listing's error when the server cannot list its tools.
pub async fn find_tool(session: &Session, tool: &str) -> Result<Result<Value, String>, RequestError> {
    let listing = session.list_all(ListKind::Tools).await?;
    Ok(match listing.items.iter().find(|t| t["name"] == tool) {
        Some(definition) => Ok(definition.clone()),
        None => {
            let names: Vec<&str> = listing.items.iter().filter_map(|t| t["name"].as_str()).collect();
            Err(words(tool, &names, "tool"))
        }
    })
}

/// A sentence naming the closest of `names` to `wanted` (a `what`, e.g. "tool"), or listing
/// them when none is close.
pub fn words(wanted: &str, names: &[&str], what: &str) -> String {
    let limit = (wanted.chars().count() / 3).max(2);
    let mut close: Vec<(usize, &str)> =
        names.iter().map(|n| (distance(wanted, n), *n)).filter(|(d, _)| *d <= limit).collect();
    close.sort();
    match close.as_slice() {
        [] if names.is_empty() => format!("the server lists no {what}s"),
        [] => {
            let shown: Vec<&str> = names.iter().take(10).copied().collect();
            let more = names.len().saturating_sub(shown.len());
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            format!("there is no {what} {wanted}; the server has: {}{more}", shown.join(", "))
        }
        close => {
            let best: Vec<&str> = close.iter().take(3).map(|(_, n)| *n).collect();
            format!("there is no {what} {wanted}; did you mean {}?", best.join(" or "))
        }
    }
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = (previous + usize::from(ca != *cb)).min(row[j] + 1).min(current + 1);
            previous = current;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_suggested_and_far_ones_listed() {
        let names = ["echo", "add", "read_text_file", "read_file"];
        assert_eq!(words("ecoh", &names, "tool"), "there is no tool ecoh; did you mean echo?");
        assert_eq!(
            words("read_txt_file", &names, "tool"),
            "there is no tool read_txt_file; did you mean read_text_file or read_file?"
        );
        assert_eq!(words("zzz", &names[..2], "tool"), "there is no tool zzz; the server has: echo, add");
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
