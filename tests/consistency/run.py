#!/usr/bin/env python3
"""tests/consistency/run.py - one question, one answer, in every front end.

For every corpus profile (the conversion matrix's list) and the project's
samples, each answer is taken from the CLI's --json, from the view's API
(`profkit view --api`, the server's own dispatcher, no socket) and from the
Python package, and the three must agree: the same rows, values equal to
1e-12 relative. The answers: flat with two metrics, the tree to depth 3,
callers and callees of the three hottest functions and of one pattern, one
function on every location (threads), a diff against the profile's own
JSON conversion, and annotate of the hottest function with a source line.

  run.py --profkit BIN --work DIR [--corpus DIR] [--shard I/N] [INPUT...]
Needs the Python package built (PYTHONPATH) with NumPy and pandas.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "matrix"))
from matrix import find_inputs  # noqa: E402

import profkit  # noqa: E402

REL = 1e-12


class Mismatch(Exception):
    pass


def same_number(a, b, where):
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)) or \
            (isinstance(b, float) and math.isnan(b)):
        if not ((a is None or a != a) and (b is None or b != b)):
            raise Mismatch("%s: %r vs %r" % (where, a, b))
        return
    if not math.isclose(a, b, rel_tol=REL, abs_tol=1e-300):
        raise Mismatch("%s: %r vs %r" % (where, a, b))


def same_rows(a, b, where):
    """Lists of tuples (a name, then numbers) equal, in order."""
    if len(a) != len(b):
        raise Mismatch("%s: %d rows vs %d" % (where, len(a), len(b)))
    for i, (x, y) in enumerate(zip(a, b)):
        if x[0] != y[0]:
            raise Mismatch("%s row %d: %r vs %r" % (where, i, x[0], y[0]))
        for k, (u, v) in enumerate(zip(x[1:], y[1:])):
            same_number(u, v, "%s row %d (%s) value %d" % (where, i, x[0], k))


def nodes_of(root, depth=None):
    """Nested nodes as (path of names, inclusive, self), depth first."""
    out, stack = [], [(root, (), 0)] if root else []
    while stack:
        n, path, d = stack.pop()
        p = path + (n["name"],)
        out.append((" > ".join(p), n["inclusive"], n["self"]))
        if depth is None or d < depth:
            stack.extend((c, p, d + 1) for c in reversed(n.get("children") or []))
    return out


class Runner:
    def __init__(self, pk, work):
        self.pk, self.work, self.checks, self.problems = pk, work, 0, []

    def cli(self, *args):
        r = subprocess.run([self.pk, *args], capture_output=True, text=True)
        return json.loads(r.stdout) if r.returncode == 0 else None

    def view(self, path, *routes, base=None):
        args = [self.pk, "view", path] + (["--base", base] if base else [])
        for r in routes:
            args += ["--api", r]
        r = subprocess.run(args, capture_output=True, text=True)
        return [json.loads(line) if line.startswith("{") else None
                for line in r.stdout.splitlines()]

    def check(self, what, fn):
        self.checks += 1
        try:
            fn()
        except Mismatch as e:
            self.problems.append("%s: %s" % (what, e))


def enc(s):
    from urllib.parse import quote
    return quote(s, safe="")


def flat_rows_doc(d, n):
    return [(r["name"],) + tuple(v[k] for v in r["values"][:n] for k in ("self", "inclusive"))
            for r in d["rows"]]


def flat_rows_df(df, names):
    cols = [c for m in names for c in (m + ":self", m + ":inclusive")] if len(names) > 1 \
        else ["self", "inclusive"]
    return [tuple([r[0]] + list(r[1:])) for r in df[["name"] + cols].itertuples(index=False)]


def callers_rows(doc):
    out = []
    for f in doc["functions"]:
        out.append((f["name"], f["inclusive"], f["self"]))
        out.extend((f["name"] + " <- " + a["name"], a["inclusive"]) for a in f["arcs"])
        out.extend((f["name"] + " : " + p, i, s) for p, i, s in nodes_of(f["root"]))
    return out


def callers_rows_df(df):
    """Python's callers rows: each block's function (its root row)."""
    roots = df[df["parent"] < 0]
    return [(r.function, r.inclusive, r.self) for r in roots.itertuples()]


def metrics_of(info):
    """The default metric and another one with a non-zero total."""
    ms = [m["name"] for m in info["metrics"] if m.get("program_total")]
    return ms[:2] if len(ms) >= 2 else ms * 2 if ms else []


def check_profile(rn, path, slug):
    info = rn.cli("info", "--json", path)
    if not info or not metrics_of(info):
        return
    try:
        p = profkit.open(path)
    except profkit.Error:
        return
    m1, m2 = metrics_of(info)
    spec = m1 + "," + m2 if m1 != m2 else m1
    names = [m1, m2] if m1 != m2 else [m1]
    flat = rn.cli("flat", "--json", "-n", "0", "-m", spec, path)
    if flat is None:
        return
    fns = [r["name"] for r in flat["rows"] if not r["name"].startswith("<")][:3]
    # the tree node for node (chains shown), and drawn as the text draws it
    routes = ["flat?metrics=%s&top=0" % enc(spec), "tree?chains=show&depth=3&metric=%s" % enc(m1),
              "tree?depth=3&metric=%s" % enc(m1)]
    for f in fns:
        routes += ["callers?function=%s&metric=%s" % (enc(f), enc(m1)),
                   "callees?function=%s&metric=%s" % (enc(f), enc(m1)),
                   "locations?function=%s&metric=%s" % (enc(f), enc(m1))]
    views = rn.view(path, *routes)
    views += [None] * (len(routes) - len(views))
    by = dict(zip(routes, views))
    # flat with two metrics
    rn.check(slug + " flat view", lambda: same_rows(flat_rows_doc(flat, 2),
                                                    flat_rows_doc(by[routes[0]], 2), "flat"))
    rn.check(slug + " flat python", lambda: same_rows(
        flat_rows_doc(flat, 2), flat_rows_df(p.flat(spec, top=0), names), "flat"))
    # the tree to depth 3
    tree = rn.cli("tree", "--json", "-t", "0", "-d", "3", "-m", m1, path)
    if tree:
        view_tree = by[routes[1]]
        rn.check(slug + " tree view", lambda: same_tree(tree, view_tree))
        t = p.tree(m1, depth=3)
        shown = t[t["shown"]]
        rn.check(slug + " tree python", lambda: same_rows(
            sorted((n, i, s) for n, i, s in nodes_of(tree["root"])),
            sorted(tree_paths(shown)), "tree"))
        rn.check(slug + " tree view folded", lambda: same_lifted(p.tree(m1), by[routes[2]]))
    check_functions(rn, p, path, slug, m1, fns, by)
    check_pattern(rn, p, path, slug, m1, fns)
    check_diff(rn, p, path, slug, m1)
    check_annotate(rn, p, path, slug, m1, fns)


def same_tree(cli, view):
    """The view's nodes are the CLI's; all of them unless the view left
    children out (it sends at most 500 per node)."""
    want, got = nodes_of(cli["root"]), nodes_of(view["root"], 3)
    cut = any(n.get("more") for n in walk(view["root"]))
    if not cut:
        return same_rows(want, got, "tree")
    index = {}
    for row in want:
        index.setdefault(row[0], []).append(row)
    for row in got:
        if not any(same_values(row, w) for w in index.get(row[0], [])):
            raise Mismatch("tree: %r is no node of the CLI's" % (row,))


def same_lifted(df, view):
    """The view draws folded runs as `profkit tree` does (Python's whole
    tree, the same query, says which frames fold): no folded node in its
    document, each node's parent there the nearest unfolded frame above it,
    its `via` the run between them as the text names it."""
    folded, parents, names = df["folded"].to_dict(), df["parent"].to_dict(), df["name"].to_dict()
    stack = [(view["root"], None)] if view and view.get("root") else []
    while stack:
        n, up = stack.pop()
        i = n["node"]
        if folded.get(i, True):
            raise Mismatch("tree: the view draws node %r, folded or unknown" % i)
        run, at = [], parents[i]
        while at >= 0 and folded[at]:
            run.append(names[at])
            at = parents[at]
        if up is not None and at != up:
            raise Mismatch("tree: node %r drawn below %r, not %r" % (i, up, at))
        run.reverse()
        want = {"frames": len(run), "names": run[:2] + run[-2:] if len(run) > 4 else run,
                "skipped": max(0, len(run) - 4)} if run else None
        if n.get("via") != want:
            raise Mismatch("tree: node %r via %r, want %r" % (i, n.get("via"), want))
        stack.extend((c, i) for c in n.get("children") or [])


def same_values(a, b):
    try:
        same_rows([a], [b], "")
        return True
    except Mismatch:
        return False


def walk(root):
    stack = [root] if root else []
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.get("children") or [])


def tree_paths(df):
    """(path of names, inclusive, self) of a tree DataFrame's rows."""
    names, parents = df["name"].to_dict(), df["parent"].to_dict()
    out = []
    for node, r in df.iterrows():
        path, at = [], node
        while at >= 0:
            path.append(names[at])
            at = parents[at]
        out.append((" > ".join(reversed(path)), r["inclusive"], r["self"]))
    return out


