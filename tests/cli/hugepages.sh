#!/usr/bin/env bash
# tests/cli/hugepages.sh — profkit runs itself again with glibc's malloc on
# transparent huge pages (src/cli/hugepages.c), and nothing else changes:
# - where the kernel gives huge pages on request and glibc knows the
#   tunable, the running process is the one executed again (its
#   environment at exec holds the mark); PROFKIT_HUGEPAGES=0, a tunable
#   the user set, or LD_PRELOAD leave it alone, and so does, unless
#   PROFKIT_HUGEPAGES=1, a VM whose host takes back free pages;
# - what profkit starts (a browser, `view --open`) gets GLIBC_TUNABLES as
#   the user had it, set or unset, and none of profkit's marks;
# - the answers are the same bytes either way.
#
# - a small input (under 8 MB) is not worth the second start.
#
#   hugepages.sh PROFKIT CG_GEN SOURCE_DIR WORK_DIR sanitized|plain
set -eu
profkit=$1 cg_gen=$2 source=$3 work=$4 build=$5
small=$source/tests/data/callgrind/sample.callgrind
rm -rf "$work" && mkdir -p "$work"
sample=$work/big.callgrind
"$cg_gen" "$sample" --mb 9 --functions 2000 >/dev/null
fail=0
no() { echo "FAIL: $*"; fail=1; }

expected=no # does this machine and build re-execute at all?
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
if [ "$build" = plain ] && grep -q '\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null &&
  [ -n "$glibc" ] && [ "$(printf '%s\n2.35\n' "$glibc" | sort -V | head -1)" = 2.35 ]; then
  expected=yes
fi
# ...and does it by default? Not on a VM whose host takes free pages back
# (a virtio balloon, device 0x0005, with feature bit 5: free page
# reporting), where huge pages are dear on first touch (util/hugepolicy.c)
default=$expected
for dev in /sys/bus/virtio/devices/*; do
  [ "$(cat "$dev/device" 2>/dev/null)" = 0x0005 ] || continue
  [ "$(cut -c6 "$dev/features" 2>/dev/null)" = 1 ] && default=no
done

cat >"$work/browser.sh" <<EOF
#!/bin/sh
env | grep -E '^(GLIBC_TUNABLES|PROFKIT_HUGEPAGES_EXEC|PROFKIT_SAVED)' | sort > "$work/env.tmp"
mv "$work/env.tmp" "$work/env.txt"
EOF
chmod +x "$work/browser.sh"

# run_view WANT_MARK WANT_ENV [VAR=VALUE...]: `view --open` of $sample, then what the
# profkit process was executed with and what its browser got
run_view() {
  local want_mark=$1 want_env=$2
  shift 2
  rm -f "$work/env.txt"
  env -u GLIBC_TUNABLES "$@" BROWSER="$work/browser.sh" "$profkit" view "$sample" --port 0 --open \
    >"$work/url" 2>"$work/err" &
  local pid=$! i
  for i in $(seq 200); do
    [ -e "$work/env.txt" ] && break
    sleep 0.05
  done
  local mark=no
  tr '\0' '\n' </proc/$pid/environ | grep -q "^PROFKIT_HUGEPAGES_EXEC=$pid\$" && mark=yes
  kill -INT $pid
  wait $pid || no "view exited $? ($(cat "$work/err"))"
  [ "$mark" = "$want_mark" ] || no "[$*] executed again: $mark, expected $want_mark"
  local got
  got=$(cat "$work/env.txt" 2>/dev/null || echo "(no browser)")
  [ "$got" = "$want_env" ] || no "[$*] the browser's environment: '$got', expected '$want_env'"
}

run_view "$default" ""
run_view "$default" "GLIBC_TUNABLES=glibc.malloc.tcache_count=5" GLIBC_TUNABLES=glibc.malloc.tcache_count=5
run_view no "" PROFKIT_HUGEPAGES=0
run_view "$expected" "" PROFKIT_HUGEPAGES=1 # whatever the host does
run_view "$expected" "GLIBC_TUNABLES=glibc.malloc.tcache_count=5" PROFKIT_HUGEPAGES=1 \
  GLIBC_TUNABLES=glibc.malloc.tcache_count=5
# marks inherited from another process are not this one's: never handed on
run_view "$default" "" PROFKIT_HUGEPAGES_EXEC=1 PROFKIT_SAVED_GLIBC_TUNABLES=x
run_view no "GLIBC_TUNABLES=glibc.malloc.hugetlb=0" GLIBC_TUNABLES=glibc.malloc.hugetlb=0
big=$sample sample=$small
run_view no ""
sample=$big

# the same answers, byte for byte
for cmd in "info --json" "tree -n 200" "flat --json"; do
  # shellcheck disable=SC2086
  "$profkit" $cmd "$sample" >"$work/a"
  # shellcheck disable=SC2086
  PROFKIT_HUGEPAGES=0 "$profkit" $cmd "$sample" >"$work/b"
  cmp -s "$work/a" "$work/b" || no "$cmd: the output differs with PROFKIT_HUGEPAGES=0"
  # shellcheck disable=SC2086
  PROFKIT_HUGEPAGES=1 "$profkit" $cmd "$sample" >"$work/b"
  cmp -s "$work/a" "$work/b" || no "$cmd: the output differs with PROFKIT_HUGEPAGES=1"
done

[ $fail = 0 ] && echo "hugepages: executed again: $default by default, $expected with PROFKIT_HUGEPAGES=1; environment restored; same outputs"
exit $fail
