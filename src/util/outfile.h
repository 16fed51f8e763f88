/*
 * util/outfile.h — buffered sequential writing of one output file.
 *
 * Writers produce big files (a profile.db can be gigabytes) front to back:
 * small fields go through a 1 MiB buffer, large blocks (value planes that
 * already sit in memory or in a mapped input) go straight to write(2)
 * without a copy. The offset is tracked so a writer can check that what
 * it writes lands where its precomputed layout said. The first error
 * sticks: later calls do nothing, pk_out_close() reports it, naming the
 * file.
 */
#ifndef PK_UTIL_OUTFILE_H
#define PK_UTIL_OUTFILE_H

#include <stddef.h>
#include <stdint.h>

#include "profkit/status.h"
#include "safeout.h"

typedef struct pk_out {
    int fd;
    const char *path; /* for messages; must outlive the pk_out */
    pk_safeout *safe; /* set by pk_out_create: committed by pk_out_commit */
    unsigned char *buf;
    size_t used, cap;
    uint64_t offset; /* bytes written so far (buffered ones included) */
    pk_status status;
} pk_out;

/* Create `path` (which must not exist; a symbolic link is refused) for
 * writing: a file inside an output directory that safeout.h made. */
pk_status pk_out_open(pk_out *o, const char *path);
/* Write into the existing file `path` (inside an output directory that
 * safeout.h made; a symbolic link is refused) from byte `offset` on:
 * members of a parallel build each write their own parts of one file. */
pk_status pk_out_at(pk_out *o, const char *path, uint64_t offset);
/* Go on writing at byte `offset` (after what is buffered is written). */
void pk_out_seek(pk_out *o, uint64_t offset);
/* Start the output file `target` the safe way (safeout.h; flags:
 * PK_WRITE_FORCE or 0), written through `o` and put in place by
 * pk_out_commit(). */
pk_status pk_out_create(pk_out *o, const char *target, uint32_t flags);
/* Finish an output pk_out_create() started: with st == PK_OK and no
 * write error, flush and put it in place; otherwise remove it. Returns
 * the first error (st's, if any). Frees what pk_out_create() took. */
pk_status pk_out_commit(pk_out *o, pk_status st);
void pk_out_bytes(pk_out *o, const void *data, size_t n);
void pk_out_zeros(pk_out *o, uint64_t n);
/* Pad with zeros up to a multiple of `align` (a power of two). */
void pk_out_align(pk_out *o, unsigned align);
void pk_out_u8(pk_out *o, uint8_t v);
void pk_out_u16(pk_out *o, uint16_t v);
void pk_out_u32(pk_out *o, uint32_t v);
void pk_out_u64(pk_out *o, uint64_t v);
/* Fail (sticky) unless the file is exactly at `offset`: a layout bug. */
void pk_out_expect(pk_out *o, uint64_t offset, const char *what);
/* Flush, fsync-free close; returns the first error, if any. */
pk_status pk_out_close(pk_out *o);

/* Write a whole in-memory image to a new file `path`. */
pk_status pk_write_file(const char *path, const void *data, size_t n);

#endif
