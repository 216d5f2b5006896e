//! What the server said on stderr, as the CLI shows it: its last words under a failure, the
//! environment hint in the CLI's own flags, and `--stderr`'s live copy.
//!
//! Owns: the wording and the `server: ` prefix. Refuses: finding the lines or the withheld
//! variables; the core's [`sonde_core::last_words`] does, for the window as well.

use std::collections::HashMap;

use sonde_core::last_words::{clean, LastWords};
use sonde_core::lifecycle::Lifecycle;
use sonde_core::log::{Followed, Kind, WireLog};
use sonde_core::process::PASSED_THROUGH;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Prints the server's last stderr lines and the environment hint, if there are any.
pub fn print(words: &LastWords) {
    if !words.lines.is_empty() {
        eprintln!("sonde: the server's last words on stderr:");
        for line in &words.lines {
            eprintln!("  | {line}");
        }
    }
    if let Some(hint) = hint(words) {
        eprintln!("sonde: {hint}");
    }
}

/// One sentence on the minimal environment and the flag that fixes it; names only, never a value.
fn hint(words: &LastWords) -> Option<String> {
    if !words.minimal_env {
        return None;
    }
    let passed = PASSED_THROUGH.join(", ");
    Some(match words.withheld.as_slice() {
        [] => format!(
            "the server was started with a minimal environment (only {passed}); if it needs a \
             variable, pass it with --env NAME=… or give --inherit-env"
        ),
        names => {
            let flags: Vec<String> = names.iter().map(|n| format!("--env {n}=…")).collect();
            format!(
                "the server was started with a minimal environment (only {passed}); it names {}, \
                 set in Sonde's environment but not passed: add {} or give --inherit-env",
                names.join(", "),
                flags.join(" "),
            )
        }
    })
}

/// Copies every connection's stderr to Sonde's stderr as it is recorded, line by line, each
/// prefixed `server: `, until `stop` is sent; then prints what was recorded before it and any
/// unfinished last line. Followed from the call on, so call it before connecting.
pub fn stream(log: &WireLog) -> (oneshot::Sender<()>, JoinHandle<()>) {
    let mut live = log.follow();
    let (stop, mut stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let mut partial: HashMap<u64, String> = HashMap::new();
        loop {
            let followed = tokio::select! {
                followed = live.next() => followed,
                _ = &mut stopped => break,
            };
            match followed {
                Some(f) => show(f, &mut partial),
                None => break,
            }
        }
        while let Some(f) = live.try_next() {
            show(f, &mut partial);
        }
        for rest in partial.values().filter(|r| !r.is_empty()) {
            print_lines(rest);
        }
    });
    (stop, task)
}

fn show(followed: Followed, partial: &mut HashMap<u64, String>) {
    let entry = match followed {
        Followed::Entry(entry) if entry.kind == Kind::Stderr => entry,
        // A respawn (the era fallback) starts a new process: the old one's unfinished line ends.
        Followed::Entry(entry) if matches!(entry.lifecycle, Some(Lifecycle::Spawned { .. })) => {
            if let Some(rest) = partial.remove(&entry.conn).filter(|r| !r.is_empty()) {
                print_lines(&rest);
            }
            return;
        }
        Followed::Entry(_) => return,
        Followed::Skipped(n) => {
            eprintln!("sonde: {n} log entries went by too fast to copy; see sonde log");
            return;
        }
    };
    let bytes = entry.bytes().unwrap_or_default();
    let buffer = partial.entry(entry.conn).or_default();
    buffer.push_str(&String::from_utf8_lossy(&bytes));
    // Whole lines only, so a colour code or a line split across chunks is cleaned whole.
    if let Some(end) = buffer.rfind('\n') {
        let whole: String = buffer.drain(..=end).collect();
        print_lines(&whole);
    }
}

fn print_lines(raw: &str) {
    for line in clean(raw).trim_end_matches('\n').split('\n') {
        eprintln!("server: {line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_names_withheld_variables_and_the_flags_never_a_value() {
        let words = LastWords { lines: vec![], minimal_env: true, withheld: vec!["API_KEY".into()] };
        let said = hint(&words).unwrap();
        assert!(said.contains("minimal environment"), "{said}");
        assert!(said.contains("it names API_KEY"), "{said}");
        assert!(said.contains("--env API_KEY=…") && said.contains("--inherit-env"), "{said}");

        let none = LastWords { lines: vec!["x".into()], minimal_env: true, withheld: vec![] };
        assert!(hint(&none).unwrap().contains("--env NAME=…"));
        assert_eq!(hint(&LastWords { minimal_env: false, ..none }), None);
    }
}
