/*
 * analysis/merge.h — state shared by the two halves of pk_profile_merge():
 * merge.c unites the dimensions and the calling-context trees,
 * merge_values.c lays out the locations, their values and traces.
 */
#ifndef PK_ANALYSIS_MERGE_H
#define PK_ANALYSIS_MERGE_H

#include "model/model.h"
#include "profkit/analysis.h"
#include "util/kmap.h"

/* Where each index of one input went in the merged profile. */
typedef struct mg_input {
    const pk_profile *p;
    uint32_t *module, *file, *function, *metric, *scope, *column, *kind;
    uint32_t *node; /* context index -> merged tree node */
    uint32_t *ctx;  /* context index -> merged context index (after layout) */
    uint32_t *loc;  /* location index -> merged location, PK_NONE if dropped */
} mg_input;

/* A context of the merged tree before it is laid out breadth-first. */
typedef struct mg_node {
    pk_ctx_rec rec; /* parent is a node index here */
    uint32_t first_kid, last_kid, next_sib;
    uint32_t input, index; /* the first context that mapped here */
} mg_node;

typedef struct mg_state {
    pk_profile *m;
    mg_input *in;
    size_t n_in;
    int mean;
    pk_kmap map; /* reused by each dimension in turn */
    mg_node *nodes;
    size_t n_nodes, cap_nodes;
    uint32_t *ctx_of_node;          /* node -> context index in m */
    uint32_t *met_owner, *fn_owner; /* input that created each merged entity */
    uint32_t *loc_members;          /* per merged location: how many inputs fed it */
} mg_state;

/* merge_values.c */
pk_status mg_locations(mg_state *s);
pk_status mg_values(mg_state *s);
pk_status mg_traces(mg_state *s);

/* Merged context index of context `ctx` of input `i` (PK_NONE if none). */
static inline uint32_t mg_ctx(const mg_state *s, size_t i, uint32_t ctx)
{
    return ctx < s->in[i].p->n_ctx ? s->in[i].ctx[ctx] : PK_NONE;
}

#endif
