/*
 * cli/cmd_flame.c — `profkit flame`: a flame graph (interactive SVG) or
 * folded stacks of one metric, optionally against a base profile.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char flame_help[] =
    "Usage: profkit flame [options] PATH [-o OUT.svg]\n\n"
    "Draw a flame graph of one metric: a self-contained SVG that any browser\n"
    "opens, as wide as the window, with labels that show without scripts too\n"
    "(in an <img>, converted to PNG), tooltips (total, self, unit, module),\n"
    "click to zoom (click the root or 'Reset zoom' to come back) and a search\n"
    "box (Ctrl-F focuses it). Each box is a function on the call stack; its\n"
    "width is its inclusive value. Loops and lines fold into their function;\n"
    "equal stacks merge. SVG is not written to a terminal: give -o FILE, a\n"
    "pipe, or -o - to mean standard output whatever it is.\n\n"
    "Options:\n" CLI_VIEW_HELP
    "  -o, --output FILE     write there instead of standard output (- for it)\n"
    "  -f, --force           replace FILE if it exists and profkit wrote it\n"
    "      --folded          folded stacks (\"main;solve;dot 2.5\") instead of SVG,\n"
    "                        for flamegraph.pl, inferno or speedscope\n"
    "      --icicle          root at the top, stacks growing down\n"
    "      --diff BASE       differential: widths from PATH, colour from the change\n"
    "                        of each frame's self value against profile BASE (red\n"
    "                        grew, blue shrank, purple new; frames matched by their\n"
    "                        path of function names; a legend says so); tooltips\n"
    "                        give the inclusive change\n"
    "      --title TEXT      title of the graph (default: the file's base name and\n"
    "                        the metric)\n"
    "      --width PX        drawing width in pixels (default 1200)\n"
    "  -h, --help            show this help\n";

typedef struct flame_args {
    cli_view view;
    const char *output, *diff, *title;
    int folded, force;
    pk_flame_options o;
} flame_args;

enum { OPT_FOLDED = 2000, OPT_ICICLE, OPT_DIFF, OPT_TITLE, OPT_WIDTH };

static int parse_flame_args(int argc, char **argv, flame_args *a)
{
    static const struct option opts[] = {CLI_VIEW_LONG_OPTIONS,
                                         {"output", required_argument, NULL, 'o'},
                                         {"force", no_argument, NULL, 'f'},
                                         {"folded", no_argument, NULL, OPT_FOLDED},
                                         {"icicle", no_argument, NULL, OPT_ICICLE},
                                         {"diff", required_argument, NULL, OPT_DIFF},
                                         {"title", required_argument, NULL, OPT_TITLE},
                                         {"width", required_argument, NULL, OPT_WIDTH},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    int c, rc;
    char *end;
    while ((c = getopt_long(argc, argv, "m:t:n:o:fh", opts, NULL)) != -1) {
        if (c == 'o') {
            a->output = optarg;
        } else if (c == 'f') {
            a->force = 1;
        } else if (c == OPT_FOLDED || c == OPT_ICICLE) {
            *(c == OPT_FOLDED ? &a->folded : &a->o.icicle) = 1;
        } else if (c == OPT_DIFF || c == OPT_TITLE) {
            *(c == OPT_DIFF ? &a->diff : &a->title) = optarg;
        } else if (c == OPT_WIDTH) {
            unsigned long w = strtoul(optarg, &end, 10);
            if (*end || w < 100 || w > 100000)
                return cli_usage_error("flame", "--width wants 100 to 100000 pixels");
            a->o.width = (unsigned)w;
        } else if (c == 'h') {
            fputs(flame_help, stdout);
            return -1;
        } else if (c == CLI_OPT_JSON || c == CLI_OPT_CSV) {
            return cli_usage_error("flame", "a flame graph is SVG or --folded text");
        } else if ((rc = cli_view_option("flame", &a->view, c, optarg)) != 0) {
            return rc;
        }
    }
    if (a->folded && a->diff) return cli_usage_error("flame", "--diff draws an SVG, not --folded");
    return cli_view_check("flame", &a->view);
}

/* The function-level tree of one profile under the query. */
static int tree_of(const pk_profile *p, const pk_query *q, pk_session **s, pk_tree_answer **t)
{
    pk_status st = pk_session_new(p, s);
    if (!st) st = pk_answer_tree(*s, q, t);
    return st ? cli_library_error("flame", st) : CLI_OK;
}

/* base[i], base[n + i]: the base profile's inclusive and self value of
 * node i's calling path (0 where it has none). */
