"""A language server that misbehaves, for tests/lsp.rs: started as
`python3 fake_lsp.py MODE`.

hang     reads requests and never answers
crash    exits with status 3 on the first request
garbage  answers the first request with bytes that are not LSP
stale    a well-behaved server whose rename edits replace the wrong text
         (its view of the file is not the file on disk)
late     says `experimental/serverStatus` quiescent false after
         `initialized`, true 300 ms later, and answers `textDocument/references`
         with `[]` (only while it has said it is ready)
unready  says quiescent false after `initialized`, never true
cold     a server still loading its project: its first rename renames only
         the name under the cursor, later ones every whole word of that name
         in the open documents; it publishes, for each version, an error at
         each call of a name no open document defines with `def`
"""
import re
import threading
import json
import sys

mode = sys.argv[1]
inp = sys.stdin.buffer
out = sys.stdout.buffer


def read():
    length = None
    while True:
        line = inp.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        key, _, value = line.partition(b":")
        if key.lower() == b"content-length":
            length = int(value)
    return json.loads(inp.read(length))


lock = threading.Lock()


def send(msg):
    body = json.dumps(msg).encode()
    with lock:
        out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        out.flush()


ready = False


def status(quiescent):
    global ready
    ready = quiescent
    send({"jsonrpc": "2.0", "method": "experimental/serverStatus",
          "params": {"health": "ok", "quiescent": quiescent}})


docs = {}
renames = 0


def publish_all():
    """The `cold` mode's check of every open document."""
    defined = set()
    for _, text in docs.values():
        defined.update(re.findall(r"^\s*def (\w+)", text, re.M))
    for uri, (version, text) in docs.items():
        diagnostics = []
        for row, line in enumerate(text.split("\n")):
            if line.lstrip().startswith(("def ", "from ", "import ")):
                continue
            for m in re.finditer(r"\b(\w+)\(", line):
                if m.group(1) not in defined:
                    diagnostics.append({
                        "range": {"start": {"line": row, "character": m.start(1)},
                                  "end": {"line": row, "character": m.end(1)}},
                        "severity": 1,
                        "message": '"%s" is not defined' % m.group(1)})
        send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
              "params": {"uri": uri, "version": version, "diagnostics": diagnostics}})


def cold_rename(params):
    """The `cold` mode's rename: see the module text."""
    global renames
    renames += 1
    uri = params["textDocument"]["uri"]
    pos = params["position"]
    line = docs[uri][1].split("\n")[pos["line"]]
    word = next(m for m in re.finditer(r"\w+", line)
                if m.start() <= pos["character"] <= m.end())
    edit = lambda row, m: {"range": {"start": {"line": row, "character": m.start()},
                                     "end": {"line": row, "character": m.end()}},
                           "newText": params["newName"]}
    if renames == 1:
        return {"changes": {uri: [edit(pos["line"], word)]}}
    changes = {}
    for u, (_, text) in docs.items():
        for row, l in enumerate(text.split("\n")):
            for m in re.finditer(r"\b%s\b" % re.escape(word.group()), l):
                changes.setdefault(u, []).append(edit(row, m))
    return {"changes": changes}


while True:
    msg = read()
    if mode == "cold" and msg.get("method") in ("textDocument/didOpen", "textDocument/didChange"):
        p = msg["params"]
        doc = p["textDocument"]
        text = doc["text"] if "text" in doc else p["contentChanges"][-1]["text"]
        docs[doc["uri"]] = (doc["version"], text)
        publish_all()
    if msg.get("method") == "initialized" and mode in ("late", "unready"):
        status(False)
        if mode == "late":
            # From another thread: a request read meanwhile sees it unready.
            threading.Timer(0.3, status, [True]).start()
    if "id" not in msg:
        continue
    if mode == "hang":
        continue
    if mode == "crash":
        sys.stderr.write("fake_lsp: crashing on purpose\n")
        sys.exit(3)
    if mode == "garbage":
        out.write(b"this is not a language server\r\n\r\n{}")
        out.flush()
        continue
    method = msg["method"]
    if method == "initialize":
        result = {"capabilities": {"renameProvider": True, "referencesProvider": True},
                  "serverInfo": {"name": "fake", "version": "0.1"}}
    elif method == "textDocument/rename" and mode == "cold":
        result = cold_rename(msg["params"])
    elif method == "textDocument/rename":
        doc = msg["params"]["textDocument"]["uri"]
        # Line 1, columns 0-3: `cla` of `class`, not the name.
        edit = {"range": {"start": {"line": 0, "character": 0},
                          "end": {"line": 0, "character": 3}},
                "newText": msg["params"]["newName"]}
        result = {"changes": {doc: [edit]}}
    elif method == "textDocument/references" and mode == "late":
        result = [] if ready else {"not": "ready"}
    else:
        result = None
    send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
