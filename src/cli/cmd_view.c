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
    "The URL is printed alone on the first line of standard output, with the\n"
    "session's secret token: only a browser that opened that URL (or a program\n"
    "that sends the token) is served, so other users of this machine and web\n"
    "pages of other sites cannot read the profile. Only this machine can\n"
    "connect unless --bind says otherwise (over SSH, forward the port: ssh -L\n"
    "8080:127.0.0.1:8080 HOST, and open the URL). Ctrl-C stops the server.\n"
    "With -o FILE, write the same page as one HTML file instead, with the\n"
    "data embedded (pruned at --threshold), that opens offline.\n\n"
    "Options:\n"
    "  -m, --metric NAME     the metric the page shows first (default: the first\n"
    "                        time metric with a non-zero total)\n"
    "      --base BASE       a second profile to compare with (the diff pane; flame\n"
    "                        graph coloured by the change from BASE to PATH)\n"
    "      --port N          TCP port (default: 8080, or the next free one when it\n"
    "                        is in use; 0: any free port); a busy N is an error\n"
    "      --open            start a browser on the URL ($BROWSER, else xdg-open)\n"
    "      --bind ADDR       address to listen on (default 127.0.0.1); any other\n"
    "                        than a loopback address lets everyone who can reach\n"
    "                        the port read the profile (a warning says so)\n"
    "      --no-token        serve without a token: any process or user on this\n"
    "                        machine, and any web page the browser opens, can\n"
    "                        read the profile (a warning says so)\n"
    "  -I, --source-dir DIR  the source pane reads files under DIR (repeatable);\n"
    "                        without it only the profile's own src/ (an HPCToolkit\n"
    "                        database's copies), never a path the profile names\n"
    "      --any-source      read any source file the profile names, as annotate\n"
    "                        does (whoever can use the page can then read them)\n"
    "  -o, --output FILE     write a self-contained HTML report instead of serving\n"
    "  -f, --force           replace FILE if it exists and profkit wrote it\n"
    "  -t, --threshold PCT   report: keep tree nodes and flame frames of at least\n"
    "                        PCT% of the total (default 0.5)\n"
    "      --api ROUTE[?QUERY]  answer one request of the page's API without a\n"
    "                        server (repeatable): its JSON document on a line of\n"
    "                        its own; exit 1 when one fails (docs/view.md)\n"
    "  -h, --help            show this help\n"
    "Environment: PROFKIT_VIEW_ASSETS=DIR serves index.html, app.js and app.css\n"
    "from DIR instead of the copies built in (for working on the page: the build\n"
    "stages them in build/src/view-assets).\n";

#define MAX_API 256

typedef struct view_args {
    const char *metric, *base, *bind, *output;
    const char *api[MAX_API]; /* --api requests */
    size_t n_api;
    unsigned port;
    unsigned serve_flags; /* PKV_PORT_GIVEN, PKV_OPEN */
    double threshold;
    int force, no_token, any_source;
    const char *dirs[PKV_MAX_SOURCE_DIRS];
    size_t n_dirs;
} view_args;

