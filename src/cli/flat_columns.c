/*
 * cli/flat_columns.c — `flat -m A,B,name=EXPR`: several metrics, and
 * metrics derived by expression, as columns of one flat profile. Each
 * metric an expression names is aggregated per group first (rows of
 * `flat -m NAME`), then the expression is evaluated on the group's
 * values: a miss rate is misses over accesses of the function, not a sum
 * of per-context rates. Rows are the groups any of the metrics has.
 */
#define _POSIX_C_SOURCE 200809L /* strdup, strtok_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_COLUMNS 16

typedef struct column {
    char label[64];
    pk_expr *e;
    size_t base[32]; /* index in `bases` of each of e's names */
} column;

typedef struct base {
    pk_metric met;
    pk_flat_row *rows; /* sorted by key */
    size_t n;
    pk_number_format nf;
} base;

typedef struct table {
    column col[MAX_COLUMNS];
    size_t n_col;
    base b[32];
    size_t n_base;
} table;

int cli_metric_list(const pk_profile *p, const char *spec)
{
    pk_index m; /* a metric's own name may hold ',' or '=' ("REALTIME (sec).[0,0]") */
    return spec && (strchr(spec, ',') || strchr(spec, '=')) &&
           !cli_pick_metric(NULL, p, spec, &m, NULL);
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const pk_flat_row *)a)->key, y = ((const pk_flat_row *)b)->key;
    return x < y ? -1 : x > y;
}

/* The base metric named `name` (resolved like -m), added once. */
static int add_base(const pk_profile *p, const cli_view *v, pk_group_by by, table *t,
                    const char *name, size_t *at)
{
    pk_index m;
    if (!cli_pick_metric("flat", p, name, &m, NULL)) return CLI_BAD;
    pk_metric met;
    pk_metric_get(p, m, &met);
    for (*at = 0; *at < t->n_base; (*at)++)
        if (strcmp(t->b[*at].met.name, met.name) == 0) return CLI_OK;
    if (t->n_base == 32) return cli_usage_error("flat", "too many metrics");
    base *b = &t->b[t->n_base];
    cli_view one = *v;
    one.metric = met.name;
    int rc = cli_flat_rows(p, &one, by, &b->rows, &b->n, &b->nf);
    if (rc) return rc;
    b->met = met;
    qsort(b->rows, b->n, sizeof *b->rows, by_key);
    t->n_base++;
    return CLI_OK;
}

/* "Ir" or "miss=D1mr/Dr" into a column. */
static int add_column(const pk_profile *p, const cli_view *v, pk_group_by by, table *t,
                      const char *item)
{
    if (t->n_col == MAX_COLUMNS) return cli_usage_error("flat", "at most 16 metrics");
    column *c = &t->col[t->n_col];
    const char *eq = strchr(item, '=');
    const char *text = eq ? eq + 1 : item;
    snprintf(c->label, sizeof c->label, "%.*s", eq ? (int)(eq - item) : (int)strlen(item), item);
    pk_status st = eq ? pk_expr_parse(text, &c->e) : PK_OK;
    if (!eq) { /* a plain name, maybe with blanks or parentheses: no expression */
        char quoted[600];
        snprintf(quoted, sizeof quoted, "\"%s\"", item);
        st = pk_expr_parse(quoted, &c->e);
    }
    if (st) return cli_usage_error("flat", "%s", pk_error_last());
    t->n_col++;
    for (size_t i = 0; i < pk_expr_var_count(c->e); i++) {
        int rc = add_base(p, v, by, t, pk_expr_var_name(c->e, i), &c->base[i]);
        if (rc) return rc;
    }
    if (!eq) snprintf(c->label, sizeof c->label, "%s", t->b[c->base[0]].met.name);
    return CLI_OK;
}

static const pk_flat_row *row_of(const base *b, uint64_t key)
{
    pk_flat_row k = {.key = key};
    return bsearch(&k, b->rows, b->n, sizeof *b->rows, by_key);
}

/* Every key any base has, sorted, unique. */
static uint64_t *all_keys(const table *t, size_t *n)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < t->n_base; i++)
        total += t->b[i].n;
    uint64_t *keys = malloc((total ? total : 1) * sizeof *keys);
    for (size_t i = 0; keys && i < t->n_base; i++)
        for (size_t j = 0; j < t->b[i].n; j++)
            keys[k++] = t->b[i].rows[j].key;
    pk_flat_row *tmp = keys ? malloc((k ? k : 1) * sizeof *tmp) : NULL;
    if (!tmp) return free(keys), NULL;
    for (size_t i = 0; i < k; i++)
        tmp[i].key = keys[i];
    qsort(tmp, k, sizeof *tmp, by_key);
    *n = 0;
    for (size_t i = 0; i < k; i++)
        if (i == 0 || tmp[i].key != tmp[i - 1].key) keys[(*n)++] = tmp[i].key;
    free(tmp);
    return keys;
}