def check_functions(rn, p, path, slug, m1, fns, by):
    for f in fns:
        for view in ("callers", "callees"):
            doc = rn.cli(view, "--json", "-t", "0.1", "-d", "8", "-n", "10", "-m", m1, path, f)
            got = by["%s?function=%s&metric=%s" % (view, enc(f), enc(m1))]
            if doc is None or got is None:
                rn.check(slug + " " + view + " " + f, lambda: same_number(
                    doc is None, got is None, "an answer in both"))
                continue
            rn.check("%s %s %s view" % (slug, view, f), lambda: same_rows(
                callers_rows(doc), callers_rows(got), view))
            df = p.callers(f, metric=m1, callees=view == "callees", threshold=0.1, depth=8,
                           top=10)
            rn.check("%s %s %s python" % (slug, view, f), lambda: same_rows(
                [r for r in callers_rows(doc) if " <- " not in r[0] and " : " not in r[0]],
                callers_rows_df(df), view))
        doc = rn.cli("threads", "--json", "-m", m1, "--function", f, path)
        got = by["locations?function=%s&metric=%s" % (enc(f), enc(m1))]
        if doc and got:
            rows = lambda d: [(str(r["index"]), r["inclusive"], r["self"]) for r in d["locations"]]
            rn.check("%s threads %s view" % (slug, f), lambda: same_rows(rows(doc), rows(got), "threads"))
            t = p.threads(m1, function=f)
            rn.check("%s threads %s python" % (slug, f), lambda: same_rows(
                rows(doc), [(str(r.index), r.inclusive, r.self) for r in t.itertuples()], "threads"))


