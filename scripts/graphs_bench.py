#!/usr/bin/env python3
"""Measure `gqlnav serve --graphs` at scale: resident memory, start-up to first answer,
search latency on one graph and across every graph (docs/serve.md, "Many graphs").

    python3 scripts/graphs_bench.py --bin target/release/gqlnav --graphs DIR/graphs.toml \
        [--across] [--calls 40]

Latencies are round trips of `search_schema` calls through MCP streamable HTTP with the
official Python SDK (one session), so they include the transport. Prints one JSON object.
Needs the `mcp` package on PYTHONPATH (scripts/test.sh installs it in .cache/pymcp).
"""
import argparse
import asyncio
import json
import statistics
import subprocess
import threading
import time

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

QUERIES = [
    "the name and description of an item",
    "who created it and when",
    "total count of items in a list",
    "the url of a resource",
    "items updated after a date",
    "the state of an entry",
    "labels attached to an item",
    "members of a team",
]


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


async def drive(url, first_graph, calls, across, t0, pid, out, single):
    async with streamable_http_client(url) as streams:
        async with ClientSession(streams[0], streams[1]) as s:
            await s.initialize()
            g = {} if single else {"graph": first_graph}
            r = await s.call_tool("search_schema", {"query": QUERIES[0], **g})
            out["first_answer_ms"] = round((time.monotonic() - t0) * 1000, 1)
            out["first_answer_error"] = bool(getattr(r, "is_error", False))
            out["rss_one_loaded_mb"] = round(rss_mb(pid), 1)
            one = []
            for i in range(calls):
                q = QUERIES[i % len(QUERIES)]
                t = time.monotonic()
                await s.call_tool("search_schema", {"query": q, "limit": 10, **g})
                one.append((time.monotonic() - t) * 1000)
            out["one_graph_ms"] = {"p50": round(pct(one, 50), 2), "p95": round(pct(one, 95), 2)}
            out["rss_after_calls_mb"] = round(rss_mb(pid), 1)
            if across:
                t = time.monotonic()
                r = await s.call_tool("search_schema", {"query": QUERIES[1], "limit": 10})
                out["load_all_ms"] = round((time.monotonic() - t) * 1000, 1)
                out["rss_all_loaded_mb"] = round(rss_mb(pid), 1)
                every = []
                for i in range(calls):
                    q = QUERIES[i % len(QUERIES)]
                    t = time.monotonic()
                    await s.call_tool("search_schema", {"query": q, "limit": 10})
                    every.append((time.monotonic() - t) * 1000)
                out["across_ms"] = {"p50": round(pct(every, 50), 2), "p95": round(pct(every, 95), 2)}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", required=True)
    p.add_argument("--graphs", required=True)
    p.add_argument(
        "--single", nargs=2, metavar=("SCHEMA", "INDEX_DIR"),
        help="for comparison: serve one schema the single-graph way (--schema, --index-dir)",
    )
    p.add_argument("--across", action="store_true", help="also search every graph")
    p.add_argument("--calls", type=int, default=40)
    p.add_argument("--first", default=None, help="the graph asked first (default: the file's first)")
    a = p.parse_args()
    first = a.first
    if first is None:
        for line in open(a.graphs):
            if line.strip().startswith("name"):
                first = line.split("=", 1)[1].strip().strip('"')
                break
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [a.bin, "serve"]
        + (["--schema", a.single[0], "--index-dir", a.single[1], "--reload-seconds", "0"]
           if a.single else ["--graphs", a.graphs])
        + ["--http", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    url = None
    for line in proc.stderr:
        if "MCP streamable HTTP on " in line:
            url = line.split("MCP streamable HTTP on ", 1)[1].strip()
            break
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    out = {"graphs": sum(1 for l in open(a.graphs) if l.strip() == "[[graph]]")}
    out["listening_ms"] = round((time.monotonic() - t0) * 1000, 1)
    out["rss_idle_mb"] = round(rss_mb(proc.pid), 1)
    try:
        asyncio.run(drive(url, first, a.calls, a.across, t0, proc.pid, out, bool(a.single)))
    finally:
        proc.kill()
        proc.wait()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
