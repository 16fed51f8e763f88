/*
 * analysis/answer_tree.c — the calling-context tree as an answer: its
 * nodes (function frames, loops kept apart, or every context), each
 * column's inclusive and self value per node, call counts, the hot path,
 * each node's children ranked, and which nodes the query shows (threshold
 * and depth). Every base metric gets the query's selection and its own
 * nodes; the trees have one shape (frames merge by name, whatever the
 * values), so node i is the same in each; expressions are evaluated on
 * each node's values. The callers and callees answers build their trees
 * here too, with another node builder.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/answer_tree.h"
#include "analysis/session.h"
#include "util/error.h"

static pk_status default_nodes(pk_session *s, const pkq_values *v, pk_tree_level level,
                               const void *arg, pk_frame **out, size_t *n)
{
    (void)arg;
    return pkq_values_frames_take(s, v, level, out, n);
}

/* One base's nodes and values into the work: the first base's nodes are
 * the answer's; the others must have their shape. */
static pk_status add_base(pkq_tree_work *w, size_t b)
{
    const pkq_values *v;
    pk_frame *f = NULL;
    size_t n = 0;
    pk_status st = pkq_values_get(w->s, w->cols.base[b], w->q, &v);
    if (!st) st = w->build(w->s, v, w->level, w->arg, &f, &n);
    if (st) return st;
    if (b == 0) {
        w->nodes = f, w->n = n;
        w->totals[0] = v->total, w->nf[0] = v->nf;
    } else {
        int same = n == w->n;
        for (size_t i = 0; same && i < n; i++)
            same = f[i].context == w->nodes[i].context;
        if (!same) return free(f), pk_fail(PK_ERR_FORMAT, "the metrics' trees differ in shape");
        w->totals[b] = v->total, w->nf[b] = v->nf;
    }
    double *in = pk_arena_array(&w->arena, n ? n : 1, sizeof *in);
    double *self = pk_arena_array(&w->arena, n ? n : 1, sizeof *self);
    if (!in || !self) st = pk_fail_nomem("a tree");
    int known = w->level != PK_LEVEL_LINES || v->excl;
    for (size_t i = 0; !st && i < n; i++)
        in[i] = f[i].inclusive, self[i] = known ? f[i].self : NAN;
    w->base_in[b] = in, w->base_self[b] = self, w->base_has_self[b] = v->excl != NULL;
    if (b == 0 && !st) st = pkq_notes_of_values(&w->a->head, &w->arena, w->q, v);
    if (b == 0 && !st) w->a->head.n_locations = v->n_selected;
    if (b != 0) free(f);
    return st;
}

/* Column c per node, from the bases' values. */
static pk_status evaluate(pkq_tree_work *w, size_t c, double *in, double *self)
{
    size_t nb = w->cols.n_base;
    double *vi = malloc(nb * sizeof *vi), *vs = malloc(nb * sizeof *vs);
    if (!vi || !vs) return free(vi), free(vs), pk_fail_nomem("a tree's columns");
    for (size_t i = 0; i < w->n; i++) {
        for (size_t b = 0; b < nb; b++)
            vi[b] = w->base_in[b][i], vs[b] = w->base_self[b][i];
        in[i] = pkq_columns_eval(&w->cols, c, vi);
        self[i] = pkq_columns_eval(&w->cols, c, vs);
    }
    free(vi), free(vs);
    return PK_OK;
}

/* Column c's arrays: a metric's are its base's own (the same values,
 * not a copy of them), an expression's are evaluated per node. */
static pk_status column_values(pkq_tree_work *w, size_t c, double **in, double **self)
{
    const pkq_column *col = &w->cols.col[c];
    if (!col->e) {
        *in = w->base_in[col->base[0]], *self = w->base_self[col->base[0]];
        return PK_OK;
    }
    *in = pk_arena_array(&w->arena, w->n ? w->n : 1, sizeof **in);
    *self = pk_arena_array(&w->arena, w->n ? w->n : 1, sizeof **self);
    if (!*in || !*self) return pk_fail_nomem("a tree's columns");
    return evaluate(w, c, *in, *self);
}

