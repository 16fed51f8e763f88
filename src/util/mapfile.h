/*
 * util/mapfile.h — read-only memory mapping of a whole file.
 *
 * Readers work on the mapped bytes in place (zero-copy): values in the
 * model point straight into the mapping, which lives as long as the
 * profile. Empty files map to a non-NULL zero-length buffer. Only regular
 * files are mapped (infile.h).
 *
 * A file may shrink while it is mapped. Every mapping is watched by the
 * SIGBUS guard (busguard.h): bytes past the new end read as zeros instead
 * of killing the process, and the damage is found afterwards by
 * pk_map_damage() (the guard's record, or a stat showing the same file
 * shorter than its mapping). pk_unmap_file() notes damage it finds on the
 * calling thread, so whoever drives a reader learns of it even when the
 * reader has already let go of the file (pk_map_damage_report()).
 */
#ifndef PK_UTIL_MAPFILE_H
#define PK_UTIL_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "profkit/status.h"

struct pk_guard;

typedef struct pk_mapfile {
    const unsigned char *data;
    uint64_t size;
    int mapped; /* 1 if data must be munmap'ed */
    struct pk_guard *guard;
    char *path; /* malloc'ed copy, for the damage check and its message */
    uint64_t dev, ino;
} pk_mapfile;

/* Map `path`. On failure sets the last error naming the path. The
 * kernel is told the whole file will be read soon (MADV_WILLNEED). */
pk_status pk_map_file(const char *path, pk_mapfile *out);
/* The same, without the read-ahead hint: for files of which a reader may
 * touch only a part (a big profile.db answered from its summary). */
pk_status pk_map_file_cold(const char *path, pk_mapfile *out);
/* The read-ahead hint of pk_map_file(), given later. */
void pk_map_willneed(const pk_mapfile *m);
void pk_unmap_file(pk_mapfile *m);

/* A buffer files are read into, one after the other: for readers of many
 * small files that copy what they keep (an hpcrun measurement holds
 * thousands), reading costs a read(2) instead of a mapping, its page
 * faults and its unmapping. Files above `limit` bytes are mapped. */
typedef struct pk_loadbuf {
    unsigned char *data;
    size_t cap;
    uint64_t limit;
} pk_loadbuf;
/* `path` into buf (or mapped, when bigger than buf->limit): *out as from
 * pk_map_file, valid until the next load; release it with pk_unmap_file. */
pk_status pk_load_file(const char *path, pk_loadbuf *buf, pk_mapfile *out);
void pk_loadbuf_free(pk_loadbuf *buf);
/* 1 if the file behind a mapping shrank after it was mapped; *offset (may
 * be NULL) gets the first byte that is no longer the file's. */
int pk_map_damage(const pk_mapfile *m, uint64_t *offset);
/* PK_OK, or PK_ERR_FORMAT with a message naming the file and offset if
 * the file behind `m` shrank. */
pk_status pk_map_check(const pk_mapfile *m);
/* Damage pk_unmap_file() found on this thread since the last call:
 * PK_OK, or PK_ERR_FORMAT with the message of the first damaged file.
 * Clears the record. */
pk_status pk_map_damage_report(void);
/* A reader about to read every byte of m: map all its pages now, in one
 * call, instead of taking a page fault every few pages (a hint; ignored
 * where the kernel cannot do it). */
void pk_map_prefault(const pk_mapfile *m);
/* Map [p, p + n) of mapping m in one call (the whole pages within it), for
 * a scan about to read that part; and give those pages back after it
 * (madvise DONTNEED: they stay in the page cache). No-ops for memory the
 * mapping does not hold or a mapping made by reading. */
void pk_map_populate_range(const pk_mapfile *m, const void *p, uint64_t n);
void pk_map_release_range(const pk_mapfile *m, const void *p, uint64_t n);
/* The same for fresh memory about to be written: [p, p + n) of a malloc'd
 * block. On virtual machines a page fault can cost ten microseconds, so
 * mapping a big output buffer in one call is many times faster. */
void pk_mem_prefault(void *p, size_t n);
/* A big block of fresh memory ([p, p + n), 4 MiB or more, not yet
 * touched) backed by transparent huge pages where the kernel offers them
 * on request (THP "madvise", Debian's default): one fault and one zeroing
 * per 2 MiB instead of 512, and a cheaper munmap. A rebuilt Callgrind tree
 * spent a fifth of its time faulting and unmapping 4 KiB pages. Nothing
 * where pk_huge_pages_wanted() says no (util/hugepolicy.c). */
void pk_mem_huge(void *p, size_t n);
/* malloc() and calloc() of big arrays, with pk_mem_huge(), their sizes
 * rounded by pk_big_bytes() (util/bigsize.h) */
void *pk_malloc_big(size_t n);
void *pk_calloc_big(size_t count, size_t size);
/* Whole-file scans (validation, totals) read each byte of a mapping once.
 * A release window gives the pages behind the scan back (madvise
 * DONTNEED: they stay in the page cache, a later access maps them again),
 * so the resident size of a scan over a file of any size stays at a few
 * megabytes per worker. Only mapped files are touched; a window over
 * caller-owned memory (m == NULL or not mapped) does nothing. */
typedef struct pk_release {
    const pk_mapfile *m;
    const unsigned char *from; /* scanned bytes since here are not released yet */
} pk_release;

void pk_release_start(pk_release *r, const pk_mapfile *m);
/* The scan has reached `pos`: release what lies behind it once enough
 * has accumulated. */
void pk_release_advance(pk_release *r, const void *pos);
/* Release everything behind `pos` now. */
void pk_release_finish(pk_release *r, const void *pos);

/* 1 if `path` exists (any type), 0 if not. */
int pk_path_exists(const char *path);
/* 1 if `path` is a directory. */
int pk_path_is_dir(const char *path);

#endif
