#!/usr/bin/env bash
# Symbol recall and precision of Scalpel's outline against the language's
# own parser, compared as sets of (file, name path) by
# benches/support/compare_names.py (overloads are one name path; files the
# parser rejects or tree-sitter reads with errors are left out, counted):
# - go: go/parser (benches/support/go_names.go) over the Go standard
#   library the tests provision (golang-1.19-src): functions, methods
#   (`Type.Method`, pointer and generic receivers), types, fields and
#   interface methods of the package's types, package-level consts and vars;
# - java: javac's parser (tests/support/JavaParse.java names) over the
#   JDK's `java.base` (openjdk-17-source): classes, interfaces, enums,
#   records, annotation types, methods, constructors, fields, enum
#   constants.
# Run `cargo test --test trust command_front_ends` once first (it
# provisions the corpora under target/tmp).
# Usage: bash benches/lang_symbols.sh go|java [DIR]   (needs go or java 17, python3)
#        SCALPEL=target/debug/scalpel bash benches/lang_symbols.sh java
set -euo pipefail
cd "$(dirname "$0")/.."
LANG_NAME="$1"
case "$LANG_NAME" in
  go)
    DIR="${2:-target/tmp/deb-golang-1.19-src/root/usr/share/go-1.19/src}"
    EXT=go
    KINDS=function,method,type,struct,interface,field,constant,variable ;;
  java)
    DIR="${2:-target/tmp/java-corpus/java.base}"
    EXT=java
    KINDS=class,interface,enum,method,constructor,field,constant,enum_member,function ;;
  *) echo "usage: $0 go|java [DIR]" >&2; exit 2 ;;
esac
if [ -z "${SCALPEL:-}" ]; then
  cargo build --release -q
  SCALPEL="$PWD/target/release/scalpel"
fi
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
find "$DIR" -name "*.$EXT" | sort > "$W/files"
if [ "$LANG_NAME" = go ]; then
  GOCACHE="$W/gocache" go run benches/support/go_names.go < "$W/files" > "$W/oracle"
else
  java tests/support/JavaParse.java names < "$W/files" > "$W/oracle"
fi
xargs -a "$W/files" "$SCALPEL" symbols --json > "$W/scalpel" 2> "$W/scalpel.err" || true
python3 benches/support/compare_names.py "$LANG_NAME" "$W/oracle" "$W/scalpel" "$KINDS"
