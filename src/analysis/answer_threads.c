/*
 * analysis/answer_threads.c — per location (thread, rank, GPU stream) as
 * an answer: each selected location's total of the metric, or one
 * function's inclusive and self value on each location, largest first,
 * with the spread across them (sum, min, max, mean, standard deviation,
 * imbalance = max/mean - 1). A function's values on every location come
 * from one pass per location over the contexts for all the functions a
 * session is asked about at once (pk_session_function_locations()), so a
 * report of many functions stays linear in the profile.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/session.h"
#include "util/error.h"

/* Per context: the index of the function name it is a context of (its
 * own function context), or UINT32_MAX; outer[c]: no ancestor context is
 * of the same name (recursion counted once for inclusive values). */
static pk_status mark_functions(const pk_profile *p, const char *const *names, size_t n,
                                uint32_t *mark, unsigned char *outer)
{
    size_t nc = pk_context_count(p);
    uint32_t *on_path = calloc(n + 1, sizeof *on_path);
    pk_index *stack = malloc((2 * nc + 1) * sizeof *stack);
    if (!on_path || !stack) return free(on_path), free(stack), pk_fail_nomem("per-location values");
    for (size_t c = 0; c < nc; c++) {
        pk_context ctx;
        pk_function fn;
        mark[c] = UINT32_MAX;
        if (pk_context_get(p, (pk_index)c, &ctx) || ctx.kind != PK_CTX_FUNCTION ||
            ctx.function == PK_NONE || pk_function_get(p, ctx.function, &fn) || !fn.name)
            continue;
        for (size_t k = 0; k < n; k++)
            if (strcmp(fn.name, names[k]) == 0) mark[c] = (uint32_t)k;
    }
    size_t top = 0;
    if (nc) stack[top++] = 0;
    while (top) { /* depth first, counting each name on the path */
        pk_index e = stack[--top];
        pk_index c = e & 0x7fffffffu;
        if (e & 0x80000000u) {
            if (mark[c] != UINT32_MAX) on_path[mark[c]]--;
            continue;
        }
        outer[c] = mark[c] != UINT32_MAX && on_path[mark[c]]++ == 0;
        stack[top++] = c | 0x80000000u;
        pk_context ctx;
        pk_context_get(p, c, &ctx);
        for (uint32_t k = 0; k < ctx.n_children && top < 2 * nc; k++)
            stack[top++] = ctx.first_child + k;
    }
    free(on_path), free(stack);
    return PK_OK;
}

/* Location l's per-context values of the query's metric, both scopes. */
static pk_status one_location(const pk_profile *p, pk_index m, pk_index l, unsigned char *sel,
                              double *incl, double *excl, int *has_excl)
{
    size_t nc = pk_context_count(p);
    sel[l] = 1;
    pk_status st =
        pk_context_stat_values(p, m, PK_SCOPE_INCLUSIVE, sel, PK_ACROSS_SUM, incl, nc, NULL);
    *has_excl = !st && pk_context_stat_values(p, m, PK_SCOPE_EXCLUSIVE, sel, PK_ACROSS_SUM, excl,
                                              nc, NULL) == PK_OK;
    sel[l] = 0;
    return st;
}

/* The same from a call graph: each location's exact function costs
 * (recursion and cycles counted once, as flat's), summed over the
 * functions of each name. */
