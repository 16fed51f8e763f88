/*
 * view/session.c — the profiles a view serves and what it keeps of them:
 * per (side, metric, location, stat, mode) the per-context values, the
 * function-level tree built from them (frames linked first child / next
 * sibling, so a node's children are found in O(children)) and its hot
 * path. Computed on first use and kept in a small LRU cache, so the
 * first request of a view pays one linear pass and every expansion after
 * it only walks the children it shows.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

static void tree_free(pkv_tree *t)
{
    if (!t) return;
    cli_view_values_free(&t->vals);
    pk_frames_free(t->frames);
    free(t->hot);
    free(t->base_incl);
    free(t->base_self);
    free(t->sel.location);
    free(t);
}

static void flat_free(pkv_flat *f)
{
    if (!f) return;
    pk_flat_free(f->rows);
    free(f->sel.location);
    free(f);
}

void pkv_session_free(pkv_session *s)
{
    for (size_t i = 0; i < PKV_FLAT_CACHE; i++)
        flat_free(s->flats[i]), s->flats[i] = NULL;
    free(s->profile_doc);
    s->profile_doc = NULL;
    for (size_t i = 0; i < PKV_TREE_CACHE; i++)
        tree_free(s->trees[i]), s->trees[i] = NULL;
    free(s->trace_facts);
    s->trace_facts = NULL;
}

/* Every context as a frame of its own (mode=lines): the tree as stored,
 * loops, lines and instructions included, each context's exclusive value
 * as its self value. */
static pk_status context_frames(const pk_profile *p, const double *incl, const double *excl,
                                pk_frame **out, size_t *n_out)
{
    size_t n = pk_context_count(p);
    pk_frame *f = calloc(n ? n : 1, sizeof *f);
    if (!f) return PK_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        pk_context c;
        pk_context_get(p, (pk_index)i, &c);
        f[i] = (pk_frame){.parent = c.parent,
                          .first_child = PK_NONE,
                          .next_sibling = PK_NONE,
                          .context = (pk_index)i,
                          .depth = c.depth,
                          .inclusive = incl[i],
                          .self = excl ? excl[i] : 0};
        if (c.flags & PK_CTXF_UNLISTED) f[i].parent = PK_NONE;
    }
    /* link children back to front so each list keeps context order */
    for (size_t i = n; i-- > 1;) {
        pk_index par = f[i].parent;
        if (par == PK_NONE || par >= n || par >= i) continue;
        f[i].next_sibling = f[par].first_child;
        f[par].first_child = (pk_index)i;
    }
    *out = f, *n_out = n;
    return PK_OK;
}

/* hpcviewer's hot path, as `tree` marks it: from the root, the largest
 * child as long as it holds at least half of its parent's value. */
static void mark_hot(pkv_tree *t)
{
    if (!t->n_frames) return;
    pk_index at = 0;
    t->hot[0] = 1;
    for (;;) {
        pk_index best = PK_NONE;
        for (pk_index c = t->frames[at].first_child; c != PK_NONE; c = t->frames[c].next_sibling)
            if (best == PK_NONE || t->frames[c].inclusive > t->frames[best].inclusive) best = c;
        if (best == PK_NONE || t->frames[at].inclusive <= 0 ||
            t->frames[best].inclusive < 0.5 * t->frames[at].inclusive)
            return;
        t->hot[best] = 1;
        at = best;
    }
}

static int values(const pkv_session *s, pkv_tree *t, char *err, size_t size)
{
    const pk_profile *p = s->side[t->sel.side].p;
    pk_metric met;
    pk_metric_get(p, t->sel.metric, &met);
    cli_view v = {.metric = met.name, .location = t->sel.location, .stat = t->sel.stat};
    if (cli_view_compute("view", p, &v, &t->vals)) {
        snprintf(err, size, "cannot compute metric '%s' here: %s", met.name, pk_error_last());
        return 500;
    }
    return 200;
}

