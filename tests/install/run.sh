#!/usr/bin/env bash
# tests/install/run.sh — `cmake --install` into a temporary DESTDIR, then
# what a user of the installed tree does: run the binary, render the man
# page with `man -l`, and compile + link a small program against the library
# through `pkg-config --cflags --libs profkit`, shared and static, and run it.
#
#   run.sh BUILD_DIR WORK_DIR [CC [FLAGS...]]
# CC and FLAGS: the build's compiler and the sanitizer flags of a sanitized
# build, whose installed library needs its runtime in the program too.
set -euo pipefail
build=$1
work=$2
cc=${3:-cc}
shift $(($# < 3 ? $# : 3))
flags=("$@")
prefix=/opt/profkit-test
rm -rf "$work"
mkdir -p "$work"
dest=$work/dest
fail() { echo "FAIL: $*" >&2; exit 1; }

DESTDIR=$dest cmake --install "$build" --prefix "$prefix" >"$work/install.log"
root=$dest$prefix
libdir=$(cd "$root" && ls -d lib*/pkgconfig | head -1 | xargs dirname)
for f in bin/profkit "$libdir/libprofkit.a" "$libdir/libprofkit.so" include/profkit/profkit.h \
         share/man/man1/profkit.1 "$libdir/pkgconfig/profkit.pc"; do
    [ -e "$root/$f" ] || fail "not installed: $f"
done
"$root/bin/profkit" --version >/dev/null || fail "installed profkit does not run"
# The libraries one command each needs are loaded when first used
# (src/util/dynlib.h): linked in, every run paid for loading them.
for f in bin/profkit "$libdir/libprofkit.so"; do
    lazy=$(readelf -d "$root/$f" | grep -Eo 'NEEDED.*\[(libdw|libelf|libcapstone|libstdc\+\+|libmicrohttpd)[^]]*\]' || true)
    [ -z "$lazy" ] || fail "$f links what it should load on first use: $lazy"
done

# The .pc names the install prefix, not the staging directory.
grep -qx "prefix=$prefix" "$root/$libdir/pkgconfig/profkit.pc" || fail "profkit.pc prefix"
grep -q '^Libs.private:.*-lz.*-lexpat.*-lyajl.*-lm' "$root/$libdir/pkgconfig/profkit.pc" ||
    fail "profkit.pc Libs.private lacks the build's libraries"

# man -l renders it without warnings, and it documents every command and
# every long option of each.
MANWIDTH=80 man -l "$root/share/man/man1/profkit.1" >"$work/man.txt" 2>"$work/man.err" ||
    fail "man -l failed: $(cat "$work/man.err")"
[ ! -s "$work/man.err" ] || fail "man -l warned: $(cat "$work/man.err")"
MANWIDTH=200 man -l "$root/share/man/man1/profkit.1" >"$work/man-wide.txt" 2>/dev/null
for cmd in $("$root/bin/profkit" --help | awk '/^Commands:/{on=1;next} on&&/^  [a-z]/{print $1}'); do
    grep -q "^       $cmd\b\|^   $cmd\b" "$work/man.txt" || fail "man page lacks command $cmd"
    # and every long option its --help lists
    for opt in $("$root/bin/profkit" "$cmd" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
        grep -q -- "$opt" "$work/man-wide.txt" || fail "man page lacks $cmd's option $opt"
    done
done

cat >"$work/use.c" <<'C'
#include <profkit/profkit.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    pk_profile *p;
    if (argc > 1) {
        if (pk_profile_open(argv[1], NULL, &p) == PK_OK) return 2; /* not a profile */
        if (!strstr(pk_error_last(), argv[1])) return 3;             /* the error names it */
    }
    printf("%s\n", pk_version());
    return 0;
}
C
export PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_PATH=$root/$libdir/pkgconfig
pkg-config --exists profkit || fail "pkg-config does not find profkit"
# shared
"$cc" "${flags[@]}" -o "$work/use-shared" "$work/use.c" $(pkg-config --cflags --libs profkit) || fail "shared link"
LD_LIBRARY_PATH=$root/$libdir "$work/use-shared" "$work/use.c" >/dev/null || fail "shared program"
deps=$(LD_LIBRARY_PATH=$root/$libdir ldd "$work/use-shared")
grep -q "libprofkit.so.0 => $root/$libdir/libprofkit.so.0" <<<"$deps" || fail "not linked shared: $deps"
# static: the archive, then what Libs.private says it needs
# (the line README.md gives)
"$cc" "${flags[@]}" -o "$work/use-static" "$work/use.c" \
    $(pkg-config --cflags --libs --static profkit | sed 's/-lprofkit/-l:libprofkit.a/') ||
    fail "static link with Libs.private"
"$work/use-static" "$work/use.c" >/dev/null || fail "static program"
deps=$(ldd "$work/use-static")
if grep -q libprofkit <<<"$deps"; then fail "static program uses the .so"; fi
echo "install: ok ($root)"
