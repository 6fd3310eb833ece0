"""Judged renames on one half of a corpus (issue 27):
`python3 benches/rename_halves.py ROOT EXTS HALF [SCALPEL_FLAGS...] -- CHECKER...`

SCALPEL_FLAGS go before each `rename` (e.g. `--lsp
rust=/work/ra/root/bin/rust-analyzer --lsp-timeout 120`, or `--no-lsp`).

Every function and method of ROOT's files ending in EXTS (comma-separated),
in file order then outline order, numbered from 0; HALF is `even` (the half
the rules are tuned on), `odd` (the held-out half, reported) or `all`.
Each is renamed with the scalpel CLI (`SCALPEL_BIN`, default
target/debug/scalpel) to NAME_rn (NAMERn for ts and go, the languages'
own style; SCALPEL_BENCH_SUFFIX sets it) with `--apply` (one call:
a refusal must leave every file as it was); a rename that succeeds is
judged by CHECKER against its own baseline: the
checker's error lines (with `--pyright`: pyright's JSON error diagnostics,
keyed by file, line, rule and message, the new name read as the old) that
were not there before make it WRONG. Every file is restored after each.
Prints one row per rename (as it goes, then all again), the refusals'
reasons grouped, and the counts, with which backend answered each (and
how often a language server failed and the syntax backend answered).
"""
import collections, json, os, re, statistics, subprocess, sys, time

S = os.environ.get("SCALPEL_BIN", "target/debug/scalpel")
args = sys.argv[1:]
root, exts, half = os.path.abspath(args[0]), args[1].split(","), args[2]
checker = args[args.index("--") + 1:] if "--" in args else []
flags = args[3:args.index("--")] if "--" in args else args[3:]
pyright = bool(checker) and checker[0] == "--pyright"
if pyright:
    checker = checker[1:]

files = []
for d, dirs, fs in os.walk(root):
    dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x not in ("node_modules", "target", "__pycache__"))
    for f in sorted(fs):
        if any(f.endswith("." + e) for e in exts) and not f.endswith(".d.ts"):
            files.append(os.path.join(d, f))
originals = {f: open(f, "rb").read() for f in files}


def restore():
    for f, b in originals.items():
        if open(f, "rb").read() != b:
            open(f, "wb").write(b)


def errors(old="", new=""):
    c = subprocess.run(checker, cwd=root, capture_output=True, text=True)
    out = collections.Counter()
    if pyright:
        for d in json.loads(c.stdout)["generalDiagnostics"]:
            if d["severity"] == "error":
                msg = d["message"].replace(new, old) if new else d["message"]
                out[(os.path.relpath(d["file"], root), d["range"]["start"]["line"], d.get("rule", ""), msg)] += 1
    else:
        for line in (c.stdout + c.stderr).splitlines():
            if "error" in line:
                line = re.sub(r":\d+:\d+", ":", line)
                out[line.replace(new, old) if new else line] += 1
    return out


targets = []
for f in files:
    out = subprocess.run([S, "symbols", f, "--json"], capture_output=True, text=True)
    if out.returncode:
        continue
    for s in json.loads(out.stdout)["symbols"]:
        if s["kind"] in ("function", "method"):
            targets.append((f, s.get("address") or s["name_path"], s["name"]))
picked = [t for i, t in enumerate(targets) if half == "all" or (i % 2 == 0) == (half == "even")]
# SCALPEL_BENCH_EVERY=N: every Nth of the half (a stride sample, when each
# rename costs a language server's start and two checks of the project).
picked = picked[:: int(os.environ.get("SCALPEL_BENCH_EVERY", "1"))]
base = errors() if checker else None
rows, reasons, times = [], collections.Counter(), []
counts = collections.Counter()
for f, addr, name in picked:
    new = name + os.environ.get(
        "SCALPEL_BENCH_SUFFIX", "Rn" if exts[0] in ("ts", "tsx", "js", "go") else "_rn"
    )
    # One call with --apply: a refusal writes nothing (checked), an answer
    # is what was written; a dry run first would start a second server and
    # could get another verdict from it (a server's check timing out).
    t0 = time.time()
    r = subprocess.run([S, *flags, "rename", f, addr, new, "--apply", "--json", "--root", root], capture_output=True, text=True)
    took = time.time() - t0
    times.append(took)
    rel = os.path.relpath(f, root)
    try:
        answer = json.loads(r.stdout)
    except Exception:
        answer = {"error": {"error_code": "?", "message": (r.stdout + r.stderr)[:200], "details": {}}}
    e = answer.get("error") if r.returncode != 0 else None
    backend = answer.get("backend") or (e or {}).get("details", {}).get("backend") or "syntax"
    note = (e or {}).get("details", {}).get("lsp_note") or next((w for w in answer.get("warnings", []) if "language server" in w), None)
    counts["backend " + backend + (" (after a server failure)" if note else "")] += 1
    if note:
        reasons["lsp note: " + re.sub(r"`[^`]*`", "`_`", note)[:100]] += 1
    if r.returncode != 0:
        assert all(open(x, "rb").read() == b for x, b in originals.items()), f"refused {addr} but wrote"
        e = e or {"error_code": "?", "message": (r.stdout + r.stderr)[:200], "details": {}}
        code = e["error_code"]
        counts["refused " + code] += 1
        whys = sorted({re.sub(r"`[^`]*`", "`_`", s["why"]) for s in e["details"].get("uncertain", [])})
        for w in whys:
            reasons[w] += 1
        if code != "UNCERTAIN":
            reasons[code + ": " + re.sub(r"`[^`]*`", "`_`", e["message"])[:100]] += 1
        rows.append(f"refused {code}\t{took:.1f}s\t{rel}\t{addr}\t" + (" | ".join(f'{s["path"]}:{s["line"]} {s["why"]}' for s in (e["details"].get("uncertain") or e["details"].get("sites") or [])[:3]) or e["message"][:150]))
        print(rows[-1], flush=True)
        continue
    if not checker:
        counts["applied"] += 1
        rows.append(f"applied\t{rel}\t{addr}")
        restore()
        continue
    after = errors(name, new)
    extra = after - base
    restore()
    if extra:
        counts["WRONG"] += 1
        rows.append(f"WRONG\t{took:.1f}s\t{rel}\t{addr}\t{backend}\t{list(extra)[:2]}")
    else:
        counts["ok"] += 1
        rows.append(f"ok\t{took:.1f}s\t{rel}\t{addr}\t{backend}")
    print(rows[-1], flush=True)
print("---- all rows")
for r in rows:
    print(r)
print("REASONS (renames refused for each)")
for w, n in reasons.most_common():
    print(f"{n:4d}  {w}")
if times:
    q = statistics.quantiles(times, n=10) if len(times) > 1 else times * 9
    print(f"RENAME CALL SECONDS median {statistics.median(times):.2f} p90 {q[-1]:.2f} max {max(times):.2f} total {sum(times):.1f}")
print("HALF", half, "TARGETS", len(targets), "PICKED", len(picked), "COUNTS", json.dumps(dict(counts)))
