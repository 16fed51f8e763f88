/*
 * analysis/answer_callers_cg.c — callers and callees from a call graph
 * (Callgrind): the graph's own lists, exact, as KCachegrind shows them.
 * Per function the pattern picks: its self and inclusive cost over the
 * selected locations (recursion and cycles counted once), how often it
 * was called, and its callers (callees) with the calls between them and
 * what those calls cost; nothing reconstructed.
 */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/answer_callers.h"
#include "analysis/session.h"
#include "util/error.h"

/* Costs per function over the selected locations; cycles as over all. */
static pk_status function_costs(const pk_profile *p, const pkq_cg *cg, pk_cg_function_cost **out)
{
    size_t nf = pk_function_count(p);
    pk_cg_function_cost *cost = calloc(nf + 1, sizeof *cost), *tmp = calloc(nf + 1, sizeof *tmp);
    if (!cost || !tmp) return free(cost), free(tmp), pk_fail_nomem("a call graph's costs");
    pk_status st = pk_callgraph_function_costs(p, PK_NONE, cg->event, cost, NULL, NULL);
    if (!st && cg->locations) {
        for (size_t f = 0; f < nf; f++) /* keep the cycles, add up the locations' costs */
            cost[f].self = cost[f].inclusive = cost[f].called = 0;
        for (size_t i = 0; i < cg->n_locations && !st; i++) {
            st = pk_callgraph_function_costs(p, cg->locations[i], cg->event, tmp, NULL, NULL);
            for (size_t f = 0; f < nf && !st; f++) {
                cost[f].self += tmp[f].self, cost[f].inclusive += tmp[f].inclusive;
                cost[f].called += tmp[f].called;
            }
        }
    }
    free(tmp);
    if (st) return free(cost), st;
    *out = cost;
    return PK_OK;
}

static int by_function(const void *a, const void *b)
{
    pk_index x = ((const pk_cg_arc_row *)a)->function, y = ((const pk_cg_arc_row *)b)->function;
    return x < y ? -1 : x > y;
}

static int by_inclusive(const void *a, const void *b)
{
    const pk_cg_arc_row *x = a, *y = b;
    if (x->inclusive != y->inclusive) return x->inclusive > y->inclusive ? -1 : 1;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return x->function < y->function ? -1 : x->function > y->function;
}

/* The arcs of f over the selected locations: one row per function. */
static pk_status arcs_of(const pk_profile *p, const pkq_cg *cg, pk_index f, int callers,
                         pk_cg_arc_row **rows, size_t *n)
{
    pk_cg_arc_row *all = NULL;
    size_t n_all = 0, k = 0;
    pk_status st = PK_OK;
    for (size_t i = 0; i < (cg->locations ? cg->n_locations : 1) && !st; i++) {
        pk_cg_arc_row *r;
        size_t m;
        st = pk_callgraph_arcs(p, f, callers, cg->locations ? cg->locations[i] : PK_NONE, cg->event,
                               &r, &m);
        pk_cg_arc_row *grown = st ? NULL : realloc(all, (n_all + m + 1) * sizeof *grown);
        if (!st && !grown) st = pk_fail_nomem("a call list");
        if (!st && m) memcpy(grown + n_all, r, m * sizeof *r); /* r may be NULL when m is 0 */
        if (!st) all = grown, n_all += m;
        if (!st) pk_callgraph_arcs_free(r);
    }
    if (st) return free(all), st;
    if (n_all) qsort(all, n_all, sizeof *all, by_function);
    for (size_t i = 0; i < n_all; i++)
        if (k && all[k - 1].function == all[i].function)
            all[k - 1].count += all[i].count, all[k - 1].inclusive += all[i].inclusive;
        else
            all[k++] = all[i];
    if (k) qsort(all, k, sizeof *all, by_inclusive);
    *rows = all, *n = k;
    return PK_OK;
}

static const char *fname(const pk_profile *p, pk_index f)
{
    pk_function fn;
    return !pk_function_get(p, f, &fn) && fn.name ? fn.name : "<unknown>";
}

static pk_status fill_block(pkq_callers_work *w, const pkq_cg *cg, const pk_cg_function_cost *cost,
                            pk_index f, pk_callers_block *b)
{
    const pk_profile *p = w->s->p;
    pk_cg_arc_row *r = NULL;
    size_t n = 0;
    b->function = f;
    b->name = pkq_strdup(&w->arena, fname(p, f));
    pkq_block_place(p, b);
    b->self = cost[f].self, b->inclusive = cost[f].inclusive;
    b->called = cost[f].called, b->cycle = cost[f].cycle;
    pk_status st = arcs_of(p, cg, f, !w->callees, &r, &n);
    b->arcs = st ? NULL : pk_arena_array(&w->arena, n + 1, sizeof *b->arcs);
    if (!st && (!b->arcs || !b->name)) st = pk_fail_nomem("a call list");
    double cut = w->q->threshold / 100.0 * fabs(b->inclusive); /* of the function's own value */
    for (size_t i = 0; !st && i < n; i++) {
        if (w->q->threshold > 0 && fabs(r[i].inclusive) < cut) {
            b->hidden_arcs++;
            continue;
        }
        pk_arc_entry *e = &b->arcs[b->n_arcs++];
        *e = (pk_arc_entry){pkq_strdup(&w->arena, fname(p, r[i].function)),
                            r[i].function,
                            r[i].count,
                            r[i].inclusive,
                            NAN,
                            cost[r[i].function].cycle};
        if (!e->name) st = pk_fail_nomem("a call list");
    }
    pk_callgraph_arcs_free(r);
    return st;
}

static int by_cost(const void *a, const void *b, void *costs)
{
    const pk_cg_function_cost *cost = costs;
    pk_index x = *(const pk_index *)a, y = *(const pk_index *)b;
    double u = cost[x].inclusive, v = cost[y].inclusive;
    if (u != v) return u > v ? -1 : 1;
    return x < y ? -1 : x > y;
}

pk_status pkq_callers_from_callgraph(pkq_callers_work *w)
{
    const pk_profile *p = w->s->p;
    pk_callers_answer *a = w->a;
    pkq_cg cg;
    pk_index *match = NULL;
    size_t n = 0;
    pk_cg_function_cost *cost = NULL;
    pk_status st = pkq_cg_init(p, w->cols.base[0], w->q, &cg);
    if (st) return st;
    pkq_column_of_metric(&a->head.columns[0], &cg.met, cg.metric, cg.total, &cg.nf, 1);
    a->head.n_locations = cg.locations ? cg.n_locations : 0;
    a->total = cg.total;
    st = pk_functions_matching(p, w->pattern, &match, &n);
    if (!st) st = function_costs(p, &cg, &cost);
    if (!st && n) qsort_r(match, n, sizeof *match, by_cost, cost);
    size_t top = w->q->top && w->q->top < n ? w->q->top : n;
    a->functions = st ? NULL : pk_arena_array(&w->arena, top ? top : 1, sizeof *a->functions);
    if (!st && !a->functions) st = pk_fail_nomem("a call list");
    for (size_t i = 0; !st && i < top; i++, a->n_functions++)
        st = fill_block(w, &cg, cost, match[i], &a->functions[i]);
    a->hidden_functions = n - top;
    if (!st)
        st = pkq_note(&a->head, &w->arena, "exact",
                      "exact, from the call graph: inclusive costs count recursion and cycles "
                      "once, as KCachegrind does");
    pk_functions_free(match);
    free(cost);
    pkq_cg_free(&cg);
    return st;
}
