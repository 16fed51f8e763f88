/*
 * analysis/answer_callers.c — callers and callees as an answer: one block
 * per function the name (exactly) or pattern picks, largest inclusive
 * value first, each with its own values, its direct callers (callees)
 * and, from a calling-context tree, the whole tree around it (bottom-up:
 * its callers' callers up to the entry; top-down: everything below it,
 * merged over every place it runs). A recursive function counts once.
 * A call graph answers from its own lists instead (answer_callers_cg.c).
 * Thresholds are shares of each function's own inclusive value: a small
 * function's callers are not all hidden below a share of the program.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/answer_callers.h"
#include "analysis/answer_tree.h"
#include "analysis/frames.h"
#include "analysis/session.h"
#include "profkit/pattern.h"
#include "util/error.h"
#include "util/kmap.h"

void pkq_block_place(const pk_profile *p, pk_callers_block *b)
{
    pk_function fn;
    pk_module m;
    pk_file f;
    if (b->function == PK_NONE || pk_function_get(p, b->function, &fn) != PK_OK) return;
    if (fn.module != PK_NONE && pk_module_get(p, fn.module, &m) == PK_OK) b->module = m.path;
    if (fn.file != PK_NONE && pk_file_get(p, fn.file, &f) == PK_OK) b->file = f.path;
}

/* ---- which functions: distinct frame names matching the pattern ----- */

typedef struct name_total {
    pk_index frame; /* one frame of the name (its name) */
    double inclusive, self;
} name_total;

static int frame_name_is(const pk_profile *p, const pk_frame *f, const char *name, uint64_t h)
{
    char buf[PK_FRAME_NAME_MAX];
    return f->name_hash == h && pk_frame_name(p, f, buf, sizeof buf) < sizeof buf &&
           strcmp(buf, name) == 0;
}

/* match[i] = frame i is named `pattern` exactly, or else matches it. */
static pk_status match_frames(const pk_profile *p, const pk_frame *f, size_t n, const char *pattern,
                              unsigned char *match)
{
    uint64_t h = pk_frames_hash_name(pattern);
    size_t hits = 0;
    for (size_t i = 1; i < n; i++)
        hits += match[i] = (unsigned char)frame_name_is(p, &f[i], pattern, h);
    if (hits) return PK_OK;
    pk_pattern *re;
    pk_status st = pk_pattern_compile(pattern, 0, &re);
    if (st && strlen(pattern) > PK_PATTERN_MAX_LENGTH)
        return pk_fail(PK_ERR_NOT_FOUND, "no function named '%s'", pattern);
    if (st == PK_ERR_INVALID_ARG) /* bad syntax, a reference, too big: say which */
        return pk_fail(PK_ERR_NOT_FOUND, "no function named '%s', and as a %s", pattern,
                       pk_error_last());
    if (st) return st;
    char buf[4096];
    for (size_t i = 1; i < n && !st; i++) {
        pk_frame_name(p, &f[i], buf, sizeof buf);
        int hit = 0;
        st = pk_pattern_match(re, buf, strlen(buf), &hit);
        hits += match[i] = (unsigned char)hit;
    }
    pk_pattern_free(re);
    if (st) return st;
    return hits ? PK_OK : pk_fail(PK_ERR_NOT_FOUND, "no function named or matching '%s'", pattern);
}

/* Name ids of the matching frames: frames of one name share one id. */
static pk_status name_ids(const pk_profile *p, const pk_frame *f, size_t n,
                          const unsigned char *match, uint32_t *id, name_total **names,
                          size_t *n_names)
{
    pk_kmap map = {0};
    map.words = 1;
    size_t cap = 0;
    *names = NULL, *n_names = 0;
    char a[4096], b[4096];
    for (size_t i = 0; i < n; i++) {
        id[i] = UINT32_MAX;
        if (!match[i]) continue;
        uint64_t key[PK_KMAP_WORDS] = {f[i].name_hash};
        uint32_t v;
        int added;
        if (pk_kmap_upsert(&map, key, (uint32_t)*n_names, &v, &added) < 0) goto nomem;
        if (!added) { /* the same hash: the same name, but for a collision */
            pk_frame_name(p, &f[i], a, sizeof a);
            pk_frame_name(p, &f[(*names)[v].frame], b, sizeof b);
            if (strcmp(a, b) == 0) {
                id[i] = v;
                continue;
            }
        }
        if (*n_names == cap) {
            name_total *more = realloc(*names, (cap = cap ? 2 * cap : 16) * sizeof *more);
            if (!more) goto nomem;
            *names = more;
        }
        (*names)[*n_names] = (name_total){(pk_index)i, 0, 0};
        id[i] = (uint32_t)(*n_names)++;
    }
    pk_kmap_free(&map);
    return PK_OK;
nomem:
    pk_kmap_free(&map);
    return pk_fail_nomem("finding functions");
}

