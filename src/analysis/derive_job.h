/*
 * analysis/derive_job.h — the state pk_profile_derive()'s workers share
 * (derive.c derives the scopes, derive_sum.c folds the summary partials
 * in location order when several workers derived).
 */
#ifndef PK_ANALYSIS_DERIVE_JOB_H
#define PK_ANALYSIS_DERIVE_JOB_H

#include "derive_plan.h"
#include "util/parallel.h"

typedef struct out_buf {
    unsigned char *data;
    size_t len, cap;
    int failed;
} out_buf;

/* What derivation reads of a context, packed: the model's records
 * (72 bytes) spread a location's thousand contexts over more cache than
 * the rows they feed; these 16 bytes each stay in L2 beside them. */
typedef struct dj_ctx {
    uint32_t parent, rank, depth; /* rank: its place in id order (the job's by_id) */
    uint8_t lexical, loop;        /* relation lexical; kind loop */
} dj_ctx;

typedef struct worker {
    const dj_ctx *cx;   /* the job's, per context */
    double *rows;       /* touched contexts × n_slots */
    uint32_t *row_of;   /* context -> row, PK_NONE */
    uint64_t *touched;  /* contexts, in touch order; after emit, (id << 32) | context by id */
    uint64_t *sort_tmp; /* room for sorting `up` */
    uint64_t *seen;     /* touched contexts by rank: a bit each, ... */
    uint64_t *seen_any; /* ... and a bit for each non-zero word of `seen` */
    uint32_t n_touched;
    uint64_t *up;     /* reached contexts, (UINT32_MAX - depth) << 32 | context */
    uint32_t n_up;    /* (the point values' contexts and their ancestors) */
    uint8_t *reached; /* context -> queued in `up` */
    uint32_t *dms;    /* the metrics the location has point values of */
    uint32_t n_dms;
    uint8_t *dm_used; /* metric -> listed in `dms` */
    double *stats;    /* n_ctx × n_stat summary partials */
    out_buf out;
    out_buf contrib; /* ordered: each location's summary contributions */
    pk_status status;
} worker;

typedef struct placed { /* where a location's new plane is in its worker's buffer */
    size_t at;
    uint64_t nvals;
    uint32_t nidx;
    unsigned worker;
} placed;

typedef struct derive_job {
    const pk_profile *p;
    const dp_plan *plan;
    dj_ctx *cx;      /* per context */
    uint64_t *by_id; /* (id << 32) | context, sorted: the contexts by rank */
    int plain_only;  /* no summary partials (pk_derive_locations) */
    int ordered;     /* several workers: partials folded in location order after */
    worker w[PK_MAX_WORKERS];
    placed *where;  /* per location */
    placed *cwhere; /* ordered: each location's contributions */
    /* ordered, when every recomputed statistic is the Sum of one plain
     * column's values (hpcprof's default: Sum of each scope): folded from
     * the derived planes themselves, no contributions kept; the statistic
     * of each plain raw id, PK_NONE for none */
    uint32_t *stat_of_raw;
    /* with stat_of_raw: the statistics (lex_aware's) whose loop contexts
     * are folded from contributions all the same, NULL for none */
    uint8_t *loop_stats;
} derive_job;

/* Room for n more bytes at the end of o (NULL when out of memory). */
unsigned char *dj_grow(out_buf *o, size_t n);
/* hpcprof's accumulation: min/max treat 0 as "not set yet". */
void dj_combine(double *acc, uint8_t op, double x);
/* The value a statistic takes of a context's row; 0 when the row has
 * nothing for the statistic's metric (no partial then). Inline: it runs
 * for every statistic of every context each location reaches. */
static inline int dj_partial(const pk_profile *p, const dp_plan *plan, const dp_stat *st,
                             uint32_t ctx, const double *r, double *x)
{
    const double *m = r + dp_metric_slot(plan, st->dm, 0);
    if (m[SL_POINT] == 0.0 && m[SL_FUNCTION] == 0.0 && m[SL_EXECUTION] == 0.0) return 0;
    double v = r[p->ctx[ctx].kind == PK_CTX_LOOP ? st->at_loop : st->at];
    *x = st->formula == F_ONE ? 1.0 : st->formula == F_SQUARE ? v * v : v;
    return 1;
}

/* derive_sum.c: with several workers, the partials each location
 * contributes are kept (dj_emit_contrib), then folded per context in
 * location order (dj_fold_ordered), as one worker does: the summary does
 * not depend on how many workers derived. */
void dj_emit_contrib(worker *w, const pk_profile *p, const dp_plan *plan, const uint8_t *only,
                     placed *where);
pk_status dj_fold_ordered(derive_job *job, unsigned workers, const uint64_t *by_id);
/* The map for folding from the planes, or NULL when some statistic is
 * not such a Sum (contributions are kept then). *at_loops: the statistics
 * (lex_aware's Sums, when the tree has loops) whose values at loop
 * contexts no plane holds: those alone are kept as contributions. */
uint32_t *dj_twin_stats(const pk_profile *p, const dp_plan *plan, uint8_t **at_loops);

#endif
