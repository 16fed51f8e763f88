/*
 * view/routes.c — the API's route table and what every route shares: the
 * common parameters (side, metric, location, stat) checked against the
 * profile, the error document, and rendering into memory, so the HTTP
 * server and the report builder get the same bytes for the same URL.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

typedef struct route {
    const char *name;
    pkv_route_fn fn; /* writes through the session's JSON writer */
    pkv_raw_fn raw;  /* or renders a whole document itself (the CLI's renderers) */
} route;

static const route routes[] = {
    {"profile", NULL, pkv_route_profile},     {"tree", pkv_route_tree, NULL},
    {"flame", pkv_route_flame, NULL},         {"flat", pkv_route_flat, NULL},
    {"locations", pkv_route_locations, NULL}, {"trace", pkv_route_trace, NULL},
    {"callers", pkv_route_callers, NULL},     {"callees", pkv_route_callees, NULL},
    {"source", pkv_route_source, NULL},       {"diff", pkv_route_diff, NULL},
};

static const route *find(const char *name)
{
    for (size_t i = 0; i < sizeof routes / sizeof *routes; i++)
        if (strcmp(routes[i].name, name) == 0) return &routes[i];
    return NULL;
}

int pkv_route_known(const char *name)
{
    return find(name) != NULL;
}

int pkv_metric(const pkv_side *sd, const char *name, pk_index *out, char *err, size_t size)
{
    if (!name) return *out = sd->default_metric, 200;
    pk_index n = (pk_index)pk_metric_count(sd->p);
    for (pk_index m = 0; m < n; m++) { /* the page sends names it was given: exact first */
        pk_metric met;
        if (pk_metric_get(sd->p, m, &met) == PK_OK && met.name && strcmp(met.name, name) == 0)
            return *out = m, 200;
    }
    if (pk_metric_lookup(sd->p, name, out) == PK_OK) return 200;
    snprintf(err, size, "no metric '%.200s' (or several match)", name);
    return 404;
}

static int parse_stat(const char *s, pk_across *out)
{
    static const char *const names[] = {"sum", "mean", "min", "max", "stddev"};
    for (int i = 0; i <= PK_ACROSS_STDDEV; i++)
        if (strcmp(s, names[i]) == 0) return *out = (pk_across)i, 1;
    return 0;
}

int pkv_status(pk_status st, char *err, size_t size)
{
    if (st == PK_OK) return 200;
    snprintf(err, size, "%s", pk_error_last());
    /* 422: a question the data cannot answer (a flame graph of a minimum);
     * a limit (a search's time, the memory budget) is no fault of the
     * request's form nor of the server: 503, the answer is not given */
    return st == PK_ERR_INVALID_ARG   ? 400
           : st == PK_ERR_NOT_FOUND   ? 404
           : st == PK_ERR_UNSUPPORTED ? 422
           : st == PK_ERR_LIMIT       ? 503
                                      : 500;
}

int pkv_make_query(const pkv_query *q, const char *const *names, const char *top, pk_query **out,
                   char *err, size_t size)
{
    pk_status st = pk_query_new(out);
    if (!st && top) st = pk_query_set(*out, "top", top);
    for (size_t i = 0; !st && i < q->n; i++) {
        const char *name = q->p[i].key;
        if (strcmp(name, "side") == 0) continue; /* the page's, not the question's */
        for (size_t k = 0; names && names[k]; k += 2)
            if (strcmp(names[k], q->p[i].key) == 0) name = names[k + 1];
        if (name && pk_query_has_option(name)) st = pk_query_set(*out, name, q->p[i].value);
    }
    if (st) pk_query_free(*out), *out = NULL;
    return pkv_status(st, err, size);
}

/* A selector as --location takes it ("#N", "rank=3", "rank=0,thread=1")
 * that names at least one non-summary location of the side: the page's
 * Location is the CLI's --location, for every pane alike. */
