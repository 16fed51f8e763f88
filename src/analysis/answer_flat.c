/*
 * analysis/answer_flat.c — the flat profile as an answer: one row per
 * function (file, module, line) with every column's self and inclusive
 * value, ranked, cut by top and threshold. Each base metric's rows come
 * from the call graph where the profile has one and the query allows it
 * (exact, with call counts), else from the calling-context tree;
 * expressions are evaluated on each row's values (a miss rate is the
 * function's misses over its accesses, not a sum of rates).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/answer_tree.h"
#include "analysis/qry.h"
#include "analysis/session.h"
#include "profkit/pattern.h"
#include "util/error.h"
#include "util/sort.h"

typedef struct flat_work {
    pk_session *s;
    const pk_query *q;
    pkq_columns cols;
    const pkq_flat_rows **base; /* per base metric */
    pkq_flat_rows **owned;      /* bases too many for the session's cache: ours */
    const pkq_flat_rows *calls; /* the call-count metric's rows, or NULL */
    pkq_flat_rows *owned_calls;
    int from_callgraph;
    pk_flat_answer *ans;
    pk_arena arena;
} flat_work;

typedef struct ranked {
    uint64_t key;
    double v, w; /* the ranking column's value, then its other scope */
} ranked;

static const pk_flat_row *row_of(const pkq_flat_rows *b, uint64_t key)
{
    pk_flat_row k = {.key = key};
    return b ? bsearch(&k, b->rows, b->n, sizeof *b->rows, pkq_flat_row_by_key) : NULL;
}

/* row_of() for keys asked in ascending order: *at walks b's rows once
 * (ranking asks every key twice: a search each was 5 % of cc1's flat). */
static const pk_flat_row *row_walk(const pkq_flat_rows *b, size_t *at, uint64_t key)
{
    if (!b) return NULL;
    while (*at < b->n && b->rows[*at].key < key)
        (*at)++;
    return *at < b->n && b->rows[*at].key == key ? &b->rows[*at] : NULL;
}

/* Column c of group `key`, its self or inclusive value; `at` (or NULL:
 * searched) is each base's walk when keys come in ascending order. */
static double value_at(const flat_work *w, size_t c, uint64_t key, int inclusive, size_t *at)
{
    size_t nb = w->cols.n_base;
    double stack[16] = {0}, *vals = nb <= 16 ? stack : malloc(nb * sizeof *vals);
    if (!vals) return NAN;
    for (size_t i = 0; i < nb; i++) {
        const pk_flat_row *r = at ? row_walk(w->base[i], &at[i], key) : row_of(w->base[i], key);
        vals[i] = !r ? 0 : inclusive ? r->inclusive : r->exclusive;
    }
    double v = pkq_columns_eval(&w->cols, c, vals);
    if (vals != stack) free(vals);
    return v;
}

static double value(const flat_work *w, size_t c, uint64_t key, int inclusive)
{
    return value_at(w, c, key, inclusive, NULL);
}

static double column_total(const flat_work *w, size_t c)
{
    size_t nb = w->cols.n_base;
    double stack[16] = {0}, *vals = nb <= 16 ? stack : malloc(nb * sizeof *vals);
    if (!vals) return NAN;
    for (size_t i = 0; i < nb; i++)
        vals[i] = w->base[i]->total;
    double v = pkq_columns_eval(&w->cols, c, vals);
    if (vals != stack) free(vals);
    return v;
}

/* Do the rows come from the call graph? Only when every base is one of
 * its events, so that every column counts alike. */
static int callgraph_answers(const pk_profile *p, const pk_query *q, const pkq_columns *c)
{
    size_t event;
    if (!pkq_uses_callgraph(p, q)) return 0;
    for (size_t i = 0; i < c->n_base; i++)
        if (pk_callgraph_metric_event(p, c->base[i], &event) != PK_OK) return 0;
    return 1;
}

