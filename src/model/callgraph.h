/*
 * model/callgraph.h — the call graph inside the model (profkit/callgraph.h
 * is its public face): plain arrays owned by the profile.
 */
#ifndef PK_MODEL_CALLGRAPH_H
#define PK_MODEL_CALLGRAPH_H

#include "model.h"
#include "profkit/callgraph.h"

typedef struct pk_cg_event_rec {
    const char *name, *long_name, *formula;
    uint32_t metric;
    /* What a file profkit wrote says of the event's metric (desc: "Name of
     * X", "Unit of X"): its name where "events:" could not spell it, its
     * unit. NULL when not said. */
    const char *metric_name, *unit;
} pk_cg_event_rec;

typedef struct pk_cg_part_rec {
    uint32_t location, number, thread, positions;
    uint64_t pid;
    const char *file, *cmd, *creator;
    const char **descs;
    uint32_t n_descs;
    double *summary, *totals; /* n_events each, or NULL */
    uint64_t summary_line, totals_line;
} pk_cg_part_rec;

typedef struct pk_cg_self_rec {
    uint32_t part, fn, file, line;
    uint64_t instr, bb;
} pk_cg_self_rec;

typedef struct pk_cg_call_rec {
    uint32_t part, caller, callee, file, line, to_file, to_line, pad;
    uint64_t instr, bb, to_instr, to_bb;
    double count;
} pk_cg_call_rec;

typedef struct pk_cg_jump_rec {
    uint32_t part, fn, file, line, to_fn, to_file, to_line, conditional;
    uint64_t instr, bb, to_instr, to_bb;
    double followed, executed;
} pk_cg_jump_rec;

typedef struct pk_cg {
    pk_cg_event_rec *events;
    uint32_t n_events, positions;
    pk_cg_part_rec *parts;
    uint32_t n_parts;
    int by_function;
    /* grouped by (part, fn, file) in first-seen order; positions ascending in a group */
    pk_cg_self_rec *self;
    double *self_cost; /* n_self x n_events */
    uint64_t n_self;
    pk_cg_call_rec *calls;
    double *call_cost; /* n_calls x n_events */
    uint64_t n_calls;
    pk_cg_jump_rec *jumps;
    uint64_t n_jumps;
    /* Functions [n_model_functions, n_functions) exist only in the call
     * graph: a CCT's root and entry contexts, which have cost but no
     * function (pk_cg_from_cct()). Their names are extra_names[]. */
    uint32_t n_model_functions, n_functions;
    const char **extra_names;
} pk_cg;

/* Name of call graph function f (model function name or an extra one). */
const char *pk_cg_function_name(const pk_profile *p, const pk_cg *cg, uint32_t f);

/* Release a call graph built outside a profile (pk_cg_from_cct()). */
void pk_cg_free(pk_cg *cg);

/* The exact call graph of a CCT profile (analysis/cct_to_cg.c). */
pk_status pk_cg_from_cct(const pk_profile *p, pk_cg **out);

/* Build the reconstructed calling-context tree and its values from the
 * profile's call graph (analysis/cg_to_cct.c). The profile has metrics
 * (one per event, with point/exclusive/inclusive columns) and locations;
 * contexts and planes are created here. */
pk_status pk_cg_build_cct(pk_profile *p);

#endif
