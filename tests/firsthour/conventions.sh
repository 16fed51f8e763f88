#!/usr/bin/env bash
# tests/firsthour/conventions.sh — the output conventions of git,
# coreutils and pprof that a newcomer expects of profkit (issue 34):
# `-o -` is standard output for every writer, names are whole off a
# terminal, progress never claims a total smaller than what is done,
# `profkit help CMD`, dump's sections, errors that name a missing folder,
# column headers that state a unit once, Cube's metric tree in `info`,
# every row in a CSV, and loader frames folded in a tree. Each check failed
# on 67c0634.
#
#   conventions.sh PROFKIT PK_MKDB SOURCE_DIR WORK_DIR
set -u
unset COLUMNS
profkit=$(realpath "$1") mkdb=$(realpath "$2") src=$(realpath "$3") work=$(realpath -m "$4")
corpus=${PROFKIT_CORPUS:-$src/../shared/corpus}
data=$src/tests/data
cg=$data/callgrind/sample.callgrind
failures=0 checks=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
check() { checks=$((checks + 1)); }

# run STATUS CMD... : run in $work/run (stdout in out, stderr in err), check the status
run() {
  local want=$1; shift
  check
  (cd "$work/run" && "$@") >"$work/out" 2>"$work/err"
  local got=$?
  [ "$got" -eq "$want" ] || fail "exit $got (want $want): $* ($(head -c 300 "$work/err"))"
}
# on_tty CMD... : run with standard output (and stderr) on a terminal, via script(1)
on_tty() {
  local cmd
  printf -v cmd '%q ' "$@"
  (cd "$work/run" && script -qec "$cmd" /dev/null) >"$work/tty" 2>&1
}

rm -rf "$work" && mkdir -p "$work/run"
"$mkdb" "$work/sample" || { echo "cannot build the sample database" >&2; exit 1; }
db=$work/sample
have_script=0
command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1 && have_script=1

# --- `-o -` is standard output, never a file named '-' ---
stdout_is() { # DESCRIPTION PATTERN : out starts with PATTERN, no file '-', no "wrote" on stdout
  check
  [ -e "$work/run/-" ] && { fail "$1 wrote a file named '-'"; rm -f "$work/run/-"; }
  [ -s "$work/out" ] || fail "$1 wrote nothing to standard output"
  head -c 4096 "$work/out" | grep -aq -- "$2" || fail "$1: standard output is not what was asked for: $(head -c 120 "$work/out")"
  grep -aq '^wrote ' "$work/out" && fail "$1: its report went to standard output with the data"
}
for to in csv json folded speedscope callgrind chrome; do
  run 0 "$profkit" convert "$cg" -o - --to $to
  case $to in
  csv) pat='^location,context,parent' ;; json) pat='"schema": "profkit.model/1"' ;;
  folded) pat='^main' ;; speedscope) pat='speedscope.app/file-format-schema' ;;
  callgrind) pat='^# callgrind format' ;; chrome) pat='traceEvents' ;;
  esac
  stdout_is "convert --to $to -o -" "$pat"
done
run 0 "$profkit" convert "$db" -o - --to chrome -z
check; gzip -t <"$work/out" 2>/dev/null || fail "convert --to chrome -z -o - is not gzip"
run 0 "$profkit" convert "$db" -o - --to cube
check; tar tf - <"$work/out" 2>/dev/null | grep -q anchor.xml || fail "convert --to cube -o - is no Cube archive"
stdout_is "convert --to cube -o -" "anchor.xml\|index"
run 0 "$profkit" convert "$cg" -o - --to csv --force
stdout_is "convert --force -o -" '^location'
run 0 "$profkit" flame "$db" -o -
stdout_is "flame -o -" '<svg'
run 0 "$profkit" flame --folded "$db" -o -
stdout_is "flame --folded -o -" 'main'
run 0 "$profkit" merge "$cg" "$data/callgrind/sample-b.callgrind" -o - --to callgrind
stdout_is "merge -o -" '^# callgrind format'
run 0 "$profkit" view "$cg" -o -
stdout_is "view -o -" '<!DOCTYPE html>\|<html'
run 2 "$profkit" convert "$db" -o - --to hpctoolkit
grep -q "directory" "$work/err" || fail "convert --to hpctoolkit -o - does not say a database is a directory"
run 2 "$profkit" convert "$db" -o - --to callgrind --split
run 2 "$profkit" merge "$cg" "$cg" -o - --to json --json
if [ $have_script = 1 ]; then
  for to in cube chrome; do
    extra=; [ $to = chrome ] && extra=-z
    check
    on_tty "$profkit" convert "$db" -o - --to $to $extra
    rc=$?
    [ $rc -eq 2 ] || fail "convert --to $to $extra -o - to a terminal: exit $rc (want 2)"
    grep -q "binary: not written to a terminal" "$work/tty" || fail "binary $to to a terminal not refused: $(head -c 200 "$work/tty")"
  done