static pk_status gather_bases(flat_work *w)
{
    const pk_profile *p = w->s->p;
    w->from_callgraph = callgraph_answers(p, w->q, &w->cols);
    size_t nb = w->cols.n_base;
    w->base = calloc(nb, sizeof *w->base);
    w->owned = calloc(nb, sizeof *w->owned);
    if (!w->base || !w->owned) return pk_fail_nomem("a flat profile");
    /* the cache keeps a few; a table of many metrics keeps its own rows;
     * a tree's rows of several metrics come from worker threads */
    int cached = nb + 1 <= PKQ_FLAT_CACHE / 2;
    pk_status st = PK_OK;
    if (!w->from_callgraph && nb > 1)
        st = pkq_flat_prefetch(w->s, w->cols.base, nb, w->q, cached, w->owned);
    for (size_t i = 0; !st && i < nb; i++) {
        if (cached)
            st = pkq_flat_rows_get(w->s, w->cols.base[i], w->q, w->from_callgraph, &w->base[i]);
        else if (!w->owned[i])
            st = pkq_flat_rows_make(w->s, w->cols.base[i], w->q, w->from_callgraph, &w->owned[i]);
        if (!cached) w->base[i] = w->owned[i];
    }
    if (st) return st;
    /* a tree's call counts: the call-count metric's own values (Cube
     * visits), unless it is what is shown */
    pk_index m;
    if (w->from_callgraph || pk_metric_call_count(p, &m) != PK_OK) return PK_OK;
    for (size_t c = 0; c < w->cols.n_col; c++)
        if (w->cols.col[c].plain && w->cols.base[w->cols.col[c].base[0]] == m) return PK_OK;
    if (cached) return pkq_flat_rows_get(w->s, m, w->q, 0, &w->calls);
    st = pkq_flat_rows_make(w->s, m, w->q, 0, &w->owned_calls);
    w->calls = w->owned_calls;
    return st;
}

static int rank_order(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (isnan(x->v) != isnan(y->v)) return isnan(x->v) ? 1 : -1;
    if (x->v != y->v) return x->v > y->v ? -1 : 1;
    if (!isnan(x->w) && !isnan(y->w) && x->w != y->w) return x->w > y->w ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Every key any base has, once. */
static ranked *all_keys(const flat_work *w, size_t *n)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < w->cols.n_base; i++)
        total += w->base[i]->n;
    ranked *r = malloc((total ? total : 1) * sizeof *r);
    if (!r) return NULL;
    for (size_t i = 0; i < w->cols.n_base; i++)
        for (size_t j = 0; j < w->base[i]->n; j++)
            r[k++].key = w->base[i]->rows[j].key;
    pk_sort(r, k, sizeof *r,
            pkq_flat_row_by_key); /* ranked starts with its key, as pk_flat_row does */
    *n = 0;
    for (size_t i = 0; i < k; i++)
        if (i == 0 || r[i].key != r[i - 1].key) r[(*n)++].key = r[i].key;
    return r;
}

/* Keep the keys whose name matches `search` (case-insensitive), matched
 * with pk_pattern: linear time, and at most PK_SEARCH_SECONDS in all (a
 * search answers a person typing; a server answers one at a time). */
#define PK_SEARCH_SECONDS 2.0

static pk_status keep_matching(const flat_work *w, ranked *r, size_t *n)
{
    const char *search = pkq_text(w->q, PKQ_SEARCH);
    if (!search) return PK_OK;
    pk_pattern *re;
    pk_status st = pk_pattern_compile(search, PK_PATTERN_ICASE, &re);
    if (st) return pk_fail(st, "search: %s", pk_error_last());
    pk_pattern_set_time_limit(re, PK_SEARCH_SECONDS);
    char name[4096];
    size_t k = 0;
    for (size_t i = 0; i < *n && !st; i++) {
        pk_flat_row row = {.key = r[i].key};
        pk_flat_row_name(w->s->p, w->q->by, &row, name, sizeof name);
        int hit = 0;
        st = pk_pattern_match(re, name, strlen(name), &hit);
        if (hit) r[k++] = r[i];
    }
    pk_pattern_free(re);
    if (st) return pk_fail(st, "search: %s", pk_error_last());
    *n = k;
    return PK_OK;
}

/* Does column c rank by its inclusive values? (NAME:inclusive asked, or
 * no self values.) */
static int ranks_inclusive(const flat_work *w, size_t c)
{
    const pkq_column *col = &w->cols.col[c];
    if (col->scope == PK_SCOPE_INCLUSIVE) return 1;
    for (size_t i = 0; i < (col->e ? pk_expr_var_count(col->e) : 1); i++)
        if (!w->base[col->base[i]]->has_excl) return 1;
    return 0;
}

/* Rows shown: top, then threshold of the ranking column's total (or, for
 * a column that has none to share out, of its largest value). */
static size_t rows_shown(const flat_work *w, const ranked *r, size_t n, size_t sort)
{
    double scale = fabs(w->ans->head.columns[sort].total);
    if (!w->ans->head.columns[sort].percent) {
        scale = 0;
        for (size_t i = 0; i < n; i++)
            if (!isnan(r[i].v)) scale = fmax(scale, fabs(r[i].v));
    }
    size_t k = 0;
    for (; k < n && (w->q->top == 0 || k < w->q->top); k++)
        if (w->q->threshold > 0 && !isnan(r[k].v) && fabs(r[k].v) < w->q->threshold / 100 * scale)
            break;
    return k;
}

