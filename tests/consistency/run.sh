#!/usr/bin/env bash
# ctest consistency_N: the same answers from the CLI, the view's API and
# Python (tests/consistency/run.py). Builds the Python package against this
# build's libprofkit.a (once, under a lock, for every shard); skips (exit
# 77) when no interpreter has NumPy and pandas.
#
#   tests/consistency/run.sh SOURCE_DIR BUILD_DIR SHARD/SHARDS
set -euo pipefail
src=$1 build=$2 shard=$3
py=$("$src/scripts/find-python.sh" --test) || { echo "consistency: skipped (see above)"; exit 77; }
lib=$build/consistency-lib
(
  flock 9
  cd "$src"
  PROFKIT_BUILD_DIR=$build "$py" setup.py -q build --build-lib "$lib" \
    --build-temp "$build/consistency-temp" >/dev/null
) 9>"$build/consistency.lock"
export PYTHONPATH=$lib
exec "$py" "$src/tests/consistency/run.py" --profkit "$build/profkit" \
  --work "$build/consistency-work-${shard%/*}" --corpus "${PROFKIT_CORPUS:-$src/../shared/corpus}" \
  --shard "$shard" "$src/tests/data/callgrind/sample.callgrind" \
  "$src/tests/data/callgrind/sample-b.callgrind" "$src/tests/data/cube/sample.cubex" \
  "$src/tests/data/cube/sample-zcubex.cubex"