static pk_status fill_columns(pkq_tree_work *w)
{
    pk_tree_answer *a = w->a;
    size_t nc = w->cols.n_col, nb = w->cols.n_base;
    double **in = pk_arena_array(&w->arena, nc, sizeof *in);
    double **self = pk_arena_array(&w->arena, nc, sizeof *self);
    if (!in || !self) return pk_fail_nomem("a tree's columns");
    for (size_t c = 0; c < nc; c++) {
        const pkq_column *col = &w->cols.col[c];
        size_t b0 = col->base[0];
        pk_status st = column_values(w, c, &in[c], &self[c]);
        if (st) return st;
        double *tot = malloc(nb * sizeof *tot);
        if (!tot) return pk_fail_nomem("a tree's columns");
        memcpy(tot, w->totals, nb * sizeof *tot);
        pkq_column_of_metric(&a->head.columns[c], &w->cols.base_met[b0], w->cols.base[b0],
                             pkq_columns_eval(&w->cols, c, tot), &w->nf[b0], w->base_has_self[b0]);
        free(tot);
        if (col->e) pkq_column_expression(&a->head.columns[c], &w->arena, col->label);
    }
    a->inclusive = (const double *const *)in, a->self = (const double *const *)self;
    for (size_t i = 0; i < w->n; i++) /* the first column draws the tree */
        w->nodes[i].inclusive = in[0][i], w->nodes[i].self = self[0][i];
    return PK_OK;
}

/* Call counts per node when the profile has a call-count metric the answer
 * does not show as a column: that metric's self values per node. */
static pk_status fill_calls(pkq_tree_work *w)
{
    pk_index m;
    pk_metric met;
    if (pk_metric_call_count(w->s->p, &m) || pk_metric_get(w->s->p, m, &met)) return PK_OK;
    for (size_t b = 0; b < w->cols.n_base; b++)
        if (w->cols.base[b] == m) return PK_OK;
    const pkq_values *v;
    pk_frame *f = NULL;
    size_t n = 0;
    pk_status st = pkq_values_get(w->s, m, w->q, &v);
    if (!st && !v->excl) return PK_OK; /* no self values to count with */
    if (!st) st = w->build(w->s, v, w->level, w->arg, &f, &n);
    if (!st && n == w->n) {
        double *calls = pk_arena_array(&w->arena, n ? n : 1, sizeof *calls);
        if (!calls) st = pk_fail_nomem("a tree's calls");
        for (size_t i = 0; !st && i < n; i++)
            calls[i] = f[i].self;
        w->a->calls = calls, w->a->calls_metric = pkq_strdup(&w->arena, met.name);
    }
    free(f);
    return st;
}

pk_status pkq_tree_compute(pkq_tree_work *w)
{
    if (!w->build) w->build = default_nodes;
    size_t nb = w->cols.n_base;
    w->base_in = pk_arena_array(&w->arena, nb, sizeof *w->base_in);
    w->base_self = pk_arena_array(&w->arena, nb, sizeof *w->base_self);
    w->base_has_self = pk_arena_array(&w->arena, nb, sizeof *w->base_has_self);
    w->totals = pk_arena_array(&w->arena, nb, sizeof *w->totals);
    w->nf = pk_arena_array(&w->arena, nb, sizeof *w->nf);
    if (!w->base_in || !w->base_self || !w->base_has_self || !w->totals || !w->nf)
        return pk_fail_nomem("a tree");
    pk_status st = PK_OK;
    for (size_t b = 0; !st && b < nb; b++)
        st = add_base(w, b);
    if (!st) st = fill_columns(w);
    if (!st) st = fill_calls(w);
    if (!st) st = pkq_tree_shape(w);
    return st;
}

void pkq_column_expression(pk_answer_column *c, pk_arena *a, const char *label)
{
    c->name = pkq_strdup(a, label);
    c->expression = c->name;
    c->unit = NULL, c->metric = PK_NONE, c->combine = PK_COMBINE_SUM;
    c->percent = 0;
    c->numbers = (pk_number_format){.scale = 1};
}

