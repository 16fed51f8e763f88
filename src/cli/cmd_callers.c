/*
 * cli/cmd_callers.c — `profkit callers` and `profkit callees`: who calls a
 * function and what it calls. On a profile with a call graph (Callgrind)
 * these are the call graph's own lists, exact: per caller or callee the
 * number of calls and their inclusive cost (as KCachegrind lists them),
 * for every function a name or regular expression picks. Otherwise (and
 * with --tree) the bottom-up and top-down trees around the function
 * (pprof's peek, callgrind_annotate --tree=caller/calling), recursion
 * counted once; on a call graph that tree is the reconstructed one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char callers_help[] =
    "Usage: profkit callers [options] PATH FUNCTION\n"
    "       profkit callees [options] PATH FUNCTION\n\n"
    "FUNCTION is an exact name, or else a POSIX extended regular expression.\n\n"
    "On a Callgrind profile: for each function FUNCTION names (the N with the\n"
    "largest inclusive cost), its self and inclusive cost and how often it\n"
    "was called, then the call graph's list of its callers (callees: of the\n"
    "functions it calls), each with the number of calls and the inclusive\n"
    "cost of those calls, largest first. Exact: nothing is reconstructed.\n"
    "Functions in a cycle of mutually recursive functions are marked with it.\n\n"
    "On other profiles, and with --tree: for each function FUNCTION names (the\n"
    "N with the largest inclusive value), callers is a bottom-up tree whose\n"
    "root is the function and whose children are its callers, each with\n"
    "the function's inclusive and self values on that path, up to the program's\n"
    "entry; callees is the top-down tree below FUNCTION, merged over every\n"
    "place it runs. A recursive function counts once. On a Callgrind profile\n"
    "that tree is reconstructed from the call graph (and says so).\n\n"
    "Options:\n" CLI_VIEW_HELP CLI_WIDTH_HELP
    "  -t, --threshold PCT   hide callers/callees (tree: frames) below PCT% of\n"
    "                        the function's own inclusive value (default 1)\n"
    "  -n, --top N           at most N matching functions, the largest first\n"
    "                        (default 10; 0 = all)\n"
    "  -d, --depth N         tree: show at most N levels below FUNCTION\n"
    "      --tree            the tree view on a Callgrind profile too\n"
    "  -m 'A,B,NAME=EXPR'    tree: several metrics as columns, and metrics derived\n"
    "                        by expression (miss=D1mr/Dr; docs/derived.md)\n"
    "      --json            as JSON (docs/json.md, profkit.callers/1)\n"
    "      --csv             the tree as CSV, one row per shown frame (as tree --csv)\n"
    "  -h, --help            show this help\n";

typedef struct callers_args {
    cli_view view;
    pk_tree_options tree;
    int want_tree;
} callers_args;

static int parse_args(const char *cmd, int argc, char **argv, callers_args *a)
{
    int rc = cli_parse_tree_options(cmd, callers_help, argc, argv, &a->view, &a->tree,
                                    &a->want_tree, NULL);
    if (rc) return rc;
    if (argc - optind != 2) return cli_usage_error(cmd, "want PATH and FUNCTION");
    char depth[16];
    snprintf(depth, sizeof depth, "%u", a->tree.max_depth);
    rc = cli_query_set(cmd, &a->view, "function", argv[optind + 1]);
    if (!rc) rc = cli_query_set(cmd, &a->view, "depth", depth);
    /* the tree's CSV: a tree, on a call graph too */
    if (!rc && (a->want_tree || a->view.csv))
        rc = cli_query_set(cmd, &a->view, "callgraph", "tree");
    return rc;
}

static double pct(double v, double total)
{
    return total != 0 ? 100.0 * v / total : 0.0;
}

/* A call graph's lists: the function, then its callers (callees). */
static void text_list(const pk_callers_answer *a, const pk_callers_block *b, const cli_view *v)
{
    const pk_answer_column *c = &a->head.columns[0];
    const char *cmd = a->callees ? "callees" : "callers";
    char s[48], in[48], cyc[32] = "", mark[40], hin[64], n_calls[32];
    unsigned width = cli_view_width(v), room = width == 0 ? 0 : width > 56 ? width - 36 : 20;
    if (b->cycle && strncmp(b->name, "<cycle ", 7) != 0)
        snprintf(cyc, sizeof cyc, " <cycle %u>", b->cycle);
    pk_format_number(s, sizeof s, b->self, &c->numbers);
    pk_format_number(in, sizeof in, b->inclusive, &c->numbers);
    printf("%s of %s%s: self %s (%.1f%%), inclusive %s (%.1f%%), called %.0f time%s\n", cmd,
           cli_name(b->name, v->no_demangle, 0), cyc, s, pct(b->self, c->total), in,
           pct(b->inclusive, c->total), b->called, b->called == 1 ? "" : "s");
    pk_format_header(hin, sizeof hin, "inclusive", &c->numbers);
    printf("%14s  %18s  %s\n", "calls", hin, a->callees ? "callee" : "caller");
    for (size_t i = 0; i < b->n_arcs; i++) {
        const pk_arc_entry *e = &b->arcs[i];
        mark[0] = '\0';
        if (e->function == b->function)
            snprintf(mark, sizeof mark, " (itself)");
        else if (e->cycle && e->cycle == b->cycle)
            snprintf(mark, sizeof mark, " (in <cycle %u>)", e->cycle);
        pk_format_number(in, sizeof in, e->inclusive, &c->numbers);
        pk_format_number(n_calls, sizeof n_calls, e->calls,
                         &(pk_number_format){1, "", 14, 0, 0, 1});
        printf("%14s  %10s %6.1f%%  %s%s\n", n_calls, in, pct(e->inclusive, c->total),
               cli_name(e->name, v->no_demangle, room), mark);
    }
    if (!b->n_arcs && !b->hidden_arcs) printf("%14s  %18s  (none)\n", "", "");
    if (b->hidden_arcs)
        printf("(%zu more %s below %g%% of its inclusive value)\n", b->hidden_arcs,
               a->callees ? "callees" : "callers", pk_query_threshold(v->q));
    putchar('\n');
}

