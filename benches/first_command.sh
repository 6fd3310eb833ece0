#!/usr/bin/env bash
# The first command a process runs on a file of each language, end to end:
# `scalpel extract FILE SYMBOL` on one fixture per language, from spawn to
# exit. That pays for the process, loading the languages, compiling the
# language's tags query (tree-sitter analyses every pattern against the
# grammar's parse table when it compiles one: C++'s took 2.2 s), the parse
# and the outline. Not a timed test; run by hand.
#
# Knobs: RUNS (hyperfine runs, default 10), PREV (a previous `scalpel`
# binary, timed in the same hyperfine run), LANGS (default: every fixture
# folder).
#
# Usage: benches/first_command.sh [WORKDIR]   (default: a temp dir)
# Needs: hyperfine (apt-get install hyperfine) and a release build
# (`cargo build --release`).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
scalpel=${SCALPEL:-$target/release/scalpel}
work=${1:-$(mktemp -d)}
mkdir -p "$work"
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)"; exit 1; }
[ -x "$scalpel" ] || { echo "needs $scalpel (cargo build --release)"; exit 1; }
cd "$repo"

langs=${LANGS:-$(ls fixtures | grep -v '^model$')}
printf '%-11s %-34s %10s %10s\n' language file "this" "previous"
for lang in $langs; do
    # The first file of the folder with a symbol, and its first symbol.
    file='' sym=''
    for f in fixtures/"$lang"/*; do
        sym=$("$scalpel" symbols "$f" --json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    s = json.loads(line).get("symbols") or []
    if s:
        print(s[0]["name_path"]); break' || true)
        if [ -n "$sym" ]; then file=$f; break; fi
    done
    [ -n "$file" ] || continue
    q=$(printf '%q' "$sym")
    cmds=("$scalpel extract $file $q")
    [ -n "${PREV:-}" ] && cmds+=("$PREV extract $file $q")
    hyperfine -N --warmup 2 --runs "${RUNS:-10}" --export-json "$work/$lang.json" "${cmds[@]}" >/dev/null
    python3 - "$work/$lang.json" "$lang" "$file" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
prev = f"{r[1]['median'] * 1000:8.1f} ms" if len(r) > 1 else ""
print(f"{sys.argv[2]:<11} {sys.argv[3]:<34} {r[0]['median'] * 1000:7.1f} ms {prev:>10}")
PY
done