/* Where a row is: a function's definition, a file, a module, a line. */
static void place(flat_work *w, pk_flat_entry *e)
{
    const pk_profile *p = w->s->p;
    pk_function fn;
    pk_module m;
    pk_file f;
    pk_index fi = PK_NONE, mi = PK_NONE;
    uint64_t key = e->key;
    if (w->q->by == PK_BY_FUNCTION && key < pk_function_count(p) &&
        pk_function_get(p, (pk_index)key, &fn) == PK_OK)
        fi = fn.file, mi = fn.module, e->line = fn.line;
    else if (w->q->by == PK_BY_FILE && key < PK_NONE)
        fi = (pk_index)key;
    else if (w->q->by == PK_BY_MODULE && key < PK_NONE)
        mi = (pk_index)key;
    else if (w->q->by == PK_BY_LINE)
        fi = (pk_index)(key >> 32), e->line = (uint32_t)key;
    if (fi != PK_NONE && pk_file_get(p, fi, &f) == PK_OK) e->file = f.path;
    if (mi != PK_NONE && pk_module_get(p, mi, &m) == PK_OK) e->module = m.path;
}

static pk_status fill_entry(flat_work *w, pk_flat_entry *e, uint64_t key)
{
    size_t nc = w->cols.n_col;
    char name[4096];
    pk_flat_row row = {.key = key};
    size_t len = pk_flat_row_name(w->s->p, w->q->by, &row, name, sizeof name);
    e->key = key;
    if (len >= sizeof name) { /* names are whole in answers */
        char *big = pk_arena_alloc(&w->arena, len + 1);
        if (!big) return pk_fail_nomem("a row's name");
        pk_flat_row_name(w->s->p, w->q->by, &row, big, len + 1);
        e->name = big;
    } else if (!(e->name = pkq_strdup(&w->arena, name))) {
        return pk_fail_nomem("a row's name");
    }
    place(w, e);
    e->self = pk_arena_array(&w->arena, nc, sizeof *e->self);
    e->inclusive = pk_arena_array(&w->arena, nc, sizeof *e->inclusive);
    if (!e->self || !e->inclusive) return pk_fail_nomem("a row");
    for (size_t c = 0; c < nc; c++)
        e->self[c] = value(w, c, key, 0), e->inclusive[c] = value(w, c, key, 1);
    const pkq_flat_rows *first = w->base[w->cols.col[0].base[0]];
    const pk_flat_row *r0 = row_of(first, key), *rc = row_of(w->calls, key);
    e->calls = w->from_callgraph ? (r0 ? r0->calls : 0) : w->calls ? (rc ? rc->exclusive : 0) : NAN;
    e->contexts = !w->from_callgraph && r0 ? r0->n_contexts : 0;
    return PK_OK;
}

static pk_status fill_head(flat_work *w)
{
    const pk_profile *p = w->s->p;
    pk_flat_answer *a = w->ans;
    const char *source = w->from_callgraph      ? "callgraph"
                         : pkq_reconstructed(p) ? "reconstructed tree"
                                                : "tree";
    pk_status st = pkq_head_init(&a->head, &w->arena, p, w->q, source, w->cols.n_col);
    for (size_t c = 0; !st && c < w->cols.n_col; c++) {
        const pkq_column *col = &w->cols.col[c];
        const pkq_flat_rows *b = w->base[col->base[0]];
        pk_answer_column *out = &a->head.columns[c];
        pkq_column_of_metric(out, &w->cols.base_met[col->base[0]], w->cols.base[col->base[0]],
                             column_total(w, c), &b->nf, b->has_excl);
        if (col->e) pkq_column_expression(out, &w->arena, col->label);
    }
    return st;
}

static pk_status head_notes(flat_work *w)
{
    pk_flat_answer *a = w->ans;
    if (w->from_callgraph) {
        pkq_cg cg;
        pk_status st = pkq_cg_init(w->s->p, w->cols.base[0], w->q, &cg);
        if (st) return st;
        a->head.n_locations = cg.locations ? cg.n_locations : 0;
        pkq_cg_free(&cg);
        return pkq_note(&a->head, &w->arena, "exact",
                        "exact, from the call graph: inclusive costs count recursion and cycles "
                        "once, as KCachegrind does");
    }
    const pkq_values *v;
    pk_status st = pkq_values_get(w->s, w->cols.base[w->cols.col[0].base[0]], w->q, &v);
    if (!st) a->head.n_locations = v->n_selected;
    return st ? st : pkq_notes_of_values(&a->head, &w->arena, w->q, v);
}

/* Same-named rows say what differs (answer_flat_apart.c). */
static pk_status tell_apart(flat_work *w, const ranked *r, size_t n, size_t shown)
{
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys) return pk_fail_nomem("a flat profile");
    for (size_t i = 0; i < n; i++)
        keys[i] = r[i].key;
    pk_status st = pkq_flat_tell_apart(w->s->p, &w->arena, keys, n, w->ans->rows, shown);
    free(keys);
    return st;
}

