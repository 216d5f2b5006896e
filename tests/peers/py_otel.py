"""OpenTelemetry's SDK set up for a peer that traces, its spans kept in memory: import it before
`mcp`, so the SDK's tracer is this provider's. `spans()` gives them as JSON can hold them: each
one's name, kind, trace id, span id and parent's id, in hex."""
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

_exporter = InMemorySpanExporter()
_provider = TracerProvider()
_provider.add_span_processor(SimpleSpanProcessor(_exporter))
trace.set_tracer_provider(_provider)


def spans() -> dict:
    return {
        "spans": [
            {
                "name": s.name,
                "kind": s.kind.name,
                "trace_id": format(s.context.trace_id, "032x"),
                "span_id": format(s.context.span_id, "016x"),
                "parent_id": format(s.parent.span_id, "016x") if s.parent else None,
            }
            for s in _exporter.get_finished_spans()
        ]
    }
