/*
 * cli/view.c — the options every analysis command shares (metric,
 * locations, statistic, focus/hide, threshold, top, output form) and the
 * per-context values they select, so tree, flat, callers, callees and
 * flame read and apply them the same way.
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

/* Selected locations, or NULL for all of them. */
static pk_status select_locations(const pk_profile *p, cli_view_values *out, const cli_view *v)
{
    if (!v->location) return PK_OK;
    size_t n = pk_location_count(p);
    out->selected = calloc(n ? n : 1, 1);
    if (!out->selected) return PK_ERR_NOMEM;
    return pk_location_select(p, v->location, out->selected, n, &out->n_selected);
}

static pk_status scope_values(const pk_profile *p, const cli_view *v, cli_view_values *out)
{
    size_t n = pk_context_count(p);
    int d_incl = 0, d_excl = 0;
    pk_status st = pk_context_stat_values(p, out->metric, PK_SCOPE_INCLUSIVE, out->selected,
                                          v->stat, out->incl, n, &d_incl);
    if (st) return st;
    if (pk_context_stat_values(p, out->metric, PK_SCOPE_EXCLUSIVE, out->selected, v->stat,
                               out->excl, n, &d_excl) != PK_OK) {
        free(out->excl); /* a min/max metric stored inclusive */
        out->excl = NULL;
    }
    out->derived = d_incl ? PK_SCOPE_INCLUSIVE : d_excl && out->excl ? PK_SCOPE_EXCLUSIVE : 0;
    return PK_OK;
}

static pk_status compute(const pk_profile *p, const cli_view *v, cli_view_values *out)
{
    size_t n = pk_context_count(p);
    out->incl = calloc(n ? n : 1, sizeof(double));
    out->excl = calloc(n ? n : 1, sizeof(double));
    if (!out->incl || !out->excl) return PK_ERR_NOMEM;
    pk_status st = select_locations(p, out, v);
    if (!st) st = scope_values(p, v, out);
    if (st) return st;
    if (!v->location && v->stat == PK_ACROSS_SUM)
        st = pk_metric_program_total(p, out->metric, &out->total);
    else
        out->total = n ? out->incl[0] : 0;
    if (!st)
        st = pk_context_filter(p, out->metric, v->focus, v->hide, out->incl, out->excl,
                               &out->n_matched);
    return st;
}

int cli_view_compute(const char *cmd, const pk_profile *p, const cli_view *v, cli_view_values *out)
{
    memset(out, 0, sizeof *out);
    if (!cli_pick_metric(cmd, p, v->metric, &out->metric, &out->scope)) return CLI_BAD;
    pk_metric_get(p, out->metric, &out->met);
    pk_status st = compute(p, v, out);
    if (!st) st = pk_number_format_for(&out->met, out->total, &out->nf);
    if (v->stat == PK_ACROSS_MEAN || v->stat == PK_ACROSS_STDDEV) out->nf.integers = 0;
    if (st == PK_ERR_NOMEM) {
        fprintf(stderr, "profkit %s: out of memory\n", cmd);
        cli_view_values_free(out);
        return CLI_BAD;
    }
    if (st) {
        int rc = cli_library_error(cmd, st);
        cli_view_values_free(out);
        return rc;
    }
    return CLI_OK;
}

void cli_view_values_free(cli_view_values *vals)
{
    free(vals->incl);
    free(vals->excl);
    free(vals->selected);
    memset(vals, 0, sizeof *vals);
}

/* A reconstructed tree's "<no caller>" entry: how much of the cost the
 * call graph gives no caller (the program's entry aside). */
static void say_no_caller(const pk_profile *p, const cli_view_values *vals, FILE *out)
{
    pk_context root, c;
    if (!cli_is_reconstructed(p) || pk_context_get(p, 0, &root) || !vals->incl) return;
    for (uint32_t k = 0; k < root.n_children; k++) {
        pk_index i = root.first_child + k;
        if (pk_context_get(p, i, &c) || !c.entry_name || strcmp(c.entry_name, "<no caller>"))
            continue;
        fprintf(out, "(%.3g%% of the cost has no caller in the call graph: under <no caller>)\n",
                vals->total ? 100.0 * vals->incl[i] / vals->total : 0.0);
    }
}

void cli_view_describe(const pk_profile *p, const cli_view *v, const cli_view_values *vals,
                       FILE *out)
{
    const char *what = v->stat != PK_ACROSS_SUM ? "at the root"
                       : v->location            ? "total"
                                                : "program total";
    fprintf(out, "metric %s: %s ", cli_text(vals->met.name), what);
    cli_put_number(out, vals->total, &vals->nf);
    if (v->location)
        fprintf(out, " over %zu location%s matching '%s'", vals->n_selected,
                vals->n_selected == 1 ? "" : "s", cli_text(v->location));
    if (v->stat != PK_ACROSS_SUM) fprintf(out, ", %s across locations", cli_stat_name(v->stat));
    fputc('\n', out);
    cli_say_reconstructed(p, out);
    say_no_caller(p, vals, out);
    if (vals->derived && !cli_is_reconstructed(p)) /* a reconstructed tree stores exclusive only */
        fprintf(out, "(%s values derived from the stored %s ones)\n",
                vals->derived == PK_SCOPE_INCLUSIVE ? "inclusive" : "exclusive",
                vals->derived == PK_SCOPE_INCLUSIVE ? "exclusive" : "inclusive");
    if (v->focus && *v->focus) fprintf(out, "(focus on '%s'", cli_text(v->focus));
    if (v->hide && *v->hide)
        fprintf(out, "%s'%s' hidden", v->focus && *v->focus ? "; " : "(", cli_text(v->hide));
    if ((v->focus && *v->focus) || (v->hide && *v->hide))
        fprintf(out, ": %zu contexts match; percentages of the unfiltered total)\n",
                vals->n_matched);
}

int cli_parse_tree_options(const char *cmd, const char *help, int argc, char **argv, cli_view *v,
                           pk_tree_options *o, int *want_tree, int *lexical)
{
    enum { OPT_TREE = 2000, OPT_LINES, OPT_LOOPS };
    static const struct option opts[] = {CLI_VIEW_LONG_OPTIONS,
                                         {"depth", required_argument, NULL, 'd'},
                                         {"help", no_argument, NULL, 'h'},
                                         {"tree", no_argument, NULL, OPT_TREE},
                                         {"lines", no_argument, NULL, OPT_LINES},
                                         {"loops", no_argument, NULL, OPT_LOOPS},
                                         {0}};
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
        } else if (c == 'h') {
            fputs(help, stdout);
            return -1;
        } else if ((rc = cli_view_option(cmd, v, c, optarg)) != 0) {
            return rc;
        }
    }
    return cli_view_check(cmd, v);
}
