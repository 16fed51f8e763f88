/*
 * model/callgraph.h — the call graph inside the model (profkit/callgraph.h
 * is its public face): plain arrays owned by the profile.
 *
 * Per-event costs of self records and call arcs are rows, stored as the
 * data is: dense only where it is dense. A file that declares 4,096
 * events but has a cost or two a line costs a value or two a record, not
 * 4,096. Three layouts (the reader picks the smallest):
 *   - fixed: `*_off` NULL, row i is n_events values at i * n_events;
 *   - dense: `*_ev` NULL, row i is [off[i], off[i + 1]), events 0.. on;
 *   - sparse: row i's values [off[i], off[i + 1]) are of events ev[...]
 *     (ascending).
 * Events a row does not hold are 0. Read them with pk_cg_self_row() and
 * pk_cg_call_row().
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
    /* The event's total as the file states it (pk_cg_state_totals()) and
     * what its cost lines add up to; `stated` 0 when no part states one. */
    int stated;
    double stated_total, lines_total;
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
    uint32_t *self_ev;  /* NULL or the event of each value (sparse rows) */
    uint64_t n_self;
    pk_cg_call_rec *calls;
    double *call_cost; /* rows of inclusive call costs */
    uint64_t *call_off;
    uint32_t *call_ev;
    uint64_t n_calls;
    pk_cg_jump_rec *jumps;
    uint64_t n_jumps;
    /* Functions [n_model_functions, n_functions) exist only in the call
     * graph: a CCT's root and entry contexts, which have cost but no
     * function (pk_cg_from_cct()). Their names are extra_names[]. */
    uint32_t n_model_functions, n_functions;
    const char **extra_names;
    /* Model functions [first_cycle_function, + n_cycle_functions) are the
     * cycles of the call graph, "<cycle N>" (named when the rest of the
     * model is made from the call graph). */
    uint32_t first_cycle_function, n_cycle_functions;
    /* Set by a reader that made only the call graph (Callgrind): the rest
     * of the model (metrics, locations, cycles and, if `pending_tree`, the
     * reconstructed calling-context tree down to `pending_threshold`) is
     * derived from it when the profile is opened (analysis/open.c). */
    int pending, pending_tree;
    double pending_threshold;
    /* The analysis layer's graph of all parts, kept from the open (read
     * only from then on) and freed by its own function: the model knows
     * nothing of its insides (analysis/cg_graph.h, cg_graph_keep()). */
    void *kept_graph;
    void (*kept_graph_free)(void *);
} pk_cg;

/* What part `part` states of its events' totals, as callgrind_annotate
 * reads it: its summary: line unless that is missing or all zeros, else
 * its totals: line likewise, else NULL (by event, n_events values). */
static inline const double *pk_cg_part_statement(const pk_cg *cg, const pk_cg_part_rec *part)
{
    const double *lines[2] = {part->summary, part->totals};
    for (int k = 0; k < 2; k++)
        for (uint32_t e = 0; lines[k] && e < cg->n_events; e++)
            if (lines[k][e] != 0.0) return lines[k];
    return NULL;
}

/* Per event, over the parts whose location `selected` flags (NULL: all):
 * what their cost lines add up to (lines[e]) and what the parts state
 * (stated[e]: each part's pk_cg_part_statement(), or its cost lines where
 * it states none, or states 0 for an event its lines hold), and whether
 * any part states it (has[e], may be NULL). Arrays of n_events. */
pk_status pk_cg_sum_statements(const pk_cg *cg, const unsigned char *selected, double *stated,
                               double *lines, unsigned char *has);
/* The events' stated_total, lines_total and stated, over all parts: a
 * reader calls it once the call graph is whole. */
pk_status pk_cg_state_totals(pk_cg *cg);

/* Name of call graph function f (model function name or an extra one). */
const char *pk_cg_function_name(const pk_profile *p, const pk_cg *cg, uint32_t f);

/* Release a call graph built outside a profile (cct_callgraph.c). */
void pk_cg_free(pk_cg *cg);

/* --- the exact call graph of a calling-context tree (cct_callgraph.c) --- */

typedef struct pk_cg_request {
    /* Flags by location (pk_location_count() of them, as
     * pk_location_select() fills them); NULL: every plain location. */
    const unsigned char *selected;
    /* 1: one part holding the sum over the selected locations (its
     * location is PK_NONE); 0: one part per selected location. A profile
     * whose values live only in summary locations always gets one part:
     * the summary's sum statistic. */
    int sum;
} pk_cg_request;

