"""Per-session behaviour of `scalpel serve --http`, driven by the official
Python MCP SDK (several sessions of one server at once).

Usage: mcp_http_sessions.py BINARY ROOT OUTSIDE (roots|cancel)

ROOT is a repository prepared by tests/mcp_python.rs (src/inventory.py,
src/geometry.rs; for `cancel` also gen_a/ and gen_b/, two trees of the same
few thousand Python files that all call `target`). OUTSIDE is a folder
outside ROOT. The script starts the server on ROOT itself (stderr into a
log it reads), runs the named part, stops the server with SIGTERM and
checks it exits 0. Exits non-zero with a message on the first problem.

- roots: each session's MCP roots (list_roots_callback) decide what it
  sees: none or ROOT or a folder containing ROOT -> ROOT; a folder under
  ROOT -> that folder (paths resolve there, cannot leave it; its writes are
  seen by a session on ROOT); only OUTSIDE -> every call refused with
  OUTSIDE_ROOT naming ROOT. notifications/roots/list_changed from one
  session moves that session only.
- cancel: session X cancels (notifications/cancelled) an in-flight
  find_references over gen_a/ while session Y keeps calling; the server
  stops X's walk (its log shows the call ended as cancelled, in a fraction
  of what the same call over the twin gen_b/ takes uncancelled), Y's calls
  are answered meanwhile, and X's session goes on working. Progress
  notifications of Y's search_files reach Y only.
"""

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def text_of(result):
    return "".join(c.text for c in result.content if c.type == "text")


