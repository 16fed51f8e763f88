/*
 * analysis/summary.c — answers from the statistics a file stores over all
 * its locations, instead of adding up every location's values.
 *
 * hpcprof's summary profile (profile 0 of profile.db) holds, per context,
 * metric and scope, statistics over every profile: Sum always, and with
 * `hpcprof -M stats` the count, sum of squares, Min and Max (field notes
 * §d, docs/derive.md). A view's sum over all locations is the stored Sum
 * and its mean that Sum over the number of locations, so on a database
 * of 100,000 profiles they cost one pass over one profile's values, not
 * over all of them, and the per-profile value blocks need not be read at
 * all (their validation is deferred: model/deferred.c).
 *
 * Only what the summary holds exactly is taken from it (docs/model.md,
 * "Answers from the summary"); the rest adds up the locations:
 *   - sums and means over every plain location, unfiltered, of a
 *     sum-combined metric in the point, function (exclusive) and execution
 *     (inclusive) scopes; derived scopes too (derivation is linear), but
 *     not an unsigned metric's exclusive values derived from inclusive
 *     ones (clamped per location);
 *   - lex_aware only where hpcprof's loop rule did not change its Sum:
 *     at a loop with loops lexically inside it, hpcprof's summary
 *     lex_aware is the loop's cost minus the inner loops' ("function
 *     without loops"), not the sum of the profiles' lex_aware values. When
 *     the Sum there equals the function scope's, it is that sum under
 *     either rule; otherwise the profiles are read;
 *   - the maximum over locations from the Max statistic where the Min
 *     statistic shows no value below 0: hpcprof's min/max take 0 as
 *     "unset", which changes nothing for values >= 0 (a location without a
 *     value counts as 0 here, as in the per-location path);
 *   - not the minimum (a profile reaching a context with a 0 value counts
 *     as 0 here, while hpcprof's Min skips it), not the standard deviation
 *     (its cancellation amplifies the last bits in which the stored sums
 *     differ from ours), nothing for selected locations.
 * PK_OPEN_RECOMPUTE turns all of it off (the reader leaves summary_exact
 * unset); pk_values_source() says where an answer comes from.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scopes.h"
#include "summary.h"
#include "totals.h"

uint32_t pk_summary_location(const pk_profile *p)
{
    if (!p->summary_exact) return PK_NONE;
    uint32_t found = PK_NONE;
    int plain = 0;
    for (uint32_t l = 0; l < p->n_locs; l++) {
        if (!p->locs[l].is_summary)
            plain = 1;
        else if (found != PK_NONE)
            return PK_NONE; /* two summaries: neither stands for all */
        else
            found = l;
    }
    return plain ? found : PK_NONE;
}

/* The summary column of statistic `stat` for (metric, scope), or PK_NONE. */
static pk_index stat_column(const pk_profile *p, pk_index metric, pk_index scope, pk_stat stat)
{
    for (uint32_t c = 0; c < p->n_columns; c++) {
        const pk_column *s = &p->columns[c];
        if (s->is_summary && s->stat == stat && s->metric == metric && s->scope == scope) return c;
    }
    return PK_NONE;
}

/* The summary location's values of summary column `col` by context. */
static pk_status summary_values(const pk_profile *p, uint32_t loc, pk_index col, double *out)
{
    unsigned char *seen = calloc((size_t)p->n_ctx + 1, 1);
    if (!seen) return pk_fail_nomem("reading the summary profile");
    for (uint32_t c = 0; c < p->n_ctx; c++)
        out[c] = 0;
    pk_combine_location(p, loc, col, PK_COMBINE_SUM, out, seen);
    free(seen);
    return PK_OK;
}

/* Loops with a loop lexically inside them (through non-loop contexts
 * only): where hpcprof's summary lex_aware differs from a sum; *n counts
 * them. Contexts are breadth-first (a parent before its children): NULL
 * if they are not (or out of memory), and the caller assumes the worst. */
static unsigned char *loops_with_inner_loops(const pk_profile *p, size_t *n)
{
    uint32_t *near = malloc(((size_t)p->n_ctx + 1) * sizeof *near); /* nearest enclosing loop */
    unsigned char *mark = calloc((size_t)p->n_ctx + 1, 1);
    *n = 0;
    for (uint32_t c = 0; near && mark && c < p->n_ctx; c++) {
        uint32_t parent = p->ctx[c].parent;
        near[c] = PK_NONE;
        if (!pk_lexical_child(p, c)) continue;
        if (parent >= c) { /* not breadth-first after all */
            free(mark), mark = NULL;
            break;
        }
        near[c] = p->ctx[parent].kind == PK_CTX_LOOP ? parent : near[parent];
        if (p->ctx[c].kind == PK_CTX_LOOP && near[c] != PK_NONE && !mark[near[c]])
            mark[near[c]] = 1, (*n)++;
    }
    if (!near) free(mark), mark = NULL;
    free(near);
    return mark;
}

