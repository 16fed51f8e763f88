#!/usr/bin/env bash
# tests/cli/cli_tests.sh — the profkit executable as a user meets it:
# help and exit statuses, golden text outputs on the sample database,
# JSON that parses and says the right things, damaged input, the corpus.
#
#   cli_tests.sh PROFKIT PK_MKDB SOURCE_DIR WORK_DIR
# Set UPDATE_GOLDEN=1 to rewrite the expected files after a deliberate change.
set -u
unset COLUMNS # names are whole off a terminal (COLUMNS or --width shorten them)
profkit=$1 mkdb=$2 src=$3 work=$4
expected=$src/tests/cli/expected
corpus=${PROFKIT_CORPUS:-$src/../shared/corpus}
failures=0 checks=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect_status STATUS CMD... : run, check the exit status
expect_status() {
  local want=$1; shift
  checks=$((checks + 1))
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  [ "$got" -eq "$want" ] || fail "exit $got (want $want): $* ($(head -c 300 "$work/err"))"
}

# golden NAME CMD... : stdout (work dir, corpus and source paths replaced) equals expected/NAME
golden() {
  local name=$1; shift
  checks=$((checks + 1))
  "$@" 2>&1 | sed -e "s|$work/sample|DB|g" -e "s|$work|WORK|g" -e "s|$corpus|CORPUS|g" -e "s|$src|SRC|g" \
    >"$work/$name"
  if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then cp "$work/$name" "$expected/$name"; return; fi
  diff -u "$expected/$name" "$work/$name" >&2 || fail "output of '$*' differs from expected/$name"
}

# json_check FILE PYTHON-EXPRESSION : the file is JSON and the expression holds
json_check() {
  checks=$((checks + 1))
  python3 - "$1" "$2" <<'PY' || fail "JSON check '$2' on $1"
import json, sys
doc = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2], {"doc": doc, "abs": abs})
sys.exit(0 if ok else 1)
PY
}

rm -rf "$work" && mkdir -p "$work"
"$mkdb" "$work/sample" || { echo "cannot build the sample database" >&2; exit 1; }
"$mkdb" --variant future "$work/future"
db=$work/sample

# --- help and usage ---
expect_status 0 "$profkit" --help
grep -q "info" "$work/out" || fail "--help lists no commands"
for cmd in info dump check tree flat convert; do
  expect_status 0 "$profkit" $cmd --help
  grep -q "Usage: profkit $cmd" "$work/out" || fail "$cmd --help has no usage line"
done
expect_status 2 "$profkit"
expect_status 2 "$profkit" frobnicate
expect_status 2 "$profkit" info
expect_status 2 "$profkit" info --bogus "$db"
expect_status 2 "$profkit" info "$db" extra
expect_status 2 "$profkit" tree --threshold 150 "$db"
expect_status 2 "$profkit" dump --section nonsense "$db"
expect_status 1 "$profkit" info "$work/does-not-exist"
grep -q "does-not-exist: no such file" "$work/err" || fail "missing path not named"
expect_status 1 "$profkit" info "$src"
grep -q "not a profile profkit can read" "$work/err" || fail "unknown format not explained"
expect_status 0 "$profkit" --version

# speedscope's own file-format schema (npm package), to validate exports
# against, when npm and python3-jsonschema are at hand
speedscope_schema=
if command -v npm >/dev/null && python3 -c 'import jsonschema' 2>/dev/null &&
  (cd "$work" && timeout 60 npm pack -q speedscope@1.25.0 >/dev/null 2>&1 &&
    tar xzf speedscope-1.25.0.tgz package/dist/release/file-format-schema.json); then
  speedscope_schema=$work/package/dist/release/file-format-schema.json
else
  echo "note: speedscope exports checked for structure only (no npm or python3-jsonschema)" >&2
fi

# --- every command in 'profkit --help' has --help and a section in the man page ---
expect_status 0 "$profkit" --help
for c in $(sed -n 's/^  \([a-z]*\) .*/\1/p' "$work/out"); do
  expect_status 0 "$profkit" "$c" --help
  head -3 "$work/out" | grep -q "profkit $c " || fail "'profkit $c --help' does not start with its usage"
  checks=$((checks + 1))
  grep -q "^\.BI \"$c " "$src/man/profkit.1" || fail "man/profkit.1 does not document '$c'"
done

# --- golden text outputs ---
golden info-sample.txt "$profkit" info "$db"
golden tree-sample.txt "$profkit" tree "$db"
golden tree-cycles-depth.txt "$profkit" tree -m cyc --depth 3 --threshold 0 "$db"
golden check-sample.txt "$profkit" check "$db"
golden dump-meta-sample.txt "$profkit" dump --section headers,general,id-names,scopes,metrics,modules,source-files,functions,contexts "$db"
golden check-future.txt "$profkit" check "$work/future"
golden tree-cube-derived.txt "$profkit" tree --threshold 0 "$src/tests/data/cube/sample.cubex"
golden flat-sample.txt "$profkit" flat "$db"
golden flat-sample-file.txt "$profkit" flat --by file -m cyc:inclusive "$db"
golden flat-cube.txt "$profkit" flat "$src/tests/data/cube/sample.cubex"
golden flat-cube-csv.txt "$profkit" flat --csv -n 3 "$src/tests/data/cube/sample.cubex"
golden tree-sample-location.txt "$profkit" tree --location thread=1 "$db"
golden flat-sample-stat.txt "$profkit" flat --stat max --by line "$db"
golden tree-sample-focus.txt "$profkit" tree -t 0 --focus '^main$' "$db"
golden tree-sample-hide.txt "$profkit" tree -t 0 --hide 'worker|helper' "$db"
golden flat-cube-location.txt "$profkit" flat --location rank=1 --stat mean "$src/tests/data/cube/sample.cubex"
expect_status 1 "$profkit" tree --location thread=9 "$db"
grep -q "no location matches 'thread=9'" "$work/err" || fail "unknown location not explained"
expect_status 2 "$profkit" tree --location thread "$db"
expect_status 2 "$profkit" flat --stat median "$db"
expect_status 2 "$profkit" flat --focus '(' "$db"
grep -q -- "--focus: regular expression .(.: Unmatched ( or" "$work/err" || fail "bad --focus expression not explained"
golden threads-sample.txt "$profkit" threads "$db"
golden threads-cube-csv.txt "$profkit" threads --csv "$src/tests/data/cube/sample.cubex"
golden callers-sample.txt "$profkit" callers "$db" memcpy
golden callees-sample.txt "$profkit" callees -t 0 "$db" main
golden callees-callgrind.txt "$profkit" callees -t 0 "$src/tests/data/callgrind/sample.callgrind" work
# a call graph's own lists: calls and inclusive cost per arc, every match listed
cgsample=$src/tests/data/callgrind/sample.callgrind
golden callers-callgrind.txt "$profkit" callers -t 0 "$cgsample" '^(work|even|<cycle 1>)$'
golden callees-callgrind-lists.txt "$profkit" callees -t 0 "$cgsample" 'o'
golden callers-callgrind-tree.txt "$profkit" callers --tree -t 0 "$cgsample" even
golden flat-callgrind.txt "$profkit" flat "$cgsample"
# info ranks a call graph's functions in the library: text and JSON alike
golden info-callgraph.txt "$profkit" info "$cgsample"
"$profkit" info --json "$cgsample" >"$work/info-cg.json"
json_check "$work/info-cg.json" 'doc["callgraph"]["self_total"] == 602 and doc["callgraph"]["cycles"] == 1 and [(t["function"], t["value"], t["cycle"]) for t in doc["callgraph"]["top_self"]] == [("odd", 200, 1), ("even", 150, 1), ("work", 140, None), ("main", 112, None), ("<cycle 1>", 0, 1)] and [t["function"] for t in doc["callgraph"]["top_inclusive"]] == ["main", "work", "<cycle 1>", "odd", "even"] and doc["callgraph"]["jumps"] is None'
golden flat-callgrind-line.txt "$profkit" flat --by line "$cgsample"
expect_status 0 "$profkit" callers --json -t 0 "$cgsample" 'd'
json_check "$work/out" 'doc["schema"] == "profkit.callers/1" and doc["source"] == "callgraph" and [f["name"] for f in doc["functions"]] == ["odd", "<cycle 1>", "demo"][:len(doc["functions"])] and {k: doc["functions"][0]["arcs"][0][k] for k in ("name", "calls", "inclusive", "cycle")} == {"name": "work", "calls": 2, "inclusive": 350, "cycle": 0} and doc["functions"][0]["root"] is None and doc["complete"]'
expect_status 1 "$profkit" callers "$cgsample" no_such_function
grep -q "no function named or matching 'no_such_function'" "$work/err" || fail "unknown function not explained (call graph)"
golden callers-cube-regex.txt "$profkit" callers "$src/tests/data/cube/sample.cubex" 'ev.n'
golden flame-sample.folded "$profkit" flame --folded "$db"
golden flame-cube.folded "$profkit" flame --folded --location '#0' "$src/tests/data/cube/sample.cubex"
expect_status 1 "$profkit" callers "$db" no_such_function
grep -q "no function named or matching 'no_such_function'" "$work/err" || fail "unknown function not explained"
expect_status 2 "$profkit" callees "$db"
expect_status 0 "$profkit" callers --json "$db" solve
json_check "$work/out" 'doc["schema"] == "profkit.callers/1" and doc["view"] == "callers" and doc["functions"][0]["root"]["name"] == "solve" and doc["functions"][0]["root"]["children"][0]["name"] == "main" and doc["functions"][0]["arcs"][0]["name"] == "main"'
expect_status 0 "$profkit" threads --json "$db"
json_check "$work/out" 'doc["schema"] == "profkit.threads/1" and doc["count"] == 4 and abs(doc["sum"] - 7.025) < 1e-12 and doc["locations"][0]["total"] == doc["max"]'
expect_status 0 "$profkit" flame "$db" -o "$work/f.svg"
grep -Pzq "<title>solve\ntotal: 3.025 sec \(43.06%\)\nself: 0.125 sec \(1.78%\)\nmodule: /opt/demo/bin/solver</title>" "$work/f.svg" || fail "flame SVG lacks solve's tooltip"
golden diff-callgrind.txt "$profkit" diff "$src/tests/data/callgrind/sample.callgrind" "$src/tests/data/callgrind/sample-b.callgrind"
expect_status 0 "$profkit" convert -q "$src/tests/data/callgrind/sample-b.callgrind" -o "$work/b.d" --to hpctoolkit
golden diff-cross-format.txt "$profkit" diff --focus work "$src/tests/data/callgrind/sample.callgrind" "$work/b.d"
expect_status 0 "$profkit" diff --json "$src/tests/data/callgrind/sample-b.callgrind" "$work/b.d"
json_check "$work/out" 'doc["schema"] == "profkit.diff/1" and doc["functions"] == [] and doc["paths"] == [] and doc["a_total"] == doc["b_total"] == 480'
# A profile against its own conversion: the Cube file's regions for the
# entry points ("main thread") are no frames of a calling path, the Cube
# values' rounding is no change, and Callgrind's integer milliseconds are
# compared in seconds (docs/cli.md, diff).
for to in cube callgrind; do
  expect_status 0 "$profkit" convert -q "$db" -o "$work/own.$to" --to "$to"
  expect_status 0 "$profkit" diff --json "$db" "$work/own.$to"
  json_check "$work/out" 'doc["functions"] == [] and doc["paths"] == [] and abs(doc["a_total"] - doc["b_total"]) < 1e-12'
