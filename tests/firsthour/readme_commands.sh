#!/usr/bin/env bash
# tests/firsthour/readme_commands.sh — the README's first commands as a
# newcomer meets them (issue 34):
# - scripts/install-deps.sh as `make check` runs it when a package is
#   missing, with apt-get, dpkg-query and id replaced by stubs that record
#   how they were called: apt-get must be told to wait for a dpkg lock
#   another apt-get holds (DPkg::Lock::Timeout), the script must say what
#   it installs, and apt-get's own output and errors must reach the user;
# - setup.py (what `pip install --no-build-isolation .` runs) under a
#   Python without NumPy (a venv of Debian's python3 without its
#   packages): one clear message naming that interpreter and one that has
#   NumPy, no traceback.
#
#   readme_commands.sh SOURCE_DIR WORK_DIR
set -u
src=$1 work=$2
rm -rf "$work" && mkdir -p "$work/bin"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# Every package but python3-pytest is installed; node and npm are found.
cat >"$work/bin/dpkg-query" <<'STUB'
#!/bin/sh
for p; do :; done
[ "$p" = python3-pytest ] && exit 1
printf 'install ok installed'
STUB
for tool in node npm; do printf '#!/bin/sh\nexit 0\n' >"$work/bin/$tool"; done
printf '#!/bin/sh\necho 0\n' >"$work/bin/id"
# apt-get: records its arguments; "install" fails the way apt does when a
# package cannot be found, "update" succeeds.
cat >"$work/bin/apt-get" <<STUB
#!/bin/sh
echo "\$*" >>"$work/apt-calls"
case " \$* " in
*" install "*) echo "Reading package lists..."; echo "E: Unable to locate package python3-pytest" >&2; exit 100 ;;
esac
echo "Hit:1 http://deb.debian.org/debian bookworm InRelease"
STUB
chmod +x "$work/bin/"*

PATH="$work/bin:$PATH" PROFKIT_REFTOOLS=/nonexistent PROFKIT_APT_LOCK_TIMEOUT=77 \
  bash "$src/scripts/install-deps.sh" >"$work/out" 2>"$work/err"
rc=$?
[ "$rc" -ne 0 ] || fail "a failed apt-get install did not fail install-deps.sh"
grep -q 'DPkg::Lock::Timeout=77' "$work/apt-calls" 2>/dev/null ||
  fail "apt-get is not told to wait for the dpkg lock: $(cat "$work/apt-calls" 2>/dev/null)"
grep -q 'installing python3-pytest' "$work/err" || fail "install-deps does not say what it installs"
grep -q 'E: Unable to locate package python3-pytest' "$work/err" ||
  fail "apt-get's error is hidden: $(cat "$work/err")"
grep -q 'Reading package lists' "$work/out" "$work/err" || fail "apt-get's output is hidden"
grep -q 'install .*-y python3-pytest' "$work/apt-calls" ||
  fail "apt-get install not asked for the missing package: $(cat "$work/apt-calls")"

# --- setup.py without NumPy ---
venv=$work/venv
if /usr/bin/python3 -m venv --without-pip "$venv" 2>/dev/null && ! "$venv/bin/python" -c 'import numpy' 2>/dev/null; then
  (cd "$src" && "$venv/bin/python" setup.py --name) >"$work/out" 2>"$work/err"
  rc=$?
  [ "$rc" -eq 1 ] || fail "setup.py without NumPy: exit $rc (want 1)"
  grep -q Traceback "$work/err" && fail "setup.py without NumPy ends in a traceback: $(tail -3 "$work/err")"
  grep -q "this Python ($venv/bin/python, Python [0-9.]*) has no NumPy" "$work/err" ||
    fail "setup.py does not say which interpreter lacks NumPy: $(cat "$work/err")"
  if /usr/bin/python3 -c 'import numpy, pandas' 2>/dev/null; then
    grep -q "have NumPy and pandas: .*/usr/bin/python3" "$work/err" ||
      fail "setup.py does not name /usr/bin/python3, which has NumPy: $(cat "$work/err")"
    grep -q "/usr/bin/python3 -m pip install --no-build-isolation ." "$work/err" ||
      fail "setup.py does not say how to install with the interpreter that has NumPy"
  fi
else
  echo "note: no venv without NumPy could be made; setup.py's message not checked" >&2
fi

[ "$failures" -eq 0 ] || { echo "$failures failures" >&2; exit 1; }
echo "readme_commands: ok"
