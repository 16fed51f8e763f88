/*
 * formats/cube/data.c — N.index and N.data into the model's value planes.
 *
 * Each metric with data is located and checked here (index rows, data
 * sizes, ZCUBEX inflated); place.c then moves the values into the model's
 * location planes. Row numbers in N.index are positions in a call-tree
 * enumeration, not cnode ids: depth-first for EXCLUSIVE metrics, CubeLib's
 * wide search for INCLUSIVE ones (field notes, "N.index").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cube.h"
#include "util/bytes.h"
#include "util/error.h"
#include "values.h"

#define IDX_MAGIC   "CUBEX.INDEX"
#define DATA_MAGIC  "CUBEX.DATA"
#define ZDATA_MAGIC "ZCUBEX.DATA"
#define IDX_HEADER  18 /* magic 11, endian 4, version 2, format 1 */
enum { INDEX_SPARSE = 1, INDEX_DENSE = 3 };

static pk_status member_error(const cube_read *r, const cube_member *m, uint64_t at,
                              const char *what)
{
    return pk_fail(PK_ERR_FORMAT, "%s: member %s, byte %llu of the archive: %s", r->path, m->name,
                   (unsigned long long)(m->offset + at), what);
}

static pk_status read_index(cube_read *r, const cube_member *m, job *j, unsigned char *seen)
{
    uint32_t n_cnodes = (uint32_t)r->a.n_cnodes;
    if (m->size < IDX_HEADER || memcmp(m->data, IDX_MAGIC, 11) != 0)
        return member_error(r, m, 0, "not a CUBEX.INDEX header");
    uint32_t endian = pk_le32(m->data + 11);
    if (endian != 1 && endian != 0x01000000u)
        return member_error(r, m, 11, "the endianness marker is neither 1 nor 1 byte-swapped");
    j->swap = endian != 1;
    uint8_t format = m->data[17];
    if (format == INDEX_DENSE) {
        j->rows = NULL, j->n_rows = n_cnodes;
        return PK_OK;
    }
    if (format != INDEX_SPARSE) return member_error(r, m, 17, "unknown index format");
    if (m->size < IDX_HEADER + 4) return member_error(r, m, IDX_HEADER, "the row count is cut off");
    uint64_t n = get32(m->data + IDX_HEADER, j->swap);
    if (n > (m->size - IDX_HEADER - 4) / 4)
        return member_error(r, m, IDX_HEADER, "the row list runs past the end of the member");
    j->rows = m->data + IDX_HEADER + 4, j->n_rows = (uint32_t)n;
    memset(seen, 0, n_cnodes + 1u);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t row = get32(j->rows + 4 * (size_t)i, j->swap);
        if (row >= n_cnodes || seen[row]) {
            char msg[160];
            snprintf(msg, sizeof msg, "row %u is %s (the call tree has %u nodes)", row,
                     row >= n_cnodes ? "out of range" : "listed twice", n_cnodes);
            return member_error(r, m, IDX_HEADER + 4 + 4 * (uint64_t)i, msg);
        }
        seen[row] = 1;
    }
    return PK_OK;
}

/* Row number of the i-th entry of a job's index (dense: i itself). */
static uint32_t row_of(const job *j, uint32_t i)
{
    return j->rows ? get32(j->rows + 4 * (size_t)i, j->swap) : i;
}

static int all_zero(const unsigned char *d, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (d[i]) return 0;
    return 1;
}

/* The ZCUBEX row table: n entries after the header, each within the
 * member; *n_stored gets how many hold a stream (size > 0). */
static pk_status check_row_table(cube_read *r, const cube_member *m, const job *j,
                                 uint64_t *n_stored)
{
    const uint64_t head = 11 + 8;
    if (m->size < head) return member_error(r, m, 11, "the row count is cut off");
    uint64_t n = get64(m->data + 11, j->swap);
    if (n != j->n_rows) return member_error(r, m, 11, "the row count differs from N.index");
    if (n > (m->size - head) / 24) return member_error(r, m, head, "the row table is cut off");
    uint64_t base = head + 24 * n;
    *n_stored = 0;
    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *e = m->data + head + 24 * i;
        uint64_t at = get64(e + 8, j->swap), size = get64(e + 16, j->swap);
        if (at > m->size - base || size > m->size - base - at)
            return member_error(r, m, head + 24 * i, "a compressed row lies outside the member");
        *n_stored += size != 0;
    }
    return PK_OK;
}

