/*
 * analysis/query_metric.c — which metrics a query's `metric` option
 * names. One metric: the exact name, else the one name it begins
 * (case-insensitively), else the one spelled alike without punctuation
 * ("CPUTIME_sec" for "CPUTIME (sec)"); several or none is an error that
 * lists the candidates, never a silent pick. Without the option: the
 * profile's default metric (pk_metric_default()). Columns: "A,B,NAME=EXPR"
 * (docs/derived.md), each metric an expression names a base resolved the
 * same way and listed once, so an answer computes each base's values once.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/qry.h"
#include "util/error.h"

/* "name" or "name:inclusive" / "name:exclusive" */
static void split_scope(const char *spec, char *name, size_t size, pk_scope_kind *scope)
{
    const char *colon = strrchr(spec, ':');
    *scope = PK_SCOPE_OTHER;
    if (colon && (strcmp(colon + 1, "inclusive") == 0 || strcmp(colon + 1, "exclusive") == 0)) {
        *scope = colon[1] == 'i' ? PK_SCOPE_INCLUSIVE : PK_SCOPE_EXCLUSIVE;
        snprintf(name, size, "%.*s", (int)(colon - spec), spec);
    } else {
        snprintf(name, size, "%s", spec);
    }
}

/* Letters and digits of `s`, lower case. */
static void spelled(const char *s, char *buf, size_t size)
{
    size_t k = 0;
    for (; *s && k + 1 < size; s++)
        if (isalnum((unsigned char)*s)) buf[k++] = (char)tolower((unsigned char)*s);
    buf[k] = 0;
}

enum { BY_EXACT, BY_PREFIX, BY_SPELLING };

static int matches(const char *metric, const char *name, int how)
{
    char want[512], got[512];
    if (!metric) return 0;
    if (how == BY_EXACT) return strcmp(metric, name) == 0;
    if (how == BY_PREFIX) return strncasecmp(metric, name, strlen(name)) == 0;
    spelled(name, want, sizeof want);
    spelled(metric, got, sizeof got);
    return *want && strcmp(want, got) == 0;
}

/* Append to a fixed message buffer, as far as it holds. */
static void put(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (*len < size) {
        int k = vsnprintf(buf + *len, size - *len, fmt, ap);
        *len += k > 0 ? (size_t)k : 0;
    }
    va_end(ap);
}

/* "no metric named 'X'; the metrics are: Ir, Dr, ... (42 in all)", or the
 * ambiguous matches of `how`. */
static pk_status not_found(const pk_profile *p, const char *name, int how)
{
    char msg[2048];
    size_t len = 0, n = pk_metric_count(p), shown = 0, all = 0;
    if (how >= 0)
        put(msg, sizeof msg, &len, "metric '%.200s' is ambiguous; it matches ", name);
    else
        put(msg, sizeof msg, &len, "no metric named '%.200s'; the metrics are: ", name);
    for (pk_index m = 0; m < n; m++) {
        pk_metric met;
        pk_metric_get(p, m, &met);
        if (how >= 0 && !matches(met.name, name, how)) continue;
        if (all++ < 24)
            put(msg, sizeof msg, &len, "%s%.60s", shown++ ? ", " : "", met.name ? met.name : "?");
    }
    if (all > shown) put(msg, sizeof msg, &len, ", ... (%zu in all)", all);
    return pk_fail(PK_ERR_NOT_FOUND, "%s", msg);
}

static pk_status pick_named(const pk_profile *p, const char *name, pk_index *out)
{
    size_t n = pk_metric_count(p);
    for (int how = BY_EXACT; how <= BY_SPELLING; how++) {
        size_t hits = 0;
        for (pk_index m = 0; m < n; m++) {
            pk_metric met;
            pk_metric_get(p, m, &met);
            if (matches(met.name, name, how)) *out = hits++ ? *out : m;
        }
        if (hits == 1 || (hits > 1 && how == BY_EXACT)) return PK_OK; /* a name twice: the first */
        if (hits > 1) return not_found(p, name, how);
    }
    return not_found(p, name, -1);
}

pk_status pkq_metric_pick(const pk_profile *p, const char *spec, pk_index *out,
                          pk_scope_kind *scope)
{
    char name[512];
    pk_scope_kind sk = PK_SCOPE_OTHER;
    if (spec && *spec) split_scope(spec, name, sizeof name, &sk);
    if (scope) *scope = sk;
    if (spec && *spec) return pick_named(p, name, out);
    if (pk_metric_default(p, out) == PK_OK) return PK_OK;
    return pk_fail(PK_ERR_NOT_FOUND, "the profile has no metrics");
}

pk_status pk_metric_lookup(const pk_profile *p, const char *spec, pk_index *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_metric_lookup: bad arguments");
    return pkq_metric_pick(p, spec, out, NULL);
}

/* ---- columns --------------------------------------------------------- */

/* The base metric named `name`, added once; *at its index. */
static pk_status add_base(const pk_profile *p, pkq_columns *t, const char *name, size_t *at)
{
    pk_index m;
    pk_status st = pkq_metric_pick(p, name, &m, NULL);
    if (st) return st;
    for (*at = 0; *at < t->n_base; (*at)++)
        if (t->base[*at] == m) return PK_OK;
    pk_index *b = realloc(t->base, (t->n_base + 1) * sizeof *b);
    if (b) t->base = b;
    pk_metric *bm = b ? realloc(t->base_met, (t->n_base + 1) * sizeof *bm) : NULL;
    if (!bm) return pk_fail_nomem("a query's metrics");
    t->base_met = bm;
    pk_metric_get(p, m, &t->base_met[t->n_base]);
    t->base[t->n_base++] = m;
    return PK_OK;
}

