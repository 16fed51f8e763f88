#!/usr/bin/env bash
# tests/parallel/mpi.sh — profkit-mpi (docs/mpi.md) against the serial
# build: `mpirun --oversubscribe -np 1/2/3/4` on every corpus measurement
# directory and a generated one give the serial build's bytes (and
# threads within ranks too); merges across ranks likewise; HPCToolkit's
# own reader reads the result; a rank killed while writing (SIGXFSZ past
# a file size limit) or failing to write (EFBIG) leaves no database that
# looks complete, and in the second case every rank exits 1 with the
# reason. mpirun as root needs OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM).
#
#   mpi.sh PROFKIT PROFKIT_MPI MPIEXEC PK_HPCRUN_GEN SOURCE_DIR WORK_DIR
set -euo pipefail
profkit=$1 pmpi=$2 mpiexec=$3 gen=$4 src=$5 work=$6
. "$src/tests/parallel/lib.sh"
corpus=${PROFKIT_CORPUS:-$src/../shared/corpus}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
# Under AddressSanitizer (make asan-check) OpenMPI's own allocations, made
# by components it loads and unloads, show as leaks at exit: leaks are not
# looked for in the ranks (parallel_threads runs the same library code
# with leak detection on).
run() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$mpiexec" --oversubscribe -np "$@"; }
rm -rf "$work" && mkdir -p "$work"

"$gen" "$work/gen.m" --files 40 --nodes 300 --trace 150 > /dev/null
dirs=("$work/gen.m")
while read -r d; do dirs+=("$d"); done < <(corpus_measurements "$corpus")
# every -np on the generated directory; -np 3 (uneven shares) on the
# corpus's (each mpirun costs a fraction of a second: the test stays short)
for d in "${dirs[@]}"; do
  name=$(basename "$d")
  "$profkit" convert "$d" -o "$work/serial.d" --force -q
  nps="3"
  [ "$d" = "$work/gen.m" ] && nps="1 2 3 4"
  for np in $nps; do
    run "$np" "$pmpi" convert "$d" -o "$work/mpi.d" --force -q
    same_db "$work/serial.d" "$work/mpi.d" "$name, -np $np"
  done
done
"$profkit" convert "$work/gen.m" -o "$work/serial.d" --force -q
run 2 "$pmpi" convert "$work/gen.m" -o "$work/mpi.d" --force -q --threads 2
same_db "$work/serial.d" "$work/mpi.d" "generated, -np 2 x 2 threads"
echo "convert: ${#dirs[@]} measurement directories (-np 1-4 on a generated one, 3 on the corpus's, 2 x 2 threads): identical"

ref=${PROFKIT_REFTOOLS:-$src/../shared/ref-tools}
if [ -x "$ref/bin/hpctesttool-totals" ]; then
  "$profkit" info --json "$work/gen.m" > "$work/gen.json"
  "$ref/bin/hpctesttool-totals" "$work/mpi.d" "$work/gen.json" > "$work/totals.json" ||
    fail "HPCToolkit's reader does not read the -np 2 database as the source's totals: $(tail -20 "$work/totals.json")"
  echo "hpctesttool reads the -np 2 database with the measurement's totals"
fi

h=$corpus/hpctoolkit/hpctoolkit-tests-dbase
sets=("$work/gen.m $work/gen.m $work/gen.m")
[ -d "$h" ] && sets+=("$h/loops-cuda-nvidia-t.d $h/small.d $h/loops-cputime-t.d $h/loops-perf.d")
for set in "${sets[@]}"; do
  for mean in "" --mean; do
    # shellcheck disable=SC2086
    "$profkit" merge $mean $set -o "$work/serial.d" --force -q 2> /dev/null
    for np in 3; do
      # shellcheck disable=SC2086
      run "$np" "$pmpi" merge $mean $set -o "$work/mpi.d" --force -q 2> /dev/null
      same_db "$work/serial.d" "$work/mpi.d" "merge $mean, -np $np"
    done
  done
done
echo "merge: ${#sets[@]} sets, with and without --mean, -np 3: identical"

# rank 1 writes past a file size limit: killed by SIGXFSZ, or (the signal
# ignored) its writes fail with EFBIG
out=$work/dead.d
if run 1 "$pmpi" convert "$work/gen.m" -o "$out" : \
  -np 1 bash -c 'ulimit -f 64; exec "$0" "$@"' "$pmpi" convert "$work/gen.m" -o "$out" \
  > "$work/log" 2>&1; then
  fail "a job whose rank died succeeded"
fi
no_database "$out" "a rank killed while writing"
echo "rank killed while writing: the job fails, no complete-looking database"
out=$work/efbig.d
if run 1 "$pmpi" convert "$work/gen.m" -o "$out" : \
  -np 1 bash -c 'trap "" XFSZ; ulimit -f 64; exec "$0" "$@"' "$pmpi" convert "$work/gen.m" -o "$out" \
  > "$work/log" 2>&1; then
  fail "a job whose rank could not write succeeded"
fi
grep -q "File too large" "$work/log" || fail "rank 0 does not report rank 1's error: $(cat "$work/log")"
no_database "$out" "a rank failing to write"
[ -z "$(ls -d "$out".tmp-* 2> /dev/null)" ] || fail "a temporary directory was left behind"
echo "rank failing to write: every rank exits 1, rank 0 names the error, nothing left"
rm -rf "$work"
