#!/usr/bin/env bash
# Quality benchmark: does `scalpel check` refuse exactly the Python
# indentation CPython refuses?
#
# Generates indentation-only mutants of real files (tests/support/
# indent_mutants.py: one line shifted, a block body dedented to its header, a
# line indented under a simple statement), labels each with CPython's
# compile(), checks them all with one `scalpel check` run, and prints false
# accepts (CPython refuses, scalpel passes), false rejects (CPython accepts,
# scalpel refuses) and what the parser alone, without the indentation rule,
# would have accepted. Correctness, not speed: a debug build is enough.
#
# Usage: benches/indent.sh [FILES] [MUTANTS_PER_KIND_PER_FILE] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
files=${1:-300}
per=${2:-3}
seed=${3:-1}
cargo build --quiet
stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
mapfile -t py < <(find "$stdlib" -name '*.py' -size +1k -not -path '*/site-packages/*' \
  | LC_ALL=C sort | awk -v n="$files" 'NR % 7 == 0' | head -n "$files")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 tests/support/indent_mutants.py target/debug/scalpel "$out/m" "$seed" "$per" "${py[@]}" \
  | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(f"mutants {r[\"mutants\"]}: {r[\"invalid\"]} invalid, {r[\"valid\"]} valid (per CPython)")
for k, v in r["by_kind"].items():
    print(f"  {k:7} invalid {v[\"invalid\"]:5}  valid {v[\"valid\"]:5}  false accepts {v[\"false_accept\"]:4}  false rejects {v[\"false_reject\"]:4}")
print(f"false accepts {r[\"false_accept\"]}/{r[\"invalid\"]} = {100*r[\"false_accept_rate\"]:.2f} %")
print(f"false rejects {r[\"false_reject\"]} = {100*r[\"false_reject_rate\"]:.2f} % (valid mutants and originals)")
print(f"parser alone would accept {r[\"parser_only_false_accept\"]}/{r[\"invalid\"]} invalid = {100*r[\"parser_only_false_accept\"]/max(1,r[\"invalid\"]):.1f} %")
for e in r["examples_false_accept"][:5]: print("  FA", e)
for e in r["examples_false_reject"][:5]: print("  FR", e)
'
