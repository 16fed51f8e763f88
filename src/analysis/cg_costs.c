/*
 * analysis/cg_costs.c — inclusive cost per function that stays correct
 * under recursion.
 *
 * Summing the inclusive costs of a function's incoming arcs (what
 * callgrind_annotate --inclusive=yes does) counts a recursive chain once
 * per level: the cost of a nested call is already inside the outer one,
 * so totals can pass 100 %. Here the call graph's strongly connected
 * components (Tarjan) are collapsed as KCachegrind does: a function's
 * inclusive cost is its self cost plus the calls it makes to functions
 * outside its own cycle; a cycle's is the members' self costs plus the
 * calls leaving the cycle. Arcs from a function to itself are inside the
 * outer call and never added.
 */
#include <stdlib.h>
#include <string.h>

#include "model/callgraph.h"
#include "profkit/callgraph.h"
#include "util/error.h"

typedef struct graph {
    uint32_t n;
    uint64_t *start; /* n + 1 */
    uint32_t *to;
} graph;

static void graph_free(graph *g)
{
    free(g->start), free(g->to);
}

static int keep(const pk_cg_call_rec *c, uint32_t nf, uint32_t part)
{
    return c->caller != c->callee && c->caller < nf && c->callee < nf &&
           (part == PK_NONE || c->part == part);
}

/* Arcs between different functions (at one location, or all). */
static pk_status graph_of(const pk_cg *cg, uint32_t nf, uint32_t part, graph *g)
{
    g->n = nf;
    g->start = calloc((size_t)nf + 2, sizeof *g->start);
    g->to = malloc((cg->n_calls + 1) * sizeof *g->to);
    if (!g->start || !g->to) return pk_fail_nomem("finding cycles");
    for (uint64_t i = 0; i < cg->n_calls; i++) {
        const pk_cg_call_rec *c = &cg->calls[i];
        if (keep(c, nf, part)) g->start[c->caller + 2]++;
    }
    for (uint32_t f = 0; f < nf; f++)
        g->start[f + 2] += g->start[f + 1];
    for (uint64_t i = 0; i < cg->n_calls; i++) {
        const pk_cg_call_rec *c = &cg->calls[i];
        if (keep(c, nf, part)) g->to[g->start[c->caller + 1]++] = c->callee;
    }
    return PK_OK;
}

typedef struct tarjan {
    uint32_t *index, *low, *stack, *comp, *size;
    uint8_t *on_stack;
    uint64_t *it;
    uint32_t *call; /* DFS call stack of nodes */
    uint32_t next, sp, n_comp;
} tarjan;

static void strongconnect(tarjan *t, const graph *g, uint32_t root)
{
    uint32_t cs = 0;
    t->call[cs++] = root;
    t->index[root] = t->low[root] = ++t->next;
    t->stack[t->sp++] = root, t->on_stack[root] = 1, t->it[root] = g->start[root];
    while (cs) {
        uint32_t v = t->call[cs - 1];
        if (t->it[v] < g->start[v + 1]) {
            uint32_t w = g->to[t->it[v]++];
            if (!t->index[w]) {
                t->index[w] = t->low[w] = ++t->next;
                t->stack[t->sp++] = w, t->on_stack[w] = 1, t->it[w] = g->start[w];
                t->call[cs++] = w;
            } else if (t->on_stack[w] && t->index[w] < t->low[v]) {
                t->low[v] = t->index[w];
            }
            continue;
        }
        cs--;
        if (cs && t->low[v] < t->low[t->call[cs - 1]]) t->low[t->call[cs - 1]] = t->low[v];
        if (t->low[v] != t->index[v]) continue;
        uint32_t w, c = t->n_comp++;
        t->size[c] = 0;
        do {
            w = t->stack[--t->sp];
            t->on_stack[w] = 0, t->comp[w] = c, t->size[c]++;
        } while (w != v);
    }
}

/* cycle[f] = N of <cycle N> (components with 2+ members, numbered by
 * their smallest function index), 0 otherwise. */
