#!/usr/bin/env python3
"""profkit against Go's own pprof, both ways (docs/pprof.md).

read FILE...   every pprof file profkit reads: per sample type, `profkit
               info` has the total `pprof -raw` sums, `profkit flat` every
               function's flat and cumulative value as pprof's rules give
               them from -raw, `profkit tree` every calling path's
               inclusive and self value; and pprof's own `-top` agrees on
               its top 20 rows (a check of the -raw reading itself).
write SRC...   every profile written as pprof (gzip, and plain .pb for the
               first): pprof reads it, its totals are the source's (in the
               unit written), and for the source's top 20 functions of every
               metric `profkit flat` of the source gives pprof's flat and
               cumulative values; -top agrees on its top 20 rows.

  check_pprof.py --profkit BIN --work DIR (read|write) PATH...
Exit 0 when every check passes, 1 otherwise, 77 (skipped) without Go.
"""
import argparse
import concurrent.futures
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "matrix"))
import matrix_common as mc  # noqa: E402
import pprof_ref as ref  # noqa: E402

TOP = 20
PK = None


def pk_json(args):
    r = mc.run([PK] + args)
    if r.returncode != 0:
        raise RuntimeError("profkit %s: %s" % (" ".join(args[:2]), r.stderr.strip()[-300:]))
    return json.loads(r.stdout)


def close(a, b, tol=0.0):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + tol


def tree_paths(node, prefix, out):
    """{(names): [inclusive, self]} of profkit's tree JSON, iteratively."""
    stack = [(c, prefix) for c in node["children"]]
    while stack:
        n, pre = stack.pop()
        key = pre + (n["name"],)
        o = out.setdefault(key, [0.0, 0.0])
        o[0] += n["inclusive"] or 0
        o[1] += n["self"] or 0
        stack.extend((c, key) for c in n["children"])
    return out


def compare(what, want, got, problems, tol=0.0, limit=8):
    """Maps of name -> [values...]: every non-zero entry of either."""
    bad = 0
    for k in sorted(set(want) | set(got), key=str):
        a, b = want.get(k, [0, 0]), got.get(k, [0, 0])
        if all(close(x, y, tol) for x, y in zip(a[:2], b[:2])):
            continue
        bad += 1
        if bad <= limit:
            problems.append("%s %r: pprof %r, profkit %r" % (what, k, a[:2], b[:2]))
    if bad > limit:
        problems.append("%s: %d more differences" % (what, bad - limit))


def check_top(path, i, t, unit, rows, problems, scale=1.0, tol=0.0):
    """pprof's own -top against the expected rows {name: [flat, cum]}."""
    r = ref.run(ref.top_args(path, i, unit))
    top = ref.parse_top(r.stdout)
    if r.returncode == 0 and not top and not any(v[0] or v[1] for v in rows.values()):
        return  # a sample type of zeros: nothing to show
    if r.returncode != 0 or not top:
        problems.append("pprof -top %s: %s" % (t, r.stderr.strip()[-200:]))
        return
    for name, fl, cum in top[:TOP]:
        want = rows.get(name)
        if want is None:
            problems.append("-top %s: %r not expected" % (t, name))
        elif not (close(fl, want[0] * scale, tol + 0.01) and close(cum, want[1] * scale, tol + 0.01)):
            problems.append("-top %s %r: flat %g cum %g, expected %r" % (t, name, fl, cum, want))


# ---- read ----

def read_type(path, traces, t, problems):
    f = pk_json(["flat", "--json", "-n", "0", "-m", t, path])
    compare("flat %s" % t, ref.flat(traces), ref.by_name(f["rows"]), problems)
    tr = pk_json(["tree", "--json", "-t", "0", "-d", "1000000", "-m", t, path])
    got = tree_paths(tr["root"], (), {}) if tr.get("root") else {}
    got = {k: v for k, v in got.items() if v[0] or v[1]}
    compare("tree %s" % t, ref.paths(traces), got, problems)


