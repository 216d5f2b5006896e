"""A real server that traces: the Python `mcp` SDK's `MCPServer` over stdio with OpenTelemetry's
SDK set up (py_otel), one tool, `add`. The SDK wraps each request in a server span whose parent
is the trace context the request carried in `params._meta`. When the client closes stdin, its
spans are written to SPANS_FILE as one JSON line.

    py_traced_server.py SPANS_FILE
"""
import json
import sys

import py_otel  # noqa: I001 (first: the SDK's tracer is its provider's)
from mcp.server.mcpserver import MCPServer

server = MCPServer("traced-py", version="0.0.1")


@server.tool()
def add(a: float, b: float) -> str:
    """Add two numbers."""
    return str(a + b)


if __name__ == "__main__":
    server.run("stdio")
    with open(sys.argv[1], "w") as out:
        out.write(json.dumps(py_otel.spans()) + "\n")
