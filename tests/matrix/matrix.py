#!/usr/bin/env python3
"""The conversion matrix: every input profile x one writer, checked twice.

For each input (the corpus's profiles of every format and the project's own
samples) this converts to WRITER with `profkit convert` and checks

  1. convert exits 0; what it reports as left out ("left out ITEM") is
     recorded and excused, nothing else may be missing;
  2. profkit reads the output back with the same metrics, the locations the
     writer documents, the same per-metric program totals, and the same
     exclusive and inclusive value per function for the source's top 20
     functions of every metric (after the unit scaling the writer records in
     the metric's unit);
  3. the target ecosystem's own readers (ref_WRITER.py, run once on the whole
     batch) open the output with the same totals.

Two inputs are checked at a time. What profkit answers about a source
(info, flat, check) is the same for every writer: the four matrix tests
share it through WORK/source-cache (matrix_common.run_source).

usage: matrix.py --profkit BIN --writer W --work DIR [--corpus DIR]
                 [--reftools DIR] [--only REGEX] [--table FILE] [EXTRA_INPUT...]
Exit 0 when every cell passes, 1 otherwise. The table it prints is the one
the issue notes quote: input x (convert, readback, reference readers).
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import known  # noqa: E402
import matrix_common as mc  # noqa: E402

EXT = {"hpctoolkit": ".d", "cube": ".cubex", "callgrind": ".callgrind", "json": ".json",
       "pprof": ".pb.gz"}
TOP = 20
MAX_METRICS = 24  # per input: the flat comparison runs profkit twice per metric


def find_inputs(corpus):
    """Every profile of the corpus, by the layout SOURCES.md describes."""
    out = []
    if not corpus or not os.path.isdir(corpus):
        return out
    for root, dirs, files in os.walk(corpus):
        dirs.sort()
        if "meta.db" in files or "experiment.xml" in files:
            out.append(root)
            dirs[:] = []
            continue
        if root.endswith(".m") and any(f.endswith(".hpcrun") for f in files):
            out.append(root)
            dirs[:] = []
            continue
        sets = []
        pprof = os.path.relpath(root, corpus).split(os.sep)[0] == "pprof"
        for f in sorted(files):
            p = os.path.join(root, f)
            if f.endswith((".md", ".txt", ".license", ".yaml")):
                continue
            if f.endswith(".cubex") or (pprof and f.endswith((".pb.gz", ".pb"))):
                out.append(p)
            elif os.sep + "callgrind" + os.sep in p:
                m = re.match(r"(.*\.\d+)-\d\d$", f)  # a run's per-thread files: open by base
                if m:
                    if m.group(1) not in sets:
                        sets.append(m.group(1))
                else:
                    out.append(p)
        out.extend(os.path.join(root, b) for b in sets)
    return out


def big_tree(info):
    """Is a profile's whole tree too big for a test to hold as JSON (its
    `info --json`)? 50 000 contexts; or a tree rebuilt from a call graph of
    a few hundred functions, which has no contexts before it is built and
    fills the rebuild's budget (~100 000 nodes, 200 MB of JSON:
    xapian.callgrind). The tests show such trees 8 levels deep."""
    return info["counts"]["contexts"] > 50000 or (
        info["reconstructed"] and info["counts"]["functions"] > 300)


def slug(path, corpus):
    rel = os.path.relpath(path, corpus) if corpus and path.startswith(corpus) else path
    return re.sub(r"[^A-Za-z0-9._-]+", "_", rel.strip("./"))


def convert(pk, src, out, writer):
    r = mc.run([pk, "convert", "--to", writer, "-o", out, src])
    lost = [ln for ln in r.stderr.splitlines() if ": left out " in ln]
    other = [ln for ln in r.stderr.splitlines() if ln and ": left out " not in ln]
    return r.returncode, lost, other


def empty_locations(lost):
    """Locations the writer left out for holding no value (pprof: a
    location is its samples' labels), as its report counts them."""
    for ln in lost:
        m = re.search(r": left out locations without values: (\d+) locations", ln)
        if m:
            return int(m.group(1))
    return 0


def lost_metric_names(lost, what="metric"):
    """Metrics the writer reported as left out ("left out metric X: ..."),
    or with what="exclusive values of metric", those whose exclusive
    values it reported it could not keep (a format that derives them)."""
    names = set()
    for ln in lost:
        m = re.search(r": left out %s (.+?): " % re.escape(what), ln)
        if m:
            names.add(m.group(1).strip("'\""))
    return names


def held_totals(src_info, lost):
    """The source's info with, for every metric whose stated total the
    writer reported it cannot keep ("left out the stated total of metric
    X": a Callgrind file's summary: line, where a calling-context tree's
    total is what its values add up to), that total replaced by what the
    source's cost lines add up to: the total the output can hold."""
    names = lost_metric_names(lost, "the stated total of metric")
    if not names:
        return src_info
    out = json.loads(json.dumps(src_info))
    for m in out["metrics"]:
        if m["name"] in names and m.get("cost_lines_total") is not None:
            m["program_total"] = m["cost_lines_total"]
    return out


def cube_locations(src_info):
    """The Cube writer's locations (docs/conversion.md, "Cube"): a profile
    with no per-location values but summary ones, or with no location at
    all, becomes one location, its summary."""
    n = src_info["counts"]["locations"]
    plain = any(s.get("total") for m in src_info["metrics"] for s in m.get("scopes", []))
    summary = any(s.get("total") for m in src_info["metrics"] for s in m.get("summaries", []))
    if n == 0 or (not plain and summary):
        return 1
    return n


def expected_locations(writer, src_info):
    n = src_info["counts"]["locations"]
    if writer == "callgrind":
        return 1  # one part holding the sum over locations unless --split/--location
    if writer == "cube":
        return cube_locations(src_info)
    if writer == "pprof":  # a location is its samples' labels: one without values has none
        return cube_locations(src_info)
    return n


# Characters XML 1.0 cannot hold at all (not even as a reference): the
# Cube writer writes U+FFFD for each (docs/cube.md, "Names in anchor.xml").
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def stored_name(writer, name):
    """A source name (as profkit's JSON shows it: invalid UTF-8 already
    U+FFFD) as the writer's format can store it."""
    return NOT_XML.sub("\ufffd", name) if writer == "cube" else name


def by_name(rows):
    """Flat rows summed by function name: functions of one name in several
    modules or files (strcmp in ld.so and libc) are one row per name."""
    out = {}
    for r in rows:
        o = out.setdefault(r["name"], {"name": r["name"], "exclusive": 0.0, "inclusive": 0.0,
                                        "contexts": 0})
        for k in ("exclusive", "inclusive", "contexts"):
            o[k] += r.get(k, 0)
    return out


def flat_rows(pk, path, names, source=False):
    """{metric: flat rows (-n 0) of that metric} for NAMES, from one
    `flat -m A,B,...` (the rows' values per column) where the names allow
    a list, else one flat per metric; a metric whose flat fails is not in
    it. A matrix input compares up to 24 metrics: 24 runs and parses of
    every row became one."""
    out = {}
    if len(names) > 1 and not any(c in n for n in names for c in ",="):
        doc = mc.flat(pk, path, ",".join(names), 0, source=source)
        if doc is not None and [m["name"] for m in doc["metrics"]] == list(names):
            for k, n in enumerate(names):
                out[n] = [dict(r, **r["values"][k]) for r in doc["rows"]]
            return out
    for n in names:
        doc = mc.flat(pk, path, n, 0, source=source)
        if doc is not None:
            out[n] = doc["rows"]
    return out


def compare_flats(pk, src, out, jobs, problems, writer):
    """compare_flat() of every (source metric, output metric, scale,
    inclusive tolerance, keys) job, each side's flats read at once."""
    a = flat_rows(pk, src, [j[0] for j in jobs], source=True)
    b = flat_rows(pk, out, [j[1] for j in jobs])
    for sname, oname, scale, incl_tol, keys in jobs:
        if sname not in a:
            continue
        if oname not in b:
            problems.append("flat of %r fails on the output" % oname)
            continue
        compare_flat(a[sname], b[oname], sname, scale, incl_tol, problems, keys, writer)


def compare_flat(a_rows, b_rows, sname, scale, incl_tol, problems, keys=("exclusive", "inclusive"),
                 writer=None):
    """The source's top functions of one metric against the output's."""
    rows = by_name(b_rows)
    top = sorted(by_name(a_rows).values(), key=lambda r: -abs(r["exclusive"]))
    for r in top[:TOP]:
        got = rows.get(stored_name(writer, r["name"]))
        if got is None and writer == "pprof":  # no sample names a function without values
            got = {"exclusive": 0.0, "inclusive": 0.0}
        if got is None:
            if abs(r["exclusive"]) + abs(r["inclusive"]) > 0:
                problems.append("function %r (metric %r) missing in output" % (r["name"], sname))
            continue
        # A writer that scales to integers rounds each stored value by up to 1/2.
        slack = 0.5 * (r.get("contexts", 1) + 1) if scale != 1 else 0.0
        for key in keys:
            tol = incl_tol if key == "inclusive" else 0.0
            want = r[key] * scale
            # Cube stores one scope: an exclusive value derived from inclusive
            # ones carries their rounding (1e-9 of the inclusive value).
            derived = 1e-9 * abs(r["inclusive"] * scale) if key == "exclusive" else 0.0
            if writer != "cube":  # the one writer that derives exclusive values
                derived = 0.0
            if not mc.close(want, got[key], 1e-9 + max(slack, derived) + tol * abs(want)):
                problems.append("function %r metric %r %s: source %r%s, output %r"
                                % (r["name"], sname, key, r[key],
                                   "" if scale == 1 else " (x%g)" % scale, got[key]))


def has_cycles(pk, out, oinfo):
    """Does a written call graph have cycles (a "<cycle N>" flat row)?"""
    m = next((x["name"] for x in oinfo.get("metrics", []) if x.get("program_total")), None)
    f = mc.flat(pk, out, m, 0) if m else None
    return bool(f) and any(r["name"].startswith("<cycle ") for r in f["rows"])


def check_readback(pk, writer, src, out, src_info, lost, problems, notes):
    oinfo = mc.info(pk, out)
    if oinfo is None:
        problems.append("profkit cannot read the output back")
        return None
    if not oinfo.get("complete", True):
        problems.append("profkit reads the output as incomplete")
    lost_names = lost_metric_names(lost)
    lost_excl = lost_metric_names(lost, "exclusive values of metric")
    want = expected_locations(writer, src_info) - empty_locations(lost)
    if oinfo["counts"]["locations"] != want:
        problems.append("locations: %d in output, %d expected" % (oinfo["counts"]["locations"], want))
    omet = mc.metric_index(oinfo)
    # A call graph's calling-context tree is reconstructed: a function's
    # inclusive value there is within 1 % of the call graph's exact one.
    incl_tol = 0.01 if src_info.get("reconstructed") and writer in known.CCT_WRITERS else 0.0
    codes = (known.source_codes(lambda cmd: mc.run_source(cmd, src), pk, src)
             if src_info.get("reconstructed") else set())
    incl_ok, why = known.inclusive_comparable(writer, src_info, codes,
                                              writer == "callgrind" and has_cycles(pk, out, oinfo))
    first = len(problems)
    compared = 0
    diffed = None
    jobs = []
    diff_unit = 0.0  # pprof: the written unit in the source's, the most a rounded value moves
    for m in src_info["metrics"]:
        name = m["name"]
        om = mc.match_metric(omet, name)
        if om is None:
            if name not in lost_names and mc.norm(name) not in {mc.norm(x) for x in lost_names}:
                problems.append("metric %r missing in output and not reported as left out" % name)
            continue
        scale = mc.unit_scale(m.get("unit"), om.get("unit"), name)
        if scale is None:
            problems.append("metric %r: unit %r became %r, no known scaling"
                            % (name, m.get("unit"), om.get("unit")))
            continue
        st, ot = m.get("program_total"), om.get("program_total")
        if st is not None and not mc.close(st * scale, ot):
            problems.append("metric %r program total: source %r%s, output %r"
                            % (name, st, "" if scale == 1 else " (x%g)" % scale, ot))
        if compared < MAX_METRICS and st:
            compared += 1
            if not diffed and writer == "pprof" and scale != 1:
                diff_unit = 0.5 / scale
            diffed = diffed or name
            keys = ("inclusive",) if name in lost_excl else ("exclusive", "inclusive")
            jobs.append((name, om["name"], scale, incl_tol, keys))
    compare_flats(pk, src, out, jobs, problems, writer)
    if diffed:
        # a call graph written as a tree: the writer says the per-arc costs
        # are not written (the reconstructed tree's estimates are)
        estimated = writer in known.CCT_WRITERS and bool(src_info.get("reconstructed"))
        check_diff(pk, writer, src, out, diffed, problems, notes, estimated, diff_unit,
                   src_info["counts"]["contexts"])
    if not incl_ok:  # the source says its inclusive values cannot survive: note, not fail
        incl = [p for p in problems[first:] if " inclusive: source " in p or p.startswith("diff: ")]
        if incl:
            problems[:] = [p for p in problems if p not in incl]
            notes.append("%d inclusive values: %s" % (len(incl), why))
    return oinfo


def drop_renamed(writer, rows, what):
    """Removes from diff ROWS each source row the writer had to store under
    another name together with the output row of that name, when their
    values agree; returns how many pairs. Another name: stored_name(), or
    invalid UTF-8 written repaired (diff compares bytes, its JSON shows
    both as the same U+FFFD text)."""
    def key(name):  # a path is its names joined: mapped character by character too
        return stored_name(writer, name)
    added = {r[what]: r for r in rows if r["status"] == "added"}
    gone = []
    for r in rows:
        if r["status"] != "removed":
            continue
        b = added.get(key(r[what]))
        if b is not None and all(mc.close(r.get("a_" + k), b.get("b_" + k))
                                  for k in ("inclusive", "exclusive")):
            gone += [id(r), id(b)]
    rows[:] = [r for r in rows if id(r) not in gone]
    return len(gone) // 2


def rounded_only(row, unit, n_ctx):
    """A "changed" diff row of a writer that rounds each value to an
    integer of its unit (pprof): within half a unit per context."""
    tol = unit * (n_ctx + 1)
    return unit > 0 and row["status"] == "changed" and all(
        mc.close(row.get("a_" + k) or 0, row.get("b_" + k) or 0, tol)
        for k in ("inclusive", "self"))


def check_diff(pk, writer, src, out, metric, problems, notes, estimated=False,
               round_unit=0.0, n_ctx=0):
    """`profkit diff` of the source against its own conversion: nothing
    added, removed or changed beyond rounding (docs/cli.md, diff). Where
    either side is a call graph (a Callgrind source or output) diff
    compares functions and call arcs, what both hold (paths_are:
    call_arcs), and both tables must agree but for rows in a cycle. A call
    graph written as a tree (`estimated`) holds the reconstructed tree's
    arc costs, which convert reports as not written: there the functions'
    self values must agree, their inclusive values and the arcs are noted."""
    r = mc.run([pk, "diff", "--json", "-n", "0", "-m", metric, src, out])
    if r.returncode != 0:
        problems.append("diff fails: %s" % r.stderr.strip()[:200])
        return
    try:
        d = json.loads(r.stdout)
    except ValueError:
        problems.append("diff prints no JSON")
        return
    arcs = d.get("paths_are") == "call_arcs"
    if writer == "callgrind" and not arcs:
        problems.append("diff against a Callgrind output compares calling paths, not call arcs")
    kinds = (("functions", "function"), ("paths", "path"))
    in_cycle = 0
    renamed = 0
    estimates = 0
    rounded = 0
    for key, what in kinds:
        rows = d.get(key, [])
        renamed += drop_renamed(writer, rows, what)
        for row in rows:
            # A function in a call graph's cycle has the call graph's inclusive
            # value (self plus the calls leaving the cycle, KCachegrind's),
            # not the tree's recursion-once one: only its self value compares.
            if (row["status"] == "changed" and row.get("in_cycle") and key == "functions"
                    and mc.close(row["a_exclusive"], row["b_exclusive"],
                                 1e-9 * max(abs(d["a_total"]), abs(row["a_exclusive"])))):
                in_cycle += 1
                continue
            # An arc with an end in a cycle: a tree reconstructed from a call
            # graph holds the cycle as <cycle N>, its arcs through it differ.
            if key == "paths" and arcs and row.get("in_cycle"):
                in_cycle += 1
                continue
            # (an arc may vanish: the tree may give a callee's cost to
            # another of its callers)
            if estimated and arcs and (key == "paths" or (
                    row["status"] == "changed"
                    and mc.close(row["a_exclusive"], row["b_exclusive"],
                                 1e-9 * max(abs(d["a_total"]), abs(row["a_exclusive"]))))):
                estimates += 1
                continue
            if rounded_only(row, round_unit, n_ctx):
                rounded += 1
                continue
            if row["status"] != "same":
                problems.append("diff: %s %r %s (metric %r: inclusive %r -> %r)"
                                % (what, row[what][:120], row["status"], metric,
                                   row["a_inclusive"], row["b_inclusive"]))
    if renamed:
        notes.append("diff: %d names hold bytes the format cannot store (written as U+FFFD: "
                     "docs/cube.md, docs/hpctoolkit-writer.md): matched by the stored "
                     "name, same values" % renamed)
    if estimates:
        notes.append("diff: %d call arcs or functions' inclusive values differ: the output "
                     "holds the tree reconstructed from the call graph, whose per-arc costs are "
                     "estimates (convert: 'per-arc costs are not' written)" % estimates)
    if rounded:
        notes.append("diff: %d functions or paths differ by the rounding of values to "
                     "integers of the unit written (pprof holds integers)" % rounded)
    if in_cycle:
        notes.append("diff: %d functions or call arcs in call-graph cycles (or same-named "
                     "functions calling each other) differ in inclusive value only: a call graph "
                     "counts a cycle member's inclusive as self plus the calls leaving the "
                     "cycle, a tree reconstructed from it can only estimate it, a tree "
                     "counts recursion once per path" % in_cycle)


def check_input(a, src, wdir):
    """One input's cell: converted, read back, compared; with the
    (cell, source info file, output) the reference check takes, or None."""
    name = slug(src, a.corpus)
    cell = {"input": name, "convert": "-", "readback": "-", "reference": "-", "problems": [],
            "lost": []}
    src_info = mc.info(a.profkit, src, source=True)
    if src_info is None:
        cell["problems"].append("profkit cannot read the input")
        cell["convert"] = "FAIL"
        return cell, None
    out = os.path.join(wdir, name + EXT[a.writer])
    rc, lost, other = convert(a.profkit, src, out, a.writer)
    cell["lost"] = lost
    if rc != 0 or other:
        cell["convert"] = "FAIL"
        cell["problems"].append("convert exit %d: %s" % (rc, " | ".join(other)[:400]))
        return cell, None
    cell["convert"] = "ok" if not lost else "ok (%d left out)" % len(lost)
    src_info = held_totals(src_info, lost)
    probs = []
    notes = []
    check_readback(a.profkit, a.writer, src, out, src_info, lost, probs, notes)
    cell["problems"] += probs
    known.apply(a.writer, cell)
    cell["readback"] = "ok" if not cell["problems"] else "FAIL"
    if notes:
        cell.setdefault("known", []).extend(notes)
    if cell.get("known"):
        cell["readback"] = "ok (known)" if not cell["problems"] else "FAIL"
    sinfo_path = out + ".source-info.json"
    with open(sinfo_path, "w") as f:
        json.dump(src_info, f)
    return cell, (cell, sinfo_path, out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profkit", required=True)
    ap.add_argument("--writer", required=True, choices=sorted(EXT))
    ap.add_argument("--work", required=True)
    ap.add_argument("--corpus", default=os.environ.get("PROFKIT_CORPUS"))
    ap.add_argument("--reftools", default=os.environ.get("PROFKIT_REFTOOLS"))
    ap.add_argument("--only", default=None, help="only inputs whose path matches")
    ap.add_argument("--table", default=None, help="also write the table here")
    ap.add_argument("extra", nargs="*", help="the project's own samples")
    a = ap.parse_args()
    os.environ["PROFKIT_NO_SYMBOLS"] = "1"  # hpcrun: output must not depend on this machine
    inputs = [p for p in a.extra if os.path.exists(p)]
    corpus_inputs = find_inputs(a.corpus)
    if not corpus_inputs:
        print("matrix: corpus not found (%r): only the project's own samples" % a.corpus)
    inputs += corpus_inputs
    if a.only:
        inputs = [p for p in inputs if re.search(a.only, p)]
    wdir = os.path.join(a.work, a.writer)
    shutil.rmtree(wdir, ignore_errors=True)
    os.makedirs(wdir)
    mc.use_source_cache(a.work, a.profkit)
    # Two inputs at a time: each step waits on a profkit process.
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(lambda src: check_input(a, src, wdir), inputs))
    cells = [cell for cell, _ in done]
    batch = [job for _, job in done if job]
    ref_script = os.path.join(HERE, "ref_%s.py" % a.writer)
    if batch and os.path.exists(ref_script):
        verdicts = mc.run_reference(ref_script, a.reftools, a.profkit,
                                    [(s, o) for _, s, o in batch], wdir)
        for cell, _, out in batch:
            v = verdicts.get(out)
            if v is None:
                cell["reference"] = "FAIL"
                cell["problems"].append("reference check gave no verdict")
            elif v.get("skipped"):
                cell["reference"] = "skip"
            else:
                refs = known.apply_reference(a.writer, cell,
                                             ["reference: " + p for p in v.get("problems", [])])
                cell["reference"] = "ok" if not refs else "FAIL"
                excused = v.get("problems") and not refs
                cell["reference"] += " (known)" if excused else ""
                cell["problems"] += refs
                cell["readers"] = {k: "ok (known)" if excused else x
                                   for k, x in v.get("readers", {}).items()}
    elif batch:
        for cell, _, _ in batch:
            cell["reference"] = "n/a"
    return mc.report(a.writer, cells, a.table)


if __name__ == "__main__":
    sys.exit(main())
