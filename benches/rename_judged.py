"""Judged renames (issue 27): `python3 benches/rename_judged.py ROOT EXTS N SEED [CHECKER...]`.

Rename N random functions/methods of the git work tree ROOT with the scalpel
CLI (`SCALPEL_BIN`, default target/debug/scalpel);
count proven-only (would apply), refused UNCERTAIN, refused otherwise; with
a CHECKER command (e.g. `cargo check --offline`, `npx tsc --noEmit --strict`),
apply each rename that succeeds and judge the tree with it, then reset the
tree with git. ROOT must be a git work tree whose baseline checks clean."""
import json, os, random, subprocess, sys
S = os.environ.get("SCALPEL_BIN", "target/debug/scalpel")
root, exts, n, seed, checker = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
rng = random.Random(seed)
files = []
for d, _, fs in os.walk(root):
    if "/." in d or "__tests__" in d or "/target" in d or "/tests" in d or "/benches" in d:
        continue
    for f in fs:
        if any(f.endswith("." + e) for e in exts) and not f.endswith(".d.ts"):
            files.append(os.path.join(d, f))
files.sort()
picked = []
while len(picked) < n:
    f = rng.choice(files)
    out = subprocess.run([S, "symbols", f, "--json"], capture_output=True, text=True)
    if out.returncode: continue
    syms = [s for s in json.loads(out.stdout)["symbols"] if s["kind"] in ("function", "method")]
    if not syms: continue
    s = rng.choice(syms)
    addr = s.get("address") or s["name_path"]
    if (f, addr) in [(p[0], p[1]) for p in picked]: continue
    picked.append((f, addr, s["name"]))
counts = {}
rows = []
def git(*a):
    subprocess.run(["git", "-C", root, *a], capture_output=True)
for f, addr, name in picked:
    new = name + ("Rn" if exts[0] == "ts" else "_rn")
    r = subprocess.run([S, "rename", f, addr, new, "--json", "--root", root], capture_output=True, text=True)
    if r.returncode == 0:
        v = json.loads(r.stdout)
        verdict = "proven-only"
        judge = ""
        if checker:
            a = subprocess.run([S, "rename", f, addr, new, "--apply", "--root", root], capture_output=True, text=True)
            c = subprocess.run(checker, cwd=root, capture_output=True, text=True)
            judge = "ok" if c.returncode == 0 else "WRONG"
            if judge == "WRONG":
                msg = (c.stdout + c.stderr).strip().splitlines()
                judge += ": " + " | ".join(l for l in msg if "error" in l)[:300]
            git("checkout", "-q", "--", "."); git("clean", "-fdq")
        rows.append((verdict, f, addr, v["renamed"], judge))
    else:
        try:
            e = json.loads(r.stdout)["error"]
            code = e["error_code"]
            extra = f'{e["details"].get("uncertain_count", "")} sites' if code == "UNCERTAIN" else e["message"][:120]
        except Exception:
            code, extra = "?", (r.stdout + r.stderr)[:200]
        verdict = code
        rows.append((verdict, f, addr, extra, ""))
    counts[verdict] = counts.get(verdict, 0) + 1
for row in rows:
    print("\t".join(str(x) for x in row).replace(root + "/", ""))
print("COUNTS", json.dumps(counts))
if checker:
    print("JUDGED", json.dumps({k: sum(1 for r in rows if r[4].startswith(k)) for k in ("ok", "WRONG")}))
