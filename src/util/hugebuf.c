/*
 * util/hugebuf.c — growing buffers of whole huge pages (util/hugebuf.h).
 *
 * Linux: anonymous mappings of k x 2 MiB (which Linux 6.7 and later place
 * on a 2 MiB boundary), advised MADV_HUGEPAGE, grown by mremap(). Where
 * mremap() does not exist, and in sanitized builds (whose allocator then
 * watches the buffer's bounds), plain realloc().
 */
#define _GNU_SOURCE
#include "util/hugebuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "profkit/status.h"
#include "util/bigsize.h"
#include "util/sanitized.h"

/* `need` rounded up to whole huge pages; 0 when it cannot be. */
static size_t whole_huge_pages(size_t need)
{
    if (need > SIZE_MAX - PK_HUGE_PAGE) return 0;
    size_t n = (need + PK_HUGE_PAGE - 1) / PK_HUGE_PAGE * PK_HUGE_PAGE;
    return n ? n : PK_HUGE_PAGE;
}

#if defined(MREMAP_MAYMOVE) && defined(MAP_ANONYMOUS) && !defined(PK_SANITIZED)

/* The buffer p of `old` bytes (NULL: none yet) as n bytes; NULL if no
 * memory is left, p then as it was. */
static void *resize(void *p, size_t old, size_t n)
{
    void *q = p ? mremap(p, old, n, MREMAP_MAYMOVE)
                : mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    if (pk_huge_pages_wanted()) madvise(q, n, MADV_HUGEPAGE); /* advice: failing changes nothing */
#endif
    return q;
}

void pk_hugebuf_free(void *p, size_t cap)
{
    if (p) munmap(p, cap);
}

#else

static void *resize(void *p, size_t old, size_t n)
{
    (void)old;
    return realloc(p, n);
}

void pk_hugebuf_free(void *p, size_t cap)
{
    (void)cap;
    free(p);
}

#endif

int pk_hugebuf_reserve(void **p, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    size_t n = whole_huge_pages(need);
    void *q = n ? resize(*p, *cap, n) : NULL;
    if (!q) return -1;
    *p = q, *cap = n;
    return 0;
}
