#!/usr/bin/python3
"""bench/cube_gen.py — write a large synthetic Cube 4.4 .cubex for benchmarks.

Usage: cube_gen.py OUT.cubex [N_CNODES] [N_METRICS] [N_LOCATIONS]
A call tree of N_CNODES nodes (fan-out 4), N_METRICS DOUBLE metrics
(alternately INCLUSIVE and EXCLUSIVE, dense sparse-format index) and
N_LOCATIONS threads in ranks of 8, values non-zero. Defaults give 512 MB
of data: 5000 cnodes x 20 metrics x 640 locations x 8 bytes.
Uses only the Python standard library and NumPy (Debian python3-numpy).
"""
import io, sys, tarfile, time
import numpy as np

out = sys.argv[1]
nc = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
nm = int(sys.argv[3]) if len(sys.argv) > 3 else 20
nl = int(sys.argv[4]) if len(sys.argv) > 4 else 640


def add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(time.time())
    tar.addfile(info, io.BytesIO(data))


def anchor():
    x = ['<?xml version="1.0" encoding="UTF-8"?>\n<cube version="4.4">\n<metrics>\n']
    for m in range(nm):
        kind = "INCLUSIVE" if m % 2 == 0 else "EXCLUSIVE"
        x.append('<metric id="%d" type="%s"><disp_name>M%d</disp_name><uniq_name>m%d</uniq_name>'
                 '<dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr></descr></metric>\n' % (m, kind, m, m))
    x.append('</metrics>\n<program>\n')
    for r in range(nc):
        x.append('<region id="%d" mod="gen.c" begin="%d" end="%d"><name>f%d</name><url></url><descr></descr>'
                 '</region>\n' % (r, r + 1, r + 2, r))
    # cnode i has parent (i - 1) // 4: written in pre-order by recursion on an explicit stack
    kids = [[] for _ in range(nc)]
    for i in range(1, nc):
        kids[(i - 1) // 4].append(i)
    stack = [(0, False)]
    while stack:
        c, closing = stack.pop()
        if closing:
            x.append('</cnode>\n')
            continue
        x.append('<cnode id="%d" calleeId="%d">\n' % (c, c))
        stack.append((c, True))
        for k in reversed(kids[c]):
            stack.append((k, False))
    x.append('</program>\n<system>\n<systemtreenode Id="0"><name>machine</name><class>machine</class>\n')
    for g in range((nl + 7) // 8):
        x.append('<locationgroup Id="%d"><name>rank %d</name><rank>%d</rank><type>process</type>\n' % (g, g, g))
        for t in range(g * 8, min(nl, g * 8 + 8)):
            x.append('<location Id="%d"><name>thread %d</name><rank>%d</rank><type>thread</type></location>\n' % (t, t % 8, t % 8))
        x.append('</locationgroup>\n')
    x.append('</systemtreenode>\n</system>\n</cube>\n')
    return ''.join(x).encode()


# cnode ids are pre-order positions only if assigned so: renumber to pre-order
rng = np.random.default_rng(1)
with tarfile.open(out, "w", format=tarfile.USTAR_FORMAT) as tar:
    index = b"CUBEX.INDEX" + np.array([1], "<u4").tobytes() + b"\0\0\1" + \
        np.array([nc], "<u4").tobytes() + np.arange(nc, dtype="<u4").tobytes()
    for m in range(nm):
        add(tar, "%d.index" % m, index)
        rows = rng.random((nc, nl)) + 0.5
        add(tar, "%d.data" % m, b"CUBEX.DATA" + rows.astype("<f8").tobytes())
    add(tar, "anchor.xml", anchor())
