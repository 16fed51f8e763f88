#!/usr/bin/env bash
# bench/bench_info.sh — time `profkit info` on the largest HPCToolkit database
# of the corpus and report throughput (MB/s of database files) and peak RSS.
#
#   bench/bench_info.sh [BUILD_DIR] [DATABASE_DIR]
#
# Needs hyperfine and GNU time (scripts/install-deps.sh --with-bench).
# Timings are for the page-cache-warm case (hyperfine runs warm-ups first).
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
corpus=${PROFKIT_CORPUS:-$here/../../shared/corpus}
profkit=$build/profkit
[ -x "$profkit" ] || { echo "bench: build profkit first ($profkit missing)" >&2; exit 1; }

db=${2:-}
if [ -z "$db" ]; then
  [ -d "$corpus/hpctoolkit" ] || { echo "bench: no corpus at $corpus; pass a DATABASE_DIR" >&2; exit 1; }
  # the database whose *.db files are largest in total
  db=$(for m in $(find "$corpus/hpctoolkit" -name meta.db); do
         d=$(dirname "$m"); echo "$(cat "$d"/*.db | wc -c) $d"; done | sort -n | tail -1 | cut -d' ' -f2-)
fi
bytes=$(cat "$db"/*.db | wc -c)
echo "database: $db ($bytes bytes in *.db)"

json=$(mktemp)
trap 'rm -f "$json"' EXIT
hyperfine --warmup 3 --min-runs 20 --export-json "$json" -N "$profkit info $db" >/dev/null
mean=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['mean'], r['stddev'], r['min'])" "$json")
read -r mean sd min <<<"$mean"
rss=$(/usr/bin/time -f '%M' "$profkit" info "$db" 2>&1 >/dev/null | tail -1)
python3 - "$bytes" "$mean" "$sd" "$min" "$rss" <<'PY'
import sys
b, mean, sd, mn, rss = int(sys.argv[1]), *map(float, sys.argv[2:5]), int(sys.argv[5])
print(f"profkit info: mean {mean*1e3:.2f} ms ± {sd*1e3:.2f} (min {mn*1e3:.2f} ms)")
print(f"throughput:   {b/mean/1e6:.0f} MB/s of database files (best {b/mn/1e6:.0f} MB/s)")
print(f"peak RSS:     {rss/1024:.1f} MiB")
PY
