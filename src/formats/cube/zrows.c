/*
 * formats/cube/zrows.c — ZCUBEX.DATA kept compressed for the row store:
 * one zlib stream per row (CubeW cube_metric_write_row), inflated a row
 * at a time when a question reads it, so a compressed file costs a row of
 * memory, not its inflated size. Opening still inflates every row once,
 * into one scratch row, so that a damaged stream fails the open rather
 * than a later question.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/error.h"
#include "values.h"

#define ZHEAD (11 + 8) /* magic, row count */

/* Stream of row i: its offset from zbase and its size. */
static void stream_of(const job *j, uint32_t i, uint64_t *at, uint64_t *size)
{
    const unsigned char *e = j->ztable + 24 * (uint64_t)i;
    *at = get64(e + 8, j->swap), *size = get64(e + 16, j->swap);
}

static int inflate_row(const job *j, uint32_t i, uint64_t row_bytes, unsigned char *out)
{
    uint64_t at, size;
    stream_of(j, i, &at, &size);
    if (size == 0) {
        memset(out, 0, row_bytes);
        return 1;
    }
    uLongf got = (uLongf)row_bytes;
    return uncompress(out, &got, j->zbase + at, (uLong)size) == Z_OK && got == row_bytes;
}

void cube_zrow(const job *j, uint32_t i, uint64_t row_bytes, unsigned char *out)
{
    if (!inflate_row(j, i, row_bytes, out)) /* checked at open; the file changed since */
        memset(out, 0, row_bytes);
}

pk_status cube_zrows_check(cube_read *r, const cube_member *m, job *j, uint64_t row_bytes,
                           uint64_t *beyond)
{
    uint64_t base = ZHEAD + 24 * (uint64_t)j->n_rows; /* the table was checked by the caller */
    j->ztable = m->data + ZHEAD, j->zbase = m->data + base;
    pk_status st =
        pk_budget_charge(&r->budget, row_bytes, "%s: member %s: a compressed row of %llu bytes",
                         r->path, m->name, (unsigned long long)row_bytes);
    unsigned char *row = st ? NULL : malloc(row_bytes + 1);
    if (!st && !row) st = pk_fail_nomem("checking ZCUBEX.DATA");
    int u64 = r->mb[j->mdef].type.dt == DT_U64;
    for (uint32_t i = 0; !st && i < j->n_rows; i++) {
        if (!inflate_row(j, i, row_bytes, row)) {
            uint64_t at, size;
            stream_of(j, i, &at, &size);
            st = pk_fail(PK_ERR_FORMAT,
                         "%s: member %s, byte %llu of the archive: a compressed row does not "
                         "inflate to one row",
                         r->path, m->name, (unsigned long long)(m->offset + base + at));
        }
        for (uint64_t k = 0; u64 && k + 8 <= row_bytes; k += 8)
            *beyond += get64(row + k, j->swap) > CUBE_MAX_U64_AS_DOUBLE;
    }
    free(row);
    if (row) pk_budget_release(&r->budget, row_bytes);
    return st;
}

pk_status cube_zjob_inflate(cube_read *r, const job *j, job *out)
{
    uint64_t row_bytes = (uint64_t)r->n_locs * r->mb[j->mdef].type.size;
    *out = *j;
    if (row_bytes && j->n_rows > UINT64_MAX / row_bytes)
        return pk_fail(PK_ERR_FORMAT, "%s: ZCUBEX rows overflow", r->path);
    pk_status st =
        pk_budget_charge(&r->budget, j->n_rows * row_bytes, "%s: %u compressed rows of %llu bytes",
                         r->path, j->n_rows, (unsigned long long)row_bytes);
    if (st) return st;
    out->inflated = malloc(j->n_rows * row_bytes + 1);
    if (!out->inflated) return pk_fail_nomem("inflating ZCUBEX.DATA");
    for (uint32_t i = 0; i < j->n_rows; i++)
        cube_zrow(j, i, row_bytes, out->inflated + i * row_bytes);
    out->data = out->inflated, out->own_rows = NULL;
    return PK_OK;
}
