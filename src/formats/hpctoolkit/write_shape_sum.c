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
 *
 * Other summary locations (profile.db may hold several; only profile 0 is
 * the canonical one) keep their own statistics under the shaped ids; the
 * statistics the writer combines over every location cannot be theirs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/write_loss.h"
#include "util/buf.h"
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
double hs_reduce_run(const unsigned char *vals, uint64_t b, uint64_t e, uint8_t how)
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
                         hs_reduce_run(pl->vals, b, e, s->col[c].reduce));
        }
    }
    return st;
}

/* The summary, context by context in id order (the plane's order), so
 * nothing but one context's values is ever sorted. */
typedef struct sum_job {
    const hk_shape *s;
    reducer r;
    uint32_t *q_of_pcol; /* source statistic -> shaped statistic it is kept as */
    uint32_t *p_of_q;    /* shaped context -> source context, PK_NONE for an added one */
    hs_triples here;     /* this context's values */
    pk_buf vals, idx;
    uint64_t nvals;
    uint32_t nidx;
} sum_job;

/* The source's own statistics at shaped context qi. */
static pk_status stored_at(sum_job *j, uint32_t qi)
{
    const pk_profile *p = j->s->p, *q = j->s->q;
    uint32_t pi = j->p_of_q[qi];
    uint64_t b, e;
    if (j->s->p_summary == PK_NONE || pi == PK_NONE ||
        !hs_values_at(&p->locs[j->s->p_summary].plane, (uint32_t)p->ctx[pi].id, &b, &e))
        return PK_OK;
    const pk_plane *pl = &p->locs[j->s->p_summary].plane;
    pk_status st = PK_OK;
    for (uint64_t v = b; v < e && !st; v++) {
        const unsigned char *rec = pl->vals + v * PK_LM_VAL_SIZE;
        uint32_t pc = pk_model_col_of(p, 1, pk_le16(rec));
        uint32_t qc = pc == PK_NONE ? PK_NONE : j->q_of_pcol[pc];
        if (qc != PK_NONE) st = hs_push(&j->here, qi, q->columns[qc].raw_id, pk_le_f64(rec + 2));
    }
    return st;
}

static int by_col(const void *a, const void *b)
{
    const hs_triple *x = a, *y = b;
    return (x->col > y->col) - (x->col < y->col);
}

/* Context id `id` (shaped index qi): its values, sorted, appended. */
static pk_status append_context(sum_job *j, uint64_t id, uint32_t qi)
{
    j->here.n = 0;
    pk_status st = combine_context(j->s, &j->r, qi, &j->here);
    if (!st) st = stored_at(j, qi);
    if (st || !j->here.n) return st;
    qsort(j->here.t, j->here.n, sizeof *j->here.t, by_col);
    unsigned char rec[PK_LM_IDX_SIZE > PK_LM_VAL_SIZE ? PK_LM_IDX_SIZE : PK_LM_VAL_SIZE];
    pk_put_le32(rec, (uint32_t)id);
    pk_put_le64(rec + 4, j->nvals);
    pk_buf_bytes(&j->idx, rec, PK_LM_IDX_SIZE);
    j->nidx++;
    for (size_t k = 0; k < j->here.n; k++) {
        pk_put_le16(rec, j->here.t[k].col);
        pk_put_le64(rec + 2, pk_f64_bits(j->here.t[k].v));
        pk_buf_bytes(&j->vals, rec, PK_LM_VAL_SIZE);
    }
    j->nvals += j->here.n;
    return PK_OK;
}

static pk_status sum_init(sum_job *j, const hk_shape *s)
{
    const pk_profile *p = s->p, *q = s->q;
    j->q_of_pcol = malloc(((size_t)p->n_columns + 1) * sizeof *j->q_of_pcol);
    j->p_of_q = malloc(((size_t)q->n_ctx + 1) * sizeof *j->p_of_q);
    if (!j->q_of_pcol || !j->p_of_q) return pk_fail_nomem("combining statistics");
    for (uint32_t i = 0; i < p->n_columns; i++)
        j->q_of_pcol[i] = PK_NONE;
    for (uint32_t c = 0; c < q->n_columns; c++)
        if (q->columns[c].is_summary && s->col[c].source == HS_STORED)
            j->q_of_pcol[s->col[c].from] = c;
    for (uint32_t i = 0; i < q->n_ctx; i++)
        j->p_of_q[i] = PK_NONE;
    for (uint32_t i = 0; i < p->n_ctx; i++)
        j->p_of_q[s->q_of_p[i]] = i;
    return reducer_init(&j->r, s);
}