static int base_values(const char *path, const pk_query *q, const pk_tree_answer *t, double **base)
{
    pk_profile *bp;
    pk_open_options o = {0};
    pk_query_open_options(q, PK_ANSWER_TREE, 0, &o);
    int rc = cli_open_opts("flame", path, &o, &bp);
    if (rc) return rc;
    pk_session *s = NULL;
    pk_tree_answer *bt = NULL;
    pk_query *bq = NULL;
    pk_index m;
    const char *metric = t->head.columns[0].name;
    /* the base's metric of the same name, or its default when it has none */
    pk_status st = pk_query_copy(q, &bq);
    if (!st && pk_metric_lookup(bp, metric, &m) != PK_OK) metric = NULL;
    if (!st) st = pk_query_set(bq, "metric", metric);
    if (!st) st = pk_session_new(bp, &s);
    if (!st) st = pk_answer_tree(s, bq, &bt);
    *base = st ? NULL : malloc((2 * t->n_nodes + 1) * sizeof **base);
    if (!st && !*base) st = PK_ERR_NOMEM;
    if (!st) st = pk_tree_answer_match(t, bt, *base, *base + t->n_nodes);
    rc = st ? cli_library_error("flame", st) : CLI_OK;
    pk_tree_answer_free(bt);
    pk_session_free(s);
    pk_query_free(bq);
    return cli_close("flame", bp, rc);
}

/* A path's last component, a directory's trailing slashes left off
 * ("runs/app.d/" gives "app.d"), in buf. */
static const char *base_name(const char *path, char buf[256])
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && path[start - 1] != '/')
        start--;
    snprintf(buf, 256, "%.*s", (int)(len - start), path + start);
    return buf;
}

static int draw(const pk_profile *p, flame_args *a, const char *path, FILE *out)
{
    pk_session *s = NULL;
    pk_tree_answer *t = NULL;
    double *base = NULL;
    char sub[512], total[32], title[512], name[256];
    int rc = tree_of(p, a->view.q, &s, &t);
    pk_status ready = rc ? PK_OK : pk_tree_answer_flame_ready(t);
    if (ready) rc = cli_library_error("flame", ready);
    if (!rc && a->diff) rc = base_values(a->diff, a->view.q, t, &base);
    if (!rc) {
        const pk_answer_column *c = &t->head.columns[0];
        pk_format_value(total, sizeof total, c->total);
        /* the unit after the total, unless the name says it ("CPUTIME (sec)") */
        const char *unit = c->unit && !strstr(c->name, c->unit) ? c->unit : "";
        snprintf(sub, sizeof sub, "%s, total %s%s%s%s%s", c->name, total, *unit ? " " : "", unit,
                 a->diff ? "; against " : "", a->diff ? base_name(a->diff, name) : "");
        snprintf(title, sizeof title, "%s \xe2\x80\x94 %s", base_name(path, name), c->name);
        a->o.title = a->title ? a->title : title;
        a->o.unit = c->unit;
        a->o.subtitle = sub;
        a->o.base = base;
        a->o.base_self = base ? base + t->n_nodes : NULL;
        pk_status st = a->folded ? pk_flame_write_folded(out, p, t->nodes, t->n_nodes)
                                 : pk_flame_write_svg(out, p, t->nodes, t->n_nodes, &a->o);
        if (st) rc = cli_library_error("flame", st);
    }
    free(base);
    pk_tree_answer_free(t);
    pk_session_free(s);
    return rc;
}

static int run(flame_args *pa, int argc, char **argv)
{
    flame_args a = *pa;
    int rc;
    const char *path = cli_one_path("flame", argc, argv, optind);
    if (!path) return CLI_USAGE;
    unsigned width = a.o.width ? a.o.width : 1200;
    pk_open_options o = {0};
    pk_query_open_options(a.view.q, PK_ANSWER_FLAME, a.folded ? 0 : width, &o);
    pk_profile *p;
    rc = cli_open_opts("flame", path, &o, &p);
    if (rc) return rc;
    int to_stdout = !a.output || strcmp(a.output, "-") == 0;
    /* an SVG is useless on a terminal and can fill its scrollback: only
     * when asked for with -o - */
    if (!a.folded && !a.output && isatty(STDOUT_FILENO))
        return cli_close("flame", p,
                         cli_usage_error("flame", "not writing an SVG to a terminal; give -o "
                                                  "FILE.svg, a pipe, or -o - for standard output"));
    pk_output *file = NULL;
    pk_status st =
        !to_stdout ? pk_output_open(a.output, a.force ? PK_WRITE_FORCE : 0, &file) : PK_OK;
    if (st) return cli_close("flame", p, cli_library_error("flame", st));
    rc = draw(p, &a, path, file ? pk_output_stream(file) : stdout);
    if (rc && file && pk_output_status(file)) rc = cli_library_error("flame", PK_ERR_IO); /* why */
    if (!rc && (st = pk_profile_intact(p)) != PK_OK) rc = cli_library_error("flame", st);
    if (file && rc) pk_output_abort(file);
    if (file && !rc && (st = pk_output_commit(file)) != PK_OK) rc = cli_library_error("flame", st);
    return cli_close("flame", p, rc);
}

int cmd_flame(int argc, char **argv)
{
    flame_args a = {0};
    int rc = parse_flame_args(argc, argv, &a);
    if (!rc) rc = run(&a, argc, argv);
    cli_view_free(&a.view);
    return rc < 0 ? CLI_OK : rc;
}
