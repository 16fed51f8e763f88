/*
 * analysis/totals.h — per-context combination of stored values, shared by
 * the public totals (totals.c) and the scope derivation (scopes.c).
 */
#ifndef PK_ANALYSIS_TOTALS_H
#define PK_ANALYSIS_TOTALS_H

#include "model/model.h"

/* 1 if some location holds plain (non-summary) values. */
int pk_has_plain_locations(const pk_profile *p);

/* Fold x into *acc with `how`; *seen says whether *acc holds a value yet
 * (min and max start from the first value, not from 0). */
void pk_combine_into(pk_combine how, double *acc, unsigned char *seen, double x);

/* Fold location l's values of `column` into out/seen with `how`. */
void pk_combine_location(const pk_profile *p, uint32_t l, pk_index column, pk_combine how,
                         double *out, unsigned char *seen);

/* pk_context_totals() without the argument checks, and with `seen`
 * (n_ctx bytes, may be NULL) telling which contexts had any value. */
pk_status pk_context_combined(const pk_profile *p, pk_index column, double *out,
                              unsigned char *seen);

#endif /* PK_ANALYSIS_TOTALS_H */
