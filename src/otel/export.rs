//! `export --format otlp`: a session's spans as one OTLP/JSON `ExportTraceServiceRequest`, the
//! body a collector's `/v1/traces` takes with `Content-Type: application/json` and the file
//! `otel-cli`, Jaeger's and Tempo's importers read.
//!
//! Owns: the file (private, like every export) and refusing a session with no request to
//! trace. Refuses: the spans (`spans`).

use std::io::{BufWriter, Write};
use std::path::Path;

use super::spans::{traces, Traces};
use crate::log::{ExportError, Filter, WireLog};

/// Writes the spans of the requests of `log` that `filter` keeps to `path` (0600) as OTLP/JSON,
/// every one of `secrets` redacted. Returns what was written; no file when there is no request.
pub fn export_otlp(
    log: &WireLog,
    filter: &Filter,
    secrets: &[String],
    path: &Path,
) -> Result<Traces, ExportError> {
    let traces = traces(log, filter, secrets)?;
    if traces.requests == 0 {
        let filtered_out = *filter != Filter::default() && has_requests(log);
        return Err(ExportError::NoRequests { filtered_out });
    }
    let mut out = BufWriter::new(crate::files::create_private(path)?);
    serde_json::to_writer(&mut out, &traces.request).map_err(std::io::Error::other)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(traces)
}

/// Whether the session holds a request at all: the timeline's index says, no entry read.
fn has_requests(log: &WireLog) -> bool {
    !crate::timeline::Timeline::of(log).spans().is_empty()
}
