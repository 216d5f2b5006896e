//! Text from a server, made safe to print on a terminal: every control character but newline
//! and tab (C0, DEL, ESC, C1) and every bidirectional override or isolate is shown as its
//! `\uXXXX` escape, so nothing a server sends can retitle, clear or move the reader's terminal,
//! write a hidden link, or reorder what they read. The escape is JSON's own, so a JSON line
//! stays valid JSON (C0 never reaches it raw: serde escapes it).
//!
//! Owns: that mapping. Refuses: colour codes kept as colour (a server's ESC is escaped, not
//! interpreted) and changing any other character.

use std::borrow::Cow;

/// Whether `c` is shown escaped.
fn hostile(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with each hostile character as `\uXXXX`; borrowed when there is none.
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hostile) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if hostile(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_retitle_clear_links_and_bidi_and_keeps_the_rest() {
        let hostile =
            "a\u{1b}]0;pwned\u{7}b\u{1b}[2Jc\u{1b}]8;;http://evil\u{1b}\\link\r\u{85}\u{202e}txt.exe\u{2066}";
        let shown = terminal_safe(hostile);
        assert!(!shown
            .chars()
            .any(|c| c.is_control() || ('\u{2066}'..='\u{2069}').contains(&c) || c == '\u{202e}'));
        assert_eq!(
            shown,
            "a\\u001b]0;pwned\\u0007b\\u001b[2Jc\\u001b]8;;http://evil\\u001b\\link\\u000d\\u0085\\u202etxt.exe\\u2066"
        );
        assert!(matches!(terminal_safe("plain\ttext\nline é 😀"), Cow::Borrowed(_)));
        // A JSON line stays JSON, and reads back as what the server sent.
        let json = serde_json::to_string(&serde_json::json!({"t": "x\u{85}\u{202e}y"})).unwrap();
        let back: serde_json::Value = serde_json::from_str(&terminal_safe(&json)).unwrap();
        assert_eq!(back["t"], "x\u{85}\u{202e}y");
    }
}
