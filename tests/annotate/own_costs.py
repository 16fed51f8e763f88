#!/usr/bin/env python3
"""tests/annotate/own_costs.py — a FUNCTION's listing shows only its own
costs: the self column of `profkit annotate --json PATH ^F$` plus the part
it says has no line equals F's exclusive value in `profkit flat --json`
(the old listing summed every function's cost on the lines F spans), and
no line listed is one the caller names as another function's.

  own_costs.py PROFKIT PATH FUNCTION [FORBIDDEN_LINE...]
"""
import json
import subprocess
import sys


def run(*args):
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def main():
    profkit, path, fn = sys.argv[1:4]
    forbidden = {int(x) for x in sys.argv[4:]}
    ann = run(profkit, "annotate", "--json", path, "^%s$" % fn)
    flat = run(profkit, "flat", "--json", "-n", "0", path)
    want = [r["exclusive"] for r in flat["rows"] if r["name"] == fn]
    if len(want) != 1:
        sys.exit("%s: %d flat rows named %s" % (path, len(want), fn))
    listings = [f for f in ann["files"] if f["heading"] == "function " + fn]
    if not listings:
        sys.exit("%s: no listing of %s" % (path, fn))
    shown = sum(l["self"] for f in listings for l in f["lines"])
    unlined = listings[0]["function_unlined"]
    if abs(shown + unlined - want[0]) > 1e-9 * max(1.0, abs(want[0])):
        sys.exit("%s: %s's self column %r + no line %r != flat exclusive %r"
                 % (path, fn, shown, unlined, want[0]))
    bad = [l["line"] for f in listings for l in f["lines"]
           if l["line"] in forbidden and (l["self"] or l["inclusive"])]
    if bad:
        sys.exit("%s: %s's listing shows other functions' lines %r" % (path, fn, bad))
    print("%s: %s: self column %r + no line %r = flat %r" % (path, fn, shown, unlined, want[0]))


if __name__ == "__main__":
    main()
