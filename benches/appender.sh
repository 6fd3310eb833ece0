#!/bin/bash
# Usage: appender.sh BIN MODE(edit|rename) N
# An appender adds "# appended K" to app.py every 5-50 ms while N scalpel
# writes run on another part of the same file. Prints appended / lost / failed.
BIN=$1; MODE=$2; N=$3
D=$(mktemp -d); cd "$D"; git init -q
printf 'COUNTER = 0\n\n\ndef helper0():\n    return COUNTER\n' > app.py
printf 'from app import helper0\n\nprint(helper0())\n' > use.py
python3 - <<'PY' &
import os, random, time
n = 0
while not os.path.exists("stop"):
    time.sleep(random.uniform(0.005, 0.05))
    with open("app.py", "a") as f:
        f.write(f"# appended {n}\n")
    n += 1
open("appended", "w").write(str(n))
PY
fail=0; i=0; k=0
while [ $k -lt "$N" ]; do
  k=$((k+1))
  if [ "$MODE" = edit ]; then
    "$BIN" edit app.py --old "COUNTER = $i" --new "COUNTER = $((i+1))" >/dev/null 2>err.txt && i=$((i+1)) || fail=$((fail+1))
  else
    "$BIN" rename app.py "helper$i" "helper$((i+1))" --apply >/dev/null 2>err.txt && i=$((i+1)) || fail=$((fail+1))
  fi
done
touch stop; wait
a=$(cat appended); lost=0
for ((j=0; j<a; j++)); do grep -qx "# appended $j" app.py || lost=$((lost+1)); done
echo "$MODE x$N: appended $a, lost $lost, failed writes $fail ($(grep -ho 'error\[[A-Z_]*\]' err.txt | sort | uniq -c | tr '\n' ' '))"
cd /; rm -rf "$D"