/* Each name's inclusive value over its outermost frames (no ancestor of
 * the same name: recursion once) and self value over all of them, in
 * one depth-first pass keeping how often each name is on the path. */
static pk_status name_values(const pk_frame *f, size_t n, const uint32_t *id, name_total *names,
                             size_t n_names)
{
    uint32_t *on_path = calloc(n_names + 1, sizeof *on_path);
    pk_index *stack = malloc((2 * n + 1) * sizeof *stack);
    if (!on_path || !stack) return free(on_path), free(stack), pk_fail_nomem("finding functions");
    size_t top = 0;
    if (n) stack[top++] = 0;
    while (top) {
        pk_index e = stack[--top];
        if (e & 0x80000000u) { /* leaving */
            pk_index i = e & 0x7fffffffu;
            if (id[i] != UINT32_MAX) on_path[id[i]]--;
            continue;
        }
        if (id[e] != UINT32_MAX) {
            name_total *t = &names[id[e]];
            if (on_path[id[e]]++ == 0) t->inclusive += f[e].inclusive;
            t->self += f[e].self;
        }
        stack[top++] = e | 0x80000000u;
        for (pk_index c = f[e].first_child; c != PK_NONE && top < 2 * n; c = f[c].next_sibling)
            stack[top++] = c;
    }
    free(on_path), free(stack);
    return PK_OK;
}

static int by_inclusive(const void *x, const void *y)
{
    const name_total *a = x, *b = y;
    double u = fabs(a->inclusive), v = fabs(b->inclusive);
    if (u != v) return u > v ? -1 : 1;
    return a->frame < b->frame ? -1 : a->frame > b->frame;
}

/* The first column's frames of functions (the session keeps them). */
static pk_status function_frames(pkq_callers_work *w, const pk_frame **f, size_t *n)
{
    const pkq_values *v;
    pk_status st = pkq_values_get(w->s, w->cols.base[w->cols.col[0].base[0]], w->q, &v);
    return st ? st : pkq_values_frames(w->s, v, PK_LEVEL_FUNCTIONS, f, n);
}

/* The functions the pattern picks in the tree of the first column's
 * values, largest inclusive first. */
static pk_status pick_functions(pkq_callers_work *w, name_total **names, size_t *n_names)
{
    const pk_frame *f;
    size_t n;
    pk_status st = function_frames(w, &f, &n);
    if (st) return st;
    unsigned char *match = calloc(n ? n : 1, 1);
    uint32_t *id = malloc((n ? n : 1) * sizeof *id);
    st = match && id ? match_frames(w->s->p, f, n, w->pattern, match)
                     : pk_fail_nomem("finding functions");
    if (!st) st = name_ids(w->s->p, f, n, match, id, names, n_names);
    if (!st) st = name_values(f, n, id, *names, *n_names);
    if (!st) qsort(*names, *n_names, sizeof **names, by_inclusive);
    free(match), free(id);
    return st;
}

/* ---- one function's block: the tree around it ------------------------ */

typedef struct around_arg {
    const char *name;
    int callers;
} around_arg;

static pk_status around_nodes(pk_session *s, const pkq_values *v, pk_tree_level level,
                              const void *arg, pk_frame **out, size_t *n)
{
    const around_arg *a = arg;
    const pk_frame *f;
    size_t nf;
    pk_status st = pkq_values_frames(s, v, level, &f, &nf);
    if (!st) st = pk_frames_around(pk_session_profile(s), f, nf, a->name, a->callers, out, n);
    return st;
}

