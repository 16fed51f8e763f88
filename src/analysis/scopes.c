/*
 * analysis/scopes.c — a metric's inclusive or exclusive values at every
 * context, derived along the calling-context tree when the profile stores
 * only the other scope (Cube stores each metric in one scope: Score-P's
 * `time` inclusive, `visits` exclusive).
 *
 * With point(c) the value measured at c itself (docs/model.md):
 *   inclusive(c) = point(c) + Σ inclusive(children)
 *   exclusive(c) = point(c) + Σ exclusive(lexical children)
 * so either scope gives point, and point gives the other scope. Both are
 * linear for sum-combined metrics, so values are combined over locations
 * first and derived once, except in one case: an exclusive value derived
 * from unsigned counts is clamped at 0 in each location, as CubeLib and
 * pycubexr (MetricValues._detect_negative_overflow) do when noise makes a
 * parent's count smaller than its children's. That case walks each
 * location's values once, touching only the contexts they reach.
 * Min/max metrics derive inclusive as the min/max over the subtree; their
 * exclusive values cannot be recovered from inclusive ones.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "profkit/analysis.h"
#include "scopes.h"
#include "totals.h"

/* Point values in out become exclusive ones: each lexical child's
 * exclusive value added into its parent, deepest first (points clamped at
 * 0 first when asked). */
static void lexical_fold(const pk_profile *p, int clamp_points, double *out, const uint32_t *order)
{
    for (uint32_t c = 0; c < p->n_ctx && clamp_points; c++)
        if (out[c] < 0) out[c] = 0;
    for (uint32_t k = 0; k < p->n_ctx; k++) {
        uint32_t c = order[k];
        if (pk_lexical_child(p, c)) out[p->ctx[c].parent] += out[c];
    }
}

/* inclusive from exclusive: point = exclusive minus what lexical children
 * hold (min/max: exclusive already is the subtree's point min/max), then
 * every context folds into its parent, deepest first. */
void pk_inclusive_in_place(const pk_profile *p, pk_combine how, double *out, unsigned char *seen,
                           const uint32_t *order)
{
    int linear = how == PK_COMBINE_SUM || how == PK_COMBINE_OTHER;
    for (uint32_t k = p->n_ctx; k-- > 0 && linear;) { /* shallowest first: out[c] is exclusive */
        uint32_t c = order[k];
        if (pk_lexical_child(p, c)) out[p->ctx[c].parent] -= out[c];
    }
    for (uint32_t k = 0; k < p->n_ctx; k++) { /* deepest first: out[c] is final */
        uint32_t c = order[k], parent = p->ctx[c].parent;
        if (parent >= p->n_ctx) continue;
        if (linear)
            out[parent] += out[c];
        else if (seen[c])
            pk_combine_into(how, &out[parent], &seen[parent], out[c]);
    }
}

static pk_status inclusive_from_exclusive(const pk_profile *p, pk_index col, pk_combine how,
                                          double *out, unsigned char *seen, const uint32_t *order)
{
    pk_status st = pk_context_combined(p, col, out, seen);
    if (!st) pk_inclusive_in_place(p, how, out, seen, order);
    return st;
}

/* Point values of one unsigned location: its inclusive value minus its
 * children's, clamped at 0, added into out. `acc` is all zeros between
 * calls; `touched` has room for 2 × n_ctx entries, `mark` n_ctx. */
static void add_clamped_points(const pk_profile *p, uint32_t l, pk_index col, double *acc,
                               uint32_t *mark, uint32_t *touched, double *out)
{
    uint32_t n = 0;
    pk_cursor cur;
    pk_value v;
    pk_location_values_begin(p, l, &cur);
    while (pk_cursor_next(&cur, &v)) {
        if (v.column != col || v.context == PK_NONE) continue;
        uint32_t c = v.context, parent = p->ctx[c].parent;
        if (mark[c] != l + 1) mark[c] = l + 1, touched[n++] = c;
        acc[c] += v.value;
        if (parent >= p->n_ctx) continue;
        if (mark[parent] != l + 1) mark[parent] = l + 1, touched[n++] = parent;
        acc[parent] -= v.value;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t c = touched[k];
        out[c] += acc[c] > 0 ? acc[c] : 0;
        acc[c] = 0;
    }
}

static pk_status clamped_points(const pk_profile *p, pk_index col, double *out)
{
    if (pk_model_has_rows(p) && !p->columns[col].is_summary)
        return pk_rows_clamped_points(p, col, out);
    size_t n = p->n_ctx ? p->n_ctx : 1;
    double *acc = calloc(n, sizeof *acc);
    uint32_t *mark = calloc(n, sizeof *mark), *touched = malloc(2 * n * sizeof *touched);
    pk_status st = acc && mark && touched ? pk_model_check_deferred(p)
                                          : pk_fail_nomem("deriving exclusive values");
    for (uint32_t i = 0; i < p->n_ctx; i++)
        out[i] = 0.0;
    for (uint32_t l = 0; l < p->n_locs && !st; l++)
        if (!p->locs[l].is_summary) add_clamped_points(p, l, col, acc, mark, touched, out);
    free(acc);
    free(mark);
    free(touched);
    return st;
}

/* Exclusive values from the inclusive ones in out (one location's when
 * clamp_points is set), with point values clamped at 0 if asked. */
