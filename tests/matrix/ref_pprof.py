#!/usr/bin/env python3
"""Reference check of written pprof files: Go's own pprof (go tool pprof)
reads each (-raw: every sample as Go's profile package decodes it), with
the source's per-metric totals (in the unit the writer recorded) and, for
the source's top 20 functions of each metric, `profkit flat` of the
source's exclusive and inclusive values as pprof's flat and cumulative
ones: pprof's own -top, or where -top lists a name twice, computed by
pprof's rules from -traces (pprof_ref.top_flat, flat). The batch's pprof
calls run several at once. Called by matrix.py (matrix_common.ref_main).
"""
import concurrent.futures
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import known  # noqa: E402
import matrix_common as mc  # noqa: E402
import pprof_ref as ref  # noqa: E402

TOP = 20
MAX_METRICS = 3  # per input, functions compared (totals: all); tests/pprof checks every one


def inclusive_slack(a, src):
    """A call graph's calling-context tree is reconstructed: a function's
    cumulative value there is within 1% of the call graph's exact one, or
    not comparable at all where the source's calls carry more than their
    callees spend (matrix.py and known.py say the same of the readback)."""
    if not src.get("reconstructed"):
        return 0.0
    if "calls-exceed-costs" in known.source_codes(mc.run, a.profkit, src["path"]):
        return None
    return 0.01


def check_functions(a, src, out, rw, i, t, scale, problems, cum_tol):
    r = mc.run([a.profkit, "flat", "--json", "-n", "0", "-m", t, src["path"]])
    if r.returncode != 0:
        problems.append("profkit flat -m %r of the source fails" % t)
        return
    rows = ref.by_name(json.loads(r.stdout)["rows"])
    got = ref.top_flat(out, i, rw.units[i])
    if got is None:
        got = ref.flat(ref.traces(out, i, rw.units[i]))
    for name, (ex, inc, n) in sorted(rows.items(), key=lambda kv: -abs(kv[1][0]))[:TOP]:
        g = got.get(name, [0, 0])
        slack = 0.5 * (n + 1) if scale != 1 else 0.0  # each value rounded to an integer
        cum_ok = cum_tol is None or mc.close(g[1], inc * scale,
                                             1e-9 + 4 * slack + cum_tol * abs(inc * scale))
        if not (mc.close(g[0], ex * scale, 1e-9 + slack) and cum_ok):
            problems.append("function %r metric %r: source %r %r (x%g), go tool pprof %r"
                            % (name, t, ex, inc, scale, g[:2]))


def check_one(a, src, out, text):
    problems = []
    rw = ref.Raw(text)
    if not rw.types:
        return mc.verdict(["go tool pprof -raw shows no sample type"], {"go tool pprof": "FAIL"})
    units = dict(zip(rw.types, rw.units))
    totals = {t: (v, units[t]) for t, v in ref.totals(rw).items()}
    # rounding: each sample's value by at most 1/2 of the written unit
    mc.totals_problems("go tool pprof", src, totals, problems,
                       rel_tol=0.0 if not rw.samples else 0.5 * len(rw.samples) / max(
                           1.0, max(abs(v) for v, _ in totals.values())))
    metrics = {m["name"]: m for m in src["metrics"]}
    cum_tol = inclusive_slack(a, src)
    compared = 0
    for i, t in enumerate(rw.types):
        m = metrics.get(t)
        if m is None:
            problems.append("sample type %r is no metric of the source" % t)
            continue
        if not m.get("program_total") or compared == MAX_METRICS:
            continue
        compared += 1
        scale = mc.unit_scale(m.get("unit"), units[t], t)
        if scale is None:
            problems.append("metric %r: unit %r written as %r" % (t, m.get("unit"), units[t]))
            continue
        check_functions(a, src, out, rw, i, t, scale, problems, cum_tol)
    return mc.verdict(problems, {"go tool pprof": "ok" if not problems else "FAIL"})


def check_output(a, src, o, r):
    if r.returncode != 0 and "profile has no samples" in r.stderr and not any(
            m.get("program_total") for m in src["metrics"]):
        return mc.verdict([], {"go tool pprof": "ok (no samples: the source has no value)"})
    if r.returncode != 0:
        return mc.verdict(["go tool pprof -raw fails: %s" % r.stderr.strip()[-300:]],
                          {"go tool pprof": "FAIL"})
    return check_one(a, src, o, r.stdout)


def check(a, pairs):
    if not ref.tool():
        return {o: {"skipped": "go tool pprof not installed (Debian golang-go)"} for _, o in pairs}
    raws = ref.run_many({o: ["-raw", o] for _, o in pairs})
    with concurrent.futures.ThreadPoolExecutor(max(2, os.cpu_count() or 2)) as ex:
        futs = {o: ex.submit(check_output, a, src, o, raws[o]) for src, o in pairs}
        return {o: f.result() for o, f in futs.items()}


if __name__ == "__main__":
    sys.exit(mc.ref_main(check))
