/*
 * analysis/cg_graph.h — the call graph between functions, as the views
 * built on it need it: strongly connected components ("units": a function,
 * or a cycle of mutually recursive functions, numbered <cycle N> as
 * KCachegrind numbers them), the units in topological order, and the arcs
 * from a function to another unit ("unit arcs"), merged over call sites.
 *
 * Arcs from a function to itself and arcs inside a cycle are not unit
 * arcs: their inclusive cost is already inside the call that entered the
 * function or the cycle.
 */
#ifndef PK_ANALYSIS_CG_GRAPH_H
#define PK_ANALYSIS_CG_GRAPH_H

#include "model/callgraph.h"

typedef struct cg_graph {
    uint32_t nf;                 /* functions: call records name functions [0, nf) */
    uint32_t n_units;            /* strongly connected components */
    uint32_t *unit_of;           /* nf: unit of each function */
    uint32_t *mem_start;         /* n_units + 1: members of unit u are members[mem_start[u]..] */
    uint32_t *members;           /* nf, ascending within a unit */
    uint32_t *cycle_of;          /* n_units: N of <cycle N>, 0 for a single function */
    uint32_t n_cycles;           /* units of two or more functions */
    uint32_t *topo;              /* n_units: callers before callees */
    uint64_t n_ua;               /* unit arcs, sorted by caller */
    uint32_t *ua_from;           /* n_ua: calling function */
    uint32_t *ua_to;             /* n_ua: called unit */
    uint64_t *out_start;         /* nf + 1: unit arcs of function f from out_start[f] */
    uint64_t *in_start;          /* n_units + 1: arcs into unit u are in_ua[in_start[u]..] */
    uint32_t *in_ua;             /* n_ua */
    uint32_t *ua_of_call;        /* cg->n_calls: unit arc of each call record, PK_NONE if none */
    const pk_cg_call_rec *calls; /* the call records it was built from ... */
    uint64_t n_calls;            /* ... and how many */
    int borrowed;                /* the arrays are the call graph's kept graph: not freed */
} cg_graph;

/* The graph of the call records of one part (a part index) or of all
 * (PK_NONE), over functions [0, nf). Linear in functions and records;
 * no recursion, whatever the depth of the calls. The graph of all parts
 * is the kept one, borrowed, when the call graph has it (cg_graph_keep). */
pk_status cg_graph_build(const pk_cg *cg, uint32_t nf, uint32_t part, cg_graph *g);
/* Frees what g owns (nothing of a borrowed graph). */
void cg_graph_free(cg_graph *g);
/* g (of all parts, taken over) kept with the call graph while the profile
 * is opened, for every later build of all parts to borrow: `info` and
 * every view asked of a Callgrind profile built it again, 5 ms on cc1.
 * Read only from then on, so any thread may borrow it. */
pk_status cg_graph_keep(pk_cg *cg, cg_graph *g);
/* pk_callgraph_function_costs() of any call graph (one a profile has, or
 * one made of a calling-context tree): out holds nf functions' costs over
 * part `part` (PK_NONE: all). */
pk_status cg_function_costs(const pk_cg *cg, uint32_t nf, uint32_t part, size_t event,
                            pk_cg_function_cost *out);

/* Strongly connected components of a graph of n nodes whose arcs from v
 * are adj[start[v] .. start[v + 1]): comp[v] for every node, numbered as
 * they complete (every arc leads to a component of the same or a smaller
 * number), *n_comp of them. Iterative: no recursion at any depth. */
pk_status cg_scc(uint32_t n, const uint64_t *start, const uint32_t *adj, uint32_t *comp,
                 uint32_t *n_comp);

/* Whether call record c counts for the graph of `part` (PK_NONE: all). */
static inline int cg_graph_keeps(const pk_cg_call_rec *c, uint32_t nf, uint32_t part)
{
    return c->caller != c->callee && c->caller < nf && c->callee < nf &&
           (part == PK_NONE || c->part == part);
}

#endif
