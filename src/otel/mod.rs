//! OpenTelemetry: a session's requests as OTLP spans, for the tracing backend a team already
//! runs (Jaeger, Tempo, Honeycomb, Datadog).
//!
//! Owns: the spans (`spans`: one per request, one per operation, named and attributed after
//! OpenTelemetry's semantic conventions for MCP), their ids and the W3C trace context a request
//! carries (`ids`), and the OTLP/JSON export of a session (`export`). Refuses: the encoding
//! itself (opentelemetry-proto's types, with their JSON mapping), pairing and grouping requests
//! (the timeline's), and redaction (`log::redacted`).

mod export;
mod ids;
mod spans;

pub use export::export_otlp;
pub use ids::TraceParent;
pub use spans::Traces;
