#!/usr/bin/env python3
"""Every command on every format (issue 34): the grid a newcomer walks.

Each of profkit's commands is run on one small profile of every format it
reads: HPCToolkit of each layout (v4 meta.db, the Prof2 draft, experiment.xml
2.2 with experiment.mdb, experiment.xml 2.0 with .metric-db files), an hpcrun
measurement directory, Cube, Callgrind, Cachegrind, Xdebug and profkit's own
JSON, and pprof. A cell passes when the command either answers or says in one line why
the format cannot hold that answer:

  exit 0   something written: standard output, or the -o file, not empty
  exit 1   exactly one line on standard error, naming the command, and
           nothing on standard output (`check` alone prints its report and
           exits 1 on problems, as documented)
  else     a failure: 2 is a usage error (the grid's commands are all
           well-formed), a signal is a crash; so is a hang (the timeout)

Which cells cannot answer, and why, is written down below (NO_ANSWER): every
other cell must answer (exit 0), and a listed one must give its reason, so a
cell that stops answering, or answers with nothing, fails. The table it
prints (format x command: 0, or 1 and the reason) is the one docs/cli.md
quotes. A format is skipped (said once) when its corpus file is missing.

usage: grid.py --profkit BIN --mkdb PK_MKDB --source DIR --work DIR [--corpus DIR]
Exit 0 when every cell passes, 1 otherwise.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

TIMEOUT = 60  # seconds a cell may take (the inputs are small: ~10 ms each)

# (formats, cells) that cannot answer -> what their one line must say
# (regular expressions, matched in full against the format's and the
# cell's names, searched in the line). check's report instead (exit 1 on
# warnings, docs/cli.md) is "REPORT".
NO_ANSWER = {
    ("hpctoolkit-prof2|hpctoolkit-xml-.*", "dump"):
        r"an experiment\.xml database \(legacy or draft layout\): dump lists the records of",
    ("hpcrun", "dump"): r"an hpcrun measurement directory: dump takes its files one at a time",
    ("profkit-json", "dump"): r"profkit JSON: dump lists the records of",
    # hpcrun files know code by address only (hpcprof and hpcstruct name it)
    ("hpcrun", "flat"): r"no context names a function, so a flat profile by function has no row",
    ("hpcrun", "callers|callees"): r"no function named or matching 'main'",
    ("hpcrun", "threads-fn"): r"no function 'main'",
    ("hpcrun|cube.*", "annotate"): r"no function with a cost has a known source line",
    ("hpctoolkit-xml-metricdb|cube.*|callgrind.*|cachegrind|xdebug|pprof.*", "trace"):
        r"has no traces \(only HPCToolkit databases with a trace\.db, hpcrun \.hpctrace files",
    ("hpctoolkit-v4-traces|hpctoolkit-prof2|callgrind", "check"): "REPORT",
}


def formats(src, corpus, work, pk, mkdb):
    """(name, path) of one small profile per format; what to make first."""
    hpc = os.path.join(corpus, "hpctoolkit")
    cg = os.path.join(src, "tests", "data", "callgrind")
    db = os.path.join(work, "sample.d")
    if not os.path.isdir(db):
        subprocess.run([mkdb, db], check=True, stdout=subprocess.DEVNULL)
    js = os.path.join(work, "sample.json")
    if not os.path.exists(js):
        subprocess.run([pk, "convert", "-q", db, "-o", js, "--to", "json"], check=True)
    return [
        ("hpctoolkit-v4", db),
        ("hpctoolkit-v4-traces", os.path.join(hpc, "hpctoolkit-pr-metadb-tests-small_v4.0")),
        ("hpctoolkit-prof2", os.path.join(hpc, "hpcviewer-2022.06-prof2-draft", "empty-trace")),
        ("hpctoolkit-xml-mdb", os.path.join(hpc, "hpcviewer-2023.01-xml", "inline.xml.db")),
        ("hpctoolkit-xml-metricdb", os.path.join(hpc, "hatchet-cpi-v2")),
        ("hpcrun", os.path.join(hpc, "hpctoolkit-tests-meas", "small.m")),
        ("cube", os.path.join(src, "tests", "data", "cube", "sample.cubex")),
        ("cube-zcubex", os.path.join(src, "tests", "data", "cube", "sample-zcubex.cubex")),
        ("callgrind", os.path.join(cg, "sample.callgrind")),
        ("callgrind-gzip", os.path.join(corpus, "callgrind", "generated",
                                        "gzip-default.callgrind.out")),
        ("cachegrind", os.path.join(corpus, "callgrind", "valgrind-cachegrind-tests",
                                    "ann1.cgout")),
        ("xdebug", os.path.join(cg, "xdebug-stated.callgrind")),
        ("profkit-json", js),
        ("pprof", os.path.join(corpus, "pprof", "parca", "fib.pb.gz")),
        ("pprof-labels", os.path.join(corpus, "pprof", "parca", "profile-with-labels.pb.gz")),
    ]


def hottest_function(pk, path):
    """The largest function of `flat`, for callers/callees/threads."""
    r = subprocess.run([pk, "flat", "--json", "-n", "1", path], capture_output=True, text=True,
                       timeout=TIMEOUT)
    try:
        rows = json.loads(r.stdout)["rows"]
        return rows[0]["name"] if rows else None
    except (ValueError, KeyError, IndexError):
        return None


def commands(path, fn, out):
    """(label, argv after 'profkit', output file or None) per command."""
    f = [fn] if fn else ["main"]
    cells = [
        ("info", ["info", path], None),
        ("check", ["check", path], None),
        ("dump", ["dump", path], None),
        ("tree", ["tree", path], None),
        ("flat", ["flat", path], None),
        ("callers", ["callers", path] + f, None),
        ("callees", ["callees", path] + f, None),
        ("threads", ["threads", path], None),
        ("threads-fn", ["threads", "--function"] + f + [path], None),
        ("diff", ["diff", path, path], None),
        ("flame", ["flame", path, "-o", out + ".svg"], out + ".svg"),
        ("annotate", ["annotate", path], None),
        ("trace", ["trace", path], None),
        ("view", ["view", path, "-o", out + ".html"], out + ".html"),
        ("merge", ["merge", "-q", path, path, "-o", out + ".merged.json"], out + ".merged.json"),
    ]
    for to, ext in (("hpctoolkit", ".d"), ("cube", ".cubex"), ("callgrind", ".callgrind"),
                    ("pprof", ".pb.gz"), ("json", ".json")):
        cells.append(("convert-" + to, ["convert", "-q", path, "-o", out + ext, "--to", to],
                      out + ext))
    return cells


def written(p):
    if os.path.isdir(p):
        return any(os.path.getsize(os.path.join(p, x)) for x in os.listdir(p)
                   if os.path.isfile(os.path.join(p, x)))
    return os.path.exists(p) and os.path.getsize(p) > 0


def expected(fmt, label):
    """What NO_ANSWER says of the cell: a reason's pattern, "REPORT" or None."""
    for (fmts, cells), why in NO_ANSWER.items():
        if re.fullmatch(fmts, fmt) and re.fullmatch(cells, label):
            return why
    return None


