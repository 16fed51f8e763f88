/*
 * formats/hpctoolkit/write_shape_sum.c — the summary profile of the
 * shaped profile (profile.db profile 0): statistics combined over the
 * plain locations' values, and those the source stored and the writer
 * keeps (write_shape_cols.c says which is which).
 *
 * Combining walks the context-major view of the shaped values (cct.db's
 * layout, built once and written as cct.db too): per context and plain
 * column, the run of values over locations is reduced to each statistic
 * that asks for it. Where cells per (context, column) take less memory
 * than that view, the statistics are accumulated in them instead
 * (write_shape_acc.c); one location's are its plane's (one_plane()). Count and sum of squares
 * follow hpcprof's partials "1" and "($$^2)" (field notes §d); a location without a stored value at
 * a context counts as absent, since sparse files hold no zeros.
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

/* Each statistic the reducer asks of plain column raw at ctx, from the
 * cell its values were folded into. */
static pk_status push_stats(const hk_shape *s, const reducer *r, uint32_t ctx, uint32_t raw,
                            const hs_cell *cell, hs_triples *out)
{
    pk_status st = PK_OK;
    for (uint32_t j = raw < r->n_raw ? r->first[raw] : PK_NONE; j != PK_NONE && !st;
         j = r->next[j]) {
        uint32_t c = r->col[j];
        st = hs_push(out, ctx, s->q->columns[c].raw_id, hs_cell_stat(cell, s->col[c].reduce));
    }
    return st;
}

/* combine_context() from accumulated cells (write_shape_acc.c). */
static pk_status combine_cells(const hk_shape *s, const reducer *r, const hs_cells *cells,
                               uint32_t ctx, hs_triples *out)
{
    const hs_cell *row = cells->c + (size_t)ctx * cells->nr;
    pk_status st = PK_OK;
    for (uint32_t raw = 0; raw < cells->nr && !st; raw++)
        if (row[raw].count != 0) st = push_stats(s, r, ctx, raw, &row[raw], out);
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
    hs_cells cells;             /* accumulated statistics (hs_cells_make()), or none */
    const pk_plane *one;        /* the one plain location's plane (one_plane()), or NULL */
    uint32_t one_at;            /* its index entry at or after the context being combined */
    int twin;                   /* the summary's bytes so far are one's: none stored (put()) */
    uint64_t vals_len, idx_len; /* the summary's bytes so far */
} sum_job;

/* What put() matched, stored after all: the summary differs from one. */
static void unshare(sum_job *j)
{
    if (!j->twin) return;
    j->twin = 0;
    pk_buf_bytes(&j->vals, j->one->vals, j->vals_len);
    pk_buf_bytes(&j->idx, j->one->idx, j->idx_len);
}

