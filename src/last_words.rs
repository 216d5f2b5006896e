//! What a failed server last said, and whether the minimal environment may be why it failed.
//!
//! Owns: turning the stderr a server wrote through its pseudo-terminal into lines a person can
//! read safely (colour codes stripped, other control characters escaped, `\r\n` folded), keeping
//! the tail of them within a budget, and finding the variables Sonde withheld that the server
//! names. Every function here is pure; `WireLog::last_stderr` feeds it the
//! recorded chunks and `Hub::last_words` the environments.
//! Refuses: wording the hint; each front end names its own fix (a flag, a table).

use serde::Serialize;

/// How many of the last stderr lines a failure shows.
pub const MAX_LINES: usize = 20;
/// How many bytes of them, at most.
pub const MAX_BYTES: usize = 4096;

/// A failed or ended server's last stderr lines and the environment hint.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LastWords {
    /// The last lines the server wrote on stderr, escaped, oldest first.
    pub lines: Vec<String>,
    /// True when the server was a process started with the minimal environment, ended during
    /// startup, and its stderr names a variable or the environment ([`speaks_of_environment`]):
    /// a missing variable may be why. A failure that says nothing of the kind gets no hint.
    pub minimal_env: bool,
    /// Variables the server's stderr names that exist in Sonde's environment but were not
    /// passed to it. Names only, never values.
    pub withheld: Vec<String>,
}

impl LastWords {
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && !self.minimal_env
    }
}

/// Makes terminal output safe to print: ANSI escape sequences (colours, cursor moves, titles)
/// are dropped, `\r\n` (`\r\r\n` through a pty) and a lone `\r` become `\n`, tabs stay, and every other control
/// character is shown escaped as `\u{1b}` would be, so nothing the server wrote can move the
/// reader's cursor or change their terminal.
pub fn clean_last_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek() {
                // CSI: parameters and intermediates up to a final byte in @..~.
                Some('[') => {
                    chars.next();
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC: up to BEL or ST (ESC \).
                Some(']') => {
                    chars.next();
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                            chars.next();
                            break;
                        }
                    }
                }
                // A two-character escape (ESC c, ESC =, …).
                Some(_) => {
                    chars.next();
                }
                None => {}
            },
            // A pty turns `\n` into `\r\n`, so a server's own `\r\n` arrives as `\r\r\n`.
            '\r' => {
                while chars.peek() == Some(&'\r') {
                    chars.next();
                }
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// The last complete-or-not lines of `text` (already [`clean_last_words`]ed): at most `max_lines`, and
/// at most `max_bytes` in all, dropping the oldest first. Blank trailing lines are dropped; a
/// single line longer than the budget keeps its end.
pub fn tail(text: &str, max_lines: usize, max_bytes: usize) -> Vec<String> {
    let mut lines: Vec<&str> = text.trim_end_matches(['\n', ' ', '\t']).split('\n').collect();
    if lines == [""] {
        return Vec::new();
    }
    let mut kept = Vec::new();
    let mut bytes = 0;
    while let Some(line) = lines.pop() {
        if kept.len() == max_lines {
            break;
        }
        let room = max_bytes.saturating_sub(bytes);
        if line.len() > room {
            if kept.is_empty() && room > 0 {
                let mut start = line.len() - room;
                while !line.is_char_boundary(start) {
                    start += 1;
                }
                kept.push(format!("…{}", &line[start..]));
            }
            break;
        }
        bytes += line.len() + 1;
        kept.push(line.to_owned());
    }
    kept.reverse();
    kept
}

/// The variables named in `stderr` that Sonde has (`host`, names only) and did not pass to
/// the server (`given`), in order of first mention, each once.
/// Whether stderr speaks of the environment: it names a variable the way variables are written
/// (capitals with an underscore, `API_KEY`, `OPENAI_API_KEY`) that was not `given` to the server,
/// or says "environment variable" or "env var". A crash, a traceback, a bad flag or a variable
/// that was passed does not, and then no hint follows it.
pub fn speaks_of_environment(stderr: &str, given: &[&str]) -> bool {
    let lower = stderr.to_ascii_lowercase();
    if lower.contains("environment variable") || lower.contains("env var") {
        return true;
    }
    stderr.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).any(|word| {
        word.len() >= 3
            && word.contains('_')
            && word.starts_with(|c: char| c.is_ascii_uppercase())
            && word.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            && !given.contains(&word)
    })
}

