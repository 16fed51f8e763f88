#!/usr/bin/env bash
# bench/bench_peers.sh — every row of issue 33's table in one run: each
# profkit job next to the peer the table names (Hatchet's v4 reader,
# callgrind_annotate, pycubexr, CubeLib's cube_dump), on the same inputs,
# runs interleaved (peer, profkit, [before], peer, profkit, ...), medians of
# wall and CPU time (user + system) and the peak RSS (GNU time), and
# ratio = peer / profkit. The load average (1 min) is printed beside each
# row: on a shared machine, re-run when it is low.
#
#   bench/bench_peers.sh [BUILD_DIR] [WORK_DIR] [RUNS]
#
# Environment:
#   BEFORE=/path/to/profkit  another build measured in the same runs (the
#                            "before" of a change), its column beside ours
#   ROWS="hpc100k-tree cc1-info ..."  a subset of the rows (names below)
#   REFTOOLS=../shared/ref-tools       the peers' directory
#   CHRT=all      run every measured command (peers too) under `chrt -f 50`:
#                 real-time priority, so other sessions' processes wait while
#                 it runs — two idle cores on a shared machine (needs root;
#                 the kernel keeps 5% of each second for everyone else)
#   CHRT=profkit  only profkit's (and BEFORE's) runs so: they are short, the
#                 peers' are not (a shared machine's other jobs would stall)
#
# Inputs are made once in WORK_DIR (default /tmp/pk-bench-peers; ~9 GB):
#   p100000.d, p20000.d  pk-gen databases (100,000 profiles --samples 10:
#                        1.07 GB profile.db; 20,000 with the defaults)
#   cc1.callgrind        valgrind --tool=callgrind on gcc 12's cc1 -O2 -g
#                        compiling this project's src/formats/callgrind/parse.c
#                        (bench_callgrind.sh's recipe; ~60-80 MB: its size
#                        follows parse.c and the headers it includes)
#   gen-1024mb.callgrind cg-gen --mb 1024
#   big.cubex            cube_gen.py defaults: 5000 cnodes x 20 metrics x 640
#                        locations, 513 MB
#   huge.cubex           cube_gen.py 5000 20 6400: 5.1 GB
# Needs GNU time; valgrind and gcc for cc1; the peers in REFTOOLS; python3
# with numpy (cube_gen.py) and pandas (the Python row, `make python`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-$here/../build}")
work=${2:-/tmp/pk-bench-peers}
runs=${3:-3}
ref=$(realpath "${REFTOOLS:-$here/../../shared/ref-tools}")
profkit=$build/profkit
before=${BEFORE:-}
[ -x "$profkit" ] && [ -x "$build/pk-gen" ] && [ -x "$build/cg-gen" ] ||
  { echo "bench_peers: build first" >&2; exit 1; }
mkdir -p "$work"
rows=${ROWS:-hpc100k-tree hpc20k-tree hpc100k-info cc1-info cc1-flat cc1-tree cc1-annotate
gen1g-info cc1-convert cube513-info cube513-dump cube5g-info py-dataframe cat}
want() { [[ " ${rows//$'\n'/ } " == *" $1 "* ]]; }

# ---- inputs, made once ----
need_db() { # need_db NAME PK-GEN-ARGS...
  local db=$work/$1; shift
  [ -f "$db/profile.db" ] || "$build/pk-gen" "$db" "$@" --force >/dev/null 2>&1
}
want hpc100k-tree || want hpc100k-info && need_db p100000.d --profiles 100000 --samples 10
want hpc20k-tree && need_db p20000.d --profiles 20000
cc1=$work/cc1.callgrind
if [[ " $rows " == *" cc1-"* ]] && [ ! -s "$cc1" ]; then
  echo "bench_peers: profiling cc1 under callgrind (once, about a minute)" >&2
  gcc -E -I "$here/../include" -I "$here/../src" "$here/../src/formats/callgrind/parse.c" \
    -o "$work/big.i"
  (cd "$work" && valgrind --tool=callgrind --dump-instr=yes --compress-strings=no \
    --compress-pos=no --separate-callers=2 --callgrind-out-file="$cc1" \
    "$(gcc -print-prog-name=cc1)" -quiet -w -O2 -g big.i -o big.s >/dev/null 2>&1) || rm -f "$cc1"
fi
gen1g=$work/gen-1024mb.callgrind
want gen1g-info && { [ -s "$gen1g" ] || "$build/cg-gen" "$gen1g" --mb 1024 >/dev/null; }
want cube513-info || want cube513-dump &&
  { [ -s "$work/big.cubex" ] || /usr/bin/python3 "$here/cube_gen.py" "$work/big.cubex"; }
want cube5g-info &&
  { [ -s "$work/huge.cubex" ] || /usr/bin/python3 "$here/cube_gen.py" "$work/huge.cubex" 5000 20 6400; }
