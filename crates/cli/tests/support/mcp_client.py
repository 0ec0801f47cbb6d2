"""Drive `gqlnav serve` with the official MCP Python SDK (PyPI `mcp`).

Usage:
  python3 mcp_client.py stdio CALLS_JSON -- COMMAND ARGS...
  python3 mcp_client.py http  CALLS_JSON URL      (MCP_HEADERS='{"Authorization": "Bearer …"}')

CALLS_JSON is a JSON list of [tool_name, arguments]. Prints one JSON object on stdout:
{"tools": [{name, description, inputSchema, annotations, schemaError}],
 "calls": [{isError, text, structured, argsError}]}.
Each input schema is checked against the JSON Schema 2020-12 meta-schema and each call's
arguments against its tool's schema (`jsonschema`, installed with `mcp`); `schemaError` /
`argsError` are null when they pass.
"""
import asyncio
import json
import os
import sys

import jsonschema

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def dump(result):
    text = "\n".join(getattr(c, "text", "") for c in result.content)
    return {
        "isError": bool(result.is_error if hasattr(result, "is_error") else result.isError),
        "text": text,
        "structured": getattr(result, "structured_content", None)
        if hasattr(result, "structured_content")
        else getattr(result, "structuredContent", None),
    }


async def drive(read, write, calls):
    async with ClientSession(read, write) as s:
        await s.initialize()
        tools = await s.list_tools()
        out = {"tools": [], "calls": []}
        schemas = {}
        for t in tools.tools:
            schema = getattr(t, "input_schema", None) or getattr(t, "inputSchema", None)
            ann = getattr(t, "annotations", None)
            if ann is not None and hasattr(ann, "model_dump"):
                ann = ann.model_dump(by_alias=True, exclude_none=True)
            try:
                jsonschema.Draft202012Validator.check_schema(schema)
                err = None
            except jsonschema.SchemaError as e:
                err = str(e)
            schemas[t.name] = schema
            out["tools"].append({"name": t.name, "description": t.description,
                                 "inputSchema": schema, "annotations": ann, "schemaError": err})
        for name, args in calls:
            args_err = None
            if name in schemas:
                try:
                    jsonschema.Draft202012Validator(schemas[name]).validate(args)
                except jsonschema.ValidationError as e:
                    args_err = e.message
            r = await s.call_tool(name, args)
            d = dump(r)
            d["argsError"] = args_err
            out["calls"].append(d)
        return out


async def main():
    mode, calls = sys.argv[1], json.loads(sys.argv[2])
    if mode == "stdio":
        i = sys.argv.index("--")
        cmd = sys.argv[i + 1:]
        params = StdioServerParameters(command=cmd[0], args=cmd[1:])
        async with stdio_client(params) as streams:
            out = await drive(streams[0], streams[1], calls)
    else:
        # MCP_HEADERS: a JSON object of request headers (a credential), when set.
        headers = json.loads(os.environ.get("MCP_HEADERS") or "{}")
        client = create_mcp_http_client(headers=headers) if headers else None
        async with streamable_http_client(sys.argv[3], http_client=client) as streams:
            out = await drive(streams[0], streams[1], calls)
    print(json.dumps(out))


asyncio.run(main())