def check_pattern(rn, p, path, slug, m1, fns):
    if not fns:
        return
    pattern = "^" + fns[0][:3].replace("\\", "\\\\").replace(".", "\\.").replace("(", "\\(") \
        .replace("[", "\\[").replace("*", "\\*").replace("+", "\\+").replace("?", "\\?")
    doc = rn.cli("callers", "--json", "-n", "0", "-m", m1, path, pattern)
    if doc is None:
        return
    places = [(f["name"], f["module"], f["file"]) for f in doc["functions"]]
    rn.check(slug + " regex blocks distinct", lambda: same_number(
        len(places), len(set(places)), "one block per function"))
    df = p.callers(pattern, metric=m1, top=0)
    rn.check(slug + " regex python", lambda: same_rows(
        [r for r in callers_rows(doc) if " <- " not in r[0] and " : " not in r[0]],
        callers_rows_df(df), "callers regex"))


def check_diff(rn, p, path, slug, m1):
    out = os.path.join(rn.work, slug + ".json")
    r = subprocess.run([rn.pk, "convert", "--force", "--to", "json", "-o", out, path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return
    doc = rn.cli("diff", "--json", "-n", "0", "-m", m1, path, out)
    if doc is None:
        return
    got = rn.view(path, "diff?top=0&metric=%s" % enc(m1), base=out)[0]
    rows = lambda d, t: [(r["name"], r["a_self"], r["b_self"], r["a_inclusive"], r["b_inclusive"])
                         for r in d[t]]
    for t in ("functions", "paths"):
        rn.check("%s diff %s view" % (slug, t), lambda: same_rows(rows(doc, t), rows(got, t), t))
        df = profkit.diff(p, profkit.open(out), metric=m1, table=t, top=0)
        rn.check("%s diff %s python" % (slug, t), lambda: same_rows(
            rows(doc, t), [(r.name, r.a_self, r.b_self, r.a_inclusive, r.b_inclusive)
                           for r in df.itertuples()], t))


def check_annotate(rn, p, path, slug, m1, fns):
    for f in fns:
        doc = rn.cli("annotate", "--json", "-m", m1, path, f)
        if not doc or not doc["files"]:
            continue
        got = rn.view(path, "source?function=%s&metric=%s" % (enc(f), enc(m1)))[0]
        lines = lambda d: [("%s:%d" % (fl["file"], ln["line"]), ln.get("self"), ln.get("inclusive"))
                           for fl in d["files"] for ln in fl["lines"]]
        rn.check("%s annotate %s view" % (slug, f), lambda: same_rows(lines(doc), lines(got), "annotate"))
        df = p.annotate(f, metric=m1)
        rn.check("%s annotate %s python" % (slug, f), lambda: same_rows(
            lines(doc), [("%s:%d" % (r.file, r.line), r.self, r.inclusive)
                         for r in df.itertuples()], "annotate"))
        return  # the hottest function with a known line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profkit", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--corpus")
    ap.add_argument("--shard", default="0/1")
    ap.add_argument("inputs", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    corpus = os.environ.get("PROFKIT_CORPUS") or a.corpus
    inputs = list(a.inputs) + (find_inputs(os.path.abspath(corpus)) if corpus else [])
    if not corpus or not os.path.isdir(corpus):
        print("consistency: no corpus at %r: the project's samples only" % corpus)
    i, n = (int(x) for x in a.shard.split("/"))
    rn, t0 = Runner(a.profkit, a.work), time.time()
    for k, path in enumerate(inputs):
        if k % n != i:
            continue
        slug = os.path.relpath(path, corpus) if corpus and path.startswith(os.path.abspath(corpus)) \
            else os.path.basename(path)
        check_profile(rn, path, slug.replace("/", "_"))
    print("consistency, shard %s: %d checks, %d problems, %.0f s" % (a.shard, rn.checks,
                                                                    len(rn.problems), time.time() - t0))
    for pr in rn.problems[:50]:
        print("PROBLEM", pr)
    return 1 if rn.problems else 0


if __name__ == "__main__":
    sys.exit(main())