static pk_status from_callgraph(const pk_profile *p, size_t event, const char *const *names,
                                size_t n, double *incl, double *self)
{
    size_t nl = pk_location_count(p), nf = pk_function_count(p);
    pk_cg_function_cost *c = calloc(nf + 1, sizeof *c);
    uint32_t *which = malloc((nf + 1) * sizeof *which);
    if (!c || !which) return free(c), free(which), pk_fail_nomem("per-location values");
    for (size_t f = 0; f < nf; f++) {
        pk_function fn;
        which[f] = UINT32_MAX;
        for (size_t k = 0; k < n && pk_function_get(p, (pk_index)f, &fn) == PK_OK && fn.name; k++)
            if (strcmp(fn.name, names[k]) == 0) which[f] = (uint32_t)k;
    }
    pk_status st = PK_OK;
    for (pk_index l = 0; !st && l < nl; l++) {
        pk_location loc;
        if (pk_location_get(p, l, &loc) || loc.is_summary) continue;
        st = pk_callgraph_function_costs(p, l, event, c, NULL, NULL);
        for (size_t k = 0; !st && k < n; k++)
            incl[k * nl + l] = 0, self[k * nl + l] = 0;
        for (size_t f = 0; !st && f < nf; f++)
            if (which[f] != UINT32_MAX)
                incl[which[f] * nl + l] += c[f].inclusive, self[which[f] * nl + l] += c[f].self;
    }
    free(c), free(which);
    return st;
}

pk_status pkq_function_locations(const pk_profile *p, pk_index metric, const char *const *names,
                                 size_t n, double *incl, double *self, int use_callgraph)
{
    size_t event;
    if (use_callgraph && pk_callgraph_metric_event(p, metric, &event) == PK_OK) {
        for (size_t k = 0; k < n * pk_location_count(p); k++)
            incl[k] = self[k] = NAN;
        return from_callgraph(p, event, names, n, incl, self);
    }
    size_t nc = pk_context_count(p), nl = pk_location_count(p);
    uint32_t *mark = malloc((nc ? nc : 1) * sizeof *mark);
    unsigned char *outer = calloc(nc ? nc : 1, 1), *sel = calloc(nl ? nl : 1, 1);
    double *bi = malloc((nc ? nc : 1) * sizeof *bi), *be = malloc((nc ? nc : 1) * sizeof *be);
    pk_status st = mark && outer && sel && bi && be ? mark_functions(p, names, n, mark, outer)
                                                    : pk_fail_nomem("per-location values");
    for (size_t k = 0; k < n * nl; k++)
        incl[k] = self[k] = NAN;
    for (pk_index l = 0; !st && l < nl; l++) {
        pk_location loc;
        int has_excl;
        if (pk_location_get(p, l, &loc) || loc.is_summary) continue;
        st = one_location(p, metric, l, sel, bi, be, &has_excl);
        for (size_t k = 0; !st && k < n; k++)
            incl[k * nl + l] = 0, self[k * nl + l] = has_excl ? 0 : NAN;
        for (size_t c = 0; !st && c < nc; c++) {
            if (mark[c] == UINT32_MAX) continue;
            if (outer[c]) incl[mark[c] * nl + l] += bi[c];
            if (has_excl) self[mark[c] * nl + l] += be[c];
        }
    }
    free(mark), free(outer), free(sel), free(bi), free(be);
    return st;
}

void pkq_fn_locations_clear(pkq_fn_locations *f)
{
    for (size_t k = 0; k < f->n; k++)
        free(f->names[k]);
    free(f->names), free(f->incl), free(f->self);
    memset(f, 0, sizeof *f);
}

pk_status pk_session_prefetch_functions(pk_session *s, const pk_query *q, const char *const *names,
                                        size_t n)
{
    if (!s || !q || (!names && n)) return pk_fail(PK_ERR_INVALID_ARG, "prefetch: bad arguments");
    pk_index m;
    pkq_fn_locations f = {0};
    size_t nl = pk_location_count(s->p);
    pk_status st = pkq_metric_pick(s->p, pkq_text(q, PKQ_METRIC), &m, NULL);
    f.metric = m;
    f.names = st ? NULL : calloc(n ? n : 1, sizeof *f.names);
    size_t cells = n * nl > 0 ? n * nl : 1;
    f.incl = st ? NULL : malloc(cells * sizeof *f.incl);
    f.self = st ? NULL : malloc(cells * sizeof *f.self);
    if (!st && (!f.names || !f.incl || !f.self)) st = pk_fail_nomem("per-location values");
    for (; !st && f.n < n; f.n++)
        if (!(f.names[f.n] = strdup(names[f.n]))) st = pk_fail_nomem("per-location values");
    f.from_callgraph = pkq_uses_callgraph(s->p, q);
    if (!st) st = pkq_function_locations(s->p, m, names, n, f.incl, f.self, f.from_callgraph);
    if (st) return pkq_fn_locations_clear(&f), st;
    pkq_fn_locations_clear(&s->fnloc);
    s->fnloc = f;
    return PK_OK;
}

