/*
 * analysis/cg_model.h — between call graphs and the rest of the model:
 * giving a call graph profile (Callgrind) its metrics, locations, cycles
 * and reconstructed calling-context tree (cg_setup.c, cg_to_cct.c). The
 * exact call graph of a calling-context tree is the model's
 * (model/callgraph.h, model/cct_callgraph.c).
 */
#ifndef PK_ANALYSIS_CG_MODEL_H
#define PK_ANALYSIS_CG_MODEL_H

#include "cg_graph.h"
#include "model/callgraph.h"

/* Column raw id of event metric m: its one stored scope, exclusive (the
 * reconstructed tree has function contexts only, so exclusive values are
 * the point values; inclusive values are derived when a view asks, never
 * stored: along a deep tree they would be dense). */
#define PK_CG_RAW_EXCLUSIVE(m) (m)

/* Give a profile whose call graph is attached (p->cg) the rest of the
 * model: one metric per stored event, one location per part, a function
 * "<cycle N>" per cycle of the call graph and, if `tree`, the
 * reconstructed calling-context tree with its values. */
pk_status pk_cg_complete_model(pk_profile *p, int tree, double threshold);

/* The event that shapes the tree and is checked for consistency: the
 * one of metric 0. */
uint32_t pk_cg_shaping_event(const pk_cg *cg);

/* Diagnostics on where the arcs and the costs they lead to disagree, for
 * event `ev` (cg_roots.c). */
pk_status cg_flow_report(pk_profile *p, const cg_graph *g, uint32_t ev);

/* The reconstructed tree (cg_to_cct.c), on the graph of all parts: the
 * whole of it within a budget, or down to `threshold` (a fraction of the
 * total, pk_open_options.tree_threshold) with "<below threshold>" for the
 * rest, that function being model function `rest_fn`. */
pk_status pk_cg_build_cct(pk_profile *p, const cg_graph *g, double threshold, uint32_t rest_fn);

#endif