done
json_check "$work/out" 'doc["b_scale"] == 1e-3'
expect_status 0 "$profkit" diff "$db" "$work/own.callgrind"
grep -q "its values x0.001, in A's unit" "$work/out" || fail "diff does not say it scaled B's unit"
expect_status 2 "$profkit" diff "$db"
# A call graph with a cycle against its conversion to a tree, both ways:
# the "<cycle N>" pseudo-function is in neither table, the cycle's members
# differ at most in their inclusive value and say so (in_cycle).
cyc_rows='all(r["status"] == "same" or (r["in_cycle"] and abs(r["a_exclusive"] - r["b_exclusive"]) < 1e-9) for r in doc["functions"]) and not any("<cycle" in r["function"] for r in doc["functions"])'
expect_status 0 "$profkit" convert -q "$src/tests/data/callgrind/sample.callgrind" -o "$work/cyc.cubex" --to cube
expect_status 0 "$profkit" diff --json -n 0 "$src/tests/data/callgrind/sample.callgrind" "$work/cyc.cubex"
json_check "$work/out" "$cyc_rows"
expect_status 0 "$profkit" diff --json -n 0 "$work/cyc.cubex" "$src/tests/data/callgrind/sample.callgrind"
json_check "$work/out" "$cyc_rows"
# Against a call graph diff compares functions and call arcs, what both
# hold (issue 31): the arcs the tree lacks are those of the cycle, said so.
json_check "$work/out" 'doc["paths_are"] == "call_arcs" and all(r["in_cycle"] for r in doc["paths"]) and [n["code"] for n in doc["notes"]] == ["arcs"]'
expect_status 0 "$profkit" diff --json -n 0 "$src/tests/data/callgrind/sample.callgrind" "$src/tests/data/callgrind/sample-b.callgrind"
json_check "$work/out" 'all(r["name"] == r["caller"] + " > " + r["callee"] and r["a_self"] is None for r in doc["paths"]) and {(r["caller"], r["callee"], r["a_inclusive"], r["b_inclusive"]) for r in doc["paths"]} >= {("work", "odd", 350, 240), ("main", "check", 0, 60)}'
expect_status 0 "$profkit" diff "$src/tests/data/callgrind/sample.callgrind" "$src/tests/data/callgrind/sample-b.callgrind"
grep -q "^per call arc" "$work/out" || fail "diff of two call graphs is not per call arc"
grep -q "\[cycle\]" "$work/out" && fail "diff of two call graphs marks cycles (both count them alike)"
# --focus needs calling contexts: paths again, the reconstruction said
expect_status 0 "$profkit" diff --json --focus work "$src/tests/data/callgrind/sample.callgrind" "$work/cyc.cubex"
json_check "$work/out" 'doc["paths_are"] == "calling_paths" and "reconstructed" in [n["code"] for n in doc["notes"]]'
# --- merge ---
expect_status 0 "$profkit" merge -q "$src/tests/data/callgrind/sample.callgrind" "$src/tests/data/callgrind/sample-b.callgrind" -o "$work/m.d"
golden merge-threads.txt "$profkit" threads "$work/m.d"
golden merge-flat.txt "$profkit" flat "$work/m.d"
expect_status 0 "$profkit" merge --mean "$src/tests/data/callgrind/sample.callgrind" "$src/tests/data/callgrind/sample-b.callgrind" -o "$work/mean.d"
grep -q "merged 2 profiles: .* 2 locations (averaged)" "$work/out" || fail "merge --mean does not report what it merged"
golden merge-mean-flat.txt "$profkit" flat "$work/mean.d"
expect_status 1 "$profkit" merge "$src/tests/data/callgrind/sample.callgrind" "$work/mean.d" -o "$work/mean.d"
grep -q "already exists" "$work/err" || fail "merge overwrote without --force"
expect_status 2 "$profkit" merge "$db" -o "$work/one.d"
expect_status 2 "$profkit" merge "$db" "$db" -o "$work/x.unknown"
expect_status 1 "$profkit" merge "$db" "$work/does-not-exist" -o "$work/y.d"
# --- trace ---
golden trace-sample.txt "$profkit" trace "$db"
expect_status 1 "$profkit" trace "$src/tests/data/cube/sample.cubex"
grep -q "has no traces" "$work/err" || fail "trace without traces not explained"
# the selection: thread 1 runs worker 2-22 ms, idle 22-32 ms (tests/fixtures/sample_db.c)
expect_status 0 "$profkit" trace --json --location thread=1 --from 5ms --to 25ms "$db"
json_check "$work/out" 'len(doc["locations"]) == 1 and doc["locations"][0]["running_ns"] == 17e6 and doc["locations"][0]["idle_ns"] == 3e6 and doc["from_offset_ns"] == 5e6 and doc["selection"]["location"] == "thread=1" and doc["timeline"] is None'
expect_status 0 "$profkit" trace --json --timeline 7 --location thread=0 --from 0s --until 70ms --hide '^dot$' "$db"
json_check "$work/out" 'doc["locations"][0]["filtered_ns"] == 30e6 and [doc["functions"][s[2]]["name"] if s[2] >= 0 else s[2] for s in doc["timeline"]["rows"][0]["spans"]] == [-1, -3, "solve", "memcpy", -3, "write_output"]'
expect_status 0 "$profkit" trace --location thread=1 --focus worker "$db"
grep -q "showing 1 of 4 traces (--location thread=1), focus 'worker'" "$work/out" || fail "trace does not say its selection"
expect_status 2 "$profkit" trace --from 1.5 "$db"
grep -q "not a time" "$work/err" || fail "a time without a unit not explained"
expect_status 1 "$profkit" trace --to 5 "$db"
grep -q "digits alone are absolute nanoseconds" "$work/err" || fail "an absolute time before the traces not explained"
expect_status 2 "$profkit" trace --from 30ms --to 20ms "$db"
expect_status 2 "$profkit" trace --timeline 5 "$db"
expect_status 2 "$profkit" trace --focus '(' "$db"
expect_status 1 "$profkit" trace --location thread=9 "$db"
# the Chrome export: a trace there, an empty one (said once) where there is none
expect_status 0 "$profkit" convert "$db" --to chrome -o "$work/t.chrome.json" --location thread=0 --from 35ms
json_check "$work/t.chrome.json" 'doc["displayTimeUnit"] == "ns" and sum(e["ph"] == "B" for e in doc["traceEvents"]) == sum(e["ph"] == "E" for e in doc["traceEvents"]) == 5 and doc["otherData"]["selection"]["from"] == "35ms"'
expect_status 0 "$profkit" convert -q "$db" -o "$work/t.chrome.json.gz"
python3 -c 'import gzip, json, sys; d = json.load(gzip.open(sys.argv[1])); sys.exit(len(d["traceEvents"]) < 20)' "$work/t.chrome.json.gz" || fail "the gzip export does not read back"
expect_status 0 "$profkit" convert "$src/tests/data/cube/sample.cubex" --to chrome -o "$work/none.chrome.json"
[ "$(grep -c "has no traces" "$work/err")" = 1 ] || fail "a profile without traces not said once"
json_check "$work/none.chrome.json" 'doc["traceEvents"] == [] and doc["otherData"]["note"] == "the profile has no traces"'
expect_status 1 "$profkit" convert "$db" --to chrome -o "$work/n.chrome.json" --location thread=9
[ ! -e "$work/n.chrome.json" ] || fail "a selection of nothing wrote a trace"
expect_status 2 "$profkit" convert "$db" -o "$work/x.cubex" --from 1s

