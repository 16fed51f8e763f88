/*
 * util/mapfile.c — mmap of whole files for the zero-copy readers.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include "mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

static const unsigned char empty_file[1];

pk_status pk_map_file(const char *path, pk_mapfile *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return pk_fail(PK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return pk_fail(PK_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return pk_fail(PK_ERR_IO, "%s: not a regular file", path);
    }
    out->size = (uint64_t)st.st_size;
    out->mapped = 0;
    out->data = empty_file;
    if (st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            return pk_fail(PK_ERR_IO, "%s: cannot map %llu bytes: %s", path,
                           (unsigned long long)st.st_size, strerror(e));
        }
        /* Readers mostly stream through value blocks front to back. */
        madvise(p, (size_t)st.st_size, MADV_WILLNEED);
        out->data = p;
        out->mapped = 1;
    }
    close(fd);
    return PK_OK;
}

void pk_unmap_file(pk_mapfile *m)
{
    if (m->mapped) munmap((void *)m->data, (size_t)m->size);
    m->data = NULL;
    m->size = 0;
    m->mapped = 0;
}

int pk_path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int pk_path_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Release in steps of this much (fewer system calls, small resident set). */
#define RELEASE_STEP (8u << 20)

void pk_map_prefault(const pk_mapfile *m)
{
#ifdef MADV_POPULATE_READ
    if (m->mapped && m->size) madvise((void *)m->data, (size_t)m->size, MADV_POPULATE_READ);
#else
    (void)m;
#endif
}

void pk_mem_prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
    if (n < (256u << 10)) return; /* a few faults cost less than the call */
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo = (uintptr_t)p, hi = lo + n;
    lo = (lo + page - 1) / page * page; /* whole pages of [p, p + n) only */
    hi = hi / page * page;
    if (hi > lo) madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
    (void)p, (void)n;
#endif
}

void pk_release_start(pk_release *r, const pk_mapfile *m)
{
    r->m = m && m->mapped ? m : NULL;
    r->from = NULL;
}

static void release_range(pk_release *r, const unsigned char *to)
{
    const unsigned char *base = r->m->data;
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t lo = (uint64_t)(r->from - base), hi = (uint64_t)(to - base);
    lo = (lo + page - 1) / page * page; /* whole pages only: neighbours may still need the rest */
    hi = hi / page * page;
    if (hi > lo) madvise((void *)(base + lo), (size_t)(hi - lo), MADV_DONTNEED);
    r->from = to;
}

void pk_release_advance(pk_release *r, const void *pos)
{
    const unsigned char *p = pos;
    if (!r->m || p < r->m->data || p > r->m->data + r->m->size) return;
    if (!r->from || p < r->from) { /* first position, or the scan jumped back */
        r->from = p;
        return;
    }
    if ((uint64_t)(p - r->from) >= RELEASE_STEP) release_range(r, p);
}

void pk_release_finish(pk_release *r, const void *pos)
{
    const unsigned char *p = pos;
    if (!r->m || !r->from || p < r->from || p > r->m->data + r->m->size) return;
    release_range(r, p);
}