def read_one(path):
    problems = []
    rw = ref.raw(path)
    info = pk_json(["info", "--json", path])
    metrics = {m["name"]: m for m in info["metrics"]}
    for t, total in ref.totals(rw).items():
        m = metrics.get(t)
        if m is None or not close(m["program_total"] or 0, total):
            problems.append("total of %s: pprof %r, profkit %r" % (t, total, m and m["program_total"]))
    for i, t in enumerate(rw.types):
        unit = rw.units[i]
        traces = ref.traces(path, i, unit)
        read_type(path, traces, t, problems)
        check_top(path, i, t, unit, ref.flat(traces), problems)
    return len(rw.samples), len(rw.types), problems


# ---- write ----

def written_as(src, out, plain):
    r = mc.run([PK, "convert", "-q", "--force", "--to", "pprof", "-o", out, src])
    if r.returncode != 0:
        raise RuntimeError("convert %s: %s" % (src, r.stderr.strip()[-300:]))
    lost = [ln.split(": left out ", 1)[1] for ln in r.stderr.splitlines() if ": left out " in ln]
    return lost


def write_metric(src, out, rw, i, t, sinfo, units, lost, problems):
    m = next((x for x in sinfo["metrics"] if x["name"] == t), None)
    if m is None:
        problems.append("sample type %r is no metric of the source" % t)
        return
    scale = mc.unit_scale(m.get("unit"), units.get(t), t)
    total = sum(s["values"][i] for s in rw.samples)
    want = m["program_total"] or 0
    if any(ln.startswith("the stated total of metric %s:" % t) for ln in lost):
        want = m.get("cost_lines_total") or 0  # a tree's total is what its values add up to
    if not close(total, want * scale, 0.5 * len(rw.samples) + 1e-6):
        problems.append("total of %s: pprof %r, source %r x %g" % (t, total, want, scale))
    f = pk_json(["flat", "--json", "-n", "0", "-m", t, src])
    rows = ref.by_name(f["rows"])
    got = ref.flat(ref.traces(out, i, units.get(t)))
    for name, (ex, inc, n) in sorted(rows.items(), key=lambda kv: -abs(kv[1][0]))[:TOP]:
        g = got.get(name, [0, 0])
        slack = 0.5 * (n + 1) if scale != 1 else 0.0  # each value rounded to an integer
        if not (close(g[0], ex * scale, slack) and close(g[1], inc * scale, slack * 4)):
            problems.append("%s %r: source %r %r (x%g), pprof %r" % (t, name, ex, inc, scale, g))
    check_top(out, i, t, units.get(t), got, problems)


def write_one(src, out, plain):
    problems = []
    lost = written_as(src, out, plain)
    rw = ref.raw(out)
    sinfo = pk_json(["info", "--json", src])
    oinfo = pk_json(["info", "--json", out])
    units = {m["name"]: m.get("unit") for m in oinfo["metrics"]}
    for i, t in enumerate(rw.types):
        write_metric(src, out, rw, i, t, sinfo, units, lost, problems)
    return len(rw.samples), len(rw.types), problems, lost


def main():
    global PK
    ap = argparse.ArgumentParser()
    ap.add_argument("--profkit", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("mode", choices=("read", "write"))
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    PK = a.profkit
    if not ref.tool():
        print("check_pprof: go tool pprof not found (Debian golang-go): skipped")
        return 77
    os.makedirs(a.work, exist_ok=True)
    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        for k, p in enumerate(a.paths):
            if a.mode == "read":
                jobs[p] = ex.submit(read_one, p)
            else:
                base = os.path.basename(p.rstrip("/")) or "profile"
                out = os.path.join(a.work, "%02d-%s%s" % (k, base, ".pb" if k == 0 else ".pb.gz"))
                jobs[p] = ex.submit(write_one, p, out, k == 0)
    bad = 0
    for p, fut in jobs.items():
        try:
            res = fut.result()
        except (RuntimeError, ValueError) as e:
            res = (0, 0, [str(e)], [])
        probs = res[2]
        lost = res[3] if len(res) > 3 else []
        print("%-6s %-70s %6d samples %2d types  %s" % (a.mode, p[-70:], res[0], res[1],
                                                      "ok" if not probs else "FAIL"))
        for ln in lost:
            print("         left out: %s" % ln[:150])
        for pr in probs[:12]:
            print("    " + pr)
        bad += bool(probs)
    print("%d of %d %s checks pass" % (len(jobs) - bad, len(jobs), a.mode))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
