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

/* What a parallel merge (par/merge.c) keeps of the state: where each
 * input's contexts, columns and locations went, and how many inputs feed
 * each merged location. malloc'ed; free with mg_keep_free. */
typedef struct mg_keep {
    size_t n_in;
    uint32_t **ctx, **column, **loc; /* per input */
    uint32_t *loc_members;           /* per merged location */
} mg_keep;
void mg_keep_free(mg_keep *k);
/* pk_profile_merge, keeping what *keep says (NULL: nothing). */
pk_status mg_merge(const pk_profile *const *profiles, size_t n, const pk_merge_options *opts,
                   pk_profile **out, mg_keep *keep);

/* One value on its way into a plane: context and column packed for sorting. */
typedef struct mg_val {
    uint64_t key; /* context << 32 | column */
    double v;
} mg_val;

/* A growing buffer of values, and room to sort them. */
typedef struct mg_sorter {
    mg_val *buf, *tmp;
    size_t n, cap, cap_tmp;
    uint32_t *count; /* n_ctx + 1 */
} mg_sorter;
void mg_sorter_free(mg_sorter *so);
/* Append the values of location l of p, through the maps (contexts and
 * columns of p -> merged ones). */
pk_status mg_gather(const pk_profile *p, uint32_t l, const uint32_t *ctx_map,
                    const uint32_t *col_map, mg_sorter *so);
/* so's values (gathered in input order) as the plane of merged location
 * l of m: sorted stably, equal keys added up, zeros dropped, times scale. */
pk_status mg_plane(pk_profile *m, uint32_t l, double scale, mg_sorter *so);
/* Trace t of input p under the merged context ids (owned by m). */
pk_status mg_trace_samples(pk_profile *m, const pk_profile *p, const uint32_t *ctx_map,
                           const pk_trace_rec *t, unsigned char **out);

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
