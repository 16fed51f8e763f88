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
    "value, largest first; the hottest path is marked with '*'. A run of two\n"
    "or more frames that only pass calls on (one callee shown, own cost below\n"
    "the threshold: the loader frames above main) is drawn as one row, the\n"
    "frame below it, named 'NAME (via N frames: A > B)', as pprof trims.\n\n"
    "Options:\n" CLI_VIEW_HELP CLI_WIDTH_HELP
    "  -t, --threshold PCT   hide contexts below PCT% of the total (default 1)\n"
    "  -d, --depth N         show at most N levels below the root\n"
    "      --loops           keep loops apart from their function\n"
    "      --lines           every context: loops, lines, instructions (exclusive\n"
    "                        values as stored)\n"
    "      --show-chains     draw every frame of the runs that only pass calls on\n"
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
    const char *depth;
    int lexical; /* CLI_TREE_* */
} tree_args;

/* The header: metric(s), total, notes, calls. */
static void describe(const pk_tree_answer *a, const cli_view *v)
{
    cli_describe_columns(&a->head, v);
    if (a->calls)
        printf("(calls: the %s metric, times each node was entered)\n", cli_text(a->calls_metric));
}

int cli_tree_render(const char *cmd, const pk_tree_answer *a, const cli_view *v)
{
    pk_status st;
    if (v->json) {
        pk_json j;
        pk_json_init(&j, stdout, 1);
        pk_tree_answer_write_json(&j, a, NULL);
        return cli_json_done(cmd, &j);
    }
    if (v->csv) {
        st = pk_tree_answer_write_csv(stdout, a);
    } else {
        pk_text_options t = {cli_view_width(v), cli_use_color(stdout, v->no_color), v->no_demangle};
        st = pk_tree_answer_write_text(stdout, a, &t);
    }
    return st ? cli_library_error(cmd, st) : cli_output_done(cmd);
}

static int show_tree(const pk_profile *p, const tree_args *a)
{
    pk_session *s = NULL;
    pk_tree_answer *t = NULL;
    pk_status st = pk_session_new(p, &s);
    if (!st) st = pk_answer_tree(s, a->view.q, &t);
    int rc = st ? cli_library_error("tree", st) : CLI_OK;
    if (!rc && !a->view.json && !a->view.csv) {
        describe(t, &a->view);
        putchar('\n');
    }
    if (!rc) rc = cli_tree_render("tree", t, &a->view);
    pk_tree_answer_free(t);
    pk_session_free(s);
    return rc;
}

int cmd_tree(int argc, char **argv)
{
    static const char *const levels[] = {"functions", "loops", "lines"};
    tree_args a = {.view = {.threshold = 1.0}};
    pk_tree_options o = {0};
    int rc = cli_parse_tree_options("tree", tree_help, argc, argv, &a.view, &o, NULL, &a.lexical);
    if (!rc) rc = cli_query_set("tree", &a.view, "level", levels[a.lexical]);
    char depth[16];
    snprintf(depth, sizeof depth, "%u", o.max_depth);
    if (!rc) rc = cli_query_set("tree", &a.view, "depth", depth);
    const char *path = rc ? NULL : cli_one_path("tree", argc, argv, optind);
    if (!rc && !path) rc = CLI_USAGE;
    if (rc) return cli_view_free(&a.view), rc < 0 ? CLI_OK : rc;
    pk_open_options oo = {0};
    pk_query_open_options(a.view.q, PK_ANSWER_TREE, 0, &oo);
    pk_profile *p;
    rc = cli_open_opts("tree", path, &oo, &p);
    if (!rc) rc = cli_close("tree", p, show_tree(p, &a));
    cli_view_free(&a.view);
    return rc;
}
