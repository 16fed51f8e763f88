#!/usr/bin/env bash
# tests/parallel/threads.sh — the parallel build with threads (profkit
# convert/merge --threads N, profkit/parallel.h) against the serial build:
# the same bytes for every corpus measurement directory and a generated
# one, 1 to 4 threads; merges of corpus databases, Cube and Cachegrind
# files, with and without --mean; a damaged file and a write error (a
# full file system, or a file size limit; the serial writer's cct.db
# chunks too) fail cleanly, leaving nothing.
#
#   threads.sh PROFKIT PK_HPCRUN_GEN SOURCE_DIR WORK_DIR
set -euo pipefail
profkit=$1 gen=$2 src=$3 work=$4
. "$src/tests/parallel/lib.sh"
corpus=${PROFKIT_CORPUS:-$src/../shared/corpus}
rm -rf "$work" && mkdir -p "$work"

"$gen" "$work/gen.m" --files 48 --nodes 300 --trace 200 > /dev/null
dirs=("$work/gen.m")
while read -r d; do dirs+=("$d"); done < <(corpus_measurements "$corpus")
[ "${#dirs[@]}" -gt 1 ] || echo "note: no corpus measurements (PROFKIT_CORPUS): generated one only"

for d in "${dirs[@]}"; do
  name=$(basename "$d")
  "$profkit" convert "$d" -o "$work/serial.d" --force -q
  for t in 1 2 3 4; do
    "$profkit" convert "$d" -o "$work/par.d" --force -q --threads "$t"
    same_db "$work/serial.d" "$work/par.d" "$name, $t threads"
  done
done
echo "convert: ${#dirs[@]} measurement directories, 1-4 threads: identical"

# merges: HPCToolkit databases (v4, legacy), Cube, Cachegrind, mixed
h=$corpus/hpctoolkit
sets=()
[ -d "$h/hpctoolkit-tests-dbase" ] &&
  sets+=("$h/hpctoolkit-tests-dbase/loops-cuda-nvidia-t.d $h/hpctoolkit-tests-dbase/small.d $h/hpctoolkit-tests-dbase/loops-cputime-t.d")
[ -d "$h/hatchet-cpi-v2" ] && sets+=("$h/hatchet-cpi-v2 $h/hatchet-cpi-v4 $h/hatchet-cpi-v2")
cubes=$(find "$corpus/cube" -name '*.cubex' 2>/dev/null | sort | head -3 | tr '\n' ' ')
cgs=$(find "$corpus/callgrind/valgrind-cachegrind-tests" -name '*.cgout' 2>/dev/null | sort | head -3 | tr '\n' ' ')
[ -n "$cubes" ] && sets+=("$cubes")
[ -n "$cgs" ] && sets+=("$cgs")
sets+=("$work/gen.m $work/gen.m")
for set in "${sets[@]}"; do
  for mean in "" --mean; do
    # shellcheck disable=SC2086
    "$profkit" merge $mean $set -o "$work/serial.d" --force -q 2> "$work/losses"
    for t in 1 3; do
      # shellcheck disable=SC2086
      "$profkit" merge $mean $set -o "$work/par.d" --force -q --threads "$t" 2> "$work/losses.par"
      cmp -s "$work/losses" <(sed 's|/par\.d:|/serial.d:|' "$work/losses.par") ||
        fail "merge reports other losses than the serial merge: $(cat "$work/losses.par")"
      same_db "$work/serial.d" "$work/par.d" "merge $mean of $(echo $set | wc -w) inputs, $t threads"
    done
  done
done
echo "merge: ${#sets[@]} sets of inputs, with and without --mean, 1 and 3 threads: identical"

# a damaged file: the error names it, nothing is written
cp -r "$work/gen.m" "$work/bad.m"
victim=$(ls "$work/bad.m"/*.hpcrun | sed -n 30p)
truncate -s 2000 "$victim"
if "$profkit" convert "$work/bad.m" -o "$work/bad.d" --threads 3 2> "$work/err"; then
  fail "a damaged measurement converted"
fi
grep -q "$(basename "$victim")" "$work/err" || fail "the error does not name the damaged file: $(cat "$work/err")"
no_database "$work/bad.d" "damaged input"
[ -z "$(ls -d "$work"/bad.d.tmp-* 2> /dev/null)" ] || fail "a temporary directory was left behind"
echo "damaged file: exit 1, named, nothing written"

# a write error on the way: a full file system (a small tmpfs, when this
# runs as root and may mount one), else a file size limit with SIGXFSZ
# ignored (writes fail with EFBIG); the database is never put in place
full=$work/full
mkdir -p "$full"
mounted=0
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=256k tmpfs "$full" 2> /dev/null; then
  mounted=1
  trap 'umount "$full" 2> /dev/null || true' EXIT
  if "$profkit" convert "$work/gen.m" -o "$full/x.d" --threads 2 2> "$work/err"; then
    fail "a build on a full file system succeeded"
  fi
  grep -q "No space left" "$work/err" || fail "the error does not say why: $(cat "$work/err")"
  no_database "$full/x.d" "full file system"
  [ -z "$(ls -A "$full")" ] || fail "something was left on the full file system: $(ls -A "$full")"
  umount "$full" && trap - EXIT
  echo "full file system: exit 1, ENOSPC named, nothing left"
fi
# the serial writer, the file system filling up inside cct.db: its chunks
# (4 MiB here, 17 MB in all) are written by a thread of their own while
# the next is filled (write_cct_chunks.c), whose error must still be the
# one reported, naming cct.db
if [ "$(id -u)" = 0 ]; then
  "$gen" "$work/chunks.m" --files 400 --nodes 1000 > /dev/null
  "$profkit" convert "$work/chunks.m" -o "$work/chunks.d" -q
  size() { stat -c %s "$work/chunks.d/$1"; }
  need=$(($(size meta.db) + $(size profile.db) + $(size cct.db) / 2))
  if mount -t tmpfs -o size=$((need / 4096 * 4096)) tmpfs "$full" 2> /dev/null; then
    trap 'umount "$full" 2> /dev/null || true' EXIT
    if "$profkit" convert "$work/chunks.m" -o "$full/x.d" 2> "$work/err"; then
      fail "a serial build on a file system full inside cct.db succeeded"
    fi
    grep -q "cct.db: write failed at byte [0-9]*: No space left" "$work/err" ||
      fail "the error does not name cct.db and why: $(cat "$work/err")"
    no_database "$full/x.d" "file system full inside cct.db"
    [ -z "$(ls -A "$full")" ] || fail "something was left on the full file system: $(ls -A "$full")"
    umount "$full" && trap - EXIT
    echo "serial writer, file system full inside cct.db: exit 1, cct.db and ENOSPC named, nothing left"
  fi
  rm -rf "$work/chunks.m" "$work/chunks.d"
fi
if (trap '' XFSZ; ulimit -f 200; "$profkit" convert "$work/gen.m" -o "$work/big.d" --threads 2) 2> "$work/err"; then
  fail "a build past the file size limit succeeded"
fi
grep -q "File too large" "$work/err" || fail "the error does not say why: $(cat "$work/err")"
no_database "$work/big.d" "file size limit"
[ -z "$(ls -d "$work"/big.d.tmp-* 2> /dev/null)" ] || fail "a temporary directory was left behind"
echo "file size limit: exit 1, EFBIG named, nothing left"
[ "$mounted" = 1 ] || echo "note: no tmpfs could be mounted: the full file system was not tried"
rm -rf "$work"
