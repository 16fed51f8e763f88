#!/usr/bin/env python3
"""Reference check of written HPCToolkit databases: HPCToolkit's own v4
reader (hpctesttool-totals) reads each with the source's totals, and
hpcviewer's data layer (hpcviewer-probe, one JVM for the batch) opens,
walks and plots each with the source's root values.
Called by matrix.py (see matrix_common.ref_main for the protocol)."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matrix_common as mc  # noqa: E402


def hpctesttool(a, src_path, out, problems, readers):
    r = mc.run([os.path.join(a.reftools, "bin", "hpctesttool-totals"), out, src_path])
    try:
        d = json.loads(r.stdout)
    except ValueError:
        d = {"read": "no output: " + r.stderr[-300:]}
    if d.get("read") != "ok":
        readers["hpctesttool"] = "FAIL"
        problems.append("hpctesttool: %s" % d.get("read"))
        return
    readers["hpctesttool"] = "ok" if not d.get("problems") else "FAIL"
    problems.extend("hpctesttool: " + p for p in d.get("problems", []))


def split_probe(text):
    """hpcviewer-probe's output, one block per database."""
    blocks, cur = {}, None
    for ln in text.splitlines():
        if ln.startswith("DB "):
            cur = ln[3:].strip()
            blocks[cur] = []
        elif cur is not None:
            blocks[cur].append(ln)
    return blocks


def hpcviewer(a, pairs, verdicts):
    outs = [o for _, o in pairs]
    r = mc.run([os.path.join(a.reftools, "bin", "hpcviewer-probe")] + outs)
    blocks = split_probe(r.stdout)
    for src, o in pairs:
        problems, readers = verdicts[o]
        lines = blocks.get(o)
        n = len(problems)
        if lines is None:
            problems.append("hpcviewer: no answer for this database")
        else:
            for ln in lines:
                if "FAIL" in ln.split(" ", 2)[:2] or ln.startswith(("java.", "Exception")):
                    problems.append("hpcviewer: " + ln[:200])
            got = {}
            for ln in lines:
                m = re.match(r'M \d+ type=INCLUSIVE .*name="(.*)" root=(\S+)', ln)
                if m:
                    got[re.sub(r":\s*Sum \(I\)$|\s*\(I\)$", "", m.group(1))] = float(m.group(2))
            mc.totals_problems("hpcviewer", src, got, problems)
            if not any(ln.startswith("DONE") for ln in lines):
                problems.append("hpcviewer: the walk did not finish")
        readers["hpcviewer"] = "ok" if len(problems) == n else "FAIL"


def check(a, pairs):
    verdicts = {o: ([], {}) for _, o in pairs}
    for src, o in pairs:
        sp = o + ".source-info.json"
        if not os.path.exists(sp):
            with open(sp, "w") as f:
                json.dump(src, f)
        hpctesttool(a, sp, o, *verdicts[o])
    hpcviewer(a, pairs, verdicts)
    return {o: mc.verdict(p, r) for o, (p, r) in verdicts.items()}


if __name__ == "__main__":
    sys.exit(mc.ref_main(check))
