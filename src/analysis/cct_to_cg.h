/*
 * analysis/cct_to_cg.h — the exact call graph of a calling-context tree
 * (cct_to_cg.c), with the choices a writer needs: which locations, and
 * whether they become one part each or one part holding their sum.
 */
#ifndef PK_ANALYSIS_CCT_TO_CG_H
#define PK_ANALYSIS_CCT_TO_CG_H

#include "model/callgraph.h"

typedef struct pk_cg_request {
    /* Flags by location (pk_location_count() of them, as
     * pk_location_select() fills them); NULL: every plain location. */
    const unsigned char *selected;
    /* 1: one part holding the sum over the selected locations (its
     * location is PK_NONE); 0: one part per selected location. A profile
     * whose values live only in summary locations always gets one part:
     * the summary's sum statistic. */
    int sum;
} pk_cg_request;

/* The call graph of p's calling-context tree for the locations `rq`
 * chooses (NULL: one part per plain location, as pk_cg_from_cct()). One
 * event per metric that pk_cg_metric_unfit() accepts, in metric order. */
pk_status pk_cg_from_cct_request(const pk_profile *p, const pk_cg_request *rq, pk_cg **out);

/* Why metric m cannot be a Callgrind event (a sentence, static storage),
 * or NULL when it can: its values must combine by summing, and come in
 * an inclusive or exclusive scope the model can derive the other from. A
 * metric with no values at all can (it becomes an event without costs). */
const char *pk_cg_metric_unfit(const pk_profile *p, pk_index m);

#endif
