/*
 * view/route_locations.c — /api/locations: one function's inclusive and
 * exclusive value on every non-summary location (thread, rank, stream),
 * largest first, with the spread `threads` reports (count, sum, min, max,
 * mean, stddev, imbalance). A function's value sums its contexts,
 * recursion counted once (only contexts with no caller of the same
 * function count for the inclusive value). Each location's values come
 * from the library per location (derived scopes handled there): the
 * cost is one pass over the contexts per location.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

#define MAX_LISTED 10000

static const char *const locations_params[] = {"metric", "function", "side", NULL};

typedef struct loc_value {
    pk_index loc;
    double incl, excl;
} loc_value;

/* Per context: 1 = a context of the function, 2 = also outermost. */
static unsigned char *function_contexts(const pk_profile *p, const char *name, size_t *hits)
{
    size_t n = pk_context_count(p);
    unsigned char *mark = calloc(n ? n : 1, 1), *inside = calloc(n ? n : 1, 1);
    *hits = 0;
    for (size_t i = 0; mark && inside && i < n; i++) {
        pk_context c;
        pk_function fn;
        pk_context_get(p, (pk_index)i, &c);
        int in_parent = c.parent != PK_NONE && c.parent < i && inside[c.parent];
        int is_f = c.kind == PK_CTX_FUNCTION && c.function != PK_NONE &&
                   pk_function_get(p, c.function, &fn) == PK_OK && fn.name &&
                   strcmp(fn.name, name) == 0;
        inside[i] = (unsigned char)(in_parent || is_f);
        mark[i] = (unsigned char)(is_f ? (in_parent ? 1 : 2) : 0);
        *hits += is_f;
    }
    free(inside);
    return mark;
}

static int by_inclusive(const void *a, const void *b)
{
    const loc_value *x = a, *y = b;
    if (x->incl != y->incl) return x->incl > y->incl ? -1 : 1;
    return x->loc < y->loc ? -1 : 1;
}

/* The function's values on location l. */
static pk_status one_location(const pk_profile *p, pk_index metric, const unsigned char *mark,
                              pk_index l, double *buf, unsigned char *sel, loc_value *out)
{
    size_t n = pk_context_count(p);
    sel[l] = 1;
    pk_status st =
        pk_context_stat_values(p, metric, PK_SCOPE_INCLUSIVE, sel, PK_ACROSS_SUM, buf, n, NULL);
    *out = (loc_value){l, 0, NAN};
    for (size_t i = 0; !st && i < n; i++)
        if (mark[i] == 2) out->incl += buf[i];
    if (!st && pk_context_stat_values(p, metric, PK_SCOPE_EXCLUSIVE, sel, PK_ACROSS_SUM, buf, n,
                                      NULL) == PK_OK) {
        out->excl = 0;
        for (size_t i = 0; i < n; i++)
            if (mark[i]) out->excl += buf[i];
    }
    sel[l] = 0;
    return st;
}

static void write_stats(pk_json *j, const loc_value *v, size_t n)
{
    double sum = 0, sumsq = 0, min = n ? v[n - 1].incl : 0, max = n ? v[0].incl : 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i].incl, sumsq += v[i].incl * v[i].incl;
    double mean = n ? sum / (double)n : 0, var = n ? sumsq / (double)n - mean * mean : 0;
    pk_json_key(j, "count"), pk_json_uint(j, n);
    pk_json_key(j, "sum"), pk_json_double(j, sum);
    pk_json_key(j, "min"), pk_json_double(j, min);
    pk_json_key(j, "max"), pk_json_double(j, max);
    pk_json_key(j, "mean"), pk_json_double(j, mean);
    pk_json_key(j, "stddev"), pk_json_double(j, var > 0 ? sqrt(var) : 0);
    pk_json_key(j, "imbalance"), pk_json_double(j, mean != 0 ? max / mean - 1 : 0);
}

static void write_list(pk_json *j, const pk_profile *p, const loc_value *v, size_t n)
{
    pk_json_key(j, "locations");
    pk_json_array_begin(j);
    for (size_t i = 0; i < n && i < MAX_LISTED; i++) {
        pk_json_object_begin(j);
        pk_json_key(j, "index"), pk_json_uint(j, v[i].loc);
        pk_json_key(j, "name"), pk_json_location_name(j, p, v[i].loc);
        pk_json_key(j, "inclusive"), pk_json_double(j, v[i].incl);
        pk_json_key(j, "exclusive"), pk_json_double(j, v[i].excl);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
    pk_json_key(j, "locations_total"), pk_json_uint(j, n);
}

static int gather(const pk_profile *p, pk_index metric, const unsigned char *mark, loc_value **out,
                  size_t *n_out, char *err, size_t size)
{
    size_t nl = pk_location_count(p), nc = pk_context_count(p), n = 0;
    loc_value *v = malloc((nl ? nl : 1) * sizeof *v);
    double *buf = malloc((nc ? nc : 1) * sizeof *buf);
    unsigned char *sel = calloc(nl ? nl : 1, 1);
    pk_status st = v && buf && sel ? PK_OK : PK_ERR_NOMEM;
    for (pk_index l = 0; !st && l < nl; l++) {
        pk_location loc;
        if (pk_location_get(p, l, &loc) || loc.is_summary) continue;
        st = one_location(p, metric, mark, l, buf, sel, &v[n++]);
    }
    free(buf), free(sel);
    if (st) {
        free(v);
        snprintf(err, size, "no per-location values here: %s", pk_error_last());
        return st == PK_ERR_NOMEM ? 500 : 400;
    }
    qsort(v, n, sizeof *v, by_inclusive);
    *out = v, *n_out = n;
    return 200;
}

int pkv_route_locations(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size)
{
    pkv_common c;
    if (!pkv_only(q, locations_params, err, size)) return 400;
    const char *name = pkv_get(q, "function");
    if (!name) return snprintf(err, size, "locations wants function"), 400;
    int rc = pkv_common_params(s, q, &c, err, size);
    if (rc != 200) return rc;
    size_t hits = 0, n = 0;
    name = pkv_function_name(c.sd->p, name);
    unsigned char *mark = function_contexts(c.sd->p, name, &hits);
    if (!mark) return snprintf(err, size, "out of memory"), 500;
    if (!hits) return free(mark), snprintf(err, size, "no function '%.200s'", name), 404;
    loc_value *v = NULL;
    rc = gather(c.sd->p, c.metric, mark, &v, &n, err, size);
    free(mark);
    if (rc != 200) return rc;
    double total;
    if (pk_metric_program_total(c.sd->p, c.metric, &total)) total = NAN;
    pkv_json_head(j, "profkit.view.locations/1", &c, total);
    pk_json_key(j, "of");
    char *of = malloc(strlen(name) + 10);
    if (of) sprintf(of, "function %s", name);
    pk_json_string(j, of);
    free(of);
    write_list(j, c.sd->p, v, n);
    write_stats(j, v, n);
    pk_json_object_end(j);
    free(v);
    return 200;
}
