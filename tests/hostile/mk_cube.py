#!/usr/bin/env python3
"""tests/hostile/mk_cube.py — hand-made .cubex files that claim far more
than they hold (issue 19, class 1), for tests/hostile/run.sh.

Usage: mk_cube.py KIND OUT [N]
  zero-rows   N cnodes x N locations, one DOUBLE metric whose ZCUBEX.DATA
              stores every row empty (size 0): all zero, N*N*8 bytes dense.
              The tar is gzip-wrapped, so the file is a few hundred KB.
  tiny-rows   the same with every row a real zlib stream of zeros
              (about 1000:1), so inflating is work and memory.
  gzip-bomb   a valid small archive gzip-wrapped, with N MiB of zeros in an
              extra member first: the whole tar inflates to N MiB.
  anchor-bomb anchor.xml gzip-compressed (as Score-P 1.x wrote it), padded
              with N MiB of spaces.
  shared-data N metric definitions that all have id 0, so all read the one
              0.data member (1000 cnodes x 128 locations, 1 MB): N MB of
              rows claimed by a file of about N * 200 bytes more.
Standard library only.
"""
import gzip, io, struct, sys, tarfile, zlib

kind, out = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 30000


def anchor(nc, nl, pad=0, metrics=1):
    x = ['<?xml version="1.0" encoding="UTF-8"?>\n<cube version="4.4">\n<metrics>\n']
    x.extend('<metric id="0" type="EXCLUSIVE"><disp_name>T</disp_name><uniq_name>time%d</uniq_name>'
             '<dtype>DOUBLE</dtype><uom>sec</uom><url/><descr/></metric>\n' % m
             for m in range(metrics))
    x.append('</metrics>\n<program>\n'
             '<region id="0" mod="m.c" begin="1" end="2"><name>f</name><url/><descr/></region>\n')
    # a flat tree: one root, nc - 1 children (no depth to worry about)
    x.append('<cnode id="0" calleeId="0">\n')
    x.extend('<cnode id="%d" calleeId="0"/>\n' % c for c in range(1, nc))
    x.append('</cnode>\n</program>\n<system>\n<systemtreenode Id="0"><name>m</name>'
             '<class>machine</class>\n<locationgroup Id="0"><name>r</name><rank>0</rank>'
             '<type>process</type>\n')
    x.extend('<location Id="%d"><name>t</name><rank>%d</rank><type>thread</type></location>\n'
             % (t, t) for t in range(nl))
    x.append('</locationgroup>\n</systemtreenode>\n</system>\n')
    x.append(' ' * pad)
    x.append('</cube>\n')
    return ''.join(x).encode()


def index_dense():
    return b'CUBEX.INDEX' + struct.pack('<IHB', 1, 0, 3)


def zdata(rows, row_bytes, empty):
    streams = []
    if not empty:
        one = zlib.compress(bytes(row_bytes), 9)
        streams = [one] * rows
    table, blob, at = [], [], 0
    for r in range(rows):
        s = b'' if empty else streams[r]
        table.append(struct.pack('<QQQ', row_bytes, at, len(s)))
        blob.append(s)
        at += len(s)
    return b'ZCUBEX.DATA' + struct.pack('<Q', rows) + b''.join(table) + b''.join(blob)


def tar_bytes(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w', format=tarfile.USTAR_FORMAT) as t:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def gzip_stream(chunks):
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b''.join(z.compress(c) for c in chunks) + z.flush()


if kind in ('zero-rows', 'tiny-rows'):
    members = [('anchor.xml', anchor(n, n)), ('0.index', index_dense()),
               ('0.data', zdata(n, n * 8, kind == 'zero-rows'))]
    data = tar_bytes(members)
    open(out, 'wb').write(gzip.compress(data, 9) if kind == 'zero-rows' else data)
elif kind == 'gzip-bomb':
    small = tar_bytes([('anchor.xml', anchor(2, 1))])
    # a tar member header for N MiB of zeros, the zeros, then the archive
    info = tarfile.TarInfo('0.pad')
    info.size = n << 20
    head = info.tobuf(format=tarfile.USTAR_FORMAT)
    zeros = bytes(1 << 20)
    open(out, 'wb').write(gzip_stream([head] + [zeros] * n + [small]))
elif kind == 'shared-data':
    nc, nl = 1000, 128
    data = b'CUBEX.DATA' + struct.pack('<d', 1.0) * (nc * nl)
    open(out, 'wb').write(tar_bytes([('anchor.xml', anchor(nc, nl, metrics=n)),
                                     ('0.index', index_dense()), ('0.data', data)]))
elif kind == 'anchor-bomb':
    xml = anchor(2, 1, pad=n << 20)
    open(out, 'wb').write(tar_bytes([('anchor.xml', gzip.compress(xml, 9))]))
else:
    sys.exit('unknown kind ' + kind)