# --- convert's exports ---
expect_status 0 "$profkit" convert "$db" -o "$work/s.folded"
diff -u "$expected/flame-sample.folded" "$work/s.folded" >&2 || fail "convert --to folded differs from flame --folded"
expect_status 1 "$profkit" convert "$db" -o "$work/s.folded"
expect_status 0 "$profkit" convert -q -f "$db" -o "$work/s.csv"
golden convert-sample-head.csv head -4 "$work/s.csv"
checks=$((checks + 1))
python3 - "$work/s.csv" <<'PY' || fail "tidy CSV: root values do not add up to the program total"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
root = sum(float(r["value"]) for r in rows if r["context"] == "0" and r["metric"] == "CPUTIME (sec)" and r["scope"] == "execution")
assert abs(root - 7.025) < 1e-9, root
assert {r["scope"] for r in rows} >= {"point", "function", "execution"}
PY
for f in "$db" "$src/tests/data/cube/sample.cubex" "$src/tests/data/callgrind/sample.callgrind"; do
  expect_status 0 "$profkit" convert -q -f --to speedscope "$f" -o "$work/s.json"
  checks=$((checks + 1))
  python3 - "$work/s.json" "$speedscope_schema" <<'PY' || fail "speedscope export of $f"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["$schema"] == "https://www.speedscope.app/file-format-schema.json"
frames = doc["shared"]["frames"]
assert doc["profiles"] and all(p["type"] == "evented" for p in doc["profiles"])
for p in doc["profiles"]:
    stack, at = [], 0
    for e in p["events"]:  # well nested, in time order, frames known
        assert 0 <= e["frame"] < len(frames) and e["at"] >= at
        at = e["at"]
        if e["type"] == "O":
            stack.append(e["frame"])
        else:
            assert e["type"] == "C" and stack.pop() == e["frame"]
    assert not stack and at == p["endValue"] and p["endValue"] > 0
if sys.argv[2]:  # speedscope's own schema, when npm could fetch it
    import jsonschema
    jsonschema.validate(doc, json.load(open(sys.argv[2])))
PY
done
golden tree-cube-depth.txt "$profkit" tree -m Dr --threshold 0 --depth 2 "$src/tests/data/cube/sample-zcubex.cubex"

# --- info via the meta.db path, and as JSON ---
expect_status 0 "$profkit" info "$db/meta.db"
expect_status 0 "$profkit" info --json "$db"
cp "$work/out" "$work/info.json"
json_check "$work/info.json" 'doc["schema"] == "profkit.info/1" and doc["format"] == "hpctoolkit" and doc["version"] == "4.0" and doc["callgraph"] is None'
json_check "$work/info.json" 'doc["counts"]["contexts"] == 18 and doc["counts"]["contexts_unlisted"] == 2 and doc["counts"]["locations"] == 4 and doc["counts"]["trace_samples"] == 20'
json_check "$work/info.json" 'abs(doc["metrics"][0]["program_total"] - 7.025) < 1e-12 and doc["metrics"][0]["scopes"][0]["scope"] == "point" and abs(doc["metrics"][0]["scopes"][0]["total"] - 7.025) < 1e-12'
json_check "$work/info.json" '[f["name"] for f in doc["files"]] == ["meta.db", "profile.db", "cct.db", "trace.db"] and all(f["loaded"] for f in doc["files"])'
json_check "$work/info.json" 'doc["diagnostics"] == {"errors": 0, "warnings": 0, "notes": 1}'
expect_status 0 "$profkit" tree --json "$db"
cp "$work/out" "$work/tree.json"
# function-level as the text tree (the entry folds into its functions); --lines keeps every context
json_check "$work/tree.json" 'doc["schema"] == "profkit.tree/1" and doc["level"] == "functions" and [c["name"] for c in doc["root"]["children"]] == ["worker", "main"] and doc["root"]["children"][0]["hot"]'
json_check "$work/tree.json" 'abs(doc["root"]["children"][1]["children"][0]["inclusive"] - 3.025) < 1e-12 and doc["root"]["children"][1]["children"][0]["kind"] == "function"'
expect_status 0 "$profkit" tree --json --lines "$db"
cp "$work/out" "$work/tree-lines.json"
json_check "$work/tree-lines.json" 'doc["level"] == "lines" and doc["root"]["children"][0]["name"] == "application thread"'

# --- dump as JSON lines: every line parses; offsets are the stored pointers ---
expect_status 0 "$profkit" dump --json "$db"
checks=$((checks + 1))
python3 - "$work/out" <<'PY' || fail "dump --json lines"
import json, sys
recs = [json.loads(line) for line in open(sys.argv[1])]
funcs = {r["offset"] for r in recs if r["type"] == "function"}
ctxs = [r["fields"] for r in recs if r["type"] == "context"]
assert len(funcs) == 6 and len(ctxs) == 16
assert all(c["pFunction"] in funcs for c in ctxs if c["pFunction"])
assert sum(r["type"] == "sample" for r in recs) == 20
PY
expect_status 0 "$profkit" dump --list-sections "$db"
grep -qx "trace-samples" "$work/out" || fail "--list-sections lacks trace-samples"

# --- convert: the written database says what the source says ---
expect_status 2 "$profkit" convert "$db"
expect_status 2 "$profkit" convert "$db" -o "$work/out.xyz"
grep -q "give --to" "$work/err" || fail "convert without a known output format not explained"
expect_status 2 "$profkit" convert "$db" -o "$work/x" --to nonsense
expect_status 0 "$profkit" convert "$db" -o "$work/conv.d"
grep -q "wrote $work/conv.d: 5 files" "$work/out" || fail "convert does not report what it wrote"
expect_status 1 "$profkit" convert "$db" -o "$work/conv.d"
grep -q "already exists (use --force" "$work/err" || fail "convert overwrote without --force"
expect_status 0 "$profkit" convert -q -f --no-trace "$db" -o "$work/conv.d"
[ ! -s "$work/out" ] || fail "convert -q printed something"
[ ! -e "$work/conv.d/trace.db" ] || fail "--no-trace wrote trace.db"
expect_status 0 "$profkit" convert -q -f "$db" -o "$work/conv.d"
expect_status 0 "$profkit" check -q "$work/conv.d"
checks=$((checks + 1))
# everything but the paths and file sizes
"$profkit" info "$db" | sed -e "s|$db|PATH|" | grep -v '^  files ' >"$work/info-a"
"$profkit" info "$work/conv.d" | sed -e "s|$work/conv.d|PATH|" | grep -v '^  files ' >"$work/info-b"
diff -u "$work/info-a" "$work/info-b" >&2 || fail "info of the converted database differs"
expect_status 0 "$profkit" convert -r -f "$db" -o "$work/conv.d"
grep -q "recomputed 2 metrics" "$work/out" || fail "convert --recompute does not say what it recomputed"
expect_status 0 "$profkit" check -q "$work/conv.d"
mkdir -p "$work/precious" && touch "$work/precious/keep"
expect_status 1 "$profkit" convert -f "$db" -o "$work/precious" --to hpctoolkit
[ -e "$work/precious/keep" ] || fail "convert --force replaced a directory that is not a database"

