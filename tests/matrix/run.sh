#!/usr/bin/env bash
# The conversion matrix for one writer (ctest: matrix_WRITER): the project's
# own samples (a pk-mkdb database, tests/data's Callgrind and Cube files)
# and every corpus profile, converted and checked by profkit and by the
# target ecosystem's reference readers (../shared/ref-tools).
#
#   tests/matrix/run.sh PROFKIT PK_MKDB SOURCE_DIR WORK_DIR WRITER
set -euo pipefail
profkit=$1 mkdb=$2 src=$3 work=$4 writer=$5
corpus=${PROFKIT_CORPUS:-$src/../shared/corpus}
reftools=${PROFKIT_REFTOOLS:-$src/../shared/ref-tools}
mkdir -p "$work"
[ -d "$reftools" ] || echo "matrix: reference readers not found at $reftools: only profkit's own checks run"
rm -rf "$work/sample-$writer.d"
"$mkdb" "$work/sample-$writer.d" >/dev/null
# hpcviewer-probe compiles itself once per cache dir: one per test, so that
# parallel tests never race on it.
export PK_REFTOOLS_CACHE=${PK_REFTOOLS_CACHE:-$work/reftools-cache}
exec python3 "$src/tests/matrix/matrix.py" --profkit "$profkit" --writer "$writer" \
  --work "$work" --corpus "$corpus" --reftools "$reftools" --table "$work/$writer.table" \
  "$work/sample-$writer.d" "$src"/tests/data/callgrind/*.callgrind "$src"/tests/data/cube/*.cubex
