/*
 * cli/cmd_threads.c — `profkit threads`: one metric's total per location
 * (thread, rank, GPU stream) with the spread across them, so load
 * imbalance shows at a glance.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char threads_help[] =
    "Usage: profkit threads [options] PATH\n\n"
    "Show one metric's total in every location (thread, rank, GPU stream):\n"
    "count, sum, min, max, mean, standard deviation and the imbalance\n"
    "(max/mean - 1: how much longer the slowest location ran than the\n"
    "average; 0% is perfect balance), then the locations sorted from the\n"
    "largest total down. A bar shows each location against the largest.\n\n"
    "Options:\n"
    "  -m, --metric NAME     metric (exact name, or a case-insensitive prefix);\n"
    "                        default: the first time metric with a non-zero total\n"
    "      --location SEL    only the locations SEL names (see 'profkit tree -h')\n"
    "  -n, --top N           show the N largest and the N smallest (default 10;\n"
    "                        0 = every location)\n"
    "      --json            as JSON (docs/json.md, profkit.threads/1)\n"
    "      --csv             one row per location: index,location,total\n"
    "      --no-color        no colours even on a terminal\n"
    "  -h, --help            show this help\n";

typedef struct loc_total {
    pk_index loc;
    double v;
} loc_total;

typedef struct spread {
    size_t n;
    double sum, min, max, mean, stddev, imbalance;
} spread;

static int by_total_desc(const void *a, const void *b)
{
    const loc_total *x = a, *y = b;
    if (x->v != y->v) return x->v < y->v ? 1 : -1;
    return x->loc < y->loc ? -1 : 1;
}

static spread spread_of(const loc_total *t, size_t n)
{
    spread s = {n, 0, n ? t[n - 1].v : 0, n ? t[0].v : 0, 0, 0, 0};
    double sumsq = 0;
    for (size_t i = 0; i < n; i++)
        s.sum += t[i].v, sumsq += t[i].v * t[i].v;
    s.mean = n ? s.sum / (double)n : 0;
    double var = n ? sumsq / (double)n - s.mean * s.mean : 0;
    s.stddev = var > 0 ? sqrt(var) : 0;
    s.imbalance = s.mean != 0 ? s.max / s.mean - 1 : 0;
    return s;
}

static void text_row(const pk_profile *p, const loc_total *t, double max, int color,
                     const pk_number_format *f)
{
    char name[256], v[32], bar[41];
    pk_location_name(p, t->loc, name, sizeof name);
    pk_format_number(v, sizeof v, t->v, f);
    int len = max > 0 && t->v > 0 ? (int)lround(40 * t->v / max) : 0;
    memset(bar, '#', (size_t)len);
    bar[len] = 0;
    printf("%6u  %10s  %s%-40s%s  %s\n", t->loc, v, color ? "\033[36m" : "", bar,
           color ? "\033[0m" : "", cli_text(name));
}

/* Every number in the unit the largest location total reads best in
 * (pk_number_format_for()), the unit stated once in the header, with 6
 * significant digits. */
static void write_text(const pk_profile *p, const pk_metric *met, const loc_total *t, size_t n,
                       size_t top, int color)
{
    spread s = spread_of(t, n);
    pk_number_format f;
    if (pk_number_format_for(met, fmax(fabs(s.max), fabs(s.min)), &f) != PK_OK)
        f = (pk_number_format){.scale = 1};
    f.digits = 6; /* locations often differ in the 4th digit: that is what the view is for */
    char a[32], b[32], c[32], d[32], e[32], h[48];
    pk_format_number(a, sizeof a, s.sum, &f), pk_format_number(b, sizeof b, s.min, &f);
    pk_number_format fr = f; /* a mean of counts has fractions */
    fr.integers = 0;
    pk_format_number(c, sizeof c, s.max, &f), pk_format_number(d, sizeof d, s.mean, &fr);
    pk_format_number(e, sizeof e, s.stddev, &fr);
    printf("metric %s over %zu locations%s%s%s\n", cli_text(met->name), n, f.unit[0] ? " (in " : "",
           f.unit, f.unit[0] ? ")" : "");
    printf("  sum %s   min %s   max %s   mean %s   stddev %s\n", a, b, c, d, e);
    pk_format_number(a, sizeof a, s.max - s.mean, &fr);
    printf("  imbalance %.1f%% (max/mean - 1; the slowest location is %s above the mean)\n\n",
           100 * s.imbalance, a);
    pk_format_header(h, sizeof h, "total", &f);
    printf("%6s  %10s  %-40s  %s\n", "index", h, "", "location");
    int all = top == 0 || 2 * top >= n;
    for (size_t i = 0; i < n && (all || i < top); i++)
        text_row(p, &t[i], s.max, color, &f);
    if (all) return;
    printf("%6s  (%zu locations in between)\n", "...", n - 2 * top);
    for (size_t i = n - top; i < n; i++)
        text_row(p, &t[i], s.max, color, &f);
}

