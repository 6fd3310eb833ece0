"""Rename through a warm language server (#27): Scalpel's `rename_symbol`
(dry run, over MCP to one `scalpel serve`) against the server's own
`prepareRename` + `rename` (asked directly over LSP, the same server
program, also warm). Median of N after 2 warm-up calls each.

    PATH=<node_modules/.bin with pyright-langserver>:$PATH \\
    python3 benches/lsp_rename.py BINARY ROOT FILE SYMBOL LINE COLUMN [N]

LINE and COLUMN (1-based, in characters) are where SYMBOL's name stands in
FILE (relative to ROOT); the server program is pyright-langserver.
With SCALPEL_BENCH_LOG=FILE, Scalpel's log goes to FILE with each
phase's time. Scalpel's figure includes everything it does: the text search for files
naming the symbol, loading and syncing them, prepareRename and rename,
turning the edit into validated changes, and the check of the new texts
in memory (the server's diagnostics before and after).
"""
import json, os, statistics, subprocess, sys, time

binary, root, file, symbol = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3], sys.argv[4]
line, column = int(sys.argv[5]), int(sys.argv[6])
n = int(sys.argv[7]) if len(sys.argv) > 7 else 10
new = symbol.split(".")[-1] + "_renamed"


def lsp_own():
    p = subprocess.Popen(["pyright-langserver", "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=root)
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
                send({"jsonrpc": "2.0", "id": m["id"], "result": [None] * len(m["params"].get("items", [])) if m["method"] == "workspace/configuration" else None})
            elif m.get("id") == i and "method" not in m:
                return m.get("result")

    uri = "file://" + root
    # The same initialize as Scalpel's (src/lsp/client.rs).
    request("initialize", {"processId": os.getpid(), "rootUri": uri, "rootPath": root,
                           "workspaceFolders": [{"uri": uri, "name": os.path.basename(root)}],
                           "capabilities": {"workspace": {"workspaceEdit": {"documentChanges": True}, "configuration": True},
                                            "textDocument": {"rename": {"prepareSupport": True}, "publishDiagnostics": {"versionSupport": True}}}})
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    doc = uri + "/" + file
    # The files naming the symbol opened, as Scalpel opens them.
    name = symbol.split(".")[-1]
    texts, versions = {}, {}
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(".py") and name in open(os.path.join(d, f)).read():
                u = "file://" + os.path.join(d, f)
                texts[u], versions[u] = open(os.path.join(d, f)).read(), 1
                send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": u, "languageId": "python", "version": 1, "text": texts[u]}}})
    pos = {"textDocument": {"uri": doc}, "position": {"line": line - 1, "character": column - 1}}
    published = {}

    def change(u, text):
        versions[u] += 1
        send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": u, "version": versions[u]}, "contentChanges": [{"text": text}]}})

    def diagnostics(uris):
        # Read until each of uris has diagnostics for its current version.
        while any(published.get(u) != versions[u] for u in uris):
            m = read()
            if os.environ.get("BENCH_TRACE"):
                print("   ", m.get("method"), m.get("params", {}).get("uri"), m.get("params", {}).get("version"), versions, file=sys.stderr)
            if m.get("method") == "textDocument/publishDiagnostics":
                published[m["params"]["uri"]] = m["params"].get("version")
            elif "method" in m and "id" in m:
                send({"jsonrpc": "2.0", "id": m["id"], "result": [None] * len(m["params"].get("items", [])) if m["method"] == "workspace/configuration" else None})

    times, checked = [], []
    for k in range(n + 2):
        t = time.perf_counter()
        assert request("textDocument/prepareRename", pos) is not None
        edit = request("textDocument/rename", dict(pos, newName=new))
        assert edit, "pyright renamed nothing"
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
    extra = ["--log-level", "warn,scalpel::lsp=debug"] if log else []
    p = subprocess.Popen([binary, "serve", "--root", root, *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(log, "w") if log else subprocess.DEVNULL)
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
    times, answer = [], None
    for k in range(n + 2):
        t = time.perf_counter()
        r = request("tools/call", {"name": "rename_symbol", "arguments": {"path": file, "symbol": symbol, "new_name": new, "dry_run": True}})
        if k >= 2:
            times.append((time.perf_counter() - t) * 1000)
        answer = r["result"]["structuredContent"]
    p.stdin.close()
    p.wait()
    return times, answer


# SCALPEL_BENCH_ONLY=1: Scalpel's side only (its log, SCALPEL_BENCH_LOG,
# has the server's own prepareRename + rename time of each call).
if os.environ.get("SCALPEL_BENCH_ONLY"):
    ours, answer = scalpel()
    print(f"{symbol}: scalpel backend {answer.get('backend')}, renamed {answer.get('renamed')}, warnings {answer.get('warnings')}")
    print(f"scalpel rename_symbol (dry run): median {statistics.median(ours):.1f} ms (min {min(ours):.1f}) {[round(t) for t in ours]}")
    sys.exit(0)
own, own_checked, sites = lsp_own()
ours, answer = scalpel()
print(f"{symbol}: {sites} sites by the server; scalpel backend {answer.get('backend')}, renamed {answer.get('renamed')}, warnings {answer.get('warnings')}")
print(f"server's own prepareRename+rename: median {statistics.median(own):.1f} ms (min {min(own):.1f})")
print(f"scalpel rename_symbol (dry run):   median {statistics.median(ours):.1f} ms (min {min(ours):.1f})")
print(f"server's own, then its diagnostics of the renamed texts: median {statistics.median(own_checked):.1f} ms (min {min(own_checked):.1f})")
print(f"ratio (medians) to the rename alone: {statistics.median(ours) / statistics.median(own):.2f}x; to rename + diagnostics: {statistics.median(ours) / statistics.median(own_checked):.2f}x")
