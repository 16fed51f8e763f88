/*
 * analysis/trace_answer.c — the answer to a trace question: per selected
 * location how its time in the window divides (running, idle, gaps,
 * filtered), time per function (self and inclusive), and the timeline
 * of a range of rows, all from one scan per trace (trace_scan.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "trace_scan.h"
#include "util/error.h"

pk_status ts_keymap_init(ts_keymap *m, size_t n_keys)
{
    memset(m, 0, sizeof *m);
    m->id = malloc((n_keys ? n_keys : 1) * sizeof *m->id);
    if (!m->id) return pk_fail_nomem("numbering functions");
    memset(m->id, 0xff, n_keys * sizeof *m->id);
    return PK_OK;
}

int32_t ts_keymap_get(ts_keymap *m, const ts_paths *paths, pk_index f)
{
    uint32_t k = paths->key[f];
    if (m->id[k] >= 0) {
        if (f < m->name[m->id[k]]) m->name[m->id[k]] = f; /* the lowest context names it */
        return m->id[k];
    }
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 256;
        uint32_t *key = realloc(m->key, cap * sizeof *key);
        if (key) m->key = key;
        pk_index *name = key ? realloc(m->name, cap * sizeof *name) : NULL;
        if (!key || !name) return -1;
        m->name = name, m->cap = cap;
    }
    m->key[m->n] = k, m->name[m->n] = f;
    return m->id[k] = (int32_t)m->n++;
}

void ts_keymap_free(ts_keymap *m)
{
    free(m->id), free(m->key), free(m->name);
    memset(m, 0, sizeof *m);
}

typedef struct visit {
    pk_trace_location *loc;
    double *by_ctx;
    ts_timeline *tl; /* this row's, or NULL */
} visit;

static void on_interval(void *user, uint64_t t0, uint64_t t1, int kind, pk_index ctx, uint64_t full)
{
    visit *v = user;
    double d = (double)(t1 - t0);
    (void)full;
    v->loc->covered_ns += d;
    if (kind == TS_RUN) {
        v->loc->running_ns += d;
        v->by_ctx[ctx] += d;
    } else if (kind == TS_IDLE) {
        v->loc->idle_ns += d;
    } else if (kind == TS_FILTERED) {
        v->loc->filtered_ns += d;
    } else {
        v->loc->n_gaps++;
        v->loc->gap_ns += d;
        if (d > v->loc->largest_gap_ns) v->loc->largest_gap_ns = d;
    }
    if (v->tl) ts_timeline_add(v->tl, t0, t1, kind, ctx);
}

/* outer[f] for every function frame: no frame above it on its path is
 * the same function (a recursive call's inner frames are not). One
 * iterative depth-first walk with a count per function on the current
 * path: linear in the contexts however deep the tree. */
static pk_status outermost(const ts_paths *paths, unsigned char *outer)
{
    const pk_profile *p = paths->p;
    size_t n = paths->n_ctx;
    uint32_t *on_path = calloc(paths->n_keys ? paths->n_keys : 1, sizeof *on_path);
    int64_t *stack = malloc((2 * n + 1) * sizeof *stack); /* c: enter, -1 - c: leave */
    if (!on_path || !stack) return free(on_path), free(stack), pk_fail_nomem("timing functions");
    for (pk_index root = 0; root < n; root++) {
        pk_context rc;
        pk_context_get(p, root, &rc);
        if (rc.parent != PK_NONE && rc.parent < root) continue; /* not a root */
        size_t top = 0;
        stack[top++] = root;
        while (top) {
            int64_t v = stack[--top];
            if (v < 0) { /* leaving */
                pk_index c = (pk_index)(-1 - v);
                if (paths->frame[c] == c) on_path[paths->key[c]]--;
                continue;
            }
            pk_index c = (pk_index)v;
            pk_context ctx;
            pk_context_get(p, c, &ctx);
            if (paths->frame[c] == c) outer[c] = on_path[paths->key[c]]++ == 0;
            stack[top++] = -1 - (int64_t)c;
            for (uint32_t k = 0; k < ctx.n_children; k++)
                if (ctx.first_child + k > c && ctx.first_child + k < n)
                    stack[top++] = ctx.first_child + k;
        }
    }
    free(on_path), free(stack);
    return PK_OK;
}

/* Room for dense id `id` in the per-id sums. */
static int grow(double **self, double **incl, size_t *cap, int32_t id)
{
    if ((size_t)id < *cap) return 1;
    size_t ncap = 2 * *cap + (size_t)id;
    double *s = realloc(*self, ncap * sizeof *s);
    if (s) *self = s;
    double *i = s ? realloc(*incl, ncap * sizeof *i) : NULL;
    if (!s || !i) return 0;
    *incl = i;
    memset(*self + *cap, 0, (ncap - *cap) * sizeof **self);
    memset(*incl + *cap, 0, (ncap - *cap) * sizeof **incl);
    *cap = ncap;
    return 1;
}

