#!/usr/bin/env python3
"""Routing accuracy of a search across graphs: serve the WG schemas as graphs of one
`gqlnav serve --graphs` process, ask every question (`search_schema` without `graph`,
limit 1) and count how often the best hit comes from the question's own schema
(docs/serve.md, "Many graphs").

    python3 scripts/graphs_routing.py --bin target/release/gqlnav --wg benchmarks/wg \
        --schema-ids github,linear,singapore

Needs the `mcp` package on PYTHONPATH and PyYAML. Prints one JSON object.
"""
import argparse
import asyncio
import collections
import glob
import json
import os
import subprocess
import tempfile
import threading

import yaml
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def ask_all(url, questions):
    hits = collections.Counter()
    total = collections.Counter()
    async with streamable_http_client(url) as streams:
        async with ClientSession(streams[0], streams[1]) as s:
            await s.initialize()
            for sid, q in questions:
                r = await s.call_tool("search_schema", {"query": q[:1000], "limit": 1})
                st = getattr(r, "structured_content", None) or {}
                top = (st.get("results") or [{}])[0].get("graph")
                total[sid] += 1
                hits[sid] += top == sid
    return hits, total


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", required=True)
    p.add_argument("--wg", required=True, help="a WG folder: queries/ and schemas/ID/schema.graphql")
    p.add_argument("--schema-ids", required=True)
    a = p.parse_args()
    ids = a.schema_ids.split(",")
    questions = []
    for f in sorted(glob.glob(os.path.join(a.wg, "queries", "*.yaml"))):
        d = yaml.safe_load(open(f))
        if isinstance(d, dict) and d.get("schemaId") in ids and d.get("query"):
            questions.append((d["schemaId"], d["query"]))
    tmp = tempfile.mkdtemp()
    toml = ["[server]", "reload_poll_seconds = 0", ""]
    for i in ids:
        schema = os.path.abspath(os.path.join(a.wg, "schemas", i, "schema.graphql"))
        toml += ["[[graph]]", f'name = "{i}"', f'schema = "{schema}"', ""]
    path = os.path.join(tmp, "graphs.toml")
    open(path, "w").write("\n".join(toml))
    proc = subprocess.Popen(
        [a.bin, "serve", "--graphs", path, "--http", "127.0.0.1:0", "--preload"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    url = None
    for line in proc.stderr:
        if "MCP streamable HTTP on " in line:
            url = line.split("MCP streamable HTTP on ", 1)[1].strip()
            break
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    try:
        hits, total = asyncio.run(ask_all(url, questions))
    finally:
        proc.kill()
        proc.wait()
    out = {i: {"questions": total[i], "routed": round(100 * hits[i] / max(1, total[i]), 1)} for i in ids}
    out["all"] = {
        "questions": sum(total.values()),
        "routed": round(100 * sum(hits.values()) / max(1, sum(total.values())), 1),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
