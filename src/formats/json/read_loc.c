/*
 * formats/json/read_loc.c — profkit.model/1 locations, their values and
 * traces into the model, and the checks that need the whole document.
 *
 * Each location's rows of values are packed as they arrive into the
 * model's own plane layout (model.h: 12-byte index records, 10-byte
 * values), in buffers that grow geometrically and then belong to the
 * profile: the cost is the model's, nothing is allocated per value. Rows
 * must come in ascending context id and columns ascending within a row,
 * as the model keeps them (lookups binary-search them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jr.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/vec.h"

static pk_status nomem(jr *r)
{
    return r->st = pk_fail_nomem("reading JSON");
}

pk_status jr_record_begin(jr *r, jr_kind kind)
{
    if (kind == R_LOCATION) {
        if (!r->contexts_done)
            return jr_err(r, NULL, NULL, "locations need the \"contexts\" member before them");
        free(r->loc.vals), free(r->loc.idx);
        pk_ident *ids = r->loc.ids;
        size_t cap_ids = r->loc.cap_ids;
        r->loc = (jr_plane){.last_ctx = -1, .ids = ids, .cap_ids = cap_ids};
    }
    if (kind == R_TRACE) {
        free(r->samples);
        r->samples = NULL, r->cap_samples = 0, r->n_samples = 0;
    }
    return PK_OK;
}

static pk_status rec_ident(jr *r)
{
    jr_plane *l = &r->loc;
    if (pk_vec_reserve((void **)&l->ids, &l->cap_ids, l->n_ids + 1, sizeof *l->ids))
        return nomem(r);
    pk_ident *id = &l->ids[l->n_ids];
    uint64_t kind, flags;
    PK_TRY(jr_get_u64(r, "kind", UINT16_MAX, &kind));
    PK_TRY(jr_get_str(r, "name", 1, &id->kind_name));
    PK_TRY(jr_get_u64(r, "flags", UINT16_MAX, &flags));
    PK_TRY(jr_get_u32(r, "logical", &id->logical));
    PK_TRY(jr_get_u64(r, "physical", UINT64_MAX, &id->physical));
    id->kind = (uint16_t)kind, id->flags = (uint16_t)flags;
    l->n_ids++;
    return PK_OK;
}

/* The common cases without building a field name: 1 if *t is a plain
 * unsigned integer <= max (or a finite number), else 0 and the caller
 * asks jr_u64 / jr_double for the error. */
static int quick_u64(const jr *r, const jr_tok *t, uint64_t max, uint64_t *out)
{
    if (t->type != JT_NUM || t->len > 19) return 0;
    uint64_t v = 0;
    for (const char *c = jr_text(r, t); *c; c++) {
        if (*c < '0' || *c > '9') return 0;
        v = v * 10 + (uint64_t)(*c - '0');
    }
    *out = v;
    return v <= max;
}

static int quick_double(const jr *r, const jr_tok *t, double *out)
{
    if (t->type != JT_NUM) return 0;
    char *end;
    *out = strtod(jr_text(r, t), &end);
    return !*end && isfinite(*out);
}

static pk_status row_u64(jr *r, const jr_tok *t, size_t i, uint64_t max, uint64_t *out)
{
    if (quick_u64(r, t, max, out)) return PK_OK;
    char field[32];
    snprintf(field, sizeof field, "[%zu]", i);
    return jr_u64(r, t, field, max, out);
}

static pk_status row_double(jr *r, const jr_tok *t, size_t i, double *out)
{
    if (quick_double(r, t, out)) return PK_OK;
    char field[32];
    snprintf(field, sizeof field, "[%zu]", i);
    return jr_double(r, t, field, out);
}