/* Column c's self value of group `key` (NaN when x/0). */
static double value(const table *t, const column *c, uint64_t key, int inclusive)
{
    double vars[32];
    for (size_t i = 0; i < pk_expr_var_count(c->e); i++) {
        const pk_flat_row *r = row_of(&t->b[c->base[i]], key);
        vars[i] = r ? (inclusive ? r->inclusive : r->exclusive) : 0;
    }
    return pk_expr_eval(c->e, vars);
}

typedef struct ranked {
    uint64_t key;
    double v;
} ranked;

static int by_value(const void *a, const void *b)
{
    double x = ((const ranked *)a)->v, y = ((const ranked *)b)->v;
    if (isnan(x) != isnan(y)) return isnan(x) ? 1 : -1;
    if (x != y) return x > y ? -1 : 1;
    return ((const ranked *)a)->key < ((const ranked *)b)->key ? -1 : 1;
}

/* The number format of a column: its metric's when it is one metric. */
static const pk_number_format *format_of(const table *t, const column *c)
{
    return pk_expr_var_count(c->e) == 1 && strcmp(c->label, t->b[c->base[0]].met.name) == 0
               ? &t->b[c->base[0]].nf
               : NULL;
}

static void print_table(const pk_profile *p, const table *t, const cli_view *v, pk_group_by by,
                        ranked *r, size_t n)
{
    static const char *const by_names[] = {"function", "file", "module", "line"};
    char name[1024], cell[48], head[96];
    printf("metrics per %s, self values (in the %s itself), sorted by %s; derived\n"
           "columns are evaluated on each row's totals\n\n",
           by_names[by], by_names[by], t->col[0].label);
    int w[MAX_COLUMNS]; /* 12, or the header's width */
    unsigned used = 1;
    for (size_t c = 0; c < t->n_col; c++) {
        pk_format_header(head, sizeof head, t->col[c].label, format_of(t, &t->col[c]));
        w[c] = strlen(head) > 12 ? (int)strlen(head) : 12;
        used += (unsigned)w[c] + 1;
        printf("%*s ", w[c], cli_text(head));
    }
    printf(" %s\n", by_names[by]);
    size_t shown = v->top && v->top < n ? v->top : n;
    unsigned width = cli_terminal_width(stdout);
    for (size_t i = 0; i < shown; i++) {
        for (size_t c = 0; c < t->n_col; c++) {
            double x = value(t, &t->col[c], r[i].key, 0);
            if (isnan(x))
                snprintf(cell, sizeof cell, "-");
            else
                pk_format_number(cell, sizeof cell, x, format_of(t, &t->col[c]));
            printf("%*s ", w[c], cell);
        }
        pk_flat_row row = {.key = r[i].key};
        pk_flat_row_name(p, by, &row, name, sizeof name);
        printf(" %s\n", cli_name(name, v->no_demangle, width > used + 20 ? width - used : 20));
    }
    if (shown < n) printf("(%zu more rows not shown)\n", n - shown);
}

int cli_flat_columns(const pk_profile *p, const cli_view *v, pk_group_by by)
{
    if (v->json || v->csv)
        return cli_usage_error("flat", "several or derived metrics print as text only");
    table *t = calloc(1, sizeof *t);
    char *spec = strdup(v->metric);
    int rc = t && spec ? CLI_OK : CLI_BAD;
    for (char *save = NULL, *item = spec ? strtok_r(spec, ",", &save) : NULL; !rc && item;
         item = strtok_r(NULL, ",", &save))
        rc = add_column(p, v, by, t, item);
    size_t n = 0;
    uint64_t *keys = rc ? NULL : all_keys(t, &n);
    ranked *r = keys ? malloc((n ? n : 1) * sizeof *r) : NULL;
    if (!rc && !r) rc = CLI_BAD, fprintf(stderr, "profkit flat: out of memory\n");
    if (!rc) {
        for (size_t i = 0; i < n; i++)
            r[i] = (ranked){keys[i], value(t, &t->col[0], keys[i], 0)};
        qsort(r, n, sizeof *r, by_value);
        print_table(p, t, v, by, r, n);
    }
    free(r), free(keys), free(spec);
    for (size_t i = 0; t && i < t->n_col; i++)
        pk_expr_free(t->col[i].e);
    for (size_t i = 0; t && i < t->n_base; i++)
        pk_flat_free(t->b[i].rows);
    free(t);
    return rc;
}