issue233=$here/../../shared/corpus/hpctoolkit/hpcviewer-main-issue-233
if want py-dataframe; then
  make -C "$here/.." --no-print-directory python BUILD="$build" >/dev/null
fi

# ---- measuring ----
tfile=$(mktemp)
trap 'rm -f "$tfile"; rm -rf "$work/out.d"' EXIT
one() { # one [-p] CMD...: "wall cpu rss_kb load" of one run (output discarded); -p: profkit's
  local load rt=""
  if [ "$1" = -p ]; then
    shift
    [ "${CHRT:-}" = profkit ] && rt="chrt -f 50"
  fi
  [ "${CHRT:-}" = all ] && rt="chrt -f 50"
  read -r load _ </proc/loadavg
  rm -rf "$work/out.d"
  # wall from the clock in ns around the run: GNU time's %e is in 10 ms
  # steps, a tenth of the shortest rows (it keeps the CPU time and RSS)
  local t0 t1
  t0=$(date +%s%N)
  $rt /usr/bin/time -o "$tfile" -f '%e %U %S %M' "$@" >/dev/null 2>&1 ||
    { echo "bench_peers: failed: $*" >&2; echo "nan nan 0 $load"; return; }
  t1=$(date +%s%N)
  awk -v l="$load" -v ns=$((t1 - t0)) '{ printf "%.4f %.3f %s %s\n", ns / 1e9, $2 + $3, $4, l }' "$tfile"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) : "nan" }'; }
# summary of runs in a file (wall cpu rss load per line): "wall cpu rss_mb load"
summarize() {
  [ -s "$1" ] || { echo "- - - -"; return; }
  echo "$(cut -d' ' -f1 "$1" | median) $(cut -d' ' -f2 "$1" | median) \
$(cut -d' ' -f3 "$1" | median | awk '{ printf "%.0f", $1 / 1024 }') $(cut -d' ' -f4 "$1" | median)"
}

printf '| work | peer | peer wall / CPU / RSS | profkit wall / CPU / RSS | ratio wall | ratio CPU |'
[ -n "$before" ] && printf ' before wall / CPU / RSS |'
printf ' load |\n|---|---|---|---|---|---|'
[ -n "$before" ] && printf -- '---|'
printf -- '---|\n'

# row NAME LABEL PEER_LABEL "PEER CMD" "PROFKIT ARGS" [MB_FOR_RATE]
row() {
  local name=$1 label=$2 plabel=$3 peer=$4 args=$5 mb=${6:-}
  want "$name" || return 0
  local fp=$work/.peer fn=$work/.new fb=$work/.before
  : >"$fp"; : >"$fn"; : >"$fb"
  for ((i = 0; i < runs; i++)); do
    [ -n "$peer" ] && eval "one $peer" >>"$fp"
    eval "one -p \"\$profkit\" $args" >>"$fn"
    [ -n "$before" ] && eval "one -p \"\$before\" $args" >>"$fb"
  done
  read -r pw pc pr pl < <(summarize "$fp")
  read -r nw nc nr nl < <(summarize "$fn")
  local rate=""
  [ -n "$mb" ] && rate=$(awk -v m="$mb" -v w="$nw" 'BEGIN { printf " (%.0f MB/s)", m / w }')
  local ratio_w ratio_c
  ratio_w=$(awk -v a="$pw" -v b="$nw" 'BEGIN { if (a == "-" || b + 0 <= 0) print "-"; else printf "%.1fx", a / b }')
  ratio_c=$(awk -v a="$pc" -v b="$nc" 'BEGIN { if (a == "-" || b + 0 <= 0) print "-"; else printf "%.1fx", a / b }')
  printf '| %s | %s | %s s / %s s / %s MB | %s s / %s s / %s MB%s | %s | %s |' "$label" "$plabel" \
    "$pw" "$pc" "$pr" "$nw" "$nc" "$nr" "$rate" "$ratio_w" "$ratio_c"
  if [ -n "$before" ]; then
    read -r bw bc br _ < <(summarize "$fb")
    printf ' %s s / %s s / %s MB |' "$bw" "$bc" "$br"
  elif [ -n "${BEFORE:-}" ]; then # a row measured without it (the Python job)
    printf ' - |'
  fi
  printf ' %s |\n' "$nl"
}

hr=$ref/bin/hatchet-read
ca="callgrind_annotate"
row hpc100k-tree "HPCToolkit, 100,000 profiles, \`tree\`" "Hatchet v4 reader" "\"\$hr\" \"\$work/p100000.d\"" \
  "tree \"\$work/p100000.d\""
row hpc20k-tree "HPCToolkit, 20,000 profiles, \`tree\`" "Hatchet v4 reader" "\"\$hr\" \"\$work/p20000.d\"" \
  "tree \"\$work/p20000.d\""
