#!/usr/bin/env bash
# Symbol recall and precision of Scalpel's Go outline against go/parser
# (benches/support/go_names.go) over a Go tree: by default the pinned Go
# standard library the tests provision (golang-1.19-src; run
# `cargo test --test trust go_shapes` once first). Compared as sets of
# (file, name path) over the kinds both list: functions, methods
# (`Type.Method`), types, struct fields and interface methods of named
# types, package-level consts and vars. Files go/parser rejects or
# tree-sitter reads with errors are left out (counted).
# Usage: bash benches/go_symbols.sh [DIR]   (needs go and python3)
#        SCALPEL=target/debug/scalpel bash benches/go_symbols.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="${1:-target/tmp/deb-golang-1.19-src/root/usr/share/go-1.19/src}"
# SCALPEL=path picks another build (the figures in BENCHMARKS.md are the
# same with a debug one: they are counts, not times).
if [ -z "${SCALPEL:-}" ]; then
  cargo build --release -q
  SCALPEL="$PWD/target/release/scalpel"
fi
S="$SCALPEL"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
find "$DIR" -name '*.go' | sort > "$W/files"
GOCACHE="$W/gocache" GOFLAGS=-mod=mod go run benches/support/go_names.go < "$W/files" > "$W/oracle"
xargs -a "$W/files" "$S" symbols --json > "$W/scalpel" 2> "$W/scalpel.err" || true
python3 - "$W/oracle" "$W/scalpel" <<'PY'
import json, sys
oracle, rejected = set(), set()
for line in open(sys.argv[1]):
    path, name = line.rstrip("\n").split("\t")
    if name == "!error":
        rejected.add(path)
    else:
        oracle.add((path, name))
ours, with_errors = set(), set()
kinds = {"function", "method", "type", "struct", "interface", "field", "constant", "variable"}
for line in open(sys.argv[2]):
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
print(f"go: {files} files ({len(rejected)} rejected by go/parser, {len(with_errors - rejected)} read with errors by tree-sitter, left out)")
print(f"go: {len(oracle)} symbols by go/parser, {len(ours)} by scalpel, {hit} in both: "
      f"recall {100*hit/max(1,len(oracle)):.2f} %, precision {100*hit/max(1,len(ours)):.2f} %")
for title, diff in (("missed", oracle - ours), ("extra", ours - oracle)):
    for x in sorted(diff)[:15]:
        print(f"  {title}: {x[0]} {x[1]}")
PY