/* Self and inclusive time per function from each context's running time,
 * in passes over the contexts (never a walk up per context: a hostile
 * tree can be a million levels deep). A function's inclusive time is the
 * time under its outermost frames, its self time that of the contexts
 * whose frame it is. */
static pk_status function_times(const ts_paths *paths, const double *by_ctx, ts_keymap *km,
                                double **self, double **incl)
{
    size_t n = paths->n_ctx, cap = paths->n_functions + km->n + 64;
    double *sub = malloc((n ? n : 1) * sizeof *sub), *own = calloc(n ? n : 1, sizeof *own);
    unsigned char *outer = calloc(n ? n : 1, 1);
    *self = calloc(cap, sizeof **self), *incl = calloc(cap, sizeof **incl);
    pk_status st = sub && own && outer && *self && *incl ? outermost(paths, outer)
                                                         : pk_fail_nomem("timing functions");
    for (pk_index c = 0; !st && c < n; c++) /* time in each frame itself */
        sub[c] = by_ctx[c], own[paths->frame[c]] += by_ctx[c];
    for (pk_index c = (pk_index)n; !st && c-- > 1;) { /* subtree sums: parents come first */
        pk_index parent = paths->p->ctx[c].parent;
        if (parent < c) sub[parent] += sub[c];
    }
    for (pk_index f = 0; !st && f < n; f++) {
        int is_fn = paths->p->ctx[f].kind == PK_CTX_FUNCTION;
        if (paths->frame[f] != f || (is_fn ? sub[f] : own[f]) == 0) continue;
        int32_t id = ts_keymap_get(km, paths, f);
        if (id < 0 || !grow(self, incl, &cap, id)) st = pk_fail_nomem("timing functions");
        if (st) break;
        (*self)[id] += own[f];
        if (is_fn ? outer[f] : 1) (*incl)[id] += is_fn ? sub[f] : own[f];
    }
    free(sub), free(own), free(outer);
    return st;
}

static int by_self(const void *a, const void *b)
{
    const pk_trace_function *x = a, *y = b;
    if (x->self_ns != y->self_ns) return x->self_ns < y->self_ns ? 1 : -1;
    if (x->inclusive_ns != y->inclusive_ns) return x->inclusive_ns < y->inclusive_ns ? 1 : -1;
    return x->context < y->context ? -1 : x->context > y->context;
}

static int by_running(const void *a, const void *b)
{
    const pk_trace_location *x = a, *y = b;
    if (x->running_ns != y->running_ns) return x->running_ns < y->running_ns ? 1 : -1;
    return x->trace < y->trace ? -1 : x->trace > y->trace;
}

/* The functions array, sorted, and each dense id's place in it. */
static pk_status make_functions(pk_trace_answer *a, const ts_paths *paths, ts_keymap *km,
                                const double *by_ctx, int64_t **position)
{
    double *self = NULL, *incl = NULL;
    pk_status st = function_times(paths, by_ctx, km, &self, &incl);
    a->functions = st ? NULL : malloc((km->n ? km->n : 1) * sizeof *a->functions);
    *position = st ? NULL : malloc((km->n ? km->n : 1) * sizeof **position);
    if (!st && (!a->functions || !*position)) st = pk_fail_nomem("timing functions");
    for (size_t i = 0; !st && i < km->n; i++) {
        pk_index f = km->name[i];
        uint32_t key = km->key[i];
        pk_trace_function *fn = &a->functions[i];
        *fn = (pk_trace_function){f, key < paths->n_functions ? key : PK_NONE, self[i], incl[i]};
        ts_frame_place(paths->p, f, &fn->module, &fn->file, &fn->line);
    }
    if (!st) {
        /* sort (self, inclusive, context) entries, keeping where each id went */
        a->n_functions = km->n;
        qsort(a->functions, a->n_functions, sizeof *a->functions, by_self);
        for (size_t i = 0; i < a->n_functions; i++)
            (*position)[km->id[paths->key[a->functions[i].context]]] = (int64_t)i;
    }
    free(self), free(incl);
    return st;
}

static char *dup_or_null(const char *s)
{
    return s && *s ? strdup(s) : NULL;
}

static pk_status start(pk_trace_answer *a, const pk_trace_selection *sel, const ts_select *s,
                       const pk_trace_timeline_options *tl)
{
    a->begin_ns = s->begin, a->end_ns = s->end, a->from_ns = s->from, a->to_ns = s->to;
    if (sel) {
        a->location = dup_or_null(sel->location), a->from = dup_or_null(sel->from);
        a->to = dup_or_null(sel->to), a->focus = dup_or_null(sel->focus);
        a->hide = dup_or_null(sel->hide);
    }
    a->locations = calloc(s->n_traces, sizeof *a->locations);
    if (!a->locations) return pk_fail_nomem("answering a trace question");
    a->n_locations = s->n_traces;
    if (tl && tl->width) {
        a->width = tl->width, a->first_row = tl->first < s->n_traces ? tl->first : s->n_traces;
        size_t left = s->n_traces - a->first_row;
        a->n_rows = tl->count && tl->count < left ? tl->count : left;
        if ((double)a->n_rows * tl->width > (double)(1u << 24))
            return pk_fail(PK_ERR_INVALID_ARG,
                           "a timeline of %zu rows of %u pixels is more than 16,777,216 pixels: "
                           "ask for fewer rows (count, --location) or fewer pixels",
                           a->n_rows, tl->width);
        a->rows = calloc(a->n_rows ? a->n_rows : 1, sizeof *a->rows);
        if (!a->rows) return pk_fail_nomem("answering a trace question");
    }
    return PK_OK;
}

