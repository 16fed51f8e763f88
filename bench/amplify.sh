#!/usr/bin/env bash
# bench/amplify.sh — every reader's worst amplification (issue 32): per
# format, the input shapes that make a reader spend the most memory and
# time per input byte — honest large profiles, trees one chain deep, rows
# stored empty, compressed rows of zeros, blocks and strings shared
# between entries, gzip bombs — made here by the project's generators,
# each opened by `profkit info` (read everything, every metric's total)
# under an address-space limit. Prints one row per input:
#
#   format shape input_MB exit peak_MB seconds mem_ratio s_per_MB
#
# mem_ratio = peak RSS / max(input, 4 MiB) and s_per_MB = seconds /
# max(input MB, 1): below those sizes the process's fixed cost and the
# memory budget's 256 MiB floor dominate, so the ratios are taken against
# them. Fails when a ratio passes the limits docs/robustness.md states
# (MEM_LIMIT, TIME_LIMIT below), or an input takes a signal or the limit.
#
#   amplify.sh BUILD_DIR SOURCE_DIR WORK [SCALE]
#
# SCALE (default 4) sets the sizes: inputs of about SCALE MB where the
# shape allows (`make check` runs SCALE 1; the table in
# docs/robustness.md is SCALE 8). Inputs from ../shared/corpus (legacy
# XML, the draft Prof2, hpcrun) are measured when it is there.
set -u
build=$1 src=$2 work=$3 scale=${4:-4}
profkit=$build/profkit
MEM_LIMIT=80   # peak RSS / max(input, 4 MiB): the budget's 64 plus the model
TIME_LIMIT=3.0 # seconds / max(input MB, 1)
AS_MB=2048     # address-space limit of every run
corpus=$src/../shared/corpus
py=/usr/bin/python3
[ -x "$py" ] || py=python3
rm -rf "$work" && mkdir -p "$work"
asan=0
ldd "$profkit" 2>/dev/null | grep -q libasan && asan=1
failures=0

bytes() { du -sb "$1" | cut -f1; }

# measure FORMAT SHAPE PATH: one row; fails on a signal, a timeout or a
# ratio past the limits (not under ASan, whose shadow memory counts)
measure() {
  local fmt=$1 shape=$2 path=$3 pre=()
  [ "$asan" = 0 ] && pre=(prlimit --as=$((AS_MB << 20)) --)
  local size
  size=$(bytes "$path")
  /usr/bin/time -f "%M %e" -o "$work/time" timeout 300 "${pre[@]}" "$profkit" info "$path" \
    >/dev/null 2>"$work/err"
  local rc=$? rss secs
  read -r rss secs < <(tail -n 1 "$work/time")
  awk -v f="$fmt" -v s="$shape" -v b="$size" -v rc="$rc" -v kb="$rss" -v t="$secs" \
    -v ml="$MEM_LIMIT" -v tl="$TIME_LIMIT" -v asan="$asan" 'BEGIN {
      mb = b / 1048576; floor = mb < 4 ? 4 : mb; per = mb < 1 ? 1 : mb
      mr = kb / 1024 / floor; tr = t / per
      bad = (rc != 0 && rc != 1) || (!asan && (mr > ml || tr > tl))
      printf "%-10s %-14s %8.2f %4d %8.1f %7.2f %9.1f %8.2f%s\n", f, s, mb, rc, kb / 1024, t, mr, tr,
             bad ? "  FAIL" : ""
      exit bad }' || { failures=$((failures + 1)); head -c 300 "$work/err" >&2; }
}

echo "format     shape          input_MB exit  peak_MB seconds mem_ratio s_per_MB"

# ---- HPCToolkit v4 ----
"$build/pk-gen" "$work/v4-honest.d" --profiles $((40 * scale)) --contexts 20000 --seed 1 2>/dev/null
measure v4 honest "$work/v4-honest.d"
"$build/pk-mkdb" --variant overlap "$work/v4-overlap.d"
measure v4 overlap-strings "$work/v4-overlap.d"
"$py" "$src/tests/hostile/mk_deep.py" "$work/deep.json" $((25000 * scale))
"$profkit" convert -q "$work/deep.json" -o "$work/v4-deep.d" 2>/dev/null
measure v4 deep-chain "$work/v4-deep.d"

# ---- profkit JSON ----
measure json deep-chain "$work/deep.json"
"$profkit" convert -q "$work/v4-honest.d" -o "$work/json-honest.json" 2>/dev/null
measure json honest "$work/json-honest.json"

