#!/usr/bin/env python3
"""search_files through a running `scalpel serve` against rg, per call.

The server compiles each language's tags query once and remembers the
names each parsed file defines (by content), so what a call costs is the
walk, the search and the definition boost's parses of files it has not
met; the first call of each query is printed apart. Timing starts
after the server's first indexing of the root is done. Same queries and
trees as benches/minified.sh (run that first: it builds WORKDIR). Each
query: one warm-up call, then RUNS calls timed from the request's write to
the answer's read; rg is run as many times with its output read through a
pipe. Medians in ms. The server also reads the memo earlier processes
kept in the tree (`.scalpel/index/definitions.bin`, written by the CLI
runs of benches/minified.sh too): COLD=1 deletes it before each server
starts, so first calls parse as in a tree never searched. Not a test;
run by hand:

    python3 benches/minified_mcp.py SCALPEL_BIN [WORKDIR]
"""
import json, os, statistics, subprocess, sys, time

scalpel = sys.argv[1]
work = sys.argv[2] if len(sys.argv) > 2 else "/tmp/scalpel-minified"
runs = int(os.environ.get("RUNS", "10"))
queries = [
    ("tree", ["createSourceFile"]), ("tree", ["function"]),
    ("tree", ["tokenize", "scanner"]), ("tree", ["node"]),
    ("stdlib", ["getaddrinfo"]), ("stdlib", ["self"]),
    ("stdlib", ["tokenize", "untokenize"]),
]


class Server:
    def __init__(self, root):
        self.p = subprocess.Popen([scalpel, "serve", "--root", root, "--model", "off"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        self.id = 0
        self.call("initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                 "clientInfo": {"name": "bench", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        # The server indexes the root in the background from its start; a
        # search_codebase call waits for that first indexing, so that the
        # timed calls (and rg) do not share the cores with it.
        self.call("tools/call", {"name": "search_codebase", "arguments": {"query": "warm up"}})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def call(self, method, params):
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        while True:
            msg = json.loads(self.p.stdout.readline())
            if msg.get("id") == self.id:
                return msg

    def close(self):
        self.p.stdin.close()
        self.p.wait()


for tree in ("tree", "stdlib"):
    root = os.path.join(work, tree)
    if os.environ.get("COLD") == "1":
        try:
            os.remove(os.path.join(root, ".scalpel", "index", "definitions.bin"))
        except FileNotFoundError:
            pass
    server = Server(root)
    for t, words in queries:
        if t != tree:
            continue
        args = {"name": "search_files",
                "arguments": {"keywords": words, "max_results": 100000}}
        # The first call of a query: the files it parses are new to the
        # server's memo of definitions (the timed calls meet them again).
        start = time.perf_counter()
        server.call("tools/call", args)
        first = (time.perf_counter() - start) * 1000
        ours = []
        for _ in range(runs):
            start = time.perf_counter()
            server.call("tools/call", args)
            ours.append(time.perf_counter() - start)
        rg_cmd = ["rg", "-i", "-n"] + [a for w in words for a in ("-e", w)] + ["."]
        theirs = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(rg_cmd, cwd=root, stdout=subprocess.PIPE, check=False)
            theirs.append(time.perf_counter() - start)
        a, b = statistics.median(ours) * 1000, statistics.median(theirs) * 1000
        print(f"{tree} {' '.join(words)}: scalpel serve {a:.0f} ms (first call {first:.0f} ms), "
              f"rg {b:.0f} ms, ratio {a / b:.2f}x (first {first / b:.2f}x)")
    server.close()
