#!/usr/bin/env bash
# tests/cube_memlimit.sh — a Cube file opens and answers info, flat,
# threads and one location's tree, and converts to Cube, with less
# writable memory than the file's size: its values are read in place
# (rows.c, loc_plane.c, cube/write_rows.c), not copied. The data limit (RLIMIT_DATA) covers
# everything a copy would need (heap and anonymous mappings) but not the
# file's read-only mapping. Answers under the limit must equal those
# without it.
# One location's totals are checked against CubeLib's cube_dump where the
# reference tools are found (REFTOOLS, default SOURCE_DIR/../shared/ref-tools).
#   cube_memlimit.sh PROFKIT SOURCE_DIR WORK_DIR [sanitized|plain]
set -euo pipefail
profkit=$1 src=$2 work=$3
ref=${REFTOOLS:-$src/../shared/ref-tools}
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
# one location alone: the same under the limit, its total equal to its
# line in threads (summed from the rows by another path) and to CubeLib's
loc=1237
for m in m0 m1; do
  "$profkit" tree --location "#$loc" -m $m --json "$f" >"$work/tree-$m.free.json"
  prlimit --data=$limit "$profkit" tree --location "#$loc" -m $m --json "$f" >"$work/tree-$m.limited.json"
  cmp "$work/tree-$m.free.json" "$work/tree-$m.limited.json"
  "$profkit" threads -n 0 -m $m --json "$f" >"$work/threads-$m.json"
  cubelib=""
  if [ -x "$ref/cubelib/bin/cube_dump" ]; then
    cubelib=$("$ref/cubelib/bin/cube_dump" -m $m -c roots -z incl -t $loc -s csv2 "$f" | tail -1)
  fi
  /usr/bin/python3 - "$work/tree-$m.limited.json" "$work/threads-$m.json" $loc "$cubelib" <<'PY'
import json, sys
tree, threads = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
loc, cubelib = int(sys.argv[3]), sys.argv[4]
mine = [r for r in threads["locations"] if r["index"] == loc][0]["total"]
assert abs(tree["total"] - mine) <= 1e-12 * abs(mine), (tree["total"], mine)
if cubelib:  # "cnode, thread, value", 6 significant digits
    theirs = float(cubelib.split(",")[2])
    assert abs(tree["total"] - theirs) <= 1e-5 * abs(theirs), (tree["total"], theirs)
PY
done
# Cube to Cube: the same file under the limit as without it
"$profkit" convert "$f" --to cube --force -o "$work/copy.free.cubex" >/dev/null
prlimit --data=$limit "$profkit" convert "$f" --to cube --force -o "$work/copy.limited.cubex" >/dev/null
"$profkit" info --json "$work/copy.free.cubex" | sed 1,3d >"$work/copy.free.info"
"$profkit" info --json "$work/copy.limited.cubex" | sed 1,3d >"$work/copy.limited.info"
cmp "$work/copy.free.info" "$work/copy.limited.info"
# the limit bites: a copy of every value (what convert's writers walk) does not fit
if prlimit --data=$limit "$profkit" convert "$f" -o "$work/copy.json" 2>/dev/null; then
  echo "cube_memlimit: converting (a location-major copy) fit under the limit: the test proves nothing" >&2
  exit 1
fi
echo "ok: info, flat, threads, tree --location, convert --to cube under a $((limit >> 20)) MiB data limit on a $((size >> 20)) MiB file"