pk_status pkq_tree_finish(pkq_tree_work *w)
{
    pk_tree_answer *a = w->a;
    pk_arena *keep = pk_arena_alloc(&w->arena, sizeof *keep);
    /* the nodes stay where they were built (a copy into the arena would
     * hold two of them at once: 29 MB each for cc1's 600,000 frames) */
    if (!keep || pk_arena_own(&w->arena, w->nodes)) return pk_fail_nomem("a tree");
    a->nodes = w->nodes, a->n_nodes = w->n;
    w->nodes = NULL;
    a->level = w->level;
    a->level_name = pkq_level_name(w->level);
    a->threshold = w->q->threshold;
    a->threshold_of = w->share_of_root             ? "its inclusive value"
                      : a->head.columns[0].percent ? "the total"
                                                   : "the largest value";
    a->depth = w->q->depth;
    *keep = w->arena;
    a->arena_ = keep;
    return PK_OK;
}

void pk_tree_answer_free(pk_tree_answer *a)
{
    if (!a) return;
    pk_arena arena = *(pk_arena *)a->arena_; /* the answer lives in it */
    pk_arena_free(&arena);
}

size_t pk_tree_answer_node_name(const pk_tree_answer *a, pk_index i, char *buf, size_t size)
{
    if (!a || i >= a->n_nodes) return buf && size ? (buf[0] = 0) : 0;
    return pk_frame_name(a->head.profile, &a->nodes[i], buf, size);
}

pk_status pk_tree_answer_match(const pk_tree_answer *a, const pk_tree_answer *base,
                               double *base_inclusive, double *base_self)
{
    if (!a || !base || !base_inclusive || !base_self)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_tree_answer_match: bad arguments");
    size_t n = a->n_nodes;
    pk_index *map = malloc((n ? n : 1) * sizeof *map);
    if (!map) return pk_fail_nomem("matching two trees");
    pk_status st = n && base->n_nodes
                       ? pk_frames_match(a->head.profile, a->nodes, n, base->head.profile,
                                         base->nodes, base->n_nodes, map)
                       : PK_OK;
    for (size_t i = 0; i < n; i++) {
        int hit = !st && base->n_nodes && map[i] != PK_NONE;
        base_inclusive[i] = hit ? base->nodes[map[i]].inclusive : NAN;
        base_self[i] = hit ? base->nodes[map[i]].self : NAN;
    }
    free(map);
    return st;
}

static const char *source_of(const pk_profile *p)
{
    return pkq_reconstructed(p) ? "reconstructed tree" : "tree";
}

pk_status pk_tree_answer_flame_ready(const pk_tree_answer *a)
{
    if (!a) return pk_fail(PK_ERR_INVALID_ARG, "pk_tree_answer_flame_ready: NULL");
    const pk_answer_column *c = &a->head.columns[0];
    if (c->combine != PK_COMBINE_MIN && c->combine != PK_COMBINE_MAX) return PK_OK;
    return pk_fail(PK_ERR_UNSUPPORTED,
                   "no flame graph of %s: it combines by its %s, so a function's value is no "
                   "sum of its callees' and widths cannot nest; 'profkit tree -m %s' shows it",
                   c->name ? c->name : "the metric",
                   c->combine == PK_COMBINE_MIN ? "minimum" : "maximum", c->name ? c->name : "");
}

pk_status pk_answer_tree(pk_session *s, const pk_query *q, pk_tree_answer **out)
{
    if (!s || !q || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_answer_tree: bad arguments");
    pkq_tree_work w = {.s = s, .q = q, .level = q->level, .fold = 1};
    if (pk_context_count(s->p) == 0) w.level = PK_LEVEL_LINES; /* no frames to make */
    pk_arena_init(&w.arena);
    pk_status st = pkq_columns_parse(s->p, q, &w.cols);
    if (!st && !(w.a = pk_arena_alloc(&w.arena, sizeof *w.a))) st = pk_fail_nomem("a tree");
    if (!st) st = pkq_head_init(&w.a->head, &w.arena, s->p, q, source_of(s->p), w.cols.n_col);
    if (!st) st = pkq_tree_compute(&w);
    if (!st) st = pkq_tree_finish(&w);
    pkq_columns_free(&w.cols);
    if (st) {
        free(w.nodes);
        pk_arena_free(&w.arena);
        return st;
    }
    *out = w.a;
    return PK_OK;
}