def judge(fmt, label, rc, stdout, stderr, outfile):
    """'' when the cell behaves, else what is wrong."""
    cmd = label.split("-")[0]
    lines = [x for x in stderr.splitlines() if x.strip()]
    want = expected(fmt, label)
    if rc is None:
        return "no answer within %d s" % TIMEOUT
    if rc < 0 or rc > 2:
        return "exit %d (a crash?)" % rc
    if rc == 2:
        return "usage error: %s" % (lines[0] if lines else "")
    if rc == 0:
        if want:
            return "answers (exit 0) where NO_ANSWER says it cannot: update the table"
        if outfile and not written(outfile):
            return "exit 0 and %s empty or missing" % os.path.basename(outfile)
        if not outfile and not stdout.strip():
            return "exit 0 with nothing on standard output"
        return ""
    if want == "REPORT":
        return "" if stdout.strip() else "check exits 1 without its report"
    if len(lines) != 1:
        return "exit 1 with %d lines on standard error: %s" % (len(lines), " | ".join(lines[:4]))
    if not lines[0].startswith("profkit " + cmd + ": "):
        return "exit 1, the line does not name the command: " + lines[0]
    if stdout.strip():
        return "exit 1 after writing to standard output (a partial answer)"
    if not want:
        return "no answer: " + lines[0]
    if not re.search(want, lines[0]):
        return "not the reason NO_ANSWER gives (%s): %s" % (want, lines[0])
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profkit", required=True)
    ap.add_argument("--mkdb", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--corpus")
    a = ap.parse_args()
    pk, src = os.path.abspath(a.profkit), os.path.abspath(a.source)
    corpus = a.corpus or os.environ.get("PROFKIT_CORPUS") or os.path.join(src, "..", "shared",
                                                                          "corpus")
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    failures, cells, table = [], 0, []
    for name, path in formats(src, corpus, work, pk, a.mkdb):
        if not os.path.exists(path):
            print("grid: %s skipped: %s not found" % (name, path))
            continue
        fn = hottest_function(pk, path)
        for label, argv, outfile in commands(path, fn, os.path.join(work, name + "-" + "out")):
            if outfile:
                shutil.rmtree(outfile, ignore_errors=True) if os.path.isdir(outfile) else None
                if os.path.exists(outfile) and not os.path.isdir(outfile):
                    os.remove(outfile)
            cells += 1
            try:
                r = subprocess.run([pk] + argv, capture_output=True, text=True, errors="replace",
                                   timeout=TIMEOUT, cwd=work, env=env)
                rc, so, se = r.returncode, r.stdout, r.stderr
            except subprocess.TimeoutExpired:
                rc, so, se = None, "", ""
            bad = judge(name, label, rc, so, se, outfile)
            why = [x for x in se.splitlines() if x.strip()]
            note = bad or (why[0] if rc == 1 and why else "")
            table.append((name, label, rc, note.replace(path, os.path.basename(path))))
            if bad:
                failures.append("%s / %s: %s" % (name, label, bad))
    for name, label, rc, note in table:
        print("%-24s %-15s %-4s %s" % (name, label, rc, note[:160]))
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    print("grid: %d cells, %d failures" % (cells, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