# --- convert --to json: profkit's own model (docs/json.md), read back as it was ---
cgs=$src/tests/data/callgrind/sample.callgrind
expect_status 0 "$profkit" convert -q "$cgs" -o "$work/cg.json"
golden convert-json-callgrind.json cat "$work/cg.json"
json_check "$work/cg.json" 'doc["schema"] == "profkit.model/1" and len(doc["contexts"]) == 7 and doc["profile"]["reconstructed"] and len(doc["callgraph"]["calls"]) > 0'
golden tree-json-callgrind.txt "$profkit" tree "$work/cg.json"
"$profkit" tree "$cgs" >"$work/tree-a" 2>&1
"$profkit" tree "$work/cg.json" >"$work/tree-b" 2>&1
checks=$((checks + 1))
diff -u "$work/tree-a" "$work/tree-b" >&2 || fail "tree of the JSON copy differs from the original's"
# from inside WORK: the model records the path it was made from, and its
# size (in info's golden) must not depend on how long WORK's path is
(cd "$work" && "$profkit" convert -q --to json "${db#"$work"/}" -o db.model) || fail "convert --to json of the sample"
golden info-json-sample.txt "$profkit" info "$work/db.model"
golden trace-json-sample.txt "$profkit" trace "$work/db.model"
"$profkit" flat "$db" >"$work/flat-a" 2>&1
"$profkit" flat "$work/db.model" >"$work/flat-b" 2>&1
checks=$((checks + 1))
diff -u "$work/flat-a" "$work/flat-b" >&2 || fail "flat of the JSON copy differs from the original's"
expect_status 0 "$profkit" convert -q "$work/db.model" -o "$work/db-back.d"
expect_status 0 "$profkit" check -q "$work/db-back.d"
expect_status 0 "$profkit" threads --json "$db"
json_check "$work/out" 'doc["schema"] == "profkit.threads/1"'
expect_status 1 "$profkit" info "$work/out"
grep -q "not a profile profkit can read" "$work/err" || fail "other JSON taken for a profile"
head -c 2000 "$work/cg.json" >"$work/cut.json"
expect_status 1 "$profkit" info "$work/cut.json"
grep -q "cut.json: byte 2000, \$.* cut off" "$work/err" || fail "cut JSON not explained: $(cat "$work/err")"
sed 's/"profkit.model\/1"/"profkit.model\/9"/' "$work/cg.json" >"$work/v9.json"
expect_status 1 "$profkit" info "$work/v9.json"
grep -q 'schema "profkit.model/9" is not one this profkit reads' "$work/err" || fail "newer schema not explained"
expect_status 1 "$profkit" convert "$cgs" -o "$work/cg.json"

# --- a cut Callgrind file: every command says it is incomplete ---
# (as valgrind's callgrind wrote it: it always closes a part with totals:)
sed 's/^creator: .*/creator: callgrind-3.19.0/' "$src/tests/data/callgrind/sample.callgrind" |
  head -c 1000 >"$work/cut.callgrind"
cut=$work/cut.callgrind
for cmd in "info $cut" "tree $cut" "flat $cut" "flat --by line $cut" "callers $cut work" \
  "callees $cut work" "callers --tree $cut work" "threads $cut" "flame --folded $cut" "check $cut"; do
  "$profkit" $cmd >/dev/null 2>"$work/err"
  checks=$((checks + 1))
  grep -q "cut.callgrind is incomplete: .*the file is cut short" "$work/err" ||
    fail "'$cmd' on a cut Callgrind file does not say it is incomplete: $(cat "$work/err")"
done
for cmd in "info --json $cut" "flat --json $cut" "callers --json $cut work" "tree --json $cut"; do
  expect_status 0 "$profkit" $cmd
  json_check "$work/out" 'doc["complete"] is False and doc["incomplete"][0]["code"] == "truncated"'
done

# --- damaged databases ---
cp -r "$db" "$work/damaged"
chmod -R u+w "$work/damaged"
truncate -s 1000 "$work/damaged/profile.db"
expect_status 1 "$profkit" info "$work/damaged"
grep -q "profile.db: footer" "$work/err" || fail "truncated profile.db not explained: $(cat "$work/err")"
expect_status 1 "$profkit" check "$work/damaged"
grep -q "error: profile.db: footer" "$work/out" || fail "check does not report the truncated file"
grep -q "1 errors" "$work/out" || fail "check summary does not count the error"
expect_status 1 "$profkit" dump "$work/damaged"
grep -q "profile.db: footer" "$work/err" || fail "dump does not report the truncated file"
expect_status 1 "$profkit" check "$work/future"

# --- the corpus (skipped without it) ---
if [ -d "$corpus/hpctoolkit" ]; then
  small=$corpus/hpctoolkit/hpctoolkit-tests-dbase/small.d
  golden info-small.txt "$profkit" info "$small"
  expect_status 0 "$profkit" info --json "$small"
  cp "$work/out" "$work/small.json"
  json_check "$work/small.json" 'doc["title"] == "testmeas-small" and doc["metrics"][0]["program_total"] == 1.210259 and doc["counts"]["contexts"] == 13 and doc["values_from"] == "summary"'
  # --recompute (a global option: before the command) adds up the profiles:
  # the same totals, said to come from them
  expect_status 0 "$profkit" --recompute info --json "$small"
  python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); sys.exit(not (a["values_from"] == "profiles" and a["metrics"] == b["metrics"]))' \
    "$work/out" "$work/small.json" || fail "info --recompute: other totals, or not from the profiles"
  expect_status 0 "$profkit" --recompute tree "$small"
  cp "$work/out" "$work/tree-recompute.txt"
  expect_status 0 "$profkit" tree "$small"
  cmp -s "$work/out" "$work/tree-recompute.txt" || fail "tree --recompute differs from tree on small.d"
  # flat's exclusive column equals callgrind_annotate's top 5 (REFERENCE.txt)
  cg=$corpus/callgrind/generated/sort-instr-jumps.callgrind.out
  expect_status 0 "$profkit" flat --csv -n 5 "$cg"
  got=$(tail -n +2 "$work/out" | cut -d, -f5 | tr '\n' ' ')
  python3 -c 'import sys; g = [float(x) for x in sys.argv[1].split()]; w = [1624884, 1556676, 763048, 696709, 680948]; sys.exit(not all(abs(a - b) <= 1e-9 * b for a, b in zip(g, w)) or len(g) != 5)' "$got" ||
    fail "flat top 5 of $cg: $got"
  expect_status 0 "$profkit" flat --json "$corpus/cube/hatchet-scorep-cpi/profile.cubex"
  cp "$work/out" "$work/flat.json"
  json_check "$work/flat.json" 'doc["schema"] == "profkit.flat/1" and doc["rows"][0]["name"] == "MPI_Bcast" and abs(sum(r["exclusive"] for r in doc["rows"]) - doc["total"]) < 1e-9 * doc["total"]'
  # folded stacks add up to the program total, in every format
  for f in "$corpus/cube/hatchet-scorep-cpi/profile.cubex" "$cg" "$small"; do
    expect_status 0 "$profkit" flame --folded "$f"
    t=$("$profkit" tree --json "$f" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
    python3 -c 'import sys; s = sum(float(l.rsplit(" ", 1)[1]) for l in open(sys.argv[1]) if not l.startswith("#")); t = float(sys.argv[2]); sys.exit(abs(s - t) > 1e-9 * abs(t))' "$work/out" "$t" ||
      fail "folded stacks of $f do not add up to $t"
  done
  # every traced nanosecond is running, idle or in a gap
  for t in $(find "$corpus/hpctoolkit" -name trace.db | sort | head -8); do
    expect_status 0 "$profkit" trace --json "$(dirname "$t")"
    json_check "$work/out" 'all(abs(l["running_ns"] + l["idle_ns"] + l["gap_ns"] - (l["end_ns"] - l["begin_ns"])) <= 1e-9 * max(1, l["end_ns"] - l["begin_ns"]) for l in doc["locations"] if l["samples"] > 1)'
  done
  expect_status 0 "$profkit" threads --json "$corpus/cube/hatchet-scorep-cpi/profile.cubex"
  json_check "$work/out" 'doc["count"] == 4'
  for m in $(find "$corpus/hpctoolkit" -name meta.db | sort); do
    case $m in
      # HPCToolkit's draft of the layout (PR #495) has no metrics/default.yaml and
      # statistic ids hpcviewer misreads: check warns about both
      *pr-metadb-tests-small_v4.0/*) expect_status 1 "$profkit" check "$(dirname "$m")"
        grep -q "viewer-yaml" "$work/out" && grep -q "viewer-metric-id" "$work/out" ||
          fail "check does not say what hpcviewer would choke on" ;;
      *) expect_status 0 "$profkit" check -q "$(dirname "$m")" ;;
    esac
  done
  # legacy experiment.xml 2.x databases (Hatchet's test data, hpcviewer's)
  golden tree-legacy-cpi.txt "$profkit" tree -n 12 "$corpus/hpctoolkit/hatchet-cpi-v2"
  golden flat-legacy-inline.txt "$profkit" flat -n 10 "$corpus/hpctoolkit/hpcviewer-2023.01-xml/inline.xml.db"
  golden threads-legacy-allgather.txt "$profkit" threads "$corpus/hpctoolkit/hatchet-allgather-v2"
  # the draft "Prof2" database (experiment.xml 4.0 + big-endian profile.db), hpcviewer's test data
  golden tree-prof2-draft.txt "$profkit" tree -n 20 "$corpus/hpctoolkit/hpcviewer-2022.06-prof2-draft/empty-trace"
else
  echo "SKIPPED corpus CLI checks: no corpus at $corpus" >&2
fi

# --- hpcrun measurement files: dump prints what hpcproftt prints ---
# The expected files were compared line by line with upstream's printing
# code built outside the project (docs/hpcrun.md) before they were kept.
meas=$corpus/hpctoolkit/hpctoolkit-tests-meas
if [ -d "$meas" ]; then
  sm=$meas/small.m/testmeas-small-000000-000-11ac0300-5560-0
  gpu=$meas/loops-hip-amd-t.m/testmeas-loops-hip-000000-500-590a0500-3186-0.hpcrun
  golden dump-hpcrun-small.txt "$profkit" dump "$sm.hpcrun"
  golden dump-hpctrace-small.txt "$profkit" dump "$sm.hpctrace"
  golden dump-hpcrun-gpu.txt "$profkit" dump "$gpu"
  golden dump-hpcrun-grep.txt "$profkit" dump -g "$sm.hpcrun" "$gpu"
  golden dump-hpcrun-lm.txt "$profkit" dump --lm $(ls "$meas"/*/*.hpcrun | sort)
  # 02.00/03.00: no real file exists, so one is made from small.m (pk-mkhpcrun)
  "$(dirname "$mkdb")/pk-mkhpcrun" --version 02.00 --epochs 2 "$sm.hpcrun" "$work/small-v2.hpcrun"
  golden dump-hpcrun-dense.txt "$profkit" dump "$work/small-v2.hpcrun"
  expect_status 0 "$profkit" dump --json "$sm.hpcrun"
  python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; v=[x for x in r if x["type"]=="value"]; sys.exit(not (len(v)==5 and abs(sum(x["fields"]["value"] for x in v)-1.210259)<1e-9))' "$work/out" ||
    fail "dump --json of $sm.hpcrun: not the 5 values summing to 1.210259"
  expect_status 2 "$profkit" dump --lm "$corpus/hpctoolkit/hpctoolkit-tests-dbase/small.d"
  head -c 3000 "$sm.hpcrun" >"$work/cut.hpcrun"
  expect_status 1 "$profkit" dump "$work/cut.hpcrun"
  grep -q "cut.hpcrun: footer at byte" "$work/err" || fail "dump of a cut .hpcrun does not name the footer: $(cat "$work/err")"