/* Function `name`'s values per location, from the session's batch, or
 * computed as a batch of its own. */
static pk_status function_values(pk_session *s, pk_index m, int cg, const char *name,
                                 const double **incl, const double **self)
{
    size_t nl = pk_location_count(s->p);
    for (int pass = 0; pass < 2; pass++) {
        const pkq_fn_locations *f = &s->fnloc;
        for (size_t k = 0; f->metric == m && f->from_callgraph == cg && k < f->n; k++)
            if (strcmp(f->names[k], name) == 0) {
                *incl = f->incl + k * nl, *self = f->self + k * nl;
                return PK_OK;
            }
        if (pass) break;
        pkq_fn_locations one = {.metric = m, .n = 1, .from_callgraph = cg};
        one.names = calloc(1, sizeof *one.names);
        one.incl = malloc((nl ? nl : 1) * sizeof *one.incl);
        one.self = malloc((nl ? nl : 1) * sizeof *one.self);
        pk_status st = one.names && one.incl && one.self && (one.names[0] = strdup(name))
                           ? pkq_function_locations(s->p, m, (const char *const *)one.names, 1,
                                                    one.incl, one.self, cg)
                           : pk_fail_nomem("per-location values");
        if (st) return pkq_fn_locations_clear(&one), st;
        pkq_fn_locations_clear(&s->fnloc);
        s->fnloc = one;
    }
    return pk_fail(PK_ERR_NOT_FOUND, "no values of function '%s'", name);
}

static int largest_first(const void *x, const void *y)
{
    const pk_thread_entry *a = x, *b = y;
    int na = isnan(a->inclusive), nb = isnan(b->inclusive);
    if (na != nb) return na ? 1 : -1;
    if (!na && a->inclusive != b->inclusive) return a->inclusive > b->inclusive ? -1 : 1;
    return a->location < b->location ? -1 : a->location > b->location;
}

static void spread(pk_threads_answer *a)
{
    size_t n = a->n_rows;
    double sumsq = 0;
    a->sum = 0;
    for (size_t i = 0; i < n; i++)
        a->sum += a->rows[i].inclusive, sumsq += a->rows[i].inclusive * a->rows[i].inclusive;
    a->max = n ? a->rows[0].inclusive : 0, a->min = n ? a->rows[n - 1].inclusive : 0;
    a->mean = n ? a->sum / (double)n : 0;
    double var = n ? sumsq / (double)n - a->mean * a->mean : 0;
    a->stddev = var > 0 ? sqrt(var) : 0;
    a->imbalance = a->mean != 0 ? a->max / a->mean - 1 : 0;
}

