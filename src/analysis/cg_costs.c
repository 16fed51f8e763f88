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

#include "cg_graph.h"
#include "profkit/callgraph.h"
#include "util/error.h"

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

/* Self costs per function, call costs along the arcs that leave a unit. */
static void add_costs(const pk_cg *cg, const cg_graph *g, uint32_t part, size_t event,
                      pk_cg_function_cost *out, pk_cg_cycle *cycles)
{
    uint32_t nf = g->nf;
    for (uint64_t i = 0; i < cg->n_self; i++)
        if ((part == PK_NONE || cg->self[i].part == part) && cg->self[i].fn < nf)
            out[cg->self[i].fn].self += pk_cg_self_value(cg, i, (uint32_t)event);
    for (uint64_t i = 0; i < cg->n_calls; i++) {
        const pk_cg_call_rec *c = &cg->calls[i];
        if (!cg_graph_keeps(c, nf, part)) continue;
        out[c->callee].called += c->count;
        if (g->ua_of_call[i] == PK_NONE) continue; /* inside a cycle */
        double v = pk_cg_call_value(cg, i, (uint32_t)event);
        out[c->caller].inclusive += v;
        out[c->callee].calls += v;
        uint32_t a = g->cycle_of[g->unit_of[c->caller]], b = g->cycle_of[g->unit_of[c->callee]];
        if (a) cycles[a - 1].inclusive += v;
        if (b) cycles[b - 1].calls += v, cycles[b - 1].called += c->count;
    }
    for (uint32_t f = 0; f < nf; f++) {
        out[f].inclusive += out[f].self;
        uint32_t c = out[f].cycle;
        if (!c) continue;
        cycles[c - 1].self += out[f].self;
        cycles[c - 1].inclusive += out[f].self;
        cycles[c - 1].n_members++;
    }
}

/* The "<cycle N>" functions of the profile (pk_cg.first_cycle_function)
 * answer with their cycle's costs, as KCachegrind lists cycles. */
static void cycle_functions(const pk_profile *p, uint32_t n_cycles, const pk_cg_cycle *cycles,
                            pk_cg_function_cost *out)
{
    const pk_cg *cg = p->cg;
    if (cg->n_cycle_functions != n_cycles) return; /* another numbering (one location) */
    for (uint32_t c = 0; c < n_cycles; c++) {
        uint32_t f = cg->first_cycle_function + c;
        if (f < p->n_functions)
            out[f] = (pk_cg_function_cost){0, cycles[c].inclusive, cycles[c].calls, c + 1,
                                           cycles[c].called};
    }
}

pk_status cg_function_costs(const pk_cg *cg, uint32_t nf, uint32_t part, size_t event,
                            pk_cg_function_cost *out)
{
    cg_graph g;
    pk_status st = cg_graph_build(cg, nf, part, &g);
    pk_cg_cycle *cyc = st ? NULL : calloc((size_t)g.n_cycles + 1, sizeof *cyc);
    if (!st && !cyc) st = pk_fail_nomem("computing costs");
    if (!st) {
        memset(out, 0, nf * sizeof *out);
        for (uint32_t f = 0; f < nf; f++)
            out[f].cycle = g.cycle_of[g.unit_of[f]];
        add_costs(cg, &g, part, event, out, cyc);
    }
    free(cyc);
    cg_graph_free(&g);
    return st;
}

pk_status pk_callgraph_function_costs(const pk_profile *p, pk_index location, size_t event,
                                      pk_cg_function_cost *out, pk_cg_cycle *cycles,
                                      uint32_t *n_cycles)
{
    uint32_t part;
    pk_status st = check_args(p, location, event, out, &part);
    if (st) return st;
    const pk_cg *cg = p->cg;
    uint32_t nf = cg->n_functions < p->n_functions ? cg->n_functions : (uint32_t)p->n_functions;
    cg_graph g;
    st = cg_graph_build(cg, nf, part, &g);
    pk_cg_cycle *cyc = st ? NULL : calloc((size_t)g.n_cycles + 1, sizeof *cyc);
    if (!st && !cyc) st = pk_fail_nomem("computing costs");
    if (!st) {
        memset(out, 0, p->n_functions * sizeof *out);
        for (uint32_t f = 0; f < nf; f++)
            out[f].cycle = g.cycle_of[g.unit_of[f]];
        add_costs(cg, &g, part, event, out, cyc);
        if (part == PK_NONE) cycle_functions(p, g.n_cycles, cyc, out);
        if (cycles) memcpy(cycles, cyc, (size_t)g.n_cycles * sizeof *cyc);
        if (n_cycles) *n_cycles = g.n_cycles;
    }
    free(cyc);
    cg_graph_free(&g);
    return st;
}
