/*
 * cli/cmd_callers.c — `profkit callers` and `profkit callees`: who calls a
 * function and what it calls. On a profile with a call graph (Callgrind)
 * these are the call graph's own lists, exact: per caller or callee the
 * number of calls and their inclusive cost (as KCachegrind lists them),
 * for every function a name or regular expression picks. Otherwise (and
 * with --tree) the bottom-up and top-down trees around the function
 * (pprof's peek, callgrind_annotate --tree=caller/calling), recursion
 * counted once; on a call graph that tree is the reconstructed one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char callers_help[] =
    "Usage: profkit callers [options] PATH FUNCTION\n"
    "       profkit callees [options] PATH FUNCTION\n\n"
    "FUNCTION is an exact name, or else a POSIX extended regular expression.\n\n"
    "On a Callgrind profile: for each function FUNCTION names (the N with the\n"
    "largest inclusive cost), its self and inclusive cost and how often it\n"
    "was called, then the call graph's list of its callers (callees: of the\n"
    "functions it calls), each with the number of calls and the inclusive\n"
    "cost of those calls, largest first. Exact: nothing is reconstructed.\n"
    "Functions in a cycle of mutually recursive functions are marked with it.\n\n"
    "On other profiles, and with --tree: callers is a bottom-up tree whose\n"
    "root is FUNCTION and whose children are its callers, each with\n"
    "FUNCTION's inclusive and self values on that path, up to the program's\n"
    "entry; callees is the top-down tree below FUNCTION, merged over every\n"
    "place it runs. A recursive function counts once. On a Callgrind profile\n"
    "that tree is reconstructed from the call graph (and says so).\n\n"
    "Options:\n" CLI_VIEW_HELP
    "  -t, --threshold PCT   hide callers/callees (tree: frames) below PCT% of\n"
    "                        the total (default 1)\n"
    "  -n, --top N           call graph lists: at most N functions (default 10;\n"
    "                        0 = all)\n"
    "  -d, --depth N         tree: show at most N levels below FUNCTION\n"
    "      --tree            the tree view on a Callgrind profile too\n"
    "  -m 'A,B,NAME=EXPR'    tree: several metrics as columns, and metrics derived\n"
    "                        by expression (miss=D1mr/Dr; docs/derived.md)\n"
    "      --json            as JSON (docs/json.md: profkit.arcs/1 for the call\n"
    "                        graph's lists, profkit.frames/1 for the tree)\n"
    "      --csv             the tree as CSV, one row per shown frame (as tree --csv)\n"
    "  -h, --help            show this help\n";

typedef struct callers_args {
    cli_view view;
    pk_tree_options tree;
    int want_tree;
} callers_args;

static int parse_args(const char *cmd, int argc, char **argv, callers_args *a)
{
    int rc = cli_parse_tree_options(cmd, callers_help, argc, argv, &a->view, &a->tree,
                                    &a->want_tree, NULL);
    if (rc) return rc;
    return argc - optind == 2 ? 0 : cli_usage_error(cmd, "want PATH and FUNCTION");
}

/* ------------------------------------------------------------------ */
/* The tree around the function                                       */
/* ------------------------------------------------------------------ */

static void tree_header(const char *cmd, const pk_profile *p, const cli_view *v,
                        const cli_tree_values *t, const pk_frame *f, const char *function)
{
    char name[1024], value[64];
    cli_tree_describe(p, v, t, stdout);
    pk_frame_name(p, &f[0], name, sizeof name);
    pk_format_number(value, sizeof value, f[0].inclusive, &t->nf);
    if (t->nf.unit[0])
        snprintf(value + strlen(value), sizeof value - strlen(value), " %s", t->nf.unit);
    printf("%s of %s%s%s%s: inclusive %s (%.1f%% of the total)\n\n", cmd, cli_text(name),
           strcmp(name, function) ? " (matching '" : "",
           strcmp(name, function) ? cli_text(function) : "", strcmp(name, function) ? "')" : "",
           value, t->total ? 100.0 * f[0].inclusive / t->total : 0.0);
}

typedef struct around_arg {
    const char *function;
    int callers;
} around_arg;

/* The frames around the function, from one metric's values. */
static pk_status build_around(const pk_profile *p, const double *incl, const void *arg,
                              pk_frame **out, size_t *n)
{
    const around_arg *a = arg;
    pk_frame *all = NULL;
    size_t n_all = 0;
    pk_status st = pk_frames_build(p, incl, &all, &n_all);
    if (!st) st = pk_frames_around(p, all, n_all, a->function, a->callers, out, n);
    pk_frames_free(all);
    return st;
}

