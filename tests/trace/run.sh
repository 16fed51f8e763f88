#!/usr/bin/env bash
# tests/trace/run.sh — Chrome trace exports against `profkit trace`
# (check_export.py) on the project's sample database and, when
# ../shared/corpus has them, the corpus databases with traces.
#
#   run.sh export     PROFKIT PK_MKDB SOURCE_DIR WORK [CORPUS]
#   run.sh speedscope PROFKIT PK_MKDB SOURCE_DIR WORK [CORPUS]
#
# speedscope: the same exports read by speedscope's own importer (npm
# package `speedscope`, the version tests/trace/package-lock.json pins),
# installed once with npm into WORK/npm (npm_install.sh: a cache in the
# build tree; only the npm registry is reached). Exit 77 (skipped, saying
# why) when node or npm is missing, or when the package cannot be
# installed outside CI (under CI, set by .ci/run, that fails the test).
set -u
mode=$1 profkit=$2 mkdb=$3 src=$4 work=$5
corpus=${6:-$src/../shared/corpus}
py=/usr/bin/python3
[ -x "$py" ] || py=python3
mkdir -p "$work"
rm -rf "$work/sample" "$work/out"
"$mkdb" "$work/sample" >/dev/null || exit 1
dbs=("$work/sample" "$work/sample@--location=thread=0;--from=35ms;--hide=^dot$")
pp=$corpus/hpctoolkit/pipit-ping-pong lulesh=$corpus/hpctoolkit/hpcviewer-main-issue-233
if [ -d "$pp" ] && [ -d "$lulesh" ]; then
  dbs+=("$pp" "$lulesh")
else
  echo "trace: corpus databases with traces not found under $corpus: the sample only"
fi
args=()
if [ "$mode" = speedscope ]; then
  npmdir=$work/npm
  why=$(bash "$src/tests/trace/npm_install.sh" "$npmdir")
  case $? in
    0) ;;
    77) echo "trace_speedscope: skipped: $why"; exit 77 ;;
    # CI installs the package first (.ci/run): there a failure is a failure
    *) echo "trace_speedscope: $why"; [ -n "${CI:-}" ] && exit 1; echo "skipped"; exit 77 ;;
  esac
  args=(--speedscope "$npmdir/node_modules")
  [ -d "$lulesh" ] && dbs+=("$lulesh@--location=rank=3;--from=1s;--to=2.5s;--hide=omp")
else
  [ -d "$lulesh" ] && dbs+=("$lulesh@--focus=MPI|mca_;--from=2s;--to=6s")
  [ -d "$pp" ] && dbs+=("$pp@--location=rank=1;--from=50ms;--to=200ms")
fi
exec "$py" "$src/tests/trace/check_export.py" "$profkit" "$work/out" "${args[@]}" "${dbs[@]}"
