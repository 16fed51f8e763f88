/*
 * view/route_flat.c — /api/flat: the flat profile of several metrics and
 * derived `name=EXPR` metrics at once, one row per function (file,
 * module, line), values aligned with the metrics. Each metric's rows come
 * from the CLI's own flat computation (exact call-graph values for
 * call-graph inputs, as `flat`); a derived metric is evaluated on each
 * row's totals, as `flat -m` does.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

#define MAX_METRICS 16
#define MAX_VARS    32

static const char *const flat_params[] = {"metrics", "by",       "top",  "sort", "search",
                                          "side",    "location", "stat", NULL};
static const char *const by_names[] = {"function", "file", "module", "line"};

typedef struct base {
    pk_index metric;
    pk_flat_row *rows; /* sorted by key */
    size_t n;
    double total;
} base;

typedef struct column {
    char *label; /* derived: the name before '=' */
    pk_expr *e;
    size_t var[MAX_VARS]; /* index in bases */
} column;

typedef struct table {
    const pk_profile *p;
    pkv_common c;
    pk_group_by by;
    base b[MAX_VARS];
    size_t n_base;
    column col[MAX_METRICS];
    size_t n_col;
    int callgraph;
} table;

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const pk_flat_row *)a)->key, y = ((const pk_flat_row *)b)->key;
    return x < y ? -1 : x > y;
}

static int add_base(table *t, const char *name, size_t *at, char *err, size_t size)
{
    pk_index m;
    int rc = pkv_metric(t->c.sd, name, &m, err, size);
    if (rc != 200) return rc;
    for (*at = 0; *at < t->n_base; (*at)++)
        if (t->b[*at].metric == m) return 200;
    if (t->n_base == MAX_VARS) return snprintf(err, size, "too many metrics"), 400;
    t->b[t->n_base++].metric = m; /* its rows come in fill_bases() */
    return 200;
}

/* The rows of every base metric: all at once where that is faster, each
 * a copy (a later metric may evict a cached one). */
static int fill_bases(pkv_session *s, table *t, char *err, size_t size)
{
    pk_index m[MAX_VARS];
    for (size_t i = 0; i < t->n_base; i++)
        m[i] = t->b[i].metric;
    pkv_flat_prefetch(s, t->c.side, m, t->n_base, t->c.location, t->c.stat, t->by);
    for (size_t i = 0; i < t->n_base; i++) {
        int rc;
        base *b = &t->b[i];
        const pkv_flat *f =
            pkv_flat_get(s, t->c.side, b->metric, t->c.location, t->c.stat, t->by, &rc, err, size);
        if (!f) return rc;
        if (!(b->rows = malloc((f->n ? f->n : 1) * sizeof *b->rows)))
            return snprintf(err, size, "out of memory"), 500;
        if (f->n) memcpy(b->rows, f->rows, f->n * sizeof *b->rows);
        b->n = f->n, b->total = f->total;
    }
    return 200;
}

/* "Ir" or "miss=D1mr/Dr" as a column. */
static int add_column(table *t, const char *item, char *err, size_t size)
{
    if (t->n_col == MAX_METRICS) return snprintf(err, size, "at most 16 metrics"), 400;
    column *c = &t->col[t->n_col];
    const char *eq = strchr(item, '=');
    pk_index m;
    if (eq && pkv_metric(t->c.sd, item, &m, err, size) == 200) eq = NULL; /* a name with '=' */
    c->label = eq ? strndup(item, (size_t)(eq - item)) : NULL;
    if (eq && !c->label) return snprintf(err, size, "out of memory"), 500;
    if (eq && pk_expr_parse(eq + 1, &c->e))
        return snprintf(err, size, "metrics: %s", pk_error_last()), 400;
    t->n_col++;
    if (!eq) return add_base(t, item, &c->var[0], err, size);
    if (pk_expr_var_count(c->e) > MAX_VARS) return snprintf(err, size, "too many names"), 400;
    for (size_t i = 0; i < pk_expr_var_count(c->e); i++) {
        int rc = add_base(t, pk_expr_var_name(c->e, i), &c->var[i], err, size);
        if (rc != 200) return rc;
    }
    return 200;
}

static const pk_flat_row *row_of(const base *b, uint64_t key)
{
    pk_flat_row k = {.key = key};
    return bsearch(&k, b->rows, b->n, sizeof *b->rows, by_key);
}

/* Column c of group `key`: its metric's value, or the expression on the
 * group's values (NaN for x/0). `total` instead gives the column's total. */