# ---- Cube ----
"$profkit" convert -q "$work/v4-honest.d" -o "$work/cube-honest.cubex" 2>/dev/null
measure cube honest "$work/cube-honest.cubex"
"$profkit" convert -q "$work/deep.json" -o "$work/cube-deep.cubex" 2>/dev/null
measure cube deep-chain "$work/cube-deep.cubex"
mk_cube=$src/tests/hostile/mk_cube.py
"$py" "$mk_cube" zero-rows "$work/cube-zero.cubex" $((30000 * scale))
measure cube zero-rows "$work/cube-zero.cubex"
"$py" "$mk_cube" tiny-rows "$work/cube-tiny.cubex" $((7500 * scale))
measure cube tiny-rows "$work/cube-tiny.cubex"
"$py" "$mk_cube" shared-data "$work/cube-shared.cubex" $((2500 * scale))
measure cube shared-data "$work/cube-shared.cubex"
"$py" "$mk_cube" gzip-bomb "$work/cube-gzip.cubex" $((100 * scale))
measure cube gzip-bomb "$work/cube-gzip.cubex"
"$py" "$mk_cube" anchor-bomb "$work/cube-anchor.cubex" $((100 * scale))
measure cube anchor-bomb "$work/cube-anchor.cubex"

# ---- Callgrind ----
"$build/cg-gen" "$work/cg-honest.callgrind" --mb $((2 * scale)) >/dev/null 2>&1
measure callgrind honest "$work/cg-honest.callgrind"
"$build/cg-gen" "$work/cg-chain.callgrind" --shape chain --functions $((20000 * scale)) >/dev/null 2>&1
measure callgrind chain "$work/cg-chain.callgrind"
# one caller of every function
wide=$((128 * scale))
"$build/cg-gen" "$work/cg-wide.callgrind" --shape wide --functions "$wide" >/dev/null 2>&1
measure callgrind wide "$work/cg-wide.callgrind"

# ---- pprof ----
"$profkit" convert -q "$work/v4-honest.d" -o "$work/pprof-honest.pb.gz" 2>/dev/null
measure pprof honest "$work/pprof-honest.pb.gz"
# a chain as deep as pprof's writer allows (every sample lists its stack)
"$py" "$src/tests/hostile/mk_deep.py" "$work/deep-pprof.json" $((2000 * scale))
"$profkit" convert -q "$work/deep-pprof.json" -o "$work/pprof-deep.pb.gz" 2>/dev/null
measure pprof deep-chain "$work/pprof-deep.pb.gz"
mk_pprof=$src/tests/hostile/mk_pprof.py
"$py" "$mk_pprof" gzip-bomb "$work/pprof-gzip.pb.gz" $((100 * scale))
measure pprof gzip-bomb "$work/pprof-gzip.pb.gz"
"$py" "$mk_pprof" shared-stack "$work/pprof-shared.pb" $((250000 * scale))
measure pprof shared-stack "$work/pprof-shared.pb"

# ---- the corpus: legacy XML, the draft Prof2, hpcrun ----
hk=$corpus/hpctoolkit
if [ -d "$hk" ]; then
  # every experiment.xml database there: 2.x legacy, 4.0 the draft Prof2
  while read -r xml; do
    d=$(dirname "$xml")
    [ -e "$d/meta.db" ] && continue
    fmt=legacy
    head -c 4096 "$xml" | grep -q 'version="4\.' && fmt=prof2
    measure "$fmt" "$(basename "$d" | cut -c1-14)" "$d"
  done < <(find "$hk" -name experiment.xml | sort)
  meas=$hk/hpctoolkit-tests-meas/small.m
  one=$meas/testmeas-small-000000-000-11ac0300-5560-0.hpcrun
  if [ -f "$one" ]; then
    measure hpcrun measurement "$meas"
    "$build/pk-mkhpcrun" --epochs $((200 * scale)) "$one" "$work/epochs.hpcrun" >/dev/null 2>&1 &&
      measure hpcrun epochs "$work/epochs.hpcrun"
  fi
else
  echo "(no ../shared/corpus: legacy XML, Prof2 and hpcrun not measured)"
fi

echo "amplification: $failures over the limits (memory $MEM_LIMIT x, time $TIME_LIMIT s/MB)"
[ "$failures" = 0 ]