/* The frames of the values (what the flat rows do not need). */
static int build(const pkv_session *s, pkv_tree *t, char *err, size_t size)
{
    const pk_profile *p = s->side[t->sel.side].p;
    pk_status st;
    if (t->sel.shape == PKV_MODE_LINES)
        st = context_frames(p, t->vals.incl, t->vals.excl, &t->frames, &t->n_frames);
    else if (t->sel.shape == PKV_MODE_LOOPS)
        st = pk_frames_build_loops(p, t->vals.incl, &t->frames, &t->n_frames);
    else
        st = pk_frames_build(p, t->vals.incl, &t->frames, &t->n_frames);
    if (!st && !(t->hot = calloc(t->n_frames ? t->n_frames : 1, 1))) st = PK_ERR_NOMEM;
    if (st) {
        snprintf(err, size, "cannot build the tree: %s", pk_error_last());
        return 500;
    }
    mark_hot(t);
    return 200;
}

/* Is k the selection (side, metric, location, stat, shape)? */
static int sel_same(const pkv_sel *k, int side, pk_index metric, const char *location,
                    pk_across stat, int shape)
{
    return k->side == side && k->metric == metric && k->stat == stat && k->shape == shape &&
           (k->location ? location && strcmp(k->location, location) == 0 : !location);
}

/* k made the selection; 0 when out of memory (the location is copied). */
static int sel_set(pkv_sel *k, int side, pk_index metric, const char *location, pk_across stat,
                   int shape)
{
    *k = (pkv_sel){side, shape, metric, stat, NULL, 0};
    return !location || (k->location = strdup(location)) != NULL;
}

/* The cached tree of a selection, or NULL (its LRU stamp untouched). */
static pkv_tree *tree_find(pkv_session *s, int side, pk_index metric, const char *location,
                           pk_across stat, int mode)
{
    for (size_t i = 0; i < PKV_TREE_CACHE; i++)
        if (s->trees[i] && sel_same(&s->trees[i]->sel, side, metric, location, stat, mode))
            return s->trees[i];
    return NULL;
}

/* t in the cache, in place of the least recently used entry. */
static void tree_insert(pkv_session *s, pkv_tree *t)
{
    size_t victim = 0;
    for (size_t i = 0; i < PKV_TREE_CACHE; i++)
        if (!s->trees[i] ||
            (s->trees[victim] && s->trees[i]->sel.used < s->trees[victim]->sel.used))
            victim = i;
    tree_free(s->trees[victim]);
    s->trees[victim] = t;
    t->sel.used = ++s->clock;
}

static pkv_tree *tree_new(int side, pk_index metric, const char *location, pk_across stat, int mode)
{
    pkv_tree *t = calloc(1, sizeof *t);
    if (t && !sel_set(&t->sel, side, metric, location, stat, mode)) return free(t), NULL;
    return t;
}

const pkv_tree *pkv_values_cached(pkv_session *s, int side, pk_index metric, const char *location,
                                  pk_across stat)
{
    return tree_find(s, side, metric, location, stat, PKV_MODE_FUNCTION);
}

void pkv_values_put(pkv_session *s, int side, pk_index metric, const char *location, pk_across stat,
                    cli_view_values *vals)
{
    pkv_tree *t = tree_new(side, metric, location, stat, PKV_MODE_FUNCTION);
    if (!t) return; /* out of memory: a cache entry less */
    t->vals = *vals;
    memset(vals, 0, sizeof *vals);
    tree_insert(s, t);
}

const pkv_tree *pkv_tree_get(pkv_session *s, int side, pk_index metric, const char *location,
                             pk_across stat, int mode, int *status, char *err, size_t size)
{
    return pkv_values_get(s, side, metric, location, stat, mode, 1, status, err, size);
}

const pkv_tree *pkv_values_get(pkv_session *s, int side, pk_index metric, const char *location,
                               pk_across stat, int mode, int frames, int *status, char *err,
                               size_t size)
{
    pkv_tree *t = tree_find(s, side, metric, location, stat, mode);
    if (t) {
        t->sel.used = ++s->clock;
        if (frames && !t->frames && (*status = build(s, t, err, size)) != 200) return NULL;
        return *status = 200, t;
    }
    if (!(t = tree_new(side, metric, location, stat, mode))) {
        snprintf(err, size, "out of memory");
        return *status = 500, NULL;
    }
    *status = values(s, t, err, size);
    if (*status == 200 && frames) *status = build(s, t, err, size);
    if (*status != 200) return tree_free(t), NULL;
    tree_insert(s, t);
    return t;
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const pk_flat_row *)a)->key, y = ((const pk_flat_row *)b)->key;
    return x < y ? -1 : x > y;
}

