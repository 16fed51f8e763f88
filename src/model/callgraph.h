/*
 * model/callgraph.h — the call graph inside the model (profkit/callgraph.h
 * is its public face): plain arrays owned by the profile.
 *
 * Per-event costs of self records and call arcs are rows of doubles. A row
 * holds events [0, len) and every later event is 0: a file that declares
 * 4,096 events but writes two costs a line costs two values a record, not
 * 4,096 (dense storage only where the data is dense). Rows are either all
 * n_events long (`*_off` NULL: row i at i * n_events) or variable (row i
 * at [off[i], off[i + 1])). Read them with pk_cg_self_costs() and
 * pk_cg_call_costs().
 */
#ifndef PK_MODEL_CALLGRAPH_H
#define PK_MODEL_CALLGRAPH_H

#include "model.h"
#include "profkit/callgraph.h"

typedef struct pk_cg_event_rec {
    const char *name, *long_name, *formula;
    uint32_t metric;
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
    double *self_cost;  /* rows of self costs (see the top) */
    uint64_t *self_off; /* NULL (rows n_events long) or n_self + 1 row starts */
    uint64_t n_self;
    pk_cg_call_rec *calls;
    double *call_cost; /* rows of inclusive call costs */
    uint64_t *call_off;
    uint64_t n_calls;
    pk_cg_jump_rec *jumps;
    uint64_t n_jumps;
    /* Functions [n_model_functions, n_functions) exist only in the call
     * graph: a CCT's root and entry contexts, which have cost but no
     * function (pk_cg_from_cct()). Their names are extra_names[]. */
    uint32_t n_model_functions, n_functions;
    const char **extra_names;
    /* Model functions [first_cycle_function, + n_cycle_functions) are the
     * cycles of the call graph, "<cycle N>" (analysis/cg_setup.c). */
    uint32_t first_cycle_function, n_cycle_functions;
} pk_cg;

/* Name of call graph function f (model function name or an extra one). */
const char *pk_cg_function_name(const pk_profile *p, const pk_cg *cg, uint32_t f);

/* Release a call graph built outside a profile (analysis/cct_to_cg.c). */
void pk_cg_free(pk_cg *cg);

/* The row of record i in (v, off): *values points at its first value, the
 * result is its length (events from there on are 0). */
static inline uint32_t pk_cg_row(const double *v, const uint64_t *off, uint32_t n_events,
                                 uint64_t i, const double **values)
{
    if (!off) {
        *values = v + i * n_events;
        return n_events;
    }
    *values = v + off[i];
    return (uint32_t)(off[i + 1] - off[i]);
}

/* Costs of self record i and call arc i (one value per event, see the top). */
static inline uint32_t pk_cg_self_costs(const pk_cg *cg, uint64_t i, const double **values)
{
    return pk_cg_row(cg->self_cost, cg->self_off, cg->n_events, i, values);
}
static inline uint32_t pk_cg_call_costs(const pk_cg *cg, uint64_t i, const double **values)
{
    return pk_cg_row(cg->call_cost, cg->call_off, cg->n_events, i, values);
}
/* One event's cost of self record i / call arc i. */
static inline double pk_cg_self_value(const pk_cg *cg, uint64_t i, uint32_t e)
{
    const double *v;
    return e < pk_cg_self_costs(cg, i, &v) ? v[e] : 0.0;
}
static inline double pk_cg_call_value(const pk_cg *cg, uint64_t i, uint32_t e)
{
    const double *v;
    return e < pk_cg_call_costs(cg, i, &v) ? v[e] : 0.0;
}

#endif
