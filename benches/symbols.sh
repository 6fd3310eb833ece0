#!/usr/bin/env bash
# Benchmarks for the symbol engine and symbol writes (issues 2 and 3).
# Usage: bash benches/symbols.sh   (builds the release binary, needs python3;
# installs hyperfine from Debian if missing). Prints figures for BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { apt-get update -qq && apt-get install -y -qq hyperfine; }
cargo build --release -q
S="$PWD/target/release/scalpel"
STDLIB=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# A typical ~2,000-line file: the stdlib module closest to 2,000 lines.
F2K=$(find "$STDLIB" -maxdepth 1 -name '*.py' -exec wc -l {} + | grep -v total | awk '{d=$1-2000; if(d<0)d=-d; print d, $2}' | sort -n | awk 'NR==1 {print $2}')
cp "$F2K" "$W/typical.py"
SYM2K=$("$S" symbols --json "$W/typical.py" | python3 -c 'import json,sys; s=[x for x in json.load(sys.stdin)["symbols"] if x["kind"]=="method"]; print(s[len(s)//2].get("address") or s[len(s)//2]["name_path"])')
echo "typical file: $F2K ($(wc -l < "$W/typical.py") lines), symbol $SYM2K"

# Big files: stdlib modules concatenated, then a unique function appended.
make_big() { # size_bytes out
  : > "$2"
  for f in $(find "$STDLIB" -name '*.py' -not -path '*/site-packages/*' -not -path '*/test/*' | sort); do
    cat "$f" >> "$2"; printf '\n' >> "$2"
    [ "$(stat -c %s "$2")" -ge "$1" ] && break
  done
  printf '\n\ndef bench_target(x):\n    return x + 1\n' >> "$2"
}
make_big 1000000 "$W/one_mb.py"
make_big 5000000 "$W/five_mb.py"
make_big 10000000 "$W/ten_mb.py"
ls -la "$W"/*.py

echo; echo "== extract as a whole process =="
hyperfine -N --warmup 5 --runs 50 --export-markdown "$W/extract.md" \
  "$S extract $W/typical.py $SYM2K" \
  "$S extract $W/five_mb.py bench_target" 2>&1 | grep -E 'Time|Range|±' || true
cat "$W/extract.md"

echo; echo "== symbols over the stdlib directory =="
NFILES=$(find "$STDLIB" -name '*.py' -not -path '*/site-packages/*' | wc -l)
mkdir -p "$W/stdlib" && (cd "$STDLIB" && find . -name '*.py' -not -path './site-packages/*' -print0 | tar -cf - --null -T -) | tar -xf - -C "$W/stdlib"
hyperfine --warmup 1 --runs 5 --export-markdown "$W/symbols.md" "$S symbols $W/stdlib > /dev/null" 2>&1 | grep -E 'Time|Range' || true
cat "$W/symbols.md"
echo "files: $NFILES"

echo; echo "== update of one function vs parse + copy =="
for f in one_mb ten_mb; do
  cp "$W/$f.py" "$W/$f.orig"
  printf 'def bench_target(x):\n    return x + 2\n' > "$W/new_code.py"
  hyperfine -N --warmup 2 --runs 15 --export-markdown "$W/update_$f.md" \
    --prepare "sh -c 'cp $W/$f.orig $W/$f.py; rm -rf $W/.scalpel'" \
    "$S update $W/$f.py bench_target --root $W --code-file $W/new_code.py --allow-syntax-errors" \
    -i "$S parse --language python $W/$f.orig" \
    "cp $W/$f.orig $W/$f.copy" 2>&1 | grep -E 'Time|Range' || true
  cat "$W/update_$f.md"
done

echo; echo "== edit_file (scalpel edit) of one function vs update vs parse + copy =="
# The same change as the update above, sent as a text edit: the old file is
# parsed once, the new one reparsed incrementally from that tree.
f=ten_mb
hyperfine -N --warmup 2 --runs 10 --export-markdown "$W/edit_$f.md" \
  --prepare "sh -c 'cp $W/$f.orig $W/$f.py; rm -rf $W/.scalpel'" \
  "$S edit $W/$f.py --root $W --old 'def bench_target(x):
    return x + 1' --new 'def bench_target(x):
    return x + 2' --allow-syntax-errors" \
  "$S update $W/$f.py bench_target --root $W --code-file $W/new_code.py --allow-syntax-errors" \
  -i "$S parse --language python $W/$f.orig" 2>&1 | grep -E 'Time|Range' || true
cat "$W/edit_$f.md"
