/*
 * cli/cmd_view.c — `profkit view`: an interactive browser view of a
 * profile (and a base to compare with), served on a local port, or
 * written as one self-contained HTML report. Options and opening here;
 * the server, the routes and the report live in src/view/.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "view/view.h"

static const char view_help[] =
    "Usage: profkit view [options] PATH\n\n"
    "Open PATH (any format profkit reads) and serve an interactive view of it\n"
    "to a web browser: flat table, top-down tree, flame graph and icicle,\n"
    "callers and callees, source with per-line costs, per-location values,\n"
    "a diff against --base, and the trace timeline when PATH has traces.\n"
    "The URL is printed alone on the first line of standard output; only\n"
    "this machine can connect unless --bind says otherwise (over SSH, forward\n"
    "the port: ssh -L 8080:127.0.0.1:8080 HOST). Ctrl-C stops the server.\n"
    "With -o FILE, write the same page as one HTML file instead, with the\n"
    "data embedded (pruned at --threshold), that opens offline.\n\n"
    "Options:\n"
    "  -m, --metric NAME     the metric the page shows first (default: the first\n"
    "                        time metric with a non-zero total)\n"
    "      --base BASE       a second profile to compare with (the diff pane; flame\n"
    "                        graph coloured by the change from BASE to PATH)\n"
    "      --port N          TCP port (default 8080; 0: any free port)\n"
    "      --bind ADDR       address to listen on (default 127.0.0.1); any other\n"
    "                        than a loopback address lets everyone who can reach\n"
    "                        the port read the profile (a warning says so)\n"
    "  -o, --output FILE     write a self-contained HTML report instead of serving\n"
    "  -f, --force           replace FILE if it exists and profkit wrote it\n"
    "  -t, --threshold PCT   report: keep tree nodes and flame frames of at least\n"
    "                        PCT% of the total (default 0.5)\n"
    "  -h, --help            show this help\n"
    "Environment: PROFKIT_VIEW_ASSETS=DIR serves index.html, app.js and app.css\n"
    "from DIR instead of the copies built in (for working on the page).\n";

typedef struct view_args {
    const char *metric, *base, *bind, *output;
    unsigned port;
    double threshold;
    int force;
} view_args;

enum { OPT_BASE = 2000, OPT_PORT, OPT_BIND };

static int parse_number(const char *arg, double lo, double hi, double *out)
{
    char *end;
    *out = strtod(arg, &end);
    return *arg && !*end && *out >= lo && *out <= hi;
}

static int parse_view_args(int argc, char **argv, view_args *a)
{
    static const struct option opts[] = {{"metric", required_argument, NULL, 'm'},
                                         {"base", required_argument, NULL, OPT_BASE},
                                         {"port", required_argument, NULL, OPT_PORT},
                                         {"bind", required_argument, NULL, OPT_BIND},
                                         {"output", required_argument, NULL, 'o'},
                                         {"force", no_argument, NULL, 'f'},
                                         {"threshold", required_argument, NULL, 't'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    int c;
    double v;
    while ((c = cli_getopt("view", argc, argv, "m:o:ft:h", opts)) != -1) {
        if (c == 'm') {
            a->metric = optarg;
        } else if (c == OPT_BASE || c == OPT_BIND || c == 'o') {
            *(c == OPT_BASE ? &a->base : c == OPT_BIND ? &a->bind : &a->output) = optarg;
        } else if (c == 'f') {
            a->force = 1;
        } else if (c == OPT_PORT) {
            if (strspn(optarg, "0123456789") != strlen(optarg) ||
                !parse_number(optarg, 0, 65535, &v))
                return cli_usage_error("view", "--port wants a number from 0 to 65535");
            a->port = (unsigned)v;
        } else if (c == 't') {
            if (!parse_number(optarg, 0, 100, &a->threshold))
                return cli_usage_error("view", "--threshold wants a percentage, got '%s'",
                                       cli_text(optarg));
        } else if (c == 'h') {
            fputs(view_help, stdout);
            return -1;
        } else {
            return cli_bad_option("view");
        }
    }
    return 0;
}

/* Open one side: everything (traces, the whole tree of a call graph). */
static int open_side(const char *path, const char *metric, pkv_side *sd, int quiet_metric)
{
    pk_open_options o = {0, 0, 0, 0};
    int rc = cli_open_opts("view", path, &o, &sd->p);
    if (rc) return rc;
    sd->path = path;
    if (pk_session_new(sd->p, &sd->qs) != PK_OK) return cli_library_error("view", PK_ERR_NOMEM);
    pk_status st = pk_metric_lookup(sd->p, metric, &sd->default_metric);
    if (st && quiet_metric) /* the base lacks PATH's metric: its own default */
        st = pk_metric_lookup(sd->p, NULL, &sd->default_metric);
    return st ? cli_library_error("view", st) : CLI_OK;
}

int cmd_view(int argc, char **argv)
{
    view_args a = {.bind = "127.0.0.1", .port = 8080, .threshold = 0.5};
    int rc = parse_view_args(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    const char *path = cli_one_path("view", argc, argv, optind);
    if (!path) return CLI_USAGE;
    pkv_session s = {0};
    s.assets_dir = getenv("PROFKIT_VIEW_ASSETS");
    if (s.assets_dir && !*s.assets_dir) s.assets_dir = NULL;
    rc = open_side(path, a.metric, &s.side[0], 0);
    if (!rc && a.base) {
        pk_metric met;
        pk_metric_get(s.side[0].p, s.side[0].default_metric, &met);
        rc = open_side(a.base, met.name, &s.side[1], 1);
    }
    if (!rc && a.output)
        rc = pkv_report(&s, a.output, a.threshold, a.force);
    else if (!rc)
        rc = pkv_serve(&s, a.bind, a.port);
    pkv_session_free(&s);
    pk_session_free(s.side[0].qs), pk_session_free(s.side[1].qs);
    if (s.side[1].p) rc = cli_close("view", s.side[1].p, rc);
    return cli_close("view", s.side[0].p, rc);
}
