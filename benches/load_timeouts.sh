#!/bin/bash
# Usage: bash benches/load_timeouts.sh BIN DIR BUDGET: files over their parse
# budget when DIR's symbols are listed by 1 process, then by 3 at once (on 2
# cores): a deadline that load can fake gives more under load.
BIN=$1; DIR=$2; B=$3
one=$("$BIN" --parse-timeout "$B" symbols --json "$DIR" 2>&1 | grep -c 'budget of')
for i in 1 2 3; do ("$BIN" --parse-timeout "$B" symbols --json "$DIR" 2>&1 | grep -c 'budget of' > ${TMPDIR:-/tmp}/load_timeouts.$i) & done; wait
echo "budget $B s: 1 process $one TIMEOUTs; 3 at once: $(cat ${TMPDIR:-/tmp}/load_timeouts.1) $(cat ${TMPDIR:-/tmp}/load_timeouts.2) $(cat ${TMPDIR:-/tmp}/load_timeouts.3)"
