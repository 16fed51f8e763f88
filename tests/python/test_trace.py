"""tests/python/test_trace.py - Profile.trace() against `profkit trace --json`.

The same selection (locations, window, focus/hide, timeline) must give the
same answer with the same names: every top-level member as an attribute,
every member of `locations` and `functions` as a DataFrame column, the
timeline's spans one row each. Run by tests/python/run.sh (ctest python_api).
"""
import json
import math
import os
import subprocess

import pandas as pd
import pytest

import profkit

SRC = os.environ.get("PROFKIT_SOURCE",
                     os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PK = os.environ.get("PROFKIT_BIN", os.path.join(SRC, "build", "profkit"))
CORPUS = os.environ.get("PROFKIT_CORPUS", os.path.join(SRC, "..", "shared", "corpus"))
PING = os.path.join(CORPUS, "hpctoolkit", "pipit-ping-pong")
LULESH = os.path.join(CORPUS, "hpctoolkit", "hpcviewer-main-issue-233")
CASES = [
    (PING, {}),
    (PING, {"location": "rank=1", "start": "50ms", "end": "200ms", "width": 64}),
    (LULESH, {"location": "rank=3", "start": "1s", "end": "2.5s", "hide": "omp", "width": 200}),
    (LULESH, {"focus": "MPI|mca_", "width": 300, "first": 10, "count": 20}),
]


def cli_trace(path, kw):
    args = [PK, "trace", "--json"]
    for py, flag in (("location", "location"), ("start", "from"), ("end", "to"),
                     ("focus", "focus"), ("hide", "hide")):
        if kw.get(py) is not None:
            args.append("--%s=%s" % (flag, kw[py]))
    if kw.get("width"):
        args += ["--timeline", str(kw["width"])]
    return json.loads(subprocess.run(args + [path], check=True, capture_output=True,
                                     text=True).stdout)


def same(a, b):
    if isinstance(b, float) or isinstance(a, float):
        return math.isclose(a, b, rel_tol=0, abs_tol=0) or a == b
    return a == b


def rows(df):
    """A DataFrame as the JSON's list of objects (NA as None, numpy as Python)."""
    out = []
    for rec in df.astype(object).where(pd.notna(df), None).to_dict("records"):
        out.append({k: (v.item() if hasattr(v, "item") else v) for k, v in rec.items()})
    return out


@pytest.mark.parametrize("path,kw", CASES, ids=["%s-%d" % (os.path.basename(p), i)
                                                for i, (p, _) in enumerate(CASES)])
def test_trace_equals_cli(path, kw):
    if not os.path.isdir(path):
        pytest.skip("corpus database %s not present" % path)
    want = cli_trace(path, kw)
    p = profkit.open(path)
    got = p.trace(**{k: v for k, v in kw.items() if k not in ("first", "count")})
    for k in ("schema", "begin_ns", "end_ns", "complete", "from_ns", "to_ns", "from_offset_ns",
              "to_offset_ns", "selection", "running_ns", "locations_total"):
        assert same(getattr(got, k), want[k]), k
    assert rows(got.locations) == want["locations"]
    assert rows(got.functions) == want["functions"]
    if not kw.get("width"):
        assert got.timeline is None and want["timeline"] is None
        return
    flat = [{"index": r["index"], "location": r["location"], "begin_ns": s[0], "end_ns": s[1],
             "function": s[2]} for r in want["timeline"]["rows"] for s in r["spans"]]
    assert rows(got.timeline) == flat
    assert got.timeline.attrs == {"width": want["timeline"]["width"], "first": 0}
    # a page of rows, as the view asks for them
    if "first" in kw:
        page = p.trace(focus=kw.get("focus"), width=kw["width"], first=kw["first"],
                       count=kw["count"])
        names = [r["location"] for r in want["timeline"]["rows"]][kw["first"]:kw["first"] + kw["count"]]
        assert list(dict.fromkeys(page.timeline["location"])) == [n for n in names if n in
                                                                   set(page.timeline["location"])]
        assert page.timeline.attrs["first"] == kw["first"]


def test_times_read_alike():
    if not os.path.isdir(PING):
        pytest.skip("corpus database not present")
    p = profkit.open(PING)
    a = p.trace(start="0.05s", end="200ms")
    b = p.trace(start=a.begin_ns + 50_000_000, end=a.begin_ns + 200_000_000)
    assert a.from_ns == b.from_ns and a.to_ns == b.to_ns and a.running_ns == b.running_ns
    with pytest.raises(profkit.Error) as e:
        p.trace(start="1.5")  # a fraction needs a unit
    assert "not a time" in str(e.value)
    with pytest.raises(TypeError):
        p.trace(start=1.5)


def test_no_traces_is_not_found():
    p = profkit.open(os.path.join(SRC, "tests", "data", "cube", "sample.cubex"))
    with pytest.raises(profkit.Error) as e:
        p.trace()
    assert e.value.status == "not found" and "no traces" in str(e.value)
