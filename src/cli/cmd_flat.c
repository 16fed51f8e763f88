/*
 * cli/cmd_flat.c — `profkit flat`: the flat profile of one metric, per
 * function (or source file, load module, source line), exclusive and
 * inclusive, summed over all threads/ranks. On a profile with a call
 * graph (Callgrind) it is answered from the call graph, exactly, with
 * call counts and without building any calling-context tree.
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
    "exclusive value, largest first.\n"
    "A Callgrind profile answers from its call graph, exactly: cycles of\n"
    "mutually recursive functions count once (listed as <cycle N>, as\n"
    "KCachegrind lists them), and a calls column says how many times each\n"
    "row was called from outside it (by line: the calls made on it).\n"
    "--focus, --hide and --stat need a calling-context tree: with them the\n"
    "tree reconstructed from the call graph is used (and said so).\n\n"
    "Options:\n" CLI_VIEW_HELP
    "      --by WHAT         group by function (default), file, module or line\n"
    "  -n, --top N           show the N largest rows (default 25; 0 = all)\n"
    "  -m 'A,B,NAME=EXPR'    several metrics as columns, and metrics derived by\n"
    "                        expression over them (miss=D1mr/Dr; docs/derived.md)\n"
    "  -t, --threshold PCT   hide rows below PCT% of the total (default 0)\n"
    "      --json            the rows as JSON (docs/json.md, profkit.flat/1)\n"
    "      --csv             the rows as CSV (header line, then one row each)\n"
    "  -h, --help            show this help\n";

typedef struct flat_args {
    cli_view view;
    pk_group_by by;
} flat_args;

static const char *const by_names[] = {"function", "file", "module", "line"};

typedef struct flat_view {
    const pk_profile *p;
    const flat_args *a;
    cli_view_values vals;
    pk_flat_row *rows;
    size_t n_rows, shown;
    double total;
    int sort_inclusive, from_callgraph;
    int visits;     /* calls from a call-count metric (Cube visits) */
    cli_cg_view cg; /* from_callgraph: metric, event, locations */
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
    for (; n < v->n_rows && (v->a->view.top == 0 || n < v->a->view.top); n++) {
        const pk_flat_row *r = &v->rows[n];
        double key = v->sort_inclusive ? r->inclusive : r->exclusive;
        if (v->a->view.threshold > 0 && fabs(pct(key, v->total)) < v->a->view.threshold) break;
    }
    return n;
}

static void write_text(const flat_view *v)
{
    char name[1024], ex[48], in[48], n_called[48];
    int color = cli_use_color(stdout, v->a->view.no_color);
    if (v->from_callgraph)
        cli_cg_describe(v->p, &v->a->view, &v->cg, stdout);
    else
        cli_view_describe(v->p, &v->a->view, &v->vals, stdout);
    printf("grouped by %s; inclusive values count recursion once\n\n", by_names[v->a->by]);
    if (v->n_rows == 0)
        printf("(no %s %s)\n", v->from_callgraph ? "costs in any" : "contexts name a",
               by_names[v->a->by]);
    const pk_number_format *nf = v->from_callgraph ? &v->cg.nf : &v->vals.nf;
    char hex[64], hin[64];
    pk_format_header(hex, sizeof hex, "exclusive", nf);
    pk_format_header(hin, sizeof hin, "inclusive", nf);
    int calls = v->from_callgraph || v->visits;
    printf("%18s  %18s  %s%s\n", hex, hin, calls ? "     calls  " : "", by_names[v->a->by]);
    unsigned width = cli_terminal_width(stdout), used = calls ? 52 : 40;
    unsigned room = width > used + 20 ? width - used : 20;
    for (size_t i = 0; i < v->shown; i++) {
        const pk_flat_row *r = &v->rows[i];
        pk_format_number(ex, sizeof ex, r->exclusive, nf);
        pk_format_number(in, sizeof in, r->inclusive, nf);
        char n_calls[32];
        pk_format_number(n_calls, sizeof n_calls, r->calls, NULL);
        snprintf(n_called, sizeof n_called, "%10s  ", n_calls);
        pk_flat_row_name(v->p, v->a->by, r, name, sizeof name);
        printf("%10s %6.1f%%  %10s %6.1f%%  %s%s%s%s\n", ex, pct(r->exclusive, v->total), in,
               pct(r->inclusive, v->total), calls ? n_called : "", color && i == 0 ? "\033[1m" : "",
               cli_name(name, v->a->view.no_demangle, room), color && i == 0 ? "\033[0m" : "");
    }
    if (v->shown < v->n_rows)
        printf("(%zu more %s rows not shown)\n", v->n_rows - v->shown, by_names[v->a->by]);
}

