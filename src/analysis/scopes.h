/*
 * analysis/scopes.h — deriving one scope of a metric from another
 * (scopes.c), open to tests that check the derivation against columns a
 * profile does store.
 */
#ifndef PK_ANALYSIS_SCOPES_H
#define PK_ANALYSIS_SCOPES_H

#include "model/model.h"

/* Per-context values of `metric` in `kind` (inclusive or exclusive),
 * derived from column `from` (the metric's plain column in the other
 * scope), whether or not the profile also stores `kind`. `out` holds
 * n_ctx doubles. */
pk_status pk_derive_scope(const pk_profile *p, pk_index metric, pk_scope_kind kind, pk_index from,
                          double *out);

#endif /* PK_ANALYSIS_SCOPES_H */
