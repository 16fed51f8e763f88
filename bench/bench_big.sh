#!/usr/bin/env bash
# bench/bench_big.sh — the large-database benchmarks: a synthetic HPCToolkit
# database of 100,000 profiles (about 1 GB of profile.db, built once by
# pk-gen), then
#   - profkit info      (open + validate all files + totals; hyperfine, warm cache)
#   - profkit convert   (write the whole database again; with and without sync)
#   - profkit convert --recompute (recompute all scopes and summaries, then write)
# each with peak RSS (GNU time).
#
#   bench/bench_big.sh [BUILD_DIR] [WORK_DIR] [PROFILES]
#
# Needs hyperfine and GNU time (scripts/install-deps.sh --with-bench) and
# about 4 GB of disk in WORK_DIR (default: BUILD_DIR/bench-big).
set -euo pipefail
build=${1:-build}
work=${2:-$build/bench-big}
profiles=${3:-100000}
profkit=$build/profkit
gen=$build/pk-gen
[ -x "$profkit" ] && [ -x "$gen" ] || { echo "bench: build first (make build)" >&2; exit 1; }
mkdir -p "$work"
db=$work/p$profiles.d
if [ ! -f "$db/meta.db" ]; then
  echo "generating $db ..."
  "$gen" "$db" --profiles "$profiles" --samples 10 --force
fi
bytes=$(cat "$db"/*.db | wc -c)
pbytes=$(wc -c <"$db/profile.db")
echo "database: $db: $((bytes / 1000000)) MB in *.db, profile.db $((pbytes / 1000000)) MB"

rss() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1; }
report() { # name seconds peak_kb
  python3 - "$1" "$2" "$3" "$bytes" "$pbytes" <<'PY'
import sys
name, s, kb, b, pb = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
print(f"{name:28s} {s:7.3f} s   {b/s/1e9:5.2f} GB/s of *.db ({pb/s/1e9:5.2f} GB/s of profile.db)   peak RSS {kb/1024:7.1f} MiB")
PY
}

json=$(mktemp)
trap 'rm -f "$json"' EXIT
hyperfine --warmup 2 --runs 10 --export-json "$json" -N "$profkit info $db" >/dev/null
mean=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results'][0]['mean'])" "$json")
report "info" "$mean" "$(rss "$profkit" info "$db")"

out=$work/out.d
hyperfine --warmup 1 --runs 5 --export-json "$json" -N --prepare "rm -rf $out" \
  "$profkit convert -q $db -o $out" >/dev/null
mean=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results'][0]['mean'])" "$json")
rm -rf "$out"
report "convert (page cache)" "$mean" "$(rss "$profkit" convert -q "$db" -o "$out")"
rm -rf "$out"
sync
start=$(date +%s.%N)
"$profkit" convert -q "$db" -o "$out" && sync
end=$(date +%s.%N)
report "convert + sync (disk)" "$(echo "$end - $start" | bc -l)" 0
rm -rf "$out"

# recomputing every scope and summary: convert --recompute reports its own time
best=
for i in 1 2 3; do
  t=$("$profkit" convert -r -f "$db" -o "$out" | sed -n 's/^recomputed .* in \([0-9.]*\) s$/\1/p')
  if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
done
report "recompute scopes+summaries" "$best" "$(rss "$profkit" convert -r -q -f "$db" -o "$out")"
hyperfine --runs 3 --export-json "$json" -N --prepare "rm -rf $out" \
  "$profkit convert -r -q $db -o $out" >/dev/null
mean=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results'][0]['mean'])" "$json")
report "convert --recompute (all)" "$mean" 0
rm -rf "$out"
