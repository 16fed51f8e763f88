#!/usr/bin/env bash
# bench/bench_pprof.sh — profkit on pprof profiles, beside go tool pprof.
#
# A pk-gen database (PROFILES ranks/threads, CONTEXTS contexts: hpcprof's
# shape, deep call chains, inlined calls; SAMPLES point samples per
# profile) is written as pprof, gzip (the
# writer's speed); then on that file, page cache warm, best of RUNS:
# `profkit info` (read: inflate, both passes, the model), `flat`, `tree`,
# `threads`, `info --locations-from none` (one location), and go tool
# pprof's `-top` and `-raw` (Go's reader and report, the reference), each
# with wall seconds and peak RSS (GNU time).
#
#   bench/bench_pprof.sh [BUILD_DIR] [WORK_DIR] [PROFILES] [CONTEXTS] [SAMPLES] [RUNS]
set -euo pipefail
build=${1:-build} work=${2:-/tmp/pk-bench-pprof} profiles=${3:-32} contexts=${4:-100000}
samples=${5:-20000} runs=${6:-3}
profkit=$build/profkit
[ -x "$profkit" ] && [ -x "$build/pk-gen" ] || { echo "bench: build first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: GNU time needed (scripts/install-deps.sh --with-bench)" >&2; exit 1; }
mkdir -p "$work"
db=$work/gen-$profiles-$contexts-$samples.d out=$work/gen-$profiles-$contexts-$samples.pb.gz
[ -d "$db" ] || "$build/pk-gen" "$db" --profiles "$profiles" --contexts "$contexts" \
  --samples "$samples" --seed 3 >/dev/null

# best wall seconds and its peak RSS (MiB) of RUNS runs of a command
best() {
  local b="" m=""
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>&1 || { echo "fails: $*" >&2; return 1; }
    read -r s k <"$work/t"
    if [ -z "$b" ] || python3 -c "import sys; sys.exit(0 if $s < $b else 1)"; then b=$s m=$k; fi
  done
  printf "%8.3f s %8.1f MiB" "$b" "$(python3 -c "print($m / 1024)")"
}

printf "%-44s %s\n" "write: convert DB -o x.pb.gz" "$(best "$profkit" convert -q --force -o "$out" "$db")"
size=$(stat -c %s "$out")
raw=$(gzip -dc "$out" | wc -c)
echo "file: $out, $((size / 1024)) KiB gzip, $((raw / 1024)) KiB of protobuf, $profiles locations"
printf "%-44s %s\n" "profkit info" "$(best "$profkit" info "$out")"
printf "%-44s %s\n" "profkit info --locations-from none" "$(best "$profkit" info --locations-from none "$out")"
printf "%-44s %s\n" "profkit flat" "$(best "$profkit" flat "$out")"
printf "%-44s %s\n" "profkit tree" "$(best "$profkit" tree "$out")"
printf "%-44s %s\n" "profkit threads" "$(best "$profkit" threads "$out")"
if command -v go >/dev/null; then
  pprof=$(go tool -n pprof)
  printf "%-44s %s\n" "go tool pprof -top" "$(best "$pprof" -symbolize=none -top "$out")"
  printf "%-44s %s\n" "go tool pprof -raw" "$(best "$pprof" -symbolize=none -raw "$out")"
fi