/* [context id, column, value, column, value...] */
static pk_status rec_valrow(jr *r)
{
    jr_plane *l = &r->loc;
    size_t n;
    const jr_tok *t = jr_rec_toks(r, &n);
    if (n % 2 == 0)
        return jr_err(r, NULL, NULL,
                      "a row of values is [context id, column, value, column, value...] "
                      "(%zu elements)",
                      n);
    uint64_t ctx;
    PK_TRY(row_u64(r, &t[0], 0, UINT32_MAX, &ctx));
    if (pk_model_ctx_find(r->p, ctx) == PK_NONE)
        return jr_err(r, &t[0], "[0]", "no context has id %llu", (unsigned long long)ctx);
    if ((int64_t)ctx <= l->last_ctx)
        return jr_err(r, &t[0], "[0]",
                      "context id %llu after %lld: rows must come in ascending context id",
                      (unsigned long long)ctx, (long long)l->last_ctx);
    l->last_ctx = (int64_t)ctx;
    size_t k = n / 2;
    if (l->nidx == UINT32_MAX) return jr_err(r, NULL, NULL, "too many rows");
    if (pk_vec_reserve((void **)&l->idx, &l->cap_idx, ((size_t)l->nidx + 1) * PK_LM_IDX_SIZE, 1) ||
        pk_vec_reserve((void **)&l->vals, &l->cap_vals, (l->nvals + k) * PK_LM_VAL_SIZE, 1))
        return nomem(r);
    unsigned char *rec = l->idx + (size_t)l->nidx * PK_LM_IDX_SIZE;
    pk_put_le32(rec, (uint32_t)ctx);
    pk_put_le64(rec + 4, l->nvals);
    int64_t last_col = -1;
    for (size_t i = 0; i < k; i++) {
        uint64_t col;
        double v;
        PK_TRY(row_u64(r, &t[1 + 2 * i], 1 + 2 * i, UINT16_MAX, &col));
        if ((int64_t)col <= last_col) {
            char field[32];
            snprintf(field, sizeof field, "[%zu]", 1 + 2 * i);
            return jr_err(r, &t[1 + 2 * i], field,
                          "column %llu after %lld: columns must ascend within a row",
                          (unsigned long long)col, (long long)last_col);
        }
        last_col = (int64_t)col;
        PK_TRY(row_double(r, &t[2 + 2 * i], 2 + 2 * i, &v));
        unsigned char *val = l->vals + (l->nvals + i) * PK_LM_VAL_SIZE;
        pk_put_le16(val, (uint16_t)col);
        pk_put_le64(val + 2, pk_f64_bits(v));
    }
    l->nvals += k;
    l->nidx++;
    return PK_OK;
}

/* Every value's column must exist in the location's id space (plain or
 * summary): checked once the location says which it is. */
static pk_status check_columns(jr *r, const jr_plane *l, int summary)
{
    for (uint32_t i = 0; i < l->nidx; i++) {
        const unsigned char *rec = l->idx + (size_t)i * PK_LM_IDX_SIZE;
        uint64_t end = i + 1 < l->nidx ? pk_le64(rec + PK_LM_IDX_SIZE + 4) : l->nvals;
        for (uint64_t v = pk_le64(rec + 4); v < end; v++) {
            uint16_t col = pk_le16(l->vals + v * PK_LM_VAL_SIZE);
            if (pk_model_col_of(r->p, summary, col) == PK_NONE)
                return jr_err(r, NULL, "values",
                              "the row of context id %u has column %u, but no %s column has "
                              "that raw_id",
                              pk_le32(rec), col, summary ? "summary" : "plain");
        }
    }
    return PK_OK;
}

static pk_status rec_location(jr *r)
{
    pk_profile *p = r->p;
    jr_plane *l = &r->loc;
    if (p->n_locs == PK_NONE - 1) return jr_err(r, NULL, NULL, "too many locations");
    if (pk_vec_reserve((void **)&p->locs, &r->cap_locs, p->n_locs + 1u, sizeof *p->locs))
        return nomem(r);
    pk_loc_rec *loc = &p->locs[p->n_locs];
    memset(loc, 0, sizeof *loc);
    PK_TRY(jr_get_u32(r, "raw_index", &loc->raw_index));
    PK_TRY(jr_get_bool(r, "summary", &loc->is_summary));
    PK_TRY(jr_get_index(r, "trace", PK_NONE - 1, 1, &loc->trace)); /* checked at the end */
    PK_TRY(jr_require_array(r, "ids"));
    PK_TRY(jr_require_array(r, "values"));
    PK_TRY(check_columns(r, l, loc->is_summary));
    pk_ident *ids = pk_arena_array(&p->arena, l->n_ids + 1, sizeof *ids);
    if (!ids) return nomem(r);
    if (l->n_ids) memcpy(ids, l->ids, l->n_ids * sizeof *ids);
    loc->ids = ids, loc->n_ids = (uint32_t)l->n_ids;
    /* the plane's buffers belong to the profile from now on, at their
     * size (they grew by doubling) */
    unsigned char *vals = l->vals, *idx = l->idx, *fit;
    if (vals && (fit = realloc(vals, l->nvals * PK_LM_VAL_SIZE + 1))) vals = fit;
    if (idx && (fit = realloc(idx, (size_t)l->nidx * PK_LM_IDX_SIZE + 1))) idx = fit;
    l->vals = l->idx = NULL;
    if ((vals && pk_model_adopt_owned(p, vals)) || (idx && pk_model_adopt_owned(p, idx)))
        return r->st = PK_ERR_NOMEM;
    static const unsigned char none[1];
    loc->plane = (pk_plane){vals ? vals : none, idx ? idx : none, l->nvals, l->nidx};
    p->n_locs++;
    return PK_OK;
}