static pk_status cycles_of(const graph *g, uint32_t *cycle, uint32_t *n_cycles)
{
    uint32_t n = g->n;
    tarjan t = {0};
    size_t m = (size_t)n + 1;
    t.index = calloc(m, 4), t.low = malloc(m * 4), t.stack = malloc(m * 4), t.comp = malloc(m * 4);
    t.size = malloc(m * 4), t.on_stack = calloc(m, 1), t.it = malloc(m * 8), t.call = malloc(m * 4);
    uint32_t *number = NULL;
    pk_status st = PK_OK;
    if (!t.index || !t.low || !t.stack || !t.comp || !t.size || !t.on_stack || !t.it || !t.call)
        st = pk_fail_nomem("finding cycles");
    for (uint32_t v = 0; v < n && !st; v++)
        if (!t.index[v]) strongconnect(&t, g, v);
    if (!st && !(number = calloc((size_t)t.n_comp + 1, 4))) st = pk_fail_nomem("finding cycles");
    uint32_t nc = 0;
    for (uint32_t v = 0; v < n && !st; v++) {
        uint32_t c = t.comp[v];
        if (t.size[c] > 1 && !number[c]) number[c] = ++nc;
        cycle[v] = t.size[c] > 1 ? number[c] : 0;
    }
    if (n_cycles) *n_cycles = nc;
    free(t.index), free(t.low), free(t.stack), free(t.comp), free(t.size), free(t.on_stack);
    free(t.it), free(t.call), free(number);
    return st;
}

static pk_status check_args(const pk_profile *p, pk_index location, size_t event,
                            pk_cg_function_cost *out, uint32_t *part)
{
    if (!p || !out)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_callgraph_function_costs: NULL argument");
    if (!p->cg) return pk_fail(PK_ERR_NOT_FOUND, "the profile has no call graph");
    if (event >= p->cg->n_events)
        return pk_fail(PK_ERR_INVALID_ARG, "event %zu out of range", event);
    *part = PK_NONE;
    if (location == PK_NONE) return PK_OK;
    for (uint32_t k = 0; k < p->cg->n_parts; k++)
        if (p->cg->parts[k].location == location) *part = k;
    if (*part == PK_NONE)
        return pk_fail(PK_ERR_INVALID_ARG, "location %u has no call graph part", location);
    return PK_OK;
}

pk_status pk_callgraph_function_costs(const pk_profile *p, pk_index location, size_t event,
                                      pk_cg_function_cost *out, pk_cg_cycle *cycles,
                                      uint32_t *n_cycles)
{
    uint32_t part;
    pk_status st = check_args(p, location, event, out, &part);
    if (st) return st;
    const pk_cg *cg = p->cg;
    uint32_t nf = (uint32_t)p->n_functions, ne = cg->n_events, nc = 0;
    uint32_t *cyc = malloc(((size_t)nf + 1) * sizeof *cyc);
    graph g = {0};
    st = cyc ? graph_of(cg, nf, part, &g) : pk_fail_nomem("computing costs");
    if (!st) st = cycles_of(&g, cyc, &nc);
    graph_free(&g);
    if (st) {
        free(cyc);
        return st;
    }
    memset(out, 0, (size_t)nf * sizeof *out);
    if (cycles) memset(cycles, 0, (size_t)nc * sizeof *cycles);
    for (uint32_t f = 0; f < nf; f++)
        out[f].cycle = cyc[f];
    for (uint64_t i = 0; i < cg->n_self; i++)
        if ((part == PK_NONE || cg->self[i].part == part) && cg->self[i].fn < nf)
            out[cg->self[i].fn].self += cg->self_cost[i * ne + event];
    for (uint64_t i = 0; i < cg->n_calls; i++) {
        const pk_cg_call_rec *c = &cg->calls[i];
        if (!keep(c, nf, part)) continue;
        uint32_t a = cyc[c->caller], b = cyc[c->callee];
        if (a && a == b) continue; /* inside a cycle: contained in the call into it */
        double v = cg->call_cost[i * ne + event];
        out[c->caller].inclusive += v;
        out[c->callee].calls += v;
        if (a && cycles) cycles[a - 1].inclusive += v;
    }
    for (uint32_t f = 0; f < nf; f++) {
        out[f].inclusive += out[f].self;
        if (cyc[f] && cycles) {
            cycles[cyc[f] - 1].self += out[f].self;
            cycles[cyc[f] - 1].inclusive += out[f].self;
            cycles[cyc[f] - 1].n_members++;
        }
    }
    if (n_cycles) *n_cycles = nc;
    free(cyc);
    return PK_OK;
}
