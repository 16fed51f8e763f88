/*
 * util/bigsize.h — sizes of big blocks that transparent huge pages cover
 * whole.
 *
 * glibc serves a block of megabytes by a mapping of its own, 16 bytes of
 * header in front, rounded up to 4 KiB pages. Huge pages back only the
 * 2 MiB-aligned part of such a mapping: the rest of its first and last
 * 2 MiB take a fault per 4 KiB page, on average 512 faults per block (on
 * a VM, 5 ms). When the mapping's length is a multiple of 2 MiB, Linux
 * (6.7 and later) places it on a 2 MiB boundary and huge pages cover it
 * all: a block of k x 2 MiB minus 32 bytes gets such a mapping. A growing
 * array can take that size for free (its capacity rounded down); a block
 * of a fixed size needs it rounded up.
 */
#ifndef PK_UTIL_BIGSIZE_H
#define PK_UTIL_BIGSIZE_H

#include <stddef.h>
#include <stdint.h>

#define PK_HUGE_PAGE   ((size_t)2 << 20)
#define PK_MALLOC_HEAD ((size_t)32) /* glibc: chunk header and size rounding */

/* The largest size of whole huge pages for malloc, k x 2 MiB minus the
 * header, that is at most `bytes`; 0 when there is none. */
static inline size_t pk_big_floor(size_t bytes)
{
    if (bytes < PK_HUGE_PAGE) return 0;
    size_t k = (bytes + PK_MALLOC_HEAD) / PK_HUGE_PAGE;
    return k * PK_HUGE_PAGE - PK_MALLOC_HEAD;
}

/* `bytes`, or a little more so that malloc's mapping is whole huge pages.
 * The last huge page is memory as soon as any of it is touched, so the
 * rounding is done only where it adds at most 1/64 of the block: RSS
 * grows at most that, where 4 KiB pages left the rest untouched. */
static inline size_t pk_big_bytes(size_t bytes)
{
    if (bytes < PK_HUGE_PAGE || bytes > SIZE_MAX - 2 * PK_HUGE_PAGE) return bytes;
    size_t up = pk_big_floor(bytes + PK_HUGE_PAGE - 1);
    return up - bytes <= bytes / 64 ? up : bytes;
}

/* A geometric array's new capacity in bytes, at least `need` and at most
 * `want`: whole huge pages if some size between them is. */
static inline size_t pk_big_capacity(size_t need, size_t want)
{
    size_t down = pk_big_floor(want);
    return down >= need ? down : want;
}

#endif
