"""Drive the partner MCP endpoint with the official MCP Python SDK: initialize,
list tools with two differently scoped tokens, and call
decisioning_explanation. Prints one JSON object; exits 3 when the SDK is missing."""
import asyncio
import json
import os
import sys

try:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)

URL = os.environ["MCP_URL"]


async def session_with(token, work):
    headers = {"Authorization": f"Bearer {token}"}
    async with streamablehttp_client(URL, headers=headers) as (read, write, _):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            return init, await work(session)


async def main():
    out = {}

    async def full(session):
        tools = await session.list_tools()
        call = await session.call_tool("decisioning_explanation", {"reference": os.environ["REFERENCE"]})
        return tools, call

    init, (tools, call) = await session_with(os.environ["FULL_TOKEN"], full)
    out["protocol_version"] = init.protocolVersion
    out["server_name"] = init.serverInfo.name
    out["full_tools"] = [t.name for t in tools.tools]
    out["call_is_error"] = call.isError
    out["structured"] = call.structuredContent
    out["text"] = call.content[0].text

    async def narrow(session):
        return await session.list_tools()

    _, tools = await session_with(os.environ["NARROW_TOKEN"], narrow)
    out["narrow_tools"] = [t.name for t in tools.tools]
    print(json.dumps(out))


asyncio.run(main())