/* Scan every chosen trace: its summary, the context times, its row. */
static pk_status scan_all(pk_trace_answer *a, const ts_select *s, const ts_paths *paths,
                          pk_trace_facts *cache, double *by_ctx, ts_timeline *tl)
{
    for (size_t i = 0; i < s->n_traces; i++) {
        pk_index t = s->traces[i];
        pk_trace tr;
        pk_trace_facts f;
        pk_status st = pk_trace_get(paths->p, t, &tr);
        if (!st) st = ts_facts(paths->p, t, cache, &f);
        if (st) return st;
        pk_trace_location *l = &a->locations[i];
        *l = (pk_trace_location){.trace = t,
                                 .location = tr.location,
                                 .n_samples = tr.n_samples,
                                 .begin_ns = tr.time_begin,
                                 .end_ns = tr.time_end,
                                 .period_ns = f.period_ns,
                                 .event_based = f.event_based};
        int row = tl && i >= a->first_row && i < a->first_row + a->n_rows;
        visit v = {l, by_ctx, row ? tl : NULL};
        if (row) ts_timeline_row(tl);
        st = ts_scan(paths, t, &f, s->from, s->to, on_interval, &v, &l->window_samples);
        if (!st && row) {
            pk_trace_row *r = &a->rows[i - a->first_row];
            r->trace = t, r->location = tr.location;
            st = ts_timeline_end_row(tl, &r->first_span, &r->n_spans);
        }
        if (st) return st;
        a->running_ns += l->running_ns;
    }
    return PK_OK;
}

static pk_status compute(const pk_profile *p, const pk_trace_selection *sel,
                         const pk_trace_timeline_options *tlo, pk_trace_facts *cache,
                         pk_trace_answer *a, const ts_select *s, const ts_paths *paths)
{
    ts_keymap km;
    ts_timeline *tl = NULL;
    int64_t *position = NULL;
    double *by_ctx = calloc(paths->n_ctx ? paths->n_ctx : 1, sizeof *by_ctx);
    pk_status st = by_ctx ? ts_keymap_init(&km, paths->n_keys) : pk_fail_nomem("tracing");
    if (!by_ctx) return st;
    if (!st) st = start(a, sel, s, tlo);
    if (!st && a->width) st = ts_timeline_new(&km, paths, s->from, s->to, a->width, &tl);
    if (!st) st = scan_all(a, s, paths, cache, by_ctx, tl);
    if (!st) st = make_functions(a, paths, &km, by_ctx, &position);
    if (!st && tl) st = ts_timeline_finish(tl, position, &a->spans, &a->n_spans), tl = NULL;
    if (!st) qsort(a->locations, a->n_locations, sizeof *a->locations, by_running);
    if (!st) st = pk_profile_intact(p); /* nothing made from a file that shrank */
    ts_timeline_free(tl);
    ts_keymap_free(&km);
    free(by_ctx), free(position);
    return st;
}

pk_status pk_trace_answer_compute(const pk_profile *p, const pk_trace_selection *sel,
                                  const pk_trace_timeline_options *tl, pk_trace_facts *cache,
                                  pk_trace_answer **out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_trace_answer_compute: NULL argument");
    if (tl && tl->width > 100000)
        return pk_fail(PK_ERR_INVALID_ARG, "a timeline of %u pixels is wider than 100,000",
                       tl->width);
    ts_select s;
    ts_paths paths;
    pk_status st = ts_select_resolve(p, sel, &s);
    if (st) return st;
    st = ts_paths_build(p, sel ? sel->focus : NULL, sel ? sel->hide : NULL, &paths);
    if (st) return ts_select_free(&s), st;
    pk_trace_answer *a = calloc(1, sizeof *a);
    st = a ? compute(p, sel, tl, cache, a, &s, &paths) : pk_fail_nomem("tracing");
    ts_paths_free(&paths);
    ts_select_free(&s);
    if (st) return pk_trace_answer_free(a), st;
    *out = a;
    return PK_OK;
}

void pk_trace_answer_free(pk_trace_answer *a)
{
    if (!a) return;
    free(a->locations), free(a->functions), free(a->rows), free(a->spans);
    free(a->location), free(a->from), free(a->to), free(a->focus), free(a->hide);
    free(a);
}