static int show_tree(const char *cmd, const pk_profile *p, callers_args *a, const char *function)
{
    int callers = strcmp(cmd, "callers") == 0;
    around_arg arg = {function, callers};
    cli_tree_build build = {build_around, &arg};
    cli_tree_values t;
    int rc = cli_tree_values_compute(cmd, p, &a->view, &build, &t);
    if (rc) return rc;
    pk_tree_options *o = &a->tree;
    o->threshold = a->view.threshold;
    int machine = a->view.json || a->view.csv;
    o->color = cli_use_color(stdout, a->view.no_color || machine);
    o->width = machine ? 0 : cli_terminal_width(stdout);
    o->keep_mangled = a->view.no_demangle;
    cli_tree_options(&t, o);
    if (!machine) tree_header(cmd, p, &a->view, &t, t.frames, function);
    pk_status st;
    if (a->view.json)
        st = pk_frames_write_json(stdout, p, t.frames, t.n, t.total, function, callers, o);
    else if (a->view.csv)
        st = pk_frames_write_csv(stdout, p, t.frames, t.n, t.total, o);
    else
        st = pk_frames_write_text(stdout, p, t.frames, t.n, t.total, o);
    if (st)
        rc = cli_library_error(cmd, st);
    else if (machine)
        rc = cli_output_done(cmd);
    cli_tree_values_free(&t);
    return rc;
}

/* ------------------------------------------------------------------ */
/* The call graph's lists                                             */
/* ------------------------------------------------------------------ */

typedef struct lists {
    const char *cmd;
    const pk_profile *p;
    const callers_args *a;
    cli_cg_view cv;
    pk_cg_function_cost *cost; /* per function, over the selected locations */
    int callers;
    unsigned room; /* columns for a caller's or callee's name */
} lists;

static pk_status add_costs(lists *l, pk_index location, pk_cg_function_cost *tmp)
{
    size_t nf = pk_function_count(l->p);
    pk_status st = pk_callgraph_function_costs(l->p, location, l->cv.event, tmp, NULL, NULL);
    for (size_t f = 0; f < nf && !st; f++) {
        l->cost[f].self += tmp[f].self, l->cost[f].inclusive += tmp[f].inclusive;
        l->cost[f].called += tmp[f].called;
    }
    return st;
}

/* Costs per function; cycles as over all locations. */
static pk_status function_costs(lists *l)
{
    size_t nf = pk_function_count(l->p);
    l->cost = calloc(nf + 1, sizeof *l->cost);
    pk_cg_function_cost *tmp = calloc(nf + 1, sizeof *tmp);
    if (!l->cost || !tmp) {
        free(tmp);
        return PK_ERR_NOMEM;
    }
    pk_status st = pk_callgraph_function_costs(l->p, PK_NONE, l->cv.event, l->cost, NULL, NULL);
    if (!st && l->cv.locations) {
        for (size_t f = 0; f < nf; f++) /* keep the cycles, add up the locations' costs */
            l->cost[f].self = l->cost[f].inclusive = l->cost[f].called = 0;
        for (size_t i = 0; i < l->cv.n_locations && !st; i++)
            st = add_costs(l, l->cv.locations[i], tmp);
    }
    free(tmp);
    return st;
}

static int by_function(const void *a, const void *b)
{
    pk_index x = ((const pk_cg_arc_row *)a)->function, y = ((const pk_cg_arc_row *)b)->function;
    return x < y ? -1 : x > y;
}

static int by_inclusive(const void *a, const void *b)
{
    const pk_cg_arc_row *x = a, *y = b;
    if (x->inclusive != y->inclusive) return x->inclusive > y->inclusive ? -1 : 1;
    return x->count > y->count ? -1 : x->count < y->count;
}

/* The arcs of f over the selected locations: one row per function. */
static pk_status arcs_of(const lists *l, pk_index f, pk_cg_arc_row **rows, size_t *n)
{
    if (!l->cv.locations)
        return pk_callgraph_arcs(l->p, f, l->callers, PK_NONE, l->cv.event, rows, n);
    pk_cg_arc_row *all = NULL;
    size_t n_all = 0, k = 0;
    pk_status st = PK_OK;
    for (size_t i = 0; i < l->cv.n_locations && !st; i++) {
        pk_cg_arc_row *r;
        size_t m;
        st = pk_callgraph_arcs(l->p, f, l->callers, l->cv.locations[i], l->cv.event, &r, &m);
        pk_cg_arc_row *grown = st ? NULL : realloc(all, (n_all + m + 1) * sizeof *grown);
        if (!st && !grown) st = PK_ERR_NOMEM;
        if (!st && m) memcpy(grown + n_all, r, m * sizeof *r); /* r may be NULL when m is 0 */
        if (!st) all = grown, n_all += m;
        if (!st) pk_callgraph_arcs_free(r);
    }
    if (st) return free(all), st;
    if (n_all) qsort(all, n_all, sizeof *all, by_function);
    for (size_t i = 0; i < n_all; i++)
        if (k && all[k - 1].function == all[i].function)
            all[k - 1].count += all[i].count, all[k - 1].inclusive += all[i].inclusive;
        else
            all[k++] = all[i];
    qsort(all, k, sizeof *all, by_inclusive);
    *rows = all, *n = k;
    return PK_OK;
}

