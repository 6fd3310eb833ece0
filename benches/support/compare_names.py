"""Compare an oracle's names with Scalpel's outline (benches/lang_symbols.sh):
LABEL ORACLE SCALPEL_JSONL KIND,KIND,...

ORACLE lines are `path<TAB>name path`, or `path<TAB>!error` for a file the
language's own parser rejects; SCALPEL_JSONL is `scalpel symbols --json`.
Files rejected by the oracle or read with errors by tree-sitter are left
out; the rest are compared as sets of (file, name path) over KINDs."""
import json, sys

label, oracle_file, ours_file, kinds = sys.argv[1], sys.argv[2], sys.argv[3], set(sys.argv[4].split(","))
oracle, rejected = set(), set()
for line in open(oracle_file):
    path, name = line.rstrip("\n").split("\t")
    if name == "!error":
        rejected.add(path)
    else:
        oracle.add((path, name))
ours, with_errors = set(), set()
for line in open(ours_file):
    f = json.loads(line)
    if f.get("parse_errors"):
        with_errors.add(f["path"])
        continue
    for s in f["symbols"]:
        if s["kind"] in kinds:
            ours.add((f["path"], s["name_path"]))
skip = rejected | with_errors
oracle = {x for x in oracle if x[0] not in skip}
ours = {x for x in ours if x[0] not in skip}
hit = len(oracle & ours)
files = len({p for p, _ in oracle})
print(f"{label}: {files} files ({len(rejected)} rejected by its own parser, "
      f"{len(with_errors - rejected)} read with errors by tree-sitter, left out)")
print(f"{label}: {len(oracle)} symbols by its own parser, {len(ours)} by scalpel, {hit} in both: "
      f"recall {100*hit/max(1,len(oracle)):.2f} %, precision {100*hit/max(1,len(ours)):.2f} %")
for title, diff in (("missed", oracle - ours), ("extra", ours - oracle)):
    for x in sorted(diff)[:15]:
        print(f"  {title}: {x[0]} {x[1]}")