/* The tree around one function, under a line saying which and how much. */
static int text_tree(const pk_callers_answer *a, const pk_callers_block *b, const cli_view *v)
{
    const pk_answer_column *c = &a->head.columns[0];
    char value[64];
    pk_format_number(value, sizeof value, b->inclusive, c->expression ? NULL : &c->numbers);
    if (!c->expression && c->numbers.unit[0])
        snprintf(value + strlen(value), sizeof value - strlen(value), " %s", c->numbers.unit);
    int same = strcmp(b->name, a->pattern) == 0;
    printf("%s of %s%s%s%s: inclusive %s", a->callees ? "callees" : "callers", cli_text(b->name),
           same ? "" : " (matching '", same ? "" : cli_text(a->pattern), same ? "" : "')", value);
    if (c->percent) printf(" (%.1f%% of the total)", pct(b->inclusive, c->total));
    printf("\n\n");
    pk_text_options t = {cli_view_width(v), cli_use_color(stdout, v->no_color), v->no_demangle};
    pk_status st = pk_tree_answer_write_text(stdout, b->tree, &t);
    return st ? cli_library_error(a->callees ? "callees" : "callers", st) : CLI_OK;
}

static int write_text(const pk_callers_answer *a, const cli_view *v)
{
    int rc = CLI_OK;
    cli_describe_columns(&a->head, v);
    int trees = a->n_functions && a->functions[0].tree;
    if (trees && a->functions[0].tree->calls)
        printf("(calls: the %s metric, times each node was entered)\n",
               cli_text(a->functions[0].tree->calls_metric));
    if (!trees) putchar('\n');
    for (size_t i = 0; i < a->n_functions && !rc; i++) {
        if (trees && i) putchar('\n');
        if (a->functions[i].tree)
            rc = text_tree(a, &a->functions[i], v);
        else
            text_list(a, &a->functions[i], v);
    }
    if (!rc && a->hidden_functions)
        printf("(%zu more functions match '%s'; -n 0 lists them all)\n", a->hidden_functions,
               cli_text(a->pattern));
    return rc;
}

/* CSV: the trees' rows, one table after the other. */
static int write_csv(const pk_callers_answer *a)
{
    pk_status st = PK_OK;
    for (size_t i = 0; i < a->n_functions && !st; i++)
        if (a->functions[i].tree) st = pk_tree_answer_write_csv(stdout, a->functions[i].tree);
    return st ? cli_library_error(a->callees ? "callees" : "callers", st) : CLI_OK;
}

static int show(const char *cmd, const pk_profile *p, const callers_args *a)
{
    pk_session *s = NULL;
    pk_callers_answer *ans = NULL;
    pk_status st = pk_session_new(p, &s);
    if (!st) st = pk_answer_callers(s, a->view.q, strcmp(cmd, "callees") == 0, &ans);
    int rc = st ? cli_library_error(cmd, st) : CLI_OK;
    if (!rc && a->view.json) {
        pk_json j;
        pk_json_init(&j, stdout, 1);
        pk_callers_answer_write_json(&j, ans);
        rc = cli_json_done(cmd, &j);
    } else if (!rc) {
        rc = a->view.csv ? write_csv(ans) : write_text(ans, &a->view);
        if (!rc) rc = cli_output_done(cmd);
    }
    pk_callers_answer_free(ans);
    pk_session_free(s);
    return rc;
}

static int run(const char *cmd, int argc, char **argv)
{
    callers_args a = {.view = {.threshold = 1.0, .top = 10}};
    int rc = parse_args(cmd, argc, argv, &a);
    if (rc) return cli_view_free(&a.view), rc < 0 ? CLI_OK : rc;
    pk_open_options o = {0};
    pk_query_open_options(a.view.q, PK_ANSWER_CALLERS, 0, &o);
    pk_profile *p;
    rc = cli_open_opts(cmd, argv[optind], &o, &p);
    if (!rc) rc = cli_close(cmd, p, show(cmd, p, &a));
    cli_view_free(&a.view);
    return rc;
}

int cmd_callers(int argc, char **argv)
{
    return run("callers", argc, argv);
}

int cmd_callees(int argc, char **argv)
{
    return run("callees", argc, argv);
}
