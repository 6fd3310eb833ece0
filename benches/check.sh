#!/usr/bin/env bash
# Benchmark: `scalpel check --staged` on 200 staged files of real code, the
# situation of a pre-commit hook on a large commit.
#
# Builds a temporary git repository from 150 modules of the Python standard
# library and 50 Rust files of the crate sources in ~/.cargo/registry/src,
# builds Scalpel in release mode once, and times two cases:
#
#   new       the 200 files staged in a repository without commits (every
#             file is read from the index and parsed once);
#   modified  the 200 files committed, then each one changed and staged again
#             (the diff against HEAD is computed as well).
#
# Uses hyperfine when it is installed (`apt-get install -y hyperfine`), else a
# plain loop timed with `date +%s%N`. Usage: benches/check.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}

cargo build --release --quiet
bin="$PWD/target/release/scalpel"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
mapfile -t py < <(find "$stdlib" -maxdepth 1 -name '*.py' -size +2k | LC_ALL=C sort | head -n 150)
mapfile -t rs < <(find "$HOME/.cargo/registry/src" -path '*/src/*.rs' -size +2k 2>/dev/null | LC_ALL=C sort | head -n 50)
if [ $((${#py[@]} + ${#rs[@]})) -lt 200 ]; then
  echo "need 200 source files, found ${#py[@]} Python and ${#rs[@]} Rust" >&2
  exit 2
fi

setup() { # $1: folder
  mkdir -p "$1/py" "$1/rs"
  git -C "$1" init -q -b main
  git -C "$1" config user.name bench
  git -C "$1" config user.email bench@example.invalid
  cp "${py[@]}" "$1/py/"
  local i=0
  for f in "${rs[@]}"; do
    i=$((i + 1))
    cp "$f" "$1/rs/$i-$(basename "$f")"
  done
  git -C "$1" add -A
}

new="$work/new"
setup "$new"
modified="$work/modified"
setup "$modified"
git -C "$modified" commit -q --no-verify -m base
for f in "$modified"/py/*.py; do printf '\nBENCH_MARK = 1\n' >>"$f"; done
for f in "$modified"/rs/*.rs; do printf '\nconst BENCH_MARK: u8 = 1;\n' >>"$f"; done
git -C "$modified" add -A

files=$(git -C "$new" ls-files | wc -l)
bytes=$(git -C "$new" ls-files -z | (cd "$new" && xargs -0 cat) | wc -c)
echo "repository: $files staged files, $((bytes / 1024)) KiB ($(nproc) cores)"
for repo in "$new" "$modified"; do
  echo "$(basename "$repo"): $(cd "$repo" && "$bin" check --staged | tail -n 1)"
done

if command -v hyperfine >/dev/null; then
  hyperfine --warmup 3 --runs "$runs" --ignore-failure \
    -n new "cd '$new' && '$bin' check --staged" \
    -n modified "cd '$modified' && '$bin' check --staged"
else
  for repo in "$new" "$modified"; do
    total=0 best=0
    for _ in $(seq "$runs"); do
      start=$(date +%s%N)
      (cd "$repo" && "$bin" check --staged >/dev/null) || true
      t=$(( $(date +%s%N) - start ))
      total=$((total + t))
      if [ "$best" -eq 0 ] || [ "$t" -lt "$best" ]; then best=$t; fi
    done
    echo "$(basename "$repo"): mean $((total / runs / 1000000)) ms, min $((best / 1000000)) ms over $runs runs"
  done
fi