static double value(const table *t, const column *c, uint64_t key, int inclusive, int total)
{
    if (!c->e) {
        const base *b = &t->b[c->var[0]];
        const pk_flat_row *r = total ? NULL : row_of(b, key);
        return total ? b->total : !r ? 0 : inclusive ? r->inclusive : r->exclusive;
    }
    double vars[MAX_VARS];
    for (size_t i = 0; i < pk_expr_var_count(c->e); i++) {
        const base *b = &t->b[c->var[i]];
        const pk_flat_row *r = total ? NULL : row_of(b, key);
        vars[i] = total ? b->total : !r ? 0 : inclusive ? r->inclusive : r->exclusive;
    }
    return pk_expr_eval(c->e, vars);
}

static void table_free(table *t)
{
    for (size_t i = 0; i < t->n_base; i++)
        free(t->b[i].rows);
    for (size_t i = 0; i < t->n_col; i++)
        free(t->col[i].label), pk_expr_free(t->col[i].e);
}

static int by_key_ranked(const void *a, const void *b)
{
    uint64_t x = ((const cli_ranked *)a)->key, y = ((const cli_ranked *)b)->key;
    return x < y ? -1 : x > y;
}

static int name_matches(const table *t, uint64_t key, pk_pattern *re, pk_status *st)
{
    char name[4096];
    pk_flat_row r = {.key = key};
    pk_flat_row_name(t->p, t->by, &r, name, sizeof name);
    int hit = 0;
    if (!*st) *st = pk_pattern_match(re, name, strlen(name), &hit);
    return hit;
}

/* The groups any metric has (matching `re` when given), ranked by column
 * `sort`'s self value, largest first. */
static cli_ranked *rank(const table *t, size_t sort, pk_pattern *re, size_t *n, pk_status *st)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < t->n_base; i++)
        total += t->b[i].n;
    cli_ranked *r = malloc((total ? total : 1) * sizeof *r);
    if (!r) return NULL;
    for (size_t i = 0; i < t->n_base; i++)
        for (size_t j = 0; j < t->b[i].n; j++)
            r[k++].key = t->b[i].rows[j].key;
    qsort(r, k, sizeof *r, by_key_ranked);
    *n = 0;
    for (size_t i = 0; i < k; i++)
        if ((i == 0 || r[i].key != r[i - 1].key) && (!re || name_matches(t, r[i].key, re, st)))
            r[(*n)++].key = r[i].key;
    for (size_t i = 0; i < *n; i++)
        r[i].v = value(t, &t->col[sort], r[i].key, 0, 0);
    qsort(r, *n, sizeof *r, cli_ranked_by_value);
    return r;
}

/* name, module, file, line of a row. */
static void row_place(pk_json *j, const table *t, uint64_t key)
{
    pk_flat_row r = {.key = key};
    const char *module = NULL, *file = NULL;
    uint32_t line = 0;
    pk_function fn;
    pk_module m;
    pk_file f;
    pk_index fi = PK_NONE, mi = PK_NONE;
    if (t->by == PK_BY_FUNCTION && key < pk_function_count(t->p) &&
        pk_function_get(t->p, (pk_index)key, &fn) == PK_OK)
        fi = fn.file, mi = fn.module, line = fn.line;
    else if (t->by == PK_BY_FILE && key < PK_NONE)
        fi = (pk_index)key;
    else if (t->by == PK_BY_MODULE && key < PK_NONE)
        mi = (pk_index)key;
    else if (t->by == PK_BY_LINE)
        fi = (pk_index)(key >> 32), line = (uint32_t)key;
    if (fi != PK_NONE && pk_file_get(t->p, fi, &f) == PK_OK) file = f.path;
    if (mi != PK_NONE && pk_module_get(t->p, mi, &m) == PK_OK) module = m.path;
    pk_json_key(j, "name");
    cli_json_flat_row_name(j, t->p, t->by, &r);
    pk_json_key(j, "module");
    pk_json_string(j, module);
    pk_json_key(j, "file");
    pk_json_string(j, file);
    pk_json_key(j, "line");
    pk_json_uint(j, line);
}

