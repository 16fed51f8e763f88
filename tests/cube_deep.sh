#!/usr/bin/env bash
# The ecosystem's readers on deep call chains profkit writes (ctest
# cube_deep; test_cube_write checks the 100 000-deep chain with profkit's
# own reader). pycubexr reads a 50 000-deep chain with the right totals
# (its time grows faster than the depth: 3 s at 50 000, 16 s at 100 000).
# CubeLib's memory grows with the square of the depth (0.44 GB at 10 000,
# 1.65 GB at 20 000, 6.4 GB at 40 000; at 100 000 it is killed beyond
# 24 GB: its own limit, docs/cube.md), so it reads a 10 000-deep one.
#
#   tests/cube_deep.sh TEST_CUBE_WRITE SOURCE_DIR WORK_DIR
set -euo pipefail
gen=$1 src=$2 work=$3
reftools=${PROFKIT_REFTOOLS:-$src/../shared/ref-tools}
if [ ! -x "$reftools/bin/cube-totals" ] || [ ! -x "$reftools/bin/pycubexr-totals" ]; then
  echo "SKIP: reference readers not found at $reftools"
  exit 77
fi
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

start=$(date +%s)
"$gen" --deep 50000 "$work/deep50k.cubex" || fail "writing the 50 000-deep chain"
echo "50 000-deep chain written in $(( $(date +%s) - start )) s"
out=$("$reftools/bin/pycubexr-totals" "$work/deep50k.cubex")
# the chain's inclusive values: depth d holds 50001 - d, the root 50001
echo "$out" | grep -q '"ok": true' || fail "pycubexr: $out"
echo "$out" | grep -q '"n_cnodes": 50001, "n_locations": 1, "n_roots": 1' || fail "pycubexr: $out"
echo "$out" | grep -q '"sum_stored": 1250075001.0, "root_incl": 50001.0' || fail "pycubexr: $out"

"$gen" --deep 10000 "$work/deep10k.cubex" || fail "writing the 10 000-deep chain"
out=$("$reftools/bin/cube-totals" "$work/deep10k.cubex") || fail "CubeLib: $out"
echo "$out" | grep -q '^H cnodes=10001 roots=1 locations=1 metrics=1' || fail "CubeLib: $out"
echo "$out" | grep -q 'program=10001' || fail "CubeLib: $out"
echo "ok: pycubexr reads 50 000 frames deep, CubeLib 10 000"
