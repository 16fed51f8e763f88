#!/usr/bin/env bash
# bench/bench_callgrind.sh — profkit's Callgrind views against
# callgrind_annotate, side by side in one run on the same files:
#   - a real valgrind profile: callgrind on gcc's cc1 compiling a big C
#     file (made here once if valgrind and gcc are installed: this
#     project's parse.c, preprocessed; about 57 MB, a few minutes);
#   - cg-gen files of 64 MB and 512 MB (valgrind 3.19's shape, compressed
#     names, 8 cache events).
# For each file: `profkit info`, `flat`, `tree`, `callers`, `flame -o
# x.svg` and callgrind_annotate (Debian valgrind, default options: self
# cost per function, what `flat` shows), wall seconds (best of RUNS), CPU
# seconds (user + system of that run), MB/s of the file and peak RSS (GNU
# time), and how many times faster than callgrind_annotate.
# Page cache warm: each command runs once before it is measured.
#
#   bench/bench_callgrind.sh [BUILD_DIR] [WORK_DIR] [SIZES_MB] [RUNS]
#
# SIZES_MB: the cg-gen sizes, default "64 512" ("" for none). callgrind_annotate runs
# once on files over 100 MB (it takes minutes there). Needs GNU time
# (scripts/install-deps.sh --with-bench); valgrind for the cc1 profile
# and callgrind_annotate.
set -euo pipefail
build=${1:-build} work=${2:-/tmp/pk-bench-cg} sizes=${3-64 512} runs=${4:-3}
here=$(cd "$(dirname "$0")" && pwd)
profkit=$build/profkit
[ -x "$profkit" ] && [ -x "$build/cg-gen" ] || { echo "bench: build first" >&2; exit 1; }
mkdir -p "$work"

files=() funcs=()
cc1=$work/cc1.callgrind
if [ ! -s "$cc1" ] && command -v valgrind >/dev/null && command -v gcc >/dev/null; then
  echo "bench: profiling cc1 under callgrind (once, a few minutes)" >&2
  gcc -E -I "$here/../include" -I "$here/../src" "$here/../src/formats/callgrind/parse.c" \
    -o "$work/big.i"
  (cd "$work" && valgrind --tool=callgrind --dump-instr=yes --compress-strings=no \
    --compress-pos=no --separate-callers=2 --callgrind-out-file="$cc1" \
    "$(gcc -print-prog-name=cc1)" -quiet -w -O2 -g big.i -o big.s >/dev/null 2>&1) || rm -f "$cc1"
fi
[ -s "$cc1" ] && files+=("$cc1") && funcs+=(main)
for mb in $sizes; do
  gen=$work/generated-${mb}mb.callgrind
  [ -s "$gen" ] || "$build/cg-gen" "$gen" --mb "$mb"
  files+=("$gen") funcs+=(gen_function_1)
done

# "wall cpu peak_kb" of a command, best wall of n runs (output discarded)
tfile=$(mktemp)
trap 'rm -f "$tfile" "$work/x.svg"' EXIT
measure() {
  local n=$1; shift
  "$@" >/dev/null 2>&1 || true
  local best="" cpu=0 rss=0 t u s m
  for ((i = 0; i < n; i++)); do
    /usr/bin/time -o "$tfile" -f '%e %U %S %M' "$@" >/dev/null 2>&1 || true
    read -r t u s m < <(tail -1 "$tfile")
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then
      best=$t cpu=$(awk "BEGIN{print $u + $s}")
    fi
    if [ "$m" -gt "$rss" ]; then rss=$m; fi
  done
  echo "$best $cpu $rss"
}

printf '%-28s %-20s %8s %8s %7s %9s %8s\n' file command wall cpu MB/s 'RSS MiB' faster
for k in "${!files[@]}"; do
  f=${files[$k]} fn=${funcs[$k]}
  bytes=$(stat -L -c %s "$f")
  ann=""
  if command -v callgrind_annotate >/dev/null; then
    n=$runs; [ "$bytes" -gt 100000000 ] && n=1
    read -r ann acpu arss < <(measure "$n" callgrind_annotate "$f")
  fi
  for tool in info flat tree callers flame callgrind_annotate; do
    case $tool in
      callers) cmd=("$profkit" callers "$f" "$fn") ;;
      flame) cmd=("$profkit" flame "$f" -o "$work/x.svg") ;;
      callgrind_annotate) [ -n "$ann" ] || continue ;;
      *) cmd=("$profkit" "$tool" "$f") ;;
    esac
    if [ "$tool" = callgrind_annotate ]; then
      s=$ann cpu=$acpu kb=$arss
    else
      read -r s cpu kb < <(measure "$runs" "${cmd[@]}")
    fi
    awk -v f="$(basename "$f")" -v t="$tool" -v s="$s" -v c="$cpu" -v b="$bytes" -v kb="$kb" \
      -v a="${ann:-0}" 'BEGIN {
        x = (a > 0 && s > 0) ? sprintf("%.1fx", a / s) : "";
        printf "%-28s %-20s %8.2f %8.2f %7.0f %9.1f %8s\n", f, t, s, c,
               (s > 0 ? b / s / 1e6 : 0), kb / 1024, x }'
  done
done
