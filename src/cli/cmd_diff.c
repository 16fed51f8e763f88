/*
 * cli/cmd_diff.c — `profkit diff A B`: what changed from profile A (the
 * base) to profile B, per function and per calling path, whatever the
 * two files' formats.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char diff_help[] =
    "Usage: profkit diff [options] A B\n\n"
    "Compare profile B against the base A, for one metric (the same name in\n"
    "both): per function, self values, their change and its percentage of\n"
    "A's value, and the change of the inclusive value, largest change of the\n"
    "self value first; then per calling path (the chain of function names\n"
    "from the entry, matched across files of any format), largest change of\n"
    "the inclusive value first. Rows whose own value did not change (their\n"
    "callees' did) are folded; identical inputs print \"no differences\".\n"
    "Increases are red and decreases green on a terminal. Paths only in\n"
    "B are marked [added], only in A [removed]. Values that differ only by\n"
    "rounding (1e-9 of the values or of A's total) are the same; B's values\n"
    "are put in A's unit when its unit differs by a power of 1000; entry\n"
    "points and functions a writer made up for them or for bare addresses\n"
    "are no frames of a path, so a profile and its conversion compare equal.\n"
    "Where either side is a call graph (Callgrind), paths give way to call\n"
    "arcs (caller > callee: the cost of its calls), each side's taken from\n"
    "a call graph, what both hold (--focus, --hide, --stat bring paths back).\n\n"
    "Options:\n" CLI_VIEW_HELP CLI_WIDTH_HELP
    "  -m 'A,B,NAME=EXPR'    several metrics: the tables are of A (a metric); the\n"
    "                        change of B and of metrics derived by expression\n"
    "                        (miss=D1mr/Dr; docs/derived.md) as further columns\n"
    "  -n, --top N           show N rows of each table (default 15; 0 = all)\n"
    "  -t, --threshold PCT   hide rows whose change is below PCT% of A's total\n"
    "      --json            as JSON (docs/json.md, profkit.diff/1)\n"
    "  -h, --help            show this help\n";

static int compare(pk_profile *pa, pk_profile *pb, const cli_view *v, const char *path_a,
                   const char *path_b)
{
    pk_session *sa = NULL, *sb = NULL;
    pk_diff_answer *d = NULL;
    pk_status st = pk_session_new(pa, &sa);
    if (!st) st = pk_session_new(pb, &sb);
    if (!st) st = pk_answer_diff(sa, sb, v->q, &d);
    int rc = st ? cli_library_error("diff", st) : CLI_OK;
    if (!rc && v->json) {
        pk_json j;
        pk_json_init(&j, stdout, 1);
        pk_diff_answer_write_json(&j, d);
        rc = cli_json_done("diff", &j);
    } else if (!rc) {
        rc = cli_diff_write_text(d, v, path_a, path_b);
        if (!rc) rc = cli_output_done("diff");
    }
    pk_diff_answer_free(d);
    pk_session_free(sa), pk_session_free(sb);
    return rc;
}

int cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_VIEW_LONG_OPTIONS, CLI_WIDTH_LONG_OPTION, {"help", no_argument, NULL, 'h'}, {0}};
    cli_view v = {.top = 15};
    int c, rc;
    while ((c = cli_getopt("diff", argc, argv, "m:t:n:h", opts)) != -1) {
        if (c == 'h') return fputs(diff_help, stdout), CLI_OK;
        if (c == CLI_OPT_CSV) return cli_usage_error("diff", "no CSV form; try --json");
        if ((rc = cli_view_option("diff", &v, c, optarg)) != 0) return rc;
    }
    if ((rc = cli_view_check("diff", &v)) != 0) return cli_view_free(&v), rc;
    if (argc - optind != 2)
        return cli_view_free(&v), cli_usage_error("diff", "want two profiles, A and B");
    pk_open_options o = {0};
    pk_query_open_options(v.q, PK_ANSWER_DIFF, 0, &o);
    pk_profile *pa = NULL, *pb = NULL;
    rc = cli_open_opts("diff", argv[optind], &o, &pa);
    if (!rc) rc = cli_open_opts("diff", argv[optind + 1], &o, &pb);
    if (!rc) rc = compare(pa, pb, &v, argv[optind], argv[optind + 1]);
    if (pb) rc = cli_close("diff", pb, rc);
    if (pa) rc = cli_close("diff", pa, rc);
    cli_view_free(&v);
    return rc;
}
