"""Hostile inputs the JSON output test makes for itself (tests/json/outputs.py):
profiles whose names and values JSON cannot carry as they are, and a
calling-context tree deeper than any fixed nesting limit.

They are written as profkit.model/1 (docs/json.md), which profkit reads like
any profile, and one as a Callgrind file. Names are byte strings: a JSON
output must turn each into bytes.decode("utf-8", "replace"), control
characters included (escaped in the JSON text, the same characters once
parsed)."""
import random
import re

SCOPES = [
    {"name": "point", "kind": "point", "raw_type": 1, "propagation_index": 255},
    {"name": "function", "kind": "exclusive", "raw_type": 3, "propagation_index": 0},
    {"name": "execution", "kind": "inclusive", "raw_type": 2, "propagation_index": 255},
]

# Names no terminal or JSON text may get raw; each is a function, a file and
# a module name of the hostile profile.
HOSTILE = [
    b"caf\xe9",                          # Latin-1
    b"\x1b[31mred\x1b[0m\x1b]0;title\x07",  # colour, window title
    b"line\nbreak\ttab\rcr\x01\x7f",
    b"quote\" back\\slash /slash",
    b"c1 \xc2\x9b2J csi",                # C1 control (valid UTF-8)
    b"sep\xe2\x80\xa8ara\xe2\x80\xa9tor",  # U+2028/2029
    b"overlong \xc0\xaf \xe0\x80\xaf",
    b"surrogate \xed\xa0\x80\xed\xbf\xbf",
    b"beyond \xf4\x90\x80\x80",
    b"cut \xe2\x82",                     # a 3-byte sequence cut short
    b"\xf0\x9f\x98",                     # only a cut 4-byte sequence
    b"ok \xe2\x82\xac \xf0\x9f\x98\x80 \xe4\xb8\xad",
    b"\xff\xfe\xfd",
    b"x" * 70000,                        # longer than any name buffer
]


_ESCAPE = re.compile(rb'[\x00-\x1f"\\]')


def _jstr(b):
    """A JSON string literal holding the bytes b as they are: what profkit's
    model reader takes (control characters must be escapes in JSON text;
    everything else, ill-formed UTF-8 included, is kept byte for byte)."""
    if b is None:
        return b"null"
    return b'"' + _ESCAPE.sub(lambda m: b"\\u%04x" % m.group()[0], b) + b'"'


class _Raw(bytes):
    """JSON text already written (the many contexts of a deep chain)."""


def _value(v):
    if type(v) is _Raw:
        return v
    if isinstance(v, bytes):
        return _jstr(v)
    if v is None:
        return b"null"
    if v is True:
        return b"true"
    if v is False:
        return b"false"
    if isinstance(v, float):
        if v != v:
            return b'"NaN"'
        if v in (float("inf"), float("-inf")):
            return b'"Infinity"' if v > 0 else b'"-Infinity"'
        return repr(v).encode()
    if isinstance(v, int):
        return str(v).encode()
    if isinstance(v, str):
        return _jstr(v.encode())
    if isinstance(v, (list, tuple)):
        return b"[" + b", ".join(_value(x) for x in v) + b"]"
    if isinstance(v, dict):
        return b"{" + b", ".join(_jstr(k.encode()) + b": " + _value(x) for k, x in v.items()) + b"}"
    raise TypeError(v)


def _context(cid, parent, function, kind="function"):
    return {"id": cid, "parent": parent, "kind": kind, "relation": "call" if parent is not None else "none",
            "entry": "none", "entry_name": None, "flags": 1 if function is not None else 0,
            "function": function, "file": None, "line": 0, "module": None, "offset": 0,
            "propagation": 0, "raw": [0, 0, 0]}


def _call_context(cid, parent, function, file):
    """_value(_context(cid, parent, function)) with the function's file and
    line 1 when it has one, written at once: a 100 000-deep chain has as
    many contexts, and going through dicts took seconds."""
    if file is None:
        where, flags = b'"file": null, "line": 0', 1
    else:
        where, flags = b'"file": %d, "line": 1' % file, 3
    return _Raw(b'{"id": %d, "parent": %d, "kind": "function", "relation": "call", '
                b'"entry": "none", "entry_name": null, "flags": %d, "function": %d, %s, '
                b'"module": null, "offset": 0, "propagation": 0, "raw": [0, 0, 0]}'
                % (cid, parent, flags, function, where))


