"""Load on one `scalpel serve --http` against the same work on stdio servers.

    target/tmp/mcp-venv/bin/python benches/http_load.py target/release/scalpel [SESSIONS] [CALLS] [--only http|stdio]

(the venv with the pinned MCP SDK is the one `cargo test --test mcp_python`
sets up). SESSIONS clients (default 32) each make CALLS calls (default 500),
a fixed mix: read_file, extract_code, list_symbols, search_files,
search_codebase, and edit_file appending one line to a file all sessions
share or to the session's own file. Loopback only; every call has a 120 s
deadline.

First one session alone on its own server (the memory baseline), then
SESSIONS sessions on one server, then the same work with one stdio
`scalpel serve` per client. Printed: wall time, p50/p99 per tool, failed
calls, lost updates (an edit answered as done whose line is not in the
final file, or whose edit_id is not in the journal's newest entries),
whether the server was alive at the end and exited 0 on SIGTERM, and memory:
the HTTP server's RSS at the end of the run and its peak (VmHWM), against
the one-session server's; the sum of the stdio servers' peak RSS.
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
       "extract_code", "list_symbols", "search_files", "edit_own", "search_codebase"]


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
    if tool == "extract_code":
        return "extract_code", {"path": "src/decoder.py", "symbol": "JSONDecoder.raw_decode"}
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


async def client(session, clients, calls, times, done, failures):
    """The calls of each client number in `clients`, one after the other."""
    await session.initialize()
    for s, i in ((s, i) for s in clients for i in range(calls)):
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


def rss_kb(pid, field="VmHWM"):
    """A memory figure of /proc/PID/status in KiB: VmHWM (peak) or VmRSS."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def peak_rss_kb(pid):
    return rss_kb(pid, "VmHWM")


# The HTTP server's RSS is read right after the last answer and again this
# long after (a long-lived server between bursts).
SETTLE_S = int(os.environ.get("SETTLE_S", 3))

JOURNAL_KEEPS = 200  # disk::Retention::default().max_entries


def check(binary, root, done):
    """Lost updates: answered edits whose line is not in the final file, or
    (among the journal's newest JOURNAL_KEEPS entries, which is all it
    keeps) answered edit_ids it lacks, or entries no answer named."""
    lost = 0
    for path, line, _ in done:
        with open(os.path.join(root, path)) as f:
            if line not in f.read().splitlines():
                lost += 1
    history = json.loads(subprocess.run([binary, "history", "--json", "--root", root],
                                        check=True, capture_output=True, text=True).stdout)
    journal = {e["edit_id"] for e in history if e.get("operation") == "edit_file"}
    answered = {edit_id for _, _, edit_id in done}
    lost += len(journal - answered)
    lost += max(0, min(len(answered), JOURNAL_KEEPS) - len(journal))
    return lost


async def run_http(binary, sessions, calls, serial=False):
    """`sessions` clients' work on one server: concurrently, one session
    each; or (`serial`) all of it in one session, one call after another."""
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
    if serial:
        await one(range(sessions))
    else:
        await asyncio.gather(*(one([s]) for s in range(sessions)))
    wall = time.perf_counter() - t
    alive = server.poll() is None
    rss_end, rss_peak = rss_kb(server.pid, "VmRSS"), rss_kb(server.pid, "VmHWM")
    await asyncio.sleep(SETTLE_S)
    rss_settled = rss_kb(server.pid, "VmRSS")
    threads = len(os.listdir(f"/proc/{server.pid}/task"))
    server.send_signal(signal.SIGTERM)
    code = server.wait(60)
    lost = check(binary, root, done)
    shutil.rmtree(root)
    return {"wall_s": wall, "times": times, "failures": failures,
            "lost": lost, "edits": len(done), "alive": alive,
            "rss_mb": rss_end / 1024, "settled_mb": rss_settled / 1024,
            "peak_mb": rss_peak / 1024, "threads": threads,
            "exit": code}


async def run_stdio(binary, sessions, calls):
    root = make_root(sessions)
    times, done, failures = {}, [], []

    async def one(s):
        params = StdioServerParameters(command=binary, args=["serve", "--root", root])
        async with stdio_client(params) as (r, w):
            async with ClientSession(r, w) as session:
                await client(session, [s], calls, times, done, failures)
                record_stdio_servers()

    t = time.perf_counter()
    await asyncio.gather(*(one(s) for s in range(sessions)))
    wall = time.perf_counter() - t
    lost = check(binary, root, done)
    shutil.rmtree(root)
    return {"wall_s": wall, "times": times, "failures": failures,
            "lost": lost, "edits": len(done), "peak_mb": RSS_SUM[0] / 1024}


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
    memory = (f"memory {r['rss_mb']:.1f} MB at the end, {r['settled_mb']:.1f} MB {SETTLE_S} s later, "
              f"{r['peak_mb']:.1f} MB peak, {r['threads']} threads"
              if "rss_mb" in r else f"memory {r['peak_mb']:.0f} MB (sum of peaks)")
    alive = "" if "alive" not in r else f", alive at the end: {r['alive']}, exit {r['exit']}"
    print(f"{label}: wall {r['wall_s']:.1f} s, {r['edits']} edits, "
          f"{len(r['failures'])} failed calls, {r['lost']} lost updates{alive}, {memory}")
    for kind in sorted(r["times"]):
        v = sorted(r["times"][kind])
        p99 = v[min(len(v) - 1, int(len(v) * 0.99))]
        print(f"  {kind:16} n={len(v):5}  p50 {statistics.median(v):7.1f} ms  p99 {p99:7.1f} ms")
    for f in r["failures"][:5]:
        print(f"  failure: {f}")
    sys.stdout.flush()


async def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--only")]
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1]
        args.remove(only)
    binary = args[0]
    sessions = int(args[1]) if len(args) > 1 else 32
    calls = int(args[2]) if len(args) > 2 else 500
    bad = False
    if only in (None, "http"):
        one = await run_http(binary, 1, calls)
        report(f"http  (1 session x {calls} calls: one agent)", one)
        serial = await run_http(binary, sessions, calls, serial=True)
        report(f"http  (1 session making the {sessions} x {calls} calls in turn: the same work)", serial)
        h = await run_http(binary, sessions, calls)
        report(f"http  ({sessions} sessions x {calls} calls, one server)", h)
        for label, base in [("one agent", one), ("the same work in one session", serial)]:
            print(f"  memory vs {label}: {h['rss_mb'] / base['rss_mb']:.2f}x at the end, "
                  f"{h['settled_mb'] / base['settled_mb']:.2f}x {SETTLE_S} s later, "
                  f"{h['peak_mb'] / base['peak_mb']:.2f}x peak")
        bad |= bool(h["lost"] or one["lost"] or serial["lost"] or h["exit"] != 0 or not h["alive"])
    if only in (None, "stdio"):
        s = await run_stdio(binary, sessions, calls)
        report(f"stdio ({sessions} processes x {calls} calls)", s)
        bad |= bool(s["lost"])
    if bad:
        sys.exit(1)


if __name__ == "__main__":
    asyncio.run(main())
