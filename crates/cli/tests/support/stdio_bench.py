"""Minimal stdio round-trip timer: starts the server, initializes with raw JSON-RPC lines,
then sends N `search_schema` calls one at a time and reports p50/p90 latency and the
time from process start to the first answer.

Usage: python3 stdio_bench.py N -- COMMAND ARGS...
"""
import json
import statistics
import subprocess
import sys
import time

n = int(sys.argv[1])
cmd = sys.argv[sys.argv.index("--") + 1:]
t0 = time.perf_counter()
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)


def send(obj):
    p.stdin.write(json.dumps(obj) + "\n")
    p.stdin.flush()


def recv(want_id):
    while True:
        line = p.stdout.readline()
        if not line:
            raise SystemExit("server closed stdout")
        msg = json.loads(line)
        if msg.get("id") == want_id:
            return msg


send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
recv(0)
t_init = time.perf_counter() - t0
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
queries = ["open pull requests of a repository", "who starred a repository", "issue comments author", "organization members", "release assets download count"]
lat = []
first = None
for i in range(n):
    t = time.perf_counter()
    send({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": "search_schema", "arguments": {"query": queries[i % len(queries)]}}})
    r = recv(i + 1)
    assert "result" in r, r
    dt = time.perf_counter() - t
    if first is None:
        first = time.perf_counter() - t0
    lat.append(dt * 1000)
p.stdin.close()
p.wait(timeout=10)
lat.sort()
print(json.dumps({
    "calls": n,
    "startup_to_initialize_ms": round(t_init * 1000, 1),
    "startup_to_first_search_answer_ms": round(first * 1000, 1),
    "p50_ms": round(statistics.median(lat), 2),
    "p90_ms": round(lat[int(0.9 * (n - 1))], 2),
    "max_ms": round(lat[-1], 2),
}))
