"""Rename through a warm language server (#27): Scalpel's `rename_symbol`
(a dry run to a new name, then its apply, over MCP to one `scalpel serve`) against the server's own
`prepareRename` + `rename` (asked directly over LSP, the same server
program, also warm). Median of N after 2 warm-up calls each.

    PATH=<node_modules/.bin with pyright-langserver>:$PATH \\
    python3 benches/lsp_rename.py BINARY ROOT FILE SYMBOL LINE COLUMN [N]

LINE and COLUMN (1-based, in characters) are where SYMBOL's name stands in
FILE (relative to ROOT); the server program is pyright-langserver.
SCALPEL_BENCH_LANG=rust (default python) takes the language's `[lsp]` table
from grammars/<lang>.toml (its initialization options, settings,
experimental capabilities, ready notification, pulled diagnostics) for the
server's own side too; SCALPEL_BENCH_SERVER=PATH runs that program (both
sides: Scalpel gets `--lsp LANG=PATH`). The server's own side waits until
the server says it is ready before its first rename, and checks the
renamed texts as Scalpel does: `textDocument/diagnostic` per file when the
table says `diagnostics_pull`, else published diagnostics of the version.
With SCALPEL_BENCH_LOG=FILE, Scalpel's log goes to FILE with each
phase's time. Scalpel's figure includes everything it does: the text search for files
naming the symbol, loading and syncing them, prepareRename and rename,
turning the edit into validated changes, and the check of the new texts
in memory (the server's diagnostics before and after).
"""
import json, os, statistics, subprocess, sys, time, tomllib

binary, root, file, symbol = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3], sys.argv[4]
line, column = int(sys.argv[5]), int(sys.argv[6])
n = int(sys.argv[7]) if len(sys.argv) > 7 else 10
new = symbol.split(".")[-1].split("::")[-1] + "_renamed"
lang = os.environ.get("SCALPEL_BENCH_LANG", "python")
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "grammars", lang + ".toml"), "rb") as f:
    grammar = tomllib.load(f)
lsp = grammar["lsp"]
server = os.environ.get("SCALPEL_BENCH_SERVER")
command = [server, *lsp["command"][1:]] if server else lsp["command"]
exts = tuple("." + e for e in grammar["file_types"])


def section(name):
    v = lsp.get("settings")
    for part in (name or "").split(".") if name else []:
        v = (v or {}).get(part)
    return v


