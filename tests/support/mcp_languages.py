"""Every language of the registry, end to end over MCP, in one repository.

Usage: mcp_languages.py BINARY ROOT MANIFEST REPORT

ROOT is a copy of the fixtures tree (every language's fixtures side by side,
prepared by tests/mcp_python.rs). MANIFEST (JSON) names the languages the
registry has, not this script: for each, its name, its line-comment token
and its fixture files (paths relative to ROOT). One `scalpel serve` session
(the official Python MCP SDK over stdio), for each language:

- list_symbols of each file: the language, no parse error, symbols;
- extract_code of every symbol: exactly the file's bytes over its range;
- a function or method with a reference in the tree (proven first, else
  probable), by find_references;
- rename_symbol dry run of it: every reference listed is renamed in the
  diffs, and no file of the tree changes;
- search_codebase for its name, restricted to the language, finds it;
- update_symbol with the code extract_code gave changes nothing; then with
  a comment line first (the shape both interfaces print: every line at the
  symbol's depth), which lands right above the symbol, nothing else
  changing.

REPORT (JSON) gets, per language, what was done and the file updated, which
the Rust test then has the language's own front end judge. Exits non-zero
with a message on the first problem.
"""

import asyncio
import hashlib
import json
import os
import re
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
REF_TIERS = ("proven", "probable")


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr, flush=True)
    sys.stdout.flush()
    # Not SystemExit: it would be wrapped in the SDK's task groups.
    os._exit(1)


def tree_hashes(root):
    """Every file of ROOT outside .scalpel/, with its content's hash."""
    out = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x != ".scalpel"]
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = hashlib.sha256(fh.read()).hexdigest()
    return out


class Client:
    def __init__(self, session):
        self.session = session

    async def call(self, tool, args):
        """structuredContent of a successful call (fails otherwise)."""
        r = await self.session.call_tool(tool, args)
        text = "".join(c.text for c in r.content if c.type == "text")
        if r.isError:
            fail(f"{tool} {json.dumps(args)[:300]}: {text[:600]}")
        if r.structuredContent is None:
            fail(f"{tool}: no structuredContent")
        return r.structuredContent

    async def try_call(self, tool, args):
        """(error_code or None, structuredContent)."""
        r = await self.session.call_tool(tool, args)
        sc = r.structuredContent or {}
        return (sc.get("error_code", "ERROR") if r.isError else None), sc


def addr(s):
    """The symbol's address: its name path, unless the outline gives
    another to tell it from a namesake (`place#2`, `/OrderService`)."""
    return s.get("address") or s["name_path"]


def read_bytes(root, rel):
    with open(os.path.join(root, rel), "rb") as fh:
        return fh.read()


