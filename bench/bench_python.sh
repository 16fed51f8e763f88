#!/usr/bin/env bash
# The Python package's speed and memory (docs/python.md): every location's
# values of one metric of the 100,000-profile pk-gen database into NumPy,
# and the 2,000- and 20,000-profile databases into a Hatchet-shaped
# DataFrame. Each run is a fresh process (page cache warm: one warm-up run);
# the best of RUNS is reported with its peak RSS.
#
#   bench/bench_python.sh [BUILD_DIR] [WORK_DIR] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build} work=${2:-/tmp/pk-python-bench} runs=${3:-3}
py=$("$here/../scripts/find-python.sh")
make -C "$here/.." --no-print-directory python BUILD="$build" >/dev/null
export PYTHONPATH=$here/../python
mkdir -p "$work"
gen() { # gen NAME PK-GEN-OPTIONS...: made once, kept for later runs
  local db=$work/$1; shift
  [ -f "$db/profile.db" ] || "$build/pk-gen" "$db" "$@" --force >/dev/null
  echo "$db"
}
best() { # best JOB DB: the fastest of $runs runs (after one warm-up)
  "$py" "$here/bench_python.py" "$1" "$2" >/dev/null
  for _ in $(seq "$runs"); do "$py" "$here/bench_python.py" "$1" "$2"; done |
    "$py" -c 'import sys, json; r = [json.loads(l) for l in sys.stdin]; print(json.dumps(min(r, key=lambda x: x["total_s"])))'
}
row() { # row LABEL JSON
  "$py" - "$1" "$2" <<'PY'
import json, sys
label, r = sys.argv[1], json.loads(sys.argv[2])
print(f"| {label} | {r['open_s']:.2f} s | {r['work_s']:.2f} s ({r['work_cpu_s']:.2f} s CPU) | "
      f"{r['total_s']:.2f} s | {r['n']:,} values, {r['result_mib']:.0f} MiB | "
      f"{r['peak_rss_mib']:.0f} MiB | {r['anon_after_open_mib']:.0f} → "
      f"{r['rss_anon_mib']:.0f} MiB | n/a (not installable here) |")
PY
}
echo "| job | open | values | total | result | peak RSS | anonymous RSS after open → after | Hatchet v4 reader |"
echo "|---|---|---|---|---|---|---|---|"
row "100,000 profiles: values(locations=\"all\") into NumPy" \
  "$(best values "$(gen g100000.d --profiles 100000 --samples 10)")"
row "2,000 profiles: dataframe()" "$(best dataframe "$(gen g2000.d --profiles 2000)")"
row "20,000 profiles: dataframe()" "$(best dataframe "$(gen g20000.d --profiles 20000)")"