static int same(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

/* Does lex_aware Sum `la` of `metric` hold the profiles' lex_aware values
 * summed? Yes where no loop has inner loops, or where the Sum at each such
 * loop equals the function scope's Sum (then hpcprof's rule took nothing
 * away, or was not applied). */
static int lex_aware_is_sum(const pk_profile *p, uint32_t loc, pk_index metric, pk_index la)
{
    size_t n = 0;
    unsigned char *mark = loops_with_inner_loops(p, &n);
    pk_index fcol, fsum = PK_NONE;
    if (mark && n && pk_column_find(p, metric, PK_SCOPE_EXCLUSIVE, &fcol) == PK_OK)
        fsum = stat_column(p, metric, p->columns[fcol].scope, PK_STAT_SUM);
    int ok = mark && (n == 0 || fsum != PK_NONE);
    double *a = ok && n ? malloc(2 * ((size_t)p->n_ctx + 1) * sizeof *a) : NULL;
    if (ok && n)
        ok = a && !summary_values(p, loc, la, a) && !summary_values(p, loc, fsum, a + p->n_ctx);
    for (uint32_t c = 0; ok && n && c < p->n_ctx; c++)
        if (mark[c] && !same(a[c], a[p->n_ctx + c])) ok = 0;
    free(a), free(mark);
    return ok;
}

pk_index pk_summary_stand_in(const pk_profile *p, pk_index column)
{
    if (column >= p->n_columns || p->columns[column].is_summary) return PK_NONE;
    const pk_column *col = &p->columns[column];
    uint32_t loc = pk_summary_location(p);
    pk_scope_kind kind = p->scopes[col->scope].kind;
    if (loc == PK_NONE || p->metrics[col->metric].combine != PK_COMBINE_SUM ||
        kind == PK_SCOPE_OTHER)
        return PK_NONE;
    pk_index s = stat_column(p, col->metric, col->scope, PK_STAT_SUM);
    if (s != PK_NONE && kind == PK_SCOPE_LEX_AWARE && !lex_aware_is_sum(p, loc, col->metric, s))
        return PK_NONE;
    return s;
}

/* Plain column of each summary column standing in for one (PK_NONE
 * elsewhere), or NULL when some plain column has none. */
static uint32_t *stand_in_map(const pk_profile *p)
{
    uint32_t *plain_of = malloc(((size_t)p->n_columns + 1) * sizeof *plain_of);
    for (uint32_t c = 0; plain_of && c < p->n_columns; c++)
        plain_of[c] = PK_NONE;
    for (uint32_t c = 0; plain_of && c < p->n_columns; c++) {
        if (p->columns[c].is_summary) continue;
        pk_index s = pk_summary_stand_in(p, c);
        if (s == PK_NONE || plain_of[s] != PK_NONE) return free(plain_of), NULL;
        plain_of[s] = c;
    }
    return plain_of;
}

pk_status pk_summary_totals(const pk_profile *p, double *columns, double *root, double *entries,
                            int *done)
{
    uint32_t loc = pk_summary_location(p);
    uint32_t *plain_of = loc == PK_NONE ? NULL : stand_in_map(p);
    size_t n = p->n_columns ? p->n_columns : 1;
    ksum *k = plain_of ? calloc(3 * n, sizeof *k) : NULL;
    *done = 0;
    if (!k) return free(plain_of), PK_OK; /* out of memory: the profiles' way */
    uint64_t top = pk_largest_top_id(p);
    pk_cursor cur;
    pk_value v;
    pk_status st = pk_location_values_begin(p, loc, &cur);
    while (!st && pk_cursor_next(&cur, &v)) {
        if (v.column == PK_NONE) continue;
        ksum_add(&k[v.column], v.value); /* the summary column's own total */
        uint32_t c = plain_of[v.column];
        if (c == PK_NONE || v.context == PK_NONE) continue;
        ksum_add(&k[c], v.value);
        const pk_ctx_rec *x = &p->ctx[v.context];
        if (v.context == 0)
            ksum_add(&k[n + c], v.value);
        else if (x->kind == PK_CTX_ENTRY && x->id <= top)
            ksum_add(&k[2 * n + c], v.value);
    }
    for (uint32_t c = 0; !st && c < p->n_columns; c++) {
        columns[c] = ksum_value(&k[c]);
        if (root) root[c] = ksum_value(&k[n + c]);
        if (entries) entries[c] = ksum_value(&k[2 * n + c]);
    }
    *done = st == PK_OK;
    free(k), free(plain_of);
    return st;
}

/* Where the values of (metric, kind) come from and whether the summary
 * holds them summed over all locations; *derive as pk_scope_source(). */
static int summary_holds(const pk_profile *p, pk_index metric, pk_scope_kind kind, pk_index *col,
                         int *derive)
{
    if (pk_summary_location(p) == PK_NONE || metric >= p->n_metrics ||
        pk_scope_source(p, metric, kind, col, derive) != PK_OK)
        return 0;
    int clamped =
        *derive && kind == PK_SCOPE_EXCLUSIVE && (p->metrics[metric].flags & PK_METRIC_UNSIGNED);
    return !clamped && pk_summary_stand_in(p, *col) != PK_NONE;
}

/* The Max statistic of col's metric and scope, when the Min statistic
 * shows every value >= 0 (hpcprof's "0 is unset" then changes nothing). */
static pk_status max_from_summary(const pk_profile *p, pk_index col, double *out, int *done)
{
    uint32_t loc = pk_summary_location(p);
    pk_index mn = stat_column(p, p->columns[col].metric, p->columns[col].scope, PK_STAT_MIN);
    pk_index mx = stat_column(p, p->columns[col].metric, p->columns[col].scope, PK_STAT_MAX);
    *done = 0;
    if (mn == PK_NONE || mx == PK_NONE) return PK_OK;
    pk_status st = summary_values(p, loc, mn, out);
    for (uint32_t c = 0; !st && c < p->n_ctx; c++)
        if (!(out[c] >= 0)) return PK_OK;
    if (!st) st = summary_values(p, loc, mx, out);
    *done = st == PK_OK;
    return st;
}

static double plain_locations(const pk_profile *p)
{
    double n = 0;
    for (uint32_t l = 0; l < p->n_locs; l++)
        n += !p->locs[l].is_summary;
    return n;
}

pk_status pk_summary_stat_values(const pk_profile *p, pk_index metric, pk_scope_kind kind,
                                 pk_across stat, double *out, int *derived, int *done)
{
    pk_index col;
    int derive;
    *done = 0;
    if ((stat != PK_ACROSS_MEAN && stat != PK_ACROSS_MAX) ||
        !summary_holds(p, metric, kind, &col, &derive))
        return PK_OK;
    if (stat == PK_ACROSS_MAX) {
        if (derive) return PK_OK; /* a maximum of derived values is not derived from maxima */
        if (derived) *derived = 0;
        return max_from_summary(p, col, out, done);
    }
    pk_status st = pk_context_scope_values(p, metric, kind, out, p->n_ctx, derived);
    double n = plain_locations(p);
    for (uint32_t c = 0; !st && c < p->n_ctx; c++)
        out[c] = out[c] / n;
    *done = st == PK_OK;
    return st;
}

pk_status pk_values_source(const pk_profile *p, pk_index metric, pk_scope_kind kind,
                           const unsigned char *selected, pk_across stat, pk_values_from *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_values_source: NULL argument");
    pk_index col;
    int derive;
    *out = PK_VALUES_PROFILES;
    if (selected || !summary_holds(p, metric, kind, &col, &derive)) return PK_OK;
    if (stat == PK_ACROSS_SUM || stat == PK_ACROSS_MEAN) {
        *out = PK_VALUES_SUMMARY;
    } else if (stat == PK_ACROSS_MAX && !derive) {
        double *tmp = malloc(((size_t)p->n_ctx + 1) * sizeof *tmp);
        int done = 0;
        if (!tmp) return pk_fail_nomem("pk_values_source");
        pk_status st = max_from_summary(p, col, tmp, &done);
        free(tmp);
        if (st) return st;
        if (done) *out = PK_VALUES_SUMMARY;
    }
    return PK_OK;
}

pk_status pk_totals_source(const pk_profile *p, pk_values_from *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_totals_source: NULL argument");
    uint32_t *plain_of = pk_summary_location(p) == PK_NONE ? NULL : stand_in_map(p);
    *out = plain_of ? PK_VALUES_SUMMARY : PK_VALUES_PROFILES;
    free(plain_of);
    return PK_OK;
}

const char *pk_values_from_name(pk_values_from from)
{
    return from == PK_VALUES_SUMMARY ? "summary" : "profiles";
}
