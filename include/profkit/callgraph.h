/*
 * profkit/callgraph.h — the call graph: Callgrind's native shape.
 *
 * A call graph records, per location (Callgrind part or thread):
 *   - self (exclusive) cost per function and position (source line,
 *     instruction address, basic block: whatever the file has);
 *   - call arcs: caller function and call-site position -> callee, with
 *     the number of calls and the inclusive cost of those calls;
 *   - jumps (Callgrind --collect-jumps): source -> target, with counts.
 * Costs are in "events" (Ir, Dr, cache misses, Time...): one value per event.
 *
 * Profiles read from Callgrind/Cachegrind/Xdebug files have a call graph and
 * a calling-context tree *reconstructed* from it (approximate: a function's
 * cost is split over its callers in proportion to the arcs' inclusive
 * costs; see docs/callgrind.md). pk_profile_info.reconstructed says so, and
 * every output that shows that tree must say so too. Profiles read from a
 * CCT format get an exact call graph on request (pk_profile_callgraph()).
 */
#ifndef PROFKIT_CALLGRAPH_H
#define PROFKIT_CALLGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which subpositions a position has (Callgrind "positions:"). */
enum { PK_POS_INSTR = 1u << 0, PK_POS_BB = 1u << 1, PK_POS_LINE = 1u << 2 };

typedef struct pk_cg_summary {
    size_t n_events, n_parts;
    uint64_t n_costs, n_calls, n_jumps;
    uint32_t positions; /* PK_POS_* present anywhere */
    int by_function;    /* 1: self costs kept per function only (PK_OPEN_BY_FUNCTION) */
} pk_cg_summary;

typedef struct pk_cg_event {
    const char *name;      /* short name, e.g. "Ir" */
    const char *long_name; /* "Instruction Fetch", or NULL */
    const char *formula;   /* inherited event ("Ir + 2*Dr"): no stored data; else NULL */
    pk_index metric;       /* the model metric holding it, PK_NONE for inherited events */
} pk_cg_event;

/* One part (Callgrind dump) or thread file: one model location. */
typedef struct pk_cg_part {
    pk_index location;
    uint32_t number;  /* "part:" (1 if absent) */
    uint32_t thread;  /* "thread:" (1 if absent) */
    uint64_t pid;     /* "pid:" (0 if absent) */
    const char *file; /* the file it was read from */
    const char *cmd;  /* "cmd:", or NULL */
    const char *creator;
    uint32_t positions; /* PK_POS_* */
    size_t n_descs;
    const char *const *descs; /* "desc:" lines, "Type: value" */
    const double *summary;    /* "summary:" per event, or NULL */
    const double *totals;     /* "totals:" per event, or NULL */
} pk_cg_part;

typedef struct pk_cg_position {
    pk_index file; /* source file (after fi=/fe=), PK_NONE if unknown */
    uint32_t line;
    uint64_t instr, bb;
} pk_cg_position;

/* Costs come as a row: values[0 .. n_values), of events 0 .. n_values - 1
 * when `events` is NULL, else of events events[0 .. n_values) (ascending);
 * every other event's cost is 0. Rows hold what the file wrote (a file
 * declaring 4,096 events but writing a cost or two a line has rows of one
 * or two), so a reader never holds n_events values for nothing.
 * pk_cg_value() reads one event's cost. */
typedef struct pk_cg_cost {
    pk_index location, function;
    pk_cg_position pos;
    const double *values; /* self costs, n_values of them */
    size_t n_values;
    const uint32_t *events; /* their events, or NULL (0, 1, 2...) */
} pk_cg_cost;

typedef struct pk_cg_call {
    pk_index location, caller, callee;
    pk_cg_position site;     /* where the calls were made */
    pk_cg_position target;   /* first position of the callee, as the file gave it */
    double count;            /* number of calls; 0 = started before this part */
    const double *inclusive; /* inclusive costs of the calls, n_values of them */
    size_t n_values;
    const uint32_t *events; /* their events, or NULL (0, 1, 2...), as pk_cg_cost */
} pk_cg_call;

