#!/usr/bin/env python3
"""tests/fidelity/check.py — the checks of tests/fidelity/run.sh (issue 31):
what profkit says of a Callgrind file against the file itself and against
valgrind's callgrind_annotate, and what its Callgrind writer writes.

  check.py stated PROFKIT FILE     the program total of every event is the
      file's stated total (summary:, else totals:), which callgrind_annotate
      reports as PROGRAM TOTALS; info --json keeps what the cost lines add
      up to beside it (cost_lines_total); `profkit check` names every event
      whose stated total differs, as a note where summary: exceeds the cost
      lines (the format allows it), else as a warning, and exits 1 exactly
      when it warns. Prints how many events differ.
  check.py units PROFKIT FILE      a written file names the unit its
      integers are in: an event whose "desc: Unit of" is a time unit ends
      in that unit, and no event name claims another time unit.
  check.py first PROFKIT SOURCE FILE   the written file's first event (the
      one callgrind_annotate sorts by, KCachegrind opens on) is the metric
      profkit's views show by default for SOURCE.
  check.py whole PROFKIT SOURCE FILE   every function of SOURCE has an fn=
      block in the written FILE (costs or not), and callgrind_annotate reads
      FILE without a warning.
Exit 0 when the checks hold, 1 otherwise (each failure printed).
"""
import json
import re
import shutil
import subprocess
import sys

TIME_UNITS = {"s", "sec", "ms", "us", "ns", "ps", "fs", "as"}
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace")


def norm(name):
    return re.sub(r"[^a-z0-9]", "", name.lower())


def read_header(path):
    """events, positions per cost line, summary: and totals: (one part)."""
    events, summary, totals, npos = [], None, None, 1
    with open(path, errors="replace") as f:
        for ln in f:
            if ln.startswith("events:"):
                events = ln.split(":", 1)[1].split()
            elif ln.startswith("positions:"):
                npos = len(ln.split(":", 1)[1].split())
            elif ln.startswith("summary:"):
                summary = [float(x) for x in ln.split(":", 1)[1].split()]
            elif ln.startswith("totals:"):
                totals = [float(x) for x in ln.split(":", 1)[1].split()]
    return events, npos, summary, totals


def cost_lines(path, n_events, npos):
    """What the cost lines add up to, per event: every line that starts
    with a position, but the one after calls= (an inclusive cost)."""
    sums = [0.0] * n_events
    after_call = False
    with open(path, errors="replace") as f:
        for ln in f:
            if ln.startswith("calls="):
                after_call = True
                continue
            if not re.match(r"^(0x[0-9a-fA-F]+|[-+]?\d+|\*)(\s|$)", ln):
                continue
            if after_call:
                after_call = False
                continue
            costs = ln.split()[npos:]
            for i, c in enumerate(costs[:n_events]):
                sums[i] += float(c)
    return sums


def annotate(path):
    """callgrind_annotate's PROGRAM TOTALS by event, and its warnings."""
    r = run(["callgrind_annotate", "--auto=no", path])
    shown, totals = None, None
    for ln in r.stdout.splitlines():
        if ln.startswith("Events shown:"):
            shown = ln.split(":", 1)[1].split()
        if "PROGRAM TOTALS" in ln:
            nums = re.findall(r"(-?[\d,]+|\.)(?:\s*\(\s*-?[\d.]+%\))?", ln.split("PROGRAM TOTALS")[0])
            totals = [0.0 if n == "." else float(n.replace(",", "")) for n in nums]
    warn = [ln for ln in (r.stdout + r.stderr).splitlines()
            if ln.startswith(("WARNING", "Use of uninitialized")) or "malformed" in ln]
    return dict(zip(shown or [], totals or [])), warn, r.stdout


def info(pk, path):
    r = run([pk, "info", "--json", path])
    if r.returncode != 0:
        fail("%s: profkit info exits %d: %s" % (path, r.returncode, r.stderr[:300]))
        return {"metrics": []}
    return json.loads(r.stdout)