static pk_status rec_sample(jr *r)
{
    size_t n;
    const jr_tok *t = jr_rec_toks(r, &n);
    if (n != 2) return jr_err(r, NULL, NULL, "a sample is [time, context id] (%zu elements)", n);
    uint64_t time, ctx;
    PK_TRY(row_u64(r, &t[0], 0, UINT64_MAX, &time));
    PK_TRY(row_u64(r, &t[1], 1, UINT32_MAX, &ctx));
    if (pk_vec_reserve((void **)&r->samples, &r->cap_samples, (r->n_samples + 1) * PK_SAMPLE_SIZE,
                       1))
        return nomem(r);
    unsigned char *s = r->samples + r->n_samples++ * PK_SAMPLE_SIZE;
    pk_put_le64(s, time);
    pk_put_le32(s + 8, (uint32_t)ctx);
    return PK_OK;
}

static pk_status rec_trace(jr *r)
{
    pk_profile *p = r->p;
    if (pk_vec_reserve((void **)&p->traces, &r->cap_traces, p->n_traces + 1u, sizeof *p->traces))
        return nomem(r);
    pk_trace_rec *t = &p->traces[p->n_traces];
    PK_TRY(jr_get_index(r, "location", p->n_locs, 1, &t->location));
    PK_TRY(jr_require_array(r, "samples"));
    static const unsigned char none[1];
    t->samples = r->samples ? r->samples : none;
    t->n = r->n_samples;
    if (r->samples && pk_model_adopt_owned(p, r->samples)) {
        r->samples = NULL;
        return r->st = PK_ERR_NOMEM;
    }
    r->samples = NULL, r->cap_samples = 0, r->n_samples = 0;
    p->n_traces++;
    return PK_OK;
}

pk_status jr_loc_record(jr *r, jr_kind kind, uint64_t index)
{
    (void)index;
    switch (kind) {
    case R_LOCATION:
        return rec_location(r);
    case R_IDENT:
        return rec_ident(r);
    case R_VALROW:
        return rec_valrow(r);
    case R_TRACE:
        return rec_trace(r);
    case R_SAMPLE:
        return rec_sample(r);
    default:
        return jr_err(r, NULL, NULL, "internal: no handler for record kind %d", (int)kind);
    }
}

/* The whole document is read: what links members to later ones. */
pk_status jr_loc_finish(jr *r)
{
    pk_profile *p = r->p;
    for (uint32_t l = 0; l < p->n_locs; l++) {
        uint32_t t = p->locs[l].trace;
        if (t != PK_NONE && (t >= p->n_traces || p->traces[t].location != l))
            return jr_err(r, NULL, NULL, "location %u names trace %u, but %s", l, t,
                          t >= p->n_traces ? "there is no such trace"
                                           : "that trace belongs to another location");
    }
    pk_model_sort_attrs(p);
    return PK_OK;
}

pk_status jr_free(jr *r)
{
    pk_profile *p = r->p;
    free(r->loc.vals), free(r->loc.idx), free(r->loc.ids), free(r->samples);
    free(r->toks), free(r->text);
    /* the model's growing tables belong to the profile from now on */
    void *blocks[] = {p->modules, p->files,   p->functions, p->metrics,
                      p->scopes,  p->columns, p->locs,      p->traces};
    pk_status st = PK_OK;
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        if (blocks[i] && pk_model_adopt_owned(p, blocks[i])) st = PK_ERR_NOMEM;
    return st;
}