async def language(c, root, lang):
    name, comment, files = lang["name"], lang["comment"], lang["files"]
    if not files:
        fail(f"{name}: no fixture file in the tree")
    done = {"language": name, "files": len(files)}

    # list_symbols and extract_code of every symbol.
    outlines = {}
    for rel in files:
        o = await c.call("list_symbols", {"path": rel, "max_symbols": 1000})
        if o.get("language") != name:
            fail(f"{rel}: language {o.get('language')!r}, expected {name!r}")
        if o.get("parse_errors"):
            fail(f"{rel}: {o['parse_errors']} parse errors")
        if o.get("truncated"):
            fail(f"{rel}: outline truncated")
        if not o.get("symbols"):
            fail(f"{rel}: no symbols")
        outlines[rel] = o["symbols"]
    extracted = 0
    for rel, symbols in outlines.items():
        data = read_bytes(root, rel)
        for s in symbols:
            x = await c.call("extract_code", {"path": rel, "symbol": addr(s),
                                              "kind": s["kind"]})
            want = data[s["start_byte"]:s["end_byte"]].decode("utf-8")
            if x["code"] != want or x["start_byte"] != s["start_byte"]:
                fail(f"{rel} {s['name_path']} ({s['kind']}): extract_code is not "
                     f"the outline's range {s['start_byte']}..{s['end_byte']}")
            extracted += 1
    done["symbols"] = extracted

    # A function or method that the tree references: proven first; and
    # one that starts its line (not `export const f = ...`), for the comment
    # line update_symbol writes above it: the same one when it can be.
    found, starts_line = {}, []
    for rel, symbols in outlines.items():
        data = read_bytes(root, rel)
        for s in symbols:
            if s["kind"] not in ("function", "method") or not IDENT.match(s["name"]):
                continue
            b = (await c.call("extract_code", {"path": rel, "symbol": addr(s), "kind": s["kind"],
                                               "include_trivia": False}))["start_byte"]
            if not data[data.rfind(b"\n", 0, b) + 1:b].strip():
                starts_line.append((rel, s))
            code, refs = await c.try_call("find_references",
                                          {"path": rel, "symbol": addr(s)})
            if code == "AMBIGUOUS":
                continue
            if code:
                fail(f"{rel} {s['name_path']}: find_references: {code}: {refs.get('message')}")
            tiers = {r["tier"] for r in refs["references"] if r["role"] != "definition"}
            for tier in REF_TIERS:
                if tier in tiers and tier not in found:
                    found[tier] = (rel, s, refs)
    pick = next((found[t] for t in REF_TIERS if t in found), None)
    if pick is None:
        fail(f"{name}: no function or method of its fixtures has a {' or '.join(REF_TIERS)} "
             "reference by find_references")
    rel, sym, refs = pick
    sites = [r for r in refs["references"] if r["tier"] != "name_only"]
    done["symbol"] = f"{rel} {sym['name_path']}"
    done["references"] = {t: sum(1 for r in refs["references"] if r["tier"] == t)
                          for t in ("definition", "proven", "probable", "name_only")}

    # rename_symbol, dry run: every site found above is in the diffs,
    # nothing on disk changes.
    new_name = sym["name"] + "Renamed"
    before = tree_hashes(root)
    plan = await c.call("rename_symbol", {"path": rel, "symbol": addr(sym),
                                          "new_name": new_name, "dry_run": True,
                                          "include_name_only": True})
    if tree_hashes(root) != before:
        fail(f"{name}: the rename dry run changed files")
    changed = {f["path"]: f for f in plan["files"] if f.get("changed")}
    for f in plan["files"]:
        if not f.get("dry_run"):
            fail(f"{name}: rename file {f['path']} is not a dry run")
    for path in {r["path"] for r in sites}:
        here = [r for r in sites if r["path"] == path]
        f = changed.get(path)
        if f is None:
            fail(f"{name}: the rename of {sym['name_path']} leaves {path} unchanged, "
                 f"where find_references has {[(r['line'], r['tier']) for r in here]}")
        added = [ln for ln in f["diff"].splitlines()
                 if ln.startswith("+") and not ln.startswith("+++") and new_name in ln]
        if f["occurrences"] < len(here) or len(added) < len({r["line"] for r in here}):
            fail(f"{name}: the rename of {sym['name_path']} changes {f['occurrences']} "
                 f"occurrences on {len(added)} lines of {path}, where find_references has "
                 f"{[(r['line'], r['tier']) for r in here]}:\n{f['diff']}")
    occurrences = sum(f["occurrences"] for f in changed.values())
    done["renamed_occurrences"] = occurrences

    # search_codebase finds it among this language's units.
    ans = await c.call("search_codebase", {"query": sym["name"], "language": name,
                                           "max_results": 8})
    ranks = [i for i, h in enumerate(ans["results"])
             if h["path"] == rel and h.get("name_path") == sym["name_path"]]
    if not ranks:
        fail(f"{name}: search_codebase {sym['name']!r} does not find {rel} "
             f"{sym['name_path']}: {[(h['path'], h.get('name_path')) for h in ans['results']]}")
    others = [h["path"] for h in ans["results"] if h["path"] not in files]
    if others:
        fail(f"{name}: search_codebase with language {name} answers other files: {others}")
    done["search_rank"] = ranks[0] + 1

    # update_symbol: the extracted code changes nothing; a comment line
    # first lands right above the symbol.
    if (rel, sym) not in starts_line:
        if not starts_line:
            fail(f"{name}: no function or method of its fixtures starts its line")
        rel, sym = starts_line[0]
    done["updated_symbol"] = sym["name_path"]
    args = {"path": rel, "symbol": addr(sym), "kind": sym["kind"]}
    x = await c.call("extract_code", args)
    data = read_bytes(root, rel)
    await c.call("update_symbol", {**args, "new_code": x["code"]})
    if read_bytes(root, rel) != data:
        fail(f"{name}: update_symbol with extract_code's own code changed {rel}")
    bare = await c.call("extract_code", {**args, "include_trivia": False})
    line_start = data.rfind(b"\n", 0, bare["start_byte"]) + 1
    indent = data[line_start:bare["start_byte"]].decode("utf-8")
    note = f"{comment} Edited over MCP ({name})."
    receipt = await c.call("update_symbol",
                           {**args, "new_code": f"{indent}{note}\n{indent}{bare['code']}"})
    # The comment is the symbol's new doc comment, or (where the language's
    # doc comments are another kind: `/** */` in C) a comment between the
    # kept doc comment and the symbol: either way right above it.
    after = await c.call("extract_code", {**args, "include_trivia": False})
    new = read_bytes(root, rel)
    written = f"{indent}{note}\n{indent}{bare['code']}".encode("utf-8")
    head = data.rfind(b"\n", 0, x["start_byte"]) + 1
    if after["code"] != bare["code"] or new.count(written) != 1:
        fail(f"{name}: after update_symbol, {rel} does not have the comment right above "
             f"{sym['name_path']}:\n{new.decode('utf-8')}\nreceipt: {receipt}")
    if new[:head] != data[:head] or not new.endswith(data[bare["end_byte"]:]):
        fail(f"{name}: update_symbol changed {rel} outside {sym['name_path']}")
    done["updated"] = rel
    return done


async def main(binary, root, manifest, report):
    with open(manifest) as fh:
        langs = json.load(fh)["languages"]
    params = StdioServerParameters(command=binary, args=["--no-lsp", "serve", "--root", root],
                                   env={**os.environ, "SCALPEL_MODEL": "off"})
    out = []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            c = Client(session)
            for lang in langs:
                done = await language(c, root, lang)
                print(json.dumps(done))
                out.append(done)
    with open(report, "w") as fh:
        json.dump(out, fh)
    print(f"OK: {len(out)} languages end to end")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
