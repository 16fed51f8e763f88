/*
 * cli/cmd_tree.c — `profkit tree`: the top-down calling-context tree of
 * one metric, inclusive and exclusive, summed over all threads/ranks.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char tree_help[] =
    "Usage: profkit tree [options] PATH\n\n"
    "Show the top-down calling-context tree of one metric: for every function\n"
    "its inclusive and self value, summed over all non-summary locations\n"
    "(threads, ranks, GPU streams) unless --location/--stat say otherwise, and\n"
    "as a percentage of the program total. Loops, lines and instructions fold\n"
    "into their function and calls of one function from one caller merge,\n"
    "unless --loops or --lines keep them. Children are sorted by inclusive\n"
    "value, largest first; the hottest path is marked with '*'.\n\n"
    "Options:\n" CLI_VIEW_HELP
    "  -t, --threshold PCT   hide contexts below PCT% of the total (default 1)\n"
    "  -d, --depth N         show at most N levels below the root\n"
    "      --loops           keep loops apart from their function\n"
    "      --lines           every context: loops, lines, instructions (exclusive\n"
    "                        values as stored)\n"
    "      --json            the tree of every context as JSON (docs/json.md,\n"
    "                        profkit.tree/1)\n"
    "  -h, --help            show this help\n";

typedef struct tree_args {
    cli_view view;
    pk_tree_options opts;
    int lexical; /* CLI_TREE_* */
} tree_args;

/* The tree of functions (loops folded in, or kept with --loops): frames
 * of the context tree, siblings of one name merged. */
static pk_status function_tree(const pk_profile *p, const tree_args *a, const cli_view_values *vals,
                               const pk_tree_options *o)
{
    pk_frame *f = NULL;
    size_t n = 0;
    pk_status st = a->lexical == CLI_TREE_LOOPS ? pk_frames_build_loops(p, vals->incl, &f, &n)
                                                : pk_frames_build(p, vals->incl, &f, &n);
    if (!st) st = pk_frames_write_text(stdout, p, f, n, vals->total, o);
    pk_frames_free(f);
    return st;
}

static int show_tree(const pk_profile *p, const tree_args *a)
{
    cli_view_values vals;
    int rc = cli_view_compute("tree", p, &a->view, &vals);
    if (rc) return rc;
    pk_tree_options o = a->opts;
    o.threshold = a->view.threshold;
    o.color = cli_use_color(stdout, a->view.no_color || a->view.json);
    o.width = a->view.json ? 0 : cli_terminal_width(stdout);
    o.keep_mangled = a->view.no_demangle;
    o.metric = vals.met.name;
    o.numbers = &vals.nf;
    if (!a->view.json) {
        cli_view_describe(p, &a->view, &vals, stdout);
        putchar('\n');
    }
    pk_status st;
    if (a->view.json)
        st = pk_tree_write_json(stdout, p, vals.incl, vals.excl, vals.total, &o);
    else if (a->lexical != CLI_TREE_LINES && pk_context_count(p) > 0)
        st = function_tree(p, a, &vals, &o);
    else
        st = pk_tree_write_text(stdout, p, vals.incl, vals.excl, vals.total, &o);
    cli_view_values_free(&vals);
    if (st) return cli_library_error("tree", st);
    return a->view.json ? cli_output_done("tree") : CLI_OK;
}

int cmd_tree(int argc, char **argv)
{
    tree_args a = {.view = {.threshold = 1.0}};
    int rc =
        cli_parse_tree_options("tree", tree_help, argc, argv, &a.view, &a.opts, NULL, &a.lexical);
    if (rc) return rc < 0 ? CLI_OK : rc;
    const char *path = cli_one_path("tree", argc, argv, optind);
    if (!path) return CLI_USAGE;
    /* a call graph's tree only as deep as the view shows, function
     * contexts only: no positions needed */
    pk_open_options o = {PK_OPEN_NO_TRACES | PK_OPEN_NO_CCT | PK_OPEN_BY_FUNCTION, 0,
                         cli_tree_threshold(a.view.threshold)};
    pk_profile *p;
    rc = cli_open_opts("tree", path, &o, &p);
    if (rc) return rc;
    rc = show_tree(p, &a);
    return cli_close("tree", p, rc);
}
