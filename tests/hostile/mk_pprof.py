#!/usr/bin/env python3
"""tests/hostile/mk_pprof.py — hand-made pprof profiles that cost a reader
the most per input byte, for bench/amplify.sh (beside mk_cube.py).

Usage: mk_pprof.py KIND OUT N
  gzip-bomb     a gzip stream of a sample type, then a string table entry of
                N MiB of zeros: what it inflates to is charged to the budget.
  shared-stack  one location on every frame of one stack N deep, in four
                samples: contexts shared, the stack read once per sample.
Standard library only.
"""
import sys
import zlib


def varint(n):
    b = bytearray()
    while True:
        b.append((n & 0x7f) | (0x80 if n > 0x7f else 0))
        n >>= 7
        if not n:
            return bytes(b)


def field(num, payload):
    """A length-delimited field of number num."""
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def gzip_bomb(out, mib):
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    head = bytes([0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x32, 0x00, 0x32]) + varint(mib << 20)
    with open(out, "wb") as f:
        f.write(c.compress(head))
        zero = bytes(1 << 20)
        for _ in range(mib):
            f.write(c.compress(zero))
        f.write(c.flush())


def shared_stack(out, depth):
    def sample(frames):
        return field(2, field(1, frames) + field(2, varint(1)))
    stack = b"\x01" * depth
    msg = field(1, varint(1 << 3 | 0) + varint(1) + varint(2 << 3 | 0) + varint(2))  # sample_type
    for s in (b"", b"samples", b"count", b"f"):
        msg += field(6, s)
    msg += field(4, varint(1 << 3) + varint(1) + field(4, varint(1 << 3) + varint(1)))  # location 1
    msg += field(5, varint(1 << 3) + varint(1) + varint(2 << 3) + varint(3))  # function 1
    msg += b"".join(sample(stack) for _ in range(4))
    open(out, "wb").write(msg)


if __name__ == "__main__":
    kind, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    {"gzip-bomb": gzip_bomb, "shared-stack": shared_stack}[kind](out, n)
