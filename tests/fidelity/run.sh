#!/usr/bin/env bash
# tests/fidelity/run.sh — issue 31: the numbers a user of valgrind's and
# HPCToolkit's tools sees are profkit's too (check.py does the checking).
#
#  3. A Callgrind file's stated totals (summary:, else totals:) are the
#     program totals, as callgrind_annotate reports them; the cost lines'
#     sum is kept beside them; `check` names every event that differs. On
#     runs made here with valgrind (--collect-systime, --cache-sim=yes,
#     --separate-callers of a program that reaps children in a signal
#     handler, as a shell does) and on an Xdebug file (tests/data).
#     The Callgrind writer keeps them, HPCToolkit and Cube say they cannot.
#  5. A written Callgrind event names the unit its integers are in.
#  8. A profile whose values are all 0 is written whole (every function)
#     and drawn as an empty flame graph, exit 0.
#  9. The first written event is the metric the views show by default.
# 10. `check` of a fresh --separate-threads=yes run exits 0 (valgrind
#     wrote it as intended); a file that lost a cost line still warns.
#
#   run.sh PROFKIT PK_MKDB SOURCE_DIR WORK [CORPUS]
# Exit 77 (skipped) without valgrind, a C compiler or callgrind_annotate.
set -u
profkit=$1 mkdb=$2 src=$3 work=$4 corpus=${5:-$src/../shared/corpus}
check="python3 $src/tests/fidelity/check.py"
data=$src/tests/data/callgrind
status=0
fail() { echo "FAIL: $*"; status=1; }
for tool in valgrind cc callgrind_annotate python3; do
  command -v $tool >/dev/null || { echo "fidelity: $tool not installed: skipped"; exit 77; }
done
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

grind() { # OUT PROGRAM VALGRIND-OPTIONS...: callgrind a program built here
  local out=$1 prog=$2
  shift 2
  timeout 120 valgrind -q --tool=callgrind "$@" --callgrind-out-file="$out" "./$prog" >/dev/null 2>&1 ||
    fail "valgrind $* ./$prog"
}

cc -g -O0 -o prog "$src/tests/annotate/prog.c" || fail "compiling prog.c"
cc -g -O0 -o signals "$src/tests/fidelity/signals.c" || fail "compiling signals.c"
cc -g -O0 -pthread -o threads "$src/tests/fidelity/threads.c" || fail "compiling threads.c"

# --- 3: stated totals ---
grind systime.out prog --collect-systime=yes
grind cache.out prog --cache-sim=yes
grind callers.out.%p signals --separate-callers=2
for f in systime.out cache.out callers.out.* "$data/xdebug-stated.callgrind"; do
  $check stated "$profkit" "$f" || fail "stated totals of $f"
done
# the Callgrind writer keeps them; a calling-context tree cannot, and says so
"$profkit" convert "$data/xdebug-stated.callgrind" -o xdebug.callgrind 2>/dev/null ||
  fail "convert xdebug to callgrind"
$check stated "$profkit" xdebug.callgrind || fail "stated totals of the written xdebug.callgrind"
"$profkit" convert "$data/xdebug-stated.callgrind" -o xdebug.d 2>lost.txt || fail "convert to .d"
grep -q "left out the stated total of metric Time_(10ns)" lost.txt ||
  fail "the HPCToolkit writer does not say it cannot keep the stated total"

# --- 10: a --separate-threads run is checked without a warning ---
grind threads.out threads --separate-threads=yes --cache-sim=yes
grind plain.out threads --separate-threads=yes
for base in threads.out plain.out; do
  [ -s "$base-02" ] || fail "valgrind wrote no per-thread files for $base"
  "$profkit" check "$base" >check-$base.txt 2>&1 || fail "check $base exits 1: $(grep -m3 warning check-$base.txt)"
  for f in "$base"-0*; do
    $check stated "$profkit" "$f" || fail "stated totals of $f"
  done
done
# ...while a file that lost a cost line is still a warning
awk 'done || !/^[0-9]+ [0-9]/ || prev ~ /^calls=/ {print; prev = $0; next} {done = 1}' \
  threads.out-02 >cut.out
"$profkit" check cut.out >check-cut.txt 2>&1 && fail "check of a file missing a cost line exits 0"
grep -q "totals-mismatch" check-cut.txt || fail "no totals-mismatch for a file missing a cost line"

# --- 5 and 9: units in event names, the default metric first ---
"$mkdb" sample.d >/dev/null || fail "pk-mkdb"
"$profkit" convert sample.d -o sample.callgrind 2>/dev/null || fail "convert sample.d"
$check units "$profkit" sample.callgrind || fail "units of sample.callgrind"
"$profkit" convert sample.d -o sample.json 2>/dev/null || fail "convert sample.d to JSON"
python3 - sample.json <<'PY' || fail "zeroing sample.json"
import json, sys
d = json.load(open(sys.argv[1]))
first = {(c["summary"], c["raw_id"]) for c in d["columns"] if c["metric"] == 0}
for name, keep in (("nofirst.json", lambda l, col: (l["summary"], col) not in first),
                   ("zero.json", lambda l, col: False)):
    z = json.loads(json.dumps(d))
    for l in z["locations"]:
        for row in l["values"]:
            for i in range(1, len(row), 2):
                row[i + 1] = row[i + 1] if keep(l, row[i]) else 0
    json.dump(z, open(name, "w"))
PY
for s in nofirst.json "$data/zero-first-event.callgrind" sample.d; do
  out=first-$(basename "$s").callgrind
  "$profkit" convert "$s" -o "$out" 2>/dev/null || fail "convert $s"
  $check first "$profkit" "$s" "$out" || fail "first event of $out"
done
if [ -d "$corpus/hpctoolkit/hpcviewer-2023.01-metadb/vectorAdd" ]; then # GPUOP (sec) in attoseconds
  "$profkit" convert "$corpus/hpctoolkit/hpcviewer-2023.01-metadb/vectorAdd" -o gpu.callgrind 2>/dev/null
  $check units "$profkit" gpu.callgrind || fail "units of gpu.callgrind"
fi

# --- 8: a profile of zeros, written whole and drawn empty ---
zeros=(zero.json)
if [ -d "$corpus/hpctoolkit/hatchet-cpi-v2" ]; then # the legacy layout of the issue, values zeroed
  cp -r "$corpus/hpctoolkit/hatchet-cpi-v2" legacy-zero && chmod -R u+w legacy-zero
  for f in legacy-zero/*.metric-db; do
    python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[32:] = bytes(len(b) - 32); open(sys.argv[1], "wb").write(b)' "$f"
  done
  sed -i -E 's/(<M [^>]*v=")[^"]*"/\10"/g' legacy-zero/experiment.xml
  zeros+=(legacy-zero)
fi
for s in "${zeros[@]}"; do
  "$profkit" convert "$s" -o "$s.callgrind" 2>/dev/null || fail "convert $s"
  $check whole "$profkit" "$s" "$s.callgrind" || fail "$s written whole"
  for p in "$s" "$s.callgrind"; do
    "$profkit" flame "$p" -o "$p.svg" 2>flame.err || fail "flame $p exits $?: $(cat flame.err)"
    grep -q "No cost" "$p.svg" || fail "flame $p draws no empty graph"
    "$profkit" flame --folded "$p" >/dev/null || fail "flame --folded $p"
  done
done

[ $status = 0 ] && echo "fidelity: all checks passed"
exit $status