/* Summary location l other than the canonical one: its stored statistics
 * under the shaped ids. What has no shaped statistic to go under is
 * counted and reported. */
static pk_status other_summary(sum_job *j, uint32_t l)
{
    const hk_shape *s = j->s;
    const pk_profile *p = s->p;
    const pk_plane *pl = &p->locs[l].plane;
    uint64_t left = 0;
    pk_status st = PK_OK;
    j->here.n = 0;
    for (uint32_t k = 0; k < pl->nidx && !st; k++) {
        const unsigned char *x = pl->idx + (uint64_t)k * PK_LM_IDX_SIZE;
        uint32_t pi = pk_model_ctx_find(p, pk_le32(x));
        uint64_t b = pk_le64(x + 4),
                 e = k + 1 < pl->nidx ? pk_le64(x + 4 + PK_LM_IDX_SIZE) : pl->nvals;
        for (uint64_t v = b; v < e && v < pl->nvals && !st; v++) {
            const unsigned char *rec = pl->vals + v * PK_LM_VAL_SIZE;
            uint32_t pc = pk_model_col_of(p, 1, pk_le16(rec));
            uint32_t qc = pc == PK_NONE || pi == PK_NONE ? PK_NONE : j->q_of_pcol[pc];
            if (qc == PK_NONE)
                left++;
            else
                st = hs_push(&j->here, s->q_of_p[pi], s->q->columns[qc].raw_id, pk_le_f64(rec + 2));
        }
    }
    if (!st) st = hs_pack(s->q, &j->here, &s->q->locs[s->q_of_ploc[l]].plane);
    if (st || !left) return st;
    char item[64];
    snprintf(item, sizeof item, "values of summary location %u", l);
    return pk_write_lose(s->o, s->stats, s->path, item,
                         "%llu of its values are of statistics the database does not keep as "
                         "stored (those it has are combined over every location, or meta.db "
                         "does not define them); they are left out",
                         (unsigned long long)left);
}

pk_status hs_summary_values(hk_shape *s)
{
    pk_profile *q = s->q;
    sum_job j = {.s = s};
    pk_status st = pk_model_ensure_cm(q);
    if (!st) st = sum_init(&j, s);
    uint64_t max_id = 0;
    for (uint32_t i = 0; i < q->n_ctx; i++)
        max_id = q->ctx[i].id > max_id ? q->ctx[i].id : max_id;
    for (uint64_t id = 0; id <= max_id && !st; id++) {
        uint32_t qi = pk_model_ctx_find(q, id);
        if (qi != PK_NONE) st = append_context(&j, id, qi);
    }
    if (!st && (j.vals.failed || j.idx.failed)) st = pk_fail_nomem("combining statistics");
    unsigned char *vals = j.vals.data, *idx = j.idx.data;
    if (!st && vals) st = pk_model_adopt_owned(q, vals), j.vals.data = NULL;
    if (!st && idx) st = pk_model_adopt_owned(q, idx), j.idx.data = NULL;
    if (!st) q->locs[0].plane = (pk_plane){vals, idx, j.nvals, j.nidx};
    for (uint32_t l = 0; l < s->p->n_locs && !st; l++)
        if (s->p->locs[l].is_summary && l != s->p_summary) st = other_summary(&j, l);
    reducer_free(&j.r);
    free(j.q_of_pcol), free(j.p_of_q), free(j.here.t);
    pk_buf_free(&j.vals), pk_buf_free(&j.idx);
    return st;
}

/* ---- the summary plan of a parallel build ---- */