class Server:
    """`scalpel serve --http --root ROOT`, its log in a temporary file."""

    def __init__(self, binary, root):
        self.root = root
        self.log = tempfile.NamedTemporaryFile(prefix="scalpel-http-", suffix=".log", delete=False)
        self.proc = subprocess.Popen(
            [binary, "serve", "--http", "--root", root, "--log-level", "info"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log)
        path = os.path.join(root, ".scalpel", "server.json")
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                fail(f"the server exited with {self.proc.returncode}: {self.stderr()[-2000:]}")
            try:
                with open(path) as f:
                    state = json.load(f)
                if state["pid"] == self.proc.pid:
                    break
            except (OSError, ValueError, KeyError):
                pass
            if time.monotonic() > deadline:
                fail("no server.json within 60 s")
            time.sleep(0.05)
        self.url = state["url"]
        with open(state["token_file"]) as f:
            self.headers = {"Authorization": f"Bearer {f.read().strip()}"}

    def stderr(self):
        with open(self.log.name, errors="replace") as f:
            return f.read()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            fail("the server did not stop within 60 s of SIGTERM")
        if self.proc.returncode != 0:
            fail(f"SIGTERM: exit {self.proc.returncode}: {self.stderr()[-2000:]}")
        os.unlink(self.log.name)


class Session:
    """One SDK session; `roots` None: the client declares no roots."""

    def __init__(self, server, roots=None):
        self.server, self.roots = server, roots
        self.roots_asked = 0
        self.notes = []

    async def list_roots(self, _context):
        self.roots_asked += 1
        return types.ListRootsResult(
            roots=[types.Root(uri=Path(r).as_uri()) for r in self.roots])

    async def on_message(self, message):
        if isinstance(message, types.ServerNotification):
            self.notes.append(message.root)

    async def __aenter__(self):
        self._http = create_mcp_http_client(headers=self.server.headers)
        http = await self._http.__aenter__()
        self._transport = streamable_http_client(self.server.url, http_client=http)
        read, write, _ = await self._transport.__aenter__()
        callback = self.list_roots if self.roots is not None else None
        self._session = ClientSession(read, write, list_roots_callback=callback,
                                      message_handler=self.on_message)
        self.s = await self._session.__aenter__()
        self.init = await self.s.initialize()
        return self

    async def __aexit__(self, *exc):
        await self._session.__aexit__(*exc)
        await self._transport.__aexit__(*exc)
        await self._http.__aexit__(*exc)

    async def call(self, name, args, want=None, **kw):
        result = await self.s.call_tool(name, args, **kw)
        sc = result.structuredContent or {}
        if want is None and result.isError:
            fail(f"{name} {args}: unexpected failure: {text_of(result)}")
        if want is not None and (not result.isError or sc.get("error_code") != want):
            fail(f"{name} {args}: expected {want}, got: {text_of(result)[:400]}")
        return result


async def roots(server, root, outside):
    root = os.path.realpath(root)
    src = os.path.join(root, "src")
    async with Session(server) as none, \
            Session(server, [root]) as same, \
            Session(server, [os.path.dirname(root)]) as parent, \
            Session(server, [outside, src]) as sub, \
            Session(server, [outside]) as away:
        # The tool set is fixed for the server's life: it declares no
        # tools/list_changed (and so never sends one).
        tools = none.init.capabilities.tools
        if tools is None or tools.listChanged:
            fail(f"tools capability {tools}")
        # No roots, the root itself, a folder containing it: the root.
        for s in (none, same, parent):
            r = await s.call("read_file", {"path": "src/inventory.py", "head": 2})
            if r.structuredContent.get("path") != "src/inventory.py":
                fail(f"a session on the root reads {r.structuredContent}")
        if same.roots_asked == 0 or parent.roots_asked == 0:
            fail("the server did not ask the sessions' roots")
        # A folder under the root (after one outside it): that folder.
        r = await sub.call("read_file", {"path": "inventory.py", "head": 2})
        if r.structuredContent.get("path") != "inventory.py":
            fail(f"the sub-folder session reads {r.structuredContent}")
        await sub.call("read_file", {"path": "src/inventory.py"}, "NOT_FOUND")
        await sub.call("read_file", {"path": "../README.md"}, "OUTSIDE_ROOT")
        listing = text_of(await sub.call("list_directory", {"depth": 1}))
        if "geometry.rs" not in listing or "src/" in listing:
            fail(f"the sub-folder session lists {listing[:300]}")
        # Its write is in the server's root, seen by the others at once.
        word = "quagganzibar"
        await sub.call("write_file", {"path": "from_sub.py",
                                      "content": f"def {word}():\n    return 1\n"})
        r = await none.call("search_codebase", {"query": word})
        if not any(h.get("path") == "src/from_sub.py" for h in r.structuredContent.get("results", [])):
            fail(f"the root session does not find the sub session's write: {text_of(r)[:400]}")
        r = await sub.call("search_codebase", {"query": word})
        if not any(h.get("path") == "from_sub.py" for h in r.structuredContent.get("results", [])):
            fail(f"the sub session does not find its own write: {text_of(r)[:400]}")
        # The root session edits the file; the sub session sees the edit.
        await same.call("edit_file", {"path": "src/from_sub.py", "edits": [
            {"old_text": "return 1", "new_text": "return 2"}]})
        r = await sub.call("read_file", {"path": "from_sub.py"})
        if "return 2" not in text_of(r):
            fail(f"the sub session does not see the root session's edit: {text_of(r)}")
        # Only outside: refused, naming the server's root, at every call.
        for name, args in [("read_file", {"path": "src/inventory.py"}),
                           ("list_directory", {}),
                           ("write_file", {"path": "x.py", "content": "X = 1\n"})]:
            r = await away.call(name, args, "OUTSIDE_ROOT")
            sc = r.structuredContent
            if root not in sc["message"] or sc["details"].get("server_root") != root:
                fail(f"the refusal does not name the server's root: {sc}")
            if "--root" not in sc["suggestion"]:
                fail(f"the refusal does not say what to do: {sc}")
        if os.path.exists(os.path.join(root, "x.py")) or os.path.exists(os.path.join(outside, "x.py")):
            fail("a refused session wrote a file")
        # roots/list_changed moves the session that sent it, no other.
        asked_sub = sub.roots_asked
        away.roots = [root]
        await away.s.send_roots_list_changed()
        r = await away.call("read_file", {"path": "src/inventory.py", "head": 1})
        if r.structuredContent.get("path") != "src/inventory.py":
            fail(f"after roots/list_changed: {r.structuredContent}")
        sub.roots = [root]  # changed without telling: the session keeps its root
        await sub.call("read_file", {"path": "inventory.py", "head": 1})
        if sub.roots_asked != asked_sub:
            fail("another session's roots/list_changed made the server ask this one")
        await sub.s.send_roots_list_changed()
        await sub.call("read_file", {"path": "src/inventory.py", "head": 1})
        # No session received a notification it did not ask for.
        for s in (none, same, parent, sub, away):
            if s.notes:
                fail(f"unasked notifications: {s.notes}")
    print("OK: roots: none/root/parent -> root, sub-folder -> that folder, outside -> OUTSIDE_ROOT, list_changed per session")


def ended_calls(log, tool):
    """(ok, ms) of each finished call of `tool` in the server's log."""
    calls = []
    for line in log.splitlines():
        m = re.search(r"tool call tool=(\S+) ok=(\w+) ms=([\d.]+)", line)
        if m and m.group(1) == tool:
            calls.append((m.group(2) == "true", float(m.group(3))))
    return calls


async def cancel(server, root, _outside):
    async with Session(server) as x, Session(server) as y:
        # X starts a long call over gen_a/ and cancels it once it runs.
        request_id = x.s._request_id  # the id send_request gives the next request
        started = time.monotonic()
        long_call = asyncio.create_task(
            x.s.call_tool("find_references", {"name": "target", "include": ["gen_a/**"]}))
        await asyncio.sleep(0.5)
        if long_call.done():
            fail(f"find_references over gen_a/ ended within 0.5 s: make the tree larger ({long_call.result()})")
        await x.s.send_notification(types.ClientNotification(types.CancelledNotification(
            params=types.CancelledNotificationParams(requestId=request_id, reason="test"))))
        # Meanwhile Y is served, and its progress notifications reach Y.
        y_calls = 0
        progress = []

        async def on_progress(done, total, message):
            progress.append(done)
        while True:
            await y.call("read_file", {"path": "src/inventory.py", "head": 3})
            await y.call("search_files", {"keywords": ["target"], "include": ["gen_b/**"],
                                          "max_results": 5}, progress_callback=on_progress)
            y_calls += 2
            if ended_calls(server.stderr(), "find_references"):
                break
            if time.monotonic() - started > 120:
                fail(f"the cancelled call had not ended after 120 s:\n{server.stderr()[-3000:]}")
        cancelled_after = time.monotonic() - started
        [(ok, ms)] = ended_calls(server.stderr(), "find_references")
        if ok:
            fail("the cancelled find_references ended as a success")
        if not progress:
            fail("Y's search_files sent Y no progress notification")
        if any(isinstance(n, types.ProgressNotification) for n in x.notes):
            fail(f"X received another session's progress: {x.notes}")
        long_call.cancel()  # the server answers nothing to a cancelled request
        # X goes on working.
        r = await x.call("read_file", {"path": "src/inventory.py", "head": 1})
        # The same call over the twin tree, uncancelled, in Y: the baseline.
        t = time.monotonic()
        r = await y.call("find_references", {"name": "target", "include": ["gen_b/**"]})
        full = (time.monotonic() - t) * 1000
        found = len(r.structuredContent.get("references", r.structuredContent.get("results", [])))
        [_, (ok_b, ms_b)] = ended_calls(server.stderr(), "find_references")
        if not ok_b:
            fail(f"the uncancelled find_references failed: {text_of(r)[:300]}")
        print(f"cancelled call ran {ms:.0f} ms (ended {cancelled_after:.1f} s after its start, "
              f"{y_calls} calls of Y answered meanwhile); the uncancelled twin {ms_b:.0f} ms "
              f"({full:.0f} ms at the client), {found} references")
        if ms * 2 > ms_b:
            fail(f"the cancelled call ran {ms:.0f} ms, the whole call {ms_b:.0f} ms: the cancel did not stop the walk")
    print("OK: cancel: X's call stopped, Y served meanwhile, progress per session")


async def main():
    binary, root, outside, part = sys.argv[1:5]
    run = {"roots": roots, "cancel": cancel}.get(part)
    if run is None:
        fail(f"unknown part {part!r}")
    server = Server(binary, root)
    try:
        await run(server, root, outside)
    except BaseException:
        print(server.stderr()[-4000:], file=sys.stderr)
        raise
    finally:
        if server.proc.poll() is None:
            server.stop()


if __name__ == "__main__":
    if len(sys.argv) != 5:
        fail("usage: mcp_http_sessions.py BINARY ROOT OUTSIDE (roots|cancel)")
    asyncio.run(main())
