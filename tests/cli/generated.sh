#!/usr/bin/env bash
# tests/cli/generated.sh — a generated database big enough (about 30 MB)
# for the parallel code paths: validation, totals, release of scanned
# pages; then a conversion that must keep everything `info` shows.
#
#   generated.sh PK_GEN PROFKIT WORK_DIR
set -eu
gen=$1 profkit=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$gen" "$work/gen.d" --profiles 3000 --contexts 20000 --seed 7 2>/dev/null
"$profkit" check -q "$work/gen.d"
"$profkit" convert -q "$work/gen.d" -o "$work/copy.d"
"$profkit" check -q "$work/copy.d"
"$profkit" info "$work/gen.d" | sed "s|$work/gen.d|DB|" | grep -v '^  files ' >"$work/a"
"$profkit" info "$work/copy.d" | sed "s|$work/copy.d|DB|" | grep -v '^  files ' >"$work/b"
diff -u "$work/a" "$work/b"
grep -q "3000 (+1 summary)" "$work/a"
for f in meta.db profile.db cct.db trace.db; do cmp "$work/gen.d/$f" "$work/copy.d/$f"; done
echo "generated: 3000 profiles checked, converted, identical"