/* The rows: every selected non-summary location with a value. */
static pk_status fill_rows(pk_threads_answer *a, pk_arena *arena, const pk_query *q,
                           const double *incl, const double *self)
{
    const pk_profile *p = a->head.profile;
    size_t nl = pk_location_count(p);
    unsigned char *sel = NULL;
    const char *selector = pkq_text(q, PKQ_LOCATION);
    pk_status st = PK_OK;
    if (selector && !(sel = calloc(nl ? nl : 1, 1))) return pk_fail_nomem("per-location values");
    if (selector) st = pk_location_select(p, selector, sel, nl, NULL);
    a->rows = st ? NULL : pk_arena_array(arena, nl ? nl : 1, sizeof *a->rows);
    if (!st && !a->rows) st = pk_fail_nomem("per-location values");
    char name[1024];
    for (pk_index l = 0; !st && l < nl; l++) {
        if (isnan(incl[l]) || (sel && !sel[l])) continue;
        pk_thread_entry *e = &a->rows[a->n_rows++];
        size_t len = pk_location_name(p, l, name, sizeof name);
        e->location = l, e->inclusive = incl[l], e->self = self ? self[l] : NAN;
        e->name = pk_arena_strndup(arena, name, len < sizeof name ? len : sizeof name - 1);
        if (!e->name) st = pk_fail_nomem("per-location values");
    }
    free(sel);
    if (!st && a->n_rows == 0)
        st = pk_fail(PK_ERR_UNSUPPORTED, "this profile holds no per-location values (only "
                                         "summary statistics)");
    if (!st) qsort(a->rows, a->n_rows, sizeof *a->rows, largest_first);
    a->head.n_locations = a->n_rows;
    return st;
}

static int has_function(const pk_profile *p, const char *name)
{
    pk_function fn;
    for (pk_index i = 0; i < pk_function_count(p); i++)
        if (pk_function_get(p, i, &fn) == PK_OK && fn.name && strcmp(fn.name, name) == 0) return 1;
    return 0;
}

static pk_status answer(pk_session *s, const pk_query *q, pk_threads_answer *a, pk_arena *arena)
{
    const pk_profile *p = s->p;
    pk_index m;
    pk_metric met;
    size_t nl = pk_location_count(p);
    pk_status st = pkq_metric_pick(p, pkq_text(q, PKQ_METRIC), &m, NULL);
    if (!st) st = pk_metric_get(p, m, &met);
    if (!st) st = pkq_head_init(&a->head, arena, p, q, "profiles", 1);
    const char *fn = pkq_text(q, PKQ_FUNCTION);
    const double *incl = NULL, *self = NULL;
    double *totals = NULL;
    if (!st && fn && !has_function(p, fn)) st = pk_fail(PK_ERR_NOT_FOUND, "no function '%s'", fn);
    int cg = !st && fn && pkq_uses_callgraph(p, q); /* after an error: keep its message */
    if (!st && cg) a->head.source = "callgraph";
    if (!st && fn) {
        st = function_values(s, m, cg, fn, &incl, &self);
        if (!st && !(a->function = pkq_strdup(arena, fn))) st = pk_fail_nomem("an answer");
    } else if (!st) {
        totals = malloc((nl ? nl : 1) * sizeof *totals);
        st = totals ? pk_location_totals(p, m, totals, nl) : pk_fail_nomem("per-location values");
        incl = totals;
    }
    if (!st) st = fill_rows(a, arena, q, incl, self);
    free(totals);
    if (st) return st;
    spread(a);
    pk_number_format nf;
    if (pk_number_format_for(&met, fmax(fabs(a->max), fabs(a->min)), &nf) != PK_OK)
        nf = (pk_number_format){.scale = 1};
    double total = 0;
    if (pk_metric_program_total(p, m, &total) != PK_OK) total = NAN;
    pkq_column_of_metric(&a->head.columns[0], &met, m, total, &nf, self != NULL);
    return PK_OK;
}

pk_status pk_answer_threads(pk_session *s, const pk_query *q, pk_threads_answer **out)
{
    if (!s || !q || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_answer_threads: bad arguments");
    pk_arena arena;
    pk_arena_init(&arena);
    pk_threads_answer *a = pk_arena_alloc(&arena, sizeof *a);
    pk_arena *keep = pk_arena_alloc(&arena, sizeof *keep);
    pk_status st = a && keep ? answer(s, q, a, &arena) : pk_fail_nomem("an answer");
    if (st) return pk_arena_free(&arena), st;
    *keep = arena;
    a->arena_ = keep;
    *out = a;
    return PK_OK;
}

void pk_threads_answer_free(pk_threads_answer *a)
{
    if (!a) return;
    pk_arena arena = *(pk_arena *)a->arena_;
    pk_arena_free(&arena);
}
