#!/usr/bin/env python3
"""Every --json output of every command is a valid JSON document (issue 25).

Runs each command that takes --json (info, tree, flat, callers, callees,
threads, diff, trace, check, dump, merge) with its common options
(thresholds that hide rows, --depth, --location, --stat, a second metric,
--by, --focus/--hide) on every profile of the shared corpus, the project's
samples and hostile inputs made here (tests/json/fixtures.py: names that are
not UTF-8 or hold control characters, NaN and infinite values, a 100 000-deep
calling-context tree), and checks each output:

- a command that succeeds prints exactly one document (JSON lines for check
  and dump) that Python's json module parses strictly: UTF-8 only, no NaN or
  Infinity (parse_constant), no control characters in strings, no duplicate
  member names, nothing after the document;
- it has the `schema` of its command and the members docs/json.md documents
  for it, with the documented types, and the metric's name wherever values
  of a metric are printed;
- a command that fails prints nothing on stdout (no partial document) and a
  reason on stderr; dump, documented to print the records it read before
  damage, prints only whole lines;
- names come out as the input's bytes decoded with errors="replace".

  outputs.py --profkit BIN --mkdb BIN --work DIR [--corpus DIR] [--shard I/N] [INPUT...]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "matrix"))
import fixtures  # noqa: E402
from matrix import big_tree, find_inputs  # noqa: E402

DEEP = 100000
# under ASan/UBSan (make asan-check) a finding may exit 1 like a clean error
SANITIZER = re.compile(rb"ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:")
NUM, INT, STR, BOOL = "num", "int", "str", "bool"


# ---- strict parsing ----

class Invalid(Exception):
    pass


def _no_constant(name):
    raise Invalid("non-JSON constant %s" % name)


def _no_duplicates(pairs):
    d = dict(pairs)  # called once per object: the 100 000-deep trees have millions
    if len(d) != len(pairs):
        keys = [k for k, _ in pairs]
        raise Invalid("duplicate member names %r" % sorted(k for k in keys if keys.count(k) > 1))
    return d


def strict_loads(data):
    try:
        text = data.decode("utf-8")  # strict: ill-formed UTF-8 raises
    except UnicodeDecodeError as e:
        raise Invalid("not UTF-8: %s" % e)
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)
    except ValueError as e:
        raise Invalid(str(e))


# ---- the documented schemas (docs/json.md) ----

def _type_ok(v, t):
    nullable = t.endswith("?")
    t = t.rstrip("?")
    if v is None:
        return nullable
    if t == NUM:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == INT:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0
    if t == STR:
        return isinstance(v, str)
    if t == BOOL:
        return isinstance(v, bool)
    if t == "list":
        return isinstance(v, list)
    if t == "obj":
        return isinstance(v, dict)
    raise ValueError(t)


def members(obj, where, spec):
    if not isinstance(obj, dict):
        raise Invalid("%s: not an object" % where)
    for key, t in spec.items():
        if key not in obj:
            raise Invalid("%s: no member %r" % (where, key))
        if not _type_ok(obj[key], t):
            raise Invalid("%s.%s: %r is not %s" % (where, key, obj[key], t))


# What json.loads makes of each documented type, exactly (bool is no number)
_PY = {NUM: (int, float), INT: (int,), STR: (str,), BOOL: (bool,), "list": (list,), "obj": (dict,)}
_MISSING = object()


def compiled(spec):
    """SPEC as (key, python types, nullable, non-negative) for fits()."""
    return [(k, _PY[t.rstrip("?")], t.endswith("?"), t.rstrip("?") == INT)
            for k, t in spec.items()]


def fits(obj, comp):
    """members() without the message, for the many rows and nodes: True
    when OBJ has every member of the compiled spec with its type; when it
    does not, members() is called to say why."""
    if type(obj) is not dict:
        return False
    for key, types, nullable, nonneg in comp:
        v = obj.get(key, _MISSING)
        if v is None:
            if not nullable:
                return False
        elif type(v) not in types or (nonneg and v < 0):
            return False  # (_MISSING is no type of a spec)
    return True


def each(doc, key, spec, where=None):
    comp = compiled(spec)
    for i, item in enumerate(doc[key]):
        if not fits(item, comp):
            members(item, "%s[%d]" % (where or key, i), spec)


def walk_tree(root, spec, where):
    """Every node of a nested tree, iteratively (it may be 100 000 deep);
    returns (nodes, depth)."""
    if root is None:
        return 0, 0
    stack, n, deepest = [(root, 0)], 0, 0
    comp = compiled(spec)
    while stack:
        node, d = stack.pop()
        if not fits(node, comp):
            members(node, "%s (depth %d)" % (where, d), spec)
        n += 1
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in node["children"])
    return n, deepest


TREE_NODE = {"name": STR, "kind": STR, "id": INT, "relation": STR, "inclusive": "num?",
             "self": "num?", "exclusive": "num?", "hot": BOOL, "children": "list"}


def check_info(d):
    members(d, "$", {"path": STR, "format": STR, "version": STR, "title": "str?",
                     "description": "str?", "complete": BOOL, "reconstructed": BOOL,
                     "files": "list", "counts": "obj", "trace_range": "obj?", "values_from": STR,
                     "metrics": "list",
                     "diagnostics": "obj"})
    each(d, "files", {"name": STR, "present": BOOL, "loaded": BOOL, "size": INT, "version": "str?"})
    members(d["counts"], "$.counts", {k: INT for k in (
        "contexts", "contexts_unlisted", "metrics", "scopes", "columns", "locations",
        "summary_locations", "functions", "modules", "files", "trace_lines", "trace_samples")})
    each(d, "metrics", {"name": STR, "unit": "str?", "program_total": "num?", "scopes": "list",
                        "summaries": "list", "parent": "str?", "children": "list",
                        "exclusive_total": "num?"})
    for i, m in enumerate(d["metrics"]):
        each(m, "scopes", {"scope": STR, "kind": STR, "total": "num?"}, "$.metrics[%d].scopes" % i)
        each(m, "summaries", {"scope": STR, "kind": STR, "formula": "str?", "combine": STR,
                              "stat": STR, "total": "num?"}, "$.metrics[%d].summaries" % i)
    members(d["diagnostics"], "$.diagnostics", {"errors": INT, "warnings": INT, "notes": INT})
    if d["values_from"] not in ("summary", "profiles"):
        raise Invalid("$.values_from: %r" % d["values_from"])
    completeness(d)


def completeness(d):
    """Every view says whether the profile is whole, and if not why."""
    members(d, "$", {"complete": BOOL})
    if not d["complete"]:
        members(d, "$", {"incomplete": "list"})
        each(d, "incomplete", {"code": STR, "message": STR})


def check_head(d):
    """What every answer of the query layer carries (docs/query.md)."""
    members(d, "$", {"metric": STR, "unit": "str?", "source": STR, "reconstructed": BOOL,
                     "stat": STR, "location": "str?", "location_count": INT, "total": "num?",
                     "notes": "list", "metrics": "list"})
    completeness(d)
    each(d, "notes", {"code": STR, "text": STR})
    each(d, "metrics", {"name": STR, "unit": "str?", "expression": "str?", "combine": STR,
                        "total": "num?", "percent": BOOL})


def check_tree(d):
    check_head(d)
    members(d, "$", {"root": "obj?", "hidden": INT, "level": STR})
    return walk_tree(d["root"], TREE_NODE, "$.root")


def check_callers(d):
    """callers/callees: one object per matching function, with its direct
    callers (callees) and, from a tree, the tree around it."""
    check_head(d)
    members(d, "$", {"view": STR, "pattern": STR, "functions": "list", "hidden_functions": INT})
    each(d, "functions", {"name": STR, "self": "num?", "inclusive": "num?", "called": "num?",
                          "cycle": INT, "arcs": "list", "hidden_arcs": INT, "root": "obj?"})
    n = deepest = 0
    for i, f in enumerate(d["functions"]):
        each(f, "arcs", {"name": STR, "calls": "num?", "inclusive": "num?", "self": "num?",
                         "cycle": INT}, "$.functions[%d].arcs" % i)
        k, depth = walk_tree(f["root"], TREE_NODE, "$.functions[%d].root" % i)
        n, deepest = n + k, max(deepest, depth)
    return n, deepest


def check_flat(d):
    check_head(d)
    members(d, "$", {"by": STR, "rows": "list", "hidden": INT})
    # from a call graph, how often each group was called; else how many contexts name it
    count = {"calls": "num?"} if d["source"] == "callgraph" else {"contexts": INT}
    each(d, "rows", dict({"name": STR, "self": "num?", "exclusive": "num?", "inclusive": "num?"},
                         **count))


def check_threads(d):
    members(d, "$", {"metric": STR, "count": INT, "sum": "num?", "min": "num?", "max": "num?",
                     "mean": "num?", "stddev": "num?", "imbalance": "num?", "locations": "list"})
    each(d, "locations", {"index": INT, "location": STR, "total": "num?"})


def check_diff(d):
    members(d, "$", {"metric": STR, "a_total": "num?", "b_total": "num?", "functions": "list",
                     "paths": "list"})
    # one convention: "name", "self", "inclusive" (docs/json.md); diff/1's
    # first keys ("function", "path", "a_exclusive") stay as aliases
    each(d, "functions", {"name": STR, "function": STR, "status": STR, "a_inclusive": "num?",
                          "b_inclusive": "num?", "a_self": "num?", "b_self": "num?",
                          "a_exclusive": "num?", "b_exclusive": "num?"})
    each(d, "paths", {"name": STR, "path": STR, "status": STR, "a_inclusive": "num?",
                      "b_inclusive": "num?", "a_self": "num?", "b_self": "num?"})
    for r in d["functions"]:
        if r["name"] != r["function"] or r["a_self"] != r["a_exclusive"]:
            raise Invalid("functions: alias keys differ in %r" % r)


def check_trace(d):
    members(d, "$", {"begin_ns": INT, "end_ns": INT, "locations": "list", "functions": "list"})
    each(d, "locations", {"location": STR, "samples": INT, "begin_ns": INT, "end_ns": INT,
                          "period_ns": INT, "event_based": BOOL, "running_ns": "num?",
                          "idle_ns": "num?", "gaps": INT, "gap_ns": "num?",
                          "largest_gap_ns": "num?"})
    each(d, "functions", {"name": STR, "time_ns": "num?"})


def check_merge(d):
    members(d, "$", {"inputs": "list", "mean": BOOL, "contexts": INT, "locations": INT,
                     "output": "obj"})
    members(d["output"], "$.output", {"path": STR, "format": STR, "files": INT, "bytes": INT,
                                      "values": INT, "left_out": INT, "skipped_traces": INT})


CHECKS = {"info": check_info, "tree": check_tree, "callers": check_callers,
          "callees": check_callers, "flat": check_flat, "threads": check_threads,
          "diff": check_diff, "trace": check_trace, "merge": check_merge}
OTHER_SCHEMAS = {}
SCHEMAS = {"info": "profkit.info/1", "tree": "profkit.tree/1", "callers": "profkit.callers/1",
           "callees": "profkit.callers/1", "flat": "profkit.flat/1",
           "threads": "profkit.threads/1", "diff": "profkit.diff/1", "trace": "profkit.trace/1",
           "merge": "profkit.merge/1", "check": "profkit.check/1", "dump": "profkit.dump/1"}


def parse_lines(lines):
    """Each line strictly parsed as one JSON object. A dump is hundreds of
    thousands of lines: they are parsed as one array (one call into the C
    parser), and line by line only when that fails or the count differs
    (a line holding two values, or none), to say which line is wrong."""
    try:
        docs = strict_loads(b"[" + b",".join(lines) + b"]")
        if len(docs) == len(lines) and all(type(d) is dict for d in docs):
            return docs
    except Invalid:
        pass
    docs = []
    for i, line in enumerate(lines):
        try:
            d = strict_loads(line)
        except Invalid as e:
            raise Invalid("line %d: %s" % (i + 1, e))
        if type(d) is not dict:
            raise Invalid("line %d: not an object" % (i + 1))
        docs.append(d)
    return docs


DUMP_LINE = {"file": "str?", "offset": "int?", "section": "str?", "type": STR, "fields": "obj"}


def check_lines(cmd, lines, rc):
    """check and dump: JSON lines, each a document of the schema."""
    docs = parse_lines(lines)
    for i, d in enumerate(docs):
        if d.get("schema") != SCHEMAS[cmd]:
            raise Invalid("line %d: schema %r" % (i + 1, d.get("schema")))
    if cmd == "dump":
        comp = compiled(DUMP_LINE)
        for i, d in enumerate(docs):
            if not fits(d, comp):
                members(d, "line %d" % (i + 1), DUMP_LINE)
        return docs
    if not docs or "summary" not in docs[-1]:
        raise Invalid("no summary line at the end")
    members(docs[-1], "summary line", {"summary": STR, "errors": INT, "warnings": INT,
                                        "notes": INT})
    counts = {"error": 0, "warning": 0, "note": 0}
    for i, d in enumerate(docs[:-1]):
        members(d, "line %d" % (i + 1), {"severity": STR, "code": STR, "file": "str?",
                                          "structure": "str?", "offset": "int?", "message": STR})
        counts[d["severity"]] += 1
    s = docs[-1]
    if (s["errors"], s["warnings"], s["notes"]) != (counts["error"], counts["warning"], counts["note"]):
        raise Invalid("summary counts %r differ from the lines %r" % (s, counts))
    if (rc == 0) != (s["errors"] + s["warnings"] == 0):
        raise Invalid("exit %d with %d errors and %d warnings" % (rc, s["errors"], s["warnings"]))
    return docs


# ---- running ----

class Runner:
    def __init__(self, pk, work):
        self.pk, self.work = pk, work
        self.problems, self.counts, self.seconds = [], {}, {}
        self.deepest = 0
        self.hidden_deep = 0

    def problem(self, what, msg):
        self.problems.append("%s: %s" % (what, msg))

    def run(self, cmd, args, expect_ok=False):
        """Run `profkit CMD ARGS`; returns the document(s) when it printed
        some, None when it failed cleanly. Problems are collected."""
        argv = [self.pk, cmd] + args
        what = " ".join(argv[1:])
        t = time.time()
        r = subprocess.run(argv, capture_output=True, timeout=600)
        self.seconds[cmd] = self.seconds.get(cmd, 0) + time.time() - t
        c = self.counts.setdefault(cmd, [0, 0])
        lines_cmd = cmd in ("check", "dump")
        # check exits 1 on warnings, with its lines; without them it failed
        failed = r.returncode != 0 and not (cmd == "check" and r.stdout)
        if r.returncode not in (0, 1) or SANITIZER.search(r.stderr):
            self.problem(what, "exit %d: %s" % (r.returncode, r.stderr[:300]))
            return None
        if failed:
            c[1] += 1
            if expect_ok:
                self.problem(what, "failed: %s" % r.stderr[:300])
            if not r.stderr.strip():
                self.problem(what, "exit 1 without a reason on stderr")
            if r.stdout and not (cmd == "dump" and r.stdout.endswith(b"\n")):
                self.problem(what, "exit 1 after printing %d bytes (a partial document)"
                             % len(r.stdout))
                return None
            if not r.stdout:
                return None
        try:
            if lines_cmd:
                out = check_lines(cmd, r.stdout.splitlines(), r.returncode)
            else:
                out = strict_loads(r.stdout)
                check = OTHER_SCHEMAS.get((cmd, out.get("schema")))
                if not check and out.get("schema") != SCHEMAS[cmd]:
                    raise Invalid("schema %r, not %r" % (out.get("schema"), SCHEMAS[cmd]))
                shape = (check or CHECKS[cmd])(out)
                if shape:
                    self.deepest = max(self.deepest, shape[1])
                    if cmd == "tree" and out["hidden"] and shape[1] > 32:
                        self.hidden_deep += 1
        except Invalid as e:
            self.problem(what, "invalid output: %s" % e)
            return None
        if not failed:
            c[0] += 1
        return out


def first(seq, default=None):
    return next(iter(seq), default)


def dump_paths(path):
    """What `dump` reads: a file, a v4 database; a measurement directory's
    files one by one."""
    if os.path.isdir(path) and path.endswith(".m"):
        return sorted(os.path.join(path, f) for f in os.listdir(path)
                      if f.endswith((".hpcrun", ".hpctrace")))
    return [path]


def analyse(rn, path, other, slug):
    """Every command and option set on one profile; `other` is another
    profile for diff, or None."""
    info = rn.run("info", ["--json", path])
    metrics = [m["name"] for m in info["metrics"]] if info else []
    # a profile with values answers the views by default (bug-empty has none)
    usable = bool(info) and any(m["scopes"] for m in info["metrics"])
    m1 = first(metrics)
    m2 = metrics[1] if len(metrics) > 1 else None
    threads = rn.run("threads", ["--json", path])
    loc = "#%d" % threads["locations"][0]["index"] if threads and threads["locations"] else None
    flat = rn.run("flat", ["--json", path], expect_ok=usable)
    fn = flat["rows"][0]["name"] if flat and flat["rows"] else None
    # The whole tree of a 667 000-context profile is 460 MB of JSON, too
    # much for Python to hold in a test: big trees are shown 8 deep (the
    # 100 000-deep fixture covers depth, -t 0.1 the hidden rows).
    big = bool(info) and big_tree(info)
    all_rows = ["-t", "0", "-d", "8"] if big else ["-t", "0"]
    views = [[], all_rows, ["-t", "0.1"], ["-t", "0", "-d", "2"], ["--stat", "mean"],
             ["--stat", "max"] + all_rows]
    views += [["--location", loc]] if loc else []
    views += [["-m", m2]] if m2 else []
    word = re.match(r"[A-Za-z0-9_]+", fn or "")
    tree_views = views + ([["--focus", word.group(0)], ["--hide", "^main$"]] if word else [])
    for v in tree_views:
        rn.run("tree", ["--json"] + v + [path], expect_ok=usable and v == [])
    flat_views = [["-n", "0", "-t", "0"], ["-t", "5"], ["--by", "file"], ["--by", "module"],
                  ["--by", "line", "-n", "0"], ["--stat", "max"]]
    flat_views += [["-m", m1 + ":inclusive"]] if m1 else []
    flat_views += [["--location", loc]] if loc else []
    flat_views += [["-m", m2]] if m2 else []
    for v in flat_views:
        rn.run("flat", ["--json"] + v + [path])
    if fn:
        for cmd in ("callers", "callees"):
            for v in ([], all_rows, ["-d", "2"]) + ((["--location", loc],) if loc else ()):
                rn.run(cmd, ["--json"] + v + [path, fn], expect_ok=not v)
    for v in (["-n", "0"],) + ((["--location", loc],) if loc else ()) + ((["-m", m2],) if m2 else ()):
        rn.run("threads", ["--json"] + v + [path])
    rn.run("diff", ["--json", path, path], expect_ok=usable)
    if other:
        rn.run("diff", ["--json", path, other])
        rn.run("diff", ["--json", "-n", "0", "-t", "0", other, path])
    if info and info["counts"]["trace_lines"]:
        rn.run("trace", ["--json", path], expect_ok=True)
        rn.run("trace", ["--json", "-n", "0", path])
    else:
        rn.run("trace", ["--json", path])
    rn.run("check", ["--json", path], expect_ok=bool(info))
    for f in dump_paths(path):
        rn.run("dump", ["--json", f])
    out = os.path.join(rn.work, "merged-%s.json" % slug)
    if info and not big:
        rn.run("merge", ["--json", "-f", path, path, "-o", out])
        if os.path.exists(out):
            os.remove(out)
    return info


def decoded(names):
    return sorted(n.decode("utf-8", "replace") for n in names)


def made(rn, work, name, data):
    """Write a fixture and run every command on it; returns its path."""
    path = os.path.join(work, name)
    with open(path, "wb") as f:
        f.write(data)
    analyse(rn, path, None, name)
    return path


def names_decoded(rn, path, names, by="function"):
    """flat --by BY lists exactly the names, decoded with replacement."""
    flat = rn.run("flat", ["--json", "--by", by, "-n", "0", "-t", "0", path], expect_ok=True)
    if flat and sorted(set(r["name"] for r in flat["rows"])) != sorted(set(decoded(names))):
        rn.problem("flat --by %s of %s" % (by, path), "names not the input decoded with replacement")


def hostile(rn, work):
    """Names, NaN/inf values, a Callgrind file: every command's output
    parses, and names are the input's bytes decoded with replacement."""
    doc, names = fixtures.hostile_names()
    path = made(rn, work, "hostile.json", doc)
    names_decoded(rn, path, names)
    names_decoded(rn, path, fixtures.HOSTILE[:6], "file")
    tree = rn.run("tree", ["--json", "-t", "0", path], expect_ok=True)
    if tree:
        kids = tree["root"]["children"]
        if sorted(k["name"] for k in kids) != decoded(names):
            rn.problem("tree of " + path, "node names are not the names decoded with replacement")
        if tree["total"] is not None or not any(k["exclusive"] is None for k in kids):
            rn.problem("tree of " + path, "NaN/infinite values not written as null")
    info = rn.run("info", ["--json", path], expect_ok=True)
    if info and info["metrics"][0]["name"] != b"t\x1bime \xff(sec)".decode("utf-8", "replace"):
        rn.problem("info of " + path, "metric name not decoded with replacement")
    data, fns = fixtures.hostile_callgrind()
    names_decoded(rn, made(rn, work, "hostile.callgrind", data), fns)