def stated(pk, path):
    events, npos, summary, totals = read_header(path)
    lines = cost_lines(path, len(events), npos)
    says = summary if summary and any(summary) else totals if totals and any(totals) else None
    ann, warn, _ = annotate(path)
    if warn:
        fail("%s: callgrind_annotate warns: %s" % (path, warn[0]))
    metrics = {m["name"]: m for m in info(pk, path)["metrics"]}
    diags = [json.loads(x) for x in run([pk, "check", "--json", path]).stdout.splitlines() if x]
    check_rc = run([pk, "check", path]).returncode
    differ = 0
    for i, e in enumerate(events):
        want = says[i] if says and i < len(says) and (says[i] or not lines[i]) else lines[i]
        m = metrics.get(e)
        if m is None:
            fail("%s: no metric %s" % (path, e))
            continue
        if m["program_total"] != want or (e in ann and ann[e] != want):
            fail("%s: %s program total %r, the file states %r, callgrind_annotate %r"
                 % (path, e, m["program_total"], want, ann.get(e)))
        if says and m.get("cost_lines_total") != lines[i]:
            fail("%s: %s cost_lines_total %r, the cost lines add up to %r"
                 % (path, e, m.get("cost_lines_total"), lines[i]))
        if want == lines[i]:
            continue
        differ += 1
        text = "%s %.17g (cost lines %.17g)" % (e, want, lines[i])
        sev = "note" if says is summary and want > lines[i] else "warning"
        if not any(text in d.get("message", "") and d.get("severity") == sev for d in diags):
            fail("%s: check names no %s '%s'" % (path, sev, text))
    warns = sum(1 for d in diags if d.get("severity") in ("warning", "error"))
    if (check_rc != 0) != (warns > 0):
        fail("%s: check exits %d with %d warnings" % (path, check_rc, warns))
    print("%s: %d of %d events state a total other than their cost lines', check exit %d"
          % (path, differ, len(events), check_rc))


def desc_lines(path, kind):
    out = {}
    with open(path, errors="replace") as f:
        for ln in f:
            if ln.startswith(("fn=", "fl=", "ob=")):
                break
            m = re.match(r"desc: %s of (\S+): (.*)$" % kind, ln.rstrip("\n"))
            if m:
                out[m.group(1)] = m.group(2)
    return out


def units(pk, path):
    events = read_header(path)[0]
    unit = desc_lines(path, "Unit")
    for e in events:
        said = re.search(r"[(_]([A-Za-z]+)\)?$", e)
        u = unit.get(e)
        if u in TIME_UNITS and not e.endswith("(%s)" % u):
            fail("%s: event %s holds integers in %s, its name does not say so" % (path, e, u))
        if said and said.group(1) in TIME_UNITS and u and said.group(1) != u:
            fail("%s: event %s names %s, its integers are in %s" % (path, e, said.group(1), u))
    print("%s: events %s, units %s" % (path, " ".join(events), unit))


def first(pk, source, path):
    r = run([pk, "flat", "--json", "-n", "1", source])  # the metric flat shows by default
    want = json.loads(r.stdout).get("metric") if r.returncode == 0 else None
    if want != info(pk, source).get("default_metric"):
        fail("%s: info's default_metric is not flat's %r" % (source, want))
    events = read_header(path)[0]
    names = desc_lines(path, "Name")
    got = names.get(events[0], events[0]) if events else None
    if want is None or got is None or norm(got) != norm(want):
        fail("%s: first event %r (metric %r), the default metric of %s is %r"
             % (path, events[:1], got, source, want))
    _, warn, out = annotate(path)
    order = re.search(r"^Event sort order:\s*(\S+)", out, re.M)
    if not order or not events or order.group(1) != events[0]:
        fail("%s: callgrind_annotate sorts by %r" % (path, order and order.group(1)))
    print("%s: first event %s, the default metric of the source %s" % (path, got, want))


def whole(pk, source, path):
    r = run([pk, "flat", "--json", "-n", "0", source])
    rows = json.loads(r.stdout)["rows"] if r.returncode == 0 else []
    if not rows:
        fail("%s: flat lists no function" % source)
    names, blocks = {}, set()
    with open(path, errors="replace") as f:
        for ln in f:
            m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", ln.rstrip("\n"))
            if not m:
                continue
            if m.group(3) is not None:
                names[m.group(2)] = m.group(3)
            if m.group(1) == "fn":
                blocks.add(names.get(m.group(2)))
    for row in rows:
        if row["name"] not in blocks:
            fail("%s: function %r of %s has no fn= block" % (path, row["name"], source))
    _, warn, _ = annotate(path)
    if warn:
        fail("%s: callgrind_annotate warns: %s" % (path, warn[0]))
    print("%s: %d functions, %d fn= blocks" % (path, len(rows), len(blocks)))


def main():
    if not shutil.which("callgrind_annotate"):
        print("callgrind_annotate not installed")
        return 77
    cmd, args = sys.argv[1], sys.argv[2:]
    {"stated": stated, "units": units, "first": first, "whole": whole}[cmd](*args)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
