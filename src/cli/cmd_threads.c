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
    "      --function NAME   that function's inclusive value on each location\n"
    "                        (recursion counted once) instead of the totals\n"
    "  -n, --top N           show the N largest and the N smallest (default 10;\n"
    "                        0 = every location)\n"
    "      --json            as JSON (docs/json.md, profkit.threads/1)\n"
    "      --csv             one row per location: index,location,total (with\n"
    "                        --function: index,location,inclusive,self)\n"
    "      --no-color        no colours even on a terminal\n"
    "  -h, --help            show this help\n";

static void text_row(const pk_thread_entry *t, double max, int color, const pk_number_format *f)
{
    char v[32], bar[41];
    pk_format_number(v, sizeof v, t->inclusive, f);
    int len = max > 0 && t->inclusive > 0 ? (int)lround(40 * t->inclusive / max) : 0;
    memset(bar, '#', (size_t)len);
    bar[len] = 0;
    printf("%6u  %10s  %s%-40s%s  %s\n", t->location, v, color ? "\033[36m" : "", bar,
           color ? "\033[0m" : "", cli_text(t->name));
}

/* Every number in the unit the largest location total reads best in
 * (the answer's number format), the unit stated once in the header, with
 * 6 significant digits. */
static void write_text(const pk_threads_answer *a, size_t top, int color)
{
    const pk_answer_column *c = &a->head.columns[0];
    pk_number_format f = c->numbers;
    size_t n = a->n_rows;
    f.digits = 6; /* locations often differ in the 4th digit: that is what the view is for */
    char s1[32], s2[32], s3[32], s4[32], s5[32], h[48];
    pk_format_number(s1, sizeof s1, a->sum, &f), pk_format_number(s2, sizeof s2, a->min, &f);
    pk_number_format fr = f; /* a mean of counts has fractions */
    fr.integers = 0;
    pk_format_number(s3, sizeof s3, a->max, &f), pk_format_number(s4, sizeof s4, a->mean, &fr);
    pk_format_number(s5, sizeof s5, a->stddev, &fr);
    printf("metric %s over %zu locations%s%s%s\n", cli_text(c->name), n, f.unit[0] ? " (in " : "",
           f.unit, f.unit[0] ? ")" : "");
    if (a->function) printf("function %s on each location\n", cli_text(a->function));
    printf("  sum %s   min %s   max %s   mean %s   stddev %s\n", s1, s2, s3, s4, s5);
    pk_format_number(s1, sizeof s1, a->max - a->mean, &fr);
    printf("  imbalance %.1f%% (max/mean - 1; the slowest location is %s above the mean)\n\n",
           100 * a->imbalance, s1);
    pk_format_header(h, sizeof h, "total", &f);
    printf("%6s  %10s  %-40s  %s\n", "index", h, "", "location");
    int all = top == 0 || 2 * top >= n;
    for (size_t i = 0; i < n && (all || i < top); i++)
        text_row(&a->rows[i], a->max, color, &f);
    if (all) return;
    printf("%6s  (%zu locations in between)\n", "...", n - 2 * top);
    for (size_t i = n - top; i < n; i++)
        text_row(&a->rows[i], a->max, color, &f);
}

static int show(const pk_profile *p, const cli_view *v)
{
    pk_session *s = NULL;
    pk_threads_answer *a = NULL;
    pk_status st = pk_session_new(p, &s);
    if (!st) st = pk_answer_threads(s, v->q, &a);
    int rc = st ? cli_library_error("threads", st) : CLI_OK;
    if (!rc && v->json) {
        pk_json j;
        pk_json_init(&j, stdout, 1);
        pk_threads_answer_write_json(&j, a);
        rc = cli_json_done("threads", &j);
    } else if (!rc) {
        if (v->csv)
            pk_threads_answer_write_csv(stdout, a);
        else
            write_text(a, v->top, cli_use_color(stdout, v->no_color));
        rc = cli_output_done("threads");
    }
    pk_threads_answer_free(a);
    pk_session_free(s);
    return rc;
}

int cmd_threads(int argc, char **argv)
{
    enum { OPT_FUNCTION = 2000 };
    static const struct option opts[] = {CLI_VIEW_LONG_OPTIONS,
                                         {"function", required_argument, NULL, OPT_FUNCTION},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    cli_view v = {.top = 10};
    const char *function = NULL;
    int c, rc;
    while ((c = cli_getopt("threads", argc, argv, "m:n:h", opts)) != -1) {
        if (c == 'h') return fputs(threads_help, stdout), CLI_OK;
        if (c == OPT_FUNCTION) {
            function = optarg;
            continue;
        }
        if (c == CLI_OPT_STAT || c == CLI_OPT_FOCUS || c == CLI_OPT_HIDE || c == 't')
            return cli_usage_error("threads", "this option does not apply to per-location totals");
        if ((rc = cli_view_option("threads", &v, c, optarg)) != 0) return rc;
    }
    if ((rc = cli_view_check("threads", &v)) == 0 && function)
        rc = cli_query_set("threads", &v, "function", function);
    const char *path = rc ? NULL : cli_one_path("threads", argc, argv, optind);
    if (!rc && !path) rc = CLI_USAGE;
    if (rc) return cli_view_free(&v), rc;
    pk_open_options o = {0};
    pk_query_open_options(v.q, PK_ANSWER_THREADS, 0, &o);
    pk_profile *p;
    rc = cli_open_opts("threads", path, &o, &p);
    if (!rc) rc = cli_close("threads", p, show(p, &v));
    cli_view_free(&v);
    return rc;
}
