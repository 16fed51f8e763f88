"""tests/python/test_profkit.py - the Python package against the CLI.

Every corpus profile (the conversion matrix's list: HPCToolkit databases of
every layout, hpcrun measurements, Cube, Callgrind) and the project's own
samples are opened with profkit.open(); what Python gets must equal what the
CLI's JSON says (`profkit info`, `flat`, `tree`), which is the C API's answer.
Run by tests/python/run.sh (ctest python_api); env PROFKIT_BIN,
PROFKIT_CORPUS, PROFKIT_SOURCE say where things are.
"""
import gc
import json
import math
import os
import shutil
import subprocess
import sys
import weakref

import numpy as np
import pytest

import profkit

SRC = os.environ.get("PROFKIT_SOURCE",
                     os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PK = os.environ.get("PROFKIT_BIN", os.path.join(SRC, "build", "profkit"))
CORPUS = os.environ.get("PROFKIT_CORPUS", os.path.join(SRC, "..", "shared", "corpus"))
sys.path.insert(0, os.path.join(SRC, "tests", "matrix"))
from matrix import big_tree, find_inputs  # noqa: E402  (the matrix's corpus layout)

SAMPLES = sorted(os.path.join(SRC, "tests", "data", d, f)
                 for d in ("callgrind", "cube") for f in os.listdir(os.path.join(SRC, "tests",
                                                                                 "data", d)))
INPUTS = find_inputs(os.path.abspath(CORPUS)) + SAMPLES
IDS = [os.path.relpath(p, CORPUS) if p.startswith(os.path.abspath(CORPUS))
       else os.path.relpath(p, SRC) for p in INPUTS]


def cli(*args):
    r = subprocess.run([PK, *args], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return json.loads(r.stdout)


def close(a, b, rel=1e-9):
    if isinstance(a, float) and math.isnan(a):  # no such total: JSON null
        return b is None or (isinstance(b, float) and math.isnan(b))
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-9 * max(1.0, abs(a), abs(b)))


@pytest.fixture(scope="module", params=INPUTS, ids=IDS)
def opened(request):
    path = request.param
    info = cli("info", "--json", path)
    if info is None:
        with pytest.raises(profkit.Error):
            profkit.open(path)
        pytest.skip("profkit cannot open it either (the CLI fails too)")
    return path, profkit.open(path), info


def test_every_total_equals_info(opened):
    path, p, info = opened
    assert len(p.metrics) == len(info["metrics"])
    for (_, row), m in zip(p.metrics.iterrows(), info["metrics"]):
        assert row["name"] == m["name"]
        assert close(row["total"], m.get("program_total")), (row["name"], row["total"], m)
    if info["format"] != "callgrind":  # `info` reads a call graph without a tree
        counts = info["counts"]  # listed and unlisted contexts, the root aside
        assert len(p.contexts) == counts["contexts"] + counts.get("contexts_unlisted", 0) + 1
    counts = info["counts"]
    assert len(p.locations) == counts["locations"] + counts.get("summary_locations", 0)
    assert p.info["complete"] == info["complete"]


def view_pair(opened, view, *args):
    """The CLI's JSON of a view of the default metric and Python's answer,
    or None when the CLI has none (then Python must raise profkit.Error)."""
    path, p, info = opened
    if not info["metrics"]:
        pytest.skip("no metrics")
    doc = cli(view, "--json", *args, path)
    if doc is None:
        with pytest.raises(profkit.Error):
            getattr(p, view)()
        return None
    return doc, getattr(p, view)()


def test_flat_equals_cli(opened):
    pair = view_pair(opened, "flat", "-n", "0")
    if pair is None:
        return
    doc, df = pair
    assert df.attrs["source"] == doc["source"] and df.attrs["schema"] == doc["schema"]
    got = sorted(zip(df["name"], df["exclusive"], df["inclusive"]))
    want = sorted((r["name"], r["exclusive"], r["inclusive"]) for r in doc["rows"])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g[0] == w[0] and close(g[1], w[1]) and close(g[2], w[2]), (g, w)


def tree_values(node, out):
    stack = [node]
    while stack:
        n = stack.pop()
        out.setdefault(n["id"], []).append((n["inclusive"], n["exclusive"]))
        stack.extend(n.get("children", []))
    return out


def test_tree_equals_cli(opened):
    # --lines: every context, as p.tree(level="lines") gives them; a big
    # tree (matrix.big_tree) its top 8 levels
    pair = view_pair(opened, "tree", "-t", "0", "--lines",
                     *(["-d", "8"] if big_tree(opened[2]) else []))
    if pair is None:
        return
    doc, _ = pair
    t = opened[1].tree(level="lines")
    want = tree_values(doc["root"], {})
    by_id = {}
    for cid, inc, exc in zip(t["id"], t["inclusive"], t["exclusive"]):
        by_id.setdefault(int(cid), []).append((inc, exc))
    checked = 0
    for cid, vals in want.items():
        if len(vals) != 1 or len(by_id.get(cid, [])) != 1:
            continue  # ids the file repeats: not a key
        (wi, we), (gi, ge) = vals[0], by_id[cid][0]
        assert close(gi, wi) and (we is None or close(ge, we)), (cid, (gi, ge), (wi, we))
        checked += 1
    assert checked > 0 or not want


def has_location_values(p):
    loc = p.locations
    return loc.loc[~loc["summary"].astype(bool), "values"].sum() > 0


def test_per_location_values_sum_to_context_values(opened):
    path, p, info = opened
    if not has_location_values(p):
        pytest.skip("summary-only profile: no per-location values")
    checked = 0
    n_work = (~p.locations["summary"].astype(bool)).sum() * len(p.contexts)
    for idx, row in p.metrics.iterrows():
        stored = {"inclusive", "exclusive"} & set(row["scopes"])
        if row["combine"] != "sum" or not stored:
            continue
        for scope in ("inclusive", "exclusive"):
            if scope not in stored and n_work > 5_000_000:
                continue  # derived per location: walks every context per location
            v = p.values(idx, scope, locations="all")
            assert v.context.dtype == np.uint32 and v.value.dtype == np.float64
            if scope in stored:  # the library's own buffers
                assert not v.value.flags.writeable and v.value.base is not None
            per_ctx = np.bincount(v.context, weights=v.value, minlength=len(p.contexts))
            want = p.values(idx, scope)
            np.testing.assert_allclose(per_ctx, want, rtol=1e-9,
                                       atol=1e-9 * max(1, abs(want).max()))
            assert not p.locations["summary"].to_numpy()[v.location].any()
        checked += 1
        if checked == 3:
            break


def test_dataframe_shape(opened):
    path, p, info = opened
    if not has_location_values(p) or (~p.locations["summary"].astype(bool)).sum() * len(
            p.contexts) > 5_000_000:
        pytest.skip("no per-location values, or too many to derive a scope in a test")
    scope = "exclusive" if p.info["format"] in ("callgrind", "cube") else "inclusive"
    df = p.dataframe(scope=scope)
    expected = [n for n, s, c in zip(p.metrics["name"], p.metrics["scopes"], p.metrics["combine"])
                if scope in s or (c == "sum" and {"inclusive", "exclusive"} & set(s))]
    assert list(df.index.names) == ["context", "location"]
    assert list(df.columns) == ["name"] + expected
    names = p.contexts["name"]
    ctx = df.index.get_level_values("context")
    assert (df["name"].astype(str).to_numpy() == names.to_numpy()[ctx].astype(str)).all()
    # the library's categories: every context's name once, in Python's order
    assert list(df["name"].cat.categories) == sorted(set(names))
    for n in expected[:3]:
        v = p.values(n, scope, locations="all")
        assert math.isclose(df[n].sum(), v.value.sum(), rel_tol=1e-9, abs_tol=1e-9)
        pairs = df.index[df[n] != 0]
        got = dict(zip(zip(v.context.tolist(), v.location.tolist()), v.value.tolist()))
        assert all(got[k] == df.at[k, n] for k in pairs[:50])


def test_arrays_keep_the_profile_alive():
    p = profkit.open(os.path.join(SRC, "tests", "data", "cube", "sample.cubex"))
    m = next(i for i, s in zip(p.metrics.index, p.metrics["scopes"]) if "inclusive" in s)
    v = p.values(m, locations="all")
    want = v.value.copy()
    inner = weakref.ref(p._p)
    del p
    gc.collect()
    assert inner() is not None  # the arrays hold the profile
    np.testing.assert_array_equal(v.value, want)
    ctx = v.context
    del v
    gc.collect()
    assert inner() is not None  # one array is enough
    assert ctx.base is not None
    del ctx
    gc.collect()
    assert inner() is None  # the last array let it go


def test_damaged_file_error_carries_the_message(tmp_path):
    src = os.path.join(CORPUS, "hpctoolkit", "hpctoolkit-tests-dbase", "small.d")
    if not os.path.isdir(src):
        pytest.skip("corpus database small.d not found")
    db = tmp_path / "small.d"
    shutil.copytree(src, db)
    with open(db / "profile.db", "r+b") as f:
        f.seek(200)
        f.write(b"\xff" * 64)
    with pytest.raises(profkit.Error) as e:
        profkit.open(db)
    r = subprocess.run([PK, "info", str(db)], capture_output=True, text=True)
    assert r.returncode != 0
    assert str(e.value) in r.stderr  # the library's message, as the CLI prints it
    assert "profile.db" in str(e.value) and "0x" in str(e.value)
    assert e.value.status == "format error"


def test_missing_file_and_bad_arguments(tmp_path):
    with pytest.raises(profkit.Error) as e:
        profkit.open(tmp_path / "absent.cubex")
    assert "absent.cubex" in str(e.value)
    p = profkit.open(os.path.join(SRC, "tests", "data", "callgrind", "sample.callgrind"))
    with pytest.raises(KeyError):
        p.values("no such metric")
    with pytest.raises(ValueError):
        p.values(0, scope="sideways")
    with pytest.raises(ValueError):
        p.flat(by="planet")
    with pytest.raises(profkit.Error):
        p.values(0, locations="rank=999")


def test_write_round_trip(tmp_path):
    p = profkit.open(os.path.join(SRC, "tests", "data", "cube", "sample.cubex"))
    out = tmp_path / "out.json"
    lost = p.write(out, "json")
    assert lost == []
    q = profkit.open(out)
    np.testing.assert_allclose(q.metrics["total"], p.metrics["total"], rtol=1e-12)
    with pytest.raises(profkit.Error):
        p.write(out, "json")  # exists, no force
    p.write(out, "json", force=True)


def test_diff_of_a_profile_with_itself(tmp_path):
    path = os.path.join(SRC, "tests", "data", "callgrind", "sample.callgrind")
    a, b = profkit.open(path), profkit.open(path)
    d = profkit.diff(a, b)
    assert len(d) == 0 and not d.attrs["any_change"] and d.attrs["a_total"] == d.attrs["b_total"]


def test_diff_uses_the_call_graphs_exact_costs():
    # python3's recursive calls make its reconstructed tree differ from its
    # call graph's exact costs, which the CLI compares
    gen = os.path.join(CORPUS, "callgrind", "generated")
    a, b = (os.path.join(gen, n) for n in ("mt-threads.callgrind.out.3938-01",
                                           "python3-nocompress.callgrind.out"))
    if not os.path.exists(a) or not os.path.exists(b):
        pytest.skip("corpus not found")
    d = profkit.diff(profkit.open(a), profkit.open(b))
    want = {f["function"]: f for f in cli("diff", "--json", a, b)["functions"]}
    rows = {r.name: r for r in d.itertuples()}
    assert want and set(want) <= set(rows)
    for name, w in want.items():
        row = rows[name]
        for k in ("a_inclusive", "b_inclusive", "a_self", "b_self"):
            assert math.isclose(getattr(row, k), w[k], rel_tol=1e-12, abs_tol=1e-9), (row, k)


def test_callers_and_threads():
    p = profkit.open(os.path.join(SRC, "tests", "data", "callgrind", "sample.callgrind"))
    c = p.callers("odd")
    assert c["name"].iloc[0] == "odd" and (c["parent"].iloc[1:] >= 0).all()
    t = p.threads()
    assert math.isclose(t["total"].sum(), p.metrics["total"].iloc[0], rel_tol=1e-12)


def test_to_hatchet():
    pytest.importorskip("hatchet")
    p = profkit.open(os.path.join(SRC, "tests", "data", "cube", "sample.cubex"))
    gf = profkit.to_hatchet(p)
    assert len(gf.dataframe) == len(p.contexts)


def test_tree_folds_loader_frames_as_the_cli():
    # the frames above the program's own code that only pass calls on fold
    # (issue 34): the same nodes the CLI's JSON marks, none with chains="show"
    path = os.path.join(CORPUS, "callgrind", "generated", "sort-instr-jumps.callgrind.out")
    if not os.path.exists(path):
        pytest.skip("corpus not found")
    p = profkit.open(path)
    t = p.tree(threshold=1)  # the CLI's default; with 0 only costless frames fold
    folded = set(t.loc[t["folded"], "name"])
    assert {"(below main)", "__libc_start_main@@GLIBC_2.34"} <= folded
    doc = cli("tree", "--json", path)
    marked, stack = set(), [doc["root"]]
    while stack:
        n = stack.pop()
        if n["folded"]:
            marked.add(n["name"])
        stack.extend(n["children"] or [])
    assert marked == folded and doc["folded"] == int(t["folded"].sum())
    assert not p.tree(threshold=1, chains="show")["folded"].any()
