"""Drive `scalpel serve` with the official Python MCP SDK.

Usage: mcp_client.py BINARY ROOT EDIT_ID

ROOT is a repository prepared by tests/mcp_python.rs (src/inventory.py,
src/geometry.rs, and one journaled edit EDIT_ID on src/geometry.rs). Lists the
tools, calls each one (successes and failures), checks every argument
against the tool's inputSchema and every successful structuredContent against
its outputSchema with jsonschema, and checks the error shape of failures.
Exits non-zero with a message on the first problem.
"""

import asyncio
import sys

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ERROR_KEYS = ["details", "error_code", "message", "suggestion"]


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


async def main(binary, root, edit_id):
    params = StdioServerParameters(command=binary, args=["serve", "--root", root])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
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


if __name__ == "__main__":
    if len(sys.argv) != 4:
        fail("usage: mcp_client.py BINARY ROOT EDIT_ID")
    asyncio.run(main(*sys.argv[1:]))
