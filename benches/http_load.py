"""Load on one `scalpel serve --http` against the same work on stdio servers.

    target/tmp/mcp-venv/bin/python benches/http_load.py target/release/scalpel [SESSIONS] [CALLS]

(the venv with the pinned MCP SDK is the one `cargo test --test mcp_python`
sets up). SESSIONS clients (default 32) each make CALLS calls (default 500),
a fixed mix: read_file, list_symbols, search_files, search_codebase, and
edit_file appending one line to a file all sessions share or to the
session's own file. Loopback only; every call has a 120 s deadline.

Then the same work with one stdio `scalpel serve` per client. Printed:
wall time, p50/p99 per tool, failed calls, lost updates (an edit answered
as done whose line is not in the final file), and memory (the HTTP server's peak RSS; the sum of the stdio
servers' peak RSS).
"""

import asyncio
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

MIX = ["read_file", "list_symbols", "search_files", "search_codebase", "edit_shared",
       "read_file", "list_symbols", "search_files", "edit_own", "search_codebase"]


def make_root(sessions):
    root = tempfile.mkdtemp(prefix="scalpel-load-")
    src = os.path.join(root, "src")
    os.makedirs(src)
    # Real code to read and search: the standard library's json package.
    import json as stdlib_json
    pkg = os.path.dirname(stdlib_json.__file__)
    for name in os.listdir(pkg):
        if name.endswith(".py"):
            shutil.copy(os.path.join(pkg, name), os.path.join(src, name))
    with open(os.path.join(src, "shared.py"), "w") as f:
        f.write("SHARED = []\n# END\n")
    for s in range(sessions):
        with open(os.path.join(src, f"own_{s}.py"), "w") as f:
            f.write(f"OWN_{s} = []\n# END\n")
    subprocess.run(["git", "init", "-q", root], check=True)
    return root


def args_for(tool, s, i):
    if tool == "read_file":
        return "read_file", {"path": "src/decoder.py", "start_line": 1 + (i * 7) % 300,
                                    "end_line": 40 + (i * 7) % 300}
    if tool == "list_symbols":
        return "list_symbols", {"path": "src/encoder.py"}
    if tool == "search_files":
        return "search_files", {"keywords": ["scanstring", "decode"], "include": ["*.py"]}
    if tool == "search_codebase":
        return "search_codebase", {"query": "parse a JSON string with escapes"}
    line = f"x_{s}_{i} = {i}"
    path = "src/shared.py" if tool == "edit_shared" else f"src/own_{s}.py"
    return "edit_file", {"path": path,
                         "edits": [{"old_text": "# END", "new_text": f"{line}\n# END"}]}


async def client(session, s, calls, times, done, failures):
    await session.initialize()
    for i in range(calls):
        kind = MIX[(s + i) % len(MIX)]
        name, args = args_for(kind, s, i)
        t = time.perf_counter()
        try:
            r = await asyncio.wait_for(session.call_tool(name, args), 120)
        except Exception as e:  # a lost answer or a timeout
            failures.append(f"{name}: {e!r}")
            continue
        times.setdefault(kind, []).append((time.perf_counter() - t) * 1000)
        if r.isError:
            failures.append(f"{name}: " + "".join(c.text for c in r.content if c.type == "text")[:200])
        elif name == "edit_file":
            done.append((args["path"], args["edits"][0]["new_text"].split("\n")[0],
                         (r.structuredContent or {}).get("edit_id")))


def peak_rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def check(root, done):
    lost = 0
    for path, line, _ in done:
        with open(os.path.join(root, path)) as f:
            if line not in f.read().splitlines():
                lost += 1
    return lost


async def run_http(binary, sessions, calls):
    root = make_root(sessions)
    server = subprocess.Popen([binary, "serve", "--http", "--root", root,
                               "--max-requests", str(4 * sessions)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    state_path = os.path.join(root, ".scalpel", "server.json")
    while not os.path.exists(state_path):
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.1)
    with open(state_path) as f:
        state = json.load(f)
    with open(state["token_file"]) as f:
        headers = {"Authorization": f"Bearer {f.read().strip()}"}
    times, done, failures = {}, [], []

    async def one(s):
        async with create_mcp_http_client(headers=headers) as http:
            async with streamable_http_client(state["url"], http_client=http) as (r, w, _):
                async with ClientSession(r, w) as session:
                    await client(session, s, calls, times, done, failures)

    t = time.perf_counter()
    await asyncio.gather(*(one(s) for s in range(sessions)))
    wall = time.perf_counter() - t
    rss = peak_rss_kb(server.pid)
    server.send_signal(signal.SIGTERM)
    code = server.wait(60)
    return {"wall_s": wall, "times": times, "failures": failures, "lost": check(root, done),
            "edits": len(done), "rss_mb": rss / 1024, "exit": code, "root": root}


async def run_stdio(binary, sessions, calls):
    root = make_root(sessions)
    times, done, failures = {}, [], []

    async def one(s):
        params = StdioServerParameters(command=binary, args=["serve", "--root", root])
        async with stdio_client(params) as (r, w):
            async with ClientSession(r, w) as session:
                await client(session, s, calls, times, done, failures)
                record_stdio_servers()

    t = time.perf_counter()
    await asyncio.gather(*(one(s) for s in range(sessions)))
    wall = time.perf_counter() - t
    return {"wall_s": wall, "times": times, "failures": failures, "lost": check(root, done),
            "edits": len(done), "rss_mb": RSS_SUM[0] / 1024, "root": root}


RSS_SUM = [0]


def record_stdio_servers():
    """Add the peak RSS of every live `scalpel serve` child to RSS_SUM, once each."""
    seen = record_stdio_servers.seen
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or pid in seen:
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid != me:
                continue
            with open(f"/proc/{pid}/cmdline") as f:
                if "serve" not in f.read():
                    continue
            RSS_SUM[0] += peak_rss_kb(pid)
            seen.add(pid)
        except OSError:
            continue


record_stdio_servers.seen = set()


def report(label, r):
    print(f"{label}: wall {r['wall_s']:.1f} s, {r['edits']} edits, "
          f"{len(r['failures'])} failed calls, {r['lost']} lost updates, memory {r['rss_mb']:.0f} MB")
    for kind in sorted(r["times"]):
        v = sorted(r["times"][kind])
        p99 = v[min(len(v) - 1, int(len(v) * 0.99))]
        print(f"  {kind:16} n={len(v):5}  p50 {statistics.median(v):7.1f} ms  p99 {p99:7.1f} ms")
    for f in r["failures"][:5]:
        print(f"  failure: {f}")


async def main():
    binary = sys.argv[1]
    sessions = int(sys.argv[2]) if len(sys.argv) > 2 else 32
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 500
    h = await run_http(binary, sessions, calls)
    report(f"http  ({sessions} sessions x {calls} calls, one server, exit {h['exit']})", h)
    s = await run_stdio(binary, sessions, calls)
    report(f"stdio ({sessions} processes x {calls} calls)", s)
    if h["lost"] or s["lost"] or h["exit"] != 0:
        sys.exit(1)


if __name__ == "__main__":
    asyncio.run(main())
