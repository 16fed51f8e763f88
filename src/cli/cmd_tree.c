/*
 * cli/cmd_tree.c — `profkit tree`: the top-down calling-context tree of
 * one metric (or several, as columns), inclusive and exclusive, summed
 * over all threads/ranks, with call counts where the profile has them.
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
    "  -m 'A,B,NAME=EXPR'    several metrics as columns (inclusive values beside\n"
    "                        the first, which draws the tree), and metrics derived\n"
    "                        by expression (miss=D1mr/Dr; docs/derived.md)\n"
    "      --json            the tree as JSON, folded as the text is (docs/json.md,\n"
    "                        profkit.tree/1)\n"
    "      --csv             one row per shown node: id,parent,depth,name,module,\n"
    "                        file,line,kind,inclusive,self, then calls and the\n"
    "                        further metrics' NAME:inclusive,NAME:self\n"
    "  -h, --help            show this help\n";

typedef struct tree_args {
    cli_view view;
    pk_tree_options opts;
    int lexical; /* CLI_TREE_* */
} tree_args;

static pk_status build_functions(const pk_profile *p, const double *incl, const void *arg,
                                 pk_frame **f, size_t *n)
{
    (void)arg;
    return pk_frames_build(p, incl, f, n);
}

static pk_status build_loops(const pk_profile *p, const double *incl, const void *arg, pk_frame **f,
                             size_t *n)
{
    (void)arg;
    return pk_frames_build_loops(p, incl, f, n);
}

/* Function-level (loops folded in, or kept with --loops): frames of the
 * context tree, siblings of one name merged; --lines: the contexts. */
static pk_status render(const pk_profile *p, const tree_args *a, const cli_tree_values *t,
                        const pk_tree_options *o)
{
    const char *level = a->lexical == CLI_TREE_LOOPS ? "loops" : "functions";
    const double *incl = t->n_col ? t->incl[0] : t->vals.incl;
    const double *excl = t->n_col ? t->self[0] : t->vals.excl;
    if (t->frames && a->view.json)
        return pk_frames_write_tree_json(stdout, p, t->frames, t->n, t->total, level, o);
    if (t->frames && a->view.csv)
        return pk_frames_write_csv(stdout, p, t->frames, t->n, t->total, o);
    if (a->view.csv) return pk_tree_write_csv(stdout, p, incl, excl, t->total, o);
    if (t->frames) return pk_frames_write_text(stdout, p, t->frames, t->n, t->total, o);
    if (a->view.json) return pk_tree_write_json(stdout, p, incl, excl, t->total, o);
    return pk_tree_write_text(stdout, p, incl, excl, t->total, o);
}

static int show_tree(const pk_profile *p, const tree_args *a)
{
    cli_tree_build by_functions = {build_functions, NULL}, by_loops = {build_loops, NULL};
    const cli_tree_build *build = NULL;
    if (a->lexical != CLI_TREE_LINES && pk_context_count(p) > 0)
        build = a->lexical == CLI_TREE_LOOPS ? &by_loops : &by_functions;
    cli_tree_values t;
    int rc = cli_tree_values_compute("tree", p, &a->view, build, &t);
    if (rc) return rc;
    pk_tree_options o = a->opts;
    o.threshold = a->view.threshold;
    int machine = a->view.json || a->view.csv;
    o.color = cli_use_color(stdout, a->view.no_color || machine);
    o.width = machine ? 0 : cli_terminal_width(stdout);
    o.keep_mangled = a->view.no_demangle;
    cli_tree_options(&t, &o);
    if (!machine) {
        cli_tree_describe(p, &a->view, &t, stdout);
        putchar('\n');
    }
    pk_status st = render(p, a, &t, &o);
    cli_tree_values_free(&t);
    if (st) return cli_library_error("tree", st);
    return machine ? cli_output_done("tree") : CLI_OK;
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
    pk_open_options o = {.flags = PK_OPEN_NO_TRACES | PK_OPEN_NO_CCT | PK_OPEN_BY_FUNCTION,
                         .tree_threshold = cli_tree_threshold(a.view.threshold)};
    pk_profile *p;
    rc = cli_open_opts("tree", path, &o, &p);
    if (rc) return rc;
    rc = show_tree(p, &a);
    return cli_close("tree", p, rc);
}
