/*
 * cli/view.c — the options every analysis command shares (metric,
 * locations, statistic, focus/hide, threshold, top, output form), made
 * into the library's question (pk_query), and the header lines every
 * answer's text starts with.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const stat_names[] = {"sum", "mean", "min", "max", "stddev"};

const char *cli_stat_name(pk_across stat)
{
    return stat <= PK_ACROSS_STDDEV ? stat_names[stat] : "?";
}

static int parse_stat(const char *s, pk_across *out)
{
    for (int i = 0; i <= PK_ACROSS_STDDEV; i++)
        if (strcmp(s, stat_names[i]) == 0) return *out = (pk_across)i, 1;
    return 0;
}

static int parse_percent(const char *cmd, const char *arg, double *out)
{
    char *end;
    *out = strtod(arg, &end);
    if (*end || !*arg || *out < 0 || *out > 100)
        return cli_usage_error(cmd, "--threshold wants a percentage, got '%s'", arg);
    return 0;
}

int cli_view_option(const char *cmd, cli_view *v, int c, const char *arg)
{
    char *end;
    switch (c) {
    case 'm':
        v->metric = arg;
        return 0;
    case CLI_OPT_LOCATION:
        v->location = arg;
        return 0;
    case CLI_OPT_FOCUS:
        v->focus = arg;
        return 0;
    case CLI_OPT_HIDE:
        v->hide = arg;
        return 0;
    case CLI_OPT_JSON:
        v->json = 1;
        return 0;
    case CLI_OPT_CSV:
        v->csv = 1;
        return 0;
    case CLI_OPT_NO_COLOR:
        v->no_color = 1;
        return 0;
    case CLI_OPT_NO_DEMANGLE:
        v->no_demangle = 1;
        return 0;
    case CLI_OPT_WIDTH: {
        unsigned long w = strtoul(arg, &end, 10);
        if (*end || !*arg || *arg == '-' || w > 100000)
            return cli_usage_error(cmd, "--width wants a number of columns (0: whole names)");
        v->width = (unsigned)w, v->width_given = 1;
        return 0;
    }
    case 't':
        return parse_percent(cmd, arg, &v->threshold);
    case CLI_OPT_STAT:
        if (!parse_stat(arg, &v->stat))
            return cli_usage_error(cmd, "--stat wants sum, mean, min, max or stddev");
        return 0;
    case 'n':
        v->top = (size_t)strtoul(arg, &end, 10);
        if (*end || !*arg || *arg == '-') return cli_usage_error(cmd, "--top wants a number");
        v->top_given = 1;
        return 0;
    default:
        return cli_bad_option(cmd);
    }
}

unsigned cli_view_width(const cli_view *v)
{
    return v->width_given ? v->width : cli_terminal_width(stdout);
}

int cli_query_set(const char *cmd, cli_view *v, const char *name, const char *value)
{
    if (!v->q && pk_query_new(&v->q) != PK_OK) return cli_library_error(cmd, PK_ERR_NOMEM);
    pk_status st = pk_query_set(v->q, name, value);
    if (st == PK_ERR_INVALID_ARG) return cli_usage_error(cmd, "--%s", pk_error_last());
    return st ? cli_library_error(cmd, st) : 0;
}

/* The question the options ask, each command's defaults included. */
static int make_query(const char *cmd, cli_view *v)
{
    char num[32];
    int rc = cli_query_set(cmd, v, "metric", v->metric);
    if (!rc) rc = cli_query_set(cmd, v, "location", v->location);
    if (!rc) rc = cli_query_set(cmd, v, "stat", cli_stat_name(v->stat));
    if (!rc) rc = cli_query_set(cmd, v, "focus", v->focus);
    if (!rc) rc = cli_query_set(cmd, v, "hide", v->hide);
    snprintf(num, sizeof num, "%.17g", v->threshold);
    if (!rc) rc = cli_query_set(cmd, v, "threshold", num);
    snprintf(num, sizeof num, "%zu", v->top);
    if (!rc) rc = cli_query_set(cmd, v, "top", num);
    return rc;
}

