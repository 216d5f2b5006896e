"""A real client for Sonde's tests: the Python `mcp` SDK's own `Client`, launching a stdio server
(argv after the mode), listing its tools and calling one, then printing what it received as one
JSON line. Mode: `auto` (discover, fall back to initialize) or `legacy`.

    py_client.py MODE TOOL ARGS_JSON -- COMMAND [ARG...]
"""
import asyncio
import json
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def main() -> None:
    mode, tool, arguments = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
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