def lsp_own():
    p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=root)
    ids = iter(range(1, 10**6))

    def send(m):
        b = json.dumps(m).encode()
        p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
        p.stdin.flush()

    def read():
        length = None
        while True:
            h = p.stdout.readline().strip()
            if not h:
                break
            k, _, v = h.partition(b":")
            if k.lower() == b"content-length":
                length = int(v)
        return json.loads(p.stdout.read(length))

    def request(method, params):
        i = next(ids)
        send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            m = read()
            if "method" in m and "id" in m:
                send({"jsonrpc": "2.0", "id": m["id"], "result": [section(x.get("section")) for x in m["params"].get("items", [])] if m["method"] == "workspace/configuration" else None})
            elif m.get("id") == i and "method" not in m:
                return m.get("result")
            else:
                note(m)

    ready = [lsp.get("ready_notification") is None]

    def note(m):
        r = lsp.get("ready_notification")
        if r and m.get("method") == r["method"]:
            v = m.get("params", {})
            for part in r["field"].split("."):
                v = (v or {}).get(part)
            ready[0] = v == r["value"]
        if m.get("method") == "textDocument/publishDiagnostics":
            published[m["params"]["uri"]] = m["params"].get("version")

    uri = "file://" + root
    # The same initialize as Scalpel's (src/lsp/client.rs).
    capabilities = {"workspace": {"workspaceEdit": {"documentChanges": True}, "configuration": True},
                    "textDocument": {"rename": {"prepareSupport": True}, "publishDiagnostics": {"versionSupport": True}}}
    if lsp.get("experimental_capabilities"):
        capabilities["experimental"] = lsp["experimental_capabilities"]
    published = {}
    request("initialize", {"processId": os.getpid(), "rootUri": uri, "rootPath": root,
                           "workspaceFolders": [{"uri": uri, "name": os.path.basename(root)}],
                           "initializationOptions": lsp.get("init_options"),
                           "capabilities": capabilities})
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    doc = uri + "/" + file
    # The files naming the symbol opened, as Scalpel opens them.
    name = symbol.split(".")[-1]
    texts, versions = {}, {}
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(exts) and name in open(os.path.join(d, f)).read():
                u = "file://" + os.path.join(d, f)
                texts[u], versions[u] = open(os.path.join(d, f)).read(), 1
                send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": u, "languageId": lsp["language_id"], "version": 1, "text": texts[u]}}})
    pos = {"textDocument": {"uri": doc}, "position": {"line": line - 1, "character": column - 1}}
    # Not measured: the wait until the server says it has loaded the project.
    while not ready[0]:
        m = read()
        if "method" in m and "id" in m:
            send({"jsonrpc": "2.0", "id": m["id"], "result": [section(x.get("section")) for x in m["params"].get("items", [])] if m["method"] == "workspace/configuration" else None})
        note(m)

    def change(u, text):
        versions[u] += 1
        send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": u, "version": versions[u]}, "contentChanges": [{"text": text}]}})

    def diagnostics(uris):
        if lsp.get("diagnostics_pull"):
            # Asked for, as Scalpel asks: the errors of the text held now.
            for u in uris:
                request("textDocument/diagnostic", {"textDocument": {"uri": u}})
            return
        # Read until each of uris has diagnostics for its current version.
        while any(published.get(u) != versions[u] for u in uris):
            m = read()
            if os.environ.get("BENCH_TRACE"):
                print("   ", m.get("method"), m.get("params", {}).get("uri"), m.get("params", {}).get("version"), versions, file=sys.stderr)
            if "method" in m and "id" in m:
                send({"jsonrpc": "2.0", "id": m["id"], "result": [section(x.get("section")) for x in m["params"].get("items", [])] if m["method"] == "workspace/configuration" else None})
            note(m)

    times, checked = [], []
    for k in range(n + 2):
        t = time.perf_counter()
        assert request("textDocument/prepareRename", pos) is not None
        edit = request("textDocument/rename", dict(pos, newName=new))
        assert edit, "the server renamed nothing"
        renamed = time.perf_counter()
        # What Scalpel's check does: the renamed texts shown in memory, their
        # diagnostics awaited, the texts on disk shown again.
        edits = {}
        for e in edit.get("documentChanges", []):
            edits.setdefault(e["textDocument"]["uri"], []).extend(e["edits"])
        for u, es in edit.get("changes", {}).items():
            edits.setdefault(u, []).extend(es)
        diagnostics(list(edits))
        for u, es in edits.items():
            lines = texts[u].split("\n")
            for e in sorted(es, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]), reverse=True):
                s, f = e["range"]["start"], e["range"]["end"]
                assert s["line"] == f["line"]
                l = lines[s["line"]]
                lines[s["line"]] = l[: s["character"]] + e["newText"] + l[f["character"]:]
            change(u, "\n".join(lines))
        diagnostics(list(edits))
        for u in edits:
            change(u, texts[u])
        if k >= 2:
            times.append((renamed - t) * 1000)
            checked.append((time.perf_counter() - t) * 1000)
    p.kill()
    sites = sum(len(v) for v in edits.values())
    return times, checked, sites


