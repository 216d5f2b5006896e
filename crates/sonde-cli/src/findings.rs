//! The line a run ends with when its session holds protocol findings: how many errors and
//! warnings the rules recorded on the frames, and the command that shows them
//! (`sonde: 3 protocol warnings: sonde log last --filter diag:warning`).
//!
//! Owns: counting them from the session log and the words. Refuses: judging frames (the core's
//! rules did, as they were recorded) and the exit code (a finding alone changes none).

use sonde_core::{Filter, Severity, WireLog};

/// Says on stderr how many protocol errors and warnings the session has, if any.
pub fn say(log: &WireLog) {
    if let Some(words) = line(log) {
        noteln!("sonde: {words}");
    }
}

/// The line's words, when the session has findings to count.
pub fn line(log: &WireLog) -> Option<String> {
    let filter = Filter { diag: Some(Severity::Warning), ..Filter::default() };
    let entries = log.entries(&filter).ok()?;
    let count = |severity: Severity| {
        entries.iter().flat_map(|e| &e.findings).filter(|f| f.severity == severity).count()
    };
    words(count(Severity::Error), count(Severity::Warning))
}

fn words(errors: usize, warnings: usize) -> Option<String> {
    let plural = |n: usize, what: &str| if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") };
    let (said, filter) = match (errors, warnings) {
        (0, 0) => return None,
        (0, w) => (format!("{} ", plural(w, "protocol warning")).trim_end().to_owned(), "diag:warning"),
        (e, 0) => (plural(e, "protocol error"), "diag:error"),
        (e, w) => (format!("{} and {}", plural(e, "protocol error"), plural(w, "warning")), "diag:warning"),
    };
    Some(format!("{said}: sonde log last --filter {filter}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_counts_errors_and_warnings_and_names_the_filter() {
        assert_eq!(words(0, 0), None);
        assert_eq!(words(0, 3).unwrap(), "3 protocol warnings: sonde log last --filter diag:warning");
        assert_eq!(words(1, 0).unwrap(), "1 protocol error: sonde log last --filter diag:error");
        assert_eq!(
            words(2, 1).unwrap(),
            "2 protocol errors and 1 warning: sonde log last --filter diag:warning"
        );
    }
}
