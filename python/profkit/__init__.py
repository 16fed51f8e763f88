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
from collections import namedtuple

import numpy as np
import pandas as pd

from . import _profkit

__all__ = ["Error", "Profile", "SparseValues", "open", "diff", "to_hatchet", "version"]

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


def _categorical(codes, names):
    """Codes (-1 = none) over a list of possibly repeated names."""
    uniq, inverse = np.unique(np.array(names, dtype=object).astype(str), return_inverse=True) \
        if names else (np.array([], dtype=object), np.array([], dtype=np.int64))
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
        location) (p.contexts and p.locations indexes), one column per metric
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
            return pd.DataFrame(frame, index=index, copy=False)
        return pd.DataFrame(frame, index=index, columns=names, copy=False)

    def tree(self, metric=None):
        """The calling-context tree (p.contexts) with the metric's inclusive
        and exclusive values summed over every thread/rank."""
        df = self.contexts.copy()
        df["inclusive"] = self.values(metric, "inclusive")
        try:
            df["exclusive"] = self.values(metric, "exclusive")
        except Error:  # a min/max metric stored inclusive has none
            df["exclusive"] = np.nan
        return df

    def flat(self, metric=None, by="function"):
        """The flat profile of a metric per function (by="file", "module",
        "line"): exclusive and inclusive values (recursion counted once),
        summed over every thread/rank, sorted by exclusive value, as `profkit
        flat` gives it. A profile with a call graph (Callgrind) answers from
        it exactly, with a calls column; others have a contexts column."""
        d = self._p.flat(metric, by)
        count = "calls" if "calls" in d else "contexts"
        if count == "contexts":
            d[count] = d[count].astype(np.int64)
        df = pd.DataFrame({by: d["name"], "exclusive": d["exclusive"],
                           "inclusive": d["inclusive"], count: d[count]})
        if not d["has_exclusive"]:
            df = df.sort_values("inclusive", ascending=False, kind="stable",
                                ignore_index=True)
        df.attrs["source"] = d["source"]
        return df

    def callers(self, name, metric=None, callees=False):
        """The bottom-up tree above the function `name` (exact, else a POSIX
        regular expression): row 0 is the function, its children its callers
        and so on, each with the function's inclusive and self values on that
        path. callees=True gives the top-down tree below it instead."""
        d = self._p.callers(name, metric, callees)
        df = pd.DataFrame({"name": d["name"], "parent": d["parent"].astype(np.int64),
                           "depth": d["depth"].astype(np.int64), "inclusive": d["inclusive"],
                           "self": d["self"]})
        df.index.name = "frame"
        return df

    def threads(self, metric=None):
        """Each non-summary location's program total of the metric, with the
        location's identifier columns (p.locations)."""
        totals = self._p.threads(metric)
        df = self.locations.drop(columns=["values", "contexts"]).copy()
        df["total"] = totals
        return df[~df["summary"]].drop(columns=["summary"])

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


def diff(a, b, metric=None, metric_b=None):
    """Compare two profiles function by function (matched by name): A's and
    B's inclusive and self values of the metric (by name or index; metric_b
    defaults to metric) and whether they are the same up to rounding. Rows
    sorted by the absolute change of the inclusive value."""
    d = _profkit.diff(a._p, b._p, metric, metric if metric_b is None else metric_b)
    df = pd.DataFrame({"function": d["name"], "a_inclusive": d["a_inclusive"],
                       "b_inclusive": d["b_inclusive"], "a_self": d["a_self"],
                       "b_self": d["b_self"], "same": d["same"].astype(bool)})
    df["delta"] = df["b_inclusive"] - df["a_inclusive"]
    return df


def to_hatchet(p, metrics=None):
    """A Hatchet GraphFrame of the profile's calling-context tree with the
    metrics' inclusive and exclusive values summed over threads (Hatchet's
    'name' and 'time'-style columns). Needs hatchet importable."""
    from ._hatchet import graphframe
    return graphframe(p, metrics)
