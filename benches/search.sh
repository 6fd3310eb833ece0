#!/usr/bin/env bash
# Benchmarks of the text engine (not a timed test; run by hand):
#  1. `scalpel search` against ripgrep on the same keywords over a tree of
#     >= 10,000 real source files (the Python standard library and the local
#     cargo registry's crate sources), with a .gitignore honoured by both;
#  2. `scalpel edit` (edit_file end to end: read, plan, validate, backup,
#     journal, atomic write) on a generated 10 MB Python file.
#
# Usage: benches/search.sh [WORKDIR]   (default: a temp dir; kept for reruns)
# Needs: hyperfine and rg (installed with apt-get when missing), a release
# build (`cargo build --release`, done here if the binary is missing).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-${TMPDIR:-/tmp}/scalpel-bench}
corpus=$work/corpus
scalpel=$repo/target/release/scalpel

if ! command -v rg >/dev/null || ! command -v hyperfine >/dev/null; then
    apt-get install -y ripgrep hyperfine >/dev/null
fi
[ -x "$scalpel" ] || (cd "$repo" && cargo build --release)

if [ ! -f "$corpus/.built" ]; then
    rm -rf "$corpus"
    mkdir -p "$corpus/python" "$corpus/crates"
    stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
    (cd "$stdlib" && find . -name '*.py' -type f -print0 | xargs -0 cp --parents -t "$corpus/python")
    (cd "$HOME/.cargo/registry/src" && find . -type f \( -name '*.rs' -o -name '*.toml' -o -name '*.md' -o -name '*.c' -o -name '*.h' -o -name '*.js' -o -name '*.ts' \) -print0 \
        | xargs -0 cp --parents -t "$corpus/crates")
    # A folder both tools must skip, and a git repo so that rg reads .gitignore.
    printf 'test/\n' > "$corpus/python/.gitignore"
    git -C "$corpus" init -q
    touch "$corpus/.built"
fi

files=$(cd "$corpus" && rg --files | wc -l)
all=$(find "$corpus" -type f -not -path '*/.git/*' | wc -l)
echo "corpus: $corpus ($all files, $files after .gitignore)"

run() { # name, rg args..., -- scalpel args...
    local name=$1; shift
    local rg_args=() sc_args=()
    while [ "$1" != "--" ]; do rg_args+=("$1"); shift; done; shift
    sc_args=("$@")
    echo
    echo "== $name"
    echo "rg: $(cd "$corpus" && rg -n "${rg_args[@]}" . | wc -l) matching lines; scalpel: $("$scalpel" search "${sc_args[@]}" --path "$corpus" --max-results 100000 --json | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["total_matches"], "matches in", r["files_matched"], "files")')"
    hyperfine --warmup 2 --runs "${RUNS:-10}" --export-json "$work/$name.json" \
        "rg -n $(printf '%q ' "${rg_args[@]}") $corpus" \
        "$scalpel search $(printf '%q ' "${sc_args[@]}") --path $corpus --max-results 100000 --json"
    python3 - "$work/$name.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(f"ratio scalpel/rg (mean wall time): {r[1]['mean'] / r[0]['mean']:.2f}x "
      f"({r[1]['mean']*1000:.0f} ms vs {r[0]['mean']*1000:.0f} ms)")
PY
}

# Case-insensitive keywords (scalpel's default), the same for both.
run rare -i -e deserialize_struct -e frozenset_repr -- deserialize_struct frozenset_repr
run common -i -e parse_args -e serialize -- parse_args serialize
run regex -i -e 'fn [a-z_]+_mut\(' -- --regex 'fn [a-z_]+_mut\('

# edit_file on a 10 MB Python file, end to end (the file is rewritten by
# each run; a single-line change moves back and forth between two states).
big=$work/edit/big.py
if [ ! -f "$big" ]; then
    mkdir -p "$work/edit"
    python3 - "$big" <<'PY'
import sys
out, i = [], 0
while sum(map(len, out)) < 10 * 1024 * 1024:
    out.append(f"def function_{i}(a, b):\n    total = a + b * {i}\n    return total\n\n\n")
    i += 1
out.append("MARKER = 0\n")
open(sys.argv[1], "w").write("".join(out))
PY
    git -C "$work/edit" init -q
fi
sed -i 's/^MARKER = 1$/MARKER = 0/' "$big"   # a run cut short may leave it at 1
echo
echo "== edit_file on $(du -h "$big" | cut -f1) ($(wc -l < "$big") lines)"
hyperfine --warmup 1 --runs "${RUNS:-10}" --export-json "$work/edit.json" \
    "$scalpel edit $big --old 'MARKER = 0' --new 'MARKER = 1' --root $work/edit && $scalpel edit $big --old 'MARKER = 1' --new 'MARKER = 0' --root $work/edit" \
    "$scalpel edit $big --old 'MARKER = 0' --new 'MARKER = 1' --root $work/edit --dry-run"
python3 - "$work/edit.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(f"edit_file 10 MB: {r[0]['mean']/2*1000:.0f} ms per edit (write path), "
      f"{r[1]['mean']*1000:.0f} ms dry run")
PY
