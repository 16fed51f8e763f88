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

typedef struct side {
    pk_profile *p;
    cli_view_values vals;
    pk_frame *frames;
    size_t n_frames;
    double scale; /* B's values x scale are in A's unit */
} side;

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

/* "main > solve > dot", keeping the innermost frames when it is long;
 * C++ names demangled unless keep_mangled. */
static void path_of(const side *s, pk_index i, char *buf, size_t size, int keep_mangled)
{
    char raw[256], name[256];
    size_t need = 0, kept = 0, used = 0;
    pk_index chain[64];
    for (pk_index f = i; f != PK_NONE && f != 0 && kept < 64; f = s->frames[f].parent) {
        pk_frame_name(s->p, &s->frames[f], raw, sizeof raw);
        need += (keep_mangled ? strlen(raw) : pk_name_demangle(raw, name, sizeof name)) + 3;
        if (need + 8 > size) break;
        chain[kept++] = f;
    }
    int cut = kept > 0 && s->frames[chain[kept - 1]].parent != 0;
    buf[0] = 0;
    if (cut) used += (size_t)snprintf(buf, size, "... > ");
    while (kept-- > 0 && used < size) {
        pk_frame_name(s->p, &s->frames[chain[kept]], raw, sizeof raw);
        if (!keep_mangled) pk_name_demangle(raw, name, sizeof name);
        used += (size_t)snprintf(buf + used, size - used, "%s%s", keep_mangled ? raw : name,
                                 kept ? " > " : "");
    }
    if (!buf[0]) snprintf(buf, size, "<program root>");
}

/* A changed row worth a line: not the same beyond rounding, and (text)
 * not an ancestor whose own value stayed while its callees' changed. */
static int changed(const pk_diff_row *r, int fold)
{
    if (r->same) return 0; /* no change beyond rounding (pk_diff_settle) */
    return !(fold && r->self_same && r->a != PK_NONE && r->b != PK_NONE);
}

static int row_shown(const cli_view *v, const pk_diff_row *r, double total, size_t k, int self)
{
    double change = self ? r->b_self - r->a_self : r->b_incl - r->a_incl;
    if (v->top && k >= v->top) return 0;
    if (r->same) return 0; /* rows after the first same one are all the same */
    return !(v->threshold > 0 && total != 0 && fabs(100 * change / total) < v->threshold);
}

typedef struct text_out {
    const cli_diff_cols *cols; /* several metrics: the further columns, or NULL */
    const pk_number_format *nf;
    const pk_number_format *nf_of[CLI_MAX_COLUMNS]; /* plain further columns' */
    pk_number_format nf_store[CLI_MAX_COLUMNS];
    int color, keep_mangled;
    unsigned room, path_room; /* columns for a function name, for a path */
} text_out;

/* "    12,345     12,400        +55   +0.4%": A, B, change and change in
 * percent of A ("new" where A is 0), the change red (grew) or green
 * (shrank) on a terminal. */
static void cell(const text_out *t, double a, double b)
{
    char x[48], y[48], d[48], signed_d[56], pct[16];
    pk_format_number(x, sizeof x, a, t->nf), pk_format_number(y, sizeof y, b, t->nf);
    pk_format_number(d, sizeof d, b - a, t->nf);
    snprintf(signed_d, sizeof signed_d, "%s%s", b - a > 0 ? "+" : "", d);
    if (a != 0)
        snprintf(pct, sizeof pct, "%+.1f%%", fmax(-1e6, fmin(1e6, 100 * (b - a) / fabs(a))));
    else
        snprintf(pct, sizeof pct, "%s", b != 0 ? "new" : "0");
    const char *on = !t->color || b == a ? "" : b > a ? "\033[31m" : "\033[32m";
    printf("%10s %10s %s%10s %7s%s", x, y, on, signed_d, pct, *on ? "\033[0m" : "");
}

/* Further metrics' changes: "     +55  +0.4%" per column (self values
 * per function, inclusive per path). */
static int extra_width(const text_out *t, size_t c, char *head, size_t size)
{
    snprintf(head, size, "%s chg", t->cols->cols.col[c].label);
    return strlen(head) > 10 ? (int)strlen(head) : 10;
}

static void extra_header(const text_out *t)
{
    char head[96];
    for (size_t c = 1; t->cols && c < t->cols->cols.n_col; c++) {
        int w = extra_width(t, c, head, sizeof head);
        printf(" %*s %7s", w, cli_text(head), "%");
    }
}