static double pct(double v, double total)
{
    return total != 0 ? 100.0 * v / total : 0.0;
}

static const char *fname(const pk_profile *p, pk_index f)
{
    pk_function fn;
    return !pk_function_get(p, f, &fn) && fn.name ? fn.name : "<unknown>";
}

static int shown(const lists *l, double v)
{
    return !(l->a->view.threshold > 0 && fabs(pct(v, l->cv.total)) < l->a->view.threshold);
}

static void text_block(const lists *l, pk_index f, const pk_cg_arc_row *r, size_t n)
{
    char s[48], in[48], cyc[32] = "", mark[40];
    const pk_cg_function_cost *c = &l->cost[f];
    if (c->cycle && strncmp(fname(l->p, f), "<cycle ", 7) != 0)
        snprintf(cyc, sizeof cyc, " <cycle %u>", c->cycle);
    pk_format_number(s, sizeof s, c->self, &l->cv.nf);
    pk_format_number(in, sizeof in, c->inclusive, &l->cv.nf);
    printf("%s of %s%s: self %s (%.1f%%), inclusive %s (%.1f%%), called %.0f time%s\n", l->cmd,
           cli_name(fname(l->p, f), l->a->view.no_demangle, 0), cyc, s, pct(c->self, l->cv.total),
           in, pct(c->inclusive, l->cv.total), c->called, c->called == 1 ? "" : "s");
    char hin[64], n_calls[32];
    pk_format_header(hin, sizeof hin, "inclusive", &l->cv.nf);
    printf("%14s  %18s  %s\n", "calls", hin, l->callers ? "caller" : "callee");
    size_t hidden = 0;
    for (size_t i = 0; i < n; i++) {
        if (!shown(l, r[i].inclusive)) {
            hidden++;
            continue;
        }
        uint32_t oc = l->cost[r[i].function].cycle;
        mark[0] = '\0';
        if (r[i].function == f)
            snprintf(mark, sizeof mark, " (itself)");
        else if (oc && oc == c->cycle)
            snprintf(mark, sizeof mark, " (in <cycle %u>)", oc);
        pk_format_number(in, sizeof in, r[i].inclusive, &l->cv.nf);
        pk_format_number(n_calls, sizeof n_calls, r[i].count,
                         &(pk_number_format){1, "", 14, 0, 0, 1});
        printf("%14s  %10s %6.1f%%  %s%s\n", n_calls, in, pct(r[i].inclusive, l->cv.total),
               cli_name(fname(l->p, r[i].function), l->a->view.no_demangle, l->room), mark);
    }
    if (!n) printf("%14s  %18s  (none)\n", "", "");
    if (hidden)
        printf("(%zu more %s below %g%% of the total)\n", hidden,
               l->callers ? "callers" : "callees", l->a->view.threshold);
    putchar('\n');
}

