/*
 * cli/flat_columns.c — `flat -m A,B,name=EXPR`: several metrics, and
 * metrics derived by expression, as columns of one flat profile. Each
 * metric an expression names is aggregated per group first (rows of
 * `flat -m NAME`), then the expression is evaluated on the group's
 * values: a miss rate is misses over accesses of the function, not a sum
 * of per-context rates. Rows are the groups any of the metrics has.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct base {
    pk_flat_row *rows; /* sorted by key */
    size_t n;
    pk_number_format nf;
    double total;
} base;

typedef struct table {
    cli_columns cols;
    base b[CLI_MAX_BASES];
} table;

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const pk_flat_row *)a)->key, y = ((const pk_flat_row *)b)->key;
    return x < y ? -1 : x > y;
}

/* The rows of every base metric, sorted by key. */
static int base_rows(const pk_profile *p, const cli_view *v, pk_group_by by, table *t)
{
    for (size_t i = 0; i < t->cols.n_base; i++) {
        cli_view one = *v;
        one.metric = t->cols.base[i].name;
        base *b = &t->b[i];
        int rc = cli_flat_rows(p, &one, by, &b->rows, &b->n, &b->nf, &b->total);
        if (rc) return rc;
        qsort(b->rows, b->n, sizeof *b->rows, by_key);
    }
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
    for (size_t i = 0; i < t->cols.n_base; i++)
        total += t->b[i].n;
    uint64_t *keys = malloc((total ? total : 1) * sizeof *keys);
    for (size_t i = 0; keys && i < t->cols.n_base; i++)
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

/* Column c's self (or inclusive) value of group `key` (NaN when x/0). */
static double value(const table *t, size_t c, uint64_t key, int inclusive)
{
    double vals[CLI_MAX_BASES];
    for (size_t i = 0; i < t->cols.n_base; i++) {
        const pk_flat_row *r = row_of(&t->b[i], key);
        vals[i] = r ? (inclusive ? r->inclusive : r->exclusive) : 0;
    }
    return cli_columns_eval(&t->cols, c, vals);
}

/* Column c's total: evaluated on the metrics' totals. */
static double total_of(const table *t, size_t c)
{
    double vals[CLI_MAX_BASES];
    for (size_t i = 0; i < t->cols.n_base; i++)
        vals[i] = t->b[i].total;
    return cli_columns_eval(&t->cols, c, vals);
}

int cli_ranked_by_value(const void *a, const void *b)
{
    double x = ((const cli_ranked *)a)->v, y = ((const cli_ranked *)b)->v;
    if (isnan(x) != isnan(y)) return isnan(x) ? 1 : -1;
    if (x != y) return x > y ? -1 : 1;
    return ((const cli_ranked *)a)->key < ((const cli_ranked *)b)->key ? -1 : 1;
}

/* The number format of a column: its metric's when it is one metric. */
static const pk_number_format *format_of(const table *t, size_t c)
{
    return t->cols.col[c].plain ? &t->b[t->cols.col[c].base[0]].nf : NULL;
}

/* Rows shown: --top, and --threshold of the first column's total. */
static size_t rows_shown(const table *t, const cli_view *v, const cli_ranked *r, size_t n)
{
    double total = fabs(total_of(t, 0));
    size_t k = 0;
    for (; k < n && (v->top == 0 || k < v->top); k++)
        if (v->threshold > 0 && !isnan(r[k].v) && fabs(r[k].v) < v->threshold / 100.0 * total)
            break;
    return k;
}

static void print_table(const pk_profile *p, const table *t, const cli_view *v, pk_group_by by,
                        cli_ranked *r, size_t n)
{
    static const char *const by_names[] = {"function", "file", "module", "line"};
    char name[1024], cell[48], head[96];
    printf("metrics per %s, self values (in the %s itself), sorted by %s; derived\n"
           "columns are evaluated on each row's totals\n\n",
           by_names[by], by_names[by], t->cols.col[0].label);
    int w[CLI_MAX_COLUMNS]; /* 12, or the header's width */
    unsigned used = 1;
    for (size_t c = 0; c < t->cols.n_col; c++) {
        pk_format_header(head, sizeof head, t->cols.col[c].label, format_of(t, c));
        w[c] = strlen(head) > 12 ? (int)strlen(head) : 12;
        used += (unsigned)w[c] + 1;
        printf("%*s ", w[c], cli_text(head));
    }
    printf(" %s\n", by_names[by]);
    size_t shown = rows_shown(t, v, r, n);
    unsigned width = cli_terminal_width(stdout);
    for (size_t i = 0; i < shown; i++) {
        for (size_t c = 0; c < t->cols.n_col; c++) {
            double x = value(t, c, r[i].key, 0);
            if (isnan(x))
                snprintf(cell, sizeof cell, "-");
            else
                pk_format_number(cell, sizeof cell, x, format_of(t, c));
            printf("%*s ", w[c], cell);
        }
        pk_flat_row row = {.key = r[i].key};
        pk_flat_row_name(p, by, &row, name, sizeof name);
        printf(" %s\n", cli_name(name, v->no_demangle, width > used + 20 ? width - used : 20));
    }
    if (shown < n) printf("(%zu more rows not shown)\n", n - shown);
}

static void write_csv(const pk_profile *p, const table *t, pk_group_by by, const cli_ranked *r,
                      size_t shown)
{
    char num[40];
    fputs("name,module,file,line", stdout);
    for (size_t c = 0; c < t->cols.n_col; c++)
        for (int k = 0; k < 2; k++) {
            snprintf(num, sizeof num, "%s", k ? ":inclusive" : ":exclusive");
            putchar(',');
            char label[128];
            snprintf(label, sizeof label, "%s%s", t->cols.col[c].label, num);
            pk_csv_field(stdout, label);
        }
    putchar('\n');
    for (size_t i = 0; i < shown; i++) {
        pk_flat_row row = {.key = r[i].key};
        cli_flat_csv_name(p, by, &row);
        for (size_t c = 0; c < t->cols.n_col; c++)
            for (int k = 0; k < 2; k++) {
                double x = value(t, c, r[i].key, k);
                putchar(',');
                if (!isnan(x)) pk_format_double(num, sizeof num, x), fputs(num, stdout);
            }
        putchar('\n');
    }
}

static void json_row(pk_json *j, const pk_profile *p, const table *t, pk_group_by by, uint64_t key)
{
    pk_flat_row row = {.key = key};
    pk_json_object_begin(j);
    pk_json_key(j, "name"), cli_json_flat_row_name(j, p, by, &row);
    pk_json_key(j, "self"), pk_json_double(j, value(t, 0, key, 0));
    pk_json_key(j, "exclusive"), pk_json_double(j, value(t, 0, key, 0));
    pk_json_key(j, "inclusive"), pk_json_double(j, value(t, 0, key, 1));
    pk_json_key(j, "values");
    pk_json_array_begin(j);
    for (size_t c = 0; c < t->cols.n_col; c++) {
        pk_json_object_begin(j);
        pk_json_key(j, "exclusive"), pk_json_double(j, value(t, c, key, 0));
        pk_json_key(j, "inclusive"), pk_json_double(j, value(t, c, key, 1));
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
    pk_json_object_end(j);
}

static int write_json(const pk_profile *p, const cli_view *v, const table *t, pk_group_by by,
                      const cli_ranked *r, size_t n, size_t shown)
{
    static const char *const by_names[] = {"function", "file", "module", "line"};
    pk_json j;
    pk_json_init(&j, stdout, 1);
    pk_json_object_begin(&j);
    pk_json_key(&j, "schema"), pk_json_string(&j, "profkit.flat/1");
    pk_json_key(&j, "metric"), pk_json_string(&j, t->cols.col[0].label);
    pk_json_key(&j, "source");
    pk_json_string(&j, cli_flat_from_callgraph(p, v) ? "callgraph"
                       : cli_is_reconstructed(p)     ? "reconstructed tree"
                                                     : "tree");
    pk_json_completeness(&j, p);
    pk_json_key(&j, "by"), pk_json_string(&j, by_names[by]);
    pk_json_key(&j, "total"), pk_json_double(&j, total_of(t, 0));
    pk_json_key(&j, "metrics");
    pk_json_array_begin(&j);
    for (size_t c = 0; c < t->cols.n_col; c++) {
        const cli_column *col = &t->cols.col[c];
        pk_json_object_begin(&j);
        pk_json_key(&j, "name"), pk_json_string(&j, col->label);
        pk_json_key(&j, "unit");
        pk_json_string(&j, col->plain ? t->cols.base[col->base[0]].unit : NULL);
        pk_json_key(&j, "total"), pk_json_double(&j, total_of(t, c));
        pk_json_object_end(&j);
    }
    pk_json_array_end(&j);
    pk_json_key(&j, "rows");
    pk_json_array_begin(&j);
    for (size_t i = 0; i < shown; i++)
        json_row(&j, p, t, by, r[i].key);
    pk_json_array_end(&j);
    pk_json_key(&j, "hidden"), pk_json_uint(&j, n - shown);
    pk_json_object_end(&j);
    return cli_json_done("flat", &j);
}

int cli_flat_columns(const pk_profile *p, const cli_view *v, pk_group_by by)
{
    table *t = calloc(1, sizeof *t);
    if (!t) return fprintf(stderr, "profkit flat: out of memory\n"), CLI_BAD;
    int rc = cli_columns_parse("flat", p, v->metric, &t->cols);
    if (!rc) rc = base_rows(p, v, by, t);
    size_t n = 0;
    uint64_t *keys = rc ? NULL : all_keys(t, &n);
    cli_ranked *r = keys ? malloc((n ? n : 1) * sizeof *r) : NULL;
    if (!rc && !r) rc = CLI_BAD, fprintf(stderr, "profkit flat: out of memory\n");
    if (!rc) {
        for (size_t i = 0; i < n; i++)
            r[i] = (cli_ranked){keys[i], value(t, 0, keys[i], 0)};
        qsort(r, n, sizeof *r, cli_ranked_by_value);
        if (v->json)
            rc = write_json(p, v, t, by, r, n, rows_shown(t, v, r, n));
        else if (v->csv)
            write_csv(p, t, by, r, rows_shown(t, v, r, n)), rc = cli_output_done("flat");
        else
            print_table(p, t, v, by, r, n);
    }
    free(r), free(keys);
    for (size_t i = 0; i < t->cols.n_base; i++)
        pk_flat_free(t->b[i].rows);
    cli_columns_free(&t->cols);
    free(t);
    return rc;
}