static pk_status tree_around(pkq_callers_work *w, const char *name, pk_tree_answer **out)
{
    around_arg arg = {name, !w->callees};
    pkq_tree_work t = {.s = w->s,
                       .q = w->q,
                       .level = PK_LEVEL_FUNCTIONS,
                       .build = around_nodes,
                       .arg = &arg,
                       .share_of_root = 1};
    pk_arena_init(&t.arena);
    pk_status st = pkq_columns_parse(w->s->p, w->q, &t.cols);
    if (!st && !(t.a = pk_arena_alloc(&t.arena, sizeof *t.a))) st = pk_fail_nomem("a tree");
    if (!st)
        st = pkq_head_init(&t.a->head, &t.arena, w->s->p, w->q, w->a->head.source, t.cols.n_col);
    if (!st) st = pkq_tree_compute(&t);
    if (!st) st = pkq_tree_finish(&t);
    pkq_columns_free(&t.cols);
    if (st) return free(t.nodes), pk_arena_free(&t.arena), st;
    *out = t.a;
    return PK_OK;
}

/* The block's arcs: the root's shown children (direct callers/callees). */
static pk_status arcs_of_tree(pkq_callers_work *w, pk_callers_block *b)
{
    const pk_tree_answer *t = b->tree;
    size_t first = t->child_start[0], end = t->child_start[1];
    b->arcs = pk_arena_array(&w->arena, end - first + 1, sizeof *b->arcs);
    if (!b->arcs) return pk_fail_nomem("a caller list");
    char name[4096];
    for (size_t k = first; k < end; k++) {
        pk_index c = t->children[k];
        if (!t->shown[c]) {
            b->hidden_arcs++;
            continue;
        }
        pk_context ctx;
        pk_arc_entry *e = &b->arcs[b->n_arcs++];
        size_t len = pk_tree_answer_node_name(t, c, name, sizeof name);
        e->name = pk_arena_strndup(&w->arena, name, len < sizeof name ? len : sizeof name - 1);
        e->function =
            pk_context_get(w->s->p, t->nodes[c].context, &ctx) == PK_OK ? ctx.function : PK_NONE;
        e->calls = t->calls ? t->calls[c] : NAN;
        e->inclusive = t->nodes[c].inclusive, e->self = t->nodes[c].self;
    }
    return PK_OK;
}

static pk_status block_of_tree(pkq_callers_work *w, const name_total *nt, pk_callers_block *b)
{
    char name[4096];
    const pk_frame *f;
    size_t n;
    pk_status st = function_frames(w, &f, &n);
    if (st) return st;
    size_t len = pk_frame_name(w->s->p, &f[nt->frame], name, sizeof name);
    if (len >= sizeof name) return pk_fail(PK_ERR_LIMIT, "a function name of %zu bytes", len);
    pk_context ctx;
    b->function =
        pk_context_get(w->s->p, f[nt->frame].context, &ctx) == PK_OK ? ctx.function : PK_NONE;
    if (!(b->name = pkq_strdup(&w->arena, name))) return pk_fail_nomem("a caller list");
    pkq_block_place(w->s->p, b);
    st = tree_around(w, name, &b->tree);
    if (st) return st;
    b->inclusive = b->tree->nodes[0].inclusive, b->self = b->tree->nodes[0].self;
    b->called = b->tree->calls ? b->tree->calls[0] : NAN;
    return arcs_of_tree(w, b);
}

pk_status pkq_callers_from_tree(pkq_callers_work *w)
{
    name_total *names = NULL;
    size_t n = 0;
    pk_status st = pick_functions(w, &names, &n);
    size_t top = w->q->top && w->q->top < n ? w->q->top : n;
    pk_callers_answer *a = w->a;
    a->functions = st ? NULL : pk_arena_array(&w->arena, top ? top : 1, sizeof *a->functions);
    if (!st && !a->functions) st = pk_fail_nomem("a caller list");
    for (size_t i = 0; !st && i < top; i++, a->n_functions++)
        st = block_of_tree(w, &names[i], &a->functions[i]);
    a->hidden_functions = n - top;
    free(names);
    return st;
}

