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
# Undefined behaviour stops the run and leaves its input, like a crash
# (the build also has -fno-sanitize-recover=all).
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}

run() { # target seeds dict max_len
  local target=$1 seeds=$2 dict=$3 max_len=$4 work=$build/fuzz-work/$1
  mkdir -p "$work"
  # inputs that once failed (fuzz/regress/TARGET) run first, each once
  local regress=$here/regress/$target
  if compgen -G "$regress/*" >/dev/null; then
    echo "$target: $(ls "$regress" | wc -l) regression inputs"
    "$build/fuzz/$target" -rss_limit_mb=2048 "$regress"/* 2>&1 | tail -n 3
    cp "$regress"/* "$seeds/"
  fi
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

# metrics/default.yaml: the corpus databases' own and the fixture's.
seeds=$build/fuzz-seeds/hpctk_yaml
rm -rf "$seeds"; mkdir -p "$seeds"
if [ -d "$corpus/hpctoolkit" ]; then
  find "$corpus/hpctoolkit" -path '*metrics/default.yaml' -size -64k \
    -exec sh -c 'cp "$1" "$2/$(echo "$1" | tr / _)"' _ {} "$seeds" \;
fi
printf 'version: 0\ninputs:\n  - &a\n    metric: cycles\n    scope: execution\nroots:\n  - name: cycles\n    variants: {}\n' \
  > "$seeds/minimal.yaml"
run fuzz_hpctk_yaml "$seeds" "$here/hpctk_yaml.dict" 65536

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
# what profkit itself writes: the made-up root, module attributes (build.c)
"$build/profkit" convert -q --to cube -o "$seeds/written.cubex" \
  "$here/../tests/data/callgrind/sample.callgrind"
if [ -d "$corpus/cube" ]; then
  find "$corpus/cube" -type f -size -64k -name '*.cubex' \
    -exec sh -c 'cp "$1" "$2/$(echo "$1" | tr / _)"' _ {} "$seeds" \;
fi
run fuzz_cube "$seeds" "$here/cube.dict" 65536

# hpcrun measurement files: the corpus measurements <= 64 KiB and 02.00/03.00
# images made from them (there are no real ones).
seeds=$build/fuzz-seeds/hpcrun
rm -rf "$seeds"; mkdir -p "$seeds"
if [ -d "$corpus/hpctoolkit/hpctoolkit-tests-meas" ]; then
  "$build/fuzz/fuzz_mkseeds" --hpcrun "$seeds" "$corpus/hpctoolkit/hpctoolkit-tests-meas"
fi
run fuzz_hpcrun "$seeds" "$here/hpcrun.dict" 65536

# Legacy HPCToolkit (experiment.xml 2.x): each small corpus database's
# experiment.xml with each of its files, framed as fuzz_hpctoolkit_xml.c reads.
seeds=$build/fuzz-seeds/hpctoolkit_xml
rm -rf "$seeds"; mkdir -p "$seeds"
if [ -d "$corpus/hpctoolkit" ]; then
  python3 - "$corpus/hpctoolkit" "$seeds" <<'PY'
import os, struct, sys
root, out = sys.argv[1], sys.argv[2]
kinds = {".metric-db": 0, ".mdb": 1, ".hpctrace": 2, ".mt": 3}
n = 0
for d, _, files in os.walk(root):
    if "experiment.xml" not in files: continue
    xml = open(os.path.join(d, "experiment.xml"), "rb").read()
    if len(xml) > 300000: continue
    others = [f for f in sorted(files) if os.path.splitext(f)[1] in kinds][:2] or [None]
    for f in others:
        b = open(os.path.join(d, f), "rb").read()[:200000] if f else b""
        k = kinds[os.path.splitext(f)[1]] if f else 0
        open(os.path.join(out, "seed%d" % n), "wb").write(struct.pack("<IIB", len(xml), len(b), k) + xml + b)
        n += 1
PY
fi
run fuzz_hpctoolkit_xml "$seeds" "$here/hpctoolkit_xml.dict" 600000

# The draft "Prof2" database (experiment.xml 4.0 + profile.db, cct.db,
# trace.db): the corpus sample, framed as fuzz_prof2.c reads.
seeds=$build/fuzz-seeds/prof2
rm -rf "$seeds"; mkdir -p "$seeds"
draft=$corpus/hpctoolkit/hpcviewer-2022.06-prof2-draft/empty-trace
if [ -d "$draft" ]; then
  python3 - "$draft" "$seeds/seed0" <<'PY'
import os, struct, sys
parts = [open(os.path.join(sys.argv[1], f), "rb").read()
         for f in ("experiment.xml", "profile.db", "cct.db", "trace.db")]
open(sys.argv[2], "wb").write(struct.pack("<4I", *map(len, parts)) + b"".join(parts))
PY
fi
run fuzz_prof2 "$seeds" "$here/prof2.dict" 65536

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

# pprof profile.proto: the corpus's pprof files (gzip and inflated), the
# profile tests/support/pprof_build.c makes, and the project's samples
# written as pprof (plain and gzip).
seeds=$build/fuzz-seeds/pprof
rm -rf "$seeds"; mkdir -p "$seeds"
if [ -d "$corpus/pprof" ]; then
  find "$corpus/pprof" -name '*.pb.gz' -size -128k \
    -exec sh -c 'cp "$1" "$2/$(echo "$1" | tr / _)"; gzip -dc "$1" > "$2/$(echo "$1" | tr / _).pb"' \
    _ {} "$seeds" \;
fi
"$build/fuzz/fuzz_mkseeds" --pprof "$seeds" "$here/../tests/data/callgrind/sample.callgrind" \
  "$here/../tests/data/cube/sample.cubex"
run fuzz_pprof "$seeds" "$here/pprof.dict" 300000

# Derived-metric expressions (flat -m 'miss=D1mr/Dr'): a few of the
# documented forms as seeds.
seeds=$build/fuzz-seeds/expr
rm -rf "$seeds"; mkdir -p "$seeds"
printf 'D1mr/Dr' >"$seeds/ratio"
printf '(Ir - Dr) * 2 + -D1mr / Dr' >"$seeds/mixed"
printf 'cycles/"CPUTIME (sec)"' >"$seeds/quoted"
run fuzz_expr "$seeds" "$here/expr.dict" 256

# User regular expressions (--focus, the view's search): flags byte,
# expression, NUL, name.
seeds=$build/fuzz-seeds/pattern
rm -rf "$seeds"; mkdir -p "$seeds"
printf '\000^(solve|dot)$\000solve' >"$seeds/alt"
printf '\001std::vector<.*>\000std::vector<int>::at' >"$seeds/icase"
printf '\000[[:alpha:]_][[:alnum:]_]*{2,5}\\>\000foo bar' >"$seeds/classes"
run fuzz_pattern "$seeds" "$here/pattern.dict" 4096
