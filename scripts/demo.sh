#!/usr/bin/env bash
# scripts/demo.sh — what `make demo` runs after building: profkit on a
# shipped sample database, then end to end on a real profile: compile
# examples/demo/nbody.c, profile it with valgrind --tool=callgrind, show
# the tree, the flat profile and the annotated source, convert it to HPCToolkit and Cube, read
# those back, and draw a flame graph.
#
#   scripts/demo.sh BUILD_DIR
set -euo pipefail
build=$1
profkit=$build/profkit
demo=$build/demo
rm -rf "$demo" && mkdir -p "$demo"
say() { printf '\n\033[1m$ %s\033[0m\n' "$*" 2>/dev/null || printf '\n$ %s\n' "$*"; "$@"; }
[ -t 1 ] || say() { printf '\n$ %s\n' "$*"; "$@"; }

echo "== a sample HPCToolkit database (built by pk-mkdb) =="
"$build/pk-mkdb" "$demo/sample.d"
say "$profkit" info "$demo/sample.d"
say "$profkit" tree "$demo/sample.d"
say "$profkit" check "$demo/sample.d"

echo; echo "== a real profile: examples/demo/nbody.c under valgrind --tool=callgrind =="
cc -O1 -fno-inline -g -o "$demo/nbody" examples/demo/nbody.c -lm
(cd "$demo" && valgrind --tool=callgrind --callgrind-out-file=nbody.callgrind ./nbody 150 6 2>valgrind.log)
say "$profkit" info "$demo/nbody.callgrind"
say "$profkit" tree -t 2 "$demo/nbody.callgrind"
say "$profkit" flat -n 8 "$demo/nbody.callgrind"
say "$profkit" callers "$demo/nbody.callgrind" distance
say "$profkit" annotate -C 1 "$demo/nbody.callgrind" distance
say "$profkit" convert "$demo/nbody.callgrind" -o "$demo/nbody.d"
say "$profkit" convert "$demo/nbody.callgrind" -o "$demo/nbody.cubex"
say "$profkit" flat -n 5 "$demo/nbody.d"
say "$profkit" flat -n 5 "$demo/nbody.cubex"
say "$profkit" check -q "$demo/nbody.d"
echo; echo "== a second run with more bodies, compared with the first =="
(cd "$demo" && valgrind --tool=callgrind --callgrind-out-file=nbody-200.callgrind ./nbody 200 6 2>>valgrind.log)
say "$profkit" diff -n 5 "$demo/nbody.callgrind" "$demo/nbody-200.callgrind"
say "$profkit" flame "$demo/nbody-200.callgrind" --diff "$demo/nbody.callgrind" -o "$demo/nbody-diff.svg"
echo; echo "differential flame graph: $demo/nbody-diff.svg (open it in a browser; click a frame to zoom)"
say "$profkit" view -I examples/demo "$demo/nbody-200.callgrind" --base "$demo/nbody.callgrind" -o "$demo/nbody-view.html"
echo "interactive view (every pane, offline): $demo/nbody-view.html"
echo "or serve it: $profkit view -I examples/demo $demo/nbody-200.callgrind --base $demo/nbody.callgrind"
