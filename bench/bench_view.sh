#!/usr/bin/env bash
# bench/bench_view.sh — `profkit view` on a million contexts: the time the
# server takes to open bench_views.sh's synthetic database (pk-gen, 10^6
# contexts, 8 profiles), then, measured with curl (time_total), the first
# screen's requests as the page makes them (profile, tree root depth 2,
# flat top 500 of every metric, flame at 0.1 %), expanding a node of the
# tree, and the same requests again (cached). First, the time from the
# command's start until the first screen's requests are all answered, as
# a user waits for it. Peak RSS of the server at the end (VmHWM).
#
#   bench/bench_view.sh [BUILD_DIR] [WORK_DIR]
set -euo pipefail
build=${1:-build}
work=${2:-$build/bench-views}
profkit=$(realpath "$build/profkit")
db=$work/ctx1m.d
mkdir -p "$work"
if [ ! -e "$db/meta.db" ]; then
  "$build/pk-gen" "$db" --contexts 1000000 --profiles 8 --samples 200000 --force
fi
command -v curl >/dev/null || { echo "bench_view: needs curl" >&2; exit 1; }
start=$(date +%s.%N)
"$profkit" view "$db" --port 0 >"$work/view.url" 2>"$work/view.err" &
pid=$!
trap 'kill -INT $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do [ -s "$work/view.url" ] && break; sleep 0.1; done
url=$(head -1 "$work/view.url")
[ -n "$url" ] || { echo "bench_view: the server did not start" >&2; cat "$work/view.err" >&2; exit 1; }
printf 'open (until the URL is printed): %.2f s\n' "$(echo "$(date +%s.%N) - $start" | bc)"
get() { curl -s -o "$work/last.json" -w '%{time_total}' "$url$1"; }
profile_t=$(get api/profile)
# one interpreter start (~30 ms here) stands in for the page's JSON parsing:
# the default metric, then every metric with it first, both URL-encoded
{ read -r m; read -r all; } < <(/usr/bin/python3 -c '
import json, sys, urllib.parse
q = lambda s: urllib.parse.quote(s, safe="-_.!~*()'"'"'")
d = json.load(open(sys.argv[1])); first = d["default_metric"]
print(q(first)); print(q(",".join([first] + [x["name"] for x in d["metrics"] if x["name"] != first])))' "$work/last.json")
# what a user waits for: from the command's start to the last answer of
# the first screen, requested as the page does (the profile, then tree,
# flat and flame at once)
flat_q="api/flat?by=function&metrics=$all"
curl -s -o /dev/null "$url""api/tree?depth=2&metric=$m" & a=$!
curl -s -o /dev/null "$url$flat_q" & b=$!
curl -s -o /dev/null "$url""api/flame?metric=$m" & c=$!
wait $a $b $c
printf 'from the start to the first screen answered: %.2f s (profile %.3f s)\n' \
  "$(echo "$(date +%s.%N) - $start" | bc)" "$profile_t"
screen() { # the first screen: prints the four times and their sum
  local a b c d
  a=$(get api/profile)
  b=$(get "api/tree?depth=2&metric=$m")
  cp "$work/last.json" "$work/tree.json"
  c=$(get "$flat_q")
  d=$(get "api/flame?metric=$m")
  printf '| %s | %s | %s | %s | %s | %.3f |\n' "$1" "$a" "$b" "$c" "$d" "$(echo "$a + $b + $c + $d" | bc)"
}
echo "| run | profile s | tree depth 2 s | flat top 500 s | flame 0.1 % s | first screen s |"
echo "|---|---|---|---|---|---|"
screen again
screen cached
# expand the first child of the hot path's deepest loaded node, then a
# few more nodes down the hot path
ids=$(/usr/bin/python3 -c '
import json,sys
n=json.load(open(sys.argv[1]))["node"]
out=[]
stack=[n]
while stack:
    x=stack.pop()
    for c in (x.get("children") or []):
        if c["child_count"]: out.append(c["id"]); stack.append(c)
print(" ".join(str(i) for i in out[:5]))' "$work/tree.json")
for id in $ids; do
  printf 'expand node %s: %s s\n' "$id" "$(get "api/tree?depth=1&metric=$m&node=$id")"
done
printf 'peak RSS of the server: %s\n' "$(grep VmHWM /proc/$pid/status | awk '{print $2, $3}')"
