/*
 * analysis/answer_diff.c — what changed from profile A (the base) to B,
 * as an answer: per function and per calling path, whatever the two
 * files' formats. Each side's values of the metric under the query's
 * selection (B's metric found by name, put in A's unit), the calling
 * paths of both (functions only: entry points and the stand-ins writers
 * make fold away, so a profile and its conversion compare equal), rows
 * matched and settled (rounding is no change), then what the tables
 * show: the query's top rows per table (rows whose own value did not
 * change are folded and counted), cut at the threshold of A's total.
 * Further metrics of the query are compared alike; their rows meet the
 * first metric's by the frames they index, the same in every metric's
 * frames of one profile (frames merge by name, whatever the values).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/answer_diff.h"
#include "analysis/frames.h"
#include "analysis/session.h"
#include "util/error.h"

/* One metric's values and (paths: 1) calling paths on one side. */
static pk_status side_values(pk_session *s, pk_index m, const pk_query *q, double scale, int paths,
                             pkq_diff_side *d)
{
    const pkq_values *v;
    size_t n = pk_context_count(s->p);
    pk_status st = pkq_values_get(s, m, q, &v);
    if (st) return st;
    d->met = v->met, d->metric = m, d->total = v->total * scale, d->nf = v->nf;
    d->has_self = v->excl != NULL || !paths; /* a call graph has every self cost */
    if (!paths) return PK_OK;
    double *incl = malloc((n ? n : 1) * sizeof *incl);
    double *excl = v->excl ? malloc((n ? n : 1) * sizeof *excl) : NULL;
    if (!incl || (v->excl && !excl)) return free(incl), pk_fail_nomem("a comparison");
    for (size_t i = 0; i < n; i++) {
        incl[i] = v->incl[i] * scale;
        if (excl) excl[i] = v->excl[i] * scale;
    }
    /* a min/max metric's frames combine its values, self from exclusive */
    st = pk_frames_build_paths_combined(s->p, incl, excl, v->met.combine, &d->frames, &d->n_frames);
    free(excl);
    free(incl);
    return st;
}

/* A call graph's exact per-function values of the view (what `flat`
 * shows, in A's unit), instead of its reconstructed tree's; "<cycle N>"
 * pseudo-functions left out. 0 when the side has no call graph or the
 * query needs the tree (focus, hide, a statistic). */
static int exact_of(pk_session *s, const pk_query *q, pk_index m, double scale, pk_diff_exact *x)
{
    pkq_cg cv;
    if (!pkq_uses_callgraph(s->p, q) || pkq_cg_init(s->p, m, q, &cv) != PK_OK) return 0;
    size_t nf = pk_function_count(s->p);
    pk_cg_function_cost *c = calloc(nf + 1, sizeof *c), *t = calloc(nf + 1, sizeof *t);
    double *self = calloc(2 * nf + 1, sizeof *self);
    unsigned char *hidden = calloc(2 * nf + 1, 1);
    int ok = c && t && self && hidden;
    for (size_t i = 0; ok && i < (cv.locations ? cv.n_locations : 1); i++) {
        ok = pk_callgraph_function_costs(s->p, cv.locations ? cv.locations[i] : PK_NONE, cv.event,
                                         t, NULL, NULL) == PK_OK;
        for (size_t f = 0; ok && f < nf; f++)
            c[f].self += t[f].self, c[f].inclusive += t[f].inclusive, c[f].cycle |= t[f].cycle;
    }
    for (size_t f = 0; ok && f < nf; f++) {
        pk_function fn;
        self[f] = c[f].self * scale, self[nf + f] = c[f].inclusive * scale;
        hidden[f] = !pk_function_get(s->p, (pk_index)f, &fn) && fn.name &&
                    strncmp(fn.name, "<cycle ", 7) == 0;
        hidden[nf + f] = c[f].cycle != 0 || t[f].cycle != 0;
    }
    free(c), free(t), pkq_cg_free(&cv);
    if (!ok) return free(self), free(hidden), 0;
    *x = (pk_diff_exact){self, self + nf, hidden, hidden + nf};
    return 1;
}

static void exact_free(pk_diff_exact *x)
{
    free((void *)x->self), free((void *)x->hidden);
}

/* The function and path rows of one metric, settled. */
static pk_status metric_rows(pkq_diff_work *w, pk_index ma, pk_index mb, pkq_diff_rows *r)
{
    pkq_diff_side *a = &r->a, *b = &r->b;
    double f = 1;
    pk_metric am, bm;
    pk_metric_get(w->sa->p, ma, &am), pk_metric_get(w->sb->p, mb, &bm);
    if (pk_metric_unit_factor(&bm, &am, &f) != PK_OK) f = 1;
    r->scale = f;
    pk_status st = side_values(w->sa, ma, w->q, 1, !w->arcs, a);
    if (!st) st = side_values(w->sb, mb, w->q, f, !w->arcs, b);
    if (st) return st;
    if (w->arcs) return r->exact = 1, pkq_diff_arcs_rows(w->arcs, ma, mb, r);
    /* like with like: exact costs only when both sides have a call graph
     * (a tree made from one is compared with the other's tree); a lone
     * call graph still flags its cycles' members (their tree values are
     * an estimate) and leaves out its "<cycle N>" pseudo-functions */
    pk_diff_exact ea = {0}, eb = {0};
    int xa = exact_of(w->sa, w->q, ma, 1, &ea), xb = exact_of(w->sb, w->q, mb, f, &eb);
    pk_diff_exact use_a = ea, use_b = eb;
    if (!(xa && xb)) use_a.self = use_a.inclusive = use_b.self = use_b.inclusive = NULL;
    r->exact = xa && xb;
    st = pkq_diff_functions_combined(w->sa->p, a->frames, a->n_frames, xa ? &use_a : NULL, w->sb->p,
                                     b->frames, b->n_frames, xb ? &use_b : NULL, a->met.combine,
                                     &r->fr, &r->nf);
    exact_free(&ea), exact_free(&eb);
    if (!st)
        st = pk_diff_frames(w->sa->p, a->frames, a->n_frames, w->sb->p, b->frames, b->n_frames,
                            &r->pr, &r->np);
    if (!st) pk_diff_settle(r->fr, r->nf, a->total), pk_diff_settle(r->pr, r->np, a->total);
    return st;
}

