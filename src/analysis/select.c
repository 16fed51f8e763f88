/*
 * analysis/select.c — per-context values of a chosen set of locations
 * (threads, ranks) under a chosen statistic: what `--location` and
 * `--stat` of the analysis commands ask for.
 *
 * The plain sum over every location is pk_context_scope_values(). Every
 * other choice takes each selected location's values on its own, in the
 * wanted scope (derived per location when the profile stores the other
 * one, so an unsigned metric is clamped exactly where CubeLib clamps it),
 * and folds them into running sums, sums of squares, minima and maxima.
 * The cost is one pass over each selected location's stored values plus
 * O(contexts) per location, with five arrays of one double per context.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/model.h"
#include "profkit/analysis.h"
#include "scopes.h"
#include "summary.h"
#include "totals.h"

/* Is the value of location l's identifier `kind` named `v` (v_len bytes;
 * attribute "value-name:KIND", a pprof string label's value)? */
static int named_value(const pk_profile *p, uint32_t l, const char *kind, const char *v,
                       size_t v_len)
{
    char key[160];
    if (snprintf(key, sizeof key, "value-name:%s", kind) >= (int)sizeof key) return 0;
    const char *name = pk_attribute_find(p, PK_ENTITY_LOCATION, l, key);
    return name && strlen(name) == v_len && memcmp(name, v, v_len) == 0;
}

/* Does location l's identifier tuple hold KIND=ID (term of len bytes)?
 * ID is a logical id, or the name of a named value (thread_name=node). */
static int has_ident(const pk_profile *p, uint32_t l, const char *term, size_t len, int *bad)
{
    const char *eq = memchr(term, '=', len);
    char *end;
    if (!eq || eq == term || eq + 1 == term + len) return *bad = 1, 0;
    unsigned long id = strtoul(eq + 1, &end, 10);
    int numeric = end == term + len && end != eq + 1;
    size_t klen = (size_t)(eq - term);
    const pk_loc_rec *loc = &p->locs[l];
    for (uint32_t i = 0; i < loc->n_ids; i++) {
        const char *kind = loc->ids[i].kind_name;
        if (!kind || strlen(kind) != klen || strncasecmp(kind, term, klen) != 0) continue;
        if (named_value(p, l, kind, eq + 1, (size_t)(term + len - eq - 1))) return 1;
        if (numeric && loc->ids[i].logical == id) return 1;
    }
    return 0;
}

/* Does some location name the values of identifier kind `kind` (klen
 * bytes)? Only then may a term give a name instead of a number. */
static int kind_has_names(const pk_profile *p, const char *kind, size_t klen)
{
    static const char pre[] = "value-name:";
    size_t n = sizeof pre - 1;
    for (size_t i = 0; i < p->n_attrs; i++) {
        const pk_attr_rec *a = &p->attrs[i];
        if (a->entity == PK_ENTITY_LOCATION && !strncmp(a->key, pre, n) &&
            strlen(a->key + n) == klen && !strncasecmp(a->key + n, kind, klen))
            return 1;
    }
    return 0;
}

/* A term KIND=ID whose ID is no number names a value: only for a kind
 * whose values have names ("rank=x" stays malformed). */
static int names_ok(const pk_profile *p, const char *sel)
{
    while (*sel) {
        size_t len = strcspn(sel, ",");
        while (len && isspace((unsigned char)*sel))
            sel++, len--;
        const char *eq = memchr(sel, '=', len);
        char *end;
        if (eq && eq + 1 < sel + len) {
            strtoul(eq + 1, &end, 10);
            if (end != sel + len && !kind_has_names(p, sel, (size_t)(eq - sel))) return 0;
        }
        sel += len + (sel[len] == ',');
    }
    return 1;
}

static int matches_all_terms(const pk_profile *p, uint32_t l, const char *sel, int *bad)
{
    while (*sel) {
        size_t len = strcspn(sel, ",");
        while (len && isspace((unsigned char)*sel))
            sel++, len--;
        if (!has_ident(p, l, sel, len, bad)) return 0;
        sel += len + (sel[len] == ',');
    }
    return 1;
}

pk_status pk_location_select(const pk_profile *p, const char *sel, unsigned char *selected,
                             size_t n, size_t *n_matched)
{
    if (!p || !sel || !selected || n < p->n_locs)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_location_select: bad arguments");
    size_t count = 0;
    int bad = 0;
    memset(selected, 0, p->n_locs);
    if (sel[0] == '#') {
        char *end;
        unsigned long i = strtoul(sel + 1, &end, 10);
        if (*end || end == sel + 1)
            return pk_fail(PK_ERR_INVALID_ARG, "location selector '%s': #N wants a number", sel);
        if (i < p->n_locs && !p->locs[i].is_summary) selected[i] = 1, count = 1;
    } else {
        bad = !names_ok(p, sel);
        for (uint32_t l = 0; l < p->n_locs && !bad; l++)
            if (!p->locs[l].is_summary && matches_all_terms(p, l, sel, &bad))
                selected[l] = 1, count++;
    }
    if (bad)
        return pk_fail(PK_ERR_INVALID_ARG,
                       "location selector '%s': want KIND=ID[,KIND=ID...] (e.g. rank=3,thread=0; "
                       "ID may be a named value, thread_name=main) or #N",
                       sel);
    if (count == 0) return pk_fail(PK_ERR_NOT_FOUND, "no location matches '%s'", sel);
    if (n_matched) *n_matched = count;
    return PK_OK;
}

