"""profkit - HPCToolkit, Cube and Callgrind profiles as NumPy arrays and pandas
DataFrames, read by profkit's C library (docs/python.md).

    >>> import profkit
    >>> p = profkit.open("hpctoolkit-database")
    >>> p.flat().head()
    >>> ctx, loc, val = p.values("CPUTIME (sec)", locations="all")

The C extension (_profkit) hands over plain lists and arrays; this module
turns them into DataFrames. Per-location values come as arrays over the
library's own buffers (no copy into Python); they keep the profile alive.
"""
import json
from collections import namedtuple

import numpy as np
import pandas as pd

from . import _profkit

__all__ = ["Error", "Profile", "SparseValues", "open", "diff", "to_hatchet", "version"]

# What every answer's JSON head carries (docs/query.md); a DataFrame of an
# answer has them in .attrs, under the same names.
_HEAD = ("schema", "metric", "unit", "source", "reconstructed", "complete", "incomplete", "stat",
         "location", "location_count", "total", "notes", "metrics")


def _attrs(df, doc, *more):
    """The answer's head (and `more` members) as the DataFrame's attrs."""
    for k in _HEAD + more:
        if k in doc:
            df.attrs[k] = doc[k]
    return df


def _options(options):
    """Keyword arguments as the library's query options (docs/query.md);
    None leaves an option at its default."""
    return {k: v for k, v in options.items() if v is not None}


def _value_columns(df, doc, rows, prefix="", keys=("self", "inclusive")):
    """A column per metric and value, "NAME:self", "NAME:inclusive" (a=A's,
    b=B's in a diff), when the answer has several metrics."""
    metrics = doc.get("metrics") or []
    if len(metrics) < 2:
        return df
    for c, m in enumerate(metrics):
        for k in keys:
            df["%s:%s%s" % (m["name"], prefix, k)] = [r["values"][c][prefix + k] for r in rows]
    return df

Error = _profkit.Error
"""A library error: str(e) is the library's message (file, structure, byte
offset); e.status is its status name ("format error", "i/o error", ...)."""

KINDS = ["root", "entry", "function", "loop", "line", "instruction", "unknown"]
RELATIONS = ["none", "lexical", "call", "inlined-call", "unknown"]

SparseValues = namedtuple("SparseValues", ["context", "location", "value"])
SparseValues.__doc__ = """A metric's stored values in coordinate form: value[i]
is the value at context[i] (p.contexts index) and location[i] (p.locations
index); (context, location) pairs absent are 0. The arrays are read-only views
of memory the C library allocated; they keep the profile alive."""


def version():
    """The C library's version ("MAJOR.MINOR.PATCH")."""
    return _profkit.version()


def _distinct(names):
    """The distinct names, sorted, and each name's index among them: as
    np.unique(..., return_inverse=True) gives them, by hashing instead of
    sorting every name (a third of dataframe()'s time was np.unique), then
    sorting only the distinct ones."""
    inverse, uniq = pd.factorize(np.asarray(names, dtype=object), sort=False)
    order = np.asarray(sorted(range(len(uniq)), key=uniq.__getitem__), dtype=np.intp)
    rank = np.empty(len(uniq), dtype=np.intp)
    rank[order] = np.arange(len(uniq), dtype=np.intp)
    return np.asarray(uniq, dtype=object)[order], rank[inverse]


def _name_dtype(uniq):
    """The categorical dtype of distinct names: pandas checks that the
    categories are distinct by hashing them all (as long as the rest of
    dataframe() on issue-233); the library's (or _distinct()'s) are, so
    its fast path takes them as they are where this pandas has it."""
    fast = getattr(pd.CategoricalDtype, "_from_fastpath", None)
    if fast is not None:
        try:
            return fast(pd.Index(uniq, dtype=object), False)
        except TypeError:  # another signature: the checked way
            pass
    return pd.CategoricalDtype(uniq)


def _categorical(codes, names):
    """Codes (-1 = none) over a list of possibly repeated names."""
    uniq, inverse = _distinct(names) \
        if len(names) else (np.array([], dtype=object), np.array([], dtype=np.int64))
    codes = np.asarray(codes)
    mapped = np.where(codes >= 0, inverse[np.clip(codes, 0, None)] if len(inverse) else -1, -1)
    return pd.Categorical.from_codes(mapped, categories=uniq)


