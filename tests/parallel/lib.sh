# tests/parallel/lib.sh — what the parallel build's tests share (sourced).
# Databases are compared file by file with the serial build's: the
# parallel build promises the same bytes.

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# same_db SERIAL PARALLEL WHAT: every file of the two databases identical.
same_db() {
  local f n=0
  for f in meta.db profile.db cct.db trace.db metrics/default.yaml; do
    [ -e "$1/$f" ] || [ -e "$2/$f" ] || continue
    cmp -s "$1/$f" "$2/$f" || fail "$3: $f differs from the serial build's"
    n=$((n + 1))
  done
  [ "$n" -ge 4 ] || fail "$3: only $n database files"
}

# no_database OUT WHAT: nothing at OUT, and no temporary database beside it
# that looks complete (a footer at the end of profile.db).
no_database() {
  [ ! -e "$1" ] || fail "$2: $1 exists after a failed build"
  local t
  for t in "$1".tmp-*; do
    [ -e "$t" ] || continue
    [ -f "$t/profile.db" ] || continue
    [ "$(tail -c 8 "$t/profile.db")" != "_prof.db" ] || fail "$2: $t/profile.db looks complete"
  done
}

# The measurement directories of the corpus (and generated ones).
corpus_measurements() {
  local corpus=$1
  find "$corpus/hpctoolkit" -name '*.hpcrun' 2>/dev/null | sed 's|/[^/]*$||' | sort -u
}