enum { OPT_BASE = 2000, OPT_PORT, OPT_BIND, OPT_API, OPT_NO_TOKEN, OPT_ANY_SOURCE, OPT_OPEN };

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
                                         {"no-token", no_argument, NULL, OPT_NO_TOKEN},
                                         {"source-dir", required_argument, NULL, 'I'},
                                         {"any-source", no_argument, NULL, OPT_ANY_SOURCE},
                                         {"api", required_argument, NULL, OPT_API},
                                         {"open", no_argument, NULL, OPT_OPEN},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    int c;
    double v;
    while ((c = cli_getopt("view", argc, argv, "m:o:ft:I:h", opts)) != -1) {
        if (c == OPT_NO_TOKEN || c == OPT_ANY_SOURCE) {
            *(c == OPT_NO_TOKEN ? &a->no_token : &a->any_source) = 1;
        } else if (c == 'I') {
            if (a->n_dirs == PKV_MAX_SOURCE_DIRS)
                return cli_usage_error("view", "at most %d --source-dir", PKV_MAX_SOURCE_DIRS);
            a->dirs[a->n_dirs++] = optarg;
        } else if (c == 'm') {
            a->metric = optarg;
        } else if (c == OPT_BASE || c == OPT_BIND || c == 'o') {
            *(c == OPT_BASE ? &a->base : c == OPT_BIND ? &a->bind : &a->output) = optarg;
        } else if (c == 'f') {
            a->force = 1;
        } else if (c == OPT_OPEN) {
            a->serve_flags |= PKV_OPEN;
        } else if (c == OPT_API) {
            if (a->n_api == MAX_API) return cli_usage_error("view", "at most %d --api", MAX_API);
            a->api[a->n_api++] = optarg;
        } else if (c == OPT_PORT) {
            if (strspn(optarg, "0123456789") != strlen(optarg) ||
                !parse_number(optarg, 0, 65535, &v))
                return cli_usage_error("view", "--port wants a number from 0 to 65535");
            a->port = (unsigned)v;
            a->serve_flags |= PKV_PORT_GIVEN;
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

/* The -I directories as the query's dirs option takes them. */
static char *join_dirs(const view_args *a)
{
    size_t len = 1;
    for (size_t i = 0; i < a->n_dirs; i++)
        len += strlen(a->dirs[i]) + 1;
    char *all = calloc(len, 1);
    for (size_t i = 0; all && i < a->n_dirs; i++) {
        if (i) strcat(all, ":");
        strcat(all, a->dirs[i]);
    }
    return all;
}

/* --api: each request through the routes, as the server answers it. */
static int answer_api(pkv_session *s, const view_args *a)
{
    int rc = CLI_OK;
    for (size_t i = 0; i < a->n_api; i++) {
        char route[64];
        const char *q = strchr(a->api[i], '?');
        size_t len = q ? (size_t)(q - a->api[i]) : strlen(a->api[i]);
        snprintf(route, sizeof route, "%.*s", (int)(len < 63 ? len : 63), a->api[i]);
        pkv_query query = {0};
        pkv_query_parse(&query, q ? q + 1 : NULL);
        pkv_response r;
        int failed = pkv_api(s, route, &query, &r) < 0;
        pkv_query_free(&query);
        if (failed) return cli_library_error("view", PK_ERR_NOMEM);
        fwrite(r.body, 1, r.len, stdout);
        if (!r.len || r.body[r.len - 1] != '\n') putchar('\n');
        if (r.status != 200) {
            fprintf(stderr, "profkit view: %s: HTTP %d\n", cli_text(a->api[i]), r.status);
            rc = CLI_BAD;
        }
        free(r.body);
    }
    return rc ? rc : cli_output_done("view");
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
    memcpy(s.source_dirs, a.dirs, sizeof a.dirs);
    s.n_source_dirs = a.n_dirs, s.any_source = a.any_source;
    if (a.n_dirs && !(s.source_dirs_joined = join_dirs(&a)))
        return cli_library_error("view", PK_ERR_NOMEM);
    if (s.assets_dir && !*s.assets_dir) s.assets_dir = NULL;
    rc = open_side(path, a.metric, &s.side[0], 0);
    if (!rc && a.base) {
        pk_metric met;
        pk_metric_get(s.side[0].p, s.side[0].default_metric, &met);
        rc = open_side(a.base, met.name, &s.side[1], 1);
    }
    if (!rc && a.n_api)
        rc = answer_api(&s, &a);
    else if (!rc && a.output)
        rc = pkv_report(&s, a.output, a.threshold, a.force);
    else if (!rc)
        rc = pkv_serve(&s, a.bind, a.port, a.serve_flags | (a.no_token ? 0 : PKV_TOKEN));
    pkv_session_free(&s);
    free(s.source_dirs_joined);
    pk_session_free(s.side[0].qs), pk_session_free(s.side[1].qs);
    if (s.side[1].p) rc = cli_close("view", s.side[1].p, rc);
    return cli_close("view", s.side[0].p, rc);
}
