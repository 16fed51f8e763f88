#!/usr/bin/env bash
# tests/annotate/run.sh — `profkit annotate` end to end.
#
#  1. A small C program (prog.c) compiled here with -g and run under
#     valgrind's callgrind, plain and with --dump-instr/--collect-jumps:
#     every line's self cost, inclusive cost and calls agree with Debian's
#     callgrind_annotate on the same file (compare_callgrind.py).
#  2. Sources: not found (costs alone, said so), found again with
#     --source-dir through a tail of the recorded path, lines past the
#     end of a changed source, control bytes and invalid UTF-8 in a source
#     (escaped in text, valid JSON).
#  3. Golden outputs on the project's Callgrind sample (with a generated
#     demo.c), an HPCToolkit database with its src/ copy (corpus) and the
#     Cube sample (no source lines: exit 1, said so).
#  4. --json on every corpus profile: a document, or exit 1 and a reason.
#
#   run.sh PROFKIT SOURCE_DIR WORK [CORPUS]
set -u
profkit=$1 src=$2 work=$3 corpus=${4:-$src/../shared/corpus}
expected=$src/tests/annotate/expected
rm -rf "$work" && mkdir -p "$work"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
status=0 checks=0
fail() { echo "FAIL: $*"; status=1; }
check() { checks=$((checks + 1)); }

golden() { # NAME EXPECTED_STATUS profkit-args...
  local name=$1 want=$2
  shift 2
  check
  (cd "$work" && "$profkit" "$@") >"$work/$name" 2>"$work/$name.err"
  local rc=$?
  [ $rc -eq "$want" ] || fail "$name: exit $rc, want $want: $(cat "$work/$name.err")"
  cat "$work/$name.err" >>"$work/$name"
  # paths that depend on where the test runs
  sed -i -e "s|$corpus|CORPUS|g" -e "s|$work|WORK|g" "$work/$name"
  if [ -n "${PK_UPDATE_GOLDEN:-}" ]; then cp "$work/$name" "$expected/$name"; fi
  diff -u "$expected/$name" "$work/$name" || fail "$name differs from $expected/$name"
}

# 1. against callgrind_annotate
if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null && command -v cc >/dev/null; then
  cp "$src/tests/annotate/prog.c" "$work/prog.c"
  cc -g -O0 -o "$work/prog" "$work/prog.c" || fail "compiling prog.c"
  for variant in plain instr; do
    opts=()
    [ $variant = instr ] && opts=(--dump-instr=yes --collect-jumps=yes)
    out=$work/callgrind.out.$variant
    valgrind -q --tool=callgrind "${opts[@]}" --callgrind-out-file="$out" "$work/prog" >/dev/null 2>&1 ||
      { fail "valgrind $variant"; continue; }
    check
    "$profkit" annotate --json "$out" prog.c >"$work/$variant.json" || fail "annotate --json $variant"
    callgrind_annotate "$out" "$work/prog.c" >"$work/$variant.ca.txt" 2>&1 || fail "callgrind_annotate $variant"
    "$py" "$src/tests/annotate/compare_callgrind.py" "$work/$variant.json" "$work/$variant.ca.txt" prog.c ||
      fail "annotate $variant differs from callgrind_annotate"
  done
  out=$work/callgrind.out.plain
  # a function: its costly lines with context, nothing of the others
  check
  "$profkit" annotate -C 0 "$out" leaf >"$work/leaf.txt" || fail "annotate leaf"
  grep -q "s += i \* i;" "$work/leaf.txt" && ! grep -q "mid(200)" "$work/leaf.txt" ||
    fail "annotate leaf shows the wrong lines: $(cat "$work/leaf.txt")"
  # 2. sources moved away: costs alone, then found under --source-dir
  # (found by the tail "WORK's name/prog.c" of the recorded path)
  moved=$work/elsewhere/$(basename "$work")
  mkdir -p "$moved" && mv "$work/prog.c" "$moved/prog.c"
  check
  "$profkit" annotate "$out" prog.c >"$work/nosrc.txt" 2>&1 || fail "annotate without the source"
  grep -q "source file not found" "$work/nosrc.txt" && grep -Eq "^ +62,?700 .* +[0-9]+$" "$work/nosrc.txt" ||
    fail "no-source annotation: $(cat "$work/nosrc.txt")"
  check
  "$profkit" annotate -I "$work/elsewhere" "$out" prog.c >"$work/found.txt" 2>&1 || fail "annotate -I"
  grep -q "s += i \* i;" "$work/found.txt" || fail "--source-dir did not find prog.c by a tail of its path"
  # a changed source: lines past its end are listed as such
  head -n 12 "$moved/prog.c" >"$work/prog.c"
  check
  "$profkit" annotate "$out" prog.c >"$work/short.txt" 2>&1 || fail "annotate of a shorter source"
  grep -q "past the end of the file" "$work/short.txt" || fail "lines past the end: $(cat "$work/short.txt")"
  # hostile bytes in a source: escaped on a terminal, valid JSON
  { printf '/* \033[2J\033]0;pwned\007 \xff\xfe */\n'; tail -n +2 "$moved/prog.c"; } >"$work/prog.c"
  check
  "$profkit" annotate "$out" prog.c >"$work/evil.txt" 2>&1 || fail "annotate of odd bytes"
  if LC_ALL=C grep -q $'\033' "$work/evil.txt"; then fail "a source's escape sequence reached the output"; fi
  "$profkit" annotate --json "$out" prog.c | "$py" -c "import json,sys; json.load(sys.stdin)" ||
    fail "annotate --json of odd bytes is not JSON"
