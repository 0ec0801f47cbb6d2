#!/usr/bin/env python3
"""Resident memory of `gqlnav serve` after N search_schema calls over stdio.

Usage: python3 scripts/serve_rss.py N -- COMMAND ARGS...   (e.g. target/release/gqlnav serve --schema S)
Prints VmRSS and VmHWM (peak) in MB after the calls, with the questions cycling through
the bundled WG GitHub TSV.
"""
import json, subprocess, sys, pathlib

n = int(sys.argv[1])
cmd = sys.argv[sys.argv.index("--") + 1:]
root = pathlib.Path(__file__).resolve().parent.parent
qs = [l.split("\t")[1] for l in (root / "benchmarks/wg/github-wg.tsv").read_text().splitlines()[1:] if "\t" in l]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)

def call(i, method, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m

call(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "rss", "version": "0"}})
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
for i in range(n):
    call(i + 1, "tools/call", {"name": "search_schema", "arguments": {"query": qs[i % len(qs)], "limit": 10}})
status = pathlib.Path(f"/proc/{p.pid}/status").read_text()
vals = {l.split(":")[0]: int(l.split()[1]) // 1024 for l in status.splitlines() if l.startswith(("VmRSS", "VmHWM"))}
print(json.dumps({"calls": n, "rss_mb": vals.get("VmRSS"), "peak_mb": vals.get("VmHWM")}))
p.stdin.close()
p.wait(timeout=10)