/* The cost of `event` in a row (values, n_values, events) as above. */
static inline double pk_cg_value(const double *values, size_t n_values, const uint32_t *events,
                                 size_t event)
{
    if (!events) return event < n_values ? values[event] : 0.0;
    for (size_t i = 0; i < n_values && events[i] <= event; i++)
        if (events[i] == event) return values[i];
    return 0.0;
}

typedef struct pk_cg_jump {
    pk_index location, function, target_function;
    pk_cg_position from, to;
    int conditional; /* jcnd= (executed/followed) vs jump= */
    double followed; /* times the jump was taken */
    double executed; /* times a conditional jump was executed */
} pk_cg_jump;

/* PK_ERR_NOT_FOUND when the profile has no call graph. */
PK_API pk_status pk_callgraph_summary(const pk_profile *profile, pk_cg_summary *out);
PK_API pk_status pk_callgraph_event(const pk_profile *profile, size_t i, pk_cg_event *out);
/* The index of the call graph's event that holds `metric` into *out.
 * PK_ERR_NOT_FOUND when the profile has no call graph or no event of the
 * metric. */
PK_API pk_status pk_callgraph_metric_event(const pk_profile *profile, pk_index metric, size_t *out);
PK_API pk_status pk_callgraph_part(const pk_profile *profile, size_t i, pk_cg_part *out);
PK_API pk_status pk_callgraph_cost(const pk_profile *profile, uint64_t i, pk_cg_cost *out);
PK_API pk_status pk_callgraph_call(const pk_profile *profile, uint64_t i, pk_cg_call *out);
PK_API pk_status pk_callgraph_jump(const pk_profile *profile, uint64_t i, pk_cg_jump *out);

/* The program total of `metric` as the file states it, and what its
 * cost lines add up to. Callgrind files state totals in their parts'
 * summary: lines (else totals: lines); callgrind_annotate reports them as
 * PROGRAM TOTALS and takes percentages against them, and so does
 * pk_metric_program_total(). They can differ from the cost lines:
 * valgrind counts cost it charges to no line (a thread's last
 * instructions), Xdebug states the peak of Memory. Summed over the parts
 * (a part that states nothing counts its cost lines). Either out pointer
 * may be NULL. PK_ERR_NOT_FOUND (no error text) when the profile states
 * no total for the metric. */
PK_API pk_status pk_metric_stated_total(const pk_profile *profile, pk_index metric, double *stated,
                                        double *cost_lines);

/* Give a profile read from a CCT format its exact call graph (self cost of
 * every line/instruction context, one arc per call-site context and callee,
 * inclusive costs summed over the tree as Callgrind sums them, call counts
 * unknown: written as 1 per context). A no-op when it has one. Not
 * thread-safe: call it before sharing the profile between threads. */
PK_API pk_status pk_profile_callgraph(pk_profile *profile);

/* ------------------------------------------------------------------ */
/* Function costs that are correct under recursion                    */
/* ------------------------------------------------------------------ */

typedef struct pk_cg_function_cost {
    double self;      /* exclusive */
    double inclusive; /* self + calls leaving the function (and its cycle) */
    double calls;     /* inclusive cost of the calls into it from other units */
    uint32_t cycle;   /* N of "<cycle N>" it belongs to, 0 if none */
    double called;    /* how many times other functions called it (call counts) */
} pk_cg_function_cost;

typedef struct pk_cg_cycle {
    double self;      /* sum of its members' self costs */
    double inclusive; /* self + calls leaving the cycle */
    uint32_t n_members;
    double calls;  /* inclusive cost of the calls into the cycle from outside it */
    double called; /* how many times functions outside the cycle called into it */
} pk_cg_cycle;

