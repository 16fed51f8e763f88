/*
 * model/values.c — reading the sparse value planes: cursors and lookups.
 *
 * Planes keep profile.db's packed layout (see model.h), so these loops are
 * the hot path of every analysis: keep them small and branch-light.
 * Readers validate the planes at open time; the cursor still clamps every
 * run to the plane so that a bug elsewhere cannot make it read past it.
 * Building planes is plane_pack.c's job.
 */
#include <string.h>

#include "model.h"
#include "util/bytes.h"

enum { CURSOR_LOCATION = 1, CURSOR_CONTEXT = 2, CURSOR_LOCATION_COLUMN = 3 };

static void cursor_init(pk_cursor *c, const pk_profile *p, const pk_plane *pl, uint32_t mode,
                        uint32_t outer)
{
    *c = (pk_cursor){0};
    c->_p = p;
    c->_idx = pl->idx;
    c->_vals = pl->vals;
    c->_n = pl->nidx;
    c->_vn = pl->nvals;
    c->_mode = mode;
    c->_outer = outer;
    c->_idx_stride = mode == CURSOR_CONTEXT ? PK_CM_IDX_SIZE : PK_LM_IDX_SIZE;
    c->_val_stride = mode == CURSOR_CONTEXT ? PK_CM_VAL_SIZE : PK_LM_VAL_SIZE;
}

pk_status pk_location_values_begin(const pk_profile *p, pk_index loc, pk_cursor *c)
{
    if (!p || !c) return pk_fail(PK_ERR_INVALID_ARG, "pk_location_values_begin: NULL argument");
    if (loc >= p->n_locs)
        return pk_fail(PK_ERR_NOT_FOUND, "location index %u out of range (have %u)", loc,
                       p->n_locs);
    const pk_plane *pl;
    pk_status st = pk_model_location_plane(p, loc, &pl); /* this location's alone */
    if (st) return st;
    cursor_init(c, p, pl, CURSOR_LOCATION, loc);
    return PK_OK;
}

pk_status pk_location_column_begin(const pk_profile *p, pk_index loc, pk_index col, pk_cursor *c)
{
    pk_status st = pk_location_values_begin(p, loc, c);
    if (st) return st;
    if (col >= p->n_columns)
        return pk_fail(PK_ERR_NOT_FOUND, "column index %u out of range (have %u)", col,
                       p->n_columns);
    c->_mode = CURSOR_LOCATION_COLUMN;
    c->_col = col;
    c->_pos = p->columns[col].raw_id;
    /* a location holds summary columns or plain ones, never both */
    if (p->locs[loc].is_summary != p->columns[col].is_summary) c->_n = 0;
    return PK_OK;
}

pk_status pk_context_values_begin(const pk_profile *p, pk_index ctx, pk_cursor *c)
{
    if (!p || !c) return pk_fail(PK_ERR_INVALID_ARG, "pk_context_values_begin: NULL argument");
    if (ctx >= p->n_ctx)
        return pk_fail(PK_ERR_NOT_FOUND, "context index %u out of range (have %u)", ctx, p->n_ctx);
    pk_status st = pk_model_ensure_cm(p);
    if (st) return st;
    cursor_init(c, p, &p->cm[ctx], CURSOR_CONTEXT, ctx);
    return PK_OK;
}

/* Start of the run of index record i of a plane whose index records are
 * `stride` bytes with a `key_size`-byte key; nvals past the last record. */
static uint64_t run_start(const pk_plane *pl, uint64_t i, unsigned stride, unsigned key_size)
{
    return i >= pl->nidx ? pl->nvals : pk_le64(pl->idx + i * stride + key_size);
}

/* Values [*start, *end) of index record i, clamped to the plane. */
static void run_bounds(const pk_plane *pl, uint64_t i, unsigned stride, unsigned key_size,
                       uint64_t *start, uint64_t *end)
{
    *start = run_start(pl, i, stride, key_size);
    *end = run_start(pl, i + 1, stride, key_size);
    if (*end > pl->nvals) *end = pl->nvals;
}

/* Position of the record with key `key` among records [lo, hi) of `stride`
 * bytes at `base`, whose u16 or u32 keys (first in the record) ascend;
 * UINT64_MAX if there is none. */
static uint64_t find_record(const unsigned char *base, uint64_t lo, uint64_t hi, unsigned stride,
                            unsigned key_size, uint32_t key)
{
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        const unsigned char *rec = base + mid * stride;
        uint32_t mid_key = key_size == 4 ? pk_le32(rec) : pk_le16(rec);
        if (mid_key < key)
            lo = mid + 1;
        else if (mid_key > key)
            hi = mid;
        else
            return mid;
    }
    return UINT64_MAX;
}

