"""Drives `wikiwit mcp` with the official `mcp` Python SDK as the client.

Usage: mcp_client.py WIKIWIT INDEX CALLS_JSON. Initializes a session over stdio, lists
the tools, calls each (name, arguments) of CALLS_JSON, and prints one JSON object: the
server's name, the tools with their input and output schemas, and each call's structured
result (or its error) with its text content and the errors of validating the structured
result against the tool's declared output schema (`jsonschema`, Draft 2020-12), for the
Rust test (tests/serve.rs) to compare with the CLI.
"""

import asyncio
import json
import sys

from jsonschema import Draft202012Validator
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def schema_errors(schema, value):
    """Why `value` does not fit `schema` (empty when it does)."""
    Draft202012Validator.check_schema(schema)
    v = Draft202012Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in v.iter_errors(value)]


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
            output_schemas = {t.name: t.output_schema for t in tools.tools}
            out["output_schemas"] = output_schemas
            for name, arguments in calls:
                r = await session.call_tool(name, arguments)
                texts = [c.text for c in r.content if getattr(c, "type", "") == "text"]
                result = {
                    "name": name,
                    "is_error": bool(r.is_error),
                    "structured": r.structured_content,
                    "text": texts,
                }
                if not r.is_error:
                    result["schema_errors"] = schema_errors(output_schemas[name], r.structured_content)
                    result["text_is_structured"] = [json.loads(t) for t in texts] == [r.structured_content]
                out["results"].append(result)
    json.dump(out, sys.stdout)


asyncio.run(main())
