/*
 * analysis/cg_overview.c — a call graph at a glance (pk_callgraph_overview):
 * its cycles, its total and its costliest functions, ranked here so that
 * `info`'s text and JSON (and any other front end) show the same ones.
 */
#include <stdlib.h>
#include <string.h>

#include "profkit/callgraph.h"
#include "profkit/profile.h"
#include "util/error.h"

/* Largest value first, ties by function index. */
static int ranks_before(const pk_cg_ranked *x, const pk_cg_ranked *y)
{
    if (x->value != y->value) return x->value > y->value;
    return x->function < y->function;
}

/* The PK_CG_TOP first functions in ranks_before's order, in one pass:
 * sorting all of them (cc1: 60,000, twice) to show ten was 5 % of `info`. */
static size_t top_ranked(const pk_cg_function_cost *c, size_t nf, int inclusive, pk_cg_ranked *top)
{
    size_t n = 0;
    for (size_t f = 0; f < nf; f++) {
        pk_cg_ranked r = {(pk_index)f, inclusive ? c[f].inclusive : c[f].self, c[f].cycle};
        if (n == PK_CG_TOP && !ranks_before(&r, &top[PK_CG_TOP - 1])) continue;
        size_t i = n < PK_CG_TOP ? n++ : PK_CG_TOP - 1;
        for (; i > 0 && ranks_before(&r, &top[i - 1]); i--)
            top[i] = top[i - 1];
        top[i] = r;
    }
    return n;
}

pk_status pk_callgraph_overview(const pk_profile *p, size_t event, pk_cg_overview *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_callgraph_overview: NULL argument");
    memset(out, 0, sizeof *out);
    size_t nf = pk_function_count(p);
    pk_cg_function_cost *c = calloc(nf + 1, sizeof *c);
    if (!c) return pk_fail_nomem("a call graph's overview");
    pk_status st = pk_callgraph_function_costs(p, PK_NONE, event, c, NULL, &out->n_cycles);
    for (size_t f = 0; f < nf && !st; f++)
        out->self_total += c[f].self;
    if (!st) out->n_by_self = top_ranked(c, nf, 0, out->by_self);
    if (!st) out->n_by_inclusive = top_ranked(c, nf, 1, out->by_inclusive);
    free(c);
    return st;
}
