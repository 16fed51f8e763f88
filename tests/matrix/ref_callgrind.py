#!/usr/bin/env python3
"""Reference check of written Callgrind files: valgrind's callgrind_annotate
reads each without a warning, its PROGRAM TOTALS equal the source's totals,
and the metric views show by default (the source's `default_metric`) is
its first event. An event is matched to its metric by the name the file
records for it (desc: Name of EVENT: metric, written where the event's
name had to differ: blanks, or the unit its integers are in). (Units: the
event's unit as profkit reads it back, for writers that scale to
integers.) Called by matrix.py (see matrix_common.ref_main for the
protocol)."""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matrix_common as mc  # noqa: E402

# One column of callgrind_annotate's PROGRAM TOTALS line: "1,234 (56.7%)",
# or "." for 0.
NUM = re.compile(r"(-?[\d,]+|\.)(?:\s*\(\s*-?[\d.]+%\))?")


def program_totals(text):
    """Event names shown and {event: total} from callgrind_annotate's
    output (its line reads "... PROGRAM TOTALS", or "PROGRAM TOTALS
    (calculated)" when the file had no usable summary:/totals:)."""
    shown, totals = None, None
    for ln in text.splitlines():
        if ln.startswith("Events shown:"):
            shown = ln.split(":", 1)[1].split()
        if "PROGRAM TOTALS" in ln:
            nums = NUM.findall(ln.split("PROGRAM TOTALS", 1)[0])
            totals = [0.0 if n == "." else float(n.replace(",", "")) for n in nums]
    if shown is None or totals is None or len(shown) != len(totals):
        return shown, None
    return shown, dict(zip(shown, totals))


def metric_names(path):
    """{event: metric name} from the file's "desc: Name of EVENT: NAME"
    lines (the header only: they come before the first cost line)."""
    names = {}
    with open(path, errors="replace") as f:
        for ln in f:
            if ln.startswith(("fn=", "fl=", "ob=")):
                break
            m = re.match(r"desc: Name of (\S+): (.*)$", ln.rstrip("\n"))
            if m:
                names[m.group(1)] = m.group(2)
    return names


def check_one(a, src, out):
    problems, readers = [], {}
    exe = shutil.which("callgrind_annotate")
    if exe is None:
        return {"skipped": "callgrind_annotate not installed"}
    r = mc.run([exe, out])
    warn = [ln for ln in (r.stderr + r.stdout).splitlines()
            if ln.startswith(("WARNING", "Use of uninitialized")) or "malformed" in ln]
    if r.returncode != 0:
        problems.append("callgrind_annotate exit %d: %s" % (r.returncode, r.stderr[-300:]))
    if r.stderr.strip() or warn:
        problems.append("callgrind_annotate warns (%d lines): %s"
                        % (len(warn) or len(r.stderr.splitlines()),
                           (warn or r.stderr.splitlines())[0][:200]))
    shown, totals = program_totals(r.stdout)
    if totals is None:
        problems.append("callgrind_annotate printed no PROGRAM TOTALS")
    else:
        written = mc.info(a.profkit, out) or {"metrics": []}
        units = {mc.norm(m["name"]): m.get("unit") for m in written["metrics"]}
        names = metric_names(out)
        got = {}
        for k, v in totals.items():
            name = names.get(k, k)
            got[name] = (v, units.get(mc.norm(name)) or "")
        mc.totals_problems("callgrind_annotate", src, got, problems)
        first = src.get("default_metric") or next((m["name"] for m in src["metrics"]), None)
        if first and shown and mc.norm(names.get(shown[0], shown[0])) != mc.norm(first):
            problems.append("first event is %r, the metric views show by default %r"
                            % (shown[0], first))
    readers["callgrind_annotate"] = "ok" if not problems else "FAIL"
    return mc.verdict(problems, readers)


def check(a, pairs):
    return {o: check_one(a, s, o) for s, o in pairs}


if __name__ == "__main__":
    sys.exit(mc.ref_main(check))