void hk_sum_plan_free(hk_sum_plan *plan)
{
    free(plan->e);
    memset(plan, 0, sizeof *plan);
}

static int by_stat_raw(const void *a, const void *b)
{
    const hk_sum_entry *x = a, *y = b;
    return (x->stat_raw > y->stat_raw) - (x->stat_raw < y->stat_raw);
}

/* The plain column of p with summary column c's metric and scope. */
static uint32_t plain_twin(const pk_profile *p, uint32_t c)
{
    for (uint32_t i = 0; i < p->n_columns; i++)
        if (!p->columns[i].is_summary && p->columns[i].metric == p->columns[c].metric &&
            p->columns[i].scope == p->columns[c].scope)
            return i;
    return PK_NONE;
}

/* A statistic pk_profile_derive computed as the sum of its plain twin's
 * values (hpcprof's Sum, $$), which a parallel build can reproduce: not
 * lex_aware when there are loops (derive uses values without loops there). */
static int sum_of_twin(const pk_profile *p, uint32_t c, uint32_t *twin)
{
    const pk_column *col = &p->columns[c];
    if (col->formula && strcmp(col->formula, "$$") != 0) return 0;
    if (col->combine != PK_COMBINE_SUM || col->stat != PK_STAT_SUM) return 0;
    if (p->scopes[col->scope].kind == PK_SCOPE_LEX_AWARE)
        for (uint32_t i = 0; i < p->n_ctx; i++)
            if (p->ctx[i].kind == PK_CTX_LOOP) return 0;
    *twin = plain_twin(p, c);
    return *twin != PK_NONE;
}

static pk_status cannot(const pk_profile *p, uint32_t c)
{
    const pk_column *col = &p->columns[c];
    return pk_fail(PK_ERR_UNSUPPORTED,
                   "parallel build: statistic '%s' of metric '%s' is not a sum over the "
                   "profiles' values; only the serial writer reproduces it",
                   col->formula ? col->formula : "?",
                   p->metrics[col->metric].name ? p->metrics[col->metric].name : "");
}

pk_status hk_sum_plan_native(const pk_profile *p, hk_sum_plan *plan)
{
    plan->n = 0;
    plan->e = malloc(((size_t)p->n_columns + 1) * sizeof *plan->e);
    if (!plan->e) return pk_fail_nomem("planning the summary");
    for (uint32_t c = 0; c < p->n_columns; c++) {
        uint32_t twin;
        if (!p->columns[c].is_summary) continue;
        if (!sum_of_twin(p, c, &twin)) return cannot(p, c);
        plan->e[plan->n++] = (hk_sum_entry){p->columns[c].raw_id, p->columns[twin].raw_id, HS_SUM};
    }
    qsort(plan->e, plan->n, sizeof *plan->e, by_stat_raw);
    return PK_OK;
}

pk_status hk_sum_plan_shaped(const hk_shape *s, hk_sum_plan *plan)
{
    const pk_profile *p = s->p, *q = s->q;
    plan->n = 0;
    plan->e = malloc(((size_t)q->n_columns + 1) * sizeof *plan->e);
    if (!plan->e) return pk_fail_nomem("planning the summary");
    for (uint32_t c = 0; c < q->n_columns; c++) {
        const hs_col *src = &s->col[c];
        uint32_t raw = q->columns[c].raw_id, twin, qc;
        if (!q->columns[c].is_summary || src->source == HS_NONE) continue;
        if (src->source == HS_COMBINED) {
            plan->e[plan->n++] = (hk_sum_entry){raw, q->columns[src->from].raw_id, src->reduce};
            continue;
        }
        /* stored: the source's statistic, which derive made from values */
        if (!sum_of_twin(p, src->from, &twin)) return cannot(p, src->from);
        qc = s->qcol_of_pcol[twin];
        if (qc == PK_NONE || s->col[qc].source != HS_STORED) return cannot(p, src->from);
        plan->e[plan->n++] = (hk_sum_entry){raw, q->columns[qc].raw_id, HS_SUM};
    }
    qsort(plan->e, plan->n, sizeof *plan->e, by_stat_raw);
    return PK_OK;
}