else
  echo "valgrind, callgrind_annotate or cc missing: the comparison with callgrind_annotate is skipped"
fi

# 3. goldens: the Callgrind sample with a generated demo.c
mkdir -p "$work/demo-src"
for i in $(seq 1 45); do echo "/* demo.c line $i */"; done >"$work/demo-src/demo.c"
golden sample-callgrind.txt 0 annotate -I demo-src "$src/tests/data/callgrind/sample.callgrind"
golden sample-callgrind-file.txt 0 annotate -I demo-src "$src/tests/data/callgrind/sample.callgrind" demo.c
golden sample-callgrind.json 0 annotate --json -C 1 -I demo-src "$src/tests/data/callgrind/sample.callgrind" work
golden sample-cube.txt 1 annotate "$src/tests/data/cube/sample.cubex"
golden unknown.txt 1 annotate "$src/tests/data/callgrind/sample.callgrind" no_such_thing
if [ -d "$corpus/hpctoolkit/hatchet-cpi-v4" ]; then
  golden hatchet-cpi-v4.txt 0 annotate -C 1 "$corpus/hpctoolkit/hatchet-cpi-v4"
else
  echo "corpus absent: the HPCToolkit golden is skipped"
fi
# a FUNCTION's listing: only its own costs, its self column adding up to
# flat's exclusive value of it (the reviewer's cases, issue 21)
own() { check; "$py" "$src/tests/annotate/own_costs.py" "$profkit" "$@" || fail "annotate $2: not its own costs"; }
loops=$corpus/hpctoolkit/hpctoolkit-tests-dbase/loops-perf.d
if [ -d "$loops" ]; then
  own "$loops" main 1001 1005 1010 # test_separated_loops' loop, main._omp_fn.0's lines
  own "$loops" main._omp_fn.0 1000 1001 1004
  own "$loops" test_separated_loops 35 # the inlined helper's line
  own "$loops" test_separated_loops_helper
fi
py3cg=$corpus/callgrind/generated/python3-nocompress.callgrind.out
if [ -f "$py3cg" ]; then
  own "$py3cg" malloc
  own "$py3cg" _int_malloc
fi
if [ -f "$work/callgrind.out.plain" ]; then own "$work/callgrind.out.plain" mid; fi
# every corpus profile: exit 0 with a profkit.annotate/1 document, or exit 1
# (nothing to annotate) with a message; never a crash
if [ -d "$corpus" ]; then
  for f in "$corpus"/hpctoolkit/*/ "$corpus"/cube/*/*.cubex "$corpus"/callgrind/*/*; do
    [ -e "$f" ] || continue
    case "$f" in *.md|*.txt) continue ;; esac
    check
    timeout 120 "$profkit" annotate --json "$f" >"$work/corpus.json" 2>"$work/corpus.err"
    rc=$?
    if [ $rc -eq 0 ]; then
      "$py" -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['schema']=='profkit.annotate/1' and d['files']" \
        "$work/corpus.json" || fail "annotate --json $f: not a profkit.annotate/1 document"
    elif [ $rc -ne 1 ] || [ ! -s "$work/corpus.err" ]; then
      fail "annotate --json $f: exit $rc: $(head -c 300 "$work/corpus.err")"
    fi
  done
fi
echo "annotate: $checks checks, status $status"
exit $status
