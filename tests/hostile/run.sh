#!/usr/bin/env bash
# tests/hostile/run.sh — the profkit executable against hostile inputs and
# hostile surroundings (issue 19), one section per class, every input made
# here (mk_cube.py, mk_deep.py, inline files). Each check states what must
# happen: a clean exit status and message, bounded memory (under an
# address-space limit, prlimit --as, except under AddressSanitizer, which
# cannot run with one), no temporary file left, nothing raw on a terminal.
# Peak memory and time of the class 1 and 4 inputs are printed (KB, s).
#
#   run.sh PROFKIT CG_GEN SOURCE_DIR WORK
set -u
profkit=$1 cg_gen=$2 src=$3 work=$4
here=$src/tests/hostile
rm -rf "$work" && mkdir -p "$work"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
checks=0 failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
asan=0
ldd "$profkit" 2>/dev/null | grep -q libasan && asan=1

# run NAME STATUS LIMIT_MB -- CMD...: CMD's stdout/stderr in $work/NAME.out/.err,
# its peak RSS (KB) in $work/NAME.rss; fails unless it exits with STATUS
# within 120 s (under a LIMIT_MB address-space limit when not ASan).
run() {
  local name=$1 want=$2 limit=$3
  shift 4
  local pre=()
  [ "$asan" = 0 ] && [ "$limit" != 0 ] && pre=(prlimit --as=$((limit << 20)) --)
  /usr/bin/time -f "%M %e" -o "$work/$name.time" timeout 120 "${pre[@]}" "$@" \
    >"$work/$name.out" 2>"$work/$name.err"
  local rc=$? rss=0 secs=0
  checks=$((checks + 1))
  # the last line: time puts "Command exited with non-zero status N" first
  read -r rss secs < <(tail -n 1 "$work/$name.time")
  echo "$rss" >"$work/$name.rss"
  echo "  $name: exit $rc, peak $rss KB, $secs s"
  [ "$rc" = "$want" ] || fail "$name: exit status $rc, want $want: $(head -c 400 "$work/$name.err")"
}
says() { # NAME TEXT: NAME's stderr or stdout holds TEXT
  checks=$((checks + 1))
  grep -qF -- "$2" "$work/$1.err" "$work/$1.out" || fail "$1: no '$2' in its output"
}
peak_below() { # NAME MB (not under ASan: its shadow memory counts)
  checks=$((checks + 1))
  [ "$asan" = 1 ] || [ "$(cat "$work/$1.rss")" -lt $(($2 * 1024)) ] ||
    fail "$1: peak memory $(cat "$work/$1.rss") KB, want below $2 MB"
}
took_below() { # NAME SECONDS (wall time, as run measured it)
  checks=$((checks + 1))
  local secs
  secs=$(tail -n 1 "$work/$1.time" | cut -d' ' -f2)
  awk -v s="$secs" -v m="$2" 'BEGIN { exit !(s < m) }' || fail "$1: took $secs s, want below $2 s"
}
no_temporaries() { # DIR
  checks=$((checks + 1))
  local left
  left=$(find "$1" -name '.*.tmp-*' 2>/dev/null | head -3)
  [ -z "$left" ] || fail "temporary outputs left behind: $left"
}