/* Inflate ZCUBEX.DATA: one zlib stream per row (CubeW
 * cube_metric_write_row). Dense storage only where the data is dense:
 * a row stored empty (pycubexr reads it as all zero) or inflating to
 * zeros is left out, and the job keeps its own list of the rows that
 * remain. The rows that hold a stream are charged to the budget before
 * anything is inflated, so a small member that claims gigabytes of rows
 * is refused at once. */
/* The row table checked, and what its rows inflate to charged to the
 * budget: *stored rows hold a stream, of row_bytes each. */
static pk_status claim_rows(cube_read *r, const cube_member *m, job *j, uint64_t row_bytes,
                            uint64_t *n_stored)
{
    uint64_t stored = 0;
    pk_status st = check_row_table(r, m, j, &stored);
    if (!st && stored && row_bytes > UINT64_MAX / stored)
        return member_error(r, m, 11, "the rows' size overflows");
    if (!st)
        st = pk_budget_charge(&r->budget, stored * row_bytes,
                              "%s: member %s, byte %llu of the archive: %llu compressed rows of "
                              "%llu bytes",
                              r->path, m->name, (unsigned long long)m->offset + 11,
                              (unsigned long long)stored, (unsigned long long)row_bytes);
    if (!st) *n_stored = stored;
    return st;
}

static pk_status inflate_rows(cube_read *r, const cube_member *m, job *j, uint64_t row_bytes)
{
    uint64_t stored = 0, head = 11 + 8, base = head + 24 * (uint64_t)j->n_rows;
    pk_status st = claim_rows(r, m, j, row_bytes, &stored);
    if (st) return st;
    j->inflated = malloc(stored * row_bytes + 1);
    j->own_rows = malloc(stored * 4 + 4);
    if (!j->inflated || !j->own_rows) return pk_fail_nomem("inflating ZCUBEX.DATA");
    uint32_t kept = 0;
    for (uint32_t i = 0; i < j->n_rows; i++) {
        const unsigned char *e = m->data + head + 24 * (uint64_t)i;
        uint64_t at = get64(e + 8, j->swap), size = get64(e + 16, j->swap);
        uLongf got = (uLongf)row_bytes;
        unsigned char *out = j->inflated + kept * row_bytes;
        if (size == 0) continue;
        if (uncompress(out, &got, m->data + base + at, (uLong)size) != Z_OK || got != row_bytes)
            return member_error(r, m, base + at, "a compressed row does not inflate to one row");
        if (all_zero(out, row_bytes)) continue;
        uint32_t row = row_of(j, i);
        pk_put_le32(j->own_rows + 4 * (size_t)kept++, j->swap ? __builtin_bswap32(row) : row);
    }
    j->rows = j->own_rows, j->n_rows = kept, j->data = j->inflated;
    return PK_OK;
}

static void report_beyond(cube_read *r, const job *j, const cube_member *m, uint64_t beyond);

static pk_status read_data(cube_read *r, const cube_member *m, job *j, uint32_t size)
{
    uint64_t row_bytes = (uint64_t)r->n_locs * size;
    if (m->size >= 11 && memcmp(m->data, ZDATA_MAGIC, 11) == 0 && r->keep_rows) {
        /* Kept compressed, but a file is refused as before when its rows
         * claim more than the budget: each question inflates them again,
         * so the budget bounds the work a small file can demand too. */
        uint64_t stored = 0, beyond = 0;
        pk_status st = claim_rows(r, m, j, row_bytes, &stored);
        if (!st) pk_budget_release(&r->budget, stored * row_bytes);
        if (!st) st = cube_zrows_check(r, m, j, row_bytes, &beyond);
        if (!st) report_beyond(r, j, m, beyond);
        return st;
    }
    if (m->size >= 11 && memcmp(m->data, ZDATA_MAGIC, 11) == 0)
        return inflate_rows(r, m, j, row_bytes);
    if (m->size < 10 || memcmp(m->data, DATA_MAGIC, 10) != 0)
        return member_error(r, m, 0, "neither a CUBEX.DATA nor a ZCUBEX.DATA header");
    uint64_t have = m->size - 10;
    if (row_bytes && j->n_rows > have / row_bytes) {
        char msg[200];
        snprintf(msg, sizeof msg, "%u rows of %llu bytes need %llu bytes, the member has %llu",
                 j->n_rows, (unsigned long long)row_bytes,
                 (unsigned long long)(j->n_rows * row_bytes), (unsigned long long)have);
        return member_error(r, m, 10, msg);
    }
    if (have != j->n_rows * row_bytes)
        pk_model_diag(r->p, PK_SEV_WARNING, "trailing-data", r->path, m->name, 1,
                      m->offset + 10 + j->n_rows * row_bytes,
                      "%llu bytes after the last row are ignored",
                      (unsigned long long)(have - j->n_rows * row_bytes));
    j->data = m->data + 10;
    return PK_OK;
}

