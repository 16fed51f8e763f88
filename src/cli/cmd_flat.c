/*
 * cli/cmd_flat.c — `profkit flat`: the flat profile of one metric, per
 * function (or source file, load module, source line), exclusive and
 * inclusive, summed over all threads/ranks.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char flat_help[] =
    "Usage: profkit flat [options] PATH\n\n"
    "Show the flat profile of one metric: its exclusive value (spent in the\n"
    "function itself) and inclusive value (with everything it called;\n"
    "recursion counted once) per function, summed over all non-summary\n"
    "locations, as values and percentages of the program total. Sorted by\n"
    "exclusive value, largest first.\n\n"
    "Options:\n"
    "  -m, --metric NAME[:SCOPE]  metric (exact name, or a case-insensitive\n"
    "                        prefix); SCOPE inclusive or exclusive sorts by it;\n"
    "                        default: the first time-like metric, exclusive\n"
    "      --by WHAT         group by function (default), file, module or line\n"
    "  -n, --top N           show the N largest rows (default 25; 0 = all)\n"
    "  -t, --threshold PCT   hide rows below PCT %% of the total (default 0)\n"
    "      --json            the rows as JSON (docs/json.md, profkit.flat/1)\n"
    "      --csv             the rows as CSV (header line, then one row each)\n"
    "      --no-color        no colours even on a terminal\n"
    "  -h, --help            show this help\n";

typedef struct flat_args {
    const char *metric;
    pk_group_by by;
    size_t top;
    double threshold;
    int json, csv, no_color;
} flat_args;

static const char *const by_names[] = {"function", "file", "module", "line"};

typedef struct flat_view {
    const pk_profile *p;
    pk_metric met;
    const flat_args *a;
    pk_flat_row *rows;
    size_t n_rows, shown;
    double total;
    int sort_inclusive, derived, from_callgraph;
} flat_view;

static int by_inclusive(const void *a, const void *b)
{
    const pk_flat_row *x = a, *y = b;
    if (x->inclusive != y->inclusive) return x->inclusive > y->inclusive ? -1 : 1;
    return x->exclusive > y->exclusive ? -1 : x->exclusive < y->exclusive;
}

static double pct(double v, double total)
{
    return total != 0 ? 100.0 * v / total : 0.0;
}

/* Rows past --top, or below --threshold of the total, are not shown. */
static size_t rows_shown(const flat_view *v)
{
    size_t n = 0;
    for (; n < v->n_rows && (v->a->top == 0 || n < v->a->top); n++) {
        const pk_flat_row *r = &v->rows[n];
        double key = v->sort_inclusive ? r->inclusive : r->exclusive;
        if (v->a->threshold > 0 && fabs(pct(key, v->total)) < v->a->threshold) break;
    }
    return n;
}

static void write_text(const flat_view *v)
{
    char name[1024], ex[32], in[32];
    int color = cli_use_color(stdout, v->a->no_color);
    printf("metric %s: program total %.10g\n", v->met.name, v->total);
    if (v->from_callgraph)
        printf("(inclusive values from the call graph, cycles collapsed as KCachegrind does)\n");
    else
        cli_say_reconstructed(v->p, stdout);
    if (v->derived) printf("(some values derived from the other stored scope)\n");
    printf("grouped by %s; inclusive values count recursion once\n\n", by_names[v->a->by]);
    if (v->n_rows == 0) printf("(no contexts name a %s)\n", by_names[v->a->by]);
    printf("%18s  %18s  %s\n", "exclusive", "inclusive", by_names[v->a->by]);
    for (size_t i = 0; i < v->shown; i++) {
        const pk_flat_row *r = &v->rows[i];
        pk_format_value(ex, sizeof ex, r->exclusive);
        pk_format_value(in, sizeof in, r->inclusive);
        pk_flat_row_name(v->p, v->a->by, r, name, sizeof name);
        printf("%10s %6.1f%%  %10s %6.1f%%  %s%s%s\n", ex, pct(r->exclusive, v->total), in,
               pct(r->inclusive, v->total), color && i == 0 ? "\033[1m" : "", name,
               color && i == 0 ? "\033[0m" : "");
    }
    if (v->shown < v->n_rows)
        printf("(%zu more %s rows not shown)\n", v->n_rows - v->shown, by_names[v->a->by]);
}

/* CSV field: quoted when it holds a comma, quote or newline. */
static void csv_field(const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"') putchar('"');
        putchar(*s);
    }
    putchar('"');
}

static void write_csv(const flat_view *v)
{
    char name[1024], ex[40], in[40];
    printf("%s,exclusive,inclusive,contexts\n", by_names[v->a->by]);
    for (size_t i = 0; i < v->shown; i++) {
        const pk_flat_row *r = &v->rows[i];
        pk_flat_row_name(v->p, v->a->by, r, name, sizeof name);
        pk_format_double(ex, sizeof ex, r->exclusive);
        pk_format_double(in, sizeof in, r->inclusive);
        csv_field(name);
        printf(",%s,%s,%llu\n", ex, in, (unsigned long long)r->n_contexts);
    }
}

