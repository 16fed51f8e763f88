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
    "are no frames of a path, so a profile and its conversion compare equal.\n\n"
    "Options:\n" CLI_VIEW_HELP
    "  -m 'A,B,NAME=EXPR'    several metrics: the tables are of A (a metric); the\n"
    "                        change of B and of metrics derived by expression\n"
    "                        (miss=D1mr/Dr; docs/derived.md) as further columns\n"
    "  -n, --top N           show N rows of each table (default 15; 0 = all)\n"
    "  -t, --threshold PCT   hide rows whose change is below PCT% of A's total\n"
    "      --json            as JSON (docs/json.md, profkit.diff/1)\n"
    "  -h, --help            show this help\n";

typedef cli_diff_side side;

static int side_free(side *s, int rc)
{
    pk_frames_free(s->frames);
    cli_view_values_free(&s->vals);
    return cli_close("diff", s->p, rc);
}

static int open_side(const char *path, side *s)
{
    s->scale = 1;
    return cli_open("diff", path, PK_OPEN_NO_TRACES | PK_OPEN_NO_CCT | PK_OPEN_BY_FUNCTION, &s->p);
}

/* B's values in A's unit, when a writer scaled them by a power of 1000
 * and said so in the unit (Callgrind's integers: seconds as "us"). */
static void to_unit_of(const side *a, side *b)
{
    double f;
    if (pk_metric_unit_factor(&b->vals.met, &a->vals.met, &f) || f == 1) return;
    size_t n = pk_context_count(b->p);
    for (size_t i = 0; i < n; i++) {
        if (b->vals.incl) b->vals.incl[i] *= f;
        if (b->vals.excl) b->vals.excl[i] *= f;
    }
    b->vals.total *= f, b->scale = f;
}

/* Calling paths: the frames of the functions (docs/cli.md, diff). */
static int paths_of(side *s)
{
    pk_status st = pk_frames_build_paths(s->p, s->vals.incl, &s->frames, &s->n_frames);
    return st ? cli_library_error("diff", st) : CLI_OK;
}

static const char *status_of(const pk_diff_row *r)
{
    return r->same ? "same" : r->a == PK_NONE ? "added" : r->b == PK_NONE ? "removed" : "changed";
}

