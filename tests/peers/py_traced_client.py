"""A real client that traces: the Python `mcp` SDK's `Client` with OpenTelemetry's SDK set up
(its spans kept in memory), calling one tool of a stdio server inside a span of its own ("agent
turn"), then printing its spans as one JSON line: each one's name, kind, trace id, span id and
parent's id, in hex. The SDK sends each request's trace context in `params._meta`.

    py_traced_client.py TOOL ARGS_JSON -- COMMAND [ARG...]

The server gets this process's whole environment (the SDK passes only a few variables by
default), so a `sonde proxy` between them reads OTEL_EXPORTER_OTLP_ENDPOINT from it.
"""
import asyncio
import json
import os
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

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402


async def main() -> None:
    tool, arguments = sys.argv[1], json.loads(sys.argv[2])
    command = sys.argv[sys.argv.index("--") + 1 :]
    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    with trace.get_tracer("py-traced-client").start_as_current_span("agent turn"):
        async with Client(server, mode="legacy") as client:
            await client.call_tool(tool, arguments)
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
    print(json.dumps({"spans": spans}), flush=True)


asyncio.run(main())
