/*
 * analysis/cg_cct.h — the reconstructed calling-context tree while it is
 * built: its nodes (cg_to_cct.c decides which exist) and the flow that
 * gives them values (cg_cct_values.c).
 */
#ifndef PK_ANALYSIS_CG_CCT_H
#define PK_ANALYSIS_CG_CCT_H

#include "cg_model.h"

enum { TN_ROOT, TN_ENTRY, TN_UNIT, TN_MEMBER, TN_REST };

/* A node: the root, an entry ("main thread", "application thread",
 * "<no caller>"), a unit (a function, or a cycle "<cycle N>") entered from
 * its parent through unit arc `ua` (PK_NONE when it is a part's root
 * unit), a member function of the cycle node that is its parent, or
 * (with a threshold) "<below threshold>", what its parent's callees below
 * the threshold cost. A node's parent always has a smaller index. */
typedef struct tnode {
    uint32_t parent, fn, unit, ua;
    uint8_t kind, entry;
} tnode;

/* Which part's root unit a node is: (node, part) pairs, by node. */
typedef struct troot {
    uint32_t node, part;
} troot;

typedef struct cgt {
    pk_profile *p;
    const pk_cg *cg;
    const cg_graph *g;
    uint32_t ne, prim; /* events; the one that shapes the tree */
    tnode *nodes;
    double *phi; /* per node: share of its unit, over all parts (the shape) */
    uint32_t n_nodes;
    size_t cap_nodes, cap_phi;
    troot *roots;
    uint32_t n_roots;
    size_t cap_roots;
    uint32_t entry[3]; /* main thread, application thread, <no caller>: node or PK_NONE */
    /* per function: the node with the largest share, and per unit */
    uint32_t *best_fn, *best_unit;
    /* shape weights: per unit arc its share of the unit it enters, per
     * function and unit its inclusive weight (every event's cost as a
     * fraction of its total, cg_to_cct.c; event `prim` alone with a
     * threshold) */
    double *ratio, *inc_fn, *inc_unit;
    uint64_t budget;
    /* with a threshold: the least weight a node is built for, per node
     * whether it has callees below that, and the "<below threshold>"
     * function; min_w == 0: the whole tree within the budget */
    double min_w;
    uint8_t *cut;
    size_t cap_cut;
    uint32_t rest_fn;
} cgt;

/* The model function naming unit u: its function, or its "<cycle N>". */
uint32_t cgt_unit_function(const cgt *t, uint32_t u);
/* The entry node of `kind` (0 main thread, 1 application thread, 2 "<no
 * caller>"), made when first asked for. */
pk_status cgt_entry(cgt *t, int kind, uint32_t *out);
/* Each part's root units as nodes under their entries (cg_roots.c). */
pk_status cgt_roots(cgt *t);
/* Add a node (its shape share `phi`); index in *out. */
pk_status cgt_node(cgt *t, uint32_t parent, uint8_t kind, uint32_t fn, uint32_t unit, uint32_t ua,
                   double phi, uint32_t *out);
/* Free the nodes and their per-node arrays; none is left. */
void cgt_drop_nodes(cgt *t);
/* Give the nodes their values: contexts, planes (cg_cct_values.c). */
pk_status cgt_values(cgt *t);

#endif
