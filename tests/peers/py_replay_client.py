"""A real client for the replay tests: the Python `mcp` SDK's own `Client`, launching a stdio
server (argv after `--`), and using it as an author's session would: list the tools, call
divide, echo, get_weather and get_time, list the resources and read one. Prints what it
received as one JSON line. Mode: `auto` (discover, fall back to initialize) or `legacy`.

    py_replay_client.py MODE -- COMMAND [ARG...]
"""
import asyncio
import json
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def main() -> None:
    mode = sys.argv[1]
    command = sys.argv[sys.argv.index("--") + 1 :]
    server = StdioServerParameters(command=command[0], args=command[1:])
    said = {}
    async with Client(server, mode=mode) as client:
        said["tools"] = [t.name for t in (await client.list_tools()).tools]
        for tool, arguments in [("divide", {"a": 6, "b": 3}), ("echo", {"text": "hi"}),
                                ("get_weather", {"city": "Oslo"}), ("get_time", {})]:
            result = await client.call_tool(tool, arguments)
            said[tool] = result.model_dump(mode="json", exclude_none=True)
        said["resources"] = [str(r.uri) for r in (await client.list_resources()).resources]
        read = await client.read_resource("notes://readme")
        said["readme"] = read.model_dump(mode="json", exclude_none=True)
    print(json.dumps(said), flush=True)


asyncio.run(main())
