"""A real client that traces: the Python `mcp` SDK's `Client` with OpenTelemetry's SDK set up
(py_otel), calling one tool of a stdio server inside a span of its own ("agent turn"), then
printing its spans as one JSON line. The SDK sends each request's trace context in
`params._meta`.

    py_traced_client.py TOOL ARGS_JSON -- COMMAND [ARG...]

The server gets this process's whole environment (the SDK passes only a few variables by
default), so a `sonde proxy` between them reads OTEL_EXPORTER_OTLP_ENDPOINT from it.
"""
import asyncio
import json
import os
import sys

import py_otel  # noqa: I001 (first: the SDK's tracer is its provider's)
from opentelemetry import trace
from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def main() -> None:
    tool, arguments = sys.argv[1], json.loads(sys.argv[2])
    command = sys.argv[sys.argv.index("--") + 1 :]
    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    with trace.get_tracer("py-traced-client").start_as_current_span("agent turn"):
        async with Client(server, mode="legacy") as client:
            await client.call_tool(tool, arguments)
    print(json.dumps(py_otel.spans()), flush=True)


asyncio.run(main())
