#!/usr/bin/env bash
# The conversion matrix for one writer (ctest: matrix_WRITER): the project's
# own samples (a pk-mkdb database, tests/data's Callgrind and Cube files)
# and every corpus profile, converted and checked by profkit and by the
# target ecosystem's reference readers (../shared/ref-tools).
#
# The sample database is also written in the intermediate v4.0 layout
# (pk-mkdb40), whose entry points are "<program root>" root contexts as
# hpcprof wrote them in 2022 (docs/hpctoolkit-v4.0-intermediate.md).
#
#   tests/matrix/run.sh PROFKIT PK_MKDB SOURCE_DIR WORK_DIR WRITER [PK_MKDB40]
set -euo pipefail
profkit=$1 mkdb=$2 src=$3 work=$4 writer=$5 mkdb40=${6:-}
corpus=${PROFKIT_CORPUS:-$src/../shared/corpus}
reftools=${PROFKIT_REFTOOLS:-$src/../shared/ref-tools}
mkdir -p "$work"
[ -d "$reftools" ] || echo "matrix: reference readers not found at $reftools: only profkit's own checks run"
rm -rf "$work/sample-$writer.d" "$work/sample-v40-$writer.d"
"$mkdb" "$work/sample-$writer.d" >/dev/null
samples=("$work/sample-$writer.d")
if [ -n "$mkdb40" ]; then
  "$mkdb40" "$work/sample-$writer.d" "$work/sample-v40-$writer.d" >/dev/null
  samples+=("$work/sample-v40-$writer.d")
fi
# hpcviewer-probe compiles itself once per cache dir: one per test, so that
# parallel tests never race on it.
export PK_REFTOOLS_CACHE=${PK_REFTOOLS_CACHE:-$work/reftools-cache}
exec python3 "$src/tests/matrix/matrix.py" --profkit "$profkit" --writer "$writer" \
  --work "$work" --corpus "$corpus" --reftools "$reftools" --table "$work/$writer.table" \
  "${samples[@]}" "$src"/tests/data/callgrind/*.callgrind "$src"/tests/data/cube/*.cubex