/* The call graph of p's calling-context tree for the locations `rq`
 * chooses (NULL: one part per plain location). One event per metric that
 * pk_cg_metric_unfit() accepts, in metric order. */
pk_status pk_cg_from_cct_request(const pk_profile *p, const pk_cg_request *rq, pk_cg **out);
/* The same with one part per plain location (pk_profile_callgraph()). */
pk_status pk_cg_from_cct(const pk_profile *p, pk_cg **out);

/* Why metric m cannot be a Callgrind event (a sentence, static storage),
 * or NULL when it can: its values must combine by summing, and come in
 * an inclusive or exclusive scope. A metric with no values at all can (it
 * becomes an event without costs). */
const char *pk_cg_metric_unfit(const pk_profile *p, pk_index m);

/* Records of each part: a counting sort of n records (self or call) of
 * `stride` bytes whose first field is their part: perm[start[k] ..
 * start[k + 1]) are part k's, in file order. Both arrays the caller's. */
pk_status pk_cg_by_part(const void *base, size_t stride, uint64_t n, uint32_t n_parts,
                        uint64_t **start, uint32_t **perm);

/* A row of costs: n values, of events 0..n-1 (ev NULL) or ev[0..n). */
typedef struct pk_cg_row {
    const double *v;
    const uint32_t *ev;
    uint32_t n;
} pk_cg_row;

static inline pk_cg_row pk_cg_row_at(const double *v, const uint64_t *off, const uint32_t *ev,
                                     uint32_t n_events, uint64_t i)
{
    if (!off) return (pk_cg_row){v + i * n_events, NULL, n_events};
    return (pk_cg_row){v + off[i], ev ? ev + off[i] : NULL, (uint32_t)(off[i + 1] - off[i])};
}

/* Self costs of record i, inclusive costs of call arc i. */
static inline pk_cg_row pk_cg_self_row(const pk_cg *cg, uint64_t i)
{
    return pk_cg_row_at(cg->self_cost, cg->self_off, cg->self_ev, cg->n_events, i);
}
static inline pk_cg_row pk_cg_call_row(const pk_cg *cg, uint64_t i)
{
    return pk_cg_row_at(cg->call_cost, cg->call_off, cg->call_ev, cg->n_events, i);
}

/* The event of a row's j-th value. */
static inline uint32_t pk_cg_row_event(pk_cg_row r, uint32_t j)
{
    return r.ev ? r.ev[j] : j;
}

/* The row's value of event e (0 if it holds none). */
static inline double pk_cg_row_value(pk_cg_row r, uint32_t e)
{
    if (!r.ev) return e < r.n ? r.v[e] : 0.0;
    uint32_t lo = 0, hi = r.n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r.ev[mid] < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r.n && r.ev[lo] == e ? r.v[lo] : 0.0;
}

/* The row as values of events 0..len-1 (the result; later events 0): the
 * values themselves, or for a sparse row a copy in `scratch`, which holds
 * n_events doubles. */
static inline uint32_t pk_cg_row_dense(pk_cg_row r, double *scratch, const double **values)
{
    if (!r.ev) {
        *values = r.v;
        return r.n;
    }
    uint32_t len = r.n ? r.ev[r.n - 1] + 1 : 0;
    for (uint32_t e = 0, j = 0; e < len; e++)
        scratch[e] = j < r.n && r.ev[j] == e ? r.v[j++] : 0.0;
    *values = scratch;
    return len;
}

/* Dense views of self record i / call arc i (see pk_cg_row_dense()). */
static inline uint32_t pk_cg_self_costs(const pk_cg *cg, uint64_t i, double *scratch,
                                        const double **values)
{
    return pk_cg_row_dense(pk_cg_self_row(cg, i), scratch, values);
}
static inline uint32_t pk_cg_call_costs(const pk_cg *cg, uint64_t i, double *scratch,
                                        const double **values)
{
    return pk_cg_row_dense(pk_cg_call_row(cg, i), scratch, values);
}

/* One event's cost of self record i / call arc i. */
static inline double pk_cg_self_value(const pk_cg *cg, uint64_t i, uint32_t e)
{
    return pk_cg_row_value(pk_cg_self_row(cg, i), e);
}
static inline double pk_cg_call_value(const pk_cg *cg, uint64_t i, uint32_t e)
{
    return pk_cg_row_value(pk_cg_call_row(cg, i), e);
}

#endif