static void rows_free(pkq_diff_rows *r)
{
    pk_diff_free(r->fr), pk_diff_free(r->pr);
    pk_frames_free(r->a.frames), pk_frames_free(r->b.frames);
    memset(r, 0, sizeof *r);
}

static int by_frames(const void *x, const void *y)
{
    const pk_diff_row *a = x, *b = y;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

/* B's metric of base i's name (by the lookup's rules else). */
static pk_status b_metric(pkq_diff_work *w, size_t i, pk_index *mb)
{
    pk_status st = pk_metric_lookup(w->sb->p, w->cols.base_met[i].name, mb);
    if (st) {
        char why[2048]; /* the lookup's message names B's metrics */
        snprintf(why, sizeof why, "%s", pk_error_last());
        st = pk_fail(st, "B: %s", why);
    }
    return st;
}

/* Every base metric's rows; the first column's metric is base `main`. */
static pk_status all_rows(pkq_diff_work *w)
{
    size_t nb = w->cols.n_base;
    pk_index *mb = calloc(nb + 1, sizeof *mb);
    if (!mb || !(w->base = calloc(nb, sizeof *w->base)))
        return free(mb), pk_fail_nomem("a comparison");
    pk_status st = PK_OK;
    for (size_t i = 0; !st && i < nb; i++)
        st = b_metric(w, i, &mb[i]);
    if (!st && pkq_diff_arcs_apply(w, mb)) st = pkq_diff_arcs_build(w);
    for (size_t i = 0; !st && i < nb; i++)
        st = metric_rows(w, w->cols.base[i], mb[i], &w->base[i]);
    free(mb);
    /* the further metrics' rows, looked up by frames */
    for (size_t i = 0; !st && i < nb; i++) {
        if (i == w->main) continue;
        qsort(w->base[i].fr, w->base[i].nf, sizeof *w->base[i].fr, by_frames);
        qsort(w->base[i].pr, w->base[i].np, sizeof *w->base[i].pr, by_frames);
    }
    return st;
}

/* Column c's values in A and B of row r (self or inclusive). */
void pkq_diff_values(const pkq_diff_work *w, size_t c, const pk_diff_row *r, int paths,
                     int inclusive, double *a, double *b)
{
    size_t nb = w->cols.n_base;
    double sa[16] = {0}, sb[16] = {0}, *va = nb <= 16 ? sa : malloc(nb * sizeof *va),
           *vb = nb <= 16 ? sb : malloc(nb * sizeof *vb);
    if (!va || !vb) {
        *a = *b = NAN;
        if (va != sa) free(va);
        return;
    }
    for (size_t i = 0; i < nb; i++) {
        const pkq_diff_rows *base = &w->base[i];
        const pk_diff_row *hit = i == w->main
                                     ? r
                                     : bsearch(r, paths ? base->pr : base->fr,
                                               paths ? base->np : base->nf, sizeof *r, by_frames);
        va[i] = !hit ? 0 : inclusive ? hit->a_incl : hit->a_self;
        vb[i] = !hit ? 0 : inclusive ? hit->b_incl : hit->b_self;
    }
    *a = pkq_columns_eval(&w->cols, c, va);
    *b = pkq_columns_eval(&w->cols, c, vb);
    if (va != sa) free(va);
    if (vb != sb) free(vb);
}

pk_status pk_answer_diff(pk_session *sa, pk_session *sb, const pk_query *q, pk_diff_answer **out)
{
    if (!sa || !sb || !q || !out)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_answer_diff: bad arguments");
    pkq_diff_work w = {.sa = sa, .sb = sb, .q = q};
    pk_arena_init(&w.arena);
    pk_status st = pkq_columns_parse(sa->p, q, &w.cols);
    if (!st && !w.cols.col[0].plain)
        st = pk_fail(PK_ERR_INVALID_ARG, "metric: the first of -m must be a metric: the tables "
                                         "are sorted by it (derived ones may follow)");
    if (!st) w.main = w.cols.col[0].base[0];
    if (!st) st = all_rows(&w);
    if (!st) st = pkq_diff_fill(&w);
    for (size_t i = 0; w.base && i < w.cols.n_base; i++)
        if (st || i != w.main) rows_free(&w.base[i]);
    if (!st) { /* the first metric's frames stay with the answer */
        pk_diff_free(w.base[w.main].fr), pk_diff_free(w.base[w.main].pr);
        st = pkq_diff_keep_frames(&w, &w.base[w.main]);
    }
    free(w.base);
    pkq_diff_arcs_free(w.arcs);
    pkq_columns_free(&w.cols);
    if (st) return pk_arena_free(&w.arena), st;
    *out = w.a;
    return PK_OK;
}