/* UINT64 values beyond CUBE_MAX_U64_AS_DOUBLE (values.h) are what Score-P
 * writes when a hardware counter difference went negative (pycubexr's
 * L2_DCM_negative sample). */
static int beyond_double(const unsigned char *v, int swap)
{
    return get64(v, swap) > CUBE_MAX_U64_AS_DOUBLE;
}

/* Such values are read as 0, as CubeLib reads them and pycubexr simulates
 * (classes/values.py convert_type), and reported: following the tools
 * keeps every sum equal to theirs, and the warning says what was done. */
static void report_beyond(cube_read *r, const job *j, const cube_member *m, uint64_t beyond)
{
    if (beyond)
        pk_model_diag(r->p, PK_SEV_WARNING, "unsigned-overflow", r->path, m->name, 1, m->offset,
                      "%llu values of UINT64 metric %s are within 1024 of 2^64 (a counter that "
                      "went backwards): read as 0, as CubeLib and pycubexr read them",
                      (unsigned long long)beyond, r->a.mdefs[j->mdef].uniq);
}

/* Values in place are counted a MB at a time, each part's pages given
 * back after it: the file's values are not all held at once. */
static void count_beyond_double(cube_read *r, const job *j, const cube_member *m)
{
    if (r->mb[j->mdef].type.dt != DT_U64 || !j->data) return;
    uint64_t n = (uint64_t)j->n_rows * r->n_locs, beyond = 0, step = (1u << 20) / 8;
    for (uint64_t i0 = 0; i0 < n; i0 += step) {
        uint64_t e = n - i0 < step ? n : i0 + step;
        for (uint64_t i = i0; i < e; i++)
            beyond += (uint64_t)beyond_double(j->data + 8 * i, j->swap);
        if (!j->inflated) pk_map_release_range(r->map, j->data + 8 * i0, 8 * (e - i0));
    }
    report_beyond(r, j, m, beyond);
}

/* Locate and check metric definition i's members; *j->data NULL when the
 * metric has no data members (all values zero). */
pk_status cube_locate(cube_read *r, uint32_t i, job *j, unsigned char *seen)
{
    const cube_mdef *d = &r->a.mdefs[i];
    char name[32];
    memset(j, 0, sizeof *j);
    j->mdef = i;
    snprintf(name, sizeof name, "%u.index", d->id);
    const cube_member *mi = cube_tar_find(&r->tar, name);
    snprintf(name, sizeof name, "%u.data", d->id);
    const cube_member *md = cube_tar_find(&r->tar, name);
    if (!mi && !md) return PK_OK;
    if (!mi || !md)
        return pk_fail(PK_ERR_FORMAT, "%s: metric %s (id %u) has %s but no %u.%s", r->path, d->uniq,
                       d->id, mi ? "an index" : "data", d->id, mi ? "data" : "index");
    pk_status st = read_index(r, mi, j, seen);
    if (!st) st = read_data(r, md, j, r->mb[i].type.size);
    if (!st) count_beyond_double(r, j, md);
    return st;
}

/* Metrics read their rows in place from their data members; honest
 * archives give each metric its own member, so rows adding up to more than
 * the archive holds mean members shared between metrics (several metric
 * definitions with one id): work and memory the bytes do not pay for. The
 * excess is charged to the budget (inflated rows were charged already). */