/* The head's columns from each base's values under the query. */
static pk_status head_columns(pkq_callers_work *w)
{
    pk_answer_head *h = &w->a->head;
    size_t nb = w->cols.n_base;
    double *tot = calloc(nb, sizeof *tot);
    pk_number_format *nf = calloc(nb, sizeof *nf);
    unsigned char *has_self = calloc(nb, 1);
    pk_status st = tot && nf && has_self ? PK_OK : pk_fail_nomem("a caller list");
    for (size_t b = 0; !st && b < nb; b++) {
        const pkq_values *v;
        st = pkq_values_get(w->s, w->cols.base[b], w->q, &v);
        if (!st) tot[b] = v->total, nf[b] = v->nf, has_self[b] = v->excl != NULL;
        if (!st && b == 0) st = pkq_notes_of_values(h, &w->arena, w->q, v);
        if (!st && b == 0) h->n_locations = v->n_selected;
    }
    for (size_t c = 0; !st && c < w->cols.n_col; c++) {
        size_t b0 = w->cols.col[c].base[0];
        pkq_column_of_metric(&h->columns[c], &w->cols.base_met[b0], w->cols.base[b0],
                             pkq_columns_eval(&w->cols, c, tot), &nf[b0], has_self[b0]);
        if (w->cols.col[c].e)
            pkq_column_expression(&h->columns[c], &w->arena, w->cols.col[c].label);
    }
    if (!st) w->a->total = h->columns[0].total;
    free(tot), free(nf), free(has_self);
    return st;
}

/* Does a call graph answer? It has one, the query allows it, and one
 * metric is asked for (several are columns of trees). */
static int callgraph_answers(const pk_profile *p, const pk_query *q, const pkq_columns *c)
{
    size_t event;
    return pkq_uses_callgraph(p, q) && c->n_col == 1 && c->col[0].plain &&
           pk_callgraph_metric_event(p, c->base[0], &event) == PK_OK;
}

pk_status pk_answer_callers(pk_session *s, const pk_query *q, int callees, pk_callers_answer **out)
{
    if (!s || !q || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_answer_callers: bad arguments");
    pkq_callers_work w = {.s = s, .q = q, .callees = callees, .pattern = pkq_text(q, PKQ_FUNCTION)};
    if (!w.pattern)
        return pk_fail(PK_ERR_INVALID_ARG, "%s: which function? (option function)",
                       callees ? "callees" : "callers");
    pk_arena_init(&w.arena);
    pk_status st = pkq_columns_parse(s->p, q, &w.cols);
    int cg = !st && callgraph_answers(s->p, q, &w.cols);
    const char *source = cg ? "callgraph" : pkq_reconstructed(s->p) ? "reconstructed tree" : "tree";
    if (!st && !(w.a = pk_arena_alloc(&w.arena, sizeof *w.a))) st = pk_fail_nomem("a caller list");
    if (!st) st = pkq_head_init(&w.a->head, &w.arena, s->p, q, source, w.cols.n_col);
    if (!st) {
        w.a->callees = callees;
        w.a->pattern = pkq_strdup(&w.arena, w.pattern);
    }
    if (!st && !cg) st = head_columns(&w);
    if (!st) st = cg ? pkq_callers_from_callgraph(&w) : pkq_callers_from_tree(&w);
    pk_arena *keep = st ? NULL : pk_arena_alloc(&w.arena, sizeof *keep);
    if (!st && !keep) st = pk_fail_nomem("a caller list");
    pkq_columns_free(&w.cols);
    if (st) {
        for (size_t i = 0; w.a && i < w.a->n_functions; i++)
            pk_tree_answer_free(w.a->functions[i].tree);
        pk_arena_free(&w.arena);
        return st;
    }
    *keep = w.arena;
    w.a->arena_ = keep;
    *out = w.a;
    return PK_OK;
}

void pk_callers_answer_free(pk_callers_answer *a)
{
    if (!a) return;
    for (size_t i = 0; i < a->n_functions; i++)
        pk_tree_answer_free(a->functions[i].tree);
    pk_arena arena = *(pk_arena *)a->arena_;
    pk_arena_free(&arena);
}
