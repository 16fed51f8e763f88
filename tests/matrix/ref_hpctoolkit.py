#!/usr/bin/env python3
"""Reference check of written HPCToolkit databases: HPCToolkit's own v4
reader (hpctesttool-totals) reads each with the source's totals, and
hpcviewer's data layer (hpcviewer-probe, one JVM for the batch) opens,
walks and plots each with the source's root values. The two run at once,
hpctesttool in two processes that each read half of the databases
(hpctt_batch.py): its pure-Python reader is most of the matrix's time.
Called by matrix.py (see matrix_common.ref_main for the protocol).

What is checked from hpcviewer-probe's report, per database:
  - it opened, walked the tree, built the flat and bottom-up views, read
    the per-profile data and the traces without an exception;
  - the root value of every metric's shown inclusive variant (Sum; Min or
    Max for a metric that combines so) equals the source's program total
    ("none", no value at all, counts as 0);
  - the per-thread view: each shown Sum's per-profile values at the root
    (PROFSUM, profile.db through the statistic's id) and, when hpcviewer
    plots every profile, its plot values (PLOTSUM, cct.db) add up to the
    root value, whenever the database has profiles holding values;
  - hpcviewer's own test tolerance on the tree (a child's inclusive value
    above its parent's, exclusive above inclusive) for databases without
    Min metrics (the inclusive value of a min-combined metric is the
    smallest in its subtree, so a child's is larger by definition) and
    without negative values (a difference of profiles).
Values from a legacy experiment.xml source compare within 1e-5: it
printed its values with 6 significant digits.
hpctesttool's program total is the sum over profiles at the root: for a
metric combined by min or max that is not its total, so that one
comparison is left to hpcviewer's (which combines as the metric says).
When the JVM dies on a database (an uncaught exception), the rest of the
batch is probed again without it.
"""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import matrix_common as mc  # noqa: E402


def minmax_metrics(d):
    """Metrics whose written statistics combine by min or max only."""
    out = set()
    for m in d.get("metrics", []):
        keys = list(m.get("summaries", {}))
        if keys and not any(k.endswith("|sum") for k in keys):
            out.add(m["name"])
    return out


def hpctesttool(stdout, stderr, problems, readers):
    """hpctesttool-totals' verdict on one database, from what it printed."""
    try:
        d = json.loads(stdout)
    except ValueError:
        d = {"read": "no output: " + stderr[-300:]}
    if d.get("read") != "ok":
        readers["hpctesttool"] = "FAIL"
        problems.append("hpctesttool: %s" % d.get("read"))
        return
    skip = minmax_metrics(d)
    mine = [p for p in d.get("problems", [])
            if not any(p.startswith("metric %r program_total" % n) for n in skip)]
    readers["hpctesttool"] = "ok" if not mine else "FAIL"
    problems.extend("hpctesttool: " + p for p in mine)


