/*
 * analysis/metric_default.c — the metric a view shows when the user names
 * none: the first time metric with a non-zero total, else the first
 * metric with a non-zero total, else the first. A GPU database lists
 * all-zero GPU metrics before CPU time; a view must not open on a column
 * of zeros. The CLI and the Python package both ask here, so they agree.
 */
#define _GNU_SOURCE /* strcasestr */
#include <string.h>

#include "profkit/analysis.h"
#include "util/error.h"

static int is_time(const pk_metric *m)
{
    return (m->name && strcasestr(m->name, "time")) || (m->unit && strcmp(m->unit, "sec") == 0);
}

static int has_total(const pk_profile *p, pk_index m)
{
    double total = 0;
    return pk_metric_program_total(p, m, &total) == PK_OK && total != 0;
}

pk_status pk_metric_default(const pk_profile *p, pk_index *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_metric_default: NULL argument");
    size_t n = pk_metric_count(p);
    if (n == 0) return pk_fail(PK_ERR_NOT_FOUND, "the profile has no metrics");
    for (int pass = 0; pass < 2; pass++)
        for (pk_index m = 0; m < n; m++) {
            pk_metric met;
            if (pk_metric_get(p, m, &met)) continue;
            if ((pass == 1 || is_time(&met)) && has_total(p, m)) return *out = m, PK_OK;
        }
    *out = 0;
    return PK_OK;
}