else
  echo "note: script(1) missing: binary output to a terminal not checked" >&2
fi

# --- profkit help CMD ---
for c in tree flat convert dump; do
  run 0 "$profkit" help $c
  check; head -1 "$work/out" | grep -q "^Usage: profkit $c " || fail "'profkit help $c' is not $c's help: $(head -1 "$work/out")"
done
run 0 "$profkit" help
check; grep -q '^Commands:' "$work/out" || fail "'profkit help' is not the global usage"
run 2 "$profkit" help frobnicate
grep -q "unknown command 'frobnicate'" "$work/err" || fail "'profkit help frobnicate' does not say the command is unknown"

# --- errors name the missing folder, not a temporary file ---
touch "$work/run/afile"
for args in "convert $cg -o nodir/x.callgrind --split" "convert $db -o nodir/x.d" \
  "convert $cg -o nodir/x.cubex" "convert $cg -o nodir/x.json" "convert $cg -o nodir/x.csv" \
  "convert $cg -o nodir/x.folded" "convert $db -o nodir/x.chrome.json" "flame $cg -o nodir/x.svg" \
  "merge $cg $cg -o nodir/x.json" "view $cg -o nodir/x.html"; do
  # shellcheck disable=SC2086
  run 1 "$profkit" $args
  check
  grep -q "the folder nodir does not exist" "$work/err" || fail "'$args': $(cat "$work/err")"
  grep -q '\.tmp-' "$work/err" && fail "'$args' names a temporary file: $(cat "$work/err")"
done
run 1 "$profkit" convert "$cg" -o afile/x.json
check; grep -q "afile is not a folder" "$work/err" || fail "a file as the folder: $(cat "$work/err")"

# --- names are whole off a terminal; shortened on one, or for COLUMNS / --width ---
long='ns_one::ns_two::VeryLongTemplateClassName<std::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::vector<double, std::allocator<double> > >::a_rather_long_member_function_name_that_goes_on(int, double const&, std::map<int, int>&)'
for v in a b; do
  c=1000; [ $v = b ] && c=3000
  printf '# callgrind format\nversion: 1\nevents: Ir\n\nfl=long.c\nfn=main\n1 10\ncfn=%s\ncalls=1 2\n2 %s\n\nfn=%s\n2 %s\n' \
    "$long" $c "$long" $c >"$work/long-$v.callgrind"
done
la=$work/long-$v.callgrind lb=$work/long-b.callgrind la=$work/long-a.callgrind
whole='a_rather_long_member_function_name_that_goes_on(int, double const&, std::map<int, int>&)'
for args in "flat $la" "tree $la" "callers $la .*goes_on.*" "callees $la main" "diff $la $lb" \
  "diff --focus main $la $lb" "annotate $la" "flat --csv $la"; do
  # shellcheck disable=SC2086
  run 0 "$profkit" $args
  check; grep -qF "$whole" "$work/out" || fail "'$args' into a pipe cuts names: $(grep -i verylong "$work/out" | head -2)"