def scalpel():
    # SCALPEL_BENCH_LOG=FILE: the server's log there, with the timing of
    # each phase of a rename through the language server (debug level).
    log = os.environ.get("SCALPEL_BENCH_LOG")
    # SCALPEL_BENCH_LOG_FILTER: another filter (add `scalpel::write=debug`
    # for the commit's phases).
    level = os.environ.get("SCALPEL_BENCH_LOG_FILTER", "warn,scalpel::lsp=debug")
    extra = ["--log-level", level] if log else []
    flags = ["--lsp", f"{lang}={' '.join(command)}"] if server else []
    p = subprocess.Popen([binary, *flags, "serve", "--root", root, *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(log, "w") if log else subprocess.DEVNULL)
    ids = iter(range(1, 10**6))

    def request(method, params):
        i = next(ids)
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode())
        p.stdin.flush()
        while True:
            m = json.loads(p.stdout.readline())
            if m.get("id") == i:
                return m

    request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    p.stdin.flush()
    # Each round: a dry run to a name not asked before (the server checks
    # the renamed texts), then its --apply (texts the dry run checked:
    # their errors are remembered), then undo_edit (not timed), so every
    # round starts from the same files.
    times, applied, answer = [], [], None
    for k in range(n + 2):
        name = f"{new}{k}"
        args = {"path": file, "symbol": symbol, "new_name": name}
        t = time.perf_counter()
        r = request("tools/call", {"name": "rename_symbol", "arguments": dict(args, dry_run=True)})
        dry = (time.perf_counter() - t) * 1000
        answer = r["result"]["structuredContent"]
        t = time.perf_counter()
        r = request("tools/call", {"name": "rename_symbol", "arguments": dict(args, dry_run=False)})
        wrote = (time.perf_counter() - t) * 1000
        done = r["result"]["structuredContent"]
        assert done.get("edit_id"), done
        u = request("tools/call", {"name": "undo_edit", "arguments": {"path": file}})
        assert not u["result"].get("isError"), u
        if k >= 2:
            times.append(dry)
            applied.append(wrote)
    p.stdin.close()
    p.wait()
    return times, applied, answer


# SCALPEL_BENCH_ONLY=1: Scalpel's side only (its log, SCALPEL_BENCH_LOG,
# has the server's own prepareRename + rename time of each call).
if os.environ.get("SCALPEL_BENCH_ONLY"):
    ours, applied, answer = scalpel()
    print(f"{symbol}: scalpel backend {answer.get('backend')}, renamed {answer.get('renamed')}, warnings {answer.get('warnings')}")
    print(f"scalpel rename_symbol (dry run, a new name): median {statistics.median(ours):.1f} ms (min {min(ours):.1f}) {[round(t) for t in ours]}")
    print(f"scalpel rename_symbol (its apply):           median {statistics.median(applied):.1f} ms (min {min(applied):.1f}) {[round(t) for t in applied]}")
    # With SCALPEL_BENCH_LOG and `scalpel::mcp=info` in the filter: each
    # apply's whole tool call next to the server's own prepareRename +
    # rename inside it (the same requests in the same state: for a server
    # without the own side above, typescript-language-server).
    log = os.environ.get("SCALPEL_BENCH_LOG")
    if log:
        import re
        rename, ratios = None, []
        for l in open(log):
            m = re.search(r"prepareRename and rename ms=([\d.]+)", l)
            if m:
                rename = float(m.group(1))
            m = re.search(r"committed ms=[\d.]+ dry_run=(\w+)", l)
            if m:
                apply_ = m.group(1) == "false"
            m = re.search(r"tool call tool=rename_symbol ok=true ms=([\d.]+)", l)
            if m and rename and apply_:
                ratios.append((float(m.group(1)), rename))
        ratios = ratios[2:]
        if ratios:
            print(f"each apply's tool call / the server's rename inside it: median {statistics.median(t / r for t, r in ratios):.2f}x "
                  f"(tool call median {statistics.median(t for t, _ in ratios):.1f} ms, rename median {statistics.median(r for _, r in ratios):.1f} ms; "
                  f"{[f'{t / r:.2f}' for t, r in ratios]})")
    sys.exit(0)
own, own_checked, sites = lsp_own()
ours, applied, answer = scalpel()
print(f"{symbol}: {sites} sites by the server; scalpel backend {answer.get('backend')}, renamed {answer.get('renamed')}, warnings {answer.get('warnings')}")
print(f"server's own prepareRename+rename: median {statistics.median(own):.1f} ms (min {min(own):.1f})")
print(f"server's own, then its diagnostics of the renamed texts: median {statistics.median(own_checked):.1f} ms (min {min(own_checked):.1f})")
print(f"scalpel rename_symbol (dry run, a new name): median {statistics.median(ours):.1f} ms (min {min(ours):.1f})")
print(f"scalpel rename_symbol (its apply, checked by the dry run): median {statistics.median(applied):.1f} ms (min {min(applied):.1f})")
print(f"ratios (medians) to the server's rename alone: dry run {statistics.median(ours) / statistics.median(own):.2f}x, apply {statistics.median(applied) / statistics.median(own):.2f}x; "
      f"dry run to rename + diagnostics: {statistics.median(ours) / statistics.median(own_checked):.2f}x")
