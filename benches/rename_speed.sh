#!/usr/bin/env bash
# The syntax backend's rename (issue 27: "on a 5,000-file tree under 1 s"):
# a dry run of `scalpel rename --no-lsp --leave-uncertain` (a fresh process,
# every site planned, the undecided ones listed: walk the tree for
# files naming the symbol, parse each candidate, bind every occurrence by
# the language's scope rules, plan, validate, verify), next to ripgrep
# listing the files that name it (`rg -w -l NAME`, what a user would start
# from), in the same hyperfine run. Not a timed test; run by hand.
#
# The tree: Go 1.19's standard library without `cmd/` (4,981 files, 72 MB),
# as benches/find_warm.sh builds it (a git repository), from the Debian
# package the test suite unpacks under target/tmp/deb-golang-1.19-src (run
# `cargo test --test languages` once).
#
# Knobs: RUNS (default 10).
# Usage: benches/rename_speed.sh [WORKDIR]   (default: a temp dir, kept)
# Needs: rg and hyperfine (apt-get install ripgrep hyperfine), a release
# build (`cargo build --release`).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
work=${1:-${TMPDIR:-/tmp}/scalpel-rename-speed}
scalpel=${SCALPEL:-$target/release/scalpel}
go=$target/tmp/deb-golang-1.19-src/root/usr/share/go-1.19/src

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
    git -C "$tree" init -q
    git -C "$tree" add -A
    git -C "$tree" -c user.name=bench -c user.email=bench@localhost commit -qm tree
    touch "$work/.built"
fi
cd "$tree"
echo "tree: $tree ($(git ls-files | wc -l) files)"

run() { # file, name path, the name
    local file=$1 sym=$2 name=$3
    local out
    out=$("$scalpel" rename --no-lsp --leave-uncertain "$file" "$sym" "${name}Renamed" --json 2>/dev/null || true)
    echo "== $file $sym: $(rg -w -l "$name" . | wc -l) files name it; scalpel: $(echo "$out" | python3 -c 'import json,sys; r=json.load(sys.stdin); e=r.get("error"); print(e["error_code"]+": "+e["message"][:90] if e else "%d occurrences in %d files, %d undecided left" % (r["renamed"], len(r["files"]), r["skipped_count"]))')"
    hyperfine -N --warmup 2 --runs "${RUNS:-10}" --style basic --export-json /tmp/rename_speed.json \
        "rg -w -l $name ." \
        "$scalpel rename --no-lsp --leave-uncertain $file $sym ${name}Renamed --json" >/dev/null 2>&1 || true
    python3 - <<'EOF'
import json
r = json.load(open("/tmp/rename_speed.json"))["results"]
for x, label in zip(r, ["rg -w -l", "scalpel rename (dry run)"]):
    ms = sorted(t * 1000 for t in x["times"])
    print(f"  {label:26} median {ms[len(ms)//2]:7.1f} ms  max {ms[-1]:7.1f} ms")
EOF
}

# A private helper (one package), an exported function used across
# packages, and a method of a widely used type.
run net/http/cookie.go readSetCookies readSetCookies
run strings/strings.go TrimSpace TrimSpace
run bytes/buffer.go Buffer.Grow Grow