static void extra_cells(const text_out *t, const pk_diff_row *r, int paths)
{
    char d[48], signed_d[56], pct[16], head[96];
    for (size_t c = 1; t->cols && c < t->cols->cols.n_col; c++) {
        int w = extra_width(t, c, head, sizeof head);
        double a, b;
        cli_diff_cols_values(t->cols, c, r, paths, paths, &a, &b);
        const pk_number_format *nf = t->cols->cols.col[c].plain ? t->nf_of[c] : NULL;
        pk_format_number(d, sizeof d, b - a, nf);
        snprintf(signed_d, sizeof signed_d, "%s%s", b - a > 0 ? "+" : "", d);
        if (a != 0 && !isnan(a) && !isnan(b))
            snprintf(pct, sizeof pct, "%+.1f%%", fmax(-1e6, fmin(1e6, 100 * (b - a) / fabs(a))));
        else
            snprintf(pct, sizeof pct, "%s", b != 0 && !isnan(b) ? "new" : "-");
        printf(" %*s %7s", w, isnan(b - a) ? "-" : b == a ? "0" : signed_d, pct);
    }
}

static void text_functions(const text_out *t, const side *a, const side *b, const pk_diff_row *r,
                           size_t n, const cli_view *v)
{
    char name[1024];
    size_t folded = 0;
    printf("per function, largest change of the self value first (self: in the function\n"
           "itself; inclusive: with its callees)\n");
    printf("%10s %10s %10s %7s %12s", "A self", "B self", "change", "%", "incl change");
    extra_header(t);
    printf("  %s\n", "function");
    for (size_t i = 0, k = 0; i < n && row_shown(v, &r[i], a->vals.total, k, 1); i++) {
        if (!changed(&r[i], 1)) {
            folded++;
            continue;
        }
        k++;
        if (r[i].a != PK_NONE)
            pk_frame_name(a->p, &a->frames[r[i].a], name, sizeof name);
        else
            pk_frame_name(b->p, &b->frames[r[i].b], name, sizeof name);
        cell(t, r[i].a_self, r[i].b_self);
        char d[48], signed_d[56];
        pk_format_number(d, sizeof d, r[i].b_incl - r[i].a_incl, t->nf);
        snprintf(signed_d, sizeof signed_d, "%s%s", r[i].b_incl > r[i].a_incl ? "+" : "", d);
        printf(" %12s", r[i].b_incl == r[i].a_incl ? "0" : signed_d);
        extra_cells(t, &r[i], 0);
        printf("  %s%s%s\n", cli_name(name, t->keep_mangled, t->room),
               r[i].a == PK_NONE ? " [added]" : "", r[i].b == PK_NONE ? " [removed]" : "");
    }
    if (folded)
        printf("(%zu function%s whose own value did not change, only %s callees', not shown)\n",
               folded, folded == 1 ? "" : "s", folded == 1 ? "its" : "their");
}