static pk_status rank_rows(flat_work *w)
{
    pk_flat_answer *a = w->ans;
    size_t sort = w->q->sort, n = 0;
    if (sort >= w->cols.n_col)
        return pk_fail(PK_ERR_INVALID_ARG, "sort: no column %zu (there are %zu)", sort,
                       w->cols.n_col);
    int incl = ranks_inclusive(w, sort);
    a->sorted_by_inclusive = ranks_inclusive(w, 0);
    ranked *r = all_keys(w, &n);
    if (!r) return pk_fail_nomem("ranking a flat profile");
    pk_status st = keep_matching(w, r, &n);
    size_t *at = st ? NULL : calloc(w->cols.n_base + 1, sizeof *at); /* r is in key order */
    if (!st && !at) st = pk_fail_nomem("ranking a flat profile");
    for (size_t i = 0; !st && i < n; i++)
        r[i].v = value_at(w, sort, r[i].key, incl, at),
        r[i].w = value_at(w, sort, r[i].key, !incl, at);
    free(at);
    if (!st) pk_sort_first(r, n, sizeof *r, w->q->top, rank_order); /* the shown rows in order */
    size_t shown = st ? 0 : rows_shown(w, r, n, sort);
    a->rows = st ? NULL : pk_arena_array(&w->arena, shown ? shown : 1, sizeof *a->rows);
    if (!st && !a->rows) st = pk_fail_nomem("a flat profile");
    for (size_t i = 0; !st && i < shown; i++)
        st = fill_entry(w, &a->rows[i], r[i].key);
    if (!st && w->q->by == PK_BY_FUNCTION) st = tell_apart(w, r, n, shown);
    a->n_rows = st ? 0 : shown, a->hidden = st ? 0 : n - shown;
    free(r);
    return st;
}

/* A cost that no row can hold: with nothing filtered, no row and a
 * non-zero total, no context names a function (an hpcrun measurement
 * knows code by address only), a file or a line (Cube has no lines). The
 * note "no_rows" says so; the text (exit 1, one line) and the view show
 * it instead of an empty table; JSON and CSV keep their empty rows. */
static pk_status rows_hold_the_cost(flat_work *w)
{
    pk_flat_answer *a = w->ans;
    const pk_answer_column *c = &a->head.columns[0];
    static const char *const by[] = {"function", "file", "module", "line"};
    const char *what = (unsigned)a->by < 4 ? by[a->by] : "row";
    if (a->n_rows || a->hidden || pkq_filtered(w->q) || pkq_text(w->q, PKQ_SEARCH) ||
        pkq_text(w->q, PKQ_LOCATION) || !(fabs(c->total) > 0))
        return PK_OK;
    return pkq_note(&a->head, &w->arena, "no_rows",
                    "no %s names a %s, so a flat profile by %s has no row for its cost "
                    "('profkit tree' shows where it is, 'flat --by module' groups it)",
                    w->from_callgraph ? "cost of the call graph" : "context", what, what);
}

pk_status pk_answer_flat(pk_session *s, const pk_query *q, pk_flat_answer **out)
{
    if (!s || !q || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_answer_flat: bad arguments");
    flat_work w = {.s = s, .q = q};
    pk_arena_init(&w.arena);
    pk_status st = pkq_columns_parse(s->p, q, &w.cols);
    if (!st) st = gather_bases(&w);
    if (!st && !(w.ans = pk_arena_alloc(&w.arena, sizeof *w.ans)))
        st = pk_fail_nomem("a flat profile");
    if (!st) w.ans->by = q->by;
    if (!st) st = fill_head(&w);
    if (!st) st = head_notes(&w);
    if (!st) st = rank_rows(&w);
    if (!st) st = rows_hold_the_cost(&w);
    if (!st) {
        w.ans->has_calls = w.from_callgraph || w.calls;
        w.ans->has_contexts = !w.from_callgraph;
        /* the answer owns its arena: kept in a block after it */
        pk_arena *keep = pk_arena_alloc(&w.arena, sizeof *keep);
        st = keep ? PK_OK : pk_fail_nomem("a flat profile");
        if (!st) *keep = w.arena, w.ans->arena_ = keep;
    }
    for (size_t i = 0; w.owned && i < w.cols.n_base; i++)
        pkq_flat_rows_free(w.owned[i]);
    free(w.owned);
    pkq_flat_rows_free(w.owned_calls);
    free(w.base);
    pkq_columns_free(&w.cols);
    if (st) return pk_arena_free(&w.arena), st;
    *out = w.ans;
    return PK_OK;
}

void pk_flat_answer_free(pk_flat_answer *a)
{
    if (!a) return;
    pk_arena arena = *(pk_arena *)a->arena_; /* the answer lives in it */
    pk_arena_free(&arena);
}