int cli_view_check(const char *cmd, cli_view *v)
{
    if (v->json && v->csv) return cli_usage_error(cmd, "--json and --csv exclude each other");
    return make_query(cmd, v);
}

void cli_view_free(cli_view *v)
{
    pk_query_free(v->q);
    v->q = NULL;
}

void cli_describe(const pk_answer_head *h, FILE *out)
{
    const pk_answer_column *c = &h->columns[0];
    int sum = strcmp(h->stat, "sum") == 0;
    const char *what = !sum ? "at the root" : h->location ? "total" : "program total";
    fprintf(out, "metric %s: %s ", cli_text(c->name), what);
    cli_put_number(out, c->total, &c->numbers);
    if (h->location)
        fprintf(out, " over %zu location%s matching '%s'", h->n_locations,
                h->n_locations == 1 ? "" : "s", cli_text(h->location));
    if (!sum) fprintf(out, ", %s across locations", h->stat);
    fputc('\n', out);
    for (size_t i = 0; i < h->n_notes; i++)
        fprintf(out, "(%s)\n", cli_text(h->notes[i].text));
}

void cli_describe_columns(const pk_answer_head *h, const cli_view *v)
{
    const pk_answer_column *c0 = &h->columns[0];
    if (h->n_columns == 1 && !c0->expression) {
        cli_describe(h, stdout);
        return;
    }
    printf("metrics %s; by %s: total ", cli_text(v->metric), cli_text(c0->name));
    cli_put_number(stdout, c0->total, c0->expression ? NULL : &c0->numbers);
    printf("\n(further columns: inclusive values; derived ones evaluated on each"
           " node's totals)\n");
    for (size_t i = 0; i < h->n_notes; i++)
        printf("(%s)\n", cli_text(h->notes[i].text));
}

int cli_parse_tree_options(const char *cmd, const char *help, int argc, char **argv, cli_view *v,
                           pk_tree_options *o, int *want_tree, int *lexical)
{
    enum { OPT_TREE = 2000, OPT_LINES, OPT_LOOPS, OPT_CHAINS };
    static const struct option opts[] = {CLI_VIEW_LONG_OPTIONS,
                                         CLI_WIDTH_LONG_OPTION,
                                         {"depth", required_argument, NULL, 'd'},
                                         {"help", no_argument, NULL, 'h'},
                                         {"tree", no_argument, NULL, OPT_TREE},
                                         {"lines", no_argument, NULL, OPT_LINES},
                                         {"loops", no_argument, NULL, OPT_LOOPS},
                                         {"show-chains", no_argument, NULL, OPT_CHAINS},
                                         {0}};
    int show_chains = 0;
    int c, rc;
    char *end;
    while ((c = cli_getopt(cmd, argc, argv, "m:t:n:d:h", opts)) != -1) {
        if (c == 'd') {
            o->max_depth = (uint32_t)strtoul(optarg, &end, 10);
            if (*end || !*optarg) return cli_usage_error(cmd, "--depth wants a number");
        } else if (c == OPT_TREE && want_tree) {
            *want_tree = 1;
        } else if (c == OPT_TREE) {
            return cli_usage_error(cmd, "unknown option --tree");
        } else if ((c == OPT_LINES || c == OPT_LOOPS) && lexical) {
            *lexical = c == OPT_LINES ? CLI_TREE_LINES : *lexical ? *lexical : CLI_TREE_LOOPS;
        } else if (c == OPT_LINES || c == OPT_LOOPS) {
            return cli_usage_error(cmd, "unknown option --%s", c == OPT_LINES ? "lines" : "loops");
        } else if (c == OPT_CHAINS) { /* tree's own, as --lines */
            if (!lexical) return cli_usage_error(cmd, "unknown option --show-chains");
            show_chains = 1;
        } else if (c == 'h') {
            fputs(help, stdout);
            return -1;
        } else if ((rc = cli_view_option(cmd, v, c, optarg)) != 0) {
            return rc;
        }
    }
    rc = cli_view_check(cmd, v);
    if (!rc && lexical) rc = cli_query_set(cmd, v, "chains", show_chains ? "show" : "fold");
    return rc;
}
