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

/* Frames of one profile under the view (metric by name for the base). */
static int frames_of(const pk_profile *p, const cli_view *v, cli_view_values *vals, pk_frame **f,
                     size_t *n)
{
    int rc = cli_view_compute("flame", p, v, vals);
    if (rc) return rc;
    pk_status st = pk_frames_build(p, vals->incl, f, n);
    return st ? cli_library_error("flame", st) : CLI_OK;
}

/* base[i]: the base profile's inclusive value of frame i, NaN if absent. */
static int base_values(const char *path, const cli_view *v, const char *metric, const pk_profile *p,
                       const pk_frame *f, size_t n, double **base)
{
    pk_profile *bp;
    int rc = cli_open("flame", path, PK_OPEN_NO_TRACES | PK_OPEN_NO_CCT, &bp);
    if (rc) return rc;
    cli_view bv = *v;
    bv.metric = metric;
    cli_view_values bvals = {0};
    pk_frame *bf = NULL;
    size_t bn = 0;
    pk_index *map = malloc(n * sizeof *map);
    *base = malloc(2 * n * sizeof **base);
    rc = map && *base ? frames_of(bp, &bv, &bvals, &bf, &bn) : CLI_BAD;
    if (!rc && pk_frames_match(p, f, n, bp, bf, bn, map) != PK_OK) rc = CLI_BAD;
    for (size_t i = 0; !rc && i < n; i++) {
        (*base)[i] = map[i] == PK_NONE ? NAN : bf[map[i]].inclusive;
        (*base)[n + i] = map[i] == PK_NONE ? NAN : bf[map[i]].self;
    }
    free(map);
    pk_frames_free(bf);
    cli_view_values_free(&bvals);
    pk_profile_free(bp);
    return rc;
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
    cli_view_values vals = {0};
    pk_frame *f = NULL;
    size_t n = 0;
    double *base = NULL;
    char sub[512], total[32], title[512], name[256];
    int rc = frames_of(p, &a->view, &vals, &f, &n);
    if (!rc && a->diff) rc = base_values(a->diff, &a->view, vals.met.name, p, f, n, &base);
    if (!rc) {
        pk_format_value(total, sizeof total, vals.total);
        /* the unit after the total, unless the name says it ("CPUTIME (sec)") */
        const char *unit =
            vals.met.unit && !strstr(vals.met.name, vals.met.unit) ? vals.met.unit : "";
        snprintf(sub, sizeof sub, "%s, total %s%s%s%s%s", vals.met.name, total, *unit ? " " : "",
                 unit, a->diff ? "; against " : "", a->diff ? base_name(a->diff, name) : "");
        snprintf(title, sizeof title, "%s \xe2\x80\x94 %s", base_name(path, name), vals.met.name);
        a->o.title = a->title ? a->title : title;
        a->o.unit = vals.met.unit;
        a->o.subtitle = sub;
        a->o.base = base;
        a->o.base_self = base ? base + n : NULL;
        pk_status st = a->folded ? pk_flame_write_folded(out, p, f, n)
                                 : pk_flame_write_svg(out, p, f, n, &a->o);
        if (st) rc = cli_library_error("flame", st);
    }
    free(base);
    pk_frames_free(f);
    cli_view_values_free(&vals);
    return rc;
}

int cmd_flame(int argc, char **argv)
{
    flame_args a = {0};
    int rc = parse_flame_args(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    const char *path = cli_one_path("flame", argc, argv, optind);
    if (!path) return CLI_USAGE;
    /* a call graph's tree by function, and for a drawing only as deep as
     * frames of a tenth of a pixel (what the SVG keeps); folded stacks
     * want every context */
    unsigned width = a.o.width ? a.o.width : 1200;
    pk_open_options o = {.flags = PK_OPEN_NO_TRACES | PK_OPEN_NO_CCT | PK_OPEN_BY_FUNCTION,
                         .tree_threshold = a.folded ? 0 : cli_tree_threshold(100.0 * 0.1 / width)};
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
