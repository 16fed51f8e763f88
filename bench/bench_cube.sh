#!/usr/bin/env bash
# bench/bench_cube.sh — profkit on a big Cube file next to the ecosystem's
# own readers, in one run: pycubexr reading every metric's values,
# CubeLib's aggregate dump (`cube_dump -m all -c all -z incl -t aggr`),
# and profkit info, flat, tree and threads, then the questions that walk
# locations: one location's tree, check, and conversions to HPCToolkit and
# to Cube; wall time (best of RUNS, page cache warm), its CPU time
# (user+sys) and peak RSS. SKIP_CONVERT=1 leaves the conversions out. The file comes from bench/cube_gen.py
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
printf '| reader | time (best of %s) | CPU | peak RSS |\n|---|---|---|---|\n' "$runs"

# best wall time and the peak RSS of that run of one command
measure() {
  local name=$1 best="" rss="" cpu="" t m u s
  shift
  for _ in $(seq "$runs"); do
    rm -rf "$work/out.d" "$work/out.cubex"
    /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$@" >/dev/null 2>"$work/err.txt" ||
      { echo "bench_cube: $name failed:" >&2; cat "$work/err.txt" >&2; return 1; }
    read -r t m u s <"$work/time.txt"
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then
      best=$t rss=$m cpu=$(awk "BEGIN{print $u + $s}")
    fi
  done
  printf '| %s | %.2f s | %.2f s | %d MB |\n' "$name" "$best" "$cpu" $((rss / 1024))
}

if [ -z "${SKIP_REF:-}" ]; then
  measure "pycubexr, every metric's values" "$ref/bin/pycubexr-totals" "$file"
  measure "CubeLib \`cube_dump -m all -c all -z incl -t aggr\`" \
    "$ref/cubelib/bin/cube_dump" -m all -c all -z incl -t aggr "$file"
fi
for cmd in info flat tree threads; do
  measure "\`profkit $cmd\`" "$profkit" "$cmd" "$file"
done
loc=$(("${3:-640}" / 2)) # a location in the middle of the rows
measure "\`profkit tree --location '#$loc'\`" "$profkit" tree --location "#$loc" "$file"
measure "\`profkit check\`" "$profkit" check "$file"
if [ -z "${SKIP_CONVERT:-}" ]; then
  measure "\`profkit convert --to cube\`" "$profkit" convert --to cube -o "$work/out.cubex" "$file"
  measure "\`profkit convert --to hpctoolkit\`" "$profkit" convert --to hpctoolkit \
    -o "$work/out.d" "$file"
fi
rm -rf "$work/out.d" "$work/out.cubex"
