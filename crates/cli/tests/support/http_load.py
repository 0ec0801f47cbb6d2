"""Bounded load test over streamable HTTP with the MCP Python SDK: S concurrent sessions,
each making C `search_schema` calls. Reports failures, wall time and latency percentiles.

Usage: python3 http_load.py URL [SESSIONS=100] [CALLS=20]
"""
import asyncio
import json
import statistics
import sys
import time

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

URL = sys.argv[1]
S = int(sys.argv[2]) if len(sys.argv) > 2 else 100
C = int(sys.argv[3]) if len(sys.argv) > 3 else 20
Q = ["open pull requests of a repository", "who starred a repository", "issue comments author",
     "organization members", "release assets download count", "commit status checks"]
lat, failures = [], []


async def session(i):
    try:
        async with streamable_http_client(URL) as streams:
            async with ClientSession(streams[0], streams[1]) as s:
                await s.initialize()
                for j in range(C):
                    t = time.perf_counter()
                    r = await s.call_tool("search_schema", {"query": Q[(i + j) % len(Q)], "limit": 5})
                    lat.append((time.perf_counter() - t) * 1000)
                    if r.is_error if hasattr(r, "is_error") else r.isError:
                        failures.append(f"session {i} call {j}: tool error")
    except Exception as e:  # noqa: BLE001
        failures.append(f"session {i}: {type(e).__name__}: {e}")


async def main():
    t0 = time.perf_counter()
    await asyncio.gather(*(session(i) for i in range(S)))
    wall = time.perf_counter() - t0
    lat.sort()
    print(json.dumps({
        "sessions": S, "calls_per_session": C, "calls_ok": len(lat), "failures": len(failures),
        "first_failures": failures[:3], "wall_s": round(wall, 2),
        "calls_per_s": round(len(lat) / wall, 1),
        "p50_ms": round(statistics.median(lat), 1) if lat else None,
        "p99_ms": round(lat[int(0.99 * (len(lat) - 1))], 1) if lat else None,
    }))


asyncio.run(main())
