#!/usr/bin/env bash
# bench/bench_trace.sh — traces at scale: synthetic HPCToolkit databases of
# 16 locations (4 ranks x 4 threads) whose traces hold 10^6, 10^7 and 10^8
# samples in all (pk-gen: 20,000 contexts, a sample about every 5 ms, a
# call path lasting 50 samples on average), then for each, with elapsed
# time, CPU time and peak RSS (GNU time):
#   - profkit trace                        (the whole trace's answer)
#   - profkit trace --from 100s --to 110s (a 10-second window)
#   - convert --to chrome, the same 10 s window of the 16 locations
#   - convert --to chrome, everything (plain JSON; the warning about the
#     size goes to the log), and gzip for the sizes up to 10^7
# so the table shows the window's cost independent of the trace's length
# and the full export's memory flat while its output grows.
#
#   bench/bench_trace.sh [BUILD_DIR] [WORK_DIR] [SIZES]
#
# SIZES: total samples, default "1000000 10000000 100000000". Needs GNU
# time and, for 10^8, about 8 GB of disk in WORK_DIR (default
# BUILD_DIR/bench-trace): 1.2 GB of trace.db and 6 GB of JSON, removed
# after each export. Not a test: numbers in bench/README.md.
set -euo pipefail
build=${1:-build}
work=${2:-$build/bench-trace}
sizes=${3:-"1000000 10000000 100000000"}
profkit=$build/profkit gen=$build/pk-gen
[ -x "$profkit" ] && [ -x "$gen" ] || { echo "bench: build first (make build)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: needs GNU time (scripts/install-deps.sh --with-bench)" >&2; exit 1; }
mkdir -p "$work"
log=$work/bench.log
: >"$log"

# run NAME CMD...: one line: elapsed, CPU, peak RSS (GNU time) and peak
# anonymous memory (RssAnon, /proc polled every 20 ms: what the process
# allocated, without the mapped files' pages the kernel may drop any time)
run() {
  local name=$1 out=$work/time.txt child="" anon=0 a
  shift
  /usr/bin/time -o "$out" -f '%e %U %S %M' "$@" >>"$log" 2>&1 &
  local tp=$!
  while kill -0 "$tp" 2>/dev/null; do
    [ -n "$child" ] || child=$(pgrep -P "$tp" | head -1 || true)
    if [ -n "$child" ]; then
      a=$(awk '/RssAnon/{print $2}' "/proc/$child/status" 2>/dev/null || true)
      [ "${a:-0}" -gt "$anon" ] && anon=$a
    fi
    sleep 0.02
  done
  wait "$tp" || { echo "$name: failed (see $log)" >&2; return 1; }
  read -r e u s m <"$out"
  printf '%-44s %8.2f s %8.2f s CPU %7.1f MiB peak RSS %6.1f MiB anon\n' "$name" "$e" \
    "$(echo "$u + $s" | bc -l)" "$(echo "$m / 1024" | bc -l)" "$(echo "$anon / 1024" | bc -l)"
}
json_size() { [ -f "$1" ] && du -b "$1" | awk '{printf "%.1f MB written", $1 / 1e6}'; }

printf '%-44s %10s %14s %18s %15s\n' "" elapsed "CPU (user+sys)" "peak RSS" "peak anon"
for n in $sizes; do
  per=$((n / 16))
  db=$work/t$n.d
  if [ ! -f "$db/trace.db" ]; then
    "$gen" "$db" --profiles 16 --contexts 20000 --samples 64 --traces "$per" --trace-runs 50 \
      --force >>"$log" 2>&1
  fi
  echo "== $n samples ($per per location), trace.db $(du -m "$db/trace.db" | cut -f1) MB"
  run "trace (whole)" "$profkit" trace "$db"
  run "trace --from 100s --to 110s" "$profkit" trace --from 100s --to 110s "$db"
  out=$work/window.chrome.json
  rm -f "$out"
  run "chrome export, 10 s window, 16 locations" "$profkit" convert -q -f "$db" --to chrome \
    --from 100s --until 110s -o "$out"
  echo "    $(json_size "$out")"
  out=$work/full.chrome.json
  rm -f "$out"
  run "chrome export, everything" "$profkit" convert -q -f "$db" --to chrome -o "$out"
  echo "    $(json_size "$out")"
  rm -f "$out"
  if [ "$n" -le 10000000 ]; then
    out=$work/full.chrome.json.gz
    run "chrome export, everything, gzip" "$profkit" convert -q -f "$db" --to chrome -o "$out"
    echo "    $(json_size "$out")"
    rm -f "$out"
  fi
done