static pk_status charge_shared(cube_read *r, const job *j, uint64_t *claimed, uint64_t *charged)
{
    if (j->inflated || !j->data) return PK_OK;
    uint64_t bytes = (uint64_t)j->n_rows * r->n_locs * r->mb[j->mdef].type.size;
    *claimed = bytes > UINT64_MAX - *claimed ? UINT64_MAX : *claimed + bytes;
    uint64_t excess = *claimed > r->archive_bytes ? *claimed - r->archive_bytes : 0;
    if (excess <= *charged) return PK_OK;
    pk_status st = pk_budget_charge(&r->budget, excess - *charged,
                                    "%s: metric %s: the data rows of its metrics add up to %llu "
                                    "bytes, more than the archive's %llu (data members shared "
                                    "between metrics)",
                                    r->path, r->a.mdefs[j->mdef].uniq, (unsigned long long)*claimed,
                                    (unsigned long long)r->archive_bytes);
    if (!st) *charged = excess;
    return st;
}

/* Find every metric's data; a damaged one fails the open, or with
 * KEEP_GOING is dropped (reported, profile marked incomplete). */
static pk_status collect_jobs(cube_read *r, job *jobs, size_t *n_jobs)
{
    uint64_t claimed = 0, charged = 0;
    unsigned char *seen = malloc(r->a.n_cnodes + 1);
    if (!seen) return pk_fail_nomem("reading indexes");
    pk_status st = PK_OK;
    for (uint32_t i = 0; i < r->a.n_mdefs && !st; i++) {
        if (r->mb[i].column == PK_NONE) continue;
        job *j = &jobs[*n_jobs];
        st = cube_locate(r, i, j, seen);
        if (st && (r->flags & PK_OPEN_KEEP_GOING) && st != PK_ERR_NOMEM) {
            pk_model_diag(r->p, PK_SEV_ERROR, "metric-dropped", r->path, r->a.mdefs[i].uniq, 0, 0,
                          "%s", pk_error_last());
            r->p->complete = 0;
            st = PK_OK;
            j->data = NULL;
        }
        if (!st && (j->data || j->ztable) && j->n_rows &&
            (st = charge_shared(r, j, &claimed, &charged)) == PK_OK) {
            (*n_jobs)++;
        } else if (!st) { /* no data members, or nothing in them */
            free(j->inflated), free(j->own_rows);
            j->inflated = NULL, j->own_rows = NULL;
        }
    }
    free(seen);
    return st;
}

/* The jobs and the reader's state into a row store the profile keeps. */
static pk_status keep_rows(cube_read *r, job *jobs, size_t n_jobs)
{
    cube_store *s = calloc(1, sizeof *s);
    if (!s) return pk_fail_nomem("keeping Cube rows");
    s->r = *r;
    s->jobs = jobs, s->n_jobs = n_jobs;
    /* the store owns them now; r keeps only what the caller frees itself */
    r->tar = (cube_tar){0}, r->a = (cube_anchor){0};
    r->a.program_title = s->r.a.program_title; /* interned: the profile's */
    r->mb = NULL, r->ctx_of = NULL, r->bucket_of = NULL, r->wide = NULL, r->loc_col = NULL;
    s->r.store = NULL;
    r->store = s;
    pk_status st = cube_store_setup(s);
    if (!st) pk_model_attach_rows(r->p, &s->ops);
    return st;
}

pk_status cube_read_values(cube_read *r)
{
    job *jobs = calloc(r->a.n_mdefs + 1, sizeof *jobs);
    size_t n_jobs = 0;
    if (!jobs) return pk_fail_nomem("reading values");
    pk_status st = collect_jobs(r, jobs, &n_jobs);
    if (!st && r->keep_rows) {
        for (size_t k = n_jobs; k < r->a.n_mdefs; k++) /* slots collect_jobs left unused */
            free(jobs[k].inflated), free(jobs[k].own_rows);
        return keep_rows(r, jobs, n_jobs);
    }
    if (!st) st = cube_place_values(r, jobs, n_jobs);
    for (size_t k = 0; k < r->a.n_mdefs; k++)
        free(jobs[k].inflated), free(jobs[k].own_rows);
    free(jobs);
    return st;
}