static int check_location(const pk_profile *p, const char *loc, char *err, size_t size)
{
    size_t n = pk_location_count(p);
    unsigned char *sel = calloc(n ? n : 1, 1);
    if (!sel) return snprintf(err, size, "out of memory"), 500;
    size_t matched = 0;
    pk_status st = pk_location_select(p, loc, sel, n, &matched);
    free(sel);
    if (st == PK_OK && matched) return 200;
    if (st == PK_ERR_INVALID_ARG) return snprintf(err, size, "%s", pk_error_last()), 400;
    snprintf(err, size, "location '%.60s' names no location of this profile", loc);
    return 404;
}

int pkv_common_params(pkv_session *s, const pkv_query *q, pkv_common *c, char *err, size_t size)
{
    memset(c, 0, sizeof *c);
    const char *side = pkv_get(q, "side"), *stat = pkv_get(q, "stat");
    if (side && strcmp(side, "a") && strcmp(side, "b"))
        return snprintf(err, size, "side wants a or b"), 400;
    c->side = side && *side == 'b';
    if (!s->side[c->side].p) return snprintf(err, size, "no --base profile (side b)"), 404;
    c->sd = &s->side[c->side];
    if (stat && !parse_stat(stat, &c->stat))
        return snprintf(err, size, "stat wants sum, mean, min, max or stddev"), 400;
    c->location = pkv_get(q, "location");
    int rc = c->location ? check_location(c->sd->p, c->location, err, size) : 200;
    if (rc == 200) rc = pkv_metric(c->sd, pkv_get(q, "metric"), &c->metric, err, size);
    if (rc == 200) pk_metric_get(c->sd->p, c->metric, &c->met);
    return rc;
}

void pkv_error_doc(pkv_response *r, int status, const char *why)
{
    r->body = NULL, r->len = 0;
    FILE *f = open_memstream(&r->body, &r->len);
    r->status = status;
    if (!f) return;
    pk_json j;
    pk_json_init(&j, f, 0);
    pk_json_object_begin(&j);
    pk_json_key(&j, "schema");
    pk_json_string(&j, "profkit.view.error/1");
    pk_json_key(&j, "error");
    pk_json_string(&j, why);
    pk_json_object_end(&j);
    pk_json_finish(&j);
    fclose(f);
}

int pkv_api(pkv_session *s, const char *name, const pkv_query *q, pkv_response *r)
{
    memset(r, 0, sizeof *r);
    char err[512] = "";
    const route *rt = find(name);
    if (!rt) return pkv_error_doc(r, 404, "no such API route"), r->body ? 0 : -1;
    if (q->error) return pkv_error_doc(r, 400, q->why), r->body ? 0 : -1;
    FILE *f = open_memstream(&r->body, &r->len);
    if (!f) return -1;
    int status;
    if (rt->raw) {
        status = rt->raw(s, q, f, err, sizeof err);
        if (status == 200 && (fflush(f) || ferror(f)))
            status = 500, snprintf(err, sizeof err, "out of memory");
    } else {
        pk_json j;
        pk_json_init(&j, f, 0);
        status = rt->fn(s, q, &j, err, sizeof err);
        pk_status st = pk_json_finish(&j);
        if (status == 200 && st) status = 500, snprintf(err, sizeof err, "%s", pk_error_last());
    }
    fclose(f);
    if (status == 200) return r->status = 200, 0;
    free(r->body);
    r->body = NULL;
    pkv_error_doc(r, status, err[0] ? err : "internal error");
    return r->body ? 0 : -1;
}

const char *pkv_function_name(const pk_profile *p, const char *name)
{
    size_t n = pk_function_count(p);
    pk_function fn;
    for (pk_index i = 0; i < n; i++)
        if (pk_function_get(p, i, &fn) == PK_OK && fn.name && strcmp(fn.name, name) == 0)
            return fn.name;
    for (pk_index i = 0; i < n; i++) { /* a name the page got with invalid UTF-8 replaced */
        if (pk_function_get(p, i, &fn) != PK_OK || !fn.name) continue;
        char *shown = pkv_page_string(fn.name);
        int same = shown && strcmp(shown, name) == 0;
        free(shown);
        if (same) return fn.name;
    }
    return name;
}