done
for args in "flat $la" "tree $la" "callees $la main" "diff $la $lb"; do
  # shellcheck disable=SC2086
  run 0 "$profkit" ${args%% *} --width 60 ${args#* }
  check; grep -qF "$whole" "$work/out" && fail "'$args --width 60' does not shorten names"
  # shellcheck disable=SC2086
  run 0 env COLUMNS=70 "$profkit" $args
  check; grep -qF "$whole" "$work/out" && fail "'COLUMNS=70 $args' does not shorten names"
done
run 2 "$profkit" flat --width wide "$la"
if [ $have_script = 1 ]; then
  for cmd in flat tree; do
    check
    on_tty bash -c "stty cols 80 2>/dev/null; exec $(printf '%q' "$profkit") $cmd $(printf '%q' "$la")"
    grep -qF "$whole" "$work/tty" && fail "'$cmd' on an 80-column terminal does not shorten names"
    grep -q 'VeryLong' "$work/tty" || fail "'$cmd' on a terminal: $(head -c 300 "$work/tty")"
  done
fi

# --- progress never claims a total smaller than what is written ---
honest_progress() { # the progress lines in $work/tty
  python3 - "$work/tty" <<'PY'
import re, sys
units = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "TiB": 1024**4}
text = open(sys.argv[1], "rb").read().decode("utf-8", "replace").replace("\r", "\n")
seen = 0
for m in re.finditer(r"convert: ([0-9.]+) (B|KiB|MiB|GiB|TiB)(?: of ~([0-9.]+) (B|KiB|MiB|GiB|TiB))? written", text):
    seen += 1
    if m.group(3) and float(m.group(1)) * units[m.group(2)] > float(m.group(3)) * units[m.group(4)] * 1.0001:
        sys.exit("dishonest progress: " + m.group(0))
sys.exit(0 if seen else "no progress line")
PY
}
if [ $have_script = 1 ]; then
  progress_inputs="$db"
  big=$corpus/callgrind/generated/python3-heavy-instr-jumps-nocompress.callgrind.out
  [ -f "$big" ] && progress_inputs="$progress_inputs $big"
  for in in $progress_inputs; do
    for out in p.d p.json; do
      rm -rf "$work/run/$out"
      check
      on_tty "$profkit" convert "$in" -o "$out" || fail "convert $in -o $out on a terminal failed"
      msg=$(honest_progress 2>&1) || fail "convert $(basename "$in") -o $out: $msg"
    done
  done
fi

# --- dump: an unknown section is a usage error; each file's own sections ---
cube=$data/cube/sample.cubex zcube=$data/cube/sample-zcubex.cubex
for f in "$cg" "$cube" "$db"; do
  run 2 "$profkit" dump --section nosuch "$f"
  check; grep -q "unknown dump section 'nosuch'.*its sections: " "$work/err" || fail "dump --section nosuch $f: $(cat "$work/err")"
  [ -s "$work/out" ] && fail "dump --section nosuch $f printed records"
done
run 0 "$profkit" dump --list-sections "$cg"
check; [ "$(tr '\n' ' ' <"$work/out")" = "parts events functions costs calls jumps " ] || fail "dump --list-sections of a Callgrind file: $(tr '\n' ' ' <"$work/out")"
run 0 "$profkit" dump --list-sections "$cube"
check; grep -qx members "$work/out" && grep -qx values "$work/out" && ! grep -qx headers "$work/out" || fail "dump --list-sections of a .cubex: $(tr '\n' ' ' <"$work/out")"
run 0 "$profkit" dump --list-sections "$db"
check; grep -qx headers "$work/out" || fail "dump --list-sections of a database"
run 0 "$profkit" dump --list-sections
check; grep -qx 'cube:' "$work/out" && grep -qx 'callgrind:' "$work/out" || fail "dump --list-sections without a file lists no formats"
fib=$corpus/pprof/parca/fib.pb.gz
if [ -f "$fib" ]; then # pprof: its own sections, its messages at their offsets
  run 0 "$profkit" dump --list-sections "$fib"
  check; [ "$(tr '\n' ' ' <"$work/out")" = "profile types samples mappings locations functions strings " ] || fail "dump --list-sections of a pprof file: $(tr '\n' ' ' <"$work/out")"
  run 2 "$profkit" dump --section nosuch "$fib"
  run 0 "$profkit" dump --json "$fib"
  check
  python3 - "$fib" "$work/out" <<'PY' || fail "dump --json of a pprof file does not match its bytes"