static void json_loc(pk_json *j, const pk_profile *p, const loc_total *t)
{
    pk_json_object_begin(j);
    pk_json_key(j, "index");
    pk_json_uint(j, t->loc);
    pk_json_key(j, "location");
    pk_json_location_name(j, p, t->loc);
    pk_json_key(j, "total");
    pk_json_double(j, t->v);
    pk_json_object_end(j);
}

static int write_json(const pk_profile *p, const char *metric, const loc_total *t, size_t n)
{
    spread s = spread_of(t, n);
    pk_json j;
    pk_json_init(&j, stdout, 1);
    pk_json_object_begin(&j);
    pk_json_key(&j, "schema"), pk_json_string(&j, "profkit.threads/1");
    pk_json_key(&j, "metric"), pk_json_string(&j, metric);
    pk_json_key(&j, "count"), pk_json_uint(&j, s.n);
    pk_json_key(&j, "sum"), pk_json_double(&j, s.sum);
    pk_json_key(&j, "min"), pk_json_double(&j, s.min);
    pk_json_key(&j, "max"), pk_json_double(&j, s.max);
    pk_json_key(&j, "mean"), pk_json_double(&j, s.mean);
    pk_json_key(&j, "stddev"), pk_json_double(&j, s.stddev);
    pk_json_key(&j, "imbalance"), pk_json_double(&j, s.imbalance);
    pk_json_key(&j, "locations");
    pk_json_array_begin(&j);
    for (size_t i = 0; i < n; i++)
        json_loc(&j, p, &t[i]);
    pk_json_array_end(&j);
    pk_json_object_end(&j);
    return cli_json_done("threads", &j);
}

static void write_csv(const pk_profile *p, const loc_total *t, size_t n)
{
    char name[256], v[40];
    printf("index,location,total\n");
    for (size_t i = 0; i < n; i++) {
        pk_location_name(p, t[i].loc, name, sizeof name);
        pk_format_double(v, sizeof v, t[i].v);
        printf("%u,\"", t[i].loc); /* quoted, its quotes doubled */
        for (const char *c = name; *c; c++)
            printf(*c == '"' ? "\"\"" : "%c", *c);
        printf("\",%s\n", v);
    }
}

/* Totals of the selected plain locations, largest first. */
static int gather(const pk_profile *p, const cli_view *v, pk_index m, loc_total **out, size_t *n)
{
    size_t nl = pk_location_count(p);
    double *tot = malloc((nl ? nl : 1) * sizeof *tot);
    unsigned char *sel = calloc(nl ? nl : 1, 1);
    *out = malloc((nl ? nl : 1) * sizeof **out);
    *n = 0;
    pk_status st = tot && sel && *out ? pk_location_totals(p, m, tot, nl) : PK_ERR_NOMEM;
    if (!st && v->location) st = pk_location_select(p, v->location, sel, nl, NULL);
    for (pk_index l = 0; l < nl && !st; l++)
        if (!isnan(tot[l]) && (!v->location || sel[l])) (*out)[(*n)++] = (loc_total){l, tot[l]};
    free(tot), free(sel);
    if (st) return st == PK_ERR_NOMEM ? CLI_BAD : cli_library_error("threads", st);
    qsort(*out, *n, sizeof **out, by_total_desc);
    return CLI_OK;
}

static int show(const pk_profile *p, const cli_view *v)
{
    pk_index m;
    pk_metric met;
    loc_total *t = NULL;
    size_t n;
    if (!cli_pick_metric("threads", p, v->metric, &m, NULL)) return CLI_BAD;
    pk_metric_get(p, m, &met);
    int rc = gather(p, v, m, &t, &n);
    if (!rc && n == 0) {
        fprintf(stderr, "profkit threads: this profile holds no per-location values "
                        "(only summary statistics)\n");
        rc = CLI_BAD;
    }
    if (!rc && v->json)
        rc = write_json(p, met.name, t, n);
    else if (!rc && v->csv)
        write_csv(p, t, n);
    else if (!rc)
        write_text(p, &met, t, n, v->top, cli_use_color(stdout, v->no_color));
    free(t);
    return rc;
}

int cmd_threads(int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_VIEW_LONG_OPTIONS, {"help", no_argument, NULL, 'h'}, {0}};
    cli_view v = {.top = 10};
    int c, rc;
    while ((c = cli_getopt("threads", argc, argv, "m:n:h", opts)) != -1) {
        if (c == 'h') return fputs(threads_help, stdout), CLI_OK;
        if (c == CLI_OPT_STAT || c == CLI_OPT_FOCUS || c == CLI_OPT_HIDE || c == 't')
            return cli_usage_error("threads", "this option does not apply to per-location totals");
        if ((rc = cli_view_option("threads", &v, c, optarg)) != 0) return rc;
    }
    if ((rc = cli_view_check("threads", &v)) != 0) return rc;
    pk_profile *p;
    rc = cli_open_arg("threads", argc, argv,
                      PK_OPEN_NO_TRACES | PK_OPEN_NO_CCT | PK_OPEN_BY_FUNCTION | PK_OPEN_NO_TREE,
                      NULL, &p);
    if (rc) return rc;
    rc = show(p, &v);
    return cli_close("threads", p, rc);
}
