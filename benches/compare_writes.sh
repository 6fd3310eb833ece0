#!/usr/bin/env bash
# The update and edit sections of benches/symbols.sh for several release
# binaries side by side in one hyperfine run (so they share the machine's
# load): `bash benches/compare_writes.sh BIN1 BIN2 ...`. The file is the
# standard library concatenated to 10 MB with `bench_target` at its end;
# prints wall and CPU (user + sys) time per binary and command.
set -euo pipefail
command -v hyperfine >/dev/null || { apt-get update -qq && apt-get install -y -qq hyperfine; }
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
STDLIB=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
: > "$W/t.orig"
for f in $(find "$STDLIB" -name '*.py' -not -path '*/site-packages/*' -not -path '*/test/*' | sort); do
  cat "$f" >> "$W/t.orig"; printf '\n' >> "$W/t.orig"
  [ "$(stat -c %s "$W/t.orig")" -ge 10000000 ] && break
done
printf '\n\ndef bench_target(x):\n    return x + 1\n' >> "$W/t.orig"
printf 'def bench_target(x):\n    return x + 2\n' > "$W/new_code.py"
args=()
for b in "$@"; do
  n=$(basename "$b")
  args+=(-n "update $n" "$b update $W/t.py bench_target --root $W --code-file $W/new_code.py --allow-syntax-errors")
  args+=(-n "edit $n" "$b edit $W/t.py --root $W --old 'def bench_target(x):
    return x + 1' --new 'def bench_target(x):
    return x + 2' --allow-syntax-errors")
done
hyperfine -N --warmup 1 --runs 8 --export-json "$W/r.json" \
  --prepare "sh -c 'cp $W/t.orig $W/t.py; rm -rf $W/.scalpel'" "${args[@]}" > /dev/null
python3 - "$W/r.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f'{r["command"]:28} wall {r["mean"]*1000:8.1f} ms ± {r["stddev"]*1000:6.1f}   user+sys {(r["user"]+r["system"])*1000:8.1f} ms')
PY
