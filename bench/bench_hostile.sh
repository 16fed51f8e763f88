#!/usr/bin/env bash
# bench/bench_hostile.sh — peak memory and time of the hostile inputs of
# issue 19 (docs/robustness.md), side by side for one or more profkit
# executables (e.g. before and after a change):
#
#   bench_hostile.sh WORK PROFKIT [PROFKIT...]
#
# Inputs (made in WORK by tests/hostile/*.py): Cube files that claim
# 30,000 x 30,000 dense values (all-zero ZCUBEX rows gzip-wrapped; rows of
# real zlib streams of zeros), gzip bombs of 1 GiB (the whole archive;
# anchor.xml), 10,000 metric definitions sharing one 1 MB data member, calling-context chains 10,000 and 100,000 deep (CSV,
# speedscope and folded exports). Each run is limited to 120 s and 16 GB of
# address space; a row reads "exit status, peak RSS, seconds".
set -u
work=$1
shift
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
[ -e "$work/zero-rows.cubex" ] || "$py" "$here/tests/hostile/mk_cube.py" zero-rows "$work/zero-rows.cubex" 30000
[ -e "$work/tiny-rows.cubex" ] || "$py" "$here/tests/hostile/mk_cube.py" tiny-rows "$work/tiny-rows.cubex" 30000
[ -e "$work/gzip-bomb.cubex" ] || "$py" "$here/tests/hostile/mk_cube.py" gzip-bomb "$work/gzip-bomb.cubex" 1024
[ -e "$work/anchor-bomb.cubex" ] || "$py" "$here/tests/hostile/mk_cube.py" anchor-bomb "$work/anchor-bomb.cubex" 1024
[ -e "$work/shared-data.cubex" ] || "$py" "$here/tests/hostile/mk_cube.py" shared-data "$work/shared-data.cubex" 10000
[ -e "$work/deep10k.json" ] || "$py" "$here/tests/hostile/mk_deep.py" "$work/deep10k.json" 10000
[ -e "$work/deep100k.json" ] || "$py" "$here/tests/hostile/mk_deep.py" "$work/deep100k.json" 100000

measure() { # PROFKIT ARGS...: "status KB s"
  local p=$1
  shift
  rm -f "$work"/out.*
  /usr/bin/time -f "%x %M %e" -o "$work/time" timeout 120 prlimit --as=$((16 << 30)) -- \
    "$p" "$@" >/dev/null 2>"$work/err"
  local r
  r=$(tail -n 1 "$work/time")
  set -- $r
  printf "%s, %6.0f MB, %6.2f s" "$1" "$(echo "$2 / 1024" | bc -l)" "$3"
}

printf "%-34s" "input (size)"
for p in "$@"; do printf " | %-28s" "$(basename "$(dirname "$p")")/$(basename "$p")"; done
echo
row() { # LABEL ARGS... (OUT stands for an output path)
  local label=$1
  shift
  printf "%-34s" "$label"
  for p in "${bins[@]}"; do printf " | %-28s" "$(measure "$p" "$@")"; done
  echo
}
bins=("$@")
size() { numfmt --to=iec --suffix=B "$(stat -c %s "$1")"; }
row "info zero-rows ($(size "$work/zero-rows.cubex"))" info "$work/zero-rows.cubex"
row "info tiny-rows ($(size "$work/tiny-rows.cubex"))" info "$work/tiny-rows.cubex"
row "info gzip-bomb ($(size "$work/gzip-bomb.cubex"))" info "$work/gzip-bomb.cubex"
row "info anchor-bomb ($(size "$work/anchor-bomb.cubex"))" info "$work/anchor-bomb.cubex"
row "info shared-data ($(size "$work/shared-data.cubex"))" info "$work/shared-data.cubex"
for d in 10k 100k; do
  f=$work/deep$d.json
  row "csv, chain $d ($(size "$f"))" convert -q -f "$f" -o "$work/out.csv"
  row "speedscope, chain $d" convert -q -f "$f" -o "$work/out.speedscope.json"
  row "folded, chain $d" convert -q -f "$f" -o "$work/out.folded"
  row "tree, chain $d" tree "$f"
done
