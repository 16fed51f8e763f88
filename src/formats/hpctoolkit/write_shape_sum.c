/*
 * formats/hpctoolkit/write_shape_sum.c — the summary profile of the
 * shaped profile (profile.db profile 0): statistics combined over the
 * plain locations' values, and those the source stored and the writer
 * keeps (write_shape_cols.c says which is which).
 *
 * Combining walks the context-major view of the shaped values (cct.db's
 * layout, built once and written as cct.db too): per context and plain
 * column, the run of values over locations is reduced to each statistic
 * that asks for it. Count and sum of squares follow hpcprof's partials
 * "1" and "($$^2)" (field notes §d); a location without a stored value
 * at a context counts as absent, since sparse files hold no zeros.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/bytes.h"
#include "write_shape.h"

/* Combined statistics, grouped by the plain column they reduce. */
typedef struct reducer {
    uint32_t *first; /* plain raw id -> first entry of `list`, PK_NONE */
    uint32_t *next;  /* entry -> next entry of the same plain column */
    uint32_t *col;   /* entry -> summary column */
    uint32_t n_raw;
} reducer;

static pk_status reducer_init(reducer *r, const hk_shape *s)
{
    const pk_profile *q = s->q;
    r->n_raw = q->n_raw[0];
    r->first = malloc(((size_t)r->n_raw + 1) * sizeof *r->first);
    r->next = malloc(((size_t)q->n_columns + 1) * sizeof *r->next);
    r->col = malloc(((size_t)q->n_columns + 1) * sizeof *r->col);
    if (!r->first || !r->next || !r->col) return pk_fail_nomem("combining statistics");
    for (uint32_t i = 0; i < r->n_raw; i++)
        r->first[i] = PK_NONE;
    uint32_t n = 0;
    for (uint32_t c = q->n_columns; c-- > 0;) {
        if (s->col[c].source != HS_COMBINED) continue;
        uint32_t raw = q->columns[s->col[c].from].raw_id;
        r->col[n] = c;
        r->next[n] = r->first[raw];
        r->first[raw] = n++;
    }
    return PK_OK;
}

static void reducer_free(reducer *r)
{
    free(r->first);
    free(r->next);
    free(r->col);
}

/* One statistic over a run of (location, value) records. */
static double reduce(const unsigned char *vals, uint64_t b, uint64_t e, uint8_t how)
{
    double acc = 0;
    for (uint64_t v = b; v < e; v++) {
        double x = pk_le_f64(vals + v * PK_CM_VAL_SIZE + 4);
        if (how == HS_COUNT)
            acc += 1;
        else if (how == HS_SUMSQ)
            acc += x * x;
        else if (how == HS_SUM || v == b)
            acc = how == HS_SUM ? acc + x : x;
        else
            acc = how == HS_MIN ? fmin(acc, x) : fmax(acc, x);
    }
    return acc;
}

static pk_status combine_context(const hk_shape *s, const reducer *r, uint32_t ctx, hs_triples *out)
{
    const pk_plane *pl = &s->q->cm[ctx];
    pk_status st = PK_OK;
    for (uint32_t k = 0; k < pl->nidx && !st; k++) {
        const unsigned char *x = pl->idx + (uint64_t)k * PK_CM_IDX_SIZE;
        uint32_t raw = pk_le16(x);
        uint64_t b = pk_le64(x + 2),
                 e = k + 1 < pl->nidx ? pk_le64(x + 2 + PK_CM_IDX_SIZE) : pl->nvals;
        for (uint32_t j = raw < r->n_raw ? r->first[raw] : PK_NONE; j != PK_NONE && !st;
             j = r->next[j]) {
            uint32_t c = r->col[j];
            st = hs_push(out, ctx, s->q->columns[c].raw_id,
                         reduce(pl->vals, b, e, s->col[c].reduce));
        }
    }
    return st;
}

/* The source's own statistics the shaped profile keeps. */
static pk_status stored_stats(const hk_shape *s, hs_triples *out)
{
    const pk_profile *p = s->p, *q = s->q;
    if (s->p_summary == PK_NONE) return PK_OK;
    uint32_t *q_of_pcol = malloc(((size_t)p->n_columns + 1) * sizeof *q_of_pcol);
    if (!q_of_pcol) return pk_fail_nomem("keeping statistics");
    for (uint32_t i = 0; i < p->n_columns; i++)
        q_of_pcol[i] = PK_NONE;
    for (uint32_t c = 0; c < q->n_columns; c++)
        if (q->columns[c].is_summary && s->col[c].source == HS_STORED)
            q_of_pcol[s->col[c].from] = c;
    const pk_plane *pl = &p->locs[s->p_summary].plane;
    pk_status st = PK_OK;
    for (uint32_t k = 0; k < pl->nidx && !st; k++) {
        const unsigned char *x = pl->idx + (uint64_t)k * PK_LM_IDX_SIZE;
        uint32_t pi = pk_model_ctx_find(p, pk_le32(x));
        uint64_t b = pk_le64(x + 4),
                 e = k + 1 < pl->nidx ? pk_le64(x + 4 + PK_LM_IDX_SIZE) : pl->nvals;
        for (uint64_t v = b; pi != PK_NONE && v < e && v < pl->nvals && !st; v++) {
            const unsigned char *rec = pl->vals + v * PK_LM_VAL_SIZE;
            uint32_t pc = pk_model_col_of(p, 1, pk_le16(rec));
            uint32_t qc = pc == PK_NONE ? PK_NONE : q_of_pcol[pc];
            if (qc != PK_NONE)
                st = hs_push(out, s->q_of_p[pi], q->columns[qc].raw_id, pk_le_f64(rec + 2));
        }
    }
    free(q_of_pcol);
    return st;
}

pk_status hs_summary_values(hk_shape *s)
{
    pk_profile *q = s->q;
    pk_status st = pk_model_ensure_cm(q);
    reducer r = {0};
    hs_triples out = {0};
    if (!st) st = reducer_init(&r, s);
    for (uint32_t c = 0; c < q->n_ctx && !st; c++)
        st = combine_context(s, &r, c, &out);
    if (!st) st = stored_stats(s, &out);
    if (!st) st = hs_pack(q, &out, &q->locs[0].plane);
    reducer_free(&r);
    free(out.t);
    return st;
}