def db_size(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def batch_python():
    """The interpreter of hpctesttool's batches: PyPy when installed (the
    tool's pure-Python reader runs unchanged in half the CPU time; its
    output on the whole matrix is byte for byte CPython's), else the
    Debian python3 bin/hpctesttool-totals uses. A database a PyPy batch
    does not answer is run alone with the latter (finish_hpctesttool)."""
    return shutil.which("pypy3") or "/usr/bin/python3"


def start_hpctesttool(a, jobs, wdir, workers=2):
    """hpctesttool on (source info, db) JOBS in WORKERS batch processes
    (hpctt_batch.py: the tool's own main() per database), the largest
    databases spread first; returns the running processes."""
    shares = [[] for _ in range(workers)]
    load = [0] * workers
    for job in sorted(jobs, key=lambda j: -db_size(j[1])):
        i = load.index(min(load))
        shares[i].append(job)
        load[i] += db_size(job[1])
    procs = []
    for i, share in enumerate(s for s in shares if s):
        batch = os.path.join(wdir, "hpctesttool-batch-%d.tsv" % i)
        with open(batch, "w") as f:
            f.writelines("%s\t%s\n" % job for job in share)
        procs.append(subprocess.Popen(
            [batch_python(), os.path.join(HERE, "hpctt_batch.py"), a.reftools, batch],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace"))
    return procs


def finish_hpctesttool(a, procs, jobs):
    """{db: (stdout, stderr)} of every job; a database the batch did not
    answer (its process died) is run alone through bin/hpctesttool-totals."""
    got = {}
    for p in procs:
        out, err = p.communicate()
        for ln in out.splitlines():
            try:
                r = json.loads(ln)
            except ValueError:
                continue
            got[r["db"]] = (r["out"], r.get("error") or err)
    for src_path, db in jobs:
        if db not in got:
            r = mc.run([os.path.join(a.reftools, "bin", "hpctesttool-totals"), db, src_path])
            got[db] = (r.stdout, r.stderr)
    return got


def split_probe(text):
    """hpcviewer-probe's output, one block per database, in order."""
    blocks, cur = [], None
    for ln in text.splitlines():
        if ln.startswith("DB "):
            cur = (ln[3:].strip(), [])
            blocks.append(cur)
        elif cur is not None:
            cur[1].append(ln)
    return blocks


def probe_all(a, outs):
    """{db: lines} for every database, re-running past a JVM that died."""
    got, todo = {}, list(outs)
    # The serial collector: the same answers in less CPU time and a fifth
    # of the memory (the default one spreads over every core of a batch
    # that runs beside hpctesttool's).
    env = dict(os.environ, JAVA_TOOL_OPTIONS=(os.environ.get("JAVA_TOOL_OPTIONS", "") +
                                               " -XX:+UseSerialGC").strip())
    while todo:
        r = mc.run([os.path.join(a.reftools, "bin", "hpcviewer-probe")] + todo, env=env)
        blocks = split_probe(r.stdout)
        for db, lines in blocks:
            got[db] = lines
        if not blocks:
            got[todo[0]] = ["JVM: no output: " + r.stderr[-300:]]
            todo = todo[1:]
            continue
        last = blocks[-1][0]
        finished = any(ln.startswith("DONE") for ln in blocks[-1][1])
        if last not in todo:
            break
        i = todo.index(last)
        if not finished:  # the JVM died in this database: say why, go on after it
            got[last] = got[last] + ["JVM died: " + " | ".join(r.stderr.splitlines()[:3])]
        todo = todo[i + 1:]
    return got


def viewer_metrics(lines):
    """{metric: {variant: (index, root)}} of the inclusive metrics: per
    variant the one hpcviewer shows (statistics it only computes with, the
    partials, are INVISIBLE and named after their combine: "Sum")."""
    out = {}
    for ln in lines:
        m = re.match(r'M (\d+) type=INCLUSIVE vis=(\S+) .*name="(.*)" root=(\S+)', ln)
        if not m:
            continue
        name, root = m.group(3), m.group(4)
        v = re.match(r"(.*?):\s*(\w+) \(I\)$", name)
        base, variant = (v.group(1), v.group(2)) if v else (re.sub(r"\s*\(I\)$", "", name), "Sum")
        rank = 1 if m.group(2) == "INVISIBLE" else 0
        have = out.setdefault(base, {}).get(variant)
        if have is None or rank < have[2]:
            out[base][variant] = (int(m.group(1)), 0.0 if root == "none" else float(root), rank)
    return out


def sums(lines, tag):
    """{metric index: sum} of PLOTSUM or PROFSUM lines, and PLOTSUM's n."""
    out, n = {}, None
    for ln in lines:
        m = re.match(tag + r" (\d+) (?:n=(\d+) sum=)?(\S+)$", ln)
        if m:
            out[int(m.group(1))] = float(m.group(3))
            n = int(m.group(2)) if m.group(2) else n
    return out, n


def check_lines(src, lines, problems):
    for ln in lines:
        if "FAIL" in ln.split(" ", 2)[:2] or ln.startswith(("java.", "Exception", "JVM")):
            problems.append("hpcviewer: " + ln[:200])
    if not any(ln.startswith("DONE") for ln in lines):
        problems.append("hpcviewer: the walk did not finish")
    # legacy experiment.xml prints its (summary) values with 6 digits
    tol = 1e-5 if src.get("format") == "hpctoolkit-xml" else 0.0
    metrics = viewer_metrics(lines)
    got = {}
    for base, variants in metrics.items():
        pick = variants.get("Sum") or variants.get("Min") or variants.get("Max")
        if pick:
            got[base] = pick[1]
    mc.totals_problems("hpcviewer", src, got, problems, rel_tol=tol)
    # the per-thread view looks profile values up with the statistic's id
    profs = [int(m.group(1)) for m in (re.match(r"PROFILES n=(\d+)", ln) for ln in lines) if m]
    plots, n_plot = sums(lines, "PLOTSUM")
    prof, _ = sums(lines, "PROFSUM")
    for base, variants in metrics.items():
        s = variants.get("Sum")
        if not s or not (any(plots.values()) or prof):
            continue
        views = [("profile.db", prof.get(s[0], 0.0))]
        if profs and n_plot == profs[0]:  # hpcviewer plots CPU threads only, not GPU streams
            views.append(("cct.db plot", plots.get(s[0], 0.0)))
        for what, v in views:
            if not mc.close(v, s[1], tol * abs(s[1])):
                problems.append("hpcviewer: metric %r per-thread %s sum %r, root %r"
                                % (base, what, v, s[1]))
    has_min = any("Min" in v and "Sum" not in v for v in metrics.values())
    for ln in lines:
        m = re.search(r"beyond_hpcviewer_test_tol\(0.1\)=(\d+)/(\d+) negative=(\d+)", ln)
        if m and (int(m.group(1)) or int(m.group(2))) and not has_min and not int(m.group(3)):
            problems.append("hpcviewer: tree values break hpcviewer's test tolerance: " + ln[:200])


def hpcviewer(a, pairs, verdicts):
    blocks = probe_all(a, [o for _, o in pairs])
    for src, o in pairs:
        problems, readers = verdicts[o]
        n = len(problems)
        lines = blocks.get(o)
        if lines is None:
            problems.append("hpcviewer: no answer for this database")
        else:
            check_lines(src, lines, problems)
        readers["hpcviewer"] = "ok" if len(problems) == n else "FAIL"


def check(a, pairs):
    """hpctesttool (two batch processes) and hpcviewer's JVM at once."""
    verdicts = {o: ([], {}) for _, o in pairs}
    jobs = []
    for src, o in pairs:
        sp = o + ".source-info.json"
        if not os.path.exists(sp):
            with open(sp, "w") as f:
                json.dump(src, f)
        jobs.append((sp, o))
    wdir = os.path.dirname(os.path.abspath(pairs[0][1])) if pairs else "."
    procs = start_hpctesttool(a, jobs, wdir)
    hpcviewer(a, pairs, verdicts)
    got = finish_hpctesttool(a, procs, jobs)
    for _, o in jobs:
        hpctesttool(*got[o], *verdicts[o])
    return {o: mc.verdict(p, r) for o, (p, r) in verdicts.items()}


if __name__ == "__main__":
    sys.exit(mc.ref_main(check))
