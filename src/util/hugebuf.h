/*
 * util/hugebuf.h — a growing byte buffer mapped by itself, on whole
 * transparent huge pages.
 *
 * For the few buffers of megabytes that worker threads fill and a reader
 * reuses: malloc serves a worker thread from an arena heap that grows a
 * page at a time and never gets huge pages, so every 4 KiB of such a
 * buffer was a page fault (on a VM, 6-14 us each: a Callgrind file's
 * tokenizer took 3,000 of them for 12 MB of ops). Here the buffer is an
 * anonymous mapping of k x 2 MiB with MADV_HUGEPAGE, grown by mremap()
 * (page tables moved, nothing copied): one fault and one zeroing per
 * 2 MiB. The memory a buffer takes is its length rounded up to 2 MiB.
 * Where pk_huge_pages_wanted() says no (util/hugepolicy.c) the mapping
 * is the same, without the advice.
 */
#ifndef PK_UTIL_HUGEBUF_H
#define PK_UTIL_HUGEBUF_H

#include <stddef.h>

/* Make the buffer *p of *cap bytes hold at least `need` bytes, keeping
 * its contents (*p NULL and *cap 0: a new buffer). 0 on success; -1 when
 * no memory is left, the buffer then as it was. */
int pk_hugebuf_reserve(void **p, size_t *cap, size_t need);
/* Unmap a buffer of pk_hugebuf_reserve() (NULL: nothing). */
void pk_hugebuf_free(void *p, size_t cap);

#endif
