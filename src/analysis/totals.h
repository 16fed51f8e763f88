/*
 * analysis/totals.h — per-context combination of stored values, shared by
 * the public totals (totals.c) and the scope derivation (scopes.c).
 */
#ifndef PK_ANALYSIS_TOTALS_H
#define PK_ANALYSIS_TOTALS_H

#include <math.h>

#include "model/model.h"

/* Neumaier's compensated sum (see totals.c). */
typedef struct ksum {
    double sum, comp;
} ksum;

static inline void ksum_add(ksum *k, double x)
{
    double t = k->sum + x;
    if (fabs(k->sum) >= fabs(x))
        k->comp += (k->sum - t) + x;
    else
        k->comp += (x - t) + k->sum;
    k->sum = t;
}

static inline double ksum_value(const ksum *k)
{
    return k->sum + k->comp;
}

/* The largest id of the root and its children (entry points): values at
 * the root and entry points have ids up to it. */
uint64_t pk_largest_top_id(const pk_profile *p);

/* pk_has_plain_locations(): model/model.h */

/* Fold x into *acc with `how`; *seen says whether *acc holds a value yet
 * (min and max start from the first value, not from 0). */
void pk_combine_into(pk_combine how, double *acc, unsigned char *seen, double x);

/* Fold location l's values of `column` into out/seen with `how` (an
 * error when its plane fails a deferred validation). */
pk_status pk_combine_location(const pk_profile *p, uint32_t l, pk_index column, pk_combine how,
                              double *out, unsigned char *seen);

/* pk_context_totals() without the argument checks, and with `seen`
 * (n_ctx bytes, may be NULL) telling which contexts had any value. */
pk_status pk_context_combined(const pk_profile *p, pk_index column, double *out,
                              unsigned char *seen);

/* --- the same questions on a row store (totals_rows.c) --- */
/* Per plain column: every value summed, the values at the root and at
 * entry points summed (root and entries may be NULL). */
pk_status pk_rows_totals(const pk_profile *p, double *columns, double *root, double *entries);
/* pk_context_combined() of a plain column. */
pk_status pk_rows_context_combined(const pk_profile *p, pk_index column, pk_combine how,
                                   double *out, unsigned char *seen);
/* Per location: the sum of column's values at the contexts `pick` marks. */
pk_status pk_rows_location_sums(const pk_profile *p, pk_index column, const unsigned char *pick,
                                double *out);
/* A column's point values (each location's inclusive value minus its
 * children's, clamped at 0: unsigned counts), combined over locations. */
pk_status pk_rows_clamped_points(const pk_profile *p, pk_index column, double *out);
/* How many of column's values at the contexts `pick` marks are non-zero. */
pk_status pk_rows_count_values(const pk_profile *p, pk_index column, const unsigned char *pick,
                               uint64_t *n);

#endif /* PK_ANALYSIS_TOTALS_H */
