//! Trace and span ids, and W3C trace context.
//!
//! Owns: the ids Sonde gives the spans of a session (derived from the session and the entry
//! they stand for, so the same session exported twice gives the same ids and a backend loads
//! the second as the first), and reading and writing a `traceparent`
//! (<https://www.w3.org/TR/trace-context/#traceparent-header>). Refuses: where a trace context
//! is carried (`_meta`, the caller's), and random ids for live traces (`live`).

use ring::digest::{digest, SHA256};

/// A W3C trace context: the trace a span belongs to, and the span that is its parent there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceParent {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
    /// The trace flags (bit 0: sampled).
    pub flags: u8,
    /// The vendors' `tracestate` carried with it, as it was.
    pub state: Option<String>,
}

impl TraceParent {
    /// Reads a `traceparent` value, `00-<32 hex>-<16 hex>-<2 hex>`: `None` for anything else, an
    /// all-zero id or the version `ff` (which the recommendation forbids). A later version is
    /// read by its first four fields, as the recommendation asks.
    pub fn parse(value: &str, state: Option<&str>) -> Option<TraceParent> {
        let value = value.trim();
        let mut parts = value.split('-');
        let version = hex::<1>(parts.next()?)?;
        let trace_id = hex::<16>(parts.next()?)?;
        let span_id = hex::<8>(parts.next()?)?;
        let flags = hex::<1>(parts.next()?)?[0];
        let rest_ok = if version[0] == 0 { parts.next().is_none() } else { true };
        let zero = |b: &[u8]| b.iter().all(|&x| x == 0);
        if version[0] == 0xff || !rest_ok || zero(&trace_id) || zero(&span_id) {
            return None;
        }
        let state = state.map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned);
        Some(TraceParent { trace_id, span_id, flags, state })
    }

    /// The `traceparent` value (version 00).
    pub fn header(&self) -> String {
        format!("00-{}-{}-{:02x}", to_hex(&self.trace_id), to_hex(&self.span_id), self.flags)
    }
}

/// Exactly `N` bytes written as `2N` lowercase or uppercase hex digits.
fn hex<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != 2 * N || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut out = [0u8; N];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

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
    fn a_traceparent_is_read_whole_or_not_at_all() {
        let tp =
            TraceParent::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", Some("rojo=1"))
                .expect("valid");
        assert_eq!(to_hex(&tp.trace_id), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(to_hex(&tp.span_id), "00f067aa0ba902b7");
        assert_eq!(tp.flags, 1);
        assert_eq!(tp.state.as_deref(), Some("rojo=1"));
        assert_eq!(tp.header(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
        ] {
            assert_eq!(TraceParent::parse(bad, None), None, "{bad}");
        }
        // A later version is read by its first fields.
        assert!(TraceParent::parse("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what", None)
            .is_some());
    }

    #[test]
    fn ids_are_the_same_for_the_same_session_and_entry_only() {
        let a = Ids::new("session a");
        assert_eq!(a.span("request", 7), a.span("request", 7));
        assert_ne!(a.span("request", 7), a.span("request", 8));
        assert_ne!(a.span("request", 7), a.span("operation", 7));
        assert_ne!(a.trace("request", 7), Ids::new("session b").trace("request", 7));
    }
}
