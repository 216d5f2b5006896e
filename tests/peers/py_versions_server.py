#!/usr/bin/env python3
"""One MCP server in several builds, on the Python SDK `mcp` 2.3.0, for the checks that must
never pass a broken build (replay, test, diff). The build is the first argument:

  python py_versions_server.py VERSION

  1.0                    add, divide, echo, get_time (a timestamp), get_weather (read-only);
                         resources notes://readme and config://units
  1.2-added              1.0 with a tool `convert` listed before the others
  2.0-removed            1.0 without divide
  2.1-renamed            1.0 with divide renamed div (the same schema and words)
  2.2-resource-removed   1.0 without notes://readme
  2.3-description        1.0 with divide's description changed
  2.4-subscribe-withdrawn 1.0 without subscriptions/listen (so no resources.subscribe, no listChanged)
  2.5-annotation-flip    1.0 with get_weather no longer read-only
"""
import sys
from datetime import datetime, timezone

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

VERSION = sys.argv[1] if len(sys.argv) > 1 else "1.0"
KNOWN = ["1.0", "1.2-added", "2.0-removed", "2.1-renamed", "2.2-resource-removed", "2.3-description",
         "2.4-subscribe-withdrawn", "2.5-annotation-flip"]
if VERSION not in KNOWN:
    sys.exit(f"py_versions_server.py: unknown build {VERSION!r}; one of {', '.join(KNOWN)}")

server = MCPServer(
    "calc",
    version=VERSION,
    subscriptions=False if VERSION == "2.4-subscribe-withdrawn" else None,
)

if VERSION == "1.2-added":
    @server.tool()
    def convert(value: float, unit: str) -> str:
        """Convert a value to another unit."""
        return f"{value} {unit}"


@server.tool()
def add(a: float, b: float) -> str:
    """Add two numbers."""
    return str(a + b)


def divide(a: float, b: float) -> str:
    return str(a / b)


if VERSION == "2.1-renamed":
    server.add_tool(divide, name="div", description="Divide a by b.")
elif VERSION == "2.3-description":
    server.add_tool(divide, name="divide", description="Divide a by b, as a float.")
elif VERSION != "2.0-removed":
    server.add_tool(divide, name="divide", description="Divide a by b.")


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


@server.tool()
def get_time() -> str:
    """The time now, in UTC."""
    return f"It is {datetime.now(timezone.utc).isoformat()}"


@server.tool(annotations=ToolAnnotations(read_only_hint=VERSION != "2.5-annotation-flip"))
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


if VERSION != "2.2-resource-removed":
    @server.resource("notes://readme")
    def readme() -> str:
        """The read-me notes."""
        return "Read me first."


@server.resource("config://units")
def units() -> str:
    """The units in use."""
    return "metric"


server.run("stdio")