echo "class 1: memory in proportion to what a file holds"
"$py" "$here/mk_cube.py" zero-rows "$work/zero-rows.cubex" 30000
"$py" "$here/mk_cube.py" tiny-rows "$work/tiny-rows.cubex" 30000
"$py" "$here/mk_cube.py" gzip-bomb "$work/gzip-bomb.cubex" 300
"$py" "$here/mk_cube.py" anchor-bomb "$work/anchor-bomb.cubex" 300
"$py" "$here/mk_cube.py" shared-data "$work/shared-data.cubex" 10000
"$py" "$here/mk_cube.py" shared-data "$work/shared-few.cubex" 3
run zero-rows 0 2048 -- "$profkit" info "$work/zero-rows.cubex" # 6.9 GB dense before
peak_below zero-rows 200
# 120,000 rows stored empty (a 0.93 MB file): O(rows), not O(rows^2)
# (issue 32: 42 s and 1.87 GB before)
"$py" "$here/mk_cube.py" zero-rows "$work/zero-rows-120k.cubex" 120000
run zero-rows-120k 0 1024 -- "$profkit" info "$work/zero-rows-120k.cubex"
peak_below zero-rows-120k 400
took_below zero-rows-120k 10
run zero-rows-120k-threads 0 1024 -- "$profkit" threads "$work/zero-rows-120k.cubex"
took_below zero-rows-120k-threads 10
run tiny-rows 1 2048 -- "$profkit" info "$work/tiny-rows.cubex"
says tiny-rows "member 0.data, byte"
says tiny-rows "memory budget"
peak_below tiny-rows 200
run gzip-bomb 1 2048 -- "$profkit" info "$work/gzip-bomb.cubex"
says gzip-bomb "gzip-wrapped archive, compressed byte"
says gzip-bomb "--max-memory"
run gzip-bomb-raised 0 2048 -- "$profkit" --max-memory 1G info "$work/gzip-bomb.cubex"
PROFKIT_MAX_MEMORY=1G run gzip-bomb-env 0 2048 -- "$profkit" info "$work/gzip-bomb.cubex"
run anchor-bomb 1 2048 -- "$profkit" info "$work/anchor-bomb.cubex"
says anchor-bomb "anchor.xml, compressed byte"
run shared-data 1 2048 -- "$profkit" info "$work/shared-data.cubex" # 12.7 GB, 113 s before
says shared-data "data members shared between metrics"
peak_below shared-data 200
run shared-few 0 2048 -- "$profkit" info "$work/shared-few.cubex"
run max-memory-usage 2 0 -- "$profkit" --max-memory lots info "$work/zero-rows.cubex"
# meta.db: 20,000 function names at suffixes of one 1 MiB string (a 2 MB
# database naming 10 GB; issue 32: 3.98 GB at a 4 GB cap after 12 s)
"$(dirname "$cg_gen")/pk-mkdb" --variant overlap "$work/overlap.d"
run overlap-strings 1 1024 -- "$profkit" info "$work/overlap.d"
says overlap-strings "strings that overlap or are shared between entries"
says overlap-strings "memory budget"
took_below overlap-strings 5
peak_below overlap-strings 400
run overlap-strings-small 1 1024 -- "$profkit" --max-memory 32M tree "$work/overlap.d"
says overlap-strings-small "strings that overlap"

echo "class 2: FIFOs, devices and sockets are refused, never waited on"
mkfifo "$work/input.fifo"
run fifo 1 0 -- "$profkit" info "$work/input.fifo"
says fifo "is a FIFO"
run device 1 0 -- "$profkit" tree /dev/zero
says device "is a character device"
"$py" -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$work/input.sock"
run socket 1 0 -- "$profkit" flat "$work/input.sock"
says socket "is a socket"
db=$work/fifo.d
"$profkit" convert -q "$src/tests/data/cube/sample.cubex" -o "$work/sample.json"
"$profkit" convert -q "$src/tests/data/callgrind/sample.callgrind" -o "$db"
rm -f "$db/trace.db" && mkfifo "$db/trace.db"
run fifo-trace 1 0 -- "$profkit" trace "$db"
says fifo-trace "trace.db: is a FIFO"
run fifo-trace-tree 0 0 -- "$profkit" tree "$db"   # traces not wanted: not opened
run fifo-trace-check 1 0 -- "$profkit" check "$db" # the rest is still checked
says fifo-trace-check "unreadable-file"
says fifo-trace-check "checked meta.db profile.db"
# a cct.db that is a symbolic link loop is unreadable (ELOOP), not absent
loop=$work/loop.d
"$(dirname "$cg_gen")/pk-mkdb" "$loop"
rm -f "$loop/cct.db" && ln -s cct.db "$loop/cct.db"
run loop-cct-check 1 0 -- "$profkit" check "$loop"
says loop-cct-check "cct.db: cannot open: Too many levels of symbolic links"
says loop-cct-check "unreadable-file"
run loop-cct-tree 0 0 -- "$profkit" tree "$loop" # the tree needs no cct.db

echo "class 3: a file that shrinks while it is read"
big=$work/big.callgrind
"$cg_gen" "$big" --mb 64 >/dev/null
python3 "$here/mk_deep.py" "$work/deep.json" 100000
# 12 cuts at times spread over the read (0.05 to 0.44 s in): the
# parallel Callgrind reader must meet the zeros (util/busguard.h) in each
# of its stages (cuts like these crashed one reader 9 times in 40, where
# 6 cuts at whole tenths of a second passed).
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
  for f in big.callgrind deep.json; do
    cp "$work/$f" "$work/shrinking"
    "$profkit" tree "$work/shrinking" >/dev/null 2>"$work/shrink.err" &
    pid=$!
    sleep "0.$(printf %02d $((i * 37 % 40 + 5)))"
    truncate -s $(((i % 6 + 1) * 100000)) "$work/shrinking"
    wait $pid
    rc=$?
    checks=$((checks + 1))
    # 0: read before the cut; 1: reported (damage, or the cut text's error)
    [ "$rc" -le 1 ] || fail "$f cut while read: exit status $rc $(head -c 300 "$work/shrink.err")"
  done
done

echo "class 4: every pass linear in the tree, no depth bound"
deep=$work/deep.json
for cmd in info tree flat threads check; do
  run "deep-$cmd" 0 2048 -- "$profkit" "$cmd" "$deep"