static void json_block(pk_json *j, const lists *l, pk_index f, const pk_cg_arc_row *r, size_t n)
{
    const pk_cg_function_cost *c = &l->cost[f];
    pk_json_object_begin(j);
    pk_json_key(j, "name"), pk_json_string(j, fname(l->p, f));
    pk_json_key(j, "self"), pk_json_double(j, c->self);
    pk_json_key(j, "inclusive"), pk_json_double(j, c->inclusive);
    pk_json_key(j, "called"), pk_json_double(j, c->called);
    pk_json_key(j, "cycle"), pk_json_uint(j, c->cycle);
    pk_json_key(j, "arcs");
    pk_json_array_begin(j);
    size_t hidden = 0;
    for (size_t i = 0; i < n; i++) {
        if (!shown(l, r[i].inclusive)) {
            hidden++;
            continue;
        }
        pk_json_object_begin(j);
        pk_json_key(j, "name"), pk_json_string(j, fname(l->p, r[i].function));
        pk_json_key(j, "calls"), pk_json_double(j, r[i].count);
        pk_json_key(j, "inclusive"), pk_json_double(j, r[i].inclusive);
        pk_json_key(j, "cycle"), pk_json_uint(j, l->cost[r[i].function].cycle);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
    pk_json_key(j, "hidden_arcs"), pk_json_uint(j, hidden);
    pk_json_object_end(j);
}

static const pk_cg_function_cost *g_cost; /* qsort has no user argument */

static int by_cost(const void *a, const void *b)
{
    pk_index x = *(const pk_index *)a, y = *(const pk_index *)b;
    double u = g_cost[x].inclusive, v = g_cost[y].inclusive;
    if (u != v) return u > v ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int write_lists(lists *l, const pk_index *match, size_t n_match, const char *pattern)
{
    size_t top = l->a->view.top, n = top && top < n_match ? top : n_match;
    pk_json j;
    if (l->a->view.json) {
        pk_json_init(&j, stdout, 1);
        pk_json_object_begin(&j);
        pk_json_key(&j, "schema"), pk_json_string(&j, "profkit.arcs/1");
        pk_json_key(&j, "view"), pk_json_string(&j, l->cmd);
        pk_json_key(&j, "metric"), pk_json_string(&j, l->cv.met.name);
        pk_json_key(&j, "source"), pk_json_string(&j, "callgraph");
        pk_json_completeness(&j, l->p);
        pk_json_key(&j, "pattern"), pk_json_string(&j, pattern);
        pk_json_key(&j, "total"), pk_json_double(&j, l->cv.total);
        pk_json_key(&j, "functions");
        pk_json_array_begin(&j);
    } else {
        cli_cg_describe(l->p, &l->a->view, &l->cv, stdout);
        putchar('\n');
    }
    pk_status st = PK_OK;
    for (size_t i = 0; i < n && !st; i++) {
        pk_cg_arc_row *r = NULL;
        size_t m = 0;
        st = arcs_of(l, match[i], &r, &m);
        if (!st && l->a->view.json) json_block(&j, l, match[i], r, m);
        if (!st && !l->a->view.json) text_block(l, match[i], r, m);
        pk_callgraph_arcs_free(r);
    }
    if (l->a->view.json) {
        pk_json_array_end(&j);
        pk_json_key(&j, "hidden_functions"), pk_json_uint(&j, n_match - n);
        pk_json_object_end(&j);
        if (st) {
            pk_json_finish(&j);
            return cli_library_error(l->cmd, st);
        }
        return cli_json_done(l->cmd, &j);
    }
    if (n < n_match)
        printf("(%zu more functions match '%s'; -n 0 lists them all)\n", n_match - n,
               cli_text(pattern));
    return st ? cli_library_error(l->cmd, st) : cli_output_done(l->cmd);
}

static int show_lists(const char *cmd, const pk_profile *p, const callers_args *a,
                      const char *pattern)
{
    unsigned width = cli_terminal_width(stdout);
    lists l = {cmd, p, a, {0}, NULL, strcmp(cmd, "callers") == 0, width > 56 ? width - 36 : 20};
    pk_index *match = NULL;
    size_t n_match = 0;
    int rc = cli_cg_view_init(cmd, p, &a->view, &l.cv);
    pk_status st = rc ? PK_OK : pk_functions_matching(p, pattern, &match, &n_match);
    if (!rc && !st) st = function_costs(&l);
    if (!rc && st) rc = cli_library_error(cmd, st);
    if (!rc) {
        g_cost = l.cost;
        qsort(match, n_match, sizeof *match, by_cost);
        rc = write_lists(&l, match, n_match, pattern);
    }
    pk_functions_free(match);
    free(l.cost);
    cli_cg_view_free(&l.cv);
    return rc;
}

static int has_callgraph(const pk_profile *p)
{
    pk_cg_summary s;
    return pk_callgraph_summary(p, &s) == PK_OK;
}

static int run(const char *cmd, int argc, char **argv)
{
    callers_args a = {.view = {.threshold = 1.0, .top = 10}};
    int rc = parse_args(cmd, argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    /* the lists need the call graph only, by function; the tree around a
     * function needs every context of it: the whole reconstructed tree */
    uint32_t flags = PK_OPEN_NO_TRACES | PK_OPEN_NO_CCT | PK_OPEN_BY_FUNCTION;
    int lists_ok = !a.want_tree && a.view.stat == PK_ACROSS_SUM &&
                   !(a.view.focus && *a.view.focus) && !(a.view.hide && *a.view.hide);
    /* several metrics (-m 'A,B'): the tree view, which has their columns */
    if ((a.view.metric && strpbrk(a.view.metric, ",=")) || a.view.csv) lists_ok = 0;
    pk_profile *p;
    rc = cli_open(cmd, argv[optind], flags | (lists_ok ? PK_OPEN_NO_TREE : 0), &p);
    if (rc) return rc;
    if (lists_ok && has_callgraph(p))
        rc = show_lists(cmd, p, &a, argv[optind + 1]);
    else
        rc = show_tree(cmd, p, &a, argv[optind + 1]);
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
