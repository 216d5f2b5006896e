//! OpenTelemetry: a session's requests as OTLP spans, for the tracing backend a team already
//! runs (Jaeger, Tempo, Honeycomb, Datadog).
//!
//! Owns: the spans (`spans`: one per request, one per operation, named and attributed after
//! OpenTelemetry's semantic conventions for MCP), their ids (`ids`), the OTLP/JSON export of a
//! session (`export`), and the spans sent live to the collector the standard variables name
//! (`target`, `live`). Refuses: the encoding itself (opentelemetry-proto's types, with their
//! JSON mapping), the trace context a request carries (`trace_context`), pairing and grouping
//! requests (the timeline's), and redaction (`log::redacted`).

mod export;
mod ids;
mod live;
mod spans;
mod target;

pub use export::export_otlp;
pub use live::{LiveReport, LiveSpans};
pub use spans::Traces;
pub use target::{OtlpTarget, OtlpTargetError};
