#!/usr/bin/env bash
# tests/view/run.sh — the `profkit view` page end to end (view_ui.py): a
# Callgrind file, an HPCToolkit database with traces, a .cubex, a diff
# (--base) and a profile whose names hold markup, each served and as a
# report opened from disk, clicked through in headless Chromium.
# Corpus files when ../shared/corpus has them, else the project's samples.
# Screenshots go to ARTIFACTS.
#
#   run.sh PROFKIT PK_MKDB SOURCE_DIR WORK ARTIFACTS [CORPUS]
set -u
profkit=$1 mkdb=$2 src=$3 work=$4 artifacts=$5
corpus=${6:-$src/../shared/corpus}
corpus=$(cd "$corpus" 2>/dev/null && pwd || echo "$corpus")
rm -rf "$work" "$artifacts" && mkdir -p "$work" "$artifacts"
# Debian's python3 has python3-websocket; a pyenv python on PATH may not.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$mkdb" "$work/sample" >/dev/null || exit 1
data=$src/tests/data
pick() { [ -e "$corpus/$1" ] && echo "$corpus/$1" || echo "$2"; }
callgrind=$(pick callgrind/gprof2dot/bzr.callgrind "$data/callgrind/sample.callgrind")
hpctk=$(pick hpctoolkit/hpctoolkit-tests-dbase/loops-cputime-t.d "$work/sample")
cube=$(pick cube/pycubexr-fastest-p16/profile.cubex "$data/cube/sample.cubex")
diff_a=$(pick callgrind/gprof2dot/compare_test_test2.callgrind "$data/callgrind/sample.callgrind")
diff_b=$(pick callgrind/gprof2dot/compare_test_test1.callgrind "$data/callgrind/sample-b.callgrind")
# names that are markup: shown as text, never run
cat >"$work/xss.callgrind" <<'CG'
# callgrind format
events: Ir
fl=<script>alert(1)</script>.c
fn=main
1 10
cfn=<script>alert(1)</script>
calls=1 1
2 300
cfn=<img src=x onerror="window.__pk_xss=1">
calls=2 1
3 120
fn=<script>alert(1)</script>
1 300
fn=<img src=x onerror="window.__pk_xss=1">
1 120
CG
exec "$py" "$src/tests/view/view_ui.py" "$profkit" "$work" "$artifacts" \
  "callgrind=$callgrind" "hpctoolkit=$hpctk" "sample=$work/sample" "cube=$cube" \
  "diff=$diff_a@$diff_b" "xss=$work/xss.callgrind"
