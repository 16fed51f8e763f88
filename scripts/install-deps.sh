#!/usr/bin/env bash
# Install what profkit needs to build and test, from Debian/Ubuntu packages.
# Installs only what is missing; uses sudo when not root.
#
#   scripts/install-deps.sh [--with-fuzz] [--with-bench]
#
# --with-fuzz   also clang and libFuzzer's runtime (make fuzz-smoke)
# --with-bench  also hyperfine and GNU time (make bench)
set -euo pipefail

# pypy3: the matrix runs HPCToolkit's pure-Python reader (hpctesttool) under
# PyPy, in half the CPU time (tests/matrix/ref_hpctoolkit.py).
packages=(cmake make gcc pkg-config libcmocka-dev python3 zlib1g-dev libexpat1-dev libyajl-dev libyaml-dev valgrind
          chromium python3-websocket libdw-dev libcapstone-dev libmicrohttpd-dev libpcre2-dev librsvg2-bin man-db
          python3-dev python3-numpy python3-pandas python3-pytest python3-setuptools
          libopenmpi-dev openmpi-bin pypy3)
for arg in "$@"; do
  case "$arg" in
    --with-fuzz) packages+=(clang libclang-rt-14-dev) ;;
    --with-bench) packages+=(hyperfine time) ;;
    *) echo "install-deps: unknown option $arg" >&2; exit 2 ;;
  esac
done

# The ecosystems' own readers the conversion matrix checks outputs with
# (../shared/ref-tools, when present) need packages of their own.
reftools=${PROFKIT_REFTOOLS:-$(dirname "$0")/../../shared/ref-tools}
if [ -x "$reftools/install-deps.sh" ]; then
  "$reftools/install-deps.sh" || echo "install-deps: the reference readers' packages failed to install" >&2
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm: tests/trace reads the Chrome trace exports with speedscope's
# importer (the npm package, installed by the test into the build tree).
# Asked for by command, not package: a nodejs from elsewhere brings its own npm.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: missing ${missing[*]}, and this is not a Debian/Ubuntu system (no apt-get)." >&2
  echo "Install them with your package manager, then run make again." >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
  sudo=(sudo)
else
  echo "install-deps: missing ${missing[*]}; installing needs root (sudo is not available" >&2
  echo "without a password here). Run: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi

# apt-get waits for a dpkg lock another apt-get holds (DPkg::Lock::Timeout,
# PROFKIT_APT_LOCK_TIMEOUT seconds, 600 by default) instead of failing at
# once, says so itself while it waits, and its output and errors are shown:
# a slow install is seen to be one, a failed one says why.
timeout=${PROFKIT_APT_LOCK_TIMEOUT:-600}
apt=("${sudo[@]}" apt-get -q -o "DPkg::Lock::Timeout=$timeout")
echo "install-deps: installing ${missing[*]} with apt-get (waits up to ${timeout}s for another" \
  "apt-get or dpkg to finish)" >&2
export DEBIAN_FRONTEND=noninteractive
if ! "${apt[@]}" install -y "${missing[@]}"; then
  echo "install-deps: apt-get install failed; updating the package lists and trying again" >&2
  "${apt[@]}" update && "${apt[@]}" install -y "${missing[@]}" || {
    echo "install-deps: could not install ${missing[*]} (apt-get's errors are above)" >&2
    exit 1
  }
fi