/* Self and inclusive cost of every function for one event, at one
 * location or summed over all (location = PK_NONE). Mutual recursion is
 * collapsed into strongly connected components, reported as cycles as
 * KCachegrind does: a member's inclusive cost leaves out calls to other
 * members of its cycle, the cycle's own inclusive cost counts each call
 * chain once; direct recursion (an arc from a function to itself) is
 * contained in the outer call and never added. So no inclusive cost
 * exceeds the total of consistent data. `out` holds pk_function_count()
 * entries; `cycles` (may be NULL) up to pk_function_count() entries, cycle
 * N at cycles[N-1]; *n_cycles (may be NULL) receives how many. A Callgrind
 * profile lists its cycles as functions named "<cycle N>" (they name the
 * cycle's contexts in the reconstructed tree); over all locations their
 * entries hold the cycle's inclusive cost and calls, as KCachegrind lists
 * cycles. Cycles are found over the arcs of all locations, or of the one
 * location asked for (then numbered on their own). */
PK_API pk_status pk_callgraph_function_costs(const pk_profile *profile, pk_index location,
                                             size_t event, pk_cg_function_cost *out,
                                             pk_cg_cycle *cycles, uint32_t *n_cycles);

/* A call graph at a glance (what `profkit info` shows of it): how many
 * cycles, the event's self cost over all functions, and the PK_CG_TOP
 * functions of highest self and highest inclusive cost (recursion counted
 * once, as pk_callgraph_function_costs() counts it), largest first, ties
 * by function index. Over all locations. */
#define PK_CG_TOP 5

typedef struct pk_cg_ranked {
    pk_index function;
    double value;   /* its self or inclusive cost */
    uint32_t cycle; /* N of "<cycle N>" it belongs to, 0 if none */
} pk_cg_ranked;

typedef struct pk_cg_overview {
    uint32_t n_cycles;
    double self_total; /* the event's self cost summed over all functions */
    size_t n_by_self, n_by_inclusive;
    pk_cg_ranked by_self[PK_CG_TOP], by_inclusive[PK_CG_TOP];
} pk_cg_overview;

PK_API pk_status pk_callgraph_overview(const pk_profile *profile, size_t event,
                                       pk_cg_overview *out);

/* ------------------------------------------------------------------ */
/* Views answered exactly from the call graph                         */
/* ------------------------------------------------------------------ */

/* The functions named `pattern` exactly, or else (none is) every
 * function whose name matches it as a POSIX extended regular expression,
 * in index order. *out is malloc'ed (pk_functions_free()); PK_ERR_NOT_FOUND
 * when none does, PK_ERR_INVALID_ARG for a bad expression. */
PK_API pk_status pk_functions_matching(const pk_profile *profile, const char *pattern,
                                       pk_index **out, size_t *n);
PK_API void pk_functions_free(pk_index *list);

/* One line of a caller or callee list (KCachegrind's): the calls between
 * the function asked about and one other function, summed over call
 * sites and locations. */
typedef struct pk_cg_arc_row {
    pk_index function; /* the caller (callers list) or the callee (callees list) */
    double count;      /* number of calls */
    double inclusive;  /* inclusive cost of those calls, for the event asked for */
} pk_cg_arc_row;

/* The callers (`callers` = 1) or callees (0) of `function`, at one
 * location or over all (PK_NONE), with the inclusive cost of `event`;
 * sorted by inclusive cost, largest first. A call of the function to
 * itself is listed like any other (direct recursion). For a "<cycle N>"
 * function: the calls into the cycle from outside it (callers) or out of
 * it (callees), cycles found over all locations. Free *rows with
 * pk_callgraph_arcs_free(). */
PK_API pk_status pk_callgraph_arcs(const pk_profile *profile, pk_index function, int callers,
                                   pk_index location, size_t event, pk_cg_arc_row **rows,
                                   size_t *n_rows);
PK_API void pk_callgraph_arcs_free(pk_cg_arc_row *rows);

#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_CALLGRAPH_H */
