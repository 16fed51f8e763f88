#!/usr/bin/env python3
"""tests/flame/static_svg.py — what a flame graph SVG shows without scripts.

Checks, on an SVG `profkit flame` wrote: it is well-formed; it follows the
window (width="100%" and a viewBox, no fixed pixel width); every frame
holds its label as static text inside its own nested <svg> viewport (which
clips it) and the label fits the frame at 7 px a character (".." where
cut); tooltips give total and self; a diff graph has its legend; no
prompt(). Then, when rsvg-convert is there, renders the SVG to PNG with and
without the labels: the two must differ, so the labels draw with no script.

Usage: static_svg.py SVG [--diff] [WORK_DIR]
"""
import os, re, shutil, subprocess, sys, xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
path = sys.argv[1]
diff = "--diff" in sys.argv[2:]
work = [a for a in sys.argv[2:] if a != "--diff"]
work = work[0] if work else os.path.dirname(os.path.abspath(path))
text = open(path, encoding="utf-8").read()
root = ET.fromstring(text)
assert root.get("width") == "100%" and root.get("viewBox"), root.attrib
assert root.get("height") is None, "fixed height would stop the width following the window"
assert "prompt(" not in text, "search uses prompt()"
assert root.find(".//%sforeignObject" % NS) is not None, "no in-page search box"
frames = root.findall(".//%sg[@class='f']" % NS)
assert frames, "no frames"
labelled = cut = 0
for g in frames:
    box = g.find("%ssvg" % NS)
    assert box is not None, "frame %r has no clipping viewport" % g.get("data-n")
    label = box.find("%stext" % NS).text or ""
    width = float(box.get("width"))
    assert len(label) * 7 + 6 <= width + 1e-6 or not label, (label, width)
    name = g.get("data-n")
    assert label == name or (label.endswith("..") and name.startswith(label[:-2])) or not label, (label, name)
    labelled += bool(label)
    cut += label.endswith("..") and label != name
    tip = g.find("%stitle" % NS).text
    assert "\ntotal: " in tip and "\nself: " in tip, tip
assert labelled, "no frame has a static label"
if diff:
    legend = root.find(".//%sg[@id='legend']" % NS)
    assert legend is not None, "diff graph without a legend"
    words = " ".join(t.text or "" for t in legend.iter("%stext" % NS))
    assert "grew" in words and "shrank" in words, words
rsvg = shutil.which("rsvg-convert")
if rsvg:
    bare = re.sub(r"(<text x=\"3\" y=\"[0-9.]+\">)[^<]*(</text>)", r"\1\2", text)
    stem = os.path.join(work, os.path.basename(path))
    open(stem + ".bare.svg", "w", encoding="utf-8").write(bare)
    for src, dst in ((path, stem + ".png"), (stem + ".bare.svg", stem + ".bare.png")):
        subprocess.run([rsvg, "-w", "1200", "-o", dst, src], check=True)
    assert open(stem + ".png", "rb").read() != open(stem + ".bare.png", "rb").read(), \
        "the labels draw nothing without a script"
print("static svg: %d frames, %d labelled (%d cut), %s" %
      (len(frames), labelled, cut, "rendered with rsvg-convert" if rsvg else "rsvg-convert absent"))
