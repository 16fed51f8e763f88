/*
 * cli/cmd_flat.c — `profkit flat`: the flat profile of one metric or
 * several, per function (or source file, load module, source line), self
 * and inclusive, as the library's flat answer (pk_answer_flat()) gives
 * it: text for people, --json and --csv for machines.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char flat_help[] =
    "Usage: profkit flat [options] PATH\n\n"
    "Show the flat profile of one metric: its exclusive value (spent in the\n"
    "function itself) and inclusive value (with everything it called;\n"
    "recursion counted once) per function, summed over all non-summary\n"
    "locations, as values and percentages of the program total. Sorted by\n"
    "exclusive value, largest first.\n"
    "A Callgrind profile answers from its call graph, exactly: cycles of\n"
    "mutually recursive functions count once (listed as <cycle N>, as\n"
    "KCachegrind lists them), and a calls column says how many times each\n"
    "row was called from outside it (by line: the calls made on it).\n"
    "--focus, --hide and --stat need a calling-context tree: with them the\n"
    "tree reconstructed from the call graph is used (and said so).\n\n"
    "Options:\n" CLI_VIEW_HELP CLI_WIDTH_HELP
    "      --by WHAT         group by function (default), file, module or line\n"
    "  -n, --top N           show the N largest rows (default 25; 0 = all; with\n"
    "                        --csv or --json every row unless -n is given)\n"
    "  -m 'A,B,NAME=EXPR'    several metrics as columns, and metrics derived by\n"
    "                        expression over them (miss=D1mr/Dr; docs/derived.md)\n"
    "  -t, --threshold PCT   hide rows below PCT% of the total (default 0)\n"
    "      --json            the rows as JSON (docs/json.md, profkit.flat/1)\n"
    "      --csv             the rows as CSV (header line, then one row each)\n"
    "  -h, --help            show this help\n";

static double pct(double v, const pk_answer_column *c)
{
    return c->total != 0 ? 100.0 * v / c->total : 0.0;
}

/* "  12.5%" when the column's values are shares of its total, else blanks. */
static const char *share(char *buf, size_t size, double v, const pk_answer_column *c)
{
    if (c->percent && !isnan(v))
        snprintf(buf, size, " %6.1f%%", pct(v, c));
    else
        snprintf(buf, size, "%8s", "");
    return buf;
}

/* " [libx.so]" or " (b.c)": what tells a row from a same-named one. */
static size_t apart_text(const pk_flat_entry *e, char *buf, size_t size)
{
    if (!e->differs) return buf[0] = 0, 0;
    int module = strcmp(e->differs_by, "module") == 0;
    return (size_t)snprintf(buf, size, module ? " [%s]" : " (%s)", cli_text(e->differs));
}

/* The rows' names for the table, shortened together to `room` (less
 * what tells same-named rows apart, which follows them whole). */
static char **row_labels(const pk_flat_answer *a, const cli_view *v, unsigned room)
{
    char apart[1024];
    size_t longest = 0;
    for (size_t i = 0; i < a->n_rows; i++) {
        size_t n = apart_text(&a->rows[i], apart, sizeof apart);
        longest = n > longest ? n : longest;
    }
    if (room) room = room > longest + 20 ? room - (unsigned)longest : 20;
    const char **names = malloc((a->n_rows ? a->n_rows : 1) * sizeof *names);
    for (size_t i = 0; names && i < a->n_rows; i++)
        names[i] = a->rows[i].name;
    char **labels = names ? cli_labels(names, a->n_rows, v->no_demangle, room) : NULL;
    free(names);
    for (size_t i = 0; labels && i < a->n_rows; i++) {
        size_t n = apart_text(&a->rows[i], apart, sizeof apart), len = strlen(labels[i]);
        char *grown = n ? realloc(labels[i], len + n + 1) : labels[i];
        if (grown) memcpy(grown + len, apart, n + 1), labels[i] = grown;
    }
    return labels;
}

static void text_one(const pk_flat_answer *a, const cli_view *v, const char *by)
{
    const pk_answer_column *c = &a->head.columns[0];
    char ex[48], in[48], n_called[48], n_calls[32], hex[64], hin[64], s1[16], s2[16];
    int color = cli_use_color(stdout, v->no_color), calls = a->has_calls;
    pk_format_header(hex, sizeof hex, "exclusive", &c->numbers);
    pk_format_header(hin, sizeof hin, "inclusive", &c->numbers);
    printf("%18s  %18s  %s%s\n", hex, hin, calls ? "     calls  " : "", by);
    unsigned width = cli_view_width(v), used = calls ? 52 : 40;
    unsigned room = width == 0 ? 0 : width > used + 20 ? width - used : 20;
    char **labels = row_labels(a, v, room);
    for (size_t i = 0; i < a->n_rows; i++) {
        const pk_flat_entry *r = &a->rows[i];
        pk_format_number(ex, sizeof ex, r->self[0], &c->numbers);
        pk_format_number(in, sizeof in, r->inclusive[0], &c->numbers);
        pk_format_number(n_calls, sizeof n_calls, r->calls, NULL);
        snprintf(n_called, sizeof n_called, "%10s  ", n_calls);
        printf("%10s%s  %10s%s  %s%s%s%s\n", ex, share(s1, sizeof s1, r->self[0], c), in,
               share(s2, sizeof s2, r->inclusive[0], c), calls ? n_called : "",
               color && i == 0 ? "\033[1m" : "",
               labels ? labels[i] : cli_name(r->name, v->no_demangle, room),
               color && i == 0 ? "\033[0m" : "");
    }
    cli_labels_free(labels, a->n_rows);
    if (a->hidden) printf("(%zu more %s rows not shown)\n", a->hidden, by);
}