/* Running statistics over locations, one slot per context. */
typedef struct stat_acc {
    double *sum, *sumsq, *min, *max, *count;
    double *one;         /* the current location's values */
    unsigned char *seen; /* the current location's contexts with a value */
    uint32_t *order;     /* deepest first, for derivations */
    int skip_absent;     /* min/max metrics: a location without a value is not a 0 */
    size_t n_locations;
} stat_acc;

static void acc_free(stat_acc *a)
{
    free(a->sum), free(a->sumsq), free(a->min), free(a->max), free(a->count);
    free(a->one), free(a->seen);
    free(a->order);
}

static pk_status acc_init(const pk_profile *p, stat_acc *a)
{
    size_t n = p->n_ctx ? p->n_ctx : 1;
    memset(a, 0, sizeof *a);
    a->sum = calloc(n, sizeof(double)), a->sumsq = calloc(n, sizeof(double));
    a->count = calloc(n, sizeof(double));
    a->min = malloc(n * sizeof(double)), a->max = malloc(n * sizeof(double));
    a->one = malloc(n * sizeof(double)), a->seen = malloc(n);
    a->order = pk_deepest_first(p);
    if (a->sum && a->sumsq && a->min && a->max && a->count && a->one && a->seen && a->order)
        return PK_OK;
    acc_free(a);
    return pk_fail_nomem("combining locations");
}

/* Location l's values of `col` in out (0 where none), combined within the
 * location with `how` when one context holds several. */
static pk_status location_column(const pk_profile *p, uint32_t l, pk_index col, pk_combine how,
                                 double *out, unsigned char *seen)
{
    memset(seen, 0, p->n_ctx);
    for (uint32_t c = 0; c < p->n_ctx; c++)
        out[c] = 0.0;
    return pk_combine_location(p, l, col, how, out, seen);
}

static void acc_add(const pk_profile *p, stat_acc *a)
{
    a->n_locations++;
    for (uint32_t c = 0; c < p->n_ctx; c++) {
        double x = a->one[c];
        if (a->skip_absent && !a->seen[c]) continue;
        int first = a->count[c]++ == 0;
        a->sum[c] += x;
        a->sumsq[c] += x * x;
        a->min[c] = first || x < a->min[c] ? x : a->min[c];
        a->max[c] = first || x > a->max[c] ? x : a->max[c];
    }
}

/* "Sum" of a min/max metric is its own combine: the smallest or largest.
 * Statistics over locations count the locations with a value there (min/max
 * metrics) or all selected locations (sum-like metrics: no value is 0). */
static void acc_result(const pk_profile *p, const stat_acc *a, pk_across stat, const pk_metric *m,
                       double *out)
{
    if (stat == PK_ACROSS_SUM && m->combine == PK_COMBINE_MIN) stat = PK_ACROSS_MIN;
    if (stat == PK_ACROSS_SUM && m->combine == PK_COMBINE_MAX) stat = PK_ACROSS_MAX;
    for (uint32_t c = 0; c < p->n_ctx; c++) {
        double n = a->skip_absent ? a->count[c] : (double)a->n_locations;
        double mean = n > 0 ? a->sum[c] / n : 0, var = n > 0 ? a->sumsq[c] / n - mean * mean : 0;
        switch (stat) {
        case PK_ACROSS_SUM:
            out[c] = a->sum[c];
            break;
        case PK_ACROSS_MEAN:
            out[c] = mean;
            break;
        case PK_ACROSS_MIN:
            out[c] = a->count[c] > 0 ? a->min[c] : 0;
            break;
        case PK_ACROSS_MAX:
            out[c] = a->count[c] > 0 ? a->max[c] : 0;
            break;
        case PK_ACROSS_STDDEV:
            out[c] = var > 0 ? sqrt(var) : 0;
            break;
        }
    }
}