def _codes(indexes, n):
    """MultiIndex codes in the integer type pandas keeps for n levels (so it
    takes them as they are): int8 below 2^7 levels, int16, int32, int64."""
    for t in (np.int8, np.int16, np.int32):
        if n < np.iinfo(t).max:
            return indexes.astype(t)
    return indexes.astype(np.int64)


def _union(names, parts, n_locations):
    """Metrics with values at different (context, location) pairs: one row
    per pair any of them has, 0 where a metric has none."""
    n_loc = np.uint64(max(n_locations, 1))
    keys = [q.context.astype(np.uint64) * n_loc + q.location for q in parts]
    all_keys = np.unique(np.concatenate(keys)) if keys else np.array([], np.uint64)
    columns = {}
    for name, key, part in zip(names, keys, parts):
        col = np.zeros(len(all_keys))
        col[np.searchsorted(all_keys, key)] = part.value
        columns[name] = col
    return (all_keys // n_loc).astype(np.uint32), (all_keys % n_loc).astype(np.uint32), columns


class Profile:
    """One open profile. Open with profkit.open(path, **options)."""

    def __init__(self, path, **options):
        self._p = _profkit.Profile(path, **options)
        self._cache = {}

    # -- dimensions -------------------------------------------------------

    @property
    def info(self):
        """What was opened: format, version, title, completeness (a dict)."""
        return self._p.info()

    @property
    def metrics(self):
        """DataFrame of the metrics: name, unit, description, parent, combine,
        unsigned, scopes (the scopes stored per location), total (the
        program total, as `profkit info` shows it). Indexed by metric index."""
        if "metrics" not in self._cache:
            self._cache["metrics"] = pd.DataFrame(
                self._p.metrics(), columns=["index", "name", "unit", "description", "parent",
                                            "combine", "unsigned", "scopes",
                                            "total"]).set_index("index")
        return self._cache["metrics"]

    @property
    def locations(self):
        """DataFrame of the locations (threads, ranks, GPU streams): name,
        summary, the identifier tuple (ids: ((kind, logical, physical), ...))
        and one column per identifier kind (rank, thread, node...) with its
        logical id, values and contexts stored. Indexed by location index."""
        if "locations" not in self._cache:
            rows = self._p.locations()
            df = pd.DataFrame(rows, columns=["index", "name", "summary", "ids", "values",
                                             "contexts"]).set_index("index")
            by_kind = {}  # kind -> logical id per location, one pass over the tuples
            for i, r in enumerate(rows):
                for kind, logical, _ in r["ids"]:
                    k = (kind or "id").lower()
                    if k not in by_kind:
                        by_kind[k] = [None] * len(rows)
                    col = by_kind[k]
                    if col[i] is None:
                        col[i] = logical
            for k, col in by_kind.items():
                df[k] = pd.array(col, dtype="Int64")
            self._cache["locations"] = df
        return self._cache["locations"]

    @property
    def contexts(self):
        """DataFrame of the calling-context tree, indexed by context index
        (what values() and dataframe() use): id (the file's own id), parent
        (-1 for roots), depth, kind, relation, name (display name), function,
        module, file, line (0 if unknown)."""
        if "contexts" not in self._cache:
            c = self._p.contexts()
            self._cache["contexts"] = pd.DataFrame({
                "id": c["id"],
                "parent": c["parent"],
                "depth": c["depth"],
                "kind": pd.Categorical.from_codes(c["kind"].astype(np.int64), KINDS),
                "relation": pd.Categorical.from_codes(c["relation"].astype(np.int64),
                                                      RELATIONS),
                "name": c["name"],
                "function": _categorical(c["function"], c["functions"]),
                "module": _categorical(c["module"], c["modules"]),
                "file": _categorical(c["file"], c["files"]),
                "line": c["line"],
            })
            self._cache["contexts"].index.name = "context"
        return self._cache["contexts"]

    # -- values -----------------------------------------------------------

    def values(self, metric=None, scope="inclusive", locations=None, stat="sum", threads=0):
        """A metric's values (metric: name or index; default: the metric the CLI shows, pk_metric_default()).

        locations=None: a NumPy array with one value per context (p.contexts
        index), combined over every thread/rank as the metric combines (sum,
        min or max; `stat` = "mean", "min", "max" or "stddev" for other
        statistics). A selector string ("rank=3,thread=0", "#5") combines only
        the locations it names. locations="all": every location's stored
        values as SparseValues(context, location, value), arrays over the
        library's memory (no copy). A scope the file does not store is derived
        from the other along the tree (docs/model.md); with "all", in each
        location (then the arrays are NumPy's own, ordered by location, then
        context index)."""
        if isinstance(locations, str) and locations == "all":
            try:
                return SparseValues(*self._p.coo(metric, scope, threads))
            except Error:
                derived = self._derived(metric, scope)
                if derived is None:
                    raise
                return derived
        return self._p.context_values(metric, scope, locations, stat)

    # Deriving a scope per location walks every context once per location:
    # affordable for the profiles that need it (Cube stores time inclusive
    # only: tens of locations, thousands of contexts), not for 100,000
    # locations (HPCToolkit stores both scopes: nothing to derive).
    DERIVE_BUDGET = 200_000_000

    def _derived(self, metric, scope):
        """A scope the file does not store per location, derived in each
        location along the tree (docs/model.md), as SparseValues ordered by
        location, then context index; None when the metric has neither
        scope."""
        info = self._p.metrics(totals=False)
        m = metric if isinstance(metric, (int, np.integer)) else next(
            (i for i, d in enumerate(info) if d["name"] == metric), None)
        if m is None or not {"inclusive", "exclusive"} & set(info[m]["scopes"]):
            return None
        summary = self.locations["summary"].to_numpy(dtype=bool)
        locs = np.flatnonzero(~summary)
        n_ctx = self._p.counts()["contexts"]
        if len(locs) * n_ctx > self.DERIVE_BUDGET:
            err = Error(f"metric '{info[m]['name']}' stores no {scope} values per location, "
                        f"and deriving them for {len(locs)} locations x {n_ctx} contexts "
                        "would walk too many contexts: ask for the stored scope")
            err.status = "unsupported"
            raise err
        ctx, loc, val = [], [], []
        for li in locs:
            v = self._p.context_values(m, scope, f"#{li}", "sum")
            nz = np.flatnonzero(v)
            ctx.append(nz.astype(np.uint32))
            loc.append(np.full(len(nz), li, dtype=np.uint32))
            val.append(v[nz])
        cat = (lambda a, t: np.concatenate(a) if a else np.array([], dtype=t))
        return SparseValues(cat(ctx, np.uint32), cat(loc, np.uint32), cat(val, np.float64))

    def dataframe(self, metrics=None, scope="inclusive"):
        """Per-location values in Hatchet's shape: rows indexed by (context,
        location) (p.contexts and p.locations indexes), the context's name,
        then one column per metric
        (default: every metric stored in that scope, and every sum-combined
        one stored in the other, derived per location); a
        (context, location) pair no metric has a value for has no row."""
        if metrics is None:  # names and scopes only: no pass over the values for totals
            kind = "inclusive" if scope == "inclusive" else "exclusive"
            metrics = [m["name"] for m in self._p.metrics(totals=False)
                       if kind in m["scopes"] or (m["combine"] == "sum" and {
                           "inclusive", "exclusive"} & set(m["scopes"]))]
        elif isinstance(metrics, (str, int)):
            metrics = [metrics]
        names = [self._p.metrics(totals=False)[m]["name"] if isinstance(m, (int, np.integer))
                 else m for m in metrics]
        counts = self._p.counts()
        # The common case: every metric has values at the same places. Each
        # metric's values go into one (metrics x rows) block as they come and
        # its export is let go, so the frame costs its values and its codes,
        # not a second copy (pandas takes a 2-D block as it is).
        block, first, parts = None, None, []
        for i, m in enumerate(metrics):
            q = self.values(m, scope, locations="all")
            if first is None:
                first = q
                block = np.empty((len(metrics), len(q.value)))
            elif parts or not (np.array_equal(q.context, first.context) and
                               np.array_equal(q.location, first.location)):
                parts.append(q)  # a different shape: the union below
                continue
            block[i] = q.value
            parts_done = i + 1
            del q
        if parts or first is None:
            done = [self.values(m, scope, locations="all") for m in metrics[:parts_done]] \
                if first is not None else []
            context, location, columns = _union(names, done + parts, counts["locations"])
            frame = dict(columns)
        else:
            # codes as the small integers pandas keeps them in, so that it
            # takes them without a copy and the export can go
            context = _codes(first.context, counts["contexts"])
            location = _codes(first.location, counts["locations"])
            first = None
            frame = block.T
        # levels are the context and location indexes themselves: codes
        # given as they are, with no hashing of millions of pairs
        index = pd.MultiIndex(levels=[np.arange(counts["contexts"], dtype=np.uint32),
                                      np.arange(counts["locations"], dtype=np.uint32)],
                              codes=[context, location], names=["context", "location"],
                              verify_integrity=False)
        if isinstance(frame, dict):
            df = pd.DataFrame(frame, index=index, copy=False)
        else:
            df = pd.DataFrame(frame, index=index, columns=names, copy=False)
        # each row's context's display name, as Hatchet's frames have it: a
        # categorical (one string per distinct name, codes per row)
        # (the names alone: the whole contexts frame is made only if asked)
        # (the library's distinct names and each context's code among them)
        if "contexts" in self._cache:
            uniq, inverse = _distinct(self._cache["contexts"]["name"])
        else:
            names, inverse = self._p.context_name_codes()
            uniq = np.asarray(names, dtype=object)
        # codes already in the integer type pandas keeps: taken as they are
        codes = _codes(inverse, len(uniq))[np.asarray(context, np.intp)]
        df.insert(0, "name", pd.Categorical.from_codes(codes, dtype=_name_dtype(uniq)))
        return df

    # -- answers (the library's query layer: the CLI's --json, the same) --

    def _answer(self, kind, **options):
        return json.loads(self._p.answer(kind, _options(options)))

    def tree(self, metric=None, level="functions", **options):
        """The calling-context tree as `profkit tree` answers it: one row per
        node (level "functions": loops, lines and instructions folded into
        their function; "loops"; "lines": every context), parents first,
        with the JSON document's fields: node, parent (-1 for the root),
        depth, name, kind, id (the file's context id), inclusive, self (and
        exclusive, the same), hot (on the hot path), shown (what the text
        shows under threshold/depth), folded (a frame that only passes calls
        on, in a run the text draws as one row: the loader frames above
        main; chains="show" folds none), calls (a call-count metric). Several
        metrics ("A,B,r=A/B") add NAME:inclusive and NAME:self columns.
        Options: location, stat, focus, hide, threshold, depth, chains."""
        d = self._p.tree_answer(_options(dict(options, metric=metric, level=level)))
        df = pd.DataFrame({"node": np.arange(len(d["name"])), "parent": d["parent"].astype(np.int64),
                           "depth": d["depth"].astype(np.int64), "name": d["name"],
                           "kind": pd.Categorical(d["kind"], categories=KINDS),
                           "id": d["id"].astype(np.int64),
                           "inclusive": d["inclusive"][0], "self": d["self"][0],
                           "exclusive": d["self"][0], "hot": d["hot"].astype(bool),
                           "shown": d["shown"].astype(bool), "folded": d["folded"].astype(bool),
                           "calls": d["calls"]})
        if len(d["columns"]) > 1:
            for c, name in enumerate(d["columns"]):
                df[name + ":inclusive"], df[name + ":self"] = d["inclusive"][c], d["self"][c]
        df = df.set_index("node", drop=False)
        df.index.name = None
        for k in ("total", "level", "source", "hidden"):
            df.attrs[k] = d[k]
        return df

    def flat(self, metric=None, by="function", **options):
        """The flat profile as `profkit flat --json` answers it, one row per
        function (by="file", "module", "line"), ranked: name, module, file,
        line, differs and differs_by (what tells a row from a same-named
        one: its module, file or line), self (and exclusive, the same),
        inclusive (recursion counted once), calls (a call graph's, or a
        call-count metric's) or contexts.
        metric may list several and derived metrics ("Ir,Dr,miss=D1mr/Dr"):
        NAME:self and NAME:inclusive columns follow. Options: location, stat,
        focus, hide, threshold, top, sort, search, callgraph ("tree" to use
        the calling-context tree even where a call graph answers exactly)."""
        doc = self._answer("flat", metric=metric, by=by, **options)
        rows = doc["rows"]
        cols = ["name", "module", "file", "line", "differs", "differs_by", "self", "exclusive",
                "inclusive", "calls", "contexts"]
        df = pd.DataFrame({k: [r.get(k) for r in rows] for k in cols if rows and k in rows[0]},
                          columns=[k for k in cols if not rows or k in rows[0]])
        _value_columns(df, doc, rows)
        return _attrs(df, doc, "by", "sorted_by", "hidden")

    def callers(self, name, metric=None, callees=False, **options):
        """Who calls the functions `name` names (exactly, else as a regular
        expression), as `profkit callers --json` answers: one block per
        function, each with its own values. One row per node: block (its
        number: functions of one name in different files stay apart),
        function (the block's), node, parent (-1 for the block's root),
        depth, name, inclusive, self, calls; from a calling-context tree the
        tree around the function (callers' callers up to the entry; with
        callees=True everything below it), from a call graph the function
        and its direct callers (callees) with the calls between them.
        Options: location, stat, focus, hide, threshold (of each function's
        inclusive value), top (functions), depth, callgraph."""
        doc = self._answer("callees" if callees else "callers", metric=metric, function=name,
                           **options)
        out = []
        for b, f in enumerate(doc["functions"]):
            if f["root"] is None:  # a call graph's list
                out.append((b, f["name"], 0, -1, 0, f["name"], f["inclusive"], f["self"],
                            f["called"]))
                out.extend((b, f["name"], k + 1, 0, 1, a["name"], a["inclusive"], a["self"],
                            a["calls"]) for k, a in enumerate(f["arcs"]))
                continue
            stack, first = [(f["root"], -1, 0)], len(out)
            while stack:
                node, parent, depth = stack.pop()
                me = len(out) - first
                out.append((b, f["name"], me, parent, depth, node["name"], node["inclusive"],
                            node["self"], node.get("calls")))
                stack.extend((c, me, depth + 1) for c in reversed(node["children"]))
        df = pd.DataFrame(out, columns=["block", "function", "node", "parent", "depth", "name",
                                        "inclusive", "self", "calls"])
        return _attrs(df, doc, "view", "pattern", "hidden_functions")

    def threads(self, metric=None, function=None, **options):
        """Each location's total of the metric (with function=NAME: that
        function's inclusive and self value on each location), largest
        first, as `profkit threads --json` answers: index (p.locations),
        name, total, inclusive, self, and the location's identifier columns
        (rank, thread...). The spread (count, sum, min, max, mean, stddev,
        imbalance) is in .attrs. Options: location."""
        doc = self._answer("threads", metric=metric, function=function, **options)
        rows = doc["locations"]
        df = pd.DataFrame({k: [r[k] for r in rows] for k in ("index", "name", "total",
                                                             "inclusive", "self")})
        ids = self.locations.drop(columns=["name", "summary", "ids", "values", "contexts"])
        df = df.join(ids, on="index")
        return _attrs(df, doc, "function", "count", "sum", "min", "max", "mean", "stddev",
                      "imbalance")

    def annotate(self, target=None, metric=None, **options):
        """Source lines with their costs, as `profkit annotate --json`
        answers: target is a function (exact, else a pattern) or a source
        file; None gives the top functions. One row per listed line:
        heading, file, source (the file read), line, self, inclusive, calls,
        text. Functions without a known line are in .attrs["missing"].
        Options: context, dirs (':'-separated), threshold, top, location,
        stat, focus, hide, callgraph."""
        doc = self._answer("annotate", metric=metric, function=target, **options)
        out = [(f["heading"], f["file"], f["source"], ln["line"], ln.get("self"),
                ln.get("inclusive"), ln.get("calls"), ln.get("text"))
               for f in doc["files"] for ln in f["lines"]]
        df = pd.DataFrame(out, columns=["heading", "file", "source", "line", "self", "inclusive",
                                        "calls", "text"])
        return _attrs(df, doc, "target", "missing")

    def trace(self, location=None, start=None, end=None, focus=None, hide=None, width=0,
              first=0, count=0):
        """What the traces say for a selection, as `profkit trace --json` says
        it (same members, docs/json.md): location a selector ("rank=3",
        "#5"); start and end the window [start, end) as "1.5s"/"250ms" after
        the traces' start or int absolute nanoseconds; focus/hide regular
        expressions on the functions of a sample's call path; width > 0 adds
        the view's timeline of rows [first, first + count) (count 0: all).
        Returns a TraceAnswer (profkit._trace) with DataFrames locations,
        functions and timeline. Raises profkit.Error (status "not found"
        for a profile without traces or a window holding nothing)."""
        from ._trace import answer, time_text
        return answer(self._p.trace(location, time_text(start), time_text(end), focus, hide,
                                    int(width), int(first), int(count)))

    def write(self, path, format, force=False, strict=False):
        """Write the profile as format "hpctoolkit", "cube", "callgrind" or
        "json" at path. Returns what the format could not hold, as (item,
        reason) pairs (strict=True raises instead of leaving anything out)."""
        return self._p.write(str(path), format, force, strict)

    def __repr__(self):
        i = self.info
        return (f"<profkit.Profile {i['format']} {i['path']!r}: {len(self.contexts)} contexts, "
                f"{len(self.metrics)} metrics, {len(self.locations)} locations>")


def open(path, **options):  # noqa: A001 (the package's entry point)
    """Open the profile at path (database directory or file; format detected).

    Options: threads (workers for big files; 0 = automatic), max_memory
    (bytes a reader may allocate for what the input implies; 0 = default),
    tree_threshold (Callgrind: reconstruct the tree only down to this fraction
    of the total), traces (read traces, default True), by_function (Callgrind:
    self costs per function only), symbols (hpcrun: read binaries' symbols).
    Raises profkit.Error with the library's message."""
    return Profile(str(path), **options)


def diff(a, b, metric=None, table="functions", **options):
    """What changed from a (the base) to b, as `profkit diff --json`
    answers: table="functions" (largest change of the self value first) or
    "paths" (calling paths, largest change of the inclusive value first);
    one row per changed function or path: name, status (changed, added,
    removed), in_cycle, folded (only its callees changed), a_self, b_self,
    a_inclusive, b_inclusive (b's in a's unit), and the library's changes:
    change (b less a of the table's value: self per function, inclusive
    per path), change_percent (of |a|; NaN for a new row), inclusive_change
    (b_inclusive - a_inclusive; also as delta) and change_share (that in
    percent of a's total). Several metrics ("Ir,Dr") add NAME:a_self... columns.
    Totals, b's metric and any_change in .attrs. Options: location, stat,
    focus, hide, threshold, top (0: every changed row)."""
    if table not in ("functions", "paths"):
        raise ValueError("table must be 'functions' or 'paths', not %r" % (table,))
    doc = json.loads(_profkit.diff_answer(a._p, b._p, _options(dict(options, metric=metric))))
    rows = doc[table]
    keys = ["name", "status", "in_cycle", "folded", "a_self", "b_self", "a_inclusive",
            "b_inclusive", "change", "change_percent", "inclusive_change", "change_share"]
    df = pd.DataFrame({k: [r.get(k) for r in rows] for k in keys}, columns=keys)
    df["delta"] = df["inclusive_change"]  # its name before the library gave it
    _value_columns(df, doc, rows, "", ("a_self", "b_self", "a_inclusive", "b_inclusive"))
    return _attrs(df, doc, "a_total", "b_total", "b_metric", "b_scale", "any_change",
                  "hidden_" + table, "folded_" + table)


def to_hatchet(p, metrics=None):
    """A Hatchet GraphFrame of the profile's calling-context tree with the
    metrics' inclusive and exclusive values summed over threads (Hatchet's
    'name' and 'time'-style columns). Needs hatchet importable."""
    from ._hatchet import graphframe
    return graphframe(p, metrics)