static void write_metrics(pk_json *j, const table *t)
{
    pk_json_key(j, "metrics");
    pk_json_array_begin(j);
    for (size_t i = 0; i < t->n_col; i++) {
        const column *c = &t->col[i];
        pk_metric met = {0};
        if (!c->e) pk_metric_get(t->p, t->b[c->var[0]].metric, &met);
        pk_json_object_begin(j);
        pk_json_key(j, "name");
        pk_json_string(j, c->e ? c->label : met.name);
        pk_json_key(j, "unit");
        pk_json_string(j, met.unit);
        pk_json_key(j, "total");
        pk_json_double(j, value(t, c, 0, 0, 1));
        pk_json_key(j, "callgraph");
        pk_json_bool(j, t->callgraph);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static void write_rows(pk_json *j, const table *t, const cli_ranked *r, size_t shown)
{
    pk_json_key(j, "rows");
    pk_json_array_begin(j);
    for (size_t i = 0; i < shown; i++) {
        pk_json_object_begin(j);
        row_place(j, t, r[i].key);
        for (int incl = 0; incl < 2; incl++) {
            pk_json_key(j, incl ? "inclusive" : "self");
            pk_json_array_begin(j);
            for (size_t c = 0; c < t->n_col; c++)
                pk_json_double(j, value(t, &t->col[c], r[i].key, incl, 0));
            pk_json_array_end(j);
        }
        const pk_flat_row *row =
            t->callgraph && !t->col[0].e ? row_of(&t->b[t->col[0].var[0]], r[i].key) : NULL;
        pk_json_key(j, "calls");
        if (row)
            pk_json_double(j, row->calls);
        else
            pk_json_null(j);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static int parse_by(const char *s, pk_group_by *out)
{
    for (int i = 0; i < 4; i++)
        if (!s || strcmp(s, by_names[i]) == 0) return *out = (pk_group_by)i, 1;
    return 0;
}

/* The columns `metrics` lists: the whole text when it names one metric
 * (names may hold ','), else each comma-separated item. */
static int add_columns(table *t, const char *spec, char *err, size_t size)
{
    pk_index m;
    char one[16];
    if (!spec) {
        pk_metric met;
        pk_metric_get(t->p, t->c.metric, &met);
        return add_column(t, met.name, err, size);
    }
    if (pkv_metric(t->c.sd, spec, &m, one, sizeof one) == 200)
        return add_column(t, spec, err, size);
    char *copy = strdup(spec);
    int rc = copy ? 200 : 500;
    for (char *save = NULL, *item = copy ? strtok_r(copy, ",", &save) : NULL; rc == 200 && item;
         item = strtok_r(NULL, ",", &save))
        rc = add_column(t, item, err, size);
    free(copy);
    return rc;
}

static int flat_table(pkv_session *s, const pkv_query *q, table *t, char *err, size_t size)
{
    if (!pkv_only(q, flat_params, err, size)) return 400;
    int rc = pkv_common_params(s, q, &t->c, err, size);
    if (rc != 200) return rc;
    t->p = t->c.sd->p;
    if (!parse_by(pkv_get(q, "by"), &t->by))
        return snprintf(err, size, "by wants function, file, module or line"), 400;
    pk_cg_summary cg;
    t->callgraph = t->c.stat == PK_ACROSS_SUM && pk_callgraph_summary(t->p, &cg) == PK_OK;
    rc = add_columns(t, pkv_get(q, "metrics"), err, size);
    return rc == 200 ? fill_bases(s, t, err, size) : rc;
}

int pkv_route_flat(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size)
{
    table t = {0};
    unsigned long long top, sort;
    int rc = flat_table(s, q, &t, err, size);
    if (rc == 200 && !pkv_uint(q, "top", 0, 1000000, 500, &top, err, size)) rc = 400;
    if (rc == 200 && !pkv_uint(q, "sort", 0, t.n_col ? t.n_col - 1 : 0, 0, &sort, err, size))
        rc = 400;
    pk_pattern *re = NULL; /* bounded in size and time (util/pattern.c) */
    const char *search = pkv_get(q, "search");
    if (rc == 200 && search && pk_pattern_compile(search, PK_PATTERN_ICASE, &re))
        rc = 400, snprintf(err, size, "search: %s", pk_error_last());
    if (re) pk_pattern_set_time_limit(re, PKV_SEARCH_SECONDS);
    if (rc != 200) return table_free(&t), rc;
    size_t n = 0;
    pk_status st = PK_OK;
    cli_ranked *r = rank(&t, (size_t)sort, re, &n, &st);
    pk_pattern_free(re);
    if (r && st) /* the time limit: 503, the server is fine */
        return free(r), table_free(&t), snprintf(err, size, "search: %s", pk_error_last()), 503;
    if (!r) return table_free(&t), snprintf(err, size, "out of memory"), 500;
    size_t shown = top && top < n ? (size_t)top : n;
    pk_json_object_begin(j);
    pk_json_key(j, "schema");
    pk_json_string(j, "profkit.view.flat/1");
    pk_json_key(j, "by");
    pk_json_string(j, by_names[t.by]);
    write_metrics(j, &t);
    write_rows(j, &t, r, shown);
    pk_json_key(j, "hidden");
    pk_json_uint(j, n - shown);
    pk_json_object_end(j);
    free(r);
    table_free(&t);
    return 200;
}
