#!/usr/bin/env python3
"""Reference check of written .cubex files (docs/conversion.md, "Cube").
Called by matrix.py (see matrix_common.ref_main for the protocol).

Every output must be read by
  - CubeLib (cube-totals): each metric's program total equal to the
    source's (profkit's reading of the input);
  - cube_sanity: no failed check the source itself does not fail (for a
    Cube source, CubeLib's checks of the input; for any other source
    none of the checks of what the writer controls: region names, line
    numbers, negative inclusive values);
  - pycubexr: it opens the file (one root cnode, one system-tree root),
    and each metric it can sum has the source's program total.

Cases where the tools count differently from profkit, and what is
compared instead:
  - A Cube source: CubeLib and pycubexr must read the output exactly as
    they read the input (program total and sum of stored values of
    every metric; composite types such as RATE, COMPLEX or TAU_ATOMIC
    have tool-specific totals). SCALE_FUNC values, whose layout profkit
    does not know, are left out by the writer (it says so) and skipped.
  - MINDOUBLE/MAXDOUBLE: CubeLib and pycubexr combine every cell of the
    call tree x locations, an unvisited one as 0, so CubeLib's program
    total of a MIN metric is 0 as soon as one cell is unvisited; profkit's
    total combines the visited cells only. So the stored values are read
    with cube_dump: combined over the cells that hold a value they must
    give profkit's total, and combined over all cells (0 where empty)
    CubeLib's and pycubexr's totals.
"""
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matrix_common as mc  # noqa: E402

MINMAX = ("MINDOUBLE", "MAXDOUBLE")
UNREADABLE = ("SCALE_FUNC",)  # profkit keeps such metrics without values (docs/cube.md)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# cube_sanity checks about what the measured program or its numbers decide,
# not the writer: a function whose file nobody knows, artificial regions
# without one (as Score-P writes them), CubeLib's 1e-12 absolute threshold
# on exclusive values derived from inclusive ones of 1e9 (rounding).
INFORMATIONAL = ("File name not empty", "No ANONYMOUS functions", "No TRUNCATED functions",
                 "No TRACING outside Init and Finalize", "No negative exclusive metrics")


def is_cube(src):
    return src.get("format") == "cube"


def cube_totals(a, path):
    r = mc.run([os.path.join(a.reftools, "bin", "cube-totals"), path])
    if r.returncode != 0:
        return None, (r.stderr.strip() or r.stdout.strip())[-300:]
    got = {}
    for ln in r.stdout.splitlines():
        f = ln.split("\t")
        if f[0] == "M" and len(f) >= 6:
            stored = f[5].split("=", 1)[1]
            got[f[1]] = {"kind": f[2], "dtype": f[3], "program": float(f[4].split("=", 1)[1]),
                         "stored": None if stored == "-" else float(stored)}
    return got, None


def dump_cells(a, path, metric):
    """Stored values of one metric, every cnode x location, via cube_dump."""
    r = mc.run([os.path.join(a.reftools, "cubelib", "bin", "cube_dump"), "-m", metric, "-c", "all",
                "-z", "stored", "-s", "csv2", path])
    if r.returncode != 0:
        return None
    vals = []
    for ln in r.stdout.splitlines()[1:]:
        f = ln.rsplit(",", 1)
        try:
            vals.append(float(f[-1]))
        except ValueError:
            continue
    return vals


def combine(dtype, values):
    return (min if dtype == "MINDOUBLE" else max)(values) if values else 0.0


def minmax_problems(a, out, name, dtype, program, src_total, problems):
    cells = dump_cells(a, out, name)
    if cells is None:
        problems.append("cube_dump cannot read metric %r" % name)
        return
    visited = combine(dtype, [v for v in cells if v != 0])
    if not mc.close(visited, src_total or 0.0, 1e-12):
        problems.append("CubeLib: %s metric %r combined over its stored values %r, source %r"
                        % (dtype, name, visited, src_total))
    if not mc.close(combine(dtype, cells), program, 1e-12):
        problems.append("CubeLib: %s metric %r program total %r, its cells give %r"
                        % (dtype, name, program, combine(dtype, cells)))


def cubelib(a, src, out, problems, readers, cache):
    got, err = cube_totals(a, out)
    if got is None:
        readers["cubelib"] = "FAIL"
        problems.append("CubeLib refuses the file: %s" % err)
        return
    n = len(problems)
    skip = {k for k, v in got.items() if v["dtype"] in MINMAX or "(" in v["dtype"]
            or v["dtype"] in ("RATE", "COMPLEX", "TAU_ATOMIC")}
    mc.totals_problems("cube-totals", src, {k: v["program"] for k, v in got.items()}, problems,
                       skip)
    totals = {m["name"]: m["program_total"] for m in src["metrics"]}
    for name, v in got.items():
        if v["dtype"] in MINMAX:
            minmax_problems(a, out, name, v["dtype"], v["program"], totals.get(name), problems)
    if is_cube(src):
        if src["path"] not in cache:
            cache[src["path"]] = cube_totals(a, src["path"])[0] or {}
        for name, want in cache[src["path"]].items():
            have = got.get(name)
            if want["dtype"] in UNREADABLE:
                continue
            if have is None:
                problems.append("CubeLib: metric %r of the source is missing" % name)
                continue
            for key in ("program", "stored"):
                if not mc.close(want[key], have[key], 1e-9):
                    problems.append("CubeLib: metric %r %s %r, the source's %r"
                                    % (name, key, have[key], want[key]))
    readers["cubelib"] = "ok" if len(problems) == n else "FAIL"


