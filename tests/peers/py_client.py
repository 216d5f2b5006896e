"""A real client for Sonde's tests: the Python `mcp` SDK's own `Client`, launching a stdio server
(argv after the mode) or reaching one by URL, listing its tools and calling one, then printing
what it received as one JSON line. Mode: `auto` (discover, fall back to initialize) or `legacy`.

    py_client.py MODE TOOL ARGS_JSON -- COMMAND [ARG...]
    py_client.py MODE TOOL ARGS_JSON --url URL       (Streamable HTTP)
    py_client.py MODE TOOL ARGS_JSON --sse URL       (the 2024-11-05 HTTP+SSE transport)
"""
import asyncio
import json
import sys

from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters


async def main() -> None:
    mode, tool, arguments = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    if sys.argv[4] == "--url":
        server = sys.argv[5]
    elif sys.argv[4] == "--sse":
        server = sse_client(sys.argv[5])
    else:
        command = sys.argv[sys.argv.index("--") + 1 :]
        server = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(server, mode=mode) as client:
        tools = await client.list_tools()
        result = await client.call_tool(tool, arguments)
        print(json.dumps({
            "protocolVersion": client.protocol_version,
            "tools": [t.name for t in tools.tools],
            "result": result.model_dump(mode="json", exclude_none=True),
        }), flush=True)


asyncio.run(main())
