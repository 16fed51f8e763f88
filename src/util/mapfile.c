/*
 * util/mapfile.c — mmap of whole files for the zero-copy readers.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include "mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bigsize.h"
#include "busguard.h"
#include "error.h"
#include "infile.h"
#include "profkit/status.h"

static const unsigned char empty_file[1];

/* The first damage pk_unmap_file() found on this thread, until reported. */
static _Thread_local char damage_msg[1024];
static _Thread_local int damage_seen;

static pk_status map_file(const char *path, pk_mapfile *out, int willneed)
{
    struct stat st;
    int fd;
    pk_status s = pk_input_open(path, &fd, &st);
    if (s) return s;
    memset(out, 0, sizeof *out);
    out->size = (uint64_t)st.st_size;
    out->data = empty_file;
    out->dev = (uint64_t)st.st_dev, out->ino = (uint64_t)st.st_ino; /* which file, even empty */
    if (st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            return pk_fail(PK_ERR_IO, "%s: cannot map %llu bytes: %s", path,
                           (unsigned long long)st.st_size, strerror(e));
        }
        /* Readers mostly stream through value blocks front to back. */
        if (willneed) madvise(p, (size_t)st.st_size, MADV_WILLNEED);
        out->data = p;
        out->mapped = 1;
        out->guard = pk_guard_add(p, (uint64_t)st.st_size);
        out->path = strdup(path);
    }
    close(fd);
    return PK_OK;
}

pk_status pk_map_file(const char *path, pk_mapfile *out)
{
    return map_file(path, out, 1);
}

pk_status pk_map_file_cold(const char *path, pk_mapfile *out)
{
    return map_file(path, out, 0);
}

void pk_map_willneed(const pk_mapfile *m)
{
    if (m->mapped && m->size) madvise((void *)m->data, (size_t)m->size, MADV_WILLNEED);
}

/* read(2) all of it, up to n bytes; the count read (a file may shrink). */
static ssize_t read_all(int fd, unsigned char *p, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t k = read(fd, p + done, n - done);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return -1;
        if (k == 0) break;
        done += (size_t)k;
    }
    return (ssize_t)done;
}

pk_status pk_load_file(const char *path, pk_loadbuf *buf, pk_mapfile *out)
{
    struct stat st;
    int fd;
    pk_status s = pk_input_open(path, &fd, &st);
    if (s) return s;
    uint64_t size = (uint64_t)st.st_size;
    if (size > buf->limit) { /* big: mapped as pk_map_file does */
        close(fd);
        return pk_map_file(path, out);
    }
    if (size + 1 > buf->cap) {
        unsigned char *d = realloc(buf->data, size + 1);
        if (!d) {
            close(fd);
            return pk_fail_nomem("reading a file");
        }
        buf->data = d, buf->cap = size + 1;
    }
    ssize_t got = size ? read_all(fd, buf->data, size) : 0;
    int e = errno;
    close(fd);
    if (got < 0) return pk_fail(PK_ERR_IO, "%s: cannot read: %s", path, strerror(e));
    memset(out, 0, sizeof *out);
    out->data = size ? buf->data : empty_file;
    out->size = (uint64_t)got;
    return PK_OK;
}

void pk_loadbuf_free(pk_loadbuf *buf)
{
    free(buf->data);
    buf->data = NULL, buf->cap = 0;
}

int pk_map_damage(const pk_mapfile *m, uint64_t *offset)
{
    uint64_t at = 0;
    if (!m || !m->mapped) return 0;
    int bad = pk_guard_faulted(m->guard, &at);
    /* A file cut inside a page leaves no fault: the kernel zeroes the rest
     * of that page. The same file (device and inode) with fewer bytes than
     * were mapped tells. A file replaced under the name is no damage: the
     * mapping still holds the old one. */
    struct stat st;
    if (m->path && stat(m->path, &st) == 0 && (uint64_t)st.st_dev == m->dev &&
        (uint64_t)st.st_ino == m->ino && (uint64_t)st.st_size < m->size) {
        if (!bad || (uint64_t)st.st_size < at) at = (uint64_t)st.st_size;
        bad = 1;
    }
    if (bad && offset) *offset = at;
    return bad;
}

