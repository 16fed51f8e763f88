#!/usr/bin/env bash
# ctest python_api: builds the Python package against this build's
# libprofkit.a into BUILD_DIR/python-lib (the source tree stays as it is) and
# runs tests/python with pytest. Skips (exit 77) when no interpreter has
# NumPy, pandas and pytest.
#
#   tests/python/run.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
py=$("$src/scripts/find-python.sh" --test) || { echo "python_api: skipped (see above)"; exit 77; }
cd "$src"
PROFKIT_BUILD_DIR=$build "$py" setup.py -q build --build-lib "$build/python-lib" \
  --build-temp "$build/python-temp" >/dev/null
export PYTHONPATH=$build/python-lib PROFKIT_BIN=$build/profkit PROFKIT_SOURCE=$src
export PROFKIT_CORPUS=${PROFKIT_CORPUS:-$src/../shared/corpus}
exec "$py" -m pytest -q -p no:cacheprovider "$src/tests/python"
