"""Drives `wikiwit mcp` with the official `mcp` Python SDK as the client.

Usage: mcp_client.py WIKIWIT INDEX CALLS_JSON. Initializes a session over stdio, lists
the tools, calls each (name, arguments) of CALLS_JSON, and prints one JSON object:
the server's name, the tools with their input schemas, and each call's structured result
(or its error), for the Rust test (tests/serve.rs) to compare with the CLI.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main():
    wikiwit, index, calls = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    params = StdioServerParameters(command=wikiwit, args=["mcp", "--index", index])
    out = {"results": []}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["server"] = init.server_info.name
            tools = await session.list_tools()
            out["tools"] = {t.name: t.input_schema for t in tools.tools}
            for name, arguments in calls:
                r = await session.call_tool(name, arguments)
                out["results"].append({
                    "name": name,
                    "is_error": bool(r.is_error),
                    "structured": r.structured_content,
                    "text": [c.text for c in r.content if getattr(c, "type", "") == "text"],
                })
    json.dump(out, sys.stdout)


asyncio.run(main())
