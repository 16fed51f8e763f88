/*
 * analysis/cg_model.h — giving a call graph profile the rest of the model:
 * metrics and locations (cg_setup.c), the reconstructed calling-context
 * tree (cg_to_cct.c) and its derived scopes.
 */
#ifndef PK_ANALYSIS_CG_MODEL_H
#define PK_ANALYSIS_CG_MODEL_H

#include "model/callgraph.h"

/* Column raw ids of event metric m (space 0: plain, space 1: summary). */
#define PK_CG_RAW_POINT(m)     (3u * (m))
#define PK_CG_RAW_EXCLUSIVE(m) (3u * (m) + 1u)
#define PK_CG_RAW_INCLUSIVE(m) (3u * (m) + 2u)

/* One metric per stored event (point, exclusive and inclusive columns, Sum
 * statistics of the last two), one location per part plus a summary. */
pk_status pk_cg_setup_model(pk_profile *p);
/* Fill the exclusive/inclusive columns and the summary from point values. */
pk_status pk_cg_derive(pk_profile *p);

#endif