/* One location's values of the metric in the wanted scope, in a->one. */
static pk_status location_scope(const pk_profile *p, stat_acc *a, uint32_t l, const pk_metric *m,
                                pk_index col, int derive_kind)
{
    pk_status st = location_column(p, l, col, m->combine, a->one, a->seen);
    if (st) return st;
    if (derive_kind == PK_SCOPE_INCLUSIVE)
        pk_inclusive_in_place(p, m->combine, a->one, a->seen, a->order);
    else if (derive_kind == PK_SCOPE_EXCLUSIVE)
        pk_exclusive_in_place(p, (m->flags & PK_METRIC_UNSIGNED) != 0, a->one, a->order);
    return PK_OK;
}

pk_status pk_context_stat_values(const pk_profile *p, pk_index metric, pk_scope_kind kind,
                                 const unsigned char *selected, pk_across stat, double *out,
                                 size_t n_out, int *derived)
{
    if (!selected && stat == PK_ACROSS_SUM)
        return pk_context_scope_values(p, metric, kind, out, n_out, derived);
    if (!p || !out || metric >= p->n_metrics || n_out < p->n_ctx || stat > PK_ACROSS_STDDEV ||
        (kind != PK_SCOPE_INCLUSIVE && kind != PK_SCOPE_EXCLUSIVE))
        return pk_fail(PK_ERR_INVALID_ARG, "pk_context_stat_values: bad arguments");
    if (!pk_has_plain_locations(p))
        return pk_fail(PK_ERR_UNSUPPORTED, "this profile holds only summary statistics, not the "
                                           "per-location values a location choice or a "
                                           "statistic across locations needs");
    int from_summary = 0;
    pk_status st = selected
                       ? PK_OK
                       : pk_summary_stat_values(p, metric, kind, stat, out, derived, &from_summary);
    if (st || from_summary) return st;
    pk_index col;
    int derive_kind;
    st = pk_scope_source(p, metric, kind, &col, &derive_kind);
    if (derive_kind) derive_kind = kind;
    stat_acc a;
    if (!st) st = acc_init(p, &a);
    if (st) return st;
    const pk_metric *m = &p->metrics[metric];
    a.skip_absent = m->combine == PK_COMBINE_MIN || m->combine == PK_COMBINE_MAX;
    for (uint32_t l = 0; l < p->n_locs && !st; l++) {
        if (p->locs[l].is_summary || (selected && !selected[l])) continue;
        if ((st = location_scope(p, &a, l, m, col, derive_kind)) == PK_OK) acc_add(p, &a);
    }
    if (!st) acc_result(p, &a, stat, m, out);
    acc_free(&a);
    if (derived && !st) *derived = derive_kind != 0;
    return st;
}

/* One location's total: the root's inclusive value (looked up: the
 * location's other values are not read), or its exclusive values summed
 * over contexts not lexically inside another. */
static pk_status location_total(const pk_profile *p, uint32_t l, pk_index col, int inclusive,
                                double *out)
{
    *out = 0;
    if (inclusive) return pk_value_lookup(p, l, 0, col, out);
    pk_cursor cur;
    pk_value v;
    pk_status st = pk_location_values_begin(p, l, &cur);
    while (!st && pk_cursor_next(&cur, &v)) {
        if (v.column != col || v.context >= p->n_ctx) continue;
        const pk_ctx_rec *c = &p->ctx[v.context];
        if (!pk_lexical_child(p, v.context) && !(c->flags & PK_CTXF_UNLISTED)) *out += v.value;
    }
    return st;
}

/* The same from a row store: the contexts location_total() counts, then
 * every location's values there in one pass over the column's rows. */
static pk_status rows_location_totals(const pk_profile *p, pk_index col, int inclusive, double *out)
{
    unsigned char *pick = calloc((size_t)p->n_ctx + 1, 1);
    if (!pick) return pk_fail_nomem("per-location totals");
    for (uint32_t c = 0; c < p->n_ctx; c++)
        pick[c] =
            inclusive ? c == 0 : !pk_lexical_child(p, c) && !(p->ctx[c].flags & PK_CTXF_UNLISTED);
    pk_status st = pk_rows_location_sums(p, col, pick, out);
    for (uint32_t l = 0; !st && l < p->n_locs; l++)
        if (p->locs[l].is_summary) out[l] = NAN;
    free(pick);
    return st;
}

pk_status pk_location_totals(const pk_profile *p, pk_index metric, double *out, size_t n_out)
{
    if (!p || !out || metric >= p->n_metrics || n_out < p->n_locs)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_location_totals: bad arguments");
    pk_index col;
    int from_exclusive;
    pk_status st = pk_scope_source(p, metric, PK_SCOPE_INCLUSIVE, &col, &from_exclusive);
    if (st) return st;
    int inclusive = !from_exclusive;
    if (pk_model_has_rows(p) && !p->columns[col].is_summary)
        return rows_location_totals(p, col, inclusive, out);
    for (uint32_t l = 0; l < p->n_locs && !st; l++)
        if (p->locs[l].is_summary)
            out[l] = NAN;
        else
            st = location_total(p, l, col, inclusive, &out[l]);
    return st;
}
