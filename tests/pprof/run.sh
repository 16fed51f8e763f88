#!/usr/bin/env bash
# profkit and Go's own pprof on the same files (ctest: pprof_go).
#
#   tests/pprof/run.sh PROFKIT PK_MKDB SOURCE_DIR WORK_DIR
#
# Builds tests/pprof/prog.go and profiles it with runtime/pprof (CPU and
# heap), as Go users make their profiles; then check_pprof.py reads the
# corpus's pprof files and those with profkit and with `go tool pprof`,
# and writes every format's samples as pprof and reads them with Go's.
# Then: labels as locations (--location phase=fib equals pprof's
# -tagfocus), diff across formats (a database and its own pprof
# conversion differ nowhere), merge. Skipped (77) without Go.
set -euo pipefail
profkit=$1 mkdb=$2 src=$3 work=$4
corpus=${PROFKIT_CORPUS:-$src/../shared/corpus}
check=$src/tests/pprof/check_pprof.py
if ! command -v go >/dev/null; then
  echo "pprof_go: go not found (Debian golang-go gives go tool pprof): skipped"
  exit 77
fi
rm -rf "$work/out"
mkdir -p "$work/out"
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

# Go's build cache and GOPATH live in the work directory; the program
# uses the standard library only, so nothing is fetched.
export GOCACHE=$work/gocache GOPATH=$work/gopath GO111MODULE=off CGO_ENABLED=0 GOFLAGS=
go build -o "$work/prog" "$src/tests/pprof/prog.go"
"$work/prog" "$work/go-cpu.pb.gz" "$work/go-heap.pb.gz" 400
rm -rf "$work/run.d"
"$mkdb" "$work/run.d" >/dev/null

pprofs=("$work/go-cpu.pb.gz" "$work/go-heap.pb.gz")
if [ -d "$corpus/pprof" ]; then
  while IFS= read -r f; do pprofs+=("$f"); done < <(find "$corpus/pprof" -name '*.pb.gz' | sort)
else
  echo "pprof_go: corpus not found at $corpus: the Go program's profiles only"
fi
python3 "$check" --profkit "$profkit" --work "$work/out" read "${pprofs[@]}" || fail=1
others=("$work/run.d" "$src"/tests/data/callgrind/*.callgrind "$src"/tests/data/cube/*.cubex)
[ -d "$corpus/hpctoolkit" ] && others+=("$corpus/hpctoolkit/hpctoolkit-tests-dbase/small.d")
python3 "$check" --profkit "$profkit" --work "$work/out" write "${pprofs[@]}" "${others[@]}" ||
  fail=1

# Labels as locations: the samples of phase=fib, as pprof's -tagfocus
# keeps them, are what `--location phase=fib` shows.
pprof=$(go tool -n pprof)
want=$("$pprof" -symbolize=none -raw -tagfocus=phase=fib -sample_index=cpu "$work/go-cpu.pb.gz" |
  awk '/^Samples/{s=1; next} /^Locations/{s=0} s && $0 ~ /: / && $1 ~ /^[0-9]+$/ {t += $2} END {printf "%.0f", t}')
got=$("$profkit" tree --json -m cpu --location phase=fib "$work/go-cpu.pb.gz" |
  python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["total"])')
[ "$want" = "$got" ] || bad "--location phase=fib total $got, pprof -tagfocus $want"
"$profkit" threads "$work/go-cpu.pb.gz" | grep -q 'phase fib' || bad "threads names no 'phase fib'"
"$profkit" threads "$work/go-heap.pb.gz" | grep -q 'bytes 48' || bad "threads names no 'bytes 48'"
echo "labels: phase=fib holds $got ns of cpu, as pprof -tagfocus says"

# diff across formats: a database and its own conversion differ nowhere
"$profkit" convert -q --force -o "$work/run.pb.gz" "$work/run.d" 2>/dev/null
for m in "CPUTIME (sec)" cycles; do
  "$profkit" diff --json -n 0 -m "$m" "$work/run.d" "$work/run.pb.gz" >"$work/diff.json" ||
    bad "diff run.d run.pb.gz -m '$m' failed"
  python3 - "$work/diff.json" <<'PY' || bad "diff run.d run.pb.gz -m '$m' finds differences"
import json, sys
d = json.load(open(sys.argv[1]))
changed = [r for r in d["functions"] + d["paths"] if r["status"] != "same"]
print("diff run.d run.pb.gz, %s: totals %r and %r, %d functions or paths differ"
      % (d["metric"], d["a_total"], d["b_total"], len(changed)))
sys.exit(1 if changed or abs(d["a_total"] - d["b_total"]) > 1e-9 * abs(d["a_total"]) else 0)
PY
done
# and two pprof profiles, one of them Go's: a diff that has something to say
"$profkit" diff -m cpu "$work/go-cpu.pb.gz" "$corpus/pprof/parca/fib.pb.gz" >"$work/diff.txt" 2>&1 ||
  [ ! -d "$corpus/pprof" ] || bad "diff go-cpu.pb.gz fib.pb.gz failed: $(head -3 "$work/diff.txt")"
"$profkit" diff "$work/go-cpu.pb.gz" "$work/go-cpu.pb.gz" | grep -q "no differences" ||
  bad "a profile differs from itself"

# merge: two runs as one, which Go reads with the sum of their totals
"$profkit" merge -q --force -o "$work/merged.pb.gz" "$work/go-cpu.pb.gz" "$work/go-cpu.pb.gz" ||
  bad "merge of two pprof profiles failed"
sum() {
  "$pprof" -symbolize=none -raw -sample_index=cpu "$1" |
    awk '/^Samples/{s=1; next} /^Locations/{s=0} s && $0 ~ /: / && $1 ~ /^[0-9]+$/ {t += $2} END {printf "%.0f", t}'
}
one=$(sum "$work/go-cpu.pb.gz") two=$(sum "$work/merged.pb.gz")
python3 -c "import sys; sys.exit(0 if 2 * $one == $two else 1)" ||
  bad "merged cpu total $two, twice $one expected"
echo "merge: go tool pprof reads $two ns, twice the run's $one"
exit $fail
