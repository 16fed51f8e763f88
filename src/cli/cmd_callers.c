/*
 * cli/cmd_callers.c — `profkit callers` and `profkit callees`: the
 * bottom-up and top-down trees around one function (pprof's peek,
 * callgrind_annotate --tree=caller/calling), recursion counted once.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char callers_help[] =
    "Usage: profkit callers [options] PATH FUNCTION\n"
    "       profkit callees [options] PATH FUNCTION\n\n"
    "callers: who calls FUNCTION, and who calls them, up to the program's\n"
    "entry: a bottom-up tree whose root is FUNCTION and whose children are its\n"
    "callers, each with FUNCTION's inclusive and self values on that path.\n"
    "callees: what FUNCTION calls, merged over every place it runs: a top-down\n"
    "tree whose root is FUNCTION with everything below it.\n"
    "FUNCTION is an exact name, or else a POSIX extended regular expression.\n"
    "A recursive function counts once: frames inside another frame of the\n"
    "same function add nothing more.\n\n"
    "Options:\n" CLI_VIEW_HELP
    "  -t, --threshold PCT   hide frames below PCT %% of the total (default 1)\n"
    "  -d, --depth N         show at most N levels below FUNCTION\n"
    "      --json            the tree as JSON (docs/json.md, profkit.frames/1)\n"
    "  -h, --help            show this help\n";

static int parse_args(const char *cmd, int argc, char **argv, cli_view *v, pk_tree_options *o)
{
    int rc = cli_parse_tree_options(cmd, callers_help, argc, argv, v, o);
    if (rc) return rc;
    return argc - optind == 2 ? 0 : cli_usage_error(cmd, "want PATH and FUNCTION");
}

static void header(const char *cmd, const pk_profile *p, const cli_view *v,
                   const cli_view_values *vals, const pk_frame *f, const char *function)
{
    char name[1024], value[32];
    cli_view_describe(p, v, vals, stdout);
    pk_frame_name(p, &f[0], name, sizeof name);
    pk_format_value(value, sizeof value, f[0].inclusive);
    printf("%s of %s%s%s%s: inclusive %s (%.1f%% of the total)\n\n", cmd, cli_text(name),
           strcmp(name, function) ? " (matching '" : "",
           strcmp(name, function) ? cli_text(function) : "", strcmp(name, function) ? "')" : "",
           value, vals->total ? 100.0 * f[0].inclusive / vals->total : 0.0);
}

static int show(const char *cmd, const pk_profile *p, const cli_view *v, pk_tree_options *o,
                const char *function)
{
    cli_view_values vals = {0};
    pk_frame *all = NULL, *around = NULL;
    size_t n_all = 0, n = 0;
    int callers = strcmp(cmd, "callers") == 0, rc = cli_view_compute(cmd, p, v, &vals);
    pk_status st = rc ? PK_OK : pk_frames_build(p, vals.incl, &all, &n_all);
    if (!rc && !st) st = pk_frames_around(p, all, n_all, function, callers, &around, &n);
    if (!rc && st) rc = cli_library_error(cmd, st);
    if (!rc) {
        o->threshold = v->threshold;
        o->color = cli_use_color(stdout, v->no_color || v->json);
        o->metric = vals.met.name;
        if (!v->json) header(cmd, p, v, &vals, around, function);
        st = v->json ? pk_frames_write_json(stdout, p, around, n, vals.total, function, callers, o)
                     : pk_frames_write_text(stdout, p, around, n, vals.total, o);
        if (st)
            rc = cli_library_error(cmd, st);
        else if (v->json)
            rc = cli_output_done(cmd);
    }
    pk_frames_free(around);
    pk_frames_free(all);
    cli_view_values_free(&vals);
    return rc;
}

static int run(const char *cmd, int argc, char **argv)
{
    cli_view v = {.threshold = 1.0};
    pk_tree_options o = {0};
    int rc = parse_args(cmd, argc, argv, &v, &o);
    if (rc) return rc < 0 ? CLI_OK : rc;
    pk_profile *p;
    rc = cli_open(cmd, argv[optind], PK_OPEN_NO_TRACES | PK_OPEN_NO_CCT, &p);
    if (rc) return rc;
    rc = show(cmd, p, &v, &o, argv[optind + 1]);
    return cli_close(cmd, p, rc);
}

int cmd_callers(int argc, char **argv)
{
    return run("callers", argc, argv);
}

int cmd_callees(int argc, char **argv)
{
    return run("callees", argc, argv);
}
