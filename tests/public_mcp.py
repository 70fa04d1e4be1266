"""Drive the public MCP server with the official MCP Python SDK: initialize,
list the tools, call each one (by its name and by its snake-case alias), and
provoke the -32602 of an out-of-range quote. Prints one JSON object; exits 3
when the SDK is missing."""
import asyncio
import json
import os
import sys

try:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client
    from mcp.shared.exceptions import McpError
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)

URL = os.environ["MCP_URL"]


async def main():
    out = {"calls": {}}
    async with streamablehttp_client(URL) as (read, write, _):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["protocol_version"] = init.protocolVersion
            out["server"] = {"name": init.serverInfo.name, "version": init.serverInfo.version}
            tools = await session.list_tools()
            out["tools"] = [
                {"name": t.name, "read_only": bool(t.annotations and t.annotations.readOnlyHint),
                 "has_output_schema": t.outputSchema is not None}
                for t in tools.tools
            ]
            arguments = {
                "ProductDetails": {"name": "Business Loan"},
                "GetQuote": {"amount": 100, "term": 14},
            }
            for t in tools.tools:
                result = await session.call_tool(t.name, arguments.get(t.name, {}))
                out["calls"][t.name] = {"is_error": result.isError, "structured": result.structuredContent,
                                        "text_matches": json.loads(result.content[0].text) == result.structuredContent}
            alias = await session.call_tool("get_quote", {"amount": 100, "term": 14})
            out["alias_total"] = alias.structuredContent["total_repayable_pence"]
            try:
                await session.call_tool("GetQuote", {"amount": 5000, "term": 14})
                out["out_of_range"] = None
            except McpError as e:
                out["out_of_range"] = {"code": e.error.code, "data": e.error.data}
    print(json.dumps(out))


asyncio.run(main())