else
  echo "SKIPPED hpcrun CLI checks: no corpus at $meas" >&2
fi

# --- hpcrun measurement directories open as one profile ---
# Without symbols (PROFKIT_NO_SYMBOLS): this machine's binaries (libgomp)
# are not the measured ones, and goldens must not depend on them.
if [ -d "$meas" ]; then
  golden meas-tree-small.txt env PROFKIT_NO_SYMBOLS=1 "$profkit" tree "$meas/small.m"
  golden meas-threads-small.txt env PROFKIT_NO_SYMBOLS=1 "$profkit" threads "$meas/small.m"
  golden meas-tree-loops.txt env PROFKIT_NO_SYMBOLS=1 "$profkit" tree -n 25 "$meas/loops-cputime-t.m"
  golden meas-threads-loops.txt env PROFKIT_NO_SYMBOLS=1 "$profkit" threads "$meas/loops-cputime-t.m"
  golden meas-info-cuda.txt env PROFKIT_NO_SYMBOLS=1 "$profkit" info "$meas/loops-cuda-nvidia-t.m"
  # the measurement converts to a database with the same per-thread totals
  expect_status 0 env PROFKIT_NO_SYMBOLS=1 "$profkit" convert "$meas/loops-cputime-t.m" --to hpctoolkit -o "$work/meas.d"
  env PROFKIT_NO_SYMBOLS=1 "$profkit" threads "$meas/loops-cputime-t.m" >"$work/m1"
  "$profkit" threads "$work/meas.d" >"$work/m2"
  checks=$((checks + 1))
  diff -q "$work/m1" "$work/m2" >/dev/null || fail "threads of loops-cputime-t.m and of its conversion differ"
  mkdir -p "$work/cutmeas" && cp "$meas/small.m/"*.hpc* "$work/cutmeas/" && chmod u+w "$work/cutmeas/"*
  head -c 5000 "$sm.hpcrun" >"$work/cutmeas/$(basename "$sm").hpcrun"
  expect_status 1 "$profkit" tree "$work/cutmeas"
  grep -q "$(basename "$sm").hpcrun: footer" "$work/err" || fail "tree of a measurement with a cut file does not name it: $(cat "$work/err")"
fi

# --- model JSON keeps names byte for byte, as valid UTF-8 JSON ---
printf 'events: Ir\nfl=a.c\nfn=bad\377\376name\n1 10\n' >"$work/badutf.callgrind"
expect_status 0 "$profkit" convert -q --force "$work/badutf.callgrind" -o "$work/badutf.json"
json_check "$work/badutf.json" "any(f['name'] == 'bad\\udcff\\udcfename' for f in doc['functions'])"
expect_status 0 "$profkit" convert -q --force "$work/badutf.json" -o "$work/badutf2.callgrind"
checks=$((checks + 1))
printf 'bad\377\376name' >"$work/badutf.want"
grep -aq -F -f "$work/badutf.want" "$work/badutf2.callgrind" || fail "invalid UTF-8 name changed through model JSON"

# --- the daily driver: metric choice, suggestions, numbers for people ---
printf 'events: Ir Dr D1mr Dw D1mw\nfl=a.c\nfn=main\n1 7386556 2000 31 1500 7\ncfn=f\ncalls=3 2\n2 1234567 0 0 0 0\nfn=f\n2 1234567 1000 12 0 0\n' \
  >"$work/cache.callgrind"
expect_status 1 "$profkit" flat -m D1 "$work/cache.callgrind"
grep -q "metric 'D1' is ambiguous; it matches D1mr, D1mw" "$work/err" || fail "ambiguous -m D1 not explained: $(cat "$work/err")"
expect_status 1 "$profkit" tree -m Xyz "$work/cache.callgrind"
grep -q "no metric named 'Xyz'; the metrics are: Ir, Dr, D1mr, Dw, D1mw" "$work/err" || fail "unknown metric lists no candidates: $(cat "$work/err")"
expect_status 0 "$profkit" flat -m d1mr "$work/cache.callgrind"
expect_status 2 "$profkit" tre "$db"
grep -q "unknown command 'tre'; did you mean 'tree'?" "$work/err" || fail "no suggestion for 'tre'"
expect_status 2 "$profkit" tree --thresold 3 "$db"
grep -q "unknown option '--thresold'; did you mean '--threshold'?" "$work/err" || fail "no suggestion for --thresold"
expect_status 2 "$profkit" tree --depth
grep -q "option '--depth' needs a value" "$work/err" || fail "missing option value not named"
for cmd in tree flat callers diff threads; do
  expect_status 0 "$profkit" $cmd --help
  grep -q '%%' "$work/out" && fail "$cmd --help prints '%%'"
