#!/usr/bin/env bash
# A warm `scalpel find` (the CLI: a fresh process that loads the saved
# index, checks every file's size and mtime, and answers) on a repository of
# about 5,000 files, next to ripgrep on the same words and, when PREV names
# one, a previous release binary: all in the same hyperfine run (issue 31).
# Not a timed test; run by hand.
#
# The repository: Go 1.19's standard library without `cmd/` (4,981 files,
# 72 MB), from the Debian package the test suite unpacks under
# target/tmp/deb-golang-1.19-src (run `cargo test --test languages` once).
# The index is built once (`scalpel index`), then each query is timed.
#
# Knobs: RUNS (default 20), PREV (a previous `scalpel` binary, e.g. one
# built from main: it answers on a copy of the tree, with its own store,
# since its store format may be another), MODEL (a Model2Vec folder: the index and the queries
# then use it; default: keyword search, as a user without a model gets).
#
# Usage: benches/find_warm.sh [WORKDIR]   (default: a temp dir, kept)
# Needs: rg and hyperfine (apt-get install ripgrep hyperfine), a release
# build (`cargo build --release`).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
work=${1:-${TMPDIR:-/tmp}/scalpel-find-warm}
scalpel=${SCALPEL:-$target/release/scalpel}
go=$target/tmp/deb-golang-1.19-src/root/usr/share/go-1.19/src
model=${MODEL:-off}

for tool in rg hyperfine; do
    command -v $tool >/dev/null || { echo "needs $tool (apt-get install ripgrep hyperfine)"; exit 1; }
done
[ -x "$scalpel" ] || { echo "needs $scalpel (cargo build --release)"; exit 1; }
[ -d "$go" ] || { echo "needs $go (cargo test --test languages unpacks it)"; exit 1; }

tree=$work/go
if [ ! -f "$work/.built" ]; then
    rm -rf "$tree"
    mkdir -p "$tree"
    (cd "$go" && tar --exclude=./cmd -cf - .) | tar -xf - -C "$tree"
    # A git repository, as a user's is: the index checks that git does not
    # track its store (one `git ls-files` per call), and rg reads .gitignore.
    git -C "$tree" init -q
    git -C "$tree" add -A
    git -C "$tree" -c user.name=bench -c user.email=bench@localhost commit -qm tree
    touch "$work/.built"
fi
cd "$tree"
export SCALPEL_MODEL=$model
echo "tree: $tree ($(git ls-files | wc -l) files, model: $model)"
# Rebuilt, so that the store holds vectors exactly when MODEL names a model.
"$scalpel" index --rebuild --root . | head -1
# The previous binary gets a copy of the tree and its own store (another
# store format would be rebuilt by each binary in turn): warm both, so that
# neither pays a rebuild inside the timing.
prev_tree=$work/go-prev-${model//\//_}
if [ -n "${PREV:-}" ]; then
    rm -rf "$prev_tree"
    cp -a "$tree" "$prev_tree"
    rm -rf "$prev_tree/.scalpel"
    "$PREV" index --root "$prev_tree" >/dev/null
fi

run() { # name, query words...
    local name=$1; shift
    local rg_args=(-i) w
    for w in "$@"; do rg_args+=(-e "$w"); done
    local cmds=("rg $(printf '%q ' "${rg_args[@]}") ." "$scalpel find $(printf '%q ' "$@") --root .")
    [ -n "${PREV:-}" ] && cmds+=("$PREV find $(printf '%q ' "$@") --root $prev_tree")
    echo
    echo "== $name: $*"
    hyperfine -N --warmup 2 --runs "${RUNS:-20}" --export-json "$work/$name.json" "${cmds[@]}" >/dev/null
    python3 - "$work/$name.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
names = ["rg", "scalpel find", "previous find"]
for n, x in zip(names, r):
    print(f"{n}: p50 {x['median']*1000:.0f} ms (mean {x['mean']*1000:.0f}, "
          f"user {x['user']*1000:.0f} + sys {x['system']*1000:.0f} ms)")
PY
}

run identifier ParseDuration
run prose parse a time duration string
run two-words gzip reader
run architecture how does the http server handle keep alive connections