void pk_exclusive_in_place(const pk_profile *p, int clamp_points, double *out,
                           const uint32_t *order)
{
    for (uint32_t k = p->n_ctx; k-- > 0;) { /* shallowest first: out[c] is inclusive */
        uint32_t c = order[k];
        if (p->ctx[c].parent < p->n_ctx) out[p->ctx[c].parent] -= out[c];
    }
    lexical_fold(p, clamp_points, out, order);
}

/* exclusive from inclusive (sum-combined metrics only): point values, then
 * each lexical child's exclusive value added into its parent. */
static pk_status exclusive_from_inclusive(const pk_profile *p, pk_index col, int clamp, double *out,
                                          unsigned char *seen, const uint32_t *order)
{
    if (clamp && pk_has_plain_locations(p)) {
        pk_status st = clamped_points(p, col, out);
        if (!st) lexical_fold(p, 0, out, order);
        return st;
    }
    pk_status st = pk_context_combined(p, col, out, seen);
    if (!st) pk_exclusive_in_place(p, 0, out, order);
    return st;
}

/* Exclusive values of a min/max metric cannot come from inclusive ones. */
static pk_status check_derivable(const pk_metric *m, pk_scope_kind kind)
{
    int sum_like = m->combine == PK_COMBINE_SUM || m->combine == PK_COMBINE_OTHER;
    if (kind == PK_SCOPE_EXCLUSIVE && !sum_like)
        return pk_fail(PK_ERR_UNSUPPORTED,
                       "metric '%s' combines by min/max: its exclusive values cannot be derived "
                       "from the inclusive ones this profile stores",
                       m->name);
    return PK_OK;
}

pk_status pk_scope_source(const pk_profile *p, pk_index metric, pk_scope_kind kind, pk_index *col,
                          int *derive)
{
    pk_scope_kind other = kind == PK_SCOPE_INCLUSIVE ? PK_SCOPE_EXCLUSIVE : PK_SCOPE_INCLUSIVE;
    *derive = 0;
    if (pk_column_find(p, metric, kind, col) == PK_OK) return PK_OK;
    if (pk_column_find(p, metric, other, col) != PK_OK)
        return pk_fail(PK_ERR_NOT_FOUND, "metric '%s' has neither inclusive nor exclusive values",
                       p->metrics[metric].name);
    *derive = 1;
    return check_derivable(&p->metrics[metric], kind);
}

pk_status pk_derive_scope(const pk_profile *p, pk_index metric, pk_scope_kind kind, pk_index from,
                          double *out)
{
    const pk_metric *m = &p->metrics[metric];
    pk_status check = check_derivable(m, kind);
    if (check) return check;
    unsigned char *seen = malloc(p->n_ctx ? p->n_ctx : 1);
    uint32_t *order = pk_deepest_first(p);
    pk_status st = seen && order ? PK_OK : pk_fail_nomem("deriving a scope");
    if (!st && kind == PK_SCOPE_INCLUSIVE)
        st = inclusive_from_exclusive(p, from, m->combine, out, seen, order);
    else if (!st)
        st = exclusive_from_inclusive(p, from, (m->flags & PK_METRIC_UNSIGNED) != 0, out, seen,
                                      order);
    free(seen);
    free(order);
    return st;
}

pk_status pk_context_scope_pair(const pk_profile *p, pk_index metric, double *incl, double *excl,
                                int *done)
{
    pk_index ci, ce;
    int di, de;
    *done = 0;
    if (!p || metric >= p->n_metrics ||
        pk_scope_source(p, metric, PK_SCOPE_INCLUSIVE, &ci, &di) != PK_OK ||
        pk_scope_source(p, metric, PK_SCOPE_EXCLUSIVE, &ce, &de) != PK_OK || !di || de || ci != ce)
        return PK_OK; /* one scope at a time, which says why where it fails */
    unsigned char *seen = malloc(p->n_ctx ? p->n_ctx : 1);
    uint32_t *order = pk_deepest_first(p);
    pk_status st =
        seen && order ? pk_context_combined(p, ce, excl, seen) : pk_fail_nomem("deriving a scope");
    if (!st) { /* inclusive_from_exclusive() on a copy of what it would combine */
        memcpy(incl, excl, (size_t)p->n_ctx * sizeof *incl);
        pk_inclusive_in_place(p, p->metrics[metric].combine, incl, seen, order);
        *done = 1;
    }
    free(seen);
    free(order);
    return st;
}

pk_status pk_context_scope_values(const pk_profile *p, pk_index metric, pk_scope_kind kind,
                                  double *out, size_t n_out, int *derived)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_context_scope_values: NULL argument");
    if (metric >= p->n_metrics)
        return pk_fail(PK_ERR_NOT_FOUND, "metric index %u out of range", metric);
    if (kind != PK_SCOPE_INCLUSIVE && kind != PK_SCOPE_EXCLUSIVE)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_context_scope_values: inclusive or exclusive only");
    if (n_out < p->n_ctx)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_context_scope_values: room for %zu of %u contexts",
                       n_out, p->n_ctx);
    pk_index col;
    int derive;
    if (derived) *derived = 0;
    pk_status st = pk_scope_source(p, metric, kind, &col, &derive);
    if (st) return st;
    if (!derive) return pk_context_combined(p, col, out, NULL);
    st = pk_derive_scope(p, metric, kind, col, out);
    if (!st && derived) *derived = 1;
    return st;
}