static void text_columns(const pk_flat_answer *a, const cli_view *v, const char *by)
{
    char cell[48], head[96];
    printf("metrics per %s, self values (in the %s itself), sorted by %s; derived\n"
           "columns are evaluated on each row's totals\n\n",
           by, by, cli_text(a->head.columns[0].name));
    size_t nc = a->head.n_columns;
    int *w = calloc(nc, sizeof *w); /* 12, or the header's width */
    unsigned used = 1;
    for (size_t c = 0; w && c < nc; c++) {
        const pk_answer_column *col = &a->head.columns[c];
        pk_format_header(head, sizeof head, col->name, col->expression ? NULL : &col->numbers);
        w[c] = strlen(head) > 12 ? (int)strlen(head) : 12;
        used += (unsigned)w[c] + 1;
        printf("%*s ", w[c], cli_text(head));
    }
    printf(" %s\n", by);
    unsigned width = cli_view_width(v);
    unsigned room = width == 0 ? 0 : width > used + 20 ? width - used : 20;
    char **labels = row_labels(a, v, room);
    for (size_t i = 0; w && i < a->n_rows; i++) {
        for (size_t c = 0; c < nc; c++) {
            const pk_answer_column *col = &a->head.columns[c];
            double x = a->rows[i].self[c];
            if (isnan(x))
                snprintf(cell, sizeof cell, "-");
            else
                pk_format_number(cell, sizeof cell, x, col->expression ? NULL : &col->numbers);
            printf("%*s ", w[c], cell);
        }
        printf(" %s\n", labels ? labels[i] : cli_name(a->rows[i].name, v->no_demangle, room));
    }
    cli_labels_free(labels, a->n_rows);
    if (a->hidden) printf("(%zu more rows not shown)\n", a->hidden);
    free(w);
}

static void write_text(const pk_flat_answer *a, const cli_view *v)
{
    const char *by = pk_query_get(v->q, "by") ? pk_query_get(v->q, "by") : "function";
    if (a->head.n_columns > 1 || a->head.columns[0].expression) return text_columns(a, v, by);
    cli_describe(&a->head, stdout);
    printf("grouped by %s; inclusive values count recursion once\n\n", by);
    if (a->n_rows == 0 && a->hidden == 0)
        printf("(no %s %s)\n",
               strcmp(a->head.source, "callgraph") ? "contexts name a" : "costs in any", by);
    text_one(a, v, by);
}

/* The answer's "no_rows" note (no row can hold the cost), or NULL. */
static const char *no_rows(const pk_flat_answer *a)
{
    for (size_t i = 0; i < a->head.n_notes; i++)
        if (strcmp(a->head.notes[i].code, "no_rows") == 0) return a->head.notes[i].text;
    return NULL;
}

static int show_flat(const pk_profile *p, const cli_view *v)
{
    pk_session *s = NULL;
    pk_flat_answer *a = NULL;
    pk_status st = pk_session_new(p, &s);
    if (!st) st = pk_answer_flat(s, v->q, &a);
    int rc = st ? cli_library_error("flat", st) : CLI_OK;
    if (!rc && v->json) {
        pk_json j;
        pk_json_init(&j, stdout, 1);
        pk_flat_answer_write_json(&j, a);
        rc = cli_json_done("flat", &j);
    } else if (!rc && v->csv) {
        pk_flat_answer_write_csv(stdout, a);
        rc = cli_output_done("flat");
    } else if (!rc && no_rows(a)) { /* an empty table is no answer: one line why */
        pk_profile_info pi = {0};
        pk_profile_get_info(p, &pi);
        fprintf(stderr, "profkit flat: %s: %s\n", cli_text(pi.path ? pi.path : ""),
                cli_text(no_rows(a)));
        rc = CLI_BAD;
    } else if (!rc) {
        write_text(a, v);
        rc = cli_output_done("flat");
    }
    pk_flat_answer_free(a);
    pk_session_free(s);
    return rc;
}

static int parse_flat_args(int argc, char **argv, cli_view *v)
{
    static const struct option opts[] = {CLI_VIEW_LONG_OPTIONS,
                                         CLI_WIDTH_LONG_OPTION,
                                         {"by", required_argument, NULL, 'b'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    const char *by = NULL;
    int c, rc;
    while ((c = cli_getopt("flat", argc, argv, "m:n:t:h", opts)) != -1) {
        if (c == 'b') {
            by = optarg;
        } else if (c == 'h') {
            fputs(flat_help, stdout);
            return -1;
        } else if ((rc = cli_view_option("flat", v, c, optarg)) != 0) {
            return rc;
        }
    }
    if ((v->json || v->csv) && !v->top_given) v->top = 0; /* machines get every row */
    if ((rc = cli_view_check("flat", v)) != 0) return rc;
    return by ? cli_query_set("flat", v, "by", by) : 0;
}

int cmd_flat(int argc, char **argv)
{
    cli_view v = {.top = 25};
    int rc = parse_flat_args(argc, argv, &v);
    if (rc) return cli_view_free(&v), rc < 0 ? CLI_OK : rc;
    pk_open_options o = {0};
    pk_query_open_options(v.q, PK_ANSWER_FLAT, 0, &o);
    const char *path = cli_one_path("flat", argc, argv, optind);
    pk_profile *p;
    rc = path ? cli_open_opts("flat", path, &o, &p) : CLI_USAGE;
    if (!rc) rc = cli_close("flat", p, show_flat(p, &v));
    cli_view_free(&v);
    return rc;
}
