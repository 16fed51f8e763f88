#!/usr/bin/env bash
# Run every fuzz target for a while, starting from fresh seeds.
#   fuzz/run.sh BUILD_DIR SECONDS      (SECONDS per target)
# Findings (crash-*, leak-*, timeout-*) are left in BUILD_DIR/fuzz-findings.
set -euo pipefail
build=$1 seconds=$2
here=$(cd "$(dirname "$0")" && pwd)
corpus=${PROFKIT_CORPUS:-$here/../../shared/corpus}
findings=$build/fuzz-findings
mkdir -p "$findings"

run() { # target seeds dict max_len
  local target=$1 seeds=$2 dict=$3 max_len=$4 work=$build/fuzz-work/$1
  mkdir -p "$work"
  echo "$target: $(ls "$seeds" | wc -l) seeds, ${seconds}s"
  "$build/fuzz/$target" -max_total_time="$seconds" -max_len="$max_len" -timeout=20 \
    -rss_limit_mb=2048 -dict="$dict" -artifact_prefix="$findings/" \
    -print_final_stats=1 "$work" "$seeds" 2>&1 | tail -n 15
}

# HPCToolkit: fixture databases and the small corpus databases, framed.
seeds=$build/fuzz-seeds/hpctoolkit
rm -rf "$seeds"; mkdir -p "$seeds"
if [ -d "$corpus/hpctoolkit" ]; then
  "$build/fuzz/fuzz_mkseeds" "$seeds" "$corpus/hpctoolkit"
else
  echo "fuzz: corpus not found at $corpus; seeding from fixtures only" >&2
  "$build/fuzz/fuzz_mkseeds" "$seeds"
fi
run fuzz_hpctoolkit "$seeds" "$here/hpctoolkit.dict" 300000

# Callgrind: the project's sample (plain and gzip) and corpus files <= 64 KiB.
seeds=$build/fuzz-seeds/callgrind
rm -rf "$seeds"; mkdir -p "$seeds"
cp "$here/../tests/data/callgrind/sample.callgrind" "$seeds/"
gzip -c "$here/../tests/data/callgrind/sample.callgrind" > "$seeds/sample.callgrind.gz"
if [ -d "$corpus/callgrind" ]; then
  find "$corpus/callgrind" -type f -size -64k ! -name '*.md' ! -name '*.txt' \
    -exec sh -c 'cp "$1" "$2/$(echo "$1" | tr / _)"' _ {} "$seeds" \;
fi
run fuzz_callgrind "$seeds" "$here/callgrind.dict" 65536

# Cube: the project's samples (plain, ZCUBEX, gzip-wrapped) and corpus
# files <= 64 KiB.
seeds=$build/fuzz-seeds/cube
rm -rf "$seeds"; mkdir -p "$seeds"
cp "$here/../tests/data/cube/"*.cubex "$seeds/"
gzip -c "$here/../tests/data/cube/sample.cubex" > "$seeds/sample.cubex.gz"
if [ -d "$corpus/cube" ]; then
  find "$corpus/cube" -type f -size -64k -name '*.cubex' \
    -exec sh -c 'cp "$1" "$2/$(echo "$1" | tr / _)"' _ {} "$seeds" \;
fi
run fuzz_cube "$seeds" "$here/cube.dict" 65536

# profkit.model/1 JSON: the project's samples and small corpus profiles of
# every format, written as JSON (at most 256 KiB each).
seeds=$build/fuzz-seeds/json
rm -rf "$seeds"; mkdir -p "$seeds"
inputs=("$here/../tests/data/callgrind/sample.callgrind" "$here/../tests/data/cube/sample.cubex")
if [ -d "$corpus" ]; then
  while IFS= read -r f; do inputs+=("$f"); done < <(
    find "$corpus/callgrind" "$corpus/cube" -type f -size -64k ! -name '*.md' ! -name '*.txt'
    find "$corpus/hpctoolkit" -name meta.db -size -64k -exec dirname {} \;)
fi
"$build/fuzz/fuzz_mkseeds" --json "$seeds" "${inputs[@]}"
run fuzz_json "$seeds" "$here/json.dict" 300000
