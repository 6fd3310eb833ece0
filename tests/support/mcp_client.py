"""Drive `scalpel serve` with the official Python MCP SDK.

Usage: mcp_client.py BINARY ROOT EDIT_ID [stdio|http]

The one scenario runs over either transport: stdio (`scalpel serve`, the
default) or streamable HTTP (`scalpel serve --http`, found through
ROOT/.scalpel/server.json, with the bearer token it names). Over HTTP a
second session also checks that a write by one session is seen by
search_codebase of the other, and the server is stopped with SIGTERM and
must exit 0 and remove server.json.

ROOT is a repository prepared by tests/mcp_python.rs (src/inventory.py,
src/geometry.rs, and one journaled edit EDIT_ID on src/geometry.rs). Lists the
tools, calls each one (successes and failures), checks every argument
against the tool's inputSchema and every successful structuredContent against
its outputSchema with jsonschema, and checks the error shape of failures.
Exits non-zero with a message on the first problem.
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
import time

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

ERROR_KEYS = ["details", "error_code", "message", "suggestion"]


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


async def scenario(session, edit_id):
    """The suite every transport runs: one session, every tool."""
    init = await session.initialize()
    if init.serverInfo.name != "scalpel":
        fail(f"server name {init.serverInfo.name!r}")
    if "list_symbols" not in (init.instructions or ""):
        fail("instructions do not teach the workflow")

    tools = {t.name: t for t in (await session.list_tools()).tools}
    expected = {"list_symbols", "extract_code", "update_symbol", "undo_edit",
                "search_files", "read_file", "read_fragment", "edit_file",
                "write_file", "list_directory", "find_references", "rename_symbol",
                "edit_files"}
    if not expected <= set(tools):
        fail(f"tools {sorted(tools)} lack {sorted(expected - set(tools))}")
    for t in tools.values():
        if t.outputSchema is None:
            fail(f"{t.name} has no outputSchema")
        jsonschema.Draft202012Validator.check_schema(t.inputSchema)
        jsonschema.Draft202012Validator.check_schema(t.outputSchema)

    calls = [
        ("list_symbols", {"path": "src/inventory.py"}, None),
        ("list_symbols", {"path": "src/geometry.rs", "depth": 1, "kind": "struct"}, None),
        ("extract_code", {"path": "src/inventory.py", "symbol": "Warehouse.add",
                          "include_context": True}, None),
        ("extract_code", {"path": "src/geometry.rs", "symbol": "Point::new",
                          "include_trivia": False}, None),
        ("undo_edit", {"path": "src/geometry.rs", "edit_id": edit_id}, None),
        ("update_symbol", {"path": "src/inventory.py", "symbol": "Warehouse.find",
                           "new_code": "def find(self, sku):\n    return None\n"}, None),
        ("update_symbol", {"path": "src/inventory.py", "symbol": "Warehouse.find",
                           "operation": "delete", "dry_run": True}, None),
        ("update_symbol", {"path": "src/inventory.py", "symbol": "Warehouse.find",
                           "new_code": "def find(self, sku:\n"}, "SYNTAX_ERROR"),
        ("undo_edit", {"path": "src/inventory.py"}, None),
        ("search_files", {"keywords": ["Warehouse", "centroid"], "include": ["*.py"]}, None),
        ("search_files", {"pattern": "def ("}, "INVALID_ARGUMENT"),
        ("read_file", {"path": "src/inventory.py", "tail": 3}, None),
        ("read_file", {"path": "../outside.py"}, "OUTSIDE_ROOT"),
        ("read_fragment", {"path": "src/inventory.py", "ranges": [{"start": 1, "end": 3}],
                           "keywords": ["asyncio"], "symbols": ["Warehouse.add"]}, None),
        ("read_fragment", {"path": "src/inventory.py", "symbols": ["size"]}, "AMBIGUOUS"),
        ("write_file", {"path": "docs/new.py", "content": "X = 1\n"}, None),
        ("edit_file", {"path": "docs/new.py", "edits": [{"old_text": "X = 1", "new_text": "X = 2"}]}, None),
        ("edit_file", {"path": "docs/new.py", "edits": [{"old_text": "Y = 1", "new_text": "Y = 2"}]}, "NO_MATCH"),
        ("list_directory", {"depth": 1}, None),
        ("extract_code", {"path": "src/inventory.py", "symbol": "size"}, "AMBIGUOUS"),
        ("extract_code", {"path": "src/inventory.py", "symbol": "Warehous"}, "NOT_FOUND"),
        ("list_symbols", {"path": "../outside.py"}, "OUTSIDE_ROOT"),
        ("list_symbols", {"path": ".git/config"}, "IGNORED_PATH"),
        ("undo_edit", {"path": "src/geometry.rs", "edit_id": edit_id}, "INVALID_ARGUMENT"),
        ("find_references", {"path": "src/inventory.py", "symbol": "Warehouse.add"}, None),
        ("find_references", {"name": "Item", "include": ["*.py"]}, None),
        ("rename_symbol", {"path": "src/inventory.py", "symbol": "Warehouse.add",
                           "new_name": "put"}, "UNCERTAIN"),
        ("rename_symbol", {"path": "src/inventory.py", "symbol": "Warehouse.add",
                           "new_name": "put", "leave_uncertain": True}, None),
        ("rename_symbol", {"path": "src/inventory.py", "symbol": "Warehouse.add",
                           "new_name": "class"}, "INVALID_ARGUMENT"),
        ("edit_files", {"files": [{"path": "docs/new.py", "edits": [
            {"old_text": "X = 2", "new_text": "X = 3"}]}], "dry_run": True}, None),
    ]
    used = set()
    for name, args, want in calls:
        tool = tools[name]
        jsonschema.validate(args, tool.inputSchema)
        # The SDK itself validates successful structured results
        # against the outputSchema and raises when they do not fit.
        result = await session.call_tool(name, args)
        used.add(name)
        text = "".join(c.text for c in result.content if c.type == "text")
        if not text:
            fail(f"{name}: no text content")
        if want is None:
            if result.isError:
                fail(f"{name} {args}: unexpected failure: {text}")
            try:
                jsonschema.validate(result.structuredContent, tool.outputSchema)
            except jsonschema.ValidationError as e:
                fail(f"{name}: structuredContent does not fit outputSchema: {e.message}")
        else:
            if not result.isError:
                fail(f"{name} {args}: expected {want}, got success")
            sc = result.structuredContent or {}
            if sorted(sc) != ERROR_KEYS:
                fail(f"{name}: error keys {sorted(sc)}")
            if sc["error_code"] != want:
                fail(f"{name} {args}: expected {want}, got {sc['error_code']}: {text}")
            if not text.startswith(want + ": "):
                fail(f"{name}: error text {text!r}")

    # Malformed arguments: an error result, not a protocol error.
    result = await session.call_tool("list_symbols", {"nope": 1})
    if not result.isError or (result.structuredContent or {}).get("error_code") != "INVALID_ARGUMENT":
        fail(f"malformed arguments: {result}")

    if used != expected:
        fail(f"not every tool was called: {sorted(used)}")
    print(f"OK: {len(tools)} tools, {len(calls) + 1} calls validated")


async def over_stdio(binary, root, edit_id):
    params = StdioServerParameters(command=binary, args=["serve", "--root", root])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await scenario(session, edit_id)


def wait_for_state(server, root):
    """server.json of the server just started (its pid), within 60 s."""
    path = os.path.join(root, ".scalpel", "server.json")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            fail(f"scalpel serve --http exited with {server.returncode} before listening")
        try:
            with open(path) as f:
                state = json.load(f)
            if state["pid"] == server.pid:
                return state
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    fail("no server.json within 60 s")


async def over_http(binary, root, edit_id):
    server = subprocess.Popen([binary, "serve", "--http", "--root", root, "--log-level", "info"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        state = wait_for_state(server, root)
        with open(state["token_file"]) as f:
            token = f.read().strip()
        mode = os.stat(state["token_file"]).st_mode & 0o777
        if mode != 0o600:
            fail(f"token file mode {mode:o}")
        headers = {"Authorization": f"Bearer {token}"}
        async with create_mcp_http_client(headers=headers) as a_client, \
                create_mcp_http_client(headers=headers) as b_client:
            async with streamable_http_client(state["url"], http_client=a_client) as (ar, aw, _), \
                    streamable_http_client(state["url"], http_client=b_client) as (br, bw, _):
                async with ClientSession(ar, aw) as a, ClientSession(br, bw) as b:
                    await scenario(a, edit_id)
                    await b.initialize()
                    await one_root_for_all_sessions(a, b)
        server.send_signal(signal.SIGTERM)
        try:
            out, err = server.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            fail("the server did not stop within 60 s of SIGTERM")
        if out:
            fail(f"the HTTP server wrote to stdout: {out[:200]!r}")
        if server.returncode != 0:
            fail(f"SIGTERM: exit {server.returncode}: {err.decode(errors='replace')[-2000:]}")
        if os.path.exists(os.path.join(root, ".scalpel", "server.json")):
            fail("server.json is still there after a clean stop")
        print("OK: http: two sessions, SIGTERM -> exit 0")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


async def one_root_for_all_sessions(a, b):
    """A file written by session A is found by session B's search_codebase."""
    word = "zanzibarquokka"
    code = f"def {word}_total(items):\n    return sum(items)\n"
    result = await a.call_tool("write_file", {"path": "src/shared_write.py", "content": code})
    if result.isError:
        fail(f"write_file in session A: {result.content}")
    result = await b.call_tool("search_codebase", {"query": f"{word}_total"})
    text = "".join(c.text for c in result.content if c.type == "text")
    if result.isError:
        fail(f"search_codebase in session B: {text}")
    hits = (result.structuredContent or {}).get("results") or []
    if not any(h.get("path") == "src/shared_write.py" for h in hits):
        fail(f"session B does not see session A's write: {text[:500]}")
    result = await b.call_tool("extract_code", {"path": "src/shared_write.py",
                                                "symbol": f"{word}_total"})
    if result.isError:
        fail(f"extract_code in session B: {result.content}")


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        fail("usage: mcp_client.py BINARY ROOT EDIT_ID [stdio|http]")
    transport = sys.argv[4] if len(sys.argv) == 5 else "stdio"
    run = {"stdio": over_stdio, "http": over_http}.get(transport)
    if run is None:
        fail(f"unknown transport {transport!r}")
    asyncio.run(run(*sys.argv[1:4]))
