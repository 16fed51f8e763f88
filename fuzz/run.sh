#!/usr/bin/env bash
# Run every fuzz target for a while, starting from fresh seeds.
#   fuzz/run.sh BUILD_DIR SECONDS
# Findings (crash-*, leak-*, timeout-*) are left in BUILD_DIR/fuzz-findings.
set -euo pipefail
build=$1 seconds=$2
here=$(cd "$(dirname "$0")" && pwd)
corpus=${PROFKIT_CORPUS:-$here/../../shared/corpus}
seeds=$build/fuzz-seeds work=$build/fuzz-work findings=$build/fuzz-findings
rm -rf "$seeds"; mkdir -p "$seeds" "$work" "$findings"
if [ -d "$corpus/hpctoolkit" ]; then
  "$build/fuzz/fuzz_mkseeds" "$seeds" "$corpus/hpctoolkit"
else
  echo "fuzz: corpus not found at $corpus; seeding from fixtures only" >&2
  "$build/fuzz/fuzz_mkseeds" "$seeds"
fi
echo "fuzz_hpctoolkit: $(ls "$seeds" | wc -l) seeds, ${seconds}s"
"$build/fuzz/fuzz_hpctoolkit" -max_total_time="$seconds" -max_len=300000 -timeout=20 \
  -rss_limit_mb=2048 -dict="$here/hpctoolkit.dict" -artifact_prefix="$findings/" \
  -print_final_stats=1 "$work" "$seeds" 2>&1 | tail -n 15
