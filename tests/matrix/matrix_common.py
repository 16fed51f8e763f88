"""Shared pieces of the conversion matrix (matrix.py) and its per-writer
reference checks (ref_*.py): running profkit, comparing numbers, units."""
import fcntl
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import threading

REL_TOL = 1e-6


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace", **kw)


# The four matrix tests (one per writer) ask the same questions of the same
# sources (info, flat of each metric, check): the first to ask runs profkit,
# the others read its answer from here (set by use_source_cache()).
SOURCE_CACHE = None


def _signature(path):
    """What a source's answers depend on: its files' sizes and times (a
    multi-file run is named by the base its files share: all of them)."""
    if not os.path.exists(path):
        d, base = os.path.split(path)
        return [[f] + _signature(os.path.join(d, f))
                for f in sorted(os.listdir(d or ".")) if f.startswith(base)]
    if not os.path.isdir(path):
        st = os.stat(path)
        return [st.st_size, st.st_mtime_ns]
    sig = []
    for d, dirs, files in os.walk(path):
        dirs.sort()
        for f in sorted(files):
            st = os.stat(os.path.join(d, f))
            sig.append([os.path.relpath(os.path.join(d, f), path), st.st_size, st.st_mtime_ns])
    return sig


def use_source_cache(work, pk):
    """Answers of this profkit build under WORK/source-cache/BUILD; those
    of other builds are removed."""
    global SOURCE_CACHE
    st = os.stat(pk)
    build = hashlib.sha256(json.dumps([os.path.realpath(pk), st.st_size, st.st_mtime_ns])
                           .encode()).hexdigest()[:16]
    top = os.path.join(work, "source-cache")
    os.makedirs(os.path.join(top, build), exist_ok=True)
    for old in os.listdir(top):
        if old != build:
            shutil.rmtree(os.path.join(top, old), ignore_errors=True)
    SOURCE_CACHE = os.path.join(top, build)


