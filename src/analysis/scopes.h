/*
 * analysis/scopes.h — deriving one scope of a metric from another
 * (scopes.c), open to tests that check the derivation against columns a
 * profile does store.
 */
#ifndef PK_ANALYSIS_SCOPES_H
#define PK_ANALYSIS_SCOPES_H

#include "model/model.h"

/* Where `metric`'s values in `kind` (inclusive or exclusive) come from:
 * its own column (*derive 0), or the other scope's to derive from
 * (*derive 1). PK_ERR_NOT_FOUND with neither scope; PK_ERR_UNSUPPORTED
 * for the exclusive values of a min/max metric stored inclusive. */
pk_status pk_scope_source(const pk_profile *p, pk_index metric, pk_scope_kind kind, pk_index *col,
                          int *derive);

/* Per-context values of `metric` in `kind` (inclusive or exclusive),
 * derived from column `from` (the metric's plain column in the other
 * scope), whether or not the profile also stores `kind`. `out` holds
 * n_ctx doubles. */
pk_status pk_derive_scope(const pk_profile *p, pk_index metric, pk_scope_kind kind, pk_index from,
                          double *out);

/* Both scopes of `metric` at once (incl and excl hold n_ctx doubles),
 * where that reads its column once: a metric stored exclusive only
 * (Callgrind, pprof, measurements, most Cube metrics), whose inclusive
 * values pk_scope_source() derives from the column the exclusive ones
 * are read from. That column is combined once and the inclusive values
 * folded from a copy, so each array holds exactly what
 * pk_context_scope_values() gives it. *done 0 (and nothing written)
 * when the metric is stored otherwise. */
pk_status pk_context_scope_pair(const pk_profile *p, pk_index metric, double *incl, double *excl,
                                int *done);

/* pk_lexical_child() and pk_deepest_first(): model/model.h */

/* In place, on values of one location or combined ones: exclusive values
 * (seen[c]: c has a value, needed by min/max) become inclusive ones... */
void pk_inclusive_in_place(const pk_profile *p, pk_combine how, double *out, unsigned char *seen,
                           const uint32_t *order);
/* ...and inclusive values of a sum-like metric become exclusive ones; with
 * clamp_points (one location of an unsigned metric) point values below 0
 * count as 0. */
void pk_exclusive_in_place(const pk_profile *p, int clamp_points, double *out,
                           const uint32_t *order);

#endif /* PK_ANALYSIS_SCOPES_H */
