#!/usr/bin/env bash
# How many TypeScript namespaces/modules/`declare global` blocks and
# const/let/var functions (at module and namespace level) the outline finds
# in real code (zod and effect from npm), against the TypeScript compiler's
# own AST (pinned: zod 4.6.7, effect 4.1.0, typescript 5.9.3). Needs the
# network (npm) once and a built `scalpel`:
#   benches/ts_symbols.sh [path/to/scalpel]
# TS_SYMBOLS_MISSES=1 also prints every miss (kind, path:line, name, and
# whether a tree-sitter parse error covers it), to classify them.
set -euo pipefail
bin=$(realpath "${1:-target/debug/scalpel}")
work=${TS_SYMBOLS_DIR:-/tmp/scalpel-ts-symbols}
mkdir -p "$work"
[ -d "$work/node_modules/zod" ] || npm install --prefix "$work" --ignore-scripts --silent zod@4.6.7 effect@4.1.0 typescript@5.9.3 >/dev/null
cd "$work/node_modules"
find zod effect -name '*.ts' -path '*src*' | sort > "$work/files.txt"
cat > "$work/truth.cjs" <<'JS'
const ts = require(process.argv[2]);
const fs = require("fs");
for (const f of fs.readFileSync(0, "utf8").split("\n").filter(Boolean)) {
  const src = ts.createSourceFile(f, fs.readFileSync(f, "utf8"), ts.ScriptTarget.Latest, true);
  const ns = [], fns = [];
  const line = (n) => src.getLineAndCharacterOfPosition(n.getStart(src)).line + 1;
  const visit = (stmts) => {
    for (const s of stmts) {
      if (ts.isModuleDeclaration(s)) {
        let m = s;
        ns.push([m.name.getText(src), line(m.name)]);
        while (m.body && ts.isModuleDeclaration(m.body)) m = m.body;
        if (m.body && ts.isModuleBlock(m.body)) visit(m.body.statements);
      } else if (ts.isVariableStatement(s)) {
        for (const d of s.declarationList.declarations) {
          if (d.initializer && ts.isIdentifier(d.name) &&
              (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))) {
            fns.push([d.name.getText(src), line(d.name)]);
          }
        }
      }
    }
  };
  visit(src.statements);
  console.log(JSON.stringify({ path: f, ns, fns }));
}
JS
node "$work/truth.cjs" "$work/node_modules/typescript" < "$work/files.txt" > "$work/truth.jsonl"
# One listing per kind, so no file's outline reaches the outline's size cap.
: > "$work/ours.jsonl"
for kind in namespace module function method; do
  xargs "$bin" symbols --json --kind "$kind" --max-symbols 100000 --parse-timeout 300 \
    < "$work/files.txt" >> "$work/ours.jsonl"
done
python3 - "$work" "${TS_SYMBOLS_MISSES:-}" <<'PY'
import json, sys
work = sys.argv[1]
show_misses = bool(sys.argv[2])
truth = [json.loads(l) for l in open(f"{work}/truth.jsonl")]
ours = {}
truncated = set()
for l in open(f"{work}/ours.jsonl"):
    d = json.loads(l)
    if d.get("truncated"):
        truncated.add(d["path"])
    if d["path"] in ours:
        ours[d["path"]]["symbols"] += d.get("symbols", [])
    else:
        ours[d["path"]] = d
counts = {"ns": [0, 0], "fns": [0, 0]}
in_errors = {"ns": 0, "fns": 0}
for t in truth:
    d = ours.get(t["path"], {})
    syms = d.get("symbols", [])
    ns_lines = {s["name_line"] for s in syms if s["kind"] in ("namespace", "module")}
    fn_names = {(s["name"], s["name_line"]) for s in syms if s["kind"] in ("function", "method")}
    errors = [(e["line"], e["end_line"]) for e in d.get("parse_error_locations", [])]
    for key, found in (("ns", lambda n, l: l in ns_lines), ("fns", lambda n, l: (n, l) in fn_names)):
        for name, line in t[key]:
            counts[key][1] += 1
            if found(name, line):
                counts[key][0] += 1
            else:
                in_error = any(a <= line <= b for a, b in errors)
                in_errors[key] += in_error
                if show_misses:
                    mark = " (parse error)" if in_error else ""
                    print(f"miss {key} {t['path']}:{line} {name}{mark}")
files = len(truth)
for key, label in (("ns", "namespaces/modules/globals"), ("fns", "const/let/var functions")):
    f, t = counts[key]
    print(f"{label}: {f}/{t} found ({f / t:.1%}); {in_errors[key]} of the misses inside a tree-sitter parse error")
print(f"files: {files}; outlines cut by the size cap: {len(truncated)}")
PY