done
golden flat-numbers.txt "$profkit" flat "$work/cache.callgrind"
# several and derived metrics as columns of flat
golden flat-derived-callgrind.txt "$profkit" flat -m 'Ir,Dr,D1mr,miss=D1mr/Dr' "$work/cache.callgrind"
golden flat-derived-db.txt "$profkit" flat -m 'CPUTIME,cyc,cpi=cyc/"CPUTIME (sec)"' "$db"
golden flat-derived-cube.txt "$profkit" flat -m 'Ir,Dr,r=Dr/Ir' "$src/tests/data/cube/sample.cubex"
expect_status 2 "$profkit" flat -m 'miss=D1mr/(Dr' "$work/cache.callgrind"
grep -q "')' expected at character 9" "$work/err" || fail "bad expression not located: $(cat "$work/err")"
expect_status 1 "$profkit" flat -m 'miss=D1mr/Dx' "$work/cache.callgrind"
# several metrics in flat's JSON and CSV: "metrics", and per row "values" aligned with it
expect_status 0 "$profkit" flat --json -m 'Ir,Dr,miss=D1mr/Dr' "$work/cache.callgrind"
cp "$work/out" "$work/flat-multi.json"
json_check "$work/flat-multi.json" '[m["name"] for m in doc["metrics"]] == ["Ir", "Dr", "miss"] and doc["metrics"][0]["total"] == doc["total"]'
json_check "$work/flat-multi.json" 'all(len(r["values"]) == 3 and r["values"][0]["exclusive"] == r["self"] and r["values"][0]["inclusive"] == r["inclusive"] for r in doc["rows"])'
json_check "$work/flat-multi.json" 'doc["rows"][0]["name"] == "main" and abs(doc["rows"][0]["values"][2]["exclusive"] - 31 / 2000) < 1e-12'
golden flat-derived-callgrind-csv.txt "$profkit" flat --csv -m 'Ir,Dr,miss=D1mr/Dr' "$work/cache.callgrind"
golden flat-sample-csv.txt "$profkit" flat --csv "$db"
# several and derived metrics as columns of tree and callers/callees (text, JSON, CSV)
export COLUMNS=120
golden tree-derived-callgrind.txt "$profkit" tree -t 0 -m 'Ir,D1mr,miss=D1mr/Dr' "$work/cache.callgrind"
golden tree-derived-db.txt "$profkit" tree -m 'CPUTIME,cyc,cpi=cyc/"CPUTIME (sec)"' "$db"
golden tree-derived-cube.txt "$profkit" tree -t 0 -m 'Ir,Dr,r=Dr/Ir' "$src/tests/data/cube/sample.cubex"
golden callers-derived-db.txt "$profkit" callers -m 'CPUTIME,cyc' "$db" dot
golden callees-derived-cube.txt "$profkit" callees -t 0 -m 'Dr,Ir' "$src/tests/data/cube/sample.cubex" work
unset COLUMNS
expect_status 0 "$profkit" tree --json -m 'CPUTIME,cyc,cpi=cyc/"CPUTIME (sec)"' "$db"
cp "$work/out" "$work/tree-multi.json"
json_check "$work/tree-multi.json" '[m["name"] for m in doc["metrics"]] == ["CPUTIME (sec)", "cycles", "cpi"] and [m["unit"] for m in doc["metrics"]][2] is None'
json_check "$work/tree-multi.json" 'doc["root"]["values"][0]["inclusive"] == doc["root"]["inclusive"] and abs(doc["root"]["values"][2]["inclusive"] - doc["root"]["values"][1]["inclusive"] / doc["root"]["inclusive"]) < 1e-6'
expect_status 0 "$profkit" callers --json -m 'CPUTIME,cyc' "$db" dot
cp "$work/out" "$work/callers-multi.json"
json_check "$work/callers-multi.json" 'doc["schema"] == "profkit.callers/1" and len(doc["metrics"]) == 2 and doc["functions"][0]["root"]["values"][1]["inclusive"] == 7.5e9'
# diff with several metrics: the first's tables, the others' changes as columns
export COLUMNS=130
golden diff-derived-callgrind.txt "$profkit" diff -m 'Ir,Dr,r=Dr/Ir' "$src/tests/data/callgrind/sample.callgrind" "$src/tests/data/callgrind/sample-b.callgrind"
expect_status 0 "$profkit" convert -q "$src/tests/data/callgrind/sample.callgrind" -o "$work/a.d" --to hpctoolkit
golden diff-derived-db.txt "$profkit" diff -m 'Ir,Dr,r=Dr/Ir' "$work/a.d" "$work/b.d"
unset COLUMNS
expect_status 2 "$profkit" diff -m 'r=Dr/Ir,Ir' "$work/a.d" "$work/b.d"
grep -q "the first of -m must be a metric" "$work/err" || fail "diff -m with a derived first column not refused: $(cat "$work/err")"
expect_status 0 "$profkit" diff --json -m 'Ir,Dr,r=Dr/Ir' "$src/tests/data/callgrind/sample.callgrind" "$src/tests/data/callgrind/sample-b.callgrind"
cp "$work/out" "$work/diff-multi.json"
json_check "$work/diff-multi.json" '[m["name"] for m in doc["metrics"]] == ["Ir", "Dr", "r"] and doc["metrics"][0]["a_total"] == doc["a_total"] and doc["metrics"][1]["b_total"] == 91'
json_check "$work/diff-multi.json" 'all(r["values"][0]["a_exclusive"] == r["a_self"] and r["values"][0]["b_inclusive"] == r["b_inclusive"] for r in doc["functions"] + doc["paths"])'
json_check "$work/diff-multi.json" '{k: v for k, v in next(r for r in doc["functions"] if r["name"] == "odd")["values"][1].items() if k in ("a_exclusive", "b_exclusive", "a_inclusive", "b_inclusive")} == {"a_exclusive": 40, "b_exclusive": 50, "a_inclusive": 40, "b_inclusive": 50}'
# annotate --asm: a program run under Callgrind --dump-instr=yes; the
# per-instruction costs sum to the function's self cost and equal the
# file's own instruction records; a different or missing binary is named
if command -v valgrind >/dev/null && command -v cc >/dev/null; then
  mkdir -p "$work/asm"
  printf '%s\n' '#include <stdio.h>' \
    '__attribute__((noinline)) static unsigned long work(unsigned long n)' \
    '{ unsigned long s = 0; for (unsigned long i = 0; i < n; i++) s += i * i % 7; return s; }' \
    'int main(void) { printf("%lu\n", work(20000)); return 0; }' >"$work/asm/t.c"
  cc -O1 -g -o "$work/asm/t" "$work/asm/t.c" &&
    valgrind -q --tool=callgrind --dump-instr=yes --callgrind-out-file="$work/asm/t.cg" "$work/asm/t" >/dev/null 2>&1
  expect_status 0 "$profkit" annotate --asm "$work/asm/t.cg" work
  cp "$work/out" "$work/asm/asm.txt"
  grep -q "^assembly of work in $work/asm/t (0x" "$work/asm/asm.txt" || fail "annotate --asm names no function and binary: $(head -3 "$work/asm/asm.txt")"
  expect_status 0 "$profkit" flat --csv -n 0 "$work/asm/t.cg"
  checks=$((checks + 1))
  python3 - "$work/asm/asm.txt" "$work/out" "$work/asm/t.cg" <<'PY' || fail "annotate --asm costs do not add up (see above)"
import csv, re, sys
# costs per instruction as annotate --asm prints them
asm = {}
for l in open(sys.argv[1]):
    m = re.match(r"\s*([\d,]+)\s+[\d.]+%\s+([0-9a-f]+)\s", l)
    if m: asm[int(m.group(2), 16)] = int(m.group(1).replace(",", ""))
self_cost = next(float(r["exclusive"]) for r in csv.DictReader(open(sys.argv[2])) if r["name"] == "work")
# the file's own records: fn=work's cost lines (instr line Ir), positions relative or absolute
recs, names, fn, addr, skip = {}, {}, None, 0, False
for l in open(sys.argv[3]):
    l = l.rstrip("\n")
    m = re.match(r"(c?fn)=(?:\((\d+)\))?\s*(.*)", l)
    if m:
        name = m.group(3) or names.get(m.group(2))
        if m.group(2) and m.group(3): names[m.group(2)] = m.group(3)
        if m.group(1) == "fn": fn = name
        continue
    if l.startswith("calls="): skip = True; continue
    m = re.match(r"(0x[0-9a-f]+|[+-]\d+|\*)\s+\S+\s+(\d+)", l)
    if not m: continue
    p = m.group(1)
    addr = int(p, 16) if p.startswith("0x") else addr + int(p) if p[0] in "+-" else addr
    if skip: skip = False; continue
    if fn == "work": recs[addr] = recs.get(addr, 0) + int(m.group(2))