/* "values": [{a_exclusive, b_exclusive, a_inclusive, b_inclusive}] per metric. */
static void json_values(pk_json *j, const cli_diff_cols *cols, const pk_diff_row *r, int paths)
{
    if (!cols) return;
    pk_json_key(j, "values");
    pk_json_array_begin(j);
    for (size_t c = 0; c < cols->cols.n_col; c++) {
        double a, b;
        pk_json_object_begin(j);
        cli_diff_cols_values(cols, c, r, paths, 0, &a, &b);
        pk_json_key(j, "a_exclusive"), pk_json_double(j, a);
        pk_json_key(j, "b_exclusive"), pk_json_double(j, b);
        cli_diff_cols_values(cols, c, r, paths, 1, &a, &b);
        pk_json_key(j, "a_inclusive"), pk_json_double(j, a);
        pk_json_key(j, "b_inclusive"), pk_json_double(j, b);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static void json_metrics(pk_json *j, const side *a, const cli_diff_cols *cols)
{
    if (!cols) return;
    pk_json_key(j, "metrics");
    pk_json_array_begin(j);
    for (size_t c = 0; c < cols->cols.n_col; c++) {
        const cli_column *col = &cols->cols.col[c];
        double ta, tb;
        cli_diff_cols_totals(cols, c, &ta, &tb);
        pk_json_object_begin(j);
        pk_json_key(j, "name"), pk_json_string(j, col->label);
        pk_json_key(j, "unit");
        pk_json_string(j, col->plain ? cols->cols.base[col->base[0]].unit : NULL);
        pk_json_key(j, "a_total"), pk_json_double(j, ta);
        pk_json_key(j, "b_total"), pk_json_double(j, tb);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
    (void)a;
}

typedef struct path_arg {
    const side *s;
    pk_index at;
} path_arg;

static size_t whole_path(void *user, char *buf, size_t size)
{
    const path_arg *x = user;
    return cli_diff_path_whole(x->s->p, x->s->frames, x->at, buf, size);
}

static void json_rows(pk_json *j, const side *a, const side *b, const pk_diff_row *r, size_t n,
                      const cli_view *v, int paths, const cli_diff_cols *cols)
{
    pk_json_array_begin(j);
    for (size_t i = 0, k = 0; i < n && cli_diff_row_shown(v, &r[i], a->vals.total, k, !paths);
         i++, k++) {
        const side *s = r[i].a != PK_NONE ? a : b;
        path_arg x = {s, r[i].a != PK_NONE ? r[i].a : r[i].b};
        pk_json_object_begin(j);
        pk_json_key(j, "name"); /* the key every document uses (docs/json.md) */
        if (paths)
            pk_json_string_fn(j, whole_path, &x); /* whole, however deep */
        else
            pk_json_frame_name(j, s->p, &s->frames[x.at]);
        pk_json_key(j, paths ? "path" : "function"); /* the same, as diff/1 began */
        if (paths)
            pk_json_string_fn(j, whole_path, &x);
        else
            pk_json_frame_name(j, s->p, &s->frames[x.at]);
        pk_json_key(j, "status"), pk_json_string(j, status_of(&r[i]));
        if (!paths) pk_json_key(j, "in_cycle"), pk_json_bool(j, r[i].in_cycle);
        pk_json_key(j, "a_inclusive"), pk_json_double(j, r[i].a_incl);
        pk_json_key(j, "b_inclusive"), pk_json_double(j, r[i].b_incl);
        pk_json_key(j, "a_self"), pk_json_double(j, r[i].a_self);
        pk_json_key(j, "b_self"), pk_json_double(j, r[i].b_self);
        if (!paths) { /* the same, as diff/1 began */
            pk_json_key(j, "a_exclusive"), pk_json_double(j, r[i].a_self);
            pk_json_key(j, "b_exclusive"), pk_json_double(j, r[i].b_self);
        }
        json_values(j, cols, &r[i], paths);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static int write_json(const side *a, const side *b, const pk_diff_row *fr, size_t nf,
                      const pk_diff_row *pr, size_t np, const cli_view *v,
                      const cli_diff_cols *cols, FILE *out)
{
    pk_json j;
    pk_json_init(&j, out, 1);
    pk_json_object_begin(&j);
    pk_json_key(&j, "schema"), pk_json_string(&j, "profkit.diff/1");
    pk_json_key(&j, "metric"), pk_json_string(&j, a->vals.met.name);
    pk_json_key(&j, "a_total"), pk_json_double(&j, a->vals.total);
    pk_json_key(&j, "b_total"), pk_json_double(&j, b->vals.total);
    pk_json_key(&j, "b_metric"), pk_json_string(&j, b->vals.met.name);
    pk_json_key(&j, "b_scale"), pk_json_double(&j, b->scale);
    json_metrics(&j, a, cols);
    pk_json_key(&j, "functions");
    json_rows(&j, a, b, fr, nf, v, 0, cols);
    pk_json_key(&j, "paths");
    json_rows(&j, a, b, pr, np, v, 1, cols);
    pk_json_object_end(&j);
    return cli_json_done("diff", &j);
}

/* A call graph's exact per-function values of the view (what `flat`
 * shows, in A's unit), instead of its reconstructed tree's; "<cycle N>"
 * pseudo-functions left out. 0 when the side has no call graph or the
 * view needs the tree (--focus, --hide, --stat). */
static int exact_of(const side *s, const cli_view *v, pk_diff_exact *x)
{
    pk_cg_summary cgs;
    cli_cg_view cv;
    if (pk_callgraph_summary(s->p, &cgs) != PK_OK || (v->focus && *v->focus) ||
        (v->hide && *v->hide) || v->stat != PK_ACROSS_SUM ||
        cli_cg_view_init("diff", s->p, v, &cv) != CLI_OK)
        return 0;
    size_t nf = pk_function_count(s->p);
    pk_cg_function_cost *c = calloc(nf + 1, sizeof *c), *t = calloc(nf + 1, sizeof *t);
    double *self = calloc(2 * nf + 1, sizeof *self);
    unsigned char *hidden = calloc(2 * nf + 1, 1);
    int ok = c && t && self && hidden;
    for (size_t i = 0; ok && i < (cv.locations ? cv.n_locations : 1); i++) {
        ok = pk_callgraph_function_costs(s->p, cv.locations ? cv.locations[i] : PK_NONE, cv.event,
                                         t, NULL, NULL) == PK_OK;
        for (size_t f = 0; ok && f < nf; f++)
            c[f].self += t[f].self, c[f].inclusive += t[f].inclusive, c[f].cycle |= t[f].cycle;
    }
    for (size_t f = 0; ok && f < nf; f++) {
        pk_function fn;
        self[f] = c[f].self * s->scale, self[nf + f] = c[f].inclusive * s->scale;
        hidden[f] = !pk_function_get(s->p, (pk_index)f, &fn) && fn.name &&
                    strncmp(fn.name, "<cycle ", 7) == 0;
        hidden[nf + f] = c[f].cycle != 0 || t[f].cycle != 0;
    }
    free(c), free(t), cli_cg_view_free(&cv);
    if (!ok) return free(self), free(hidden), 0;
    *x = (pk_diff_exact){self, self + nf, hidden, hidden + nf};
    return 1;
}

static void exact_free(pk_diff_exact *x)
{
    free((void *)x->self), free((void *)x->hidden);
}

/* The function and path rows of A against B, settled. */
static pk_status diff_rows(side *a, side *b, const cli_view *v, pk_diff_row **fr, size_t *nf,
                           pk_diff_row **pr, size_t *np)
{
    pk_diff_exact ea = {0}, eb = {0};
    cli_view va = *v, vb = *v; /* each side's metric as its values have it */
    va.metric = a->vals.met.name, vb.metric = b->vals.met.name;
    /* like with like: exact costs only when both sides have a call graph
     * (a tree made from one is compared with the other's tree); a lone
     * call graph still flags its cycles' members (their tree values are
     * an estimate) and leaves out its "<cycle N>" pseudo-functions */
    int xa = exact_of(a, &va, &ea), xb = exact_of(b, &vb, &eb);
    pk_diff_exact use_a = ea, use_b = eb;
    if (!(xa && xb)) use_a.self = use_a.inclusive = use_b.self = use_b.inclusive = NULL;
    pk_status st = pk_diff_functions_exact(a->p, a->frames, a->n_frames, xa ? &use_a : NULL, b->p,
                                           b->frames, b->n_frames, xb ? &use_b : NULL, fr, nf);
    exact_free(&ea), exact_free(&eb);
    if (!st)
        st = pk_diff_frames(a->p, a->frames, a->n_frames, b->p, b->frames, b->n_frames, pr, np);
    if (!st) pk_diff_settle(*fr, *nf, a->vals.total), pk_diff_settle(*pr, *np, a->vals.total);
    return st;
}

/* One metric's values, frames and rows on both (open) sides. */
static int side_metric(side *a, side *b, const cli_view *v, const char *metric)
{
    cli_view va = *v, vb = *v;
    va.metric = metric;
    int rc = cli_view_compute("diff", a->p, &va, &a->vals);
    if (!rc) vb.metric = a->vals.met.name; /* the same metric by name */
    if (!rc) rc = cli_view_compute("diff", b->p, &vb, &b->vals);
    if (!rc) to_unit_of(a, b);
    if (!rc) rc = paths_of(a);
    if (!rc) rc = paths_of(b);
    return rc;
}

static void side_clear(side *s)
{
    pk_frames_free(s->frames);
    cli_view_values_free(&s->vals);
    s->frames = NULL, s->n_frames = 0, s->scale = 1;
}

/* Every further metric's rows into d (the tables' own metric is base `main`). */
static int further_metrics(side *a, side *b, const cli_view *v, cli_diff_cols *d,
                           const pk_diff_row *fr, size_t nf, const pk_diff_row *pr, size_t np)
{
    for (size_t i = 0; i < d->cols.n_base; i++) {
        if (strcmp(d->cols.base[i].name, a->vals.met.name) == 0) {
            if (cli_diff_cols_set(d, i, fr, nf, pr, np, a->vals.total, b->vals.total))
                return cli_library_error("diff", PK_ERR_NOMEM);
            continue;
        }
        side xa = {a->p, {0}, NULL, 0, 1}, xb = {b->p, {0}, NULL, 0, 1};
        pk_diff_row *xf = NULL, *xp = NULL;
        size_t xnf = 0, xnp = 0;
        int rc = side_metric(&xa, &xb, v, d->cols.base[i].name);
        pk_status st = rc ? PK_OK : diff_rows(&xa, &xb, v, &xf, &xnf, &xp, &xnp);
        if (!rc && !st)
            st = cli_diff_cols_set(d, i, xf, xnf, xp, xnp, xa.vals.total, xb.vals.total);
        if (!rc && st) rc = cli_library_error("diff", st);
        pk_diff_free(xf), pk_diff_free(xp);
        side_clear(&xa), side_clear(&xb);
        if (rc) return rc;
    }
    return CLI_OK;
}

static int compare(side *a, side *b, const cli_view *v, const char *pa, const char *pb,
                   cli_diff_cols *cols, FILE *json_out)
{
    pk_diff_row *fr = NULL, *pr = NULL;
    size_t nf = 0, np = 0;
    pk_number_format nf_store[CLI_MAX_COLUMNS];
    const pk_number_format *nf_of[CLI_MAX_COLUMNS] = {0}; /* plain further columns' */
    pk_status st = diff_rows(a, b, v, &fr, &nf, &pr, &np);
    int rc = st ? cli_library_error("diff", st) : CLI_OK;
    if (!rc && cols) rc = further_metrics(a, b, v, cols, fr, nf, pr, np);
    for (size_t c = 1; !rc && cols && c < cols->cols.n_col; c++) { /* the units as A reads them */
        cli_view one = *v;
        cli_view_values vals;
        one.metric = cols->cols.base[cols->cols.col[c].base[0]].name;
        if (cols->cols.col[c].plain && !cli_view_compute("diff", a->p, &one, &vals))
            nf_store[c] = vals.nf, nf_of[c] = &nf_store[c], cli_view_values_free(&vals);
    }
    if (!rc && v->json)
        rc = write_json(a, b, fr, nf, pr, np, v, cols, json_out);
    else if (!rc)
        rc = cli_diff_write_text(a, b, &(cli_diff_tables){fr, pr, nf, np}, v, pa, pb, cols, nf_of);
    pk_diff_free(fr), pk_diff_free(pr);
    return rc;
}

int cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_VIEW_LONG_OPTIONS, {"help", no_argument, NULL, 'h'}, {0}};
    cli_view v = {.top = 15};
    int c, rc;
    while ((c = cli_getopt("diff", argc, argv, "m:t:n:h", opts)) != -1) {
        if (c == 'h') return fputs(diff_help, stdout), CLI_OK;
        if (c == CLI_OPT_CSV) return cli_usage_error("diff", "no CSV form; try --json");
        if ((rc = cli_view_option("diff", &v, c, optarg)) != 0) return rc;
    }
    if ((rc = cli_view_check("diff", &v)) != 0) return rc;
    if (argc - optind != 2) return cli_usage_error("diff", "want two profiles, A and B");
    side a = {0}, b = {0};
    cli_diff_cols *cols = NULL;
    rc = open_side(argv[optind], &a);
    if (!rc) rc = open_side(argv[optind + 1], &b);
    if (!rc && cli_metric_list(a.p, v.metric)) { /* several metrics: the first draws the tables */
        cols = calloc(1, sizeof *cols);
        rc = cols ? cli_diff_cols_parse(a.p, v.metric, cols) : CLI_BAD;
        if (rc) free(cols), cols = NULL;
    }
    if (!rc) rc = side_metric(&a, &b, &v, cols ? cli_diff_cols_main(cols) : v.metric);
    if (!rc) rc = compare(&a, &b, &v, argv[optind], argv[optind + 1], cols, stdout);
    if (cols) cli_diff_cols_free(cols), free(cols);
    rc = side_free(&a, rc);
    return side_free(&b, rc);
}

int cli_diff_json(const pk_profile *pa, const pk_profile *pb, const cli_view *v, FILE *out)
{
    side a = {.p = (pk_profile *)pa, .scale = 1}, b = {.p = (pk_profile *)pb, .scale = 1};
    cli_view vj = *v;
    vj.json = 1;
    int rc = side_metric(&a, &b, &vj, v->metric);
    if (!rc) rc = compare(&a, &b, &vj, NULL, NULL, NULL, out);
    side_clear(&a), side_clear(&b); /* the profiles are the caller's */
    return rc;
}
