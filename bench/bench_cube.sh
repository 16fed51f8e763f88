#!/usr/bin/env bash
# bench/bench_cube.sh — profkit on a big Cube file next to the ecosystem's
# own readers, in one run: pycubexr reading every metric's values,
# CubeLib's aggregate dump (`cube_dump -m all -c all -z incl -t aggr`),
# and profkit info, flat, tree and threads; wall time (best of RUNS, page
# cache warm) and peak RSS of each. The file comes from bench/cube_gen.py
# (default: 5,000 cnodes x 20 DOUBLE metrics x 640 locations, 513 MB).
#
#   bench/bench_cube.sh [BUILD_DIR] [WORK_DIR] [REFTOOLS] [CUBE_GEN ARGS...]
#   RUNS=3 (default) repetitions; SKIP_REF=1 leaves the reference readers out
#   (for files too big for them).
set -euo pipefail
build=${1:-build}
work=${2:-$build/bench-cube}
ref=${3:-../shared/ref-tools}
shift $(( $# < 3 ? $# : 3 ))
runs=${RUNS:-3}
profkit=$(realpath "$build/profkit")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
file=$work/big${1:+-$1}${2:+x$2}${3:+x$3}.cubex
[ -e "$file" ] || /usr/bin/python3 "$here/cube_gen.py" "$file" "$@"
size=$(stat -c %s "$file")
cat "$file" >/dev/null # page cache warm, as for every reader
echo "file: $file ($((size / 1000000)) MB)"
printf '| reader | time (best of %s) | peak RSS |\n|---|---|---|\n' "$runs"

# best wall time and the peak RSS of that run of one command
measure() {
  local name=$1 best="" rss="" t m
  shift
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/err.txt" ||
      { echo "bench_cube: $name failed:" >&2; cat "$work/err.txt" >&2; return 1; }
    read -r t m <"$work/time.txt"
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t rss=$m; fi
  done
  printf '| %s | %.2f s | %d MB |\n' "$name" "$best" $((rss / 1024))
}

if [ -z "${SKIP_REF:-}" ]; then
  measure "pycubexr, every metric's values" "$ref/bin/pycubexr-totals" "$file"
  measure "CubeLib \`cube_dump -m all -c all -z incl -t aggr\`" \
    "$ref/cubelib/bin/cube_dump" -m all -c all -z incl -t aggr "$file"
fi
for cmd in info flat tree threads; do
  measure "\`profkit $cmd\`" "$profkit" "$cmd" "$file"
done