static void write_csv(const flat_view *v)
{
    char ex[40], in[40];
    printf("name,module,file,line,exclusive,inclusive,%s%s\n",
           v->from_callgraph ? "calls" : "contexts", v->visits ? ",calls" : "");
    for (size_t i = 0; i < v->shown; i++) {
        const pk_flat_row *r = &v->rows[i];
        pk_format_double(ex, sizeof ex, r->exclusive);
        pk_format_double(in, sizeof in, r->inclusive);
        cli_flat_csv_name(v->p, v->a->by, r);
        if (v->from_callgraph)
            printf(",%s,%s,%.0f\n", ex, in, r->calls);
        else
            printf(",%s,%s,%llu", ex, in, (unsigned long long)r->n_contexts);
        if (!v->from_callgraph) printf(v->visits ? ",%.0f\n" : "\n", r->calls);
    }
}

static int write_json(const flat_view *v)
{
    pk_json j;
    pk_json_init(&j, stdout, 1);
    pk_json_object_begin(&j);
    pk_json_key(&j, "schema");
    pk_json_string(&j, "profkit.flat/1");
    pk_json_key(&j, "metric");
    pk_json_string(&j, v->from_callgraph ? v->cg.met.name : v->vals.met.name);
    pk_json_key(&j, "source");
    pk_json_string(&j, v->from_callgraph            ? "callgraph"
                       : cli_is_reconstructed(v->p) ? "reconstructed tree"
                                                    : "tree");
    pk_json_completeness(&j, v->p);
    pk_json_key(&j, "by");
    pk_json_string(&j, by_names[v->a->by]);
    pk_json_key(&j, "total");
    pk_json_double(&j, v->total);
    pk_json_key(&j, "rows");
    pk_json_array_begin(&j);
    for (size_t i = 0; i < v->shown; i++) {
        const pk_flat_row *r = &v->rows[i];
        pk_json_object_begin(&j);
        pk_json_key(&j, "name");
        cli_json_flat_row_name(&j, v->p, v->a->by, r);
        pk_json_key(&j, "self"); /* the key every document uses (docs/json.md) */
        pk_json_double(&j, r->exclusive);
        pk_json_key(&j, "exclusive"); /* the same, as profkit.flat/1 first named it */
        pk_json_double(&j, r->exclusive);
        pk_json_key(&j, "inclusive");
        pk_json_double(&j, r->inclusive);
        if (v->from_callgraph || v->visits) {
            pk_json_key(&j, "calls");
            pk_json_double(&j, r->calls);
        }
        if (!v->from_callgraph) {
            pk_json_key(&j, "contexts");
            pk_json_uint(&j, r->n_contexts);
        }
        pk_json_object_end(&j);
    }
    pk_json_array_end(&j);
    pk_json_key(&j, "hidden");
    pk_json_uint(&j, v->n_rows - v->shown);
    pk_json_object_end(&j);
    return cli_json_done("flat", &j);
}

/* The call graph answers unless the view needs contexts (focus, hide)
 * or per-location values combined otherwise than summed. */
static int callgraph_applies(const cli_view *v)
{
    return v->stat == PK_ACROSS_SUM && !(v->focus && *v->focus) && !(v->hide && *v->hide);
}

static int has_callgraph(const pk_profile *p)
{
    pk_cg_summary s;
    return pk_callgraph_summary(p, &s) == PK_OK;
}

static int compute_rows(const pk_profile *p, const flat_args *a, flat_view *v)
{
    pk_status st;
    if (v->from_callgraph) {
        int rc = cli_cg_view_init("flat", p, &a->view, &v->cg);
        if (rc) return rc;
        v->total = v->cg.total;
        st = cli_cg_flat(p, &v->cg, a->by, &v->rows, &v->n_rows);
    } else {
        int rc = cli_view_compute("flat", p, &a->view, &v->vals);
        if (rc) return rc;
        v->total = v->vals.total;
        st = pk_flat_profile(p, v->vals.incl, v->vals.excl, a->by, &v->rows, &v->n_rows);
    }
    return st ? cli_library_error("flat", st) : CLI_OK;
}