def _load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def run_source(cmd, src):
    """run(CMD), a profkit command that reads only the source SRC, once for
    all matrix tests: under a lock per question, so a test asking what
    another is computing waits for its answer."""
    if SOURCE_CACHE is None:
        return run(cmd)
    key = hashlib.sha256(json.dumps([cmd, _signature(src)]).encode()).hexdigest()
    path = os.path.join(SOURCE_CACHE, key + ".json")
    got = _load(path)
    if got is None:
        with open(path + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            got = _load(path)
            if got is None:
                r = run(cmd)
                got = {"returncode": r.returncode, "stdout": r.stdout, "stderr": r.stderr}
                tmp = "%s.tmp-%d-%d" % (path, os.getpid(), threading.get_ident())
                with open(tmp, "w") as f:
                    json.dump(got, f)
                os.replace(tmp, path)
    return subprocess.CompletedProcess(cmd, got["returncode"], got["stdout"], got["stderr"])


def info(pk, path, source=False):
    """`profkit info --json`; SOURCE: PATH is a matrix input (run_source)."""
    cmd = [pk, "info", "--json", path]
    r = run_source(cmd, path) if source else run(cmd)
    if r.returncode != 0:
        return None
    try:
        return json.loads(r.stdout)
    except ValueError:
        return None


def flat(pk, path, metric, top=20, source=False):
    """`profkit flat --json` of one metric (exact name), the top N rows (0: all)."""
    cmd = [pk, "flat", "--json", "-m", metric, "-n", str(top), path]
    r = run_source(cmd, path) if source else run(cmd)
    if r.returncode != 0:
        return None
    try:
        return json.loads(r.stdout)
    except ValueError:
        return None


def close(a, b, abs_tol=1e-9):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b or abs(a - b) <= REL_TOL * max(abs(a), abs(b)) + abs_tol


def norm(name):
    """Metric names as formats that allow fewer characters spell them."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def metric_index(info_doc):
    return {m["name"]: m for m in info_doc.get("metrics", [])}


def match_metric(index, name):
    if name in index:
        return index[name]
    n = norm(name)
    hits = [m for k, m in index.items() if norm(k) == n]
    return hits[0] if len(hits) == 1 else None


# Units by dimension and size in the dimension's base unit.
_UNITS = {
    "s": ("time", 1.0), "sec": ("time", 1.0), "secs": ("time", 1.0), "second": ("time", 1.0),
    "seconds": ("time", 1.0), "ms": ("time", 1e-3), "msec": ("time", 1e-3),
    "us": ("time", 1e-6), "usec": ("time", 1e-6), "\u00b5s": ("time", 1e-6),
    "microseconds": ("time", 1e-6), "ns": ("time", 1e-9), "nsec": ("time", 1e-9),
    "nanoseconds": ("time", 1e-9), "10ns": ("time", 1e-8), "ps": ("time", 1e-12),
    "fs": ("time", 1e-15), "as": ("time", 1e-18),
    "b": ("bytes", 1.0), "byte": ("bytes", 1.0), "bytes": ("bytes", 1.0),
    "kib": ("bytes", 1024.0), "mib": ("bytes", 1024.0 ** 2), "gib": ("bytes", 1024.0 ** 3),
}


def unit_of(unit, name):
    """The metric's unit: its own, or one its name ends with ("CPUTIME (sec)")."""
    if unit:
        return unit.strip().lower()
    m = re.search(r"[(\[_]\s*([A-Za-z0-9\u00b5]+)\s*[)\]]?\s*$", name or "")
    if m and m.group(1).lower() in _UNITS:
        return m.group(1).lower()
    return None


def _factor(unit):
    """A unit written as a multiple of another, "1e-6 B" (a millionth of a
    byte) or "1e-6" (a millionth of the name's unit, or of 1): (1e-6, "B")."""
    m = re.match(r"^\s*(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)(?:\s+(.*))?$", unit or "")
    if not m:
        return 1.0, unit
    return float(m.group(1)), m.group(2)


def unit_scale(src_unit, out_unit, name):
    """Factor that turns a source value into the output's value, or None
    when the units differ in a way no known scaling explains."""
    (fa, src_unit), (fb, out_unit) = _factor(src_unit), _factor(out_unit)
    base = _plain_unit_scale(src_unit, out_unit, name)
    return None if base is None else base * fa / fb


def _plain_unit_scale(src_unit, out_unit, name):
    a, b = unit_of(src_unit, name), unit_of(out_unit, name)
    if a == b or a is None and b is None:
        return 1.0
    if a in _UNITS and b in _UNITS and _UNITS[a][0] == _UNITS[b][0]:
        return _UNITS[a][1] / _UNITS[b][1]
    if a is None or b is None:
        return 1.0 if (a or b) not in _UNITS else None
    return 1.0 if a not in _UNITS and b not in _UNITS else None


def run_reference(script, reftools, pk, pairs, wdir):
    """Run ref_WRITER.py once over every (source info, output) pair; its
    verdicts by output path."""
    batch = os.path.join(wdir, "batch.tsv")
    with open(batch, "w") as f:
        for s, o in pairs:
            f.write("%s\t%s\n" % (s, o))
    cmd = [sys.executable, script, "--profkit", pk, "--batch", batch]
    if reftools:
        cmd += ["--reftools", reftools]
    r = run(cmd)
    verdicts = {}
    for ln in r.stdout.splitlines():
        try:
            v = json.loads(ln)
        except ValueError:
            continue
        verdicts[v.get("output")] = v
    if r.returncode not in (0, 1) and not verdicts:
        sys.stderr.write("reference check failed to run: %s\n" % r.stderr[-2000:])
    return verdicts


def report(writer, cells, table_path):
    lines = ["conversion matrix: writer %s" % writer,
             "%-70s %-18s %-9s %s" % ("input", "convert", "readback", "reference readers")]
    for c in cells:
        readers = " ".join("%s=%s" % kv for kv in sorted(c.get("readers", {}).items()))
        lines.append("%-70s %-18s %-9s %s %s" % (c["input"][:70], c["convert"], c["readback"],
                                               c["reference"], readers))
    bad = [c for c in cells if c["problems"]]
    counts = {}
    for c in cells:
        for k in ("convert", "readback", "reference"):
            v = c[k].split()[0]
            counts.setdefault(k, {}).setdefault(v, 0)
            counts[k][v] += 1
    lines.append("")
    lines.append("%d inputs, %d pass, %d fail; %s" % (
        len(cells), len(cells) - len(bad), len(bad),
        "; ".join("%s %s" % (k, ", ".join("%s=%d" % kv for kv in sorted(v.items())))
                  for k, v in counts.items())))
    for c in cells:
        for ln in c["lost"]:
            lines.append("  note %s: %s" % (c["input"], ln.split(": left out ", 1)[-1]))
    for c in cells:
        for k in c.get("known", []):
            lines.append("  known %s: %s" % (c["input"], k))
    for c in bad:
        lines.append("FAIL %s" % c["input"])
        for p in c["problems"][:12]:
            lines.append("    " + p)
        if len(c["problems"]) > 12:
            lines.append("    ... %d more" % (len(c["problems"]) - 12))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if table_path:
        with open(table_path, "w") as f:
            f.write(text)
    return 1 if bad else 0


def ref_main(check_batch):
    """Entry point of a ref_WRITER.py: parses --profkit/--reftools/--batch,
    calls check_batch(ctx, [(source_info, output)]) -> {output: verdict},
    prints one JSON line per output. A verdict is {"ok": bool, "problems":
    [...], "readers": {reader: "ok"|"FAIL"|"skip"}} or {"skipped": why}."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--profkit", required=True)
    ap.add_argument("--reftools", default=os.environ.get("PROFKIT_REFTOOLS"))
    ap.add_argument("--batch", required=True)
    a = ap.parse_args()
    pairs = []
    with open(a.batch) as f:
        for ln in f:
            s, o = ln.rstrip("\n").split("\t")
            with open(s) as g:
                pairs.append((json.load(g), o))
    if not a.reftools or not os.path.isdir(a.reftools):
        for _, o in pairs:
            print(json.dumps({"output": o, "skipped": "reference tools not found (%r)" % a.reftools}))
        return 0
    verdicts = check_batch(a, pairs)
    bad = 0
    for _, o in pairs:
        v = verdicts.get(o) or {"ok": False, "problems": ["no verdict"]}
        v["output"] = o
        bad += 0 if v.get("ok") or v.get("skipped") else 1
        print(json.dumps(v))
    return 1 if bad else 0


def verdict(problems, readers):
    return {"ok": not problems, "problems": problems, "readers": readers}


def totals_problems(reader, src_info, got, problems, skip=(), rel_tol=0.0):
    """Compare a reader's per-metric program totals ({name: value}) with
    the source's (profkit info --json of the input), after unit scaling
    by the output's unit where the reader reports one ({name: (value,
    unit)} also accepted)."""
    idx = {}
    for name, v in got.items():
        idx[name] = v if isinstance(v, tuple) else (v, None)
    for m in src_info["metrics"]:
        if m["name"] in skip:
            continue
        hit = idx.get(m["name"])
        if hit is None:
            n = norm(m["name"])
            cand = [v for k, v in idx.items() if norm(k) == n]
            hit = cand[0] if len(cand) == 1 else None
        if hit is None:
            continue  # a metric the writer left out: the matrix checks that it said so
        value, unit = hit
        scale = unit_scale(m.get("unit"), unit, m["name"]) if unit is not None else 1.0
        want = (m["program_total"] or 0) * scale if scale is not None else None
        if want is None or not close(want, value, 1e-6 + rel_tol * abs(want)):
            problems.append("%s: metric %r total %r, source %r" % (reader, m["name"], value,
                                                                    m["program_total"]))
