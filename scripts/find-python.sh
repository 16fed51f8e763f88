#!/usr/bin/env bash
# Print the first Python interpreter that has what the profkit Python package
# needs to build and run (NumPy's C headers, pandas; with --test also
# pytest), Debian's /usr/bin/python3 first: the default python3 may be a
# pyenv interpreter without Debian's python3-numpy. Exit 1, saying what is
# missing, when there is none.
#
#   scripts/find-python.sh [--test]
set -u
mods="numpy, pandas"
[ "${1:-}" = --test ] && mods="$mods, pytest"
for py in /usr/bin/python3 "$(command -v python3 2>/dev/null)" "$(command -v python 2>/dev/null)"; do
  [ -n "$py" ] && [ -x "$py" ] || continue
  if "$py" -c "import $mods, sysconfig, os; assert os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))" 2>/dev/null; then
    echo "$py"
    exit 0
  fi
done
echo "find-python: no Python 3 with $mods and Python.h (Debian: apt-get install python3-dev python3-numpy python3-pandas python3-pytest)" >&2
exit 1
