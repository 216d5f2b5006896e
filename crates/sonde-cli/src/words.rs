//! What the server said on stderr, as the CLI shows it under a failure: its last words and the
//! environment hint in the CLI's own flags.
//!
//! Owns: the wording. Refuses: finding the lines or the withheld variables; the core's
//! [`sonde_core::last_words`] does, for the window as well. The live copy is `echo`'s.

use sonde_core::{LastWords, PASSED_THROUGH};

/// Prints the server's last stderr lines and the environment hint, if there are any.
pub fn print(words: &LastWords) {
    if !words.lines.is_empty() {
        errln!("sonde: the server's last words on stderr:");
        for line in &words.lines {
            errln!("  | {line}");
        }
    }
    if let Some(hint) = hint(words) {
        errln!("sonde: {hint}");
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
