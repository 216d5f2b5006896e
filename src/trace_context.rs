//! W3C trace context (<https://www.w3.org/TR/trace-context/#traceparent-header>): reading a
//! `traceparent` and `tracestate` as a request's `params._meta` carries them (OpenTelemetry's
//! conventions for MCP put them there), and starting a trace for a request of Sonde's own.
//!
//! Owns: the value's grammar, the mark that says a context is Sonde's own (`sonde=own` in
//! `tracestate`), and the `_meta` keys. Refuses: spans (`otel`), and when a request carries
//! one (the connection's `--trace`).

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

    /// A new trace, sampled, whose first span is one of Sonde's requests: its `tracestate`
    /// says so (`sonde=own`), so the span of that request is this span, not its child.
    pub fn start() -> TraceParent {
        let random = ring::rand::SystemRandom::new();
        let mut bytes = [0u8; 24];
        // The system's random source does not fail on Linux; a failure would give zero ids,
        // which `derive`'s rule below makes valid all the same.
        let _ = ring::rand::SecureRandom::fill(&random, &mut bytes);
        let nonzero = |mut id: Vec<u8>| {
            if id.iter().all(|&b| b == 0) {
                *id.last_mut().expect("not empty") = 1;
            }
            id
        };
        TraceParent {
            trace_id: nonzero(bytes[..16].to_vec()).try_into().expect("16 bytes"),
            span_id: nonzero(bytes[16..].to_vec()).try_into().expect("8 bytes"),
            flags: 1,
            state: Some(OWN.to_owned()),
        }
    }

    /// Whether Sonde started this trace context for a request of its own.
    pub fn is_own(&self) -> bool {
        self.state.as_deref().is_some_and(|s| s.split(',').any(|m| m.trim() == OWN))
    }

    /// The `_meta` keys that carry it: `traceparent`, and `tracestate` when it has one.
    pub fn meta(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut meta = serde_json::Map::new();
        meta.insert("traceparent".into(), self.header().into());
        if let Some(state) = &self.state {
            meta.insert("tracestate".into(), state.clone().into());
        }
        meta
    }
}

/// The `tracestate` member that marks a trace context Sonde made for its own request.
const OWN: &str = "sonde=own";

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

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
    fn a_trace_sonde_starts_is_valid_marked_its_own_and_new_each_time() {
        let a = TraceParent::start();
        assert!(a.is_own());
        let read = TraceParent::parse(&a.header(), a.state.as_deref()).expect("valid");
        assert_eq!(read, a);
        assert_ne!(TraceParent::start().trace_id, a.trace_id);
        assert!(!TraceParent::parse(&a.header(), Some("rojo=1")).unwrap().is_own());
        assert!(!TraceParent::parse(&a.header(), None).unwrap().is_own());
    }
}