static pk_status grow_columns(pkq_columns *t)
{
    pkq_column *c = realloc(t->col, (t->n_col + 1) * sizeof *c);
    if (!c) return pk_fail_nomem("a query's columns");
    t->col = c;
    memset(&c[t->n_col], 0, sizeof *c);
    return PK_OK;
}

/* A plain metric "NAME[:scope]" as a column. */
static pk_status add_metric(const pk_profile *p, pkq_columns *t, const char *item)
{
    pk_status st = grow_columns(t);
    pkq_column *c = st ? NULL : &t->col[t->n_col];
    if (c && !(c->base = calloc(1, sizeof *c->base))) st = pk_fail_nomem("a query's columns");
    if (st) return st;
    t->n_col++;
    c->plain = 1;
    char name[512];
    split_scope(item, name, sizeof name, &c->scope);
    pk_index m;
    st = pkq_metric_pick(p, item, &m, NULL);
    if (!st) st = add_base(p, t, name, &c->base[0]);
    if (!st &&
        !(c->label = strdup(t->base_met[c->base[0]].name ? t->base_met[c->base[0]].name : "?")))
        st = pk_fail_nomem("a query's columns");
    return st;
}

/* "miss=D1mr/Dr" as a column. */
static pk_status add_expression(const pk_profile *p, pkq_columns *t, const char *item,
                                const char *eq)
{
    pk_status st = grow_columns(t);
    if (st) return st;
    pkq_column *c = &t->col[t->n_col++];
    c->scope = PK_SCOPE_OTHER;
    if (!(c->label = strndup(item, (size_t)(eq - item)))) return pk_fail_nomem("a label");
    if (!*c->label)
        return pk_fail(PK_ERR_INVALID_ARG, "metric: '%.200s' has no name before '='", item);
    st = pk_expr_parse(eq + 1, &c->e);
    if (st) return pk_fail(st, "metric: %s", pk_error_last());
    size_t nv = pk_expr_var_count(c->e);
    if (!(c->base = calloc(nv ? nv : 1, sizeof *c->base))) return pk_fail_nomem("a column");
    for (size_t i = 0; i < nv && !st; i++)
        st = add_base(p, t, pk_expr_var_name(c->e, i), &c->base[i]);
    return st;
}

static pk_status add_item(const pk_profile *p, pkq_columns *t, const char *item)
{
    const char *eq = strchr(item, '=');
    pk_index m;
    if (!eq || pkq_metric_pick(p, item, &m, NULL) == PK_OK) return add_metric(p, t, item);
    return add_expression(p, t, item, eq);
}

pk_status pkq_columns_parse(const pk_profile *p, const pk_query *q, pkq_columns *t)
{
    memset(t, 0, sizeof *t);
    const char *spec = pkq_text(q, PKQ_METRIC);
    pk_index m;
    pk_status st;
    /* a metric's own name may hold ',' or '=' ("REALTIME (sec).[0,0]") */
    if (!spec || !strpbrk(spec, ",=") || pkq_metric_pick(p, spec, &m, NULL) == PK_OK) {
        st = pkq_metric_pick(p, spec, &m, NULL);
        if (!st) {
            pk_metric met;
            pk_metric_get(p, m, &met);
            char one[1024];
            snprintf(one, sizeof one, "%s%s", met.name ? met.name : "",
                     spec && strstr(spec, ":inclusive")   ? ":inclusive"
                     : spec && strstr(spec, ":exclusive") ? ":exclusive"
                                                          : "");
            st = add_metric(p, t, spec ? spec : one);
        }
    } else {
        char *copy = strdup(spec);
        st = copy ? PK_OK : pk_fail_nomem("a query's metrics");
        for (char *save = NULL, *item = copy ? strtok_r(copy, ",", &save) : NULL; !st && item;
             item = strtok_r(NULL, ",", &save))
            st = add_item(p, t, item);
        free(copy);
        if (!st && t->n_col == 0) st = pk_fail(PK_ERR_INVALID_ARG, "metric: names no metric");
    }
    if (st) pkq_columns_free(t);
    return st;
}

void pkq_columns_free(pkq_columns *t)
{
    for (size_t i = 0; i < t->n_col; i++) {
        free(t->col[i].label);
        free(t->col[i].base);
        pk_expr_free(t->col[i].e);
    }
    free(t->col);
    free(t->base);
    free(t->base_met);
    memset(t, 0, sizeof *t);
}

double pkq_columns_eval(const pkq_columns *t, size_t c, const double *base_values)
{
    const pkq_column *col = &t->col[c];
    if (!col->e) return base_values[col->base[0]];
    size_t n = pk_expr_var_count(col->e);
    double stack_vars[16], *vars = n <= 16 ? stack_vars : malloc(n * sizeof *vars);
    if (!vars) return NAN;
    for (size_t i = 0; i < n; i++)
        vars[i] = base_values[col->base[i]];
    double v = pk_expr_eval(col->e, vars);
    if (vars != stack_vars) free(vars);
    return v;
}