import gzip, json, sys
raw = gzip.open(sys.argv[1]).read()
recs = [json.loads(l) for l in open(sys.argv[2])]
tags = {"value_type": 1, "sample": 2, "mapping": 3, "location": 4, "function": 5, "string": 6, "period": 12}
seen = {}
for r in recs:
    assert r["file"] == "fib.pb.gz (decompressed)", r
    if r["type"] in tags:
        seen[r["type"]] = seen.get(r["type"], 0) + 1
        assert raw[r["offset"]] >> 3 == tags[r["type"]], r
    if r["type"] == "string":
        o = r["offset"] + 1
        n = 0; shift = 0
        while True:
            b = raw[o]; o += 1; n |= (b & 0x7F) << shift; shift += 7
            if b < 0x80: break
        assert raw[o:o + n].decode("utf-8", "replace") == r["fields"]["value"], r
assert all(seen.get(t) for t in tags), seen
PY
fi

# --- dump of a .cubex: members, anchor, metrics, index and data with offsets ---
for f in "$cube" "$zcube"; do
  run 0 "$profkit" dump --json "$f"
  check
  python3 - "$f" "$work/out" <<'PY' || fail "dump --json $f does not match the archive's bytes"
import json, struct, sys, tarfile
path, out = sys.argv[1], sys.argv[2]
recs = [json.loads(l) for l in open(out)]
types = {r["type"] for r in recs}
need = {"member", "anchor", "metric", "region", "cnode", "location", "index", "index-row", "data", "data-row", "value"}
assert need <= types, need - types
raw = open(path, "rb").read()
with tarfile.open(path) as t:  # member offsets as Python's tarfile finds them
    want = {m.name: (m.offset_data, m.size) for m in t.getmembers()}
got = {r["fields"]["name"]: (r["offset"], r["fields"]["size"]) for r in recs if r["type"] == "member"}
assert got == want, (got, want)
for r in recs:
    if r["type"] == "index":
        assert raw[r["offset"]:r["offset"] + 11] == b"CUBEX.INDEX", r
    if r["type"] == "data":
        assert raw[r["offset"]:r["offset"] + 10] in (b"CUBEX.DATA", b"ZCUBEX.DAT"), r
    if r["type"] == "value" and r["offset"] is not None:  # plain rows: the double at that byte
        assert struct.unpack_from("<d", raw, r["offset"])[0] == r["fields"]["value"], r
