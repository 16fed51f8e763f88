#!/usr/bin/env bash
# tests/cube_memlimit.sh — a Cube file opens and answers info, flat and
# threads with less writable memory than the file's size: its values are
# read in place (rows.c), not copied. The data limit (RLIMIT_DATA) covers
# everything a copy would need (heap and anonymous mappings) but not the
# file's read-only mapping. Answers under the limit must equal those
# without it.
#   cube_memlimit.sh PROFKIT SOURCE_DIR WORK_DIR [sanitized|plain]
set -euo pipefail
profkit=$1 src=$2 work=$3
[ "${4:-plain}" = sanitized ] && { echo "sanitizer build: no data limit applies, skipped"; exit 77; }
command -v prlimit >/dev/null || { echo "no prlimit: skipped"; exit 77; }
/usr/bin/python3 -c "import numpy" 2>/dev/null || { echo "no numpy: skipped"; exit 77; }
mkdir -p "$work"
f=$work/mem.cubex
# 1,000 cnodes x 8 metrics x 1,600 locations of 8 bytes: 102 MB of data
[ -e "$f" ] || /usr/bin/python3 "$src/bench/cube_gen.py" "$f" 1000 8 1600
size=$(stat -c %s "$f")
limit=$((size / 3))
for cmd in info flat threads; do
  "$profkit" "$cmd" --json "$f" >"$work/$cmd.free.json"
  prlimit --data=$limit "$profkit" "$cmd" --json "$f" >"$work/$cmd.limited.json"
  cmp "$work/$cmd.free.json" "$work/$cmd.limited.json"
done
# the limit bites: a copy of every value (what convert's writers walk) does not fit
if prlimit --data=$limit "$profkit" convert "$f" -o "$work/copy.json" 2>/dev/null; then
  echo "cube_memlimit: converting (a location-major copy) fit under the limit: the test proves nothing" >&2
  exit 1
fi
echo "ok: info, flat, threads under a $((limit >> 20)) MiB data limit on a $((size >> 20)) MiB file"