/* Advance to the next non-empty run; 0 at the end. */
static int cursor_next_run(pk_cursor *c)
{
    const pk_profile *p = c->_p;
    while (c->_i < c->_n) {
        const unsigned char *rec = c->_idx + c->_i * c->_idx_stride;
        const pk_plane pl = {c->_vals, c->_idx, c->_vn, (uint32_t)c->_n};
        uint64_t start, end;
        run_bounds(&pl, c->_i, c->_idx_stride, c->_mode == CURSOR_CONTEXT ? 2 : 4, &start, &end);
        c->_i++;
        if (start >= end) continue;
        c->_v = start;
        c->_vend = end;
        if (c->_mode == CURSOR_CONTEXT)
            c->_col = pk_model_col_of(p, 0, pk_le16(rec));
        else
            c->_ctx = pk_model_ctx_find(p, pk_le32(rec));
        return 1;
    }
    return 0;
}

/* The next value of the cursor's column: a plain scan of the runs, which
 * stays right whatever the order of a run's values (planes of every
 * format go through here, not only profile.db's sorted ones). */
static int next_of_column(pk_cursor *c, pk_value *out)
{
    for (;;) {
        if (c->_v >= c->_vend && !cursor_next_run(c)) return 0;
        const unsigned char *v = c->_vals + c->_v++ * PK_LM_VAL_SIZE;
        if (pk_le16(v) != c->_pos) continue;
        out->context = c->_ctx;
        out->location = c->_outer;
        out->column = c->_col;
        out->value = pk_le_f64(v + 2);
        return 1;
    }
}

int pk_cursor_next(pk_cursor *c, pk_value *out)
{
    if (c->_mode == CURSOR_LOCATION_COLUMN) return next_of_column(c, out);
    if (c->_v >= c->_vend && !cursor_next_run(c)) return 0;
    const pk_profile *p = c->_p;
    const unsigned char *v = c->_vals + c->_v * c->_val_stride;
    c->_v++;
    if (c->_mode == CURSOR_LOCATION) {
        out->context = c->_ctx;
        out->location = c->_outer;
        out->column = pk_model_col_of(p, p->locs[c->_outer].is_summary, pk_le16(v));
        out->value = pk_le_f64(v + 2);
    } else {
        uint32_t loc = pk_le32(v);
        out->context = c->_outer;
        out->location = loc < p->n_locs ? loc : PK_NONE;
        out->column = c->_col;
        out->value = pk_le_f64(v + 4);
    }
    return 1;
}

pk_status pk_value_lookup(const pk_profile *p, pk_index loc, pk_index ctx, pk_index col,
                          double *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_value_lookup: NULL argument");
    if (loc >= p->n_locs || ctx >= p->n_ctx || col >= p->n_columns)
        return pk_fail(PK_ERR_NOT_FOUND, "pk_value_lookup: index out of range");
    *out = 0.0;
    const pk_plane *pl;
    pk_status st = pk_model_location_plane(p, loc, &pl);
    if (st) return st;
    const pk_column *column = &p->columns[col];
    if (p->locs[loc].is_summary != column->is_summary || p->ctx[ctx].id > UINT32_MAX) return PK_OK;
    uint64_t k = find_record(pl->idx, 0, pl->nidx, PK_LM_IDX_SIZE, 4, (uint32_t)p->ctx[ctx].id);
    if (k == UINT64_MAX) return PK_OK;
    uint64_t start, end;
    run_bounds(pl, k, PK_LM_IDX_SIZE, 4, &start, &end);
    uint64_t v = find_record(pl->vals, start, end, PK_LM_VAL_SIZE, 2, column->raw_id);
    if (v != UINT64_MAX) *out = pk_le_f64(pl->vals + v * PK_LM_VAL_SIZE + 2);
    return PK_OK;
}

int pk_model_cm_lookup(const pk_profile *p, uint32_t ctx, uint32_t col, uint32_t loc, double *out)
{
    *out = 0.0;
    if (!p->cm || ctx >= p->n_ctx || col >= p->n_columns || p->columns[col].is_summary) return 0;
    const pk_plane *pl = &p->cm[ctx];
    uint64_t k = find_record(pl->idx, 0, pl->nidx, PK_CM_IDX_SIZE, 2, p->columns[col].raw_id);
    if (k == UINT64_MAX) return 0;
    uint64_t start, end;
    run_bounds(pl, k, PK_CM_IDX_SIZE, 2, &start, &end);
    uint64_t v = find_record(pl->vals, start, end, PK_CM_VAL_SIZE, 4, loc);
    if (v == UINT64_MAX) return 0;
    *out = pk_le_f64(pl->vals + v * PK_CM_VAL_SIZE + 4);
    return 1;
}

/* Locations without values do not count: a legacy HPCToolkit database
 * without metric-db files has trace-only threads, and its values are the
 * summary's. */
int pk_has_plain_locations(const pk_profile *p)
{
    /* a row store holds plain values (Cube); its planes may not be built */
    for (uint32_t l = 0; pk_model_has_rows(p) && l < p->n_locs; l++)
        if (!p->locs[l].is_summary) return 1;
    for (uint32_t l = 0; l < p->n_locs; l++)
        if (!p->locs[l].is_summary && p->locs[l].plane.nvals) return 1;
    return 0;
}
