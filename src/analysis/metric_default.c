/*
 * analysis/metric_default.c — the metric a view shows when the user names
 * none: the one the file itself names as its default (the reader marks
 * it with the attribute "profkit:default": pprof's default_sample_type),
 * if it has a non-zero total; else the first time metric with a non-zero
 * total, else the first metric with a non-zero total, else the first.
 * A GPU database lists
 * all-zero GPU metrics before CPU time; a view must not open on a column
 * of zeros. The CLI and the Python package both ask here, so they agree.
 * Here too the rule of which metric is a call count (Cube's visits):
 * views show it as calls, beside a cost, not as the cost.
 */
#define _GNU_SOURCE /* strcasestr */
#include <string.h>
#include <strings.h>

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

int pk_metric_is_call_count(const pk_metric *m)
{
    static const char *const counts[] = {"", "occ", "calls", "visits", "count", "#"};
    if (!m || !m->name || (strcasecmp(m->name, "visits") && strcasecmp(m->name, "calls"))) return 0;
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        if (!m->unit || strcasecmp(m->unit, counts[i]) == 0) return 1;
    return 0;
}

pk_status pk_metric_call_count(const pk_profile *p, pk_index *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_metric_call_count: NULL argument");
    for (pk_index m = 0; m < pk_metric_count(p); m++) {
        pk_metric met;
        if (!pk_metric_get(p, m, &met) && pk_metric_is_call_count(&met)) return *out = m, PK_OK;
    }
    return PK_ERR_NOT_FOUND; /* an answer, not a failure: no error text */
}

/* The metric the file names as its default, if any. */
static pk_index file_default(const pk_profile *p, size_t n)
{
    for (pk_index m = 0; m < n; m++)
        if (pk_attribute_find(p, PK_ENTITY_METRIC, m, "profkit:default")) return m;
    return PK_NONE;
}

pk_status pk_metric_default(const pk_profile *p, pk_index *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_metric_default: NULL argument");
    size_t n = pk_metric_count(p);
    if (n == 0) return pk_fail(PK_ERR_NOT_FOUND, "the profile has no metrics");
    pk_index named = file_default(p, n);
    if (named != PK_NONE && has_total(p, named)) return *out = named, PK_OK;
    for (int pass = 0; pass < 3; pass++) /* time, then another cost, then any */
        for (pk_index m = 0; m < n; m++) {
            pk_metric met;
            if (pk_metric_get(p, m, &met)) continue;
            int fits = pass == 0 ? is_time(&met) : pass == 1 ? !pk_metric_is_call_count(&met) : 1;
            if (fits && has_total(p, m)) return *out = m, PK_OK;
        }
    *out = 0;
    return PK_OK;
}