row hpc100k-info "HPCToolkit, 100,000 profiles, \`info\`" "-" "" "info \"\$work/p100000.d\""
if [ -s "$cc1" ]; then
  cc1mb=$(($(stat -c %s "$cc1") / 1000000))
  hot=$("$profkit" flat --by file --csv -n 3 "$cc1" | awk -F, 'NR > 1 && $1 != "?" { print $1; exit }')
  row cc1-info "Callgrind cc1 $cc1mb MB, \`info\`" "callgrind_annotate" "$ca \"\$cc1\"" "info \"\$cc1\"" "$cc1mb"
  row cc1-flat "Callgrind cc1, \`flat\`" "callgrind_annotate" "$ca \"\$cc1\"" "flat \"\$cc1\"" "$cc1mb"
  row cc1-tree "Callgrind cc1, \`tree\`" "callgrind_annotate" "$ca \"\$cc1\"" "tree \"\$cc1\"" "$cc1mb"
  row cc1-annotate "Callgrind cc1, \`annotate ${hot##*/}\`" "callgrind_annotate --auto=yes" \
    "$ca --auto=yes \"\$cc1\"" "annotate \"\$cc1\" \"\$hot\"" "$cc1mb"
  written() { "$profkit" convert -q -f "$cc1" -o "$work/out.d" && du -sm "$work/out.d" | cut -f1; }
  want cc1-convert && outmb=$(written) && rm -rf "$work/out.d"
  row cc1-convert "\`convert\` cc1 → \`.d\` (${outmb:-?} MB written)" "-" "" \
    "convert -q -f \"\$cc1\" -o \"\$work/out.d\"" "${outmb:-}"
fi
row gen1g-info "Callgrind 1 GB generated, \`info\`" "-" "" "info \"\$gen1g\"" 1074
row cube513-info "Cube 513 MB, every value (\`info\`)" "pycubexr" \
  "\"\$ref/bin/pycubexr-totals\" \"\$work/big.cubex\"" "info \"\$work/big.cubex\"" 513
row cube513-dump "Cube 513 MB, every value (\`info\`)" "CubeLib \`cube_dump -m all -c all -z incl -t aggr\`" \
  "\"\$ref/cubelib/bin/cube_dump\" -m all -c all -z incl -t aggr \"\$work/big.cubex\"" \
  "info \"\$work/big.cubex\"" 513
row cube5g-info "Cube 5.1 GB, \`info\`" "pycubexr" \
  "\"\$ref/bin/pycubexr-totals\" \"\$work/huge.cubex\"" "info \"\$work/huge.cubex\"" 5130
if want py-dataframe; then
  pyjob=$work/.df.sh
  printf '#!/bin/sh\nPYTHONPATH=%s exec /usr/bin/python3 -c "import profkit; profkit.open(\\"%s\\").dataframe()"\n' \
    "$here/../python" "$issue233" >"$pyjob"
  chmod +x "$pyjob"
  # the row's "profkit" is the Python job: run it in place of the executable
  saved=$profkit saved_before=$before
  profkit=$pyjob before=""
  row py-dataframe "Python \`dataframe()\`, issue-233" "Hatchet v4 reader" "\"\$hr\" \"\$issue233\"" ""
  profkit=$saved before=$saved_before
  # the same work after the imports both pay (the interpreter, NumPy and
  # pandas: 0.2 s, most of the row above): Hatchet's own read_s against
  # profkit.open() + dataframe(), each timed inside its process
  : >"$work/.pyr"
  read -r load _ </proc/loadavg
  for ((i = 0; i < runs; i++)); do
    h=$("$hr" "$issue233" 2>/dev/null | tail -1 |
      /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["read_s"])')
    p=$(PYTHONPATH="$here/../python" /usr/bin/python3 -c 'import sys, time, pandas, profkit
t = time.perf_counter(); profkit.open(sys.argv[1]).dataframe(); print(time.perf_counter() - t)' \
      "$issue233")
    echo "$h $p" >>"$work/.pyr"
  done
  hm=$(cut -d' ' -f1 "$work/.pyr" | median) pm=$(cut -d' ' -f2 "$work/.pyr" | median)
  printf '| Python `dataframe()` after the imports, issue-233 | Hatchet v4 reader (its read_s) | %.3f s | %.3f s (open + dataframe) | %.1fx | - |%s %s |\n' \
    "$hm" "$pm" "$(awk -v a="$hm" -v b="$pm" 'BEGIN { print a / b }')" "${BEFORE:+ - |}" "$load"
fi
if want cat; then
  for f in "$cc1" "$work/big.cubex"; do
    [ -s "$f" ] || continue
    : >"$work/.cat"
    for ((i = 0; i < runs; i++)); do one cat "$f" >>"$work/.cat"; done
    read -r cw cc cr cl < <(summarize "$work/.cat")
    printf '| `cat` %s (the floor) | - | - | %s s / %s s / %s MB | | |%s %s |\n' "${f##*/}" "$cw" \
      "$cc" "$cr" "${BEFORE:+ |}" "$cl"
  done
fi
