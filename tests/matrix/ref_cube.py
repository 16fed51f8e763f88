#!/usr/bin/env python3
"""Reference check of written .cubex files: CubeLib (cube-totals,
cube_sanity) and pycubexr open each with the source's totals.
Called by matrix.py (see matrix_common.ref_main for the protocol)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matrix_common as mc  # noqa: E402


def cubelib(a, src, out, problems, readers):
    r = mc.run([os.path.join(a.reftools, "bin", "cube-totals"), out])
    if r.returncode != 0:
        readers["cubelib"] = "FAIL"
        problems.append("CubeLib refuses the file: %s" % r.stderr.strip()[-300:])
        return
    got = {}
    for ln in r.stdout.splitlines():
        f = ln.split("\t")
        if f[0] == "M":
            got[f[1]] = float(f[4].split("=", 1)[1])
    n = len(problems)
    mc.totals_problems("cube-totals", src, got, problems)
    readers["cubelib"] = "ok" if len(problems) == n else "FAIL"


def pycubexr(a, pairs, verdicts):
    outs = [o for _, o in pairs]
    r = mc.run([os.path.join(a.reftools, "bin", "pycubexr-totals")] + outs)
    docs = {}
    for ln in r.stdout.splitlines():
        try:
            d = json.loads(ln)
        except ValueError:
            continue
        docs[d.get("file")] = d
    for src, o in pairs:
        problems, readers = verdicts[o]
        d = docs.get(o)
        if d is None or not d.get("ok"):
            readers["pycubexr"] = "FAIL"
            problems.append("pycubexr: %s" % (d or {}).get("error", "no answer"))
            continue
        got = {m["name"]: m["root_incl"] for m in d["metrics"] if m.get("status") == "ok"
               and m.get("dtype") not in ("MINDOUBLE", "MAXDOUBLE")}
        n = len(problems)
        mc.totals_problems("pycubexr", src, got, problems)
        readers["pycubexr"] = "ok" if len(problems) == n else "FAIL"


def check(a, pairs):
    verdicts = {o: ([], {}) for _, o in pairs}
    for src, o in pairs:
        cubelib(a, src, o, *verdicts[o])
    pycubexr(a, pairs, verdicts)
    return {o: mc.verdict(p, r) for o, (p, r) in verdicts.items()}


if __name__ == "__main__":
    sys.exit(mc.ref_main(check))