int cli_flat_from_callgraph(const pk_profile *p, const cli_view *v)
{
    return callgraph_applies(v) && has_callgraph(p);
}

int cli_flat_rows(const pk_profile *p, const cli_view *view, pk_group_by by, pk_flat_row **rows,
                  size_t *n, pk_number_format *nf, double *total)
{
    flat_args a = {*view, by};
    flat_view v = {.p = p, .a = &a};
    v.from_callgraph = callgraph_applies(view) && has_callgraph(p);
    int rc = compute_rows(p, &a, &v);
    if (!rc) {
        *rows = v.rows, *n = v.n_rows, *total = v.total;
        *nf = v.from_callgraph ? v.cg.nf : v.vals.nf;
    }
    cli_cg_view_free(&v.cg);
    cli_view_values_free(&v.vals);
    return rc;
}

static int show_flat(const pk_profile *p, const flat_args *a)
{
    if (cli_metric_list(p, a->view.metric)) return cli_flat_columns(p, &a->view, a->by);
    flat_view v = {.p = p, .a = a};
    v.from_callgraph = callgraph_applies(&a->view) && has_callgraph(p);
    int rc = compute_rows(p, a, &v);
    if (rc) {
        cli_cg_view_free(&v.cg);
        cli_view_values_free(&v.vals);
        return rc;
    }
    pk_scope_kind scope = PK_SCOPE_OTHER;
    if (v.from_callgraph) cli_pick_metric(NULL, p, a->view.metric, &(pk_index){0}, &scope);
    v.sort_inclusive = v.from_callgraph ? scope == PK_SCOPE_INCLUSIVE
                                        : v.vals.scope == PK_SCOPE_INCLUSIVE || !v.vals.excl;
    if (v.sort_inclusive) qsort(v.rows, v.n_rows, sizeof *v.rows, by_inclusive);
    v.shown = rows_shown(&v);
    if (!v.from_callgraph)
        rc = cli_flat_call_counts(p, &a->view, a->by, v.vals.met.name, v.rows, v.n_rows, &v.visits);
    if (!rc && a->view.json)
        rc = write_json(&v);
    else if (!rc && a->view.csv)
        write_csv(&v);
    else if (!rc)
        write_text(&v);
    pk_flat_free(v.rows);
    cli_view_values_free(&v.vals);
    cli_cg_view_free(&v.cg);
    return rc;
}

static int parse_by(const char *s, pk_group_by *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, by_names[i]) == 0) return *out = (pk_group_by)i, 1;
    return 0;
}

static int parse_flat_args(int argc, char **argv, flat_args *a)
{
    static const struct option opts[] = {CLI_VIEW_LONG_OPTIONS,
                                         {"by", required_argument, NULL, 'b'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    int c, rc;
    while ((c = cli_getopt("flat", argc, argv, "m:n:t:h", opts)) != -1) {
        if (c == 'b') {
            if (!parse_by(optarg, &a->by))
                return cli_usage_error("flat", "--by wants function, file, module or line");
        } else if (c == 'h') {
            fputs(flat_help, stdout);
            return -1;
        } else if ((rc = cli_view_option("flat", &a->view, c, optarg)) != 0) {
            return rc;
        }
    }
    return cli_view_check("flat", &a->view);
}

int cmd_flat(int argc, char **argv)
{
    flat_args a = {.view = {.top = 25}, .by = PK_BY_FUNCTION};
    int rc = parse_flat_args(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    /* a call graph needs no tree for this view; without positions unless
     * grouped by line: memory in proportion to functions and arcs */
    uint32_t flags = PK_OPEN_NO_TRACES | PK_OPEN_NO_CCT;
    if (callgraph_applies(&a.view))
        flags |= PK_OPEN_NO_TREE | (a.by == PK_BY_LINE ? 0 : PK_OPEN_BY_FUNCTION);
    pk_profile *p;
    rc = cli_open_arg("flat", argc, argv, flags, NULL, &p);
    if (rc) return rc;
    rc = show_flat(p, &a);
    return cli_close("flat", p, rc);
}
