/*
 * analysis/query_values.c — one metric's per-context values under a
 * query's selection: the locations it names, the statistic that combines
 * them, and the part of the program --focus/--hide keep. Every view that
 * draws on the calling-context tree (tree, flat, callers, callees, flame,
 * diff, annotate) starts from these, so they select alike.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "analysis/qry.h"
#include "analysis/scopes.h"
#include "util/error.h"

static pk_status select_locations(const pk_profile *p, const char *sel, unsigned char **out,
                                  size_t *n_selected)
{
    *out = NULL;
    if (!sel) return PK_OK;
    size_t n = pk_location_count(p);
    if (!(*out = calloc(n ? n : 1, 1))) return pk_fail_nomem("selecting locations");
    return pk_location_select(p, sel, *out, n, n_selected);
}

/* Does the profile list metric m without storing any column of it? */
static int pk_metric_has_no_values(const pk_profile *p, pk_index m)
{
    pk_index col;
    for (int k = 0; k <= PK_SCOPE_OTHER; k++)
        if (pk_column_find(p, m, (pk_scope_kind)k, &col) == PK_OK) return 0;
    return 1;
}

static pk_status scope_values(const pk_profile *p, const unsigned char *sel, pkq_values *v)
{
    size_t n = pk_context_count(p);
    int d_incl = 0, d_excl = 0, both = 0;
    if (!sel && v->stat == PK_ACROSS_SUM) {
        pk_status st = pk_context_scope_pair(p, v->metric, v->incl, v->excl, &both);
        if (st || both) {
            v->derived = PK_SCOPE_INCLUSIVE;
            return st;
        }
    }
    pk_status st =
        pk_context_stat_values(p, v->metric, PK_SCOPE_INCLUSIVE, sel, v->stat, v->incl, n, &d_incl);
    if (st == PK_ERR_NOT_FOUND && pk_metric_has_no_values(p, v->metric)) {
        v->empty = 1; /* a metric the file lists without a value: 0 everywhere */
        return PK_OK;
    }
    if (st) return st;
    if (pk_context_stat_values(p, v->metric, PK_SCOPE_EXCLUSIVE, sel, v->stat, v->excl, n,
                               &d_excl) != PK_OK) {
        free(v->excl); /* a min/max metric stored inclusive */
        v->excl = NULL;
    }
    v->derived = d_incl ? PK_SCOPE_INCLUSIVE : d_excl && v->excl ? PK_SCOPE_EXCLUSIVE : 0;
    return PK_OK;
}

static char *copy_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static pk_status compute(const pk_profile *p, pkq_values *v)
{
    size_t n = pk_context_count(p);
    unsigned char *sel = NULL;
    v->incl = calloc(n ? n : 1, sizeof *v->incl);
    v->excl = calloc(n ? n : 1, sizeof *v->excl);
    if (!v->incl || !v->excl) return pk_fail_nomem("a view's values");
    pk_status st = select_locations(p, v->location, &sel, &v->n_selected);
    if (!st) st = scope_values(p, sel, v);
    free(sel);
    if (st) return st;
    if (v->empty)
        v->total = 0;
    else if (!v->location && v->stat == PK_ACROSS_SUM)
        st = pk_metric_program_total(p, v->metric, &v->total);
    else
        v->total = n ? v->incl[0] : 0;
    /* a min/max metric's program total as CubeLib and pycubexr give it:
     * over every cell, one without a value counting as 0; profkit's over
     * the cells with a value is said beside it */
    int extreme = v->met.combine == PK_COMBINE_MIN || v->met.combine == PK_COMBINE_MAX;
    v->total_visited = v->total;
    if (!st && extreme && !v->location && v->stat == PK_ACROSS_SUM &&
        pk_metric_cell_total(p, v->metric, &v->total) != PK_OK)
        v->total = v->total_visited;
    if (!st)
        st = pk_context_filter(p, v->metric, v->focus, v->hide, v->incl, v->excl, &v->n_matched);
    return st;
}

pk_status pkq_values_compute(const pk_profile *p, pk_index metric, const pk_query *q, pkq_values *v)
{
    memset(v, 0, sizeof *v);
    v->metric = metric;
    v->stat = q->stat;
    pk_status st = pk_metric_get(p, metric, &v->met);
    const char *loc = pkq_text(q, PKQ_LOCATION), *focus = pkq_text(q, PKQ_FOCUS),
               *hide = pkq_text(q, PKQ_HIDE);
    if (!st &&
        ((loc && !(v->location = copy_or_null(loc))) ||
         (focus && !(v->focus = copy_or_null(focus))) || (hide && !(v->hide = copy_or_null(hide)))))
        st = pk_fail_nomem("a view's selection");
    if (!st) st = compute(p, v);
    /* numbers read in the unit of the values shown: a min/max metric's
     * total over every cell may be 0 */
    if (!st)
        st = pk_number_format_for(&v->met, v->total != 0 ? v->total : v->total_visited, &v->nf);
    if (v->stat == PK_ACROSS_MEAN || v->stat == PK_ACROSS_STDDEV) v->nf.integers = 0;
    if (st) pkq_values_clear(v);
    return st;
}

void pkq_values_clear(pkq_values *v)
{
    free(v->incl);
    free(v->excl);
    free(v->location), free(v->focus), free(v->hide);
    for (int i = 0; i < 3; i++)
        pk_frames_free(v->frames[i]);
    memset(v, 0, sizeof *v);
}