static int flat_build(pkv_session *s, pkv_flat *f, char *err, size_t size)
{
    const pk_profile *p = s->side[f->sel.side].p;
    pk_cg_summary cg;
    int status = 200;
    if (f->sel.stat == PK_ACROSS_SUM && pk_callgraph_summary(p, &cg) == PK_OK) {
        pk_metric met; /* the call graph's exact rows, as `flat` */
        pk_number_format nf;
        double total;
        pk_metric_get(p, f->sel.metric, &met);
        cli_view v = {.metric = met.name, .location = f->sel.location};
        if (cli_flat_rows(p, &v, (pk_group_by)f->sel.shape, &f->rows, &f->n, &nf, &total))
            return snprintf(err, size, "cannot compute metric '%s' here", met.name), 500;
        if (!f->sel.location && pk_metric_program_total(p, f->sel.metric, &f->total) == PK_OK) {
            qsort(f->rows, f->n, sizeof *f->rows, by_key);
            return 200;
        }
    }
    const pkv_tree *t = pkv_values_get(s, f->sel.side, f->sel.metric, f->sel.location, f->sel.stat,
                                       PKV_MODE_FUNCTION, 0, &status, err, size);
    if (!t) return status;
    f->total = t->vals.total;
    if (!f->rows &&
        pk_flat_profile(p, t->vals.incl, t->vals.excl, (pk_group_by)f->sel.shape, &f->rows, &f->n))
        return snprintf(err, size, "%s", pk_error_last()), 500;
    qsort(f->rows, f->n, sizeof *f->rows, by_key);
    return 200;
}

static pkv_flat *flat_find(pkv_session *s, int side, pk_index metric, const char *location,
                           pk_across stat, pk_group_by by)
{
    for (size_t i = 0; i < PKV_FLAT_CACHE; i++)
        if (s->flats[i] && sel_same(&s->flats[i]->sel, side, metric, location, stat, (int)by))
            return s->flats[i];
    return NULL;
}

static void flat_insert(pkv_session *s, pkv_flat *f)
{
    size_t victim = 0;
    for (size_t i = 0; i < PKV_FLAT_CACHE; i++)
        if (!s->flats[i] ||
            (s->flats[victim] && s->flats[i]->sel.used < s->flats[victim]->sel.used))
            victim = i;
    flat_free(s->flats[victim]);
    s->flats[victim] = f;
    f->sel.used = ++s->clock;
}

static pkv_flat *flat_new(int side, pk_index metric, const char *location, pk_across stat,
                          pk_group_by by)
{
    pkv_flat *f = calloc(1, sizeof *f);
    if (f && !sel_set(&f->sel, side, metric, location, stat, (int)by)) return free(f), NULL;
    return f;
}

int pkv_flat_cached(pkv_session *s, int side, pk_index metric, const char *location, pk_across stat,
                    pk_group_by by)
{
    return flat_find(s, side, metric, location, stat, by) != NULL;
}

void pkv_flat_put(pkv_session *s, int side, pk_index metric, const char *location, pk_across stat,
                  pk_group_by by, pk_flat_row *rows, size_t n, double total)
{
    pkv_flat *f = flat_new(side, metric, location, stat, by);
    if (!f) return pk_flat_free(rows);
    qsort(rows, n, sizeof *rows, by_key);
    f->rows = rows, f->n = n, f->total = total;
    flat_insert(s, f);
}

const pkv_flat *pkv_flat_get(pkv_session *s, int side, pk_index metric, const char *location,
                             pk_across stat, pk_group_by by, int *status, char *err, size_t size)
{
    pkv_flat *f = flat_find(s, side, metric, location, stat, by);
    if (f) {
        f->sel.used = ++s->clock;
        return *status = 200, f;
    }
    if (!(f = flat_new(side, metric, location, stat, by))) {
        snprintf(err, size, "out of memory");
        return *status = 500, NULL;
    }
    *status = flat_build(s, f, err, size);
    if (*status != 200) return flat_free(f), NULL;
    flat_insert(s, f);
    return f;
}
