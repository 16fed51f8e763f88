/*
 * model/loc_plane.c — one location's plane read straight from a row store,
 * for questions about a few locations (a location cursor, a point lookup,
 * `--location`), so they copy that location's values and nothing else.
 *
 * A row holds one value per location, so location l's values are the l-th
 * value of every row of every plain column: a strided read of the mapped
 * rows (each compressed row inflated once). Building every plane (the
 * transpose) costs the same pass and ~10 bytes per value of the whole
 * file, so it is kept for questions that walk all locations: after
 * PK_LOC_PLANES_ALONE locations built alone, the next one builds them all
 * (docs/model.md, "Value stores").
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "util/bytes.h"

#define PK_LOC_PLANES_ALONE 8

/* One value of the location, in column order until sorted by context. */
typedef struct loc_val {
    uint32_t ctx;
    uint16_t raw;
    double v;
} loc_val;

typedef struct loc_buf {
    loc_val *v;
    uint64_t n, cap;
} loc_buf;

static pk_status push(loc_buf *b, uint32_t ctx, uint16_t raw, double v)
{
    if (b->n == b->cap) {
        uint64_t cap = b->cap ? 2 * b->cap : 1024;
        loc_val *nv = realloc(b->v, cap * sizeof *nv);
        if (!nv) return pk_fail_nomem("reading a location's values");
        b->v = nv, b->cap = cap;
    }
    b->v[b->n++] = (loc_val){ctx, raw, v};
    return PK_OK;
}

/* Plain columns in ascending raw id: the order of a plane's runs. */
static uint32_t *columns_by_raw(const pk_profile *p, uint32_t *n)
{
    uint32_t *c = malloc(((size_t)p->n_columns + 1) * sizeof *c);
    if (!c) return NULL;
    *n = 0;
    for (uint32_t i = 0; i < p->n_columns; i++) {
        if (p->columns[i].is_summary || p->columns[i].raw_id > UINT16_MAX) continue;
        uint32_t k = (*n)++;
        for (; k > 0 && p->columns[c[k - 1]].raw_id > p->columns[i].raw_id; k--)
            c[k] = c[k - 1];
        c[k] = i;
    }
    return c;
}

/* Location loc's non-zero values of every plain column, column by column. */
static pk_status collect(const pk_profile *p, uint32_t loc, loc_buf *b)
{
    uint32_t n_cols;
    uint32_t *cols = columns_by_raw(p, &n_cols);
    if (!cols) return pk_fail_nomem("reading a location's values");
    pk_status st = PK_OK;
    for (uint32_t k = 0; k < n_cols && !st; k++) {
        pk_rows v;
        if ((st = pk_model_rows_open(p, cols[k], &v)) != PK_OK) break;
        uint16_t raw = (uint16_t)p->columns[cols[k]].raw_id;
        for (uint32_t i = 0; i < v.n_rows && !st; i++) {
            double x;
            if (v.ctx[i] >= p->n_ctx) continue; /* no context to file it under */
            v.get(&v, i, loc, 1, &x);
            if (x != 0) st = push(b, v.ctx[i], raw, x);
        }
        pk_model_rows_close(p, &v);
    }
    free(cols);
    return st;
}

/* The values grouped by context (stable: columns stay ascending), then
 * packed as a plane with contexts in ascending id. */
static pk_status pack(pk_profile *p, const loc_buf *b, pk_plane *out)
{
    uint64_t *first = calloc((size_t)p->n_ctx + 1, sizeof *first);
    loc_val *sorted = malloc((b->n + 1) * sizeof *sorted);
    if (!first || !sorted) return free(first), free(sorted), pk_fail_nomem("packing a plane");
    for (uint64_t i = 0; i < b->n; i++)
        first[b->v[i].ctx + 1]++;
    uint32_t n_idx = 0;
    for (uint32_t c = 0; c < p->n_ctx; c++)
        n_idx += first[c + 1] != 0, first[c + 1] += first[c];
    uint64_t *at = malloc(((size_t)p->n_ctx + 1) * sizeof *at);
    unsigned char *mem =
        at ? pk_model_alloc_owned(p, b->n * PK_LM_VAL_SIZE + (size_t)n_idx * PK_LM_IDX_SIZE + 1)
           : NULL;
    if (!mem) return free(first), free(sorted), free(at), pk_fail_nomem("packing a plane");
    memcpy(at, first, ((size_t)p->n_ctx + 1) * sizeof *at);
    for (uint64_t i = 0; i < b->n; i++)
        sorted[at[b->v[i].ctx]++] = b->v[i];
    unsigned char *vals = mem, *idx = mem + b->n * PK_LM_VAL_SIZE, *ip = idx;
    uint64_t nv = 0;
    uint64_t n_ids = p->ctx_dense ? p->ctx_dense_len : p->ctx_sorted ? p->n_ctx : 0;
    for (uint64_t s = 0; s < n_ids; s++) { /* ids ascending: contexts in id order */
        uint64_t id = p->ctx_dense ? s : p->ctx_sorted[s] >> 32;
        uint32_t c = p->ctx_dense ? (s < p->ctx_dense_len ? p->ctx_dense[s] : PK_NONE)
                                  : (uint32_t)p->ctx_sorted[s];
        if (c == PK_NONE || id > UINT32_MAX || first[c] == first[c + 1]) continue;
        pk_put_le32(ip, (uint32_t)id), pk_put_le64(ip + 4, nv), ip += PK_LM_IDX_SIZE;
        for (uint64_t k = first[c]; k < first[c + 1]; k++, nv++) {
            pk_put_le16(vals + nv * PK_LM_VAL_SIZE, sorted[k].raw);
            memcpy(vals + nv * PK_LM_VAL_SIZE + 2, &sorted[k].v, 8);
        }
    }
    *out = (pk_plane){vals, idx, nv, (uint32_t)((ip - idx) / PK_LM_IDX_SIZE)};
    free(first), free(sorted), free(at);
    return PK_OK;
}

pk_status pk_model_location_plane(const pk_profile *cp, uint32_t loc, const pk_plane **out)
{
    pk_profile *p = (pk_profile *)cp; /* a plane built here is a cache, as the planes */
    *out = &p->locs[loc].plane;
    if (!p->rows) return p->locs[loc].is_summary ? PK_OK : pk_model_check_location(p, loc);
    if (p->locs[loc].is_summary) return PK_OK;
    pthread_mutex_lock(&p->planes_lock);
    pk_status st = PK_OK;
    int all = 0;
    if (!p->planes_ready && !(p->loc_alone && p->loc_alone[loc])) {
        if (!p->loc_alone) p->loc_alone = calloc((size_t)p->n_locs + 1, 1);
        if (!p->loc_alone)
            st = pk_fail_nomem("reading a location's values");
        else if (p->n_alone >= PK_LOC_PLANES_ALONE)
            all = 1;
        else {
            loc_buf b = {0};
            pk_plane pl;
            st = collect(p, loc, &b);
            if (!st) st = pack(p, &b, &pl);
            free(b.v);
            if (!st) p->locs[loc].plane = pl, p->loc_alone[loc] = 1, p->n_alone++;
        }
    }
    pthread_mutex_unlock(&p->planes_lock);
    return all ? pk_model_ensure_planes(p) : st;
}