done
run deep-callers 0 2048 -- "$profkit" callers "$deep" f1
run deep-callees 0 2048 -- "$profkit" callees "$deep" f1
run deep-diff 0 2048 -- "$profkit" diff "$deep" "$deep"
run deep-flame 0 2048 -- "$profkit" flame "$deep" -o "$work/deep.svg"
run deep-csv 0 2048 -- "$profkit" convert "$deep" -o "$work/deep.csv"
run deep-speedscope 0 2048 -- "$profkit" convert "$deep" -o "$work/deep.speedscope.json"
run deep-folded 1 2048 -- "$profkit" convert "$deep" -o "$work/deep.folded"
says deep-folded "square of its depth"
checks=$((checks + 2))
[ "$(stat -c %s "$work/deep.csv")" -lt 10000000 ] || fail "CSV of a 100k chain: $(stat -c %s "$work/deep.csv") bytes"
[ "$(stat -c %s "$work/deep.speedscope.json")" -lt 20000000 ] || fail "speedscope of a 100k chain is too big"
[ ! -e "$work/deep.folded" ] || fail "a refused folded export left a file"

echo "class 5: outputs: no clobbering, no symlink following, --force only over profkit's own"
out=$work/race.json
for i in 1 2 3 4 5 6; do "$profkit" convert -q "$deep" -o "$out" 2>>"$work/race.err" & done
wait
checks=$((checks + 2))
[ "$(grep -c 'already exists' "$work/race.err")" = 5 ] || fail "6 racing converts: $(cat "$work/race.err")"
"$py" -c "import json,sys; json.load(open(sys.argv[1]))" "$out" || fail "the race's winner is not whole"
echo precious >"$work/victim.txt"
ln -s "$work/victim.txt" "$work/planted.csv"
run symlink 1 0 -- "$profkit" convert "$src/tests/data/cube/sample.cubex" -o "$work/planted.csv"
run symlink-force 1 0 -- "$profkit" convert -f "$src/tests/data/cube/sample.cubex" -o "$work/planted.csv"
says symlink-force "symbolic link"
checks=$((checks + 1))
[ "$(cat "$work/victim.txt")" = precious ] || fail "a planted symlink's target was written"
mkdir -p "$work/notmine.d" && : >"$work/notmine.d/meta.db" && echo keep >"$work/notmine.d/notes.txt"
run force-foreign 1 0 -- "$profkit" convert -f "$work/sample.json" -o "$work/notmine.d"
says force-foreign "cannot tell that it wrote it"
checks=$((checks + 1))
[ -e "$work/notmine.d/notes.txt" ] || fail "--force removed a directory profkit did not write"
run force-own-1 0 0 -- "$profkit" convert "$work/sample.json" -o "$work/own.csv"
run force-own-2 0 0 -- "$profkit" convert -f "$work/sample.json" -o "$work/own.csv"
for sig in INT TERM HUP; do
  rm -f "$work/slow.json"
  "$profkit" convert -q "$big" -o "$work/slow.json" 2>/dev/null &
  pid=$!
  sleep 0.5
  kill -s "$sig" "$pid"
  wait "$pid"
  no_temporaries "$work"
done
(
  ulimit -f 256
  trap '' XFSZ
  exec "$profkit" convert "$big" -o "$work/too-big.csv"
) >"$work/fsize.out" 2>"$work/fsize.err"
checks=$((checks + 1))
says fsize "File too large"
[ ! -e "$work/too-big.csv" ] || fail "a failed export left its file"
run no-dir-json 1 0 -- "$profkit" convert "$work/sample.json" -o "$work/no/such/dir/x.json"
run no-dir-cube 1 0 -- "$profkit" convert "$work/sample.json" -o "$work/no/such/dir/x.cubex"
says no-dir-cube "$work/no/such/dir does not exist"
no_temporaries "$work"

echo "class 6: names reach no terminal raw"
printf 'events: Ir\nfl=evil\033[2J\033]0;pwned\007.c\nfn=main\n1 10\ncfn=bad\033[31mred\377\376\342\200\256txt\ncalls=1 1\n1 20\nfn=bad\033[31mred\377\376\342\200\256txt\n1 20\n' >"$work/evil.callgrind"
evil=$work/evil.callgrind
for cmd in info tree flat threads check trace dump; do
  "$profkit" "$cmd" "$evil" >"$work/evil-$cmd.out" 2>&1
done
"$profkit" callers "$evil" bad >"$work/evil-callers.out" 2>&1
"$profkit" callees "$evil" main >"$work/evil-callees.out" 2>&1
"$profkit" diff "$evil" "$evil" >"$work/evil-diff.out" 2>&1
"$profkit" flame "$evil" -o "$work/evil.svg"
for f in "$work"/evil-*.out; do
  checks=$((checks + 1))
  "$py" - "$f" <<'PY' || fail "raw bytes reach the terminal in $(basename "$f")"
