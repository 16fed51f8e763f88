#!/usr/bin/env bash
# tests/flame/run.sh — the flame graph end to end: `profkit flame` on the
# sample database and on a Cube and a Callgrind sample writes SVGs that
# headless Chromium opens, where a real click on a frame zooms to it
# (flame_click.py). Screenshots are kept in WORK as test artifacts.
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
  "$py" "$src/tests/flame/flame_click.py" "$work/$name.svg" "$frame" "$sibling" "$work/$name.png"
  local rc=$?
  [ $rc -eq 77 ] && exit 77
  [ $rc -eq 0 ] || { echo "FAIL: clicking $frame in $name.svg"; status=1; }
}
run sample main worker "$work/sample"
run sample-icicle solve write_output "$work/sample" --icicle
run cube odd - "$src/tests/data/cube/sample.cubex"
run callgrind-diff work - "$src/tests/data/callgrind/sample.callgrind" --diff "$src/tests/data/cube/sample.cubex"
exit $status
