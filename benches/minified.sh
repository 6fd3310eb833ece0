#!/usr/bin/env bash
# `scalpel search` (search_files) against ripgrep on a tree that contains
# minified/generated files: single lines of several MB (issue 11's
# search_files part). Not a timed test; run by hand.
#
# The tree: the pinned npm release the test suite uses as its JavaScript
# corpus (1,250 files), zod's sources, and four one-line files made from
# TypeScript's own compiler (`typescript.js`, `tsc.js`, `tsserver.js`,
# `tsserverlibrary.js` with their newlines turned into spaces: 6 to 9 MB on
# one line each). Both tools run from the tree's folder (scalpel's root).
#
# Each query is run the same way by both tools (case-insensitive keywords,
# line numbers); the script first checks that both find the same hits
# (`rg --count-matches` summed against scalpel's `total_matches`) and the
# same files, then times both with hyperfine.
#
# Then the same comparison on normal code (Python's standard library),
# unless STDLIB=0.
#
# scalpel keeps the names each file it parsed defines in
# `.scalpel/index/definitions.bin` of the tree (the definition boost's
# memo), so hyperfine's warm-up run leaves the timed runs nothing to parse;
# COLD=1 deletes the file before every timed run (each run then parses the
# files that may define a keyword, as a first search of it does).
#
# Knobs: RUNS (hyperfine runs, default 10), STDLIB=0 (skip the stdlib), COLD=1,
# PREV (a previous `scalpel` binary, timed in the same hyperfine run),
# OUTPUT=pipe (read both tools' output through a pipe: with the default
# `null`, rg sees /dev/null and stops at each file's first match, so it
# does less work than scalpel, which counts every hit either way).
#
# Usage: benches/minified.sh [WORKDIR]   (default: a temp dir, kept for reruns)
# Needs: rg and hyperfine (apt-get install ripgrep hyperfine), a release
# build (`cargo build --release`), and the corpora the test suite installs
# under target/tmp (run `cargo test --test corpus --test trust` once).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
work=${1:-${TMPDIR:-/tmp}/scalpel-minified}
corpus=$work/tree
scalpel=${SCALPEL:-$target/release/scalpel}
js=$target/tmp/js-corpus/node_modules/npm
ts=$target/tmp/ts-corpus/node_modules

for tool in rg hyperfine; do
    command -v $tool >/dev/null || { echo "needs $tool (apt-get install ripgrep hyperfine)"; exit 1; }
done
[ -x "$scalpel" ] || { echo "needs $scalpel (cargo build --release)"; exit 1; }
[ -d "$js" ] && [ -d "$ts/typescript" ] || { echo "needs the test corpora under $target/tmp"; exit 1; }

if [ ! -f "$corpus/.built" ]; then
    rm -rf "$corpus"
    mkdir -p "$corpus/min"
    cp -r "$js" "$corpus/npm"
    cp -r "$ts/zod/src" "$corpus/zod"
    for f in typescript.js tsc.js tsserver.js tsserverlibrary.js; do
        [ -f "$ts/typescript/lib/$f" ] && tr '\n' ' ' < "$ts/typescript/lib/$f" > "$corpus/min/${f%.js}.min.js"
    done
    touch "$corpus/.built"
fi
cd "$corpus"
echo "tree: $corpus ($(find "$corpus" -type f | wc -l) files, $(du -sh "$corpus" | cut -f1))"
ls -l "$corpus/min" | awk 'NR>1 {printf "  %s: %.1f MB on one line\n", $9, $5/1048576}'

run() { # name, keywords...
    local name=$1; shift
    local rg_args=(-i -n) sc_args=()
    for k in "$@"; do rg_args+=(-e "$k"); sc_args+=("$k"); done
    echo
    echo "== $name: $*"
    local rg_hits rg_files sc
    rg_hits=$(rg -i --count-matches "${rg_args[@]:2}" . | awk -F: '{s+=$NF} END {print s+0}')
    rg_files=$(rg -i -l "${rg_args[@]:2}" . | wc -l)
    sc=$("$scalpel" search "${sc_args[@]}" --max-results 100000 --json \
        | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["total_matches"], r["files_matched"])')
    echo "hits/files: rg $rg_hits/$rg_files, scalpel ${sc% *}/${sc#* }"
    [ "$rg_hits $rg_files" = "$sc" ] || echo "WARNING: different matches"
    local cmds=("rg $(printf '%q ' "${rg_args[@]}") ."
        "$scalpel search $(printf '%q ' "${sc_args[@]}") --max-results 100000 --json")
    [ -n "${PREV:-}" ] && cmds+=("$PREV search $(printf '%q ' "${sc_args[@]}") --max-results 100000 --json")
    local prepare=()
    [ "${COLD:-0}" = 1 ] && prepare=(--prepare "rm -f .scalpel/index/definitions.bin")
    hyperfine -N --output "${OUTPUT:-null}" --warmup 1 --runs "${RUNS:-10}" "${prepare[@]}" \
        --export-json "$work/$name.json" "${cmds[@]}" >/dev/null
    python3 - "$work/$name.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(f"rg {r[0]['mean']*1000:.0f} ms (median {r[0]['median']*1000:.0f}), "
      f"scalpel {r[1]['mean']*1000:.0f} ms (median {r[1]['median']*1000:.0f}): "
      f"ratio {r[1]['mean'] / r[0]['mean']:.2f}x mean, {r[1]['median'] / r[0]['median']:.2f}x median")
if len(r) > 2:
    print(f"previous {r[2]['mean']*1000:.0f} ms (median {r[2]['median']*1000:.0f}): "
          f"ratio {r[2]['mean'] / r[0]['mean']:.2f}x mean, {r[2]['median'] / r[0]['median']:.2f}x median")
PY
}

run rare createSourceFile
run frequent function
run two-keywords tokenize scanner
run identifier-everywhere node

# Normal code, for comparison: Python's standard library (no minified
# files), copied once into the work dir so both tools walk the same tree.
stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
if [ -d "$stdlib" ] && [ "${STDLIB:-1}" = 1 ]; then
    if [ ! -f "$work/stdlib/.built" ]; then
        rm -rf "$work/stdlib"
        mkdir -p "$work/stdlib"
        (cd "$stdlib" && tar --exclude=site-packages --exclude=dist-packages --exclude=__pycache__ -cf - .) \
            | tar -xf - -C "$work/stdlib"
        touch "$work/stdlib/.built"
    fi
    cd "$work/stdlib"
    echo
    echo "normal code: $stdlib ($(find . -type f | wc -l) files, $(du -sh . | cut -f1))"
    run stdlib-rare getaddrinfo
    run stdlib-frequent self
    run stdlib-two-keywords tokenize untokenize
fi