def sanity(a, path):
    """Failed count per cube_sanity check, or None when it cannot run."""
    # -x: its check of negative exclusive values is INFORMATIONAL here, and
    # a quarter of its time (3 s of 11.5 on a 12 000-cnode x 173-location
    # file)
    with tempfile.NamedTemporaryFile(suffix=".txt") as rep:
        r = mc.run([os.path.join(a.reftools, "cubelib", "bin", "cube_sanity"), "-x", "-v", "1",
                    "-o", rep.name, path])
        text = ANSI.sub("", open(rep.name, errors="replace").read())
    if r.returncode not in (0, 1) or "Runtime Error" in r.stdout + r.stderr:
        return None, (r.stdout + r.stderr).strip()[-300:]
    failed, check = {}, None
    for ln in text.splitlines():
        m = re.match(r"\s*(.+?) \.\.\. $", ln)
        if m:
            check = m.group(1)
            continue
        m = re.match(r"\s*Failed:\s+(\d+) / (\d+)", ln)
        if m and check:
            failed[check] = int(m.group(1))
    if not failed:  # it always reports its checks: without them it did not run them
        return None, "no check reported: %s" % (r.stdout + r.stderr).strip()[-300:]
    return failed, None


def cube_sanity(a, src, out, problems, readers, cache):
    got, err = sanity(a, out)
    if got is None and is_cube(src):
        key = ("sanity-error", src["path"])
        if key not in cache:
            cache[key] = sanity(a, src["path"])[1]
        if cache[key] and cache[key] == err:  # CubeLib's own fault, on the input too
            readers["cube_sanity"] = "skip"
            return
    if got is None:
        readers["cube_sanity"] = "FAIL"
        problems.append("cube_sanity fails: %s" % err)
        return
    allowed = {}
    if is_cube(src):
        key = ("sanity", src["path"])
        if key not in cache:
            cache[key] = sanity(a, src["path"])[0] or {}
        allowed = cache[key]
    n = len(problems)
    for check, failed in sorted(got.items()):
        if check in INFORMATIONAL or not failed or failed <= allowed.get(check, 0):
            continue
        if check == "No negative inclusive metrics" and has_negative(a, out):
            continue  # the profile's own values are negative (cachegrind diffs)
        problems.append("cube_sanity: %d failures in %r (the source: %s)"
                        % (failed, check, allowed.get(check, 0)))
    readers["cube_sanity"] = "ok" if len(problems) == n else "FAIL"


def has_negative(a, path):
    """Does profkit read a negative stored value in the file?"""
    with tempfile.TemporaryDirectory() as d:
        csv = os.path.join(d, "values.csv")
        r = mc.run([a.profkit, "convert", "-q", "--to", "csv", "-o", csv, path])
        if r.returncode != 0:
            return False
        with open(csv, errors="replace") as f:
            next(f, None)
            return any(ln.rstrip("\n").rsplit(",", 1)[-1].startswith("-") for ln in f)


def pycubexr_docs(a, paths):
    r = mc.run([os.path.join(a.reftools, "bin", "pycubexr-totals")] + paths)
    docs = {}
    for ln in r.stdout.splitlines():
        try:
            d = json.loads(ln)
        except ValueError:
            continue
        docs[d.get("file")] = d
    return docs


def pycubexr_metric(name, m, src, sdoc, problems):
    totals = {x["name"]: x["program_total"] for x in src["metrics"]}
    smet = {x["name"]: x for x in (sdoc or {}).get("metrics", []) if x.get("status") == "ok"}
    if name in smet:  # the tool read the source: the same numbers
        for key in ("root_incl", "sum_stored"):
            if not mc.close(smet[name].get(key), m.get(key), 1e-9):
                problems.append("pycubexr: metric %r %s %r, the source's %r"
                                % (name, key, m.get(key), smet[name].get(key)))
    elif m.get("dtype") in MINMAX:  # unvisited cells count as 0 (see above)
        t = totals.get(name) or 0.0
        want = (t, min(t, 0.0) if m["dtype"] == "MINDOUBLE" else max(t, 0.0))
        if not any(mc.close(w, m.get("root_incl"), 1e-9) for w in want):
            problems.append("pycubexr: metric %r total %r, source %r" % (name, m.get("root_incl"), t))
    elif m.get("dtype") in ("COMPLEX", "RATE", "TAU_ATOMIC") or "(" in m.get("dtype", ""):
        pass  # composite: a tool-specific scalar, compared above when the tool reads the source
    elif name in totals:
        mc.totals_problems("pycubexr", src, {name: m.get("root_incl")}, problems)


def pycubexr(a, pairs, verdicts):
    outs = [o for _, o in pairs]
    srcs = sorted({s["path"] for s, _ in pairs if is_cube(s)})
    docs = pycubexr_docs(a, outs + srcs)
    for src, o in pairs:
        problems, readers = verdicts[o]
        d = docs.get(o)
        if d is None or not d.get("ok"):
            readers["pycubexr"] = "FAIL"
            problems.append("pycubexr: %s" % (d or {}).get("error", "no answer"))
            continue
        sdoc = docs.get(src["path"]) if is_cube(src) else None
        n = len(problems)
        for m in d["metrics"]:
            if m.get("status") == "ok":
                pycubexr_metric(m["name"], m, src, sdoc if sdoc and sdoc.get("ok") else None,
                                problems)
        readers["pycubexr"] = "ok" if len(problems) == n else "FAIL"


def check(a, pairs):
    verdicts = {o: ([], {}) for _, o in pairs}
    cache = {}
    for src, o in pairs:
        cubelib(a, src, o, *verdicts[o], cache)
        cube_sanity(a, src, o, *verdicts[o], cache)
    pycubexr(a, pairs, verdicts)
    return {o: mc.verdict(p, r) for o, (p, r) in verdicts.items()}


if __name__ == "__main__":
    sys.exit(mc.ref_main(check))