assert any(r["type"] == "value" for r in recs)
PY
done
run 0 "$profkit" dump --section values "$cube"
check; grep -q ' value metric=0 cnode=0 location=0 value=557$' "$work/out" || fail "dump --section values of sample.cubex: $(head -2 "$work/out")"
check; grep -qv ' value ' "$work/out" && fail "dump --section values printed other records"
head -c 3000 "$cube" >"$work/cut.cubex"
run 1 "$profkit" dump "$work/cut.cubex"
check; [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "cut.cubex" "$work/err" || fail "a cut .cubex: $(cat "$work/err")"

# --- a metric whose name states a unit is headed with the shown unit once ---
run 0 "$profkit" merge -q "$db" "$db" -o "$work/twice.d"
run 0 "$profkit" flat -m 'CPUTIME (sec),cycles' "$db"
check; grep -q ' CPUTIME (s) ' "$work/out" || fail "flat's column header: $(grep cycles "$work/out")"
run 0 "$profkit" tree -m 'cycles,CPUTIME (sec)' "$db"
check; grep -q ' CPUTIME incl (s) ' "$work/out" || fail "tree's column header: $(grep function "$work/out")"
run 0 "$profkit" diff -m 'cycles,CPUTIME (sec)' "$db" "$work/twice.d"
check; grep -q ' CPUTIME chg (s) ' "$work/out" || fail "diff's column header: $(grep -m1 chg "$work/out")"
nvidia=$corpus/hpctoolkit/hpctoolkit-tests-dbase/loops-cuda-nvidia-t.d
if [ -d "$nvidia" ]; then
  run 0 "$profkit" flat -m 'GKER (sec),GXCOPY:H2D (B)' "$nvidia"
  check; grep -q 'GKER (ms) GXCOPY:H2D (B)  function' "$work/out" || fail "flat: $(grep function "$work/out")"
  run 0 "$profkit" tree -m 'GKER (sec),GXCOPY:H2D (B)' "$nvidia"
  check; grep -q 'GXCOPY:H2D incl (B)  function' "$work/out" || fail "tree: $(grep function "$work/out")"
fi
check # the column headers (the lines that end in "function")
grep -E ' function$' "$work/out" | grep -Eq '\((sec|B)\)[^(]*\((s|ms|us|ns|B|KiB|MiB|GiB)\)' &&
  fail "a header states two units: $(grep -E ' function$' "$work/out")"

# --- info of a Scalasca summary: the metric tree as CubeGUI shows it ---
summary=$corpus/cube/cubelib-example-summary-nested-metrics/summary.cubex
if [ -f "$summary" ]; then
  run 0 "$profkit" info "$summary"
  check; grep -q 'total over contexts and locations' "$work/out" && fail "info of a Cube summary sums inclusive values over contexts"
  check; [ "$(wc -l <"$work/out")" -lt 120 ] || fail "info of a Cube summary is $(wc -l <"$work/out") lines"
  check; grep -Eq '^  time +sec +30807.79065 +0 +inclusive$' "$work/out" || fail "info: time's row: $(grep -m1 ' time ' "$work/out")"
  check; grep -Eq '^    execution +sec +30807.79065 +29973.50092 ' "$work/out" || fail "info: execution not indented under time with its own part"
  check; grep -Eq '^      mpi +sec +834.2897318 +0.016974492 ' "$work/out" || fail "info: mpi's row: $(grep -m1 ' mpi ' "$work/out")"
  run 0 "$profkit" info --json "$summary"
  check
  python3 - "$work/out" <<'PY' || fail "info --json of a Cube summary: no metric tree"
import json, sys
d = json.load(open(sys.argv[1]))
m = {x["name"]: x for x in d["metrics"]}
assert m["time"]["parent"] is None and m["time"]["children"] == ["execution", "overhead", "omp_idle_threads"]
assert m["mpi"]["parent"] == "execution" and abs(m["mpi"]["exclusive_total"] - 0.016974492) < 1e-8
assert all(k in m["time"] for k in ("name", "unit", "program_total", "scopes", "summaries"))  # members kept
assert m["visits"]["exclusive_total"] == m["visits"]["program_total"]
PY
  cube_dump=${PROFKIT_REFTOOLS:-$src/../shared/ref-tools}/cubelib/bin/cube_dump
  if [ -x "$cube_dump" ]; then # CubeLib's own exclusive values along the metric tree
    check
    "$cube_dump" -m execution,mpi -x excl -z incl -t aggr -c roots "$summary" >"$work/cubelib" 2>&1
    grep -q '^MAIN__(id=0) 29973.5$' "$work/cubelib" && grep -q '^MAIN__(id=0) 0.0169745$' "$work/cubelib" ||
      fail "CubeLib's exclusive metric values differ: $(grep MAIN "$work/cubelib" | tr '\n' ' ')"
  fi
fi

# --- a CSV is for machines: flat --csv gives every row unless -n is given ---
sortcg=$corpus/callgrind/generated/sort-instr-jumps.callgrind.out
if [ -f "$sortcg" ]; then
  run 0 "$profkit" flat --json "$sortcg"
  rows=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["rows"]))' "$work/out")
  run 0 "$profkit" flat --csv "$sortcg"
  check; [ "$rows" -gt 25 ] && [ "$(($(wc -l <"$work/out") - 1))" -eq "$rows" ] ||
    fail "flat --csv: $(($(wc -l <"$work/out") - 1)) rows, flat --json $rows"
  run 0 "$profkit" flat --csv -n 7 "$sortcg"
  check; [ "$(wc -l <"$work/out")" -eq 8 ] || fail "flat --csv -n 7: $(wc -l <"$work/out") lines"
  run 0 "$profkit" flat "$sortcg"
  check; grep -q 'more function rows not shown' "$work/out" || fail "flat's text no longer stops at 25 rows"
fi

