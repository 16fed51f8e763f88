/*
 * analysis/instr_costs.c — what a profile says each instruction of a
 * function cost: the per-address self costs the disassembly view
 * (profkit/disasm.h) places on the machine code. From a call graph's cost
 * records (Callgrind with --dump-instr=yes), or from the contexts with a
 * module offset inside a function context (HPCToolkit). One linear pass
 * either way; the result is sorted and summed per address.
 */
#include <stdlib.h>

#include "profkit/callgraph.h"
#include "profkit/disasm.h"
#include "util/error.h"

typedef struct costs {
    pk_instr_cost *v;
    size_t n, cap;
} costs;

static pk_status push(costs *c, uint64_t address, double self)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        pk_instr_cost *v = realloc(c->v, cap * sizeof *v);
        if (!v) return pk_fail_nomem("collecting instruction costs");
        c->v = v, c->cap = cap;
    }
    c->v[c->n++] = (pk_instr_cost){address, self};
    return PK_OK;
}

static int by_address(const void *a, const void *b)
{
    uint64_t x = ((const pk_instr_cost *)a)->address, y = ((const pk_instr_cost *)b)->address;
    return x < y ? -1 : x > y;
}

/* Sorted, one entry per address. */
static void settle(costs *c, pk_instr_cost **out, size_t *n)
{
    size_t k = 0;
    if (c->n) qsort(c->v, c->n, sizeof *c->v, by_address);
    for (size_t i = 0; i < c->n; i++)
        if (k && c->v[k - 1].address == c->v[i].address)
            c->v[k - 1].self += c->v[i].self;
        else
            c->v[k++] = c->v[i];
    *out = c->v, *n = k;
}

static int selected(pk_index location, const pk_index *locations, size_t n)
{
    if (!locations) return 1;
    for (size_t i = 0; i < n; i++)
        if (locations[i] == location) return 1;
    return 0;
}

pk_status pk_callgraph_instr_costs(const pk_profile *p, pk_index function, size_t event,
                                   const pk_index *locations, size_t n_locations,
                                   pk_instr_cost **out, size_t *n)
{
    if (!p || !out || !n) return pk_fail(PK_ERR_INVALID_ARG, "pk_callgraph_instr_costs: NULL");
    pk_cg_summary s;
    pk_status st = pk_callgraph_summary(p, &s);
    if (st) return st;
    if (!(s.positions & PK_POS_INSTR) || s.by_function)
        return pk_fail(PK_ERR_NOT_FOUND, "the call graph records no instruction addresses "
                                         "(Callgrind: --dump-instr=yes)");
    costs c = {0};
    for (uint64_t i = 0; i < s.n_costs && !st; i++) {
        pk_cg_cost k;
        st = pk_callgraph_cost(p, i, &k);
        if (st || k.function != function || !selected(k.location, locations, n_locations)) continue;
        st = push(&c, k.pos.instr, pk_cg_value(k.values, k.n_values, k.events, event));
    }
    if (st) return free(c.v), st;
    settle(&c, out, n);
    return PK_OK;
}

pk_status pk_context_instr_costs(const pk_profile *p, pk_index function, const double *exclusive,
                                 pk_instr_cost **out, size_t *n, pk_index *module)
{
    if (!p || !exclusive || !out || !n || !module)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_context_instr_costs: NULL");
    size_t nc = pk_context_count(p);
    pk_index *fn_of = malloc((nc ? nc : 1) * sizeof *fn_of); /* nearest enclosing function */
    if (!fn_of) return pk_fail_nomem("collecting instruction costs");
    costs c = {0};
    pk_status st = PK_OK;
    *module = PK_NONE;
    for (pk_index i = 0; i < nc && !st; i++) { /* parents come before their children */
        pk_context x;
        if ((st = pk_context_get(p, i, &x)) != PK_OK) break;
        int own = x.kind == PK_CTX_FUNCTION && (x.flags & PK_CTXF_HAS_FUNCTION);
        fn_of[i] = own ? x.function : x.parent < i ? fn_of[x.parent] : PK_NONE;
        if (fn_of[i] != function || !(x.flags & PK_CTXF_HAS_POINT) || x.kind == PK_CTX_FUNCTION)
            continue;
        if (*module == PK_NONE) *module = x.module;
        if (x.module == *module) st = push(&c, x.offset, exclusive[i]);
    }
    free(fn_of);
    pk_function f = {0};
    if (!st && c.n == 0 && pk_function_get(p, function, &f) == PK_OK)
        st = pk_fail(PK_ERR_NOT_FOUND,
                     "no instruction context of %s has a module offset in the "
                     "calling-context tree",
                     f.name ? f.name : "the function");
    if (st) return free(c.v), st;
    settle(&c, out, n);
    return PK_OK;
}
