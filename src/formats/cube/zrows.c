/*
 * formats/cube/zrows.c — ZCUBEX.DATA kept compressed for the row store:
 * one zlib stream per row (CubeW cube_metric_write_row), inflated a row
 * at a time when a question reads it, so a compressed file costs a row of
 * memory, not its inflated size. Opening still inflates every row once,
 * into one scratch row, so that a damaged stream fails the open rather
 * than a later question, and keeps only the rows that hold a value: rows
 * stored empty or inflating to zeros cost nothing after the open (a file
 * of N empty rows of N locations took N^2 time and memory in every
 * question that reads rows).
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
    const unsigned char *e = j->ztable + 24 * (uint64_t)(j->zentry ? j->zentry[i] : i);
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

static int all_zero(const unsigned char *d, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (d[i]) return 0;
    return 1;
}

/* Row i of the table holds a stream that inflates to one row: *kept says
 * whether it has a value; UINT64 values beyond a double counted. */
static pk_status check_row(cube_read *r, const cube_member *m, const job *j, uint32_t i,
                           uint64_t row_bytes, unsigned char *row, int *kept, uint64_t *beyond)
{
    uint64_t at, size;
    stream_of(j, i, &at, &size);
    *kept = 0;
    if (size == 0) return PK_OK; /* stored empty: all zero, nothing to inflate */
    if (!inflate_row(j, i, row_bytes, row))
        return pk_fail(PK_ERR_FORMAT,
                       "%s: member %s, byte %llu of the archive: a compressed row does not "
                       "inflate to one row",
                       r->path, m->name,
                       (unsigned long long)(m->offset + (uint64_t)(j->zbase - m->data) + at));
    for (uint64_t k = 0; r->mb[j->mdef].type.dt == DT_U64 && k + 8 <= row_bytes; k += 8)
        *beyond += get64(row + k, j->swap) > CUBE_MAX_U64_AS_DOUBLE;
    *kept = !all_zero(row, row_bytes);
    return PK_OK;
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
    /* the kept rows' numbers (as j->rows holds them), then their entries */
    unsigned char *kept_rows = st ? NULL : malloc(8 * (size_t)j->n_rows + 8);
    if (!st && (!row || !kept_rows)) st = pk_fail_nomem("checking ZCUBEX.DATA");
    uint32_t *entry = kept_rows ? (uint32_t *)(kept_rows + 4 * (size_t)j->n_rows) : NULL;
    uint32_t n_kept = 0;
    for (uint32_t i = 0; !st && i < j->n_rows; i++) {
        int kept;
        st = check_row(r, m, j, i, row_bytes, row, &kept, beyond);
        if (st || !kept) continue;
        uint32_t number = j->rows ? get32(j->rows + 4 * (size_t)i, j->swap) : i;
        pk_put_le32(kept_rows + 4 * (size_t)n_kept, j->swap ? __builtin_bswap32(number) : number);
        entry[n_kept++] = i;
    }
    free(row);
    if (row) pk_budget_release(&r->budget, row_bytes);
    if (st) return free(kept_rows), st;
    j->own_rows = kept_rows, j->rows = kept_rows, j->zentry = entry, j->n_rows = n_kept;
    return PK_OK;
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
