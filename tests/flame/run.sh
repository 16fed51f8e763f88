#!/usr/bin/env bash
# tests/flame/run.sh — the flame graph end to end: `profkit flame` on the
# sample database and on a Cube and a Callgrind sample writes SVGs that
# headless Chromium opens, where a real click on a frame zooms to it
# (flame_click.py); what they show without scripts (static_svg.py); an
# 800 px window keeps the search box in view; SVG is refused on a terminal.
# Screenshots are kept in WORK as test artifacts.
#
#   run.sh PROFKIT PK_MKDB SOURCE_DIR WORK
set -u
profkit=$1 mkdb=$2 src=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
"$mkdb" "$work/sample" >/dev/null || exit 1
# Debian's python3 has python3-websocket; a pyenv python on PATH may not.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
status=0
run() { # NAME FRAME SIBLING PROFILE [flame options...]
  local name=$1 frame=$2 sibling=$3 profile=$4
  shift 4
  "$profkit" flame "$profile" -o "$work/$name.svg" "$@" || { echo "FAIL: profkit flame $profile"; status=1; return; }
  local d=; case " $* " in *" --diff "*) d=--diff ;; esac
  "$py" "$src/tests/flame/static_svg.py" "$work/$name.svg" $d "$work" || { echo "FAIL: static SVG $name"; status=1; }
  "$py" "$src/tests/flame/flame_click.py" "$work/$name.svg" "$frame" "$sibling" "$work/$name.png"
  local rc=$?
  [ $rc -eq 77 ] && exit 77
  [ $rc -eq 0 ] || { echo "FAIL: clicking $frame in $name.svg"; status=1; }
}
run sample main worker "$work/sample"
run sample-icicle solve write_output "$work/sample" --icicle
run cube odd - "$src/tests/data/cube/sample.cubex"
run callgrind-diff work - "$src/tests/data/callgrind/sample.callgrind" --diff "$src/tests/data/cube/sample.cubex"
PK_FLAME_WINDOW=800 run narrow main worker "$work/sample" --title "a long title for a narrow window"
# not onto a terminal (script(1) gives it one); -o - and a pipe are fine
if command -v script >/dev/null; then
  script -qec "'$profkit' flame '$work/sample'; echo rc=\$?" /dev/null >"$work/tty.out" 2>&1
  grep -q "rc=2" "$work/tty.out" && grep -q "not writing an SVG to a terminal" "$work/tty.out" ||
    { echo "FAIL: flame wrote SVG to a terminal: $(cat "$work/tty.out")"; status=1; }
fi
"$profkit" flame "$work/sample" | grep -q "</svg>" || { echo "FAIL: flame into a pipe"; status=1; }
"$profkit" flame "$work/sample" -o - | grep -q "</svg>" || { echo "FAIL: flame -o -"; status=1; }
exit $status