def via_once(rn, path, root):
    """A folded run is named once, by the frame below it (docs/json.md):
    the chain's frames fold into its last, whose `via` counts them all,
    and no folded frame names the run above it (each did once, which made
    the tree's JSON quadratic in the chain's length)."""
    stack, runs = [root], []
    while stack:
        node = stack.pop()
        if node["via"] is not None:
            runs.append((node["name"], node["folded"], node["via"]["frames"]))
        stack.extend(node["children"])
    if len(runs) != 1 or runs[0][1] or runs[0][2] < DEEP - 2:
        rn.problem(path, "tree -t 1: %d runs named (first: %r), want one, by the frame below "
                   "the chain" % (len(runs), runs[:3]))


def deep(rn, work):
    """A 100 000-deep chain: tree and frames nest that deep, validly."""
    path = os.path.join(work, "deep.json")
    doc, leaves = fixtures.deep_chain(DEEP)
    with open(path, "wb") as f:
        f.write(doc)
    rn.run("tree", ["--json", "-t", "0", path], expect_ok=True)
    tree = rn.run("tree", ["--json", "-t", "1", path], expect_ok=True)
    if tree and (tree["hidden"] != leaves or walk_tree(tree["root"], TREE_NODE, "$")[1] != DEEP):
        rn.problem(path, "tree -t 1: %d hidden, not the %d leaves" % (tree["hidden"], leaves))
    if tree:
        via_once(rn, path, tree["root"])
    rn.run("tree", ["--json", "-t", "0", "-d", "40000", path], expect_ok=True)
    rn.run("callees", ["--json", "-t", "0", path, "f0"], expect_ok=True)
    rn.run("callers", ["--json", "-t", "0", path, "f%d" % (DEEP - 1)], expect_ok=True)
    for cmd, args in (("flat", ["-n", "0"]), ("threads", []), ("info", []), ("check", [])):
        rn.run(cmd, ["--json"] + args + [path], expect_ok=True)
    rn.run("diff", ["--json", "-n", "0", path, path], expect_ok=True)
    # root, entry-less chain: DEEP functions under the root
    if rn.deepest < DEEP:
        rn.problem(path, "the deepest tree checked is %d levels, not %d" % (rn.deepest, DEEP))