import sys
b = open(sys.argv[1], "rb").read()
bad = [c for c in b if c < 0x20 and c not in (0x0a,)] + [0x7f] * b.count(b"\x7f")
t = b.decode("utf-8")  # raises on invalid UTF-8
assert not bad and "\u202e" not in t, (bad, t[:200])
PY
done
checks=$((checks + 1))
"$py" -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])" "$work/evil.svg" ||
  fail "the flame graph of odd names is not well-formed XML"

echo "class 7: errors that say what failed"
if [ "$(id -u)" = 0 ]; then as_other=(setpriv --reuid=65534 --regid=65534 --clear-groups); else as_other=(); fi
cp "$evil" "$work/secret.callgrind" && chmod 600 "$work/secret.callgrind"
chmod o+x "$work"
if [ "$(id -u)" != 0 ]; then chmod 000 "$work/secret.callgrind"; fi
run denied 1 0 -- "${as_other[@]}" "$profkit" info "$work/secret.callgrind"
says denied "Permission denied"

echo "class 8: a multi-file run opened by its base name"
for k in 01 02 03; do cp "$src/tests/data/callgrind/sample.callgrind" "$work/callgrind.out.4242-$k"; done
run run-by-base 0 0 -- "$profkit" info "$work/callgrind.out.4242"
says run-by-base "callgrind.out.4242-01"
says run-by-base "callgrind.out.4242-03"

echo "class 9: NaN, the largest cost, formulas"
python3 "$here/mk_deep.py" "$work/nan.json" 5 3
sed -i 's/\[3, 0, 1\]/[3, 0, "NaN"]/' "$work/nan.json"
run nan-tree 0 0 -- "$profkit" tree -t 5 "$work/nan.json"
checks=$((checks + 1))
[ "$(grep -c ' f[0-9]' "$work/nan-tree.out")" = 5 ] || fail "tree hides NaN-valued contexts"
printf 'events: Ir\nfn=main\n1 18446744073709551615\n' >"$work/max.callgrind"
run max-cost 0 0 -- "$profkit" info "$work/max.callgrind"
says max-cost "program total of Ir: 1.84467440737096e+19"
printf 'events: Ir\nevent: A = B + Ir\nevent: B = A\nfn=main\n1 1\n' >"$work/formula.callgrind"
run formula-cycle 1 0 -- "$profkit" check "$work/formula.callgrind"
says formula-cycle "formula-cycle"

echo "class 10: a write error on standard output is an error (issue 32)"
mkdb=$(dirname "$cg_gen")/pk-mkdb
"$mkdb" "$work/full.d" >/dev/null
cg=$src/tests/data/callgrind/sample.callgrind
full_cases=("info $cg" "tree $cg" "flat $cg" "flat --csv $cg" "flat --json $cg" "callers $cg main"
  "callees $cg main" "threads $cg" "diff $cg $cg" "flame --folded $cg" "annotate $cg"
  "trace $work/full.d" "check $cg" "dump $cg" "dump --json $cg" "info --help" "--help" "--version")
for c in "${full_cases[@]}"; do
  name="full-$(echo "$c" | tr -c 'a-z-' '_' | cut -c1-40)"
  # shellcheck disable=SC2086
  run "$name" 1 0 -- sh -c "exec \"\$0\" $c >/dev/full" "$profkit"
  says "$name" "writing the output failed: No space left on device"
done

echo "class 11: regular expressions bounded in time and memory (issue 32)"
# one C++ name of 1 MB: glibc's regexec took over 60 s on a backreference
"$py" - "$work/longname.callgrind" <<'PY'
import sys
name = "std::vector<" * 87381 + "a"
open(sys.argv[1], "w").write("events: Ir\nfn=main\n1 5\ncfn=%s\ncalls=1 1\n1 10\nfn=%s\n1 10\n" % (name, name))
PY
ln=$work/longname.callgrind
run re-nested 2 512 -- "$profkit" tree --focus '(a{1,32767}){1,32767}' "$ln" # 3.9 GB, 35 s before
says re-nested "too big with its repetitions written out"
took_below re-nested 5
run re-backref 2 512 -- "$profkit" flat --hide '^(.*)(.*)\2\1$' "$ln"
says re-backref "backreferences"
run re-callers 2 512 -- "$profkit" callers "$ln" '(std::)\1'
says re-callers "backreferences"
run re-hard 0 512 -- "$profkit" tree --focus '(s|st|std|:)*(<|v)*x$' "$ln"
took_below re-hard 10
run re-ok 0 512 -- "$profkit" callers "$ln" 'vector<a$'
says re-ok "std::vector<std::vector<"

echo "hostile: $checks checks, $failures failures"
[ "$failures" = 0 ]
