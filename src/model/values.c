/*
 * model/values.c — reading the sparse value planes: cursors and lookups.
 *
 * Planes keep profile.db's packed layout (see model.h), so these loops are
 * the hot path of every analysis: keep them small and branch-light.
 * Readers validate the planes at open time; the cursor still clamps every
 * run to the plane so that a bug elsewhere cannot make it read past it.
 */
#include "model.h"
#include "util/bytes.h"

enum { CURSOR_LOCATION = 1, CURSOR_CONTEXT = 2 };

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
    c->_idx_stride = mode == CURSOR_LOCATION ? PK_LM_IDX_SIZE : PK_CM_IDX_SIZE;
    c->_val_stride = mode == CURSOR_LOCATION ? PK_LM_VAL_SIZE : PK_CM_VAL_SIZE;
}

pk_status pk_location_values_begin(const pk_profile *p, pk_index loc, pk_cursor *c)
{
    if (!p || !c) return pk_fail(PK_ERR_INVALID_ARG, "pk_location_values_begin: NULL argument");
    if (loc >= p->n_locs)
        return pk_fail(PK_ERR_NOT_FOUND, "location index %u out of range (have %u)", loc,
                       p->n_locs);
    cursor_init(c, p, &p->locs[loc].plane, CURSOR_LOCATION, loc);
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

/* Start of the run of index record i (the run ends at record i+1's start). */
static uint64_t run_start(const pk_cursor *c, uint64_t i)
{
    if (i >= c->_n) return c->_vn;
    const unsigned char *rec = c->_idx + i * c->_idx_stride;
    return c->_mode == CURSOR_LOCATION ? pk_le64(rec + 4) : pk_le64(rec + 2);
}

/* Advance to the next non-empty run; 0 at the end. */
static int cursor_next_run(pk_cursor *c)
{
    const pk_profile *p = c->_p;
    while (c->_i < c->_n) {
        const unsigned char *rec = c->_idx + c->_i * c->_idx_stride;
        uint64_t start = run_start(c, c->_i), end = run_start(c, c->_i + 1);
        c->_i++;
        if (end > c->_vn) end = c->_vn;
        if (start >= end) continue;
        c->_v = start;
        c->_vend = end;
        if (c->_mode == CURSOR_LOCATION)
            c->_ctx = pk_model_ctx_find(p, pk_le32(rec));
        else
            c->_col = pk_model_col_of(p, 0, pk_le16(rec));
        return 1;
    }
    return 0;
}

int pk_cursor_next(pk_cursor *c, pk_value *out)
{
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

/* Binary search of the location-major index for context id `id`: the run
 * [*start, *end) of its values. 0 if the context has no values. */
static int lm_find_run(const pk_plane *pl, uint32_t id, uint64_t *start, uint64_t *end)
{
    uint32_t lo = 0, hi = pl->nidx;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint32_t mid_id = pk_le32(pl->idx + (size_t)mid * PK_LM_IDX_SIZE);
        if (mid_id < id) {
            lo = mid + 1;
        } else if (mid_id > id) {
            hi = mid;
        } else {
            *start = pk_le64(pl->idx + (size_t)mid * PK_LM_IDX_SIZE + 4);
            *end = mid + 1 < pl->nidx ? pk_le64(pl->idx + (size_t)(mid + 1) * PK_LM_IDX_SIZE + 4)
                                      : pl->nvals;
            if (*end > pl->nvals) *end = pl->nvals;
            return *start < *end;
        }
    }
    return 0;
}

/* Binary search of a run of location-major values for raw column `raw`. */
static int lm_find_value(const pk_plane *pl, uint64_t lo, uint64_t hi, uint16_t raw, double *out)
{
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        const unsigned char *v = pl->vals + mid * PK_LM_VAL_SIZE;
        uint16_t mid_raw = pk_le16(v);
        if (mid_raw < raw) {
            lo = mid + 1;
        } else if (mid_raw > raw) {
            hi = mid;
        } else {
            *out = pk_le_f64(v + 2);
            return 1;
        }
    }
    return 0;
}

pk_status pk_value_lookup(const pk_profile *p, pk_index loc, pk_index ctx, pk_index col,
                          double *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_value_lookup: NULL argument");
    if (loc >= p->n_locs || ctx >= p->n_ctx || col >= p->n_columns)
        return pk_fail(PK_ERR_NOT_FOUND, "pk_value_lookup: index out of range");
    *out = 0.0;
    const pk_loc_rec *l = &p->locs[loc];
    const pk_column *column = &p->columns[col];
    if (l->is_summary != column->is_summary || p->ctx[ctx].id > UINT32_MAX) return PK_OK;
    uint64_t start, end;
    if (!lm_find_run(&l->plane, (uint32_t)p->ctx[ctx].id, &start, &end)) return PK_OK;
    lm_find_value(&l->plane, start, end, (uint16_t)column->raw_id, out);
    return PK_OK;
}

/* Binary search of a context-major run for location `loc`. */
static int cm_find_loc(const pk_plane *pl, uint64_t lo, uint64_t hi, uint32_t loc, double *out)
{
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        const unsigned char *v = pl->vals + mid * PK_CM_VAL_SIZE;
        uint32_t mid_loc = pk_le32(v);
        if (mid_loc < loc) {
            lo = mid + 1;
        } else if (mid_loc > loc) {
            hi = mid;
        } else {
            *out = pk_le_f64(v + 4);
            return 1;
        }
    }
    return 0;
}

int pk_model_cm_lookup(const pk_profile *p, uint32_t ctx, uint32_t col, uint32_t loc, double *out)
{
    *out = 0.0;
    if (!p->cm || ctx >= p->n_ctx || col >= p->n_columns || p->columns[col].is_summary) return 0;
    const pk_plane *pl = &p->cm[ctx];
    uint16_t raw = (uint16_t)p->columns[col].raw_id;
    uint32_t lo = 0, hi = pl->nidx;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const unsigned char *rec = pl->idx + (size_t)mid * PK_CM_IDX_SIZE;
        uint16_t mid_raw = pk_le16(rec);
        if (mid_raw < raw) {
            lo = mid + 1;
        } else if (mid_raw > raw) {
            hi = mid;
        } else {
            uint64_t start = pk_le64(rec + 2);
            uint64_t end = mid + 1 < pl->nidx ? pk_le64(rec + PK_CM_IDX_SIZE + 2) : pl->nvals;
            if (end > pl->nvals) end = pl->nvals;
            return start < end && cm_find_loc(pl, start, end, loc, out);
        }
    }
    return 0;
}
