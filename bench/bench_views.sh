#!/usr/bin/env bash
# bench/bench_views.sh — the analysis commands on a million contexts:
# tree, flat, flame (SVG and folded), callers and threads on a synthetic
# HPCToolkit database of 10^6 contexts (pk-gen; 8 profiles, 28 M values,
# 730 MB), each timed with hyperfine (page cache warm) next to `info`
# (open + totals), which is the floor every command pays.
#
#   bench/bench_views.sh [BUILD_DIR] [WORK_DIR]
set -euo pipefail
build=${1:-build}
work=${2:-$build/bench-views}
profkit=$(realpath "$build/profkit")
db=$work/ctx1m.d
mkdir -p "$work"
if [ ! -e "$db/meta.db" ]; then
  "$build/pk-gen" "$db" --contexts 1000000 --profiles 8 --samples 200000 --force
fi
command -v hyperfine >/dev/null || { echo "bench_views: needs hyperfine (scripts/install-deps.sh --with-bench)" >&2; exit 1; }
hyperfine -w 1 -r 5 -N --export-markdown "$work/views.md" \
  "$profkit info $db" \
  "$profkit tree $db" \
  "$profkit flat $db" \
  "$profkit flame $db --force -o $work/flame.svg" \
  "$profkit flame --folded $db --force -o $work/flame.folded" \
  "$profkit callers $db main" \
  "$profkit threads $db"
for c in "tree $db" "flat $db" "flame $db --force -o $work/flame.svg"; do
  /usr/bin/time -f "peak RSS %M KB: profkit $c" "$profkit" $c >/dev/null
done
# merge: the database with itself (2 x 8 locations, 56 M values), once
rm -rf "$work/merged.d"
/usr/bin/time -f "%e s, peak RSS %M KB: profkit merge db db" "$profkit" merge -q "$db" "$db" -o "$work/merged.d"
rm -rf "$work/merged.d"