static void text_paths(const text_out *t, const side *a, const side *b, const pk_diff_row *r,
                       size_t n, const cli_view *v)
{
    char path[1024];
    size_t folded = 0;
    printf("\nper calling path, largest change of the inclusive value first\n");
    printf("%10s %10s %10s %7s %7s", "A incl", "B incl", "change", "%", "of A");
    extra_header(t);
    printf("  %s\n", "path");
    for (size_t i = 0, k = 0; i < n && row_shown(v, &r[i], a->vals.total, k, 0); i++) {
        if (!changed(&r[i], 1)) {
            folded++;
            continue;
        }
        k++;
        /* the innermost frames that fit, after "... > " */
        size_t size = t->path_room + 1 < sizeof path ? t->path_room + 1 : sizeof path;
        if (r[i].a != PK_NONE)
            path_of(a, r[i].a, path, size, t->keep_mangled);
        else
            path_of(b, r[i].b, path, size, t->keep_mangled);
        cell(t, r[i].a_incl, r[i].b_incl);
        double pct = a->vals.total ? 100 * (r[i].b_incl - r[i].a_incl) / a->vals.total : 0;
        printf(" %+6.1f%%", pct);
        extra_cells(t, &r[i], 1);
        printf("  %s%s%s\n", cli_text(path), r[i].a == PK_NONE ? " [added]" : "",
               r[i].b == PK_NONE ? " [removed]" : "");
    }
    if (folded)
        printf("(%zu path%s whose own value did not change, only below %s, not shown)\n", folded,
               folded == 1 ? "" : "s", folded == 1 ? "it" : "them");
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

static void json_rows(pk_json *j, const side *a, const side *b, const pk_diff_row *r, size_t n,
                      const cli_view *v, int paths, const cli_diff_cols *cols)
{
    char path[1024];
    pk_json_array_begin(j);
    for (size_t i = 0, k = 0; i < n && row_shown(v, &r[i], a->vals.total, k, !paths); i++, k++) {
        const side *s = r[i].a != PK_NONE ? a : b;
        pk_index at = r[i].a != PK_NONE ? r[i].a : r[i].b;
        pk_json_object_begin(j);
        if (paths)
            path_of(s, at, path, sizeof path, 1);
        else
            pk_frame_name(s->p, &s->frames[at], path, sizeof path);
        pk_json_key(j, "name"); /* the key every document uses (docs/json.md) */
        pk_json_string(j, path);
        pk_json_key(j, paths ? "path" : "function"); /* the same, as diff/1 began */
        pk_json_string(j, path);
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

static int any_change(const pk_diff_row *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!r[i].same) return 1;
    return 0;
}

static void write_text(const side *a, const side *b, const pk_diff_row *fr, size_t nf,
                       const pk_diff_row *pr, size_t np, const cli_view *v, const char *pa,
                       const char *pb, const text_out *t0)
{
    double d = b->vals.total - a->vals.total;
    unsigned width = cli_terminal_width(stdout);
    text_out t = *t0; /* the further columns; the rest set here */
    t.nf = &a->vals.nf, t.color = cli_use_color(stdout, v->no_color);
    t.keep_mangled = v->no_demangle;
    t.room = width > 76 ? width - 56 : 20, t.path_room = width > 90 ? width - 50 : 40;
    if (t.cols)
        printf("metrics %s; the tables are of %s, further columns the change of each\n"
               "metric's self value (per function) or inclusive value (per path)\n",
               cli_text(v->metric), cli_text(a->vals.met.name));
    printf("metric %s\n  A %s: total ", cli_text(a->vals.met.name), cli_text(pa));
    cli_put_number(stdout, a->vals.total, t.nf);
    printf("\n  B %s: total ", cli_text(pb));
    cli_put_number(stdout, b->vals.total, t.nf);
    printf(" (%s", d > 0 ? "+" : "");
    cli_put_number(stdout, d, t.nf);
    printf(", %+.1f%%)\n", a->vals.total ? 100 * d / a->vals.total : 0.0);
    if (b->scale != 1)
        printf("  B's metric %s is in %s: its values x%g, in A's unit\n",
               cli_text(b->vals.met.name), cli_text(b->vals.met.unit ? b->vals.met.unit : "?"),
               b->scale);
    cli_say_reconstructed(a->p, stdout);
    cli_say_reconstructed(b->p, stdout);
    if (t.nf->unit[0]) printf("(values in %s)\n", cli_text(t.nf->unit));
    putchar('\n');
    if (!any_change(fr, nf) && !any_change(pr, np)) {
        printf("no differences: every function and calling path has the same value in A and B"
               "%s\n",
               fabs(d) > 1e-9 * fabs(a->vals.total) ? " (though the totals differ)" : "");
        return;
    }
    text_functions(&t, a, b, fr, nf, v);
    text_paths(&t, a, b, pr, np, v);
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
    text_out t = {.cols = cols};
    pk_status st = diff_rows(a, b, v, &fr, &nf, &pr, &np);
    int rc = st ? cli_library_error("diff", st) : CLI_OK;
    if (!rc && cols) rc = further_metrics(a, b, v, cols, fr, nf, pr, np);
    for (size_t c = 1; !rc && cols && c < cols->cols.n_col; c++) { /* the units as A reads them */
        cli_view one = *v;
        cli_view_values vals;
        one.metric = cols->cols.base[cols->cols.col[c].base[0]].name;
        if (cols->cols.col[c].plain && !cli_view_compute("diff", a->p, &one, &vals))
            t.nf_store[c] = vals.nf, t.nf_of[c] = &t.nf_store[c], cli_view_values_free(&vals);
    }
    if (!rc && v->json)
        rc = write_json(a, b, fr, nf, pr, np, v, cols, json_out);
    else if (!rc)
        write_text(a, b, fr, nf, pr, np, v, pa, pb, &t);
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
