/*
 * formats/cube/values.h — one metric's stored values, as data.c finds
 * them and place.c moves them into the model.
 */
#ifndef PK_FORMATS_CUBE_VALUES_H
#define PK_FORMATS_CUBE_VALUES_H

#include <stdint.h>

#include "cube.h"
#include "util/bytes.h"
#include "util/mapfile.h"

/* Largest UINT64 that survives CubeLib's uint64 -> double -> uint64 casts;
 * above it (within 1024 of 2^64) the cast is undefined and yields 0 on the
 * machines Cube runs on, and pycubexr reads such values as 0 too. */
#define CUBE_MAX_U64_AS_DOUBLE 0xFFFFFFFFFFFFFBFFull

/* One metric's data, located and checked. */
typedef struct job {
    uint32_t mdef;
    int swap;                  /* file endianness differs from little-endian */
    const unsigned char *rows; /* sparse: n_rows u32; NULL: dense */
    uint32_t n_rows;
    const unsigned char *data; /* n_rows x n_locs values */
    unsigned char *inflated;   /* malloc, for ZCUBEX.DATA */
    unsigned char *own_rows;   /* malloc: the rows ZCUBEX.DATA gives values */
    /* ZCUBEX.DATA kept compressed (a row store inflates a row at a time):
     * data is NULL, ztable the row table (24 bytes a row), zbase where the
     * streams' offsets count from. Rows stored empty or inflating to
     * zeros are left out: zentry[i] is row i's entry in the table (it
     * points into own_rows, which it shares). */
    const unsigned char *ztable, *zbase;
    const uint32_t *zentry;
} job;

static inline uint32_t get32(const unsigned char *d, int swap)
{
    uint32_t v = pk_le32(d);
    return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t get64(const unsigned char *d, int swap)
{
    uint64_t v = pk_le64(d);
    return swap ? __builtin_bswap64(v) : v;
}

/* Cnode def of enumeration position `row` of a metric. */
static inline uint32_t cnode_of_row(const cube_read *r, const cube_mbuilt *b, uint32_t row)
{
    return b->inclusive ? r->wide[row] : row;
}

/* data.c: metric definition i's N.index and N.data located and checked
 * into *j (j->data and j->ztable NULL when it has no data members);
 * `seen` holds n_cnodes + 1 bytes of scratch. With r->keep_rows,
 * ZCUBEX.DATA stays compressed (cube_zrow reads a row). */
pk_status cube_locate(cube_read *r, uint32_t i, job *j, unsigned char *seen);

/* dtype.c: n stored entries of type t at s as doubles, n_comp per entry. */
void cube_decode(const cube_dtype *t, int swap, const unsigned char *s, size_t n, double *out);

/* zrows.c: ZCUBEX.DATA rows kept compressed. Check member m for job j
 * (every row inflates to one row of row_bytes; UINT64 values beyond a
 * double counted into *beyond), then set j->ztable/zbase and keep only
 * the rows with a value (j->rows, j->n_rows, j->zentry in j->own_rows). */
pk_status cube_zrows_check(cube_read *r, const cube_member *m, job *j, uint64_t row_bytes,
                           uint64_t *beyond);
/* Row i of such a job into out (row_bytes; zeros for a row stored empty). */
void cube_zrow(const job *j, uint32_t i, uint64_t row_bytes, unsigned char *out);
/* A copy of such a job with every row inflated (for place.c; free its
 * `inflated`), charged to r's budget. */
pk_status cube_zjob_inflate(cube_read *r, const job *j, job *out);

/* place.c: every job's values into the model's location planes. */
pk_status cube_place_values(cube_read *r, const job *jobs, size_t n_jobs);

/* rows.c: the model's row store over a file's jobs. It owns the reader's
 * state (moved in once the model is built), the jobs and the inflated
 * archive; the mapping it reads belongs to the profile. */
typedef struct cube_store {
    pk_row_store ops;
    cube_read r;
    job *jobs;
    size_t n_jobs;
    uint32_t n_cols;
    uint32_t *col_job, *col_comp; /* column -> job (UINT32_MAX: none), component */
    uint32_t **ctx;               /* per job: context of each row, then the root's */
    uint8_t **top;                /* per job: 1 for a top-level cnode's row */
    unsigned char *tar;           /* malloc: the inflated gzip-wrapped archive, or NULL */
    const pk_mapfile *map;        /* the archive's mapping, or NULL */
} cube_store;

pk_status cube_store_setup(cube_store *s);
void cube_store_free(cube_store *s);

#endif /* PK_FORMATS_CUBE_VALUES_H */
