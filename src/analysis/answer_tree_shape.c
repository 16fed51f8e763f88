/*
 * analysis/answer_tree_shape.c — a tree answer's shape, computed once for
 * every renderer (text, CSV, JSON, the view's expansions, Python): the
 * hot path (hpcviewer's rule: from the root, the largest child while it
 * holds at least half of its parent), each node's children ranked
 * largest first, and which nodes the query shows (depth, then threshold
 * as a share of the total, or of the largest value for a metric that
 * has no total to share out; a node is shown only under a shown parent).
 */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/answer_tree.h"
#include "util/error.h"

void pkq_mark_hot(const pk_frame *f, size_t n, unsigned char *hot)
{
    if (n == 0) return;
    for (pk_index i = 0;;) {
        hot[i] = 1;
        pk_index best = PK_NONE;
        for (pk_index c = f[i].first_child; c != PK_NONE; c = f[c].next_sibling)
            if (best == PK_NONE || fabs(f[c].inclusive) > fabs(f[best].inclusive)) best = c;
        if (best == PK_NONE || f[i].inclusive == 0 ||
            !(fabs(f[best].inclusive) >= 0.5 * fabs(f[i].inclusive)))
            return;
        i = best;
    }
}

/* Largest |inclusive| first, NaN before all, then by index. */
static int largest_first(const void *a, const void *b, void *frames)
{
    const pk_frame *f = frames;
    pk_index x = *(const pk_index *)a, y = *(const pk_index *)b;
    double u = fabs(f[x].inclusive), v = fabs(f[y].inclusive);
    int nu = isnan(u), nv = isnan(v);
    if (nu != nv) return nu ? -1 : 1;
    if (!nu && u != v) return u < v ? 1 : -1;
    return x < y ? -1 : 1;
}

/* Node's children into rank order. Most nodes have one child or none:
 * qsort_r()'s call per node (600,000 for cc1's tree) cost more than the
 * sorting, so a few are sorted by insertion. The order is total (ties go
 * by index), so every sort gives the same. */
static void rank(pk_index *c, size_t k, const pk_frame *f)
{
    if (k > 16) {
        qsort_r(c, k, sizeof *c, largest_first, (void *)f);
        return;
    }
    for (size_t i = 1; i < k; i++) {
        pk_index x = c[i];
        size_t j = i;
        for (; j > 0 && largest_first(&x, &c[j - 1], (void *)f) < 0; j--)
            c[j] = c[j - 1];
        c[j] = x;
    }
}

static pk_status rank_children(pkq_tree_work *w, pk_index **children, size_t **start)
{
    size_t n = w->n;
    *start = pk_arena_array(&w->arena, n + 1, sizeof **start);
    *children = pk_arena_array(&w->arena, n ? n : 1, sizeof **children);
    if (!*start || !*children) return pk_fail_nomem("a tree's shape");
    for (size_t i = 1; i < n; i++)
        if (w->nodes[i].parent != PK_NONE && w->nodes[i].parent < i)
            (*start)[w->nodes[i].parent + 1]++;
    for (size_t i = 0; i < n; i++)
        (*start)[i + 1] += (*start)[i];
    for (size_t i = 0; i < n; i++) { /* node i's children, all at once: a count of its own */
        size_t *at = *start, k = 0;
        for (pk_index c = w->nodes[i].first_child; c != PK_NONE; c = w->nodes[c].next_sibling)
            if (c > i && at[i] + k < at[i + 1]) (*children)[at[i] + k++] = c;
        rank(*children + at[i], k, w->nodes);
    }
    return PK_OK;
}

/* Is node i shown on its own account (its parent aside)? `size` is what
 * the threshold weighs: its |inclusive| value, or for a metric that is no
 * sum the largest of its subtree (a min/max tree's small values sit above
 * its large ones). */
static int worth_showing(const pkq_tree_work *w, pk_index i, double scale, const double *size)
{
    const pk_frame *f = &w->nodes[i];
    int self_known = w->level != PK_LEVEL_LINES || w->a->head.columns[0].has_self;
    if (w->q->depth && f->depth > w->q->depth) return 0;
    if (isnan(f->inclusive) || (self_known && isnan(f->self))) return 1; /* never hidden as small */
    if (w->q->threshold <= 0 || isnan(scale))
        return f->inclusive != 0 || (w->level == PK_LEVEL_LINES && self_known && f->self != 0);
    return (size ? size[i] : fabs(f->inclusive)) >= w->q->threshold / 100.0 * scale;
}

/* Per node, the largest |inclusive| value in its subtree (NULL when the
 * column's values are shares of a total: then a parent holds its
 * children). */
static double *subtree_sizes(const pkq_tree_work *w)
{
    if (w->a->head.columns[0].percent || w->share_of_root) return NULL;
    double *size = malloc((w->n ? w->n : 1) * sizeof *size);
    for (size_t i = 0; size && i < w->n; i++)
        size[i] = isnan(w->nodes[i].inclusive) ? 0 : fabs(w->nodes[i].inclusive);
    for (size_t i = w->n; size && i-- > 1;) { /* children come after their parent */
        pk_index up = w->nodes[i].parent;
        if (up != PK_NONE && up < i && size[i] > size[up]) size[up] = size[i];
    }
    return size;
}

/* What thresholds are shares of: the total, or the largest value. */
static double threshold_scale(const pkq_tree_work *w)
{
    const pk_answer_column *c = &w->a->head.columns[0];
    if (w->share_of_root) return w->n ? fabs(w->nodes[0].inclusive) : 0;
    if (c->percent) return fabs(c->total);
    double m = 0;
    for (size_t i = 0; i < w->n; i++)
        if (!isnan(w->nodes[i].inclusive)) m = fmax(m, fabs(w->nodes[i].inclusive));
    return m;
}

pk_status pkq_tree_shape(pkq_tree_work *w)
{
    pk_tree_answer *a = w->a;
    size_t n = w->n;
    unsigned char *hot = pk_arena_alloc(&w->arena, n ? n : 1);
    unsigned char *shown = pk_arena_alloc(&w->arena, n ? n : 1);
    if (!hot || !shown) return pk_fail_nomem("a tree's shape");
    pkq_mark_hot(w->nodes, n, hot);
    pk_index *children;
    size_t *start;
    pk_status st = rank_children(w, &children, &start);
    if (st) return st;
    double scale = threshold_scale(w), *size = subtree_sizes(w);
    size_t hidden = 0;
    if (n) shown[0] = 1;
    for (size_t i = 1; i < n; i++) {
        pk_index up = w->nodes[i].parent;
        if (up == PK_NONE || up >= i || !shown[up]) continue; /* under a hidden node */
        shown[i] = (unsigned char)worth_showing(w, (pk_index)i, scale, size);
        hidden += !shown[i];
    }
    free(size);
    a->hot = hot, a->shown = shown, a->hidden = hidden;
    a->children = children, a->child_start = start;
    return pkq_tree_fold(w, shown);
}
