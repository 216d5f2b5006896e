"""A real server that traces: the Python `mcp` SDK's `MCPServer` over stdio with OpenTelemetry's
SDK set up (its spans kept in memory), one tool, `add`. The SDK wraps each request in a server
span whose parent is the trace context the request carried in `params._meta`. When the client
closes stdin, its spans are written to SPANS_FILE as one JSON line: each one's name, kind,
trace id, span id and parent's id, in hex.

    py_traced_server.py SPANS_FILE
"""
import json
import sys

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

# Set before the SDK is imported, so its tracer is this provider's.
exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

from mcp.server.mcpserver import MCPServer  # noqa: E402

server = MCPServer("traced-py", version="0.0.1")


@server.tool()
def add(a: float, b: float) -> str:
    """Add two numbers."""
    return str(a + b)


if __name__ == "__main__":
    server.run("stdio")
    spans = [
        {
            "name": s.name,
            "kind": s.kind.name,
            "trace_id": format(s.context.trace_id, "032x"),
            "span_id": format(s.context.span_id, "016x"),
            "parent_id": format(s.parent.span_id, "016x") if s.parent else None,
        }
        for s in exporter.get_finished_spans()
    ]
    with open(sys.argv[1], "w") as out:
        out.write(json.dumps({"spans": spans}) + "\n")