pub fn withheld_named<'a>(
    stderr: &str,
    host: impl IntoIterator<Item = &'a str>,
    given: &[&str],
) -> Vec<String> {
    let host: std::collections::HashSet<&str> = host.into_iter().collect();
    let mut found: Vec<String> = Vec::new();
    for word in stderr.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        // A name of one letter ("a", "I") is a word, not evidence.
        if word.len() < 2 || word.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        if host.contains(word) && !given.contains(&word) && !found.iter().any(|f| f == word) {
            found.push(word.to_owned());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_stderr_that_speaks_of_the_environment_earns_the_hint() {
        // (what the server said, whether a missing variable may be why)
        let cases = [
            ("Error: OPENAI_API_KEY is not set", true),
            ("missing environment variable for the token", true),
            ("set the env var and try again", true),
            ("DB_URL=", true),
            ("starting\nfailed", false),
            ("Traceback (most recent call last):\nModuleNotFoundError: No module named 'x'", false),
            ("error: unexpected argument '--bogus' found", false),
            ("ENOENT: no such file", false),
            ("_private_name and snake_case", false),
        ];
        for (stderr, hint) in cases {
            assert_eq!(speaks_of_environment(stderr, &[]), hint, "{stderr:?}");
        }
        assert!(!speaks_of_environment("Error: OPENAI_API_KEY is not valid", &["OPENAI_API_KEY"]), "passed");
    }

    #[test]
    fn terminal_output_is_made_safe_to_print() {
        let cases = [
            ("plain", "plain"),
            ("a\r\nb\r\n", "a\nb\n"),
            ("through a pty\r\r\nnext", "through a pty\nnext"),
            ("progress\rdone", "progress\ndone"),
            ("\u{1b}[31mError\u{1b}[0m: bad", "Error: bad"),
            ("\u{1b}[1;38;5;196mbold\u{1b}[m", "bold"),
            ("\u{1b}]0;title\u{7}text", "text"),
            ("\u{1b}]8;;http://x\u{1b}\\link", "link"),
            ("bell\u{7} nul\u{0}", "bell\\u{7} nul\\u{0}"),
            ("tab\there", "tab\there"),
            ("del\u{7f}", "del\\u{7f}"),
            ("trailing escape \u{1b}", "trailing escape "),
        ];
        for (raw, want) in cases {
            assert_eq!(clean_last_words(raw), want, "{raw:?}");
        }
    }

    #[test]
    fn the_tail_keeps_the_newest_lines_within_both_budgets() {
        let many: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let kept = tail(&many, 20, 4096);
        assert_eq!(kept.len(), 20);
        assert_eq!(kept[0], "line 11");
        assert_eq!(kept[19], "line 30");

        let kept = tail("aaaa\nbbbb\ncccc\n", 20, 10);
        assert_eq!(kept, ["bbbb", "cccc"]);

        let kept = tail(&"x".repeat(100), 20, 10);
        assert_eq!(kept, [format!("…{}", "x".repeat(10))]);

        assert!(tail("", 20, 4096).is_empty());
        assert!(tail("\n\n", 20, 4096).is_empty());
        assert_eq!(tail("only\n\n", 20, 4096), ["only"]);
    }

    #[test]
    fn withheld_variables_are_those_named_present_and_not_passed() {
        let host = ["API_KEY", "PATH", "HOME", "OPENAI_API_KEY", "x", "http_proxy"];
        let given = ["PATH", "HOME", "TERM"];
        let cases: [(&str, &[&str]); 7] = [
            ("Error: API_KEY is not set; export it first", &["API_KEY"]),
            ("KeyError: 'OPENAI_API_KEY'", &["OPENAI_API_KEY"]),
            ("PATH is wrong", &[]),
            ("MISSING_VAR is not set", &[]),
            ("API_KEY API_KEY and OPENAI_API_KEY", &["API_KEY", "OPENAI_API_KEY"]),
            ("x is one letter, http_proxy is a name", &["http_proxy"]),
            ("MY_API_KEY is not set", &[]),
        ];
        for (stderr, want) in cases {
            assert_eq!(withheld_named(stderr, host, &given), want, "{stderr:?}");
        }
    }
}