# --- loader frames: a run of frames that only pass calls on is one row ---
loader=$work/loader.callgrind
cat >"$loader" <<'CG'
# callgrind format
version: 1
events: Ir

fl=start.c
fn=_start
cfn=__libc_start_main
calls=1 1
1 1001

fn=__libc_start_main
1 1
cfn=(below main)
calls=1 1
1 1000

fn=(below main)
cfi=prog.c
cfn=main
calls=1 1
1 1000

fl=prog.c
fn=main
1 100
cfn=work
calls=1 1
2 900

fn=work
3 900
CG
via='main (via 3 frames: _start > __libc_start_main > (below main))'
run 0 "$profkit" tree "$loader"
check; grep -qF -- "1,000  99.9%         100  10.0% *  $via" "$work/out" || fail "tree: the loader frames are not folded into main: $(cat "$work/out")"
check; grep -Eq '^ .*  (_start|__libc_start_main|\(below main\))$' "$work/out" && fail "tree draws a folded frame"
check; grep -q '^(3 frames that only pass calls on' "$work/out" || fail "tree does not say frames were folded"
check; grep -q '^ *900  89.9% .*\*    work$' "$work/out" || fail "work is not one level below main: $(grep work "$work/out")"
run 0 "$profkit" tree --show-chains "$loader"
check; [ "$(grep -cE '  \*? *(_start|__libc_start_main|\(below main\)|main|work)$' "$work/out")" -eq 5 ] ||
  fail "tree --show-chains: $(cat "$work/out")"
run 0 "$profkit" tree -t 0.05 "$loader" # __libc_start_main's own 0.1% is above: no run of two
check; grep -q '__libc_start_main$' "$work/out" && ! grep -q via "$work/out" || fail "tree -t 0.05 folds a frame with a cost above the threshold"
run 0 "$profkit" tree --width 60 "$loader"
check; grep -q 'main (via 3 frames)$' "$work/out" || fail "tree --width 60: $(grep main "$work/out")"
run 0 "$profkit" tree --csv "$loader"
check; [ "$(wc -l <"$work/out")" -eq 7 ] || fail "tree --csv leaves out folded frames"
run 0 "$profkit" tree --json "$loader"
check
python3 - "$work/out" <<'PY' || fail "tree --json does not mark the folded frames"
import json, sys
d = json.load(open(sys.argv[1]))
seen, stack = {}, [d["root"]]
while stack:
    n = stack.pop()
    seen[n["name"]] = n["folded"]
    stack += n["children"] or []
assert d["folded"] == 3, d["folded"]
assert seen == {"<program root>": False, "_start": True, "__libc_start_main": True,
                "(below main)": True, "main": False, "work": False}, seen
PY
run 2 "$profkit" callers --show-chains "$loader" main
# a chain 20,000 deep folds in one linear pass into one row
python3 -c '
import sys
n = 20000
out = ["# callgrind format", "version: 1", "events: Ir", "", "fl=a.c"]
for i in range(n):
    out += ["fn=f%d" % i] + (["cfn=f%d" % (i + 1), "calls=1 1"] if i < n - 1 else []) + ["1 100", ""]
open(sys.argv[1], "w").write("\n".join(out))' "$work/deep.callgrind"
run 0 "$profkit" tree "$work/deep.callgrind"
check; [ "$(grep -c '100\.0%' "$work/out")" -eq 2 ] && grep -qF 'f19999 (via 19999 frames: f0 > f1 > ... > f19997 > f19998)' "$work/out" ||
  fail "a 20,000-deep chain: $(tail -2 "$work/out" | cut -c1-200)"
if [ -f "$sortcg" ]; then # a real Callgrind run: main's loader frames
  run 0 "$profkit" tree "$sortcg"
  check; grep -qF '0x00000000000037d0 (via 3 frames: 0x0000000000006560 > __libc_start_main@@GLIBC_2.34 > (below main))' "$work/out" ||
    fail "tree of a Callgrind run: $(sed -n 5,8p "$work/out")"
fi

[ "$failures" -eq 0 ] || { echo "$failures of $checks checks failed" >&2; exit 1; }
echo "conventions: $checks checks passed"