# CPU seconds (profkit's and this script's) of the jobs that cost most,
# measured on the shared corpus (2026-11-28, all 4 shards 66 s): the
# 100 000-deep fixture's documents are most of it (Python's parser and the
# walk, 100 000 levels); a Callgrind file's cost is the calling-context
# tree rebuilt from its call graph by every run, which its size does not
# tell. Other jobs are estimated from their size.
HEAVY = {"deep": 17.4, "hpcviewer-main-issue-233": 5.4,
         "python3-heavy-instr-jumps-nocompress.callgrind.out": 4.4, "L2_DCM_negative.cubex": 2.3,
         "python3-nocompress.callgrind.out": 1.6, "googlecode-issue34.callgrind": 1.6,
         "alloc_objects.pb.gz": 1.6, "xapian.callgrind": 1.3, "googlecode-issue98.callgrind": 1.1,
         "selinux.callgrind": 0.9, "bool.callgrind": 0.8}


def weight(job):
    """About how many CPU seconds a job takes: HEAVY's, else ~0.4 s for
    the ~40 runs of profkit and 1 s per 8 MB of a binary profile (a
    Callgrind byte costs about 8: every run rebuilds its calling contexts
    from the call graph)."""
    kind, path = job
    if os.path.basename(path.rstrip("/")) in HEAVY:
        return HEAVY[os.path.basename(path.rstrip("/"))]
    if kind == "fixture":
        return 2.0
    if os.path.isdir(path):
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)
    else:
        size = os.path.getsize(path) if os.path.exists(path) else 0
        size *= 1 if path.endswith(".cubex") else 8
    return 0.4 + size / 8e6


