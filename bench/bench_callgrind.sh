#!/usr/bin/env bash
# bench/bench_callgrind.sh — the Callgrind reader against callgrind_annotate,
# side by side on the same files: a generated large file (cg-gen) and the
# largest file of the corpus. Reports seconds, MB/s and peak RSS of
#   profkit info   (streaming, self costs per function: bounded memory)
#   profkit check  (full call graph per position + reconstructed tree)
#   callgrind_annotate (Debian valgrind), default options
# Page cache warm (each command runs once before it is measured); best of 3
# (callgrind_annotate takes minutes on the generated file: SIZE_MB=64 for a
# quick look).
#
#   bench/bench_callgrind.sh [BUILD_DIR] [WORK_DIR] [SIZE_MB]
#
# Needs GNU time (scripts/install-deps.sh --with-bench) and valgrind.
set -euo pipefail
build=${1:-build} work=${2:-/tmp/pk-bench-cg} mb=${3:-512}
here=$(cd "$(dirname "$0")" && pwd)
corpus=${PROFKIT_CORPUS:-$here/../../shared/corpus}
profkit=$build/profkit
[ -x "$profkit" ] && [ -x "$build/cg-gen" ] || { echo "bench: build first" >&2; exit 1; }
mkdir -p "$work"
gen=$work/generated-${mb}mb.callgrind
[ -s "$gen" ] || "$build/cg-gen" "$gen" --mb "$mb"
files=("$gen")
largest=$(ls -S "$corpus"/callgrind/*/* 2>/dev/null | grep -v '\.\(md\|txt\)$' | head -1 || true)
[ -n "$largest" ] && files+=("$largest")

# best-of-3 "seconds peak_kb" of a command (its output discarded)
tfile=$(mktemp)
trap 'rm -f "$tfile"' EXIT
measure() {
  "$@" >/dev/null 2>&1 || true
  local best="" rss=0 t m
  for _ in 1 2 3; do
    /usr/bin/time -o "$tfile" -f '%e %M' "$@" >/dev/null 2>&1 || true
    read -r t m < <(tail -1 "$tfile")
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
    if [ "$m" -gt "$rss" ]; then rss=$m; fi
  done
  echo "$best $rss"
}

printf '%-44s %-20s %8s %9s %9s\n' file tool seconds MB/s 'RSS MiB'
for f in "${files[@]}"; do
  bytes=$(stat -c %s "$f")
  for tool in "profkit info" "profkit check" "callgrind_annotate"; do
    case $tool in
      "profkit info") cmd=("$profkit" info "$f") ;;
      "profkit check") cmd=("$profkit" check "$f") ;;
      callgrind_annotate) command -v callgrind_annotate >/dev/null || continue
                          cmd=(callgrind_annotate "$f") ;;
    esac
    read -r s kb < <(measure "${cmd[@]}")
    awk -v f="$(basename "$f")" -v t="$tool" -v s="$s" -v b="$bytes" -v kb="$kb" \
      'BEGIN { printf "%-44s %-20s %8.2f %9.0f %9.1f\n", f, t, s, (s > 0 ? b / s / 1e6 : 0), kb / 1024 }'
  done
done