static void damage_message(const pk_mapfile *m, uint64_t at, char *buf, size_t size)
{
    snprintf(buf, size,
             "%s: the file shrank while profkit was reading it: the bytes from offset %llu on "
             "(of %llu) are gone; the file is damaged",
             m->path ? m->path : "(file)", (unsigned long long)at, (unsigned long long)m->size);
}

pk_status pk_map_check(const pk_mapfile *m)
{
    uint64_t at;
    char msg[1024];
    if (!pk_map_damage(m, &at)) return PK_OK;
    damage_message(m, at, msg, sizeof msg);
    return pk_fail(PK_ERR_FORMAT, "%s", msg);
}

pk_status pk_map_damage_report(void)
{
    if (!damage_seen) return PK_OK;
    damage_seen = 0;
    return pk_fail(PK_ERR_FORMAT, "%s", damage_msg);
}

void pk_unmap_file(pk_mapfile *m)
{
    uint64_t at;
    if (m->mapped && !damage_seen && pk_map_damage(m, &at)) {
        damage_message(m, at, damage_msg, sizeof damage_msg);
        damage_seen = 1;
    }
    pk_guard_remove(m->guard);
    if (m->mapped) munmap((void *)m->data, (size_t)m->size);
    free(m->path);
    memset(m, 0, sizeof *m);
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

/* The whole pages of [p, p + n) that lie in m; 0 when there are none. */
static int pages_within(const pk_mapfile *m, const void *p, uint64_t n, uintptr_t *lo,
                        uintptr_t *hi)
{
    const unsigned char *b = p;
    if (!m || !m->mapped || !b || b < m->data || n > (uint64_t)(m->data + m->size - b)) return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    *lo = ((uintptr_t)b + page - 1) / page * page;
    *hi = ((uintptr_t)b + (uintptr_t)n) / page * page;
    return *hi > *lo;
}

void pk_map_populate_range(const pk_mapfile *m, const void *p, uint64_t n)
{
#ifdef MADV_POPULATE_READ
    uintptr_t lo, hi;
    if (pages_within(m, p, n, &lo, &hi)) madvise((void *)lo, hi - lo, MADV_POPULATE_READ);
#else
    (void)m, (void)p, (void)n;
#endif
}

void pk_map_release_range(const pk_mapfile *m, const void *p, uint64_t n)
{
    uintptr_t lo, hi;
    if (pages_within(m, p, n, &lo, &hi)) madvise((void *)lo, hi - lo, MADV_DONTNEED);
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

void pk_mem_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (!p || n < 2 * huge || !pk_huge_pages_wanted()) return;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + n) & ~(huge - 1);
    if (hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* advice: failing changes nothing */
#else
    (void)p, (void)n;
#endif
}

void *pk_malloc_big(size_t n)
{
    n = pk_big_bytes(n);
    void *p = malloc(n);
    pk_mem_huge(p, n);
    return p;
}

void *pk_calloc_big(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) return NULL;
    size_t n = pk_big_bytes(count * size);
    void *p = calloc(1, n);
    pk_mem_huge(p, n);
    return p;
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
    if (!r->m || !p || p < r->m->data || p > r->m->data + r->m->size) return;
    if (!r->from || p < r->from) { /* first position, or the scan jumped back */
        r->from = p;
        return;
    }
    if ((uint64_t)(p - r->from) >= RELEASE_STEP) release_range(r, p);
}

void pk_release_finish(pk_release *r, const void *pos)
{
    const unsigned char *p = pos;
    if (!r->m || !r->from || !p || p < r->from || p > r->m->data + r->m->size) return;
    release_range(r, p);
}
