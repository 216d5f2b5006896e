//! The exit codes of the CLI contract, which scripts and tests rely on (see `main.rs`).
//!
//! Owns: the numbers (the table of `../shared/contracts.md`) and which of two wins. Refuses:
//! deciding which ones a run earned; each command does.

pub const OK: i32 = 0;
/// A JSON-RPC error or a transport failure.
pub const FAILED: i32 = 1;
pub const USAGE: i32 = 2;
/// A tool result with `isError: true`.
pub const TOOL_ERROR: i32 = 3;
/// The server broke the protocol in an answer (a result without its required fields,
/// `structuredContent` against the tool's `outputSchema`).
pub const PROTOCOL: i32 = 4;
/// A check found what it looks for (`doctor` a `fail`).
pub const FOUND: i32 = 5;
/// Ctrl-C.
pub const INTERRUPTED: i32 = 130;

/// The code a run ends with when several apply: the lowest non-zero one other than usage (the
/// server failing hides what it would have answered: 1 before 3 before 4 before 5).
pub fn worst(codes: impl IntoIterator<Item = i32>) -> i32 {
    codes
        .into_iter()
        .filter(|&c| c != OK)
        .min_by_key(|&c| if c == USAGE { i32::MAX } else { c })
        .unwrap_or(OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_code_wins_and_usage_only_alone() {
        assert_eq!(worst([OK, PROTOCOL, TOOL_ERROR]), TOOL_ERROR);
        assert_eq!(worst([FOUND, FAILED, PROTOCOL]), FAILED);
        assert_eq!(worst([USAGE, PROTOCOL]), PROTOCOL);
        assert_eq!(worst([USAGE]), USAGE);
        assert_eq!(worst([OK, OK]), OK);
    }
}
