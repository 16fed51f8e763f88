/*
 * analysis/summary.h — answering from the statistics a file stores over
 * all its locations (HPCToolkit's summary profile) instead of adding up
 * every location's values (summary.c).
 */
#ifndef PK_ANALYSIS_SUMMARY_H
#define PK_ANALYSIS_SUMMARY_H

#include "model/model.h"
#include "profkit/analysis.h"

/* The one summary location whose statistics stand for the plain
 * locations (model.h, summary_exact), or PK_NONE. */
uint32_t pk_summary_location(const pk_profile *p);

/* The summary column whose value at every context is plain column
 * `column`'s values there summed over every plain location, or PK_NONE:
 * the Sum statistic of its metric and scope, for a sum-combined metric
 * (a lex_aware scope only where hpcprof's loop rule did not make its Sum
 * something else: summary.c). */
pk_index pk_summary_stand_in(const pk_profile *p, pk_index column);

/* pk_profile_totals()'s sums (totals.c: per column, at the root, at the
 * entry points) from the summary location: *done 1 when it holds every
 * plain column, else 0 and nothing is written. */
pk_status pk_summary_totals(const pk_profile *p, double *columns, double *root, double *entries,
                            int *done);

/* pk_context_stat_values() over every location (selected NULL) for a
 * statistic other than the sum, from the summary: *done 0 when the summary
 * does not hold it (the caller adds up the locations). */
pk_status pk_summary_stat_values(const pk_profile *p, pk_index metric, pk_scope_kind kind,
                                 pk_across stat, double *out, int *derived, int *done);

#endif /* PK_ANALYSIS_SUMMARY_H */
