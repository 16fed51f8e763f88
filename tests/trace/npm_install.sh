#!/usr/bin/env bash
# tests/trace/npm_install.sh DIR — the npm packages tests/trace reads Chrome
# trace exports with (package.json, pinned by package-lock.json: speedscope),
# installed into DIR/node_modules with `npm ci` unless the pinned version is
# there already. Only the npm registry is reached; npm's cache is DIR/.cache.
# Exit 0 installed (or already there), 1 npm failed (DIR/install.log says
# why), 77 node or npm missing.
set -u
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null || { echo "node is missing (Debian's nodejs)"; exit 77; }
command -v npm >/dev/null || { echo "npm is missing (Debian's npm)"; exit 77; }
want=$(sed -n 's/.*"speedscope": "\(.*\)".*/\1/p' "$here/package.json")
have=$(node -p "require('$dir/node_modules/speedscope/package.json').version" 2>/dev/null)
[ "$have" = "$want" ] && exit 0
rm -rf "$dir" && mkdir -p "$dir"
cp "$here/package.json" "$here/package-lock.json" "$dir/"
if ! (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --cache "$dir/.cache" \
        >"$dir/install.log" 2>&1); then
  echo "npm could not install speedscope $want (see $dir/install.log)"
  exit 1
fi
echo "installed speedscope $want into $dir"
