"""profkit._trace - Profile.trace(): the library's trace answer as pandas
DataFrames whose columns and attributes carry the member names of its JSON
document, profkit.trace/1 (docs/json.md), so `profkit trace --json`, the
view's /api/trace and Python read alike."""
import pandas as pd

# the document's top-level members, kept as attributes of the answer
SCALARS = ("schema", "begin_ns", "end_ns", "complete", "from_ns", "to_ns", "from_offset_ns",
           "to_offset_ns", "selection", "running_ns", "locations_total")
LOCATION_COLUMNS = ("location", "index", "samples", "begin_ns", "end_ns", "period_ns",
                    "event_based", "running_ns", "idle_ns", "gaps", "gap_ns", "largest_gap_ns",
                    "window_samples", "covered_ns", "filtered_ns")
FUNCTION_COLUMNS = ("name", "time_ns", "id", "inclusive_ns", "module", "file", "line")


def time_text(t):
    """A time as the library reads it: a str ("1.5s", "250ms" after the
    traces' start) as it is, an int as absolute nanoseconds."""
    if t is None or isinstance(t, str):
        return t
    if isinstance(t, bool) or not isinstance(t, int) or t < 0:
        raise TypeError("a time is a str such as '1.5s' (after the traces' start) or an int "
                        "of absolute nanoseconds, not %r" % (t,))
    return str(t)


class TraceAnswer:
    """What a profile's traces say for a selection (Profile.trace()).

    Attributes: the document's members begin_ns, end_ns (the traces' range;
    begin_ns is where relative times count from), from_ns, to_ns (the
    window, absolute ns) and from_offset_ns, to_offset_ns (after begin_ns),
    selection, running_ns, locations_total, complete; and DataFrames:
    locations (one row per selected location, most running time first),
    functions (self time time_ns and inclusive_ns per function, most self
    time first; row i has id i) and timeline (one row per span: the row's
    location index and name, begin_ns, end_ns, function = a functions row
    or -1 idle, -2 gap, -3 left out by focus/hide; None unless width was
    given)."""

    def __init__(self, d):
        for k in SCALARS:
            setattr(self, k, d[k])
        self.locations = pd.DataFrame({k: d["locations"][k] for k in LOCATION_COLUMNS})
        self.locations["index"] = pd.array(self.locations["index"], dtype="Int64")
        self.functions = pd.DataFrame({k: d["functions"][k] for k in FUNCTION_COLUMNS})
        t = d["timeline"]
        self.timeline = None
        if t is not None:
            rows, spans = t["rows"], t["spans"]
            index = pd.array(rows["index"], dtype="Int64")
            self.timeline = pd.DataFrame({
                "index": index.take(spans["row"]) if len(spans["row"]) else index[:0],
                "location": pd.Series(rows["location"], dtype=object).take(spans["row"]).to_numpy(),
                "begin_ns": spans["begin_ns"], "end_ns": spans["end_ns"],
                "function": spans["function"]})
            self.timeline.attrs.update(width=t["width"], first=t["first"])

    def __repr__(self):
        return ("<profkit.TraceAnswer %d locations, %d functions, window %d-%d ns after the start>"
                % (len(self.locations), len(self.functions), self.from_offset_ns,
                   self.to_offset_ns))


def answer(columns):
    return TraceAnswer(columns)