static void write_json(const flat_view *v)
{
    char name[1024];
    pk_json j;
    pk_json_init(&j, stdout, 1);
    pk_json_object_begin(&j);
    pk_json_key(&j, "schema");
    pk_json_string(&j, "profkit.flat/1");
    pk_json_key(&j, "metric");
    pk_json_string(&j, v->met.name);
    pk_json_key(&j, "by");
    pk_json_string(&j, by_names[v->a->by]);
    pk_json_key(&j, "total");
    pk_json_double(&j, v->total);
    pk_json_key(&j, "rows");
    pk_json_array_begin(&j);
    for (size_t i = 0; i < v->shown; i++) {
        const pk_flat_row *r = &v->rows[i];
        pk_flat_row_name(v->p, v->a->by, r, name, sizeof name);
        pk_json_object_begin(&j);
        pk_json_key(&j, "name");
        pk_json_string(&j, name);
        pk_json_key(&j, "exclusive");
        pk_json_double(&j, r->exclusive);
        pk_json_key(&j, "inclusive");
        pk_json_double(&j, r->inclusive);
        pk_json_key(&j, "contexts");
        pk_json_uint(&j, r->n_contexts);
        pk_json_object_end(&j);
    }
    pk_json_array_end(&j);
    pk_json_key(&j, "hidden");
    pk_json_uint(&j, v->n_rows - v->shown);
    pk_json_object_end(&j);
    pk_json_finish(&j);
}

/* Per-context inclusive and exclusive values (stored or derived). */
static pk_status context_values(flat_view *v, pk_index m, double *incl, double **excl)
{
    pk_status st = cli_scope_values(v->p, m, incl, excl, &v->derived);
    return st ? st : pk_metric_program_total(v->p, m, &v->total);
}

static int show_flat(const pk_profile *p, const flat_args *a)
{
    flat_view v = {.p = p, .a = a};
    pk_index m;
    pk_scope_kind scope;
    if (!cli_pick_metric(p, a->metric, &m, &scope)) {
        fprintf(stderr, "profkit flat: no metric named '%s'\n", a->metric ? a->metric : "");
        return CLI_BAD;
    }
    pk_metric_get(p, m, &v.met);
    size_t n = pk_context_count(p);
    double *incl = calloc(n ? n : 1, sizeof *incl), *excl_buf = calloc(n ? n : 1, sizeof *excl_buf);
    double *excl = excl_buf;
    pk_status st = incl && excl ? context_values(&v, m, incl, &excl) : PK_ERR_NOMEM;
    if (!st) st = pk_flat_profile(p, incl, excl, a->by, &v.rows, &v.n_rows);
    if (!st && a->by == PK_BY_FUNCTION)
        st = pk_flat_callgraph_inclusive(p, m, v.rows, v.n_rows, &v.from_callgraph);
    free(incl);
    free(excl_buf);
    if (st) return st == PK_ERR_NOMEM ? CLI_BAD : cli_library_error("flat", st);
    v.sort_inclusive = scope == PK_SCOPE_INCLUSIVE || !excl;
    if (v.sort_inclusive) qsort(v.rows, v.n_rows, sizeof *v.rows, by_inclusive);
    v.shown = rows_shown(&v);
    if (a->json)
        write_json(&v);
    else if (a->csv)
        write_csv(&v);
    else
        write_text(&v);
    pk_flat_free(v.rows);
    return CLI_OK;
}

static int parse_by(const char *s, pk_group_by *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, by_names[i]) == 0) return *out = (pk_group_by)i, 1;
    return 0;
}

static int parse_flat_args(int argc, char **argv, flat_args *a)
{
    static const struct option opts[] = {{"metric", required_argument, NULL, 'm'},
                                         {"by", required_argument, NULL, 'b'},
                                         {"top", required_argument, NULL, 'n'},
                                         {"threshold", required_argument, NULL, 't'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"csv", no_argument, NULL, 'c'},
                                         {"no-color", no_argument, NULL, 'C'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "m:n:t:h", opts, NULL)) != -1) {
        if (c == 'm') {
            a->metric = optarg;
        } else if (c == 'b') {
            if (!parse_by(optarg, &a->by))
                return cli_usage_error("flat", "--by wants function, file, module or line");
        } else if (c == 'n') {
            a->top = (size_t)strtoul(optarg, &end, 10);
            if (*end || !*optarg || *optarg == '-')
                return cli_usage_error("flat", "--top wants a number");
        } else if (c == 't') {
            a->threshold = strtod(optarg, &end);
            if (*end || a->threshold < 0 || a->threshold > 100)
                return cli_usage_error("flat", "--threshold wants a percentage, got '%s'", optarg);
        } else if (c == 'j' || c == 'c') {
            *(c == 'j' ? &a->json : &a->csv) = 1;
        } else if (c == 'C') {
            a->no_color = 1;
        } else if (c == 'h') {
            fputs(flat_help, stdout);
            return -1;
        } else {
            return cli_usage_error("flat", "unknown option");
        }
    }
    if (a->json && a->csv) return cli_usage_error("flat", "--json and --csv exclude each other");
    return CLI_OK;
}

int cmd_flat(int argc, char **argv)
{
    flat_args a = {NULL, PK_BY_FUNCTION, 25, 0, 0, 0, 0};
    int rc = parse_flat_args(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    const char *path = cli_one_path("flat", argc, argv, optind);
    if (!path) return CLI_USAGE;
    pk_profile *p;
    rc = cli_open("flat", path, PK_OPEN_NO_TRACES | PK_OPEN_NO_CCT, &p);
    if (rc) return rc;
    rc = show_flat(p, &a);
    pk_profile_free(p);
    return rc;
}
