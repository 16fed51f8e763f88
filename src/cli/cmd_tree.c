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
    "Show the top-down calling-context tree of one metric: for every context\n"
    "its inclusive and exclusive value summed over all non-summary locations\n"
    "(threads, ranks, GPU streams) and as a percentage of the program total.\n"
    "Children are sorted by inclusive value, largest first.\n\n"
    "Options:\n"
    "  -m, --metric NAME     metric to show (exact name, or a case-insensitive\n"
    "                        prefix); default: the first time-like metric\n"
    "  -t, --threshold PCT   hide contexts below PCT %% of the total (default 1)\n"
    "  -d, --depth N         show at most N levels below the root\n"
    "      --json            the tree as JSON (docs/json.md, profkit.tree/1)\n"
    "      --no-color        no colours even on a terminal\n"
    "  -h, --help            show this help\n";

typedef struct tree_args {
    const char *metric;
    pk_tree_options opts;
    int json, no_color;
} tree_args;

static int show_tree(const pk_profile *p, const tree_args *a)
{
    pk_index m;
    pk_metric met;
    if (!cli_pick_metric(p, a->metric, &m, NULL)) {
        fprintf(stderr, "profkit tree: no metric named '%s'\n", a->metric ? a->metric : "");
        return CLI_BAD;
    }
    pk_metric_get(p, m, &met);
    size_t n = pk_context_count(p);
    double *incl = calloc(n ? n : 1, sizeof *incl), *excl_buf = calloc(n ? n : 1, sizeof *excl_buf);
    double *excl = excl_buf, total = 0;
    if (!incl || !excl) {
        free(incl);
        free(excl);
        fprintf(stderr, "profkit tree: out of memory\n");
        return CLI_BAD;
    }
    int derived = 0;
    pk_status st = cli_scope_values(p, m, incl, &excl, &derived);
    if (!st) st = pk_metric_program_total(p, m, &total);
    pk_tree_options o = a->opts;
    o.color = cli_use_color(stdout, a->no_color || a->json);
    if (!st && !a->json) {
        printf("metric %s: program total %.10g\n", met.name, total);
        cli_say_reconstructed(p, stdout);
        if (derived)
            printf("(%s values derived from the stored %s ones)\n",
                   derived == PK_SCOPE_INCLUSIVE ? "inclusive" : "exclusive",
                   derived == PK_SCOPE_INCLUSIVE ? "exclusive" : "inclusive");
        putchar('\n');
    }
    if (!st)
        st = a->json ? pk_tree_write_json(stdout, p, incl, excl, total, &o)
                     : pk_tree_write_text(stdout, p, incl, excl, total, &o);
    free(incl);
    free(excl_buf);
    return st ? cli_library_error("tree", st) : CLI_OK;
}

static int parse_tree_args(int argc, char **argv, tree_args *a)
{
    static const struct option opts[] = {{"metric", required_argument, NULL, 'm'},
                                         {"threshold", required_argument, NULL, 't'},
                                         {"depth", required_argument, NULL, 'd'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"no-color", no_argument, NULL, 'C'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "m:t:d:h", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            a->metric = optarg;
            break;
        case 't':
            a->opts.threshold = strtod(optarg, &end);
            if (*end || a->opts.threshold < 0 || a->opts.threshold > 100)
                return cli_usage_error("tree", "--threshold wants a percentage, got '%s'", optarg);
            break;
        case 'd':
            a->opts.max_depth = (uint32_t)strtoul(optarg, &end, 10);
            if (*end || !*optarg) return cli_usage_error("tree", "--depth wants a number");
            break;
        case 'j':
            a->json = 1;
            break;
        case 'C':
            a->no_color = 1;
            break;
        case 'h':
            fputs(tree_help, stdout);
            return -1;
        default:
            return cli_usage_error("tree", "unknown option");
        }
    }
    return CLI_OK;
}

int cmd_tree(int argc, char **argv)
{
    tree_args a = {NULL, {1.0, 0, 0}, 0, 0};
    int rc = parse_tree_args(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    const char *path = cli_one_path("tree", argc, argv, optind);
    if (!path) return CLI_USAGE;
    pk_profile *p;
    rc = cli_open("tree", path, PK_OPEN_NO_TRACES | PK_OPEN_NO_CCT, &p);
    if (rc) return rc;
    rc = show_tree(p, &a);
    pk_profile_free(p);
    return rc;
}
