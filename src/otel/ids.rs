//! The ids Sonde gives the spans of a session: derived from the session and the entry they
//! stand for, so the same session exported twice (or sent live, then exported) gives the same
//! ids and a backend loads the second as the first.
//!
//! Owns: deriving them. Refuses: the trace context a request carries (`trace_context`).

use ring::digest::{digest, SHA256};

/// Derives ids from a session's identity: the same salt and parts give the same id.
#[derive(Debug, Clone)]
pub struct Ids {
    salt: String,
}

impl Ids {
    pub fn new(salt: impl Into<String>) -> Ids {
        Ids { salt: salt.into() }
    }

    /// The trace of the root span that stands for entry `seq` (`what` tells a request's span
    /// from an operation's).
    pub fn trace(&self, what: &str, seq: u64) -> [u8; 16] {
        self.derive(what, seq)
    }

    pub fn span(&self, what: &str, seq: u64) -> [u8; 8] {
        self.derive(what, seq)
    }

    fn derive<const N: usize>(&self, what: &str, seq: u64) -> [u8; N] {
        let input = format!("{}\u{0}{what}\u{0}{seq}\u{0}{N}", self.salt);
        let hash = digest(&SHA256, input.as_bytes());
        let mut out = [0u8; N];
        out.copy_from_slice(&hash.as_ref()[..N]);
        // An all-zero id is invalid; a hash gives one with odds of 2^-64 at worst.
        if out.iter().all(|&b| b == 0) {
            out[N - 1] = 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_the_same_for_the_same_session_and_entry_only() {
        let a = Ids::new("session a");
        assert_eq!(a.span("request", 7), a.span("request", 7));
        assert_ne!(a.span("request", 7), a.span("request", 8));
        assert_ne!(a.span("request", 7), a.span("operation", 7));
        assert_ne!(a.trace("request", 7), Ids::new("session b").trace("request", 7));
    }
}
