"""Warm `extract_code` through the official MCP Python SDK, next to the
client's own floor: a `ping` (MCP's no-op request) over the same session.
The difference is what the server adds for an extraction (issue 29 item 8).

    target/tmp/mcp-venv/bin/python benches/sdk_latency.py target/release/scalpel 300

The venv is the one `cargo test --test mcp_python` provisions (the pinned
SDK). The file: fixtures/python/inventory.py copied into a temporary root;
the symbol: `Warehouse.add`. Calls alternate (ping, extract) so both see the
same load; prints medians and p90 in milliseconds.
"""
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

binary = os.path.abspath(sys.argv[1])
n = int(sys.argv[2]) if len(sys.argv) > 2 else 300
here = os.path.dirname(os.path.abspath(__file__))
root = tempfile.mkdtemp()
shutil.copy(os.path.join(here, "..", "fixtures", "python", "inventory.py"), root)


def summary(name, xs):
    xs = sorted(xs)
    p90 = xs[int(0.9 * (len(xs) - 1))]
    return f"{name}: median {statistics.median(xs):.3f} ms, p90 {p90:.3f} ms, min {xs[0]:.3f} ms"


async def main():
    params = StdioServerParameters(command=binary, args=["serve", "--root", root])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            args = {"path": "inventory.py", "symbol": "Warehouse.add"}
            for _ in range(20):  # warm: parse cache, schemas, code paths
                await session.send_ping()
                r = await session.call_tool("extract_code", args)
                assert not r.isError, r
            pings, extracts = [], []
            for _ in range(n):
                t = time.perf_counter()
                await session.send_ping()
                pings.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                await session.call_tool("extract_code", args)
                extracts.append((time.perf_counter() - t) * 1000)
    print(summary("ping (the client's floor)", pings))
    print(summary("extract_code", extracts))
    print(f"extract_code minus ping, medians: {statistics.median(extracts) - statistics.median(pings):.3f} ms")


asyncio.run(main())
shutil.rmtree(root, ignore_errors=True)
