/*
 * analysis/derive_plan.h — what pk_profile_derive() recomputes: the roles
 * of the columns (shared by derive.c and derive_plan.c).
 *
 * A metric is "derivable" when it has a plain point column: its function,
 * lex_aware and execution columns, and the summary statistics over point,
 * function, lex_aware and execution with a formula hpcprof uses ($$, 1,
 * ($$^2)) and combine sum/min/max, are recomputed. Everything else is
 * kept as stored.
 */
#ifndef PK_ANALYSIS_DERIVE_PLAN_H
#define PK_ANALYSIS_DERIVE_PLAN_H

#include "model/model.h"

/* Internal accumulators per derivable metric, per context. */
enum { SL_POINT, SL_FUNCTION, SL_NOLOOPS, SL_EXECUTION, SL_PER_METRIC };

enum dp_role { ROLE_KEEP, ROLE_POINT, ROLE_FUNCTION, ROLE_LEX_AWARE, ROLE_EXECUTION };
enum dp_formula { F_VALUE, F_ONE, F_SQUARE };

typedef struct dp_plain { /* a plain column, in raw id order */
    uint32_t column, raw;
    uint8_t role;
    uint32_t slot; /* accumulator slot: kept value, or the metric's slot for this role */
} dp_plain;

typedef struct dp_stat { /* a summary column, in raw id order */
    uint32_t column, raw;
    int derived;
    uint8_t role, formula, combine;
    uint32_t dm;          /* derivable metric */
    uint32_t at, at_loop; /* derived: its row slot, at other contexts and at loops */
} dp_stat;

typedef struct dp_plan {
    uint32_t n_dm;            /* derivable metrics */
    uint32_t *dm_of_metric;   /* metric -> dm, PK_NONE */
    dp_plain *plain;          /* n_plain */
    uint32_t n_plain, n_keep; /* kept plain columns occupy slots [0, n_keep) */
    uint32_t n_slots;         /* n_keep + SL_PER_METRIC * n_dm */
    uint32_t *role_of_raw;    /* plain raw id -> index into plain, PK_NONE */
    uint32_t n_raw;
    dp_stat *stat; /* n_stat */
    uint32_t n_stat, n_derived_stats;
} dp_plan;

pk_status dp_plan_make(const pk_profile *p, dp_plan *plan);

/* pk_profile_derive for the plain locations [first, end) only, on the
 * calling thread: the summary locations are left as they are (a parallel
 * build reduces them across its members; profkit/parallel.h). */
pk_status pk_derive_locations(pk_profile *p, uint32_t first, uint32_t end);
void dp_plan_free(dp_plan *plan);

static inline uint32_t dp_metric_slot(const dp_plan *plan, uint32_t dm, unsigned which)
{
    return plan->n_keep + dm * SL_PER_METRIC + which;
}

#endif