def model(functions, parents, values, metric=b"time", files=(), modules=(), locations=1):
    """A profkit.model/1 document: contexts[i+1] runs functions[i] under
    contexts[parents[i]] (parents listed breadth-first), `values` maps a
    context id to its exclusive value in each location."""
    fn = [{"name": n, "module": (i % len(modules)) if modules else None, "offset": 0,
           "file": (i % len(files)) if files else None, "line": 0} for i, n in enumerate(functions)]
    ctx = [_context(0, None, None, "root")] + [
        _call_context(i + 1, p, i, fn[i]["file"]) for i, p in enumerate(parents)]
    locs = [{"raw_index": l, "summary": False, "trace": None,
             "ids": [{"kind": 3, "name": "THREAD", "flags": 0, "logical": l, "physical": 0}],
             "values": [[cid, 0, v] for cid, v in sorted(values.items())]} for l in range(locations)]
    doc = {
        "schema": "profkit.model/1",
        "profile": {"title": b"hostile \x1b[2J\xff", "description": None, "format": None,
                    "format_version": [1, 0], "path": None, "reconstructed": False,
                    "trace_range": None, "sources": []},
        "identifier_kinds": ["SUMMARY", "NODE", "RANK", "THREAD"],
        "modules": [{"path": m} for m in modules],
        "files": [{"path": f, "flags": 0} for f in files],
        "functions": fn,
        "metrics": [{"name": metric, "description": None, "unit": "sec", "parent": None,
                     "combine": "sum", "flags": 0}],
        "scopes": SCOPES,
        "columns": [{"metric": 0, "scope": 1, "summary": False, "stat": "none", "formula": None,
                     "combine": "sum", "raw_id": 0}],
        "contexts": ctx,
        "locations": locs,
        "traces": [], "attributes": [], "diagnostics": [],
    }
    # one record a line: the reader streams, and so does this writer
    parts = [b'{"schema": "profkit.model/1"']
    for k, v in doc.items():
        if k == "schema":
            continue
        if isinstance(v, list) and len(v) > 100:
            parts.append(b",\n" + _jstr(k.encode()) + b": [\n" + b",\n".join(_value(x) for x in v) + b"]")
        else:
            parts.append(b",\n" + _jstr(k.encode()) + b": " + _value(v))
    parts.append(b"}\n")
    return b"".join(parts)


def hostile_names(seed=25):
    """Every HOSTILE name and 150 random byte strings as functions under the
    root, their files and modules named alike; some values NaN or infinite.
    Returns (document bytes, the function names)."""
    rnd = random.Random(seed)
    names = list(HOSTILE)
    seen = set(names)
    while len(names) < len(HOSTILE) + 150:
        b = bytes(rnd.randrange(1, 256) for _ in range(rnd.randrange(1, 24)))
        if b not in seen:
            seen.add(b)
            names.append(b)
    # distinct display names after repair, so rows can be matched by name
    decoded, unique = set(), []
    for n in names:
        d = n.decode("utf-8", "replace")
        if d not in decoded:
            decoded.add(d)
            unique.append(n)
    values = {i + 1: float(i + 1) for i in range(len(unique))}
    values[3] = float("nan")
    values[5] = float("inf")
    values[7] = float("-inf")
    doc = model(unique, [0] * len(unique), values, metric=b"t\x1bime \xff(sec)",
                files=HOSTILE[:6], modules=HOSTILE[6:12], locations=2)
    return doc, unique


def deep_chain(depth, leaf_every=1000):
    """f0 calls f1 calls ... f<depth-1>, which holds the value 5; every
    `leaf_every` levels a leaf of 0.001 beside the chain, which a threshold
    hides (the "hidden" member after a deep "root"). Returns (document
    bytes, how many leaves)."""
    names, parents, values = [], [], {}
    parent = 0  # the root
    for d in range(depth):
        names.append(b"f%d" % d)
        parents.append(parent)
        here = len(parents)  # its context id: root 0, then in order
        if d and d % leaf_every == 0:  # siblings follow each other (breadth-first)
            names.append(b"leaf%d" % d)
            parents.append(parent)
            values[len(parents)] = 0.001
        parent = here
    values[parent] = 5.0
    return model(names, parents, values), (depth - 1) // leaf_every


def hostile_callgrind():
    """A Callgrind file with the same kind of names (one per line, so no
    newline in them). Returns (bytes, function names)."""
    fns = [b"ma\x1b[31min", b"caf\xe9", b"\xff\xfe odd", b"ok \xe2\x82\xac", b'q"uote\\']
    lines = [b"# callgrind format", b"version: 1", b"creator: profkit tests/json",
             b"cmd: hostile \x1b]0;x\x07", b"events: Ir", b"fl=src/caf\xe9.c"]
    lines += [b"fn=" + fns[0], b"1 10"]
    for i, f in enumerate(fns[1:]):
        lines += [b"cfn=" + f, b"calls=1 1", b"2 %d" % (5 + i)]
    for i, f in enumerate(fns[1:]):
        lines += [b"fn=" + f, b"1 %d" % (5 + i)]
    return b"\n".join(lines) + b"\n", fns