/* memcmp(a, b, n) == 0, inlined where n is known (put_idx, put_val). */
static int same_bytes(const unsigned char *a, const unsigned char *b, size_t n)
{
    size_t i = 0;
    for (uint64_t x, y; i + 8 <= n; i += 8) {
        memcpy(&x, a + i, 8), memcpy(&y, b + i, 8);
        if (x != y) return 0;
    }
    for (; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

/* Append a record to the summary's index (idx) or values. A summary of
 * one location's sums is that location's plane again, byte for byte
 * (cc1: 19 MB): while the bytes match the plane's at the same place
 * nothing is stored, and if all match the summary is the plane itself
 * (hs_summary_values()); at the first difference the matched bytes are
 * copied in and appending goes on. */
static void put(sum_job *j, int idx, const unsigned char *rec, size_t n)
{
    uint64_t *len = idx ? &j->idx_len : &j->vals_len;
    if (j->twin) {
        const unsigned char *mine = idx ? j->one->idx : j->one->vals;
        uint64_t cap =
            idx ? (uint64_t)j->one->nidx * PK_LM_IDX_SIZE : j->one->nvals * PK_LM_VAL_SIZE;
        if (*len + n > cap || !same_bytes(mine + *len, rec, n)) unshare(j);
    }
    if (!j->twin) pk_buf_bytes(idx ? &j->idx : &j->vals, rec, n);
    *len += n;
}

/* put() of an index entry and of a value: with the size known, the
 * compare is a few loads (memcmp, a call per record, took a third of
 * cc1's summary). */
static void put_idx(sum_job *j, const unsigned char *rec)
{
    put(j, 1, rec, PK_LM_IDX_SIZE);
}

static void put_val(sum_job *j, const unsigned char *rec)
{
    put(j, 0, rec, PK_LM_VAL_SIZE);
}

/* Is pl in the order the context-major view would have it, context by
 * context (ids ascending, each known) and each context's values by plain
 * column (ascending, one value each, each column known)? */
static int in_view_order(const pk_profile *q, const pk_plane *pl)
{
    for (uint32_t k = 0; k < pl->nidx; k++) {
        const unsigned char *x = pl->idx + (uint64_t)k * PK_LM_IDX_SIZE;
        uint64_t b = pk_le64(x + 4),
                 e = k + 1 < pl->nidx ? pk_le64(x + 4 + PK_LM_IDX_SIZE) : pl->nvals;
        if (b > e || e > pl->nvals || (k && pk_le32(x) <= pk_le32(x - PK_LM_IDX_SIZE)) ||
            pk_model_ctx_find(q, pk_le32(x)) == PK_NONE)
            return 0;
        for (uint64_t v = b; v < e; v++) {
            uint32_t raw = pk_le16(pl->vals + v * PK_LM_VAL_SIZE);
            if (pk_model_col_of(q, 0, raw) == PK_NONE ||
                (v > b && raw <= pk_le16(pl->vals + (v - 1) * PK_LM_VAL_SIZE)))
                return 0;
        }
    }
    return 1;
}

/* A profile of one plain location (one thread, one Callgrind part) needs
 * no context-major view for its summary: each statistic is of one value,
 * and the location's plane, read in id order, is that view already when
 * in_view_order(). The view (cc1: 45 MB) is then not built, and cct.db is
 * written from the plane by chunks (write_cct_chunks.c). */
static const pk_plane *one_plane(const pk_profile *q)
{
    const pk_plane *one = NULL;
    for (uint32_t l = 0; l < q->n_locs; l++) {
        if (q->locs[l].is_summary) continue;
        if (one) return NULL;
        one = &q->locs[l].plane;
    }
    return one && !q->cm && in_view_order(q, one) ? one : NULL;
}

/* combine_context() from the one plain plane, its cursor moved to id. */
static pk_status combine_one(sum_job *j, uint64_t id, uint32_t ctx)
{
    const pk_plane *pl = j->one;
    while (j->one_at < pl->nidx && pk_le32(pl->idx + (uint64_t)j->one_at * PK_LM_IDX_SIZE) < id)
        j->one_at++;
    const unsigned char *x = pl->idx + (uint64_t)j->one_at * PK_LM_IDX_SIZE;
    if (j->one_at == pl->nidx || pk_le32(x) != id) return PK_OK;
    uint64_t b = pk_le64(x + 4),
             e = j->one_at + 1 < pl->nidx ? pk_le64(x + 4 + PK_LM_IDX_SIZE) : pl->nvals;
    pk_status st = PK_OK;
    for (uint64_t v = b; v < e && !st; v++) { /* one value a column: a cell of one */
        const unsigned char *rec = pl->vals + v * PK_LM_VAL_SIZE;
        hs_cell cell = {0};
        hs_cell_add(&cell, pk_le_f64(rec + 2));
        st = push_stats(j->s, &j->r, ctx, pk_le16(rec), &cell, &j->here);
    }
    return st;
}

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
    const pk_triple *x = a, *y = b;
    return (x->col > y->col) - (x->col < y->col);
}

/* One context's values by column, stably. Most contexts hold a few,
 * which an insertion sort orders without a call per comparison. */
static void sort_by_col(pk_triple *t, size_t n)
{
    if (n > 16) {
        qsort(t, n, sizeof *t, by_col); /* as before (the columns differ) */
        return;
    }
    for (size_t i = 1; i < n; i++) {
        pk_triple x = t[i];
        size_t k = i;
        for (; k > 0 && t[k - 1].col > x.col; k--)
            t[k] = t[k - 1];
        t[k] = x;
    }
}

/* Context id `id` (shaped index qi): its values, sorted, appended. */
static pk_status append_context(sum_job *j, uint64_t id, uint32_t qi)
{
    j->here.n = 0;
    pk_status st = j->one       ? combine_one(j, id, qi)
                   : j->cells.c ? combine_cells(j->s, &j->r, &j->cells, qi, &j->here)
                                : combine_context(j->s, &j->r, qi, &j->here);
    if (!st) st = stored_at(j, qi);
    if (st || !j->here.n) return st;
    sort_by_col(j->here.t, j->here.n);
    unsigned char rec[PK_LM_IDX_SIZE > PK_LM_VAL_SIZE ? PK_LM_IDX_SIZE : PK_LM_VAL_SIZE];
    pk_put_le32(rec, (uint32_t)id);
    pk_put_le64(rec + 4, j->nvals);
    put_idx(j, rec);
    j->nidx++;
    for (size_t k = 0; k < j->here.n; k++) {
        pk_put_le16(rec, j->here.t[k].col);
        pk_put_le64(rec + 2, pk_f64_bits(j->here.t[k].v));
        put_val(j, rec);
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
    sum_job j = {.s = s, .one = one_plane(q)};
    j.twin = j.one != NULL;
    pk_status st = j.one ? PK_OK : hs_cells_make(q, &j.cells);
    if (!st && !j.one && !j.cells.c) st = pk_model_ensure_cm(q); /* the transpose, then */
    if (!st) st = sum_init(&j, s);
    uint64_t max_id = 0;
    for (uint32_t i = 0; i < q->n_ctx; i++)
        max_id = q->ctx[i].id > max_id ? q->ctx[i].id : max_id;
    for (uint64_t id = 0; id <= max_id && !st; id++) {
        uint32_t qi = pk_model_ctx_find(q, id);
        if (qi != PK_NONE) st = append_context(&j, id, qi);
    }
    if (j.twin && (j.nvals != j.one->nvals || j.nidx != j.one->nidx)) unshare(&j); /* a part */
    if (!st && (j.vals.failed || j.idx.failed)) st = pk_fail_nomem("combining statistics");
    unsigned char *vals = j.vals.data, *idx = j.idx.data;
    if (!st && vals) st = pk_model_adopt_owned(q, vals), j.vals.data = NULL;
    if (!st && idx) st = pk_model_adopt_owned(q, idx), j.idx.data = NULL;
    if (!st) q->locs[0].plane = j.twin ? *j.one : (pk_plane){vals, idx, j.nvals, j.nidx};
    for (uint32_t l = 0; l < s->p->n_locs && !st; l++)
        if (s->p->locs[l].is_summary && l != s->p_summary) st = other_summary(&j, l);
    reducer_free(&j.r);
    hs_cells_free(&j.cells);
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