def share(jobs, shard, shards):
    """This shard's jobs: the heaviest first, each to the lightest shard."""
    load = [0.0] * shards
    mine = []
    for job in sorted(jobs, key=lambda j: (-weight(j), j)):
        s = load.index(min(load))
        load[s] += weight(job)
        if s == shard:
            mine.append(job)
    return mine


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profkit", required=True)
    ap.add_argument("--mkdb")
    ap.add_argument("--work", required=True)
    ap.add_argument("--corpus")
    ap.add_argument("--shard", default="0/1")
    ap.add_argument("inputs", nargs="*")
    a = ap.parse_args()
    shard, shards = (int(x) for x in a.shard.split("/"))
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    inputs = list(a.inputs)
    if a.mkdb:
        db = os.path.join(a.work, "sample.d")
        subprocess.run([a.mkdb, db], check=True, capture_output=True)
        inputs.insert(0, db)
    a.corpus = os.environ.get("PROFKIT_CORPUS") or a.corpus  # the suite's override
    corpus = find_inputs(a.corpus) if a.corpus else []
    if not corpus:
        print("json outputs: no corpus at %r: the project's samples and fixtures only" % a.corpus)
    inputs += corpus
    rn = Runner(os.path.abspath(a.profkit), a.work)
    jobs = [("fixture", "hostile"), ("fixture", "deep")] + [("input", p) for p in inputs]
    mine = share(jobs, shard, shards)
    t0 = time.time()
    for i, (kind, what) in enumerate(mine):
        if kind == "fixture":
            (hostile if what == "hostile" else deep)(rn, a.work)
            continue
        other = next((p for p in inputs[inputs.index(what) + 1:]
                      if os.path.dirname(p) == os.path.dirname(what)), None)
        analyse(rn, what, other, "%d" % i)
    print("json outputs, shard %d/%d: %d inputs in %.0f s" % (shard, shards, len(mine),
                                                               time.time() - t0))
    print("%-8s %6s %8s %8s" % ("command", "valid", "failed", "seconds"))
    for cmd in sorted(rn.counts):
        ok, bad = rn.counts[cmd]
        print("%-8s %6d %8d %8.1f" % (cmd, ok, bad, rn.seconds[cmd]))
    print("deepest tree: %d levels; trees with hidden rows deeper than 32 levels: %d"
          % (rn.deepest, rn.hidden_deep))
    for p in rn.problems:
        print("PROBLEM " + p)
    if rn.problems:
        print("%d problems" % len(rn.problems))
        return 1
    return 0


if __name__ == "__main__":
    # the deep documents nest 200 000 levels: json's parser recurses
    sys.setrecursionlimit(10 ** 7)
    threading.stack_size(1 << 30)
    result = []
    t = threading.Thread(target=lambda: result.append(main()))
    t.start()
    t.join()
    sys.exit(result[0] if result else 2)
