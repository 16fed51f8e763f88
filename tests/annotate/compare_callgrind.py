#!/usr/bin/env python3
"""tests/annotate/compare_callgrind.py — profkit annotate against
callgrind_annotate on the same Callgrind file, line by line.

callgrind_annotate's annotated source gives each line's self cost, and
under it "=> file:function (Nx)" lines with the inclusive cost of the
calls made there. profkit annotate --json gives per line self, inclusive
(self plus those calls) and calls. Every line of the file must agree:
self equal, inclusive = self + the calls' costs, calls = the sum of N.

Usage: compare_callgrind.py ANNOTATE.json CALLGRIND_ANNOTATE.txt SOURCE_NAME
"""
import json, re, sys

doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read().splitlines()
name = sys.argv[3]
assert doc["schema"] == "profkit.annotate/1" and doc["source"] == "callgraph", doc.get("schema")
files = [f for f in doc["files"] if f["file"].endswith("/" + name) or f["file"] == name]
assert len(files) == 1, [f["file"] for f in doc["files"]]
ours = {l["line"]: l for l in files[0]["lines"]}

# callgrind_annotate's section for the file, up to the next dashed rule
start = next(i for i, l in enumerate(text) if re.match(r"-- (User|Auto)-annotated source: .*" + re.escape(name), l))
row = re.compile(r"^\s*(\.|[\d,]+)(?: \(\s*[\d.]+%\))?  (.*)$")
theirs, line = {}, 0
for l in text[start + 3:]:
    if l.startswith("-----") or l.startswith("-- "):
        break
    m = row.match(l)
    if not m:
        continue
    cost = 0 if m.group(1) == "." else int(m.group(1).replace(",", ""))
    call = re.match(r"=> .* \((\d+)x\)$", m.group(2))
    if call:
        t = theirs[line]
        t["inclusive"] += cost
        t["calls"] += int(call.group(1))
    else:
        line += 1
        theirs[line] = {"self": cost, "inclusive": cost, "calls": 0, "text": m.group(2)}
assert line > 10, "no annotated source parsed (%d lines)" % line
checked = 0
for n, t in theirs.items():
    o = ours.get(n, {"self": 0, "inclusive": 0, "calls": 0, "text": None})
    for k in ("self", "inclusive", "calls"):
        assert o[k] == t[k], "line %d %s: profkit %r, callgrind_annotate %r" % (n, k, o[k], t[k])
    if o["text"] is not None:
        # callgrind_annotate pads "." rows into the text column: compare stripped
        assert o["text"].strip() == t["text"].strip(), (n, o["text"], t["text"])
    checked += 1
costly = sum(1 for t in theirs.values() if t["self"])
calls = sum(1 for t in theirs.values() if t["calls"])
assert costly > 5 and calls >= 3, (costly, calls)
print("annotate: %d lines agree with callgrind_annotate (%d with costs, %d with calls)" % (checked, costly, calls))