ok = sum(asm.values()) == self_cost and asm == recs and len(asm) > 10
if not ok: print("asm", sum(asm.values()), "flat", self_cost, "records", sum(recs.values()), len(asm), len(recs), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
  cp "$work/asm/t" "$work/asm/t.orig"
  cc -O0 -o "$work/asm/t" "$work/asm/t.c"
  expect_status 1 "$profkit" annotate --asm "$work/asm/t.cg" work
  grep -q "not the binary that was profiled" "$work/err" || fail "annotate --asm on another build: $(cat "$work/err")"
  rm -f "$work/asm/t"
  expect_status 1 "$profkit" annotate --asm "$work/asm/t.cg" work
  grep -q "$work/asm/t: cannot open the binary" "$work/err" || fail "annotate --asm without the binary: $(cat "$work/err")"
  expect_status 2 "$profkit" annotate --asm --json "$work/asm/t.cg" work
  expect_status 1 "$profkit" annotate --asm "$work/cache.callgrind" main
  grep -q "no instruction addresses (Callgrind: --dump-instr=yes)" "$work/err" || fail "annotate --asm without addresses: $(cat "$work/err")"
else
  echo "note: annotate --asm not tested (no valgrind or cc)" >&2
fi
# tree --csv: one row per shown node, where it is, its parent
golden tree-sample-csv.txt "$profkit" tree --csv "$db"
golden tree-cube-csv.txt "$profkit" tree --csv -t 0 -m 'Ir,r=Dr/Ir' "$src/tests/data/cube/sample.cubex"
golden tree-callgrind-csv.txt "$profkit" tree --csv -t 0 "$work/cache.callgrind"
golden callers-sample-csv.txt "$profkit" callers --csv "$db" dot
# function-level trees by default; --loops, --lines keep what folds in
golden tree-sample-loops.txt "$profkit" tree --loops "$db"
golden tree-sample-lines.txt "$profkit" tree --lines "$db"
golden tree-cube-lines.txt "$profkit" tree --lines -t 0 "$src/tests/data/cube/sample.cubex"
expect_status 2 "$profkit" callers --lines "$db" main
# C++ names demangled (--no-demangle keeps them) and shortened to COLUMNS=80
printf 'events: Ir\nfl=a.cc\nfn=main\n1 5\ncfn=_ZNSt6vectorIiSaIiEE9push_backERKi\ncalls=2 3\n3 40\nfn=_ZNSt6vectorIiSaIiEE9push_backERKi\n3 40\n' >"$work/cxx.callgrind"
printf 'fn=_ZN5outer5inner18deeply_nested_nameISt3mapINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt6vectorIiSaIiEESt4lessIS8_ESaISt4pairIKS8_SB_EEEEEvRKT_PKcm\n4 7\n' >>"$work/cxx.callgrind"
COLUMNS=80 golden tree-cxx.txt "$profkit" tree -t 0 "$work/cxx.callgrind"
COLUMNS=80 golden flat-cxx.txt "$profkit" flat "$work/cxx.callgrind"
golden flat-cxx-mangled.txt "$profkit" flat --no-demangle --width 80 "$work/cxx.callgrind"
# Callgrind records have no byte offset: dump says "-", not a made-up 0x00000000
"$profkit" dump "$cgsample" >"$work/cgdump.txt"
golden dump-callgrind-head.txt head -3 "$work/cgdump.txt"
"$profkit" dump --json "$cgsample" >"$work/cgdump.json"
checks=$((checks + 1))
python3 -c 'import json,sys; sys.exit(any(json.loads(l)["offset"] is not None for l in open(sys.argv[1])))' "$work/cgdump.json" ||
  fail "Callgrind dump --json gives records an offset"
# the export CSV says where each context is
head -1 "$work/s.csv" | grep -q '^location,context,parent,name,module,file,line,metric,scope,value$' || fail "CSV header"
# diff: identical inputs say so; changes with their percentage, ancestors folded
golden diff-same-db.txt "$profkit" diff "$db" "$db"
golden diff-same-cube.txt "$profkit" diff "$src/tests/data/cube/sample.cubex" "$src/tests/data/cube/sample.cubex"
golden diff-same-callgrind.txt "$profkit" diff "$cgsample" "$cgsample"
if [ -d "$corpus/cube" ]; then
  golden diff-cube-corpus.txt "$profkit" diff "$corpus/cube/extrap-mm-x10-zcubex-gzanchor/profile.cubex" "$corpus/cube/extrap-mm-x2000-zcubex/profile.cubex"
  COLUMNS=130 golden diff-derived-cube-corpus.txt "$profkit" diff -m 'time,PAPI_FP_OPS,fp=PAPI_FP_OPS/time' "$corpus/cube/extrap-mm-x10-zcubex-gzanchor/profile.cubex" "$corpus/cube/extrap-mm-x2000-zcubex/profile.cubex"
  # several and derived metrics on a real database (perf counters)
  perf=$corpus/hpctoolkit/hpctoolkit-tests-dbase/loops-perf.d
  COLUMNS=110 golden tree-derived-db-corpus.txt "$profkit" tree -t 5 -m 'perf::task-clock,perf::cpu-clock,r="perf::cpu-clock"/"perf::task-clock"' "$perf"
  golden flat-derived-db-corpus-csv.txt "$profkit" flat --csv -n 8 -m 'perf::task-clock,perf::cpu-clock' "$perf"
  golden tree-db-corpus-csv.txt "$profkit" tree --csv -t 5 "$perf"
  # Cube visits are call counts: the calls column beside time, not a cost
  COLUMNS=120 golden tree-cube-visits-corpus.txt "$profkit" tree "$corpus/cube/hatchet-scorep-cpi/profile.cubex"
  golden flat-cube-visits-corpus.txt "$profkit" flat -n 6 "$corpus/cube/hatchet-scorep-cpi/profile.cubex"
  golden flat-cube-visits-csv.txt "$profkit" flat --csv -n 6 "$corpus/cube/hatchet-scorep-cpi/profile.cubex"
  golden callees-cube-visits-corpus.txt "$profkit" callees "$corpus/cube/hatchet-scorep-cpi/profile.cubex" iteration
  expect_status 0 "$profkit" tree --json "$corpus/cube/hatchet-scorep-cpi/profile.cubex"
  cp "$work/out" "$work/cube-visits.json"
  json_check "$work/cube-visits.json" 'doc["metric"] == "time" and doc["root"]["children"][0]["children"][0]["name"] == "main" and doc["root"]["children"][0]["children"][0]["calls"] == 400484'
  golden diff-callgrind-corpus.txt "$profkit" diff "$corpus/callgrind/gprof2dot/compare_test_test1.callgrind" "$corpus/callgrind/gprof2dot/compare_test_test2.callgrind"
  # a path keeps its own function however narrow the terminal (shortened
  # by the name rule, never replaced by "<program root>")
  hdb=$corpus/hpctoolkit/hpctoolkit-tests-dbase
  COLUMNS=100 golden diff-db-narrow-paths.txt "$profkit" diff -n 0 "$hdb/loops-perf.d" "$hdb/loops-perf.nostruct.d"
  grep -q '<program root> \[' "$work/diff-db-narrow-paths.txt" && fail "diff names a path <program root>"
  # huge changes: the true percentage (never capped), one number format
  # per column, columns as wide as their widest value
  gen=$corpus/callgrind/generated
  golden diff-callgrind-huge.txt "$profkit" diff "$gen/python3-nocompress.callgrind.out" "$gen/python3-heavy-instr-jumps-nocompress.callgrind.out"
  # counts print as integers whatever a reconstructed tree apportions; JSON keeps the fractions
  COLUMNS=120 golden tree-callgrind-counts.txt "$profkit" tree -m Ir,D1mr "$gen/mt_O0-cachesim-combined.callgrind.out"
  expect_status 0 "$profkit" tree --json -t 0 -m Ir "$gen/mt_O0-cachesim-combined.callgrind.out"
  cp "$work/out" "$work/counts.json"
  json_check "$work/counts.json" 'doc["root"]["children"][0]["name"] == "clone" and doc["root"]["children"][0]["self"] % 1 != 0'
fi

# One question, one answer (issue 30's examples): a pattern gives one block
# per matching function with its own total; callers of a small function
# are shown (the threshold is a share of its own value); a diff says a
# reconstruction once; different functions keep different labels.
cat >"$work/small-fn.callgrind" <<'CG'
events: Ir
fl=work.c
fn=main
1 5
cfn=big
calls=1 2
2 100000
cfn=fib
calls=3 3
3 300
fn=big
2 100000
fn=fib
3 300
CG
expect_status 0 "$profkit" callers "$work/small-fn.callgrind" fib
grep -q " main" "$work/out" || fail "callers of a small function hide its caller: $(cat "$work/out")"
expect_status 0 "$profkit" callers --json "$work/small-fn.callgrind" '^(big|fib)$'
json_check "$work/out" '[f["name"] for f in doc["functions"]] == ["big", "fib"] and [f["inclusive"] for f in doc["functions"]] == [100000, 300]'
expect_status 0 "$profkit" diff --focus main "$work/small-fn.callgrind" "$work/small-fn.callgrind"
[ "$(grep -c RECONSTRUCTED "$work/out")" = 1 ] || fail "diff says RECONSTRUCTED more than once"
if [ -d "$corpus/hpctoolkit" ]; then
  l233=$corpus/hpctoolkit/hpcviewer-main-issue-233
  expect_status 0 "$profkit" callers --json -n 0 "$l233" 'Calc.*'
  cp "$work/out" "$work/calc.json"
  json_check "$work/calc.json" 'len(doc["functions"]) > 3 and len({f["name"] for f in doc["functions"]}) == len(doc["functions"]) and doc["functions"][0]["name"] == "CalcForceForNodes" and doc["functions"][0]["inclusive"] < 0.75 * doc["total"] and all(f["root"]["name"] == f["name"] for f in doc["functions"])'
  expect_status 0 "$profkit" flat -n 0 "$l233"
  [ "$(grep -c 'IntegrateStressFor' "$work/out")" = "$(grep 'IntegrateStressFor' "$work/out" | sort -u -k5 | wc -l)" ] ||
    fail "two IntegrateStressForElems clones read alike: $(grep IntegrateStress "$work/out")"
  grep -q 'omp_fn.4' "$work/out" || fail "a clone's suffix was cut away"
fi

# Min/max metrics (issue 31): a node's self value is its stored exclusive
# value (never inclusive less children's), no percentages of a total, and
# the program total as CubeLib gives it, profkit's over visited cells beside.
if [ -d "$corpus/cube" ]; then
  cpi=$corpus/cube/hatchet-scorep-cpi/profile.cubex
  expect_status 0 "$profkit" tree --json -t 0 -m min_time "$cpi"
  cp "$work/out" "$work/min.json"
  json_check "$work/min.json" 'doc["metrics"][0]["percent"] is False and doc["total"] == 0 and any(n["code"] == "cells" for n in doc["notes"])'
  json_check "$work/min.json" 'all(n["self"] >= 0 for n in [doc["root"]] + [c for c in doc["root"]["children"]] + [g for c in doc["root"]["children"] for g in c["children"]])'
  json_check "$work/min.json" 'doc["root"]["children"][0]["children"][0]["name"] == "main" and abs(doc["root"]["children"][0]["children"][0]["self"] - 9.673772632257746e-06) < 1e-18'
  expect_status 0 "$profkit" tree -m max_time "$cpi"
  grep -E '^ +[0-9.,]+ +[-0-9.]+%' "$work/out" && fail "a max_time tree shows percentages: $(cat "$work/out")"
  expect_status 0 "$profkit" flat -m max_time "$cpi"
  grep -E '^ +[0-9.,]+ +[-0-9.]+%' "$work/out" && fail "a max_time flat profile shows percentages"
  grep -q "combines by its maximum" "$work/out" || fail "flat of max_time does not say why no percentages"
  # diff: functions' and paths' values combine by min, no share of a total;
  # a flame graph cannot nest them and says so
  mm=$corpus/cube/extrap-mm-x10-zcubex-gzanchor/profile.cubex
  expect_status 0 "$profkit" diff --json -n 0 -m min_time "$mm" "$corpus/cube/extrap-mm-x2000-zcubex/profile.cubex"
  json_check "$work/out" 'all(r["a_self"] >= 0 and r["b_self"] >= 0 for r in doc["functions"]) and "extreme" in [n["code"] for n in doc["notes"]]'
  expect_status 0 "$profkit" diff -m min_time "$mm" "$corpus/cube/extrap-mm-x2000-zcubex/profile.cubex"
  grep -E '%  main > mat_mul$' "$work/out" && fail "diff of min_time shows a share of the total"
  expect_status 1 "$profkit" flame -m min_time "$cpi" -o "$work/min.svg"
  grep -q "no flame graph of min_time" "$work/err" || fail "flame of min_time: $(cat "$work/err")"
  [ -e "$work/min.svg" ] && fail "flame of min_time wrote a file"
fi

# diff of a database and its own Callgrind conversion (issue 31): no
# calling path invented from the call graph's reconstruction (hatchet-cpi-v4
# showed pthread_spin_lock 59.13 -> 24.59 ms and an [added] twin); a
# metric without values compares as zeros, the same.
if [ -d "$corpus/hpctoolkit" ]; then
  hcpi=$corpus/hpctoolkit/hatchet-cpi-v4
  expect_status 0 "$profkit" convert -q "$hcpi" -o "$work/hcpi.callgrind"
  expect_status 0 "$profkit" diff "$hcpi" "$work/hcpi.callgrind"
  grep -q "^no differences: every function and call arc" "$work/out" || fail "a database differs from its Callgrind conversion: $(cat "$work/out")"
  expect_status 0 "$profkit" diff --json -n 0 "$hcpi" "$work/hcpi.callgrind"
  json_check "$work/out" 'doc["paths_are"] == "call_arcs" and doc["functions"] == [] and doc["paths"] == [] and not doc["any_change"]'
  empty=$corpus/hpctoolkit/hpcviewer-2023.01-xml/bug-empty
  expect_status 0 "$profkit" diff "$empty" "$empty"
  grep -q "^no differences" "$work/out" || fail "diff of a profile with an empty metric and itself: $(cat "$work/out")"
  expect_status 0 "$profkit" flat --json "$empty"
  json_check "$work/out" '"empty" in [n["code"] for n in doc["notes"]] and doc["total"] == 0'
fi

# Cachegrind (issue 31): a function is its name, not one row per fl= block
# of an inlined header; Callgrind functions of one name that stay apart
# (statics, two libraries) say what tells them apart.
cat >"$work/same-name.callgrind" <<'CG'
# callgrind format
version: 1
creator: callgrind-3.19.0
events: Ir
ob=/usr/bin/prog
fl=a.c
fn=init
1 100
fl=b.c
fn=init
1 50
fl=m.c
fn=main
1 5
cfl=a.c
cfn=init
calls=1 1
1 100
cfl=b.c
cfn=init
calls=1 1
1 50
ob=/usr/lib/libx.so
fl=x.c
fn=helper
1 7
ob=/usr/lib/liby.so
fl=y.c
fn=helper
1 3
totals: 165
CG
expect_status 0 "$profkit" flat "$work/same-name.callgrind"
grep -q " init (a.c)$" "$work/out" && grep -q " init (b.c)$" "$work/out" || fail "two statics named init read alike: $(cat "$work/out")"
grep -q " helper \[libx.so\]$" "$work/out" && grep -q " main$" "$work/out" || fail "one name in two libraries reads alike: $(cat "$work/out")"
expect_status 0 "$profkit" flat --json "$work/same-name.callgrind"
json_check "$work/out" '{(r["name"], r["differs"], r["differs_by"]) for r in doc["rows"]} == {("init", "a.c", "file"), ("init", "b.c", "file"), ("helper", "libx.so", "module"), ("helper", "liby.so", "module"), ("main", None, None)}'
cat >"$work/inlined.cgout" <<'CG'
desc: I1 cache: 32768 B, 64 B, 8-way associative
cmd: ./a.out
events: Ir Dr
fl=main.cc
fn=main
3 10 2
4 20 4
fl=/usr/include/c++/12/bits/stl_vector.h
fn=main
100 5 1
fn=_M_run()
7 1 0
fl=/usr/include/c++/12/bits/unique_ptr.h
fn=main
40 7 0
fn=_M_run()
9 2 0
summary: 45 7
CG
expect_status 0 "$profkit" flat -m Ir "$work/inlined.cgout"
[ "$(grep -c ' main$' "$work/out")" = 1 ] && grep -q '^ *42 .* main$' "$work/out" || fail "a Cachegrind function comes once per fl= block: $(cat "$work/out")"
expect_status 0 "$profkit" flat --by file -m Ir "$work/inlined.cgout"
grep -q "stl_vector.h" "$work/out" && grep -q "main.cc" "$work/out" || fail "flat --by file lost an inlined header's lines"
if [ -d "$corpus/callgrind" ]; then
  expect_status 0 "$profkit" flat -n 0 "$corpus/callgrind/generated/mt_O0.cachegrind.out"
  [ "$(grep -c ' dl_main$' "$work/out")" = 1 ] || fail "dl_main of mt_O0.cachegrind.out comes more than once"
fi

echo "cli: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
