/*
 * cli/diff_text.c — `profkit diff`'s report for people: the totals, then
 * a table per function and one per calling path. Every cell of a table
 * is formatted before any is printed, so one number format holds for
 * the whole table (a column never mixes "54,519,233" and "304.7M") and
 * each column is as wide as its widest value.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { C_A, C_B, C_D, C_PCT, C_LAST, C_X, N_CELLS = C_X + 2 * CLI_MAX_COLUMNS };

typedef struct table {
    const cli_diff_side *a, *b;
    const cli_diff_cols *cols;              /* several metrics, or NULL */
    pk_number_format nf;                    /* the table's metric's, for this table */
    pk_number_format nf_x[CLI_MAX_COLUMNS]; /* further columns' */
    int paths, color, keep_mangled;
    int w[N_CELLS];
    size_t n_cells;
} table;

typedef struct row_text {
    char c[N_CELLS][48];
} row_text;

int cli_diff_row_shown(const cli_view *v, const pk_diff_row *r, double total, size_t k, int self)
{
    double change = self ? r->b_self - r->a_self : r->b_incl - r->a_incl;
    if (v->top && k >= v->top) return 0;
    if (r->same) return 0; /* rows after the first same one are all the same */
    return !(v->threshold > 0 && total != 0 && fabs(100 * change / total) < v->threshold);
}

/* A changed row worth a line: not an ancestor whose own value stayed
 * while its callees' changed (those are folded). */
static int folded(const pk_diff_row *r)
{
    return r->self_same && r->a != PK_NONE && r->b != PK_NONE;
}

/* The rows a table shows, in order, into *out (malloc'd); *n_folded
 * gets the folded ones. */
static size_t rows_shown(const table *t, const pk_diff_row *r, size_t n, const cli_view *v,
                         size_t **out, size_t *n_folded)
{
    size_t k = 0;
    *n_folded = 0;
    *out = malloc((n ? n : 1) * sizeof **out);
    for (size_t i = 0;
         *out && i < n && cli_diff_row_shown(v, &r[i], t->a->vals.total, k, !t->paths); i++) {
        if (folded(&r[i]))
            ++*n_folded;
        else
            (*out)[k++] = i;
    }
    return *out ? k : 0;
}

static void values_of(const table *t, const pk_diff_row *r, double *a, double *b, double *last)
{
    *a = t->paths ? r->a_incl : r->a_self, *b = t->paths ? r->b_incl : r->b_self;
    *last = r->b_incl - r->a_incl;
}

/* "+55", "-1.200G"; "0" when there is no change. */
static void signed_text(char *buf, size_t size, double a, double b, const pk_number_format *nf)
{
    char d[32];
    if (isnan(b - a)) {
        snprintf(buf, size, "-");
        return;
    }
    pk_format_number(d, sizeof d, b - a, nf);
    snprintf(buf, size, "%s%s", b == a ? "" : b > a ? "+" : "", b == a ? "0" : d);
}

static void row_cells(const table *t, const pk_diff_row *r, row_text *x)
{
    double a, b, last;
    values_of(t, r, &a, &b, &last);
    pk_format_number(x->c[C_A], sizeof x->c[C_A], a, &t->nf);
    pk_format_number(x->c[C_B], sizeof x->c[C_B], b, &t->nf);
    signed_text(x->c[C_D], sizeof x->c[C_D], a, b, &t->nf);
    cli_change_text(x->c[C_PCT], sizeof x->c[C_PCT], a, b);
    if (t->paths) /* "of A": the change in percent of A's total */
        cli_percent_text(x->c[C_LAST], sizeof x->c[C_LAST],
                         t->a->vals.total ? 100 * last / t->a->vals.total : 0);
    else
        signed_text(x->c[C_LAST], sizeof x->c[C_LAST], r->a_incl, r->b_incl, &t->nf);
    for (size_t c = 1; t->cols && c < t->cols->cols.n_col; c++) {
        cli_diff_cols_values(t->cols, c, r, t->paths, t->paths, &a, &b);
        signed_text(x->c[C_X + 2 * (c - 1)], sizeof x->c[0], a, b, &t->nf_x[c]);
        cli_change_text(x->c[C_X + 2 * (c - 1) + 1], sizeof x->c[0], a, b);
    }
}

/* One format for all of a table's values of a metric: compact ("213.1M")
 * when the largest would not fit ten columns grouped, as a tree's column
 * is when its total would not (pk_number_format_for). */
static void settle_format(pk_number_format *nf, double largest)
{
    nf->compact |= fabs(largest * nf->scale) >= 1e8;
    nf->width = 64; /* never per value: the table decided */
}

static void decide_formats(table *t, const pk_diff_row *r, const size_t *shown, size_t k)
{
    double top = 0, top_x[CLI_MAX_COLUMNS] = {0};
    for (size_t j = 0; j < k; j++) {
        double a, b, last;
        values_of(t, &r[shown[j]], &a, &b, &last);
        top = fmax(top, fmax(fmax(fabs(a), fabs(b)), fmax(fabs(b - a), t->paths ? 0 : fabs(last))));
        for (size_t c = 1; t->cols && c < t->cols->cols.n_col; c++) {
            cli_diff_cols_values(t->cols, c, &r[shown[j]], t->paths, t->paths, &a, &b);
            if (!isnan(b - a)) top_x[c] = fmax(top_x[c], fabs(b - a));
        }
    }
    settle_format(&t->nf, top);
    for (size_t c = 1; t->cols && c < t->cols->cols.n_col; c++)
        settle_format(&t->nf_x[c], top_x[c]);
}

static void header_cells(const table *t, row_text *h)
{
    snprintf(h->c[C_A], sizeof h->c[0], "A %s", t->paths ? "incl" : "self");
    snprintf(h->c[C_B], sizeof h->c[0], "B %s", t->paths ? "incl" : "self");
    snprintf(h->c[C_D], sizeof h->c[0], "change");
    snprintf(h->c[C_PCT], sizeof h->c[0], "%%");
    snprintf(h->c[C_LAST], sizeof h->c[0], "%s", t->paths ? "of A" : "incl change");
    for (size_t c = 1; t->cols && c < t->cols->cols.n_col; c++) {
        snprintf(h->c[C_X + 2 * (c - 1)], sizeof h->c[0], "%.30s chg",
                 cli_text(t->cols->cols.col[c].label));
        snprintf(h->c[C_X + 2 * (c - 1) + 1], sizeof h->c[0], "%%");
    }
}

static void widen(table *t, const row_text *x)
{
    for (size_t c = 0; c < t->n_cells; c++) {
        int n = (int)strlen(x->c[c]);
        if (n > t->w[c]) t->w[c] = n;
    }
}

/* One line's cells; the change and its percentage red (grew) or green
 * (shrank) on a terminal. Returns the columns used. */
static unsigned put_cells(const table *t, const row_text *x, int sign)
{
    unsigned used = 0;
    for (size_t c = 0; c < t->n_cells; c++) {
        const char *on = !t->color || !sign || (c != C_D && c != C_PCT) ? ""
                         : sign > 0                                     ? "\033[31m"
                                                                        : "\033[32m";
        printf("%s%s%*s%s", c ? " " : "", on, t->w[c], x->c[c], *on ? "\033[0m" : "");
        used += (unsigned)t->w[c] + (c ? 1 : 0);
    }
    return used;
}

static const char *label_of(const table *t, const pk_diff_row *r, unsigned room)
{
    const cli_diff_side *s = r->a != PK_NONE ? t->a : t->b;
    pk_index at = r->a != PK_NONE ? r->a : r->b;
    if (t->paths) return cli_diff_path_text(s->p, s->frames, at, t->keep_mangled, room);
    char name[2048];
    pk_frame_name(s->p, &s->frames[at], name, sizeof name);
    return cli_name(name, t->keep_mangled, room);
}

/* Every shown row's cells measured, then printed: the name or path gets
 * what the terminal has left after them. */
static void put_rows(table *t, const pk_diff_row *r, const size_t *shown, size_t k)
{
    row_text x, h;
    static const int least[C_X] = {10, 10, 10, 7, 12}; /* as wide as ever, wider when needed */
    for (size_t c = 0; c < t->n_cells; c++)
        t->w[c] = c < C_X ? least[c] : (c - C_X) % 2 ? 7 : 10;
    if (t->paths) t->w[C_LAST] = 7; /* "of A" */
    header_cells(t, &h), widen(t, &h);
    for (size_t j = 0; j < k; j++)
        row_cells(t, &r[shown[j]], &x), widen(t, &x);
    unsigned used = put_cells(t, &h, 0) + 2, width = cli_terminal_width(stdout);
    printf("  %s\n", t->paths ? "path" : "function");
    for (size_t j = 0; j < k; j++) {
        const pk_diff_row *row = &r[shown[j]];
        double a, b, last;
        values_of(t, row, &a, &b, &last);
        row_cells(t, row, &x);
        const char *mark = row->a == PK_NONE ? " [added]" : row->b == PK_NONE ? " [removed]" : "";
        unsigned fixed = used + (unsigned)strlen(mark);
        put_cells(t, &x, b > a ? 1 : b < a ? -1 : 0);
        printf("  %s%s\n", label_of(t, row, width > fixed + 20 ? width - fixed : 20), mark);
    }
}

static pk_status put_table(table *t, const pk_diff_row *r, size_t n, const cli_view *v)
{
    size_t *shown, n_folded, k = rows_shown(t, r, n, v, &shown, &n_folded);
    if (!shown) return PK_ERR_NOMEM;
    t->n_cells = C_X + (t->cols ? 2 * (t->cols->cols.n_col - 1) : 0);
    decide_formats(t, r, shown, k);
    put_rows(t, r, shown, k);
    free(shown);
    if (n_folded && t->paths)
        printf("(%zu path%s whose own value did not change, only below %s, not shown)\n", n_folded,
               n_folded == 1 ? "" : "s", n_folded == 1 ? "it" : "them");
    else if (n_folded)
        printf("(%zu function%s whose own value did not change, only %s callees', not shown)\n",
               n_folded, n_folded == 1 ? "" : "s", n_folded == 1 ? "its" : "their");
    return PK_OK;
}

static int any_change(const pk_diff_row *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!r[i].same) return 1;
    return 0;
}

/* "metric Ir", both totals and their change, B's unit, reconstruction. */
static void put_totals(const cli_diff_side *a, const cli_diff_side *b, const cli_view *v,
                       const char *pa, const char *pb, int several)
{
    const pk_number_format *nf = &a->vals.nf;
    char pct[48];
    if (several)
        printf("metrics %s; the tables are of %s, further columns the change of each\n"
               "metric's self value (per function) or inclusive value (per path)\n",
               cli_text(v->metric), cli_text(a->vals.met.name));
    printf("metric %s\n  A %s: total ", cli_text(a->vals.met.name), cli_text(pa));
    cli_put_number(stdout, a->vals.total, nf);
    printf("\n  B %s: total ", cli_text(pb));
    cli_put_number(stdout, b->vals.total, nf);
    printf(" (%s", b->vals.total > a->vals.total ? "+" : "");
    cli_put_number(stdout, b->vals.total - a->vals.total, nf);
    cli_change_text(pct, sizeof pct, a->vals.total, b->vals.total);
    printf(", %s)\n", pct);
    if (b->scale != 1)
        printf("  B's metric %s is in %s: its values x%g, in A's unit\n",
               cli_text(b->vals.met.name), cli_text(b->vals.met.unit ? b->vals.met.unit : "?"),
               b->scale);
    cli_say_reconstructed(a->p, stdout);
    cli_say_reconstructed(b->p, stdout);
    if (nf->unit[0]) printf("(values in %s)\n", cli_text(nf->unit));
    putchar('\n');
}

int cli_diff_write_text(const cli_diff_side *a, const cli_diff_side *b, const cli_diff_tables *d,
                        const cli_view *v, const char *pa, const char *pb,
                        const cli_diff_cols *cols, const pk_number_format *const *nf_of)
{
    double change = b->vals.total - a->vals.total;
    put_totals(a, b, v, pa, pb, cols != NULL);
    if (!any_change(d->fr, d->nf) && !any_change(d->pr, d->np)) {
        printf("no differences: every function and calling path has the same value in A and B"
               "%s\n",
               fabs(change) > 1e-9 * fabs(a->vals.total) ? " (though the totals differ)" : "");
        return CLI_OK;
    }
    table t = {
        a,   b, cols, a->vals.nf, {{0}}, 0, cli_use_color(stdout, v->no_color), v->no_demangle,
        {0}, 0};
    for (size_t c = 1; cols && c < cols->cols.n_col; c++)
        t.nf_x[c] = nf_of[c] ? *nf_of[c] : (pk_number_format){1, "", 0, 0, 0, 0};
    printf("per function, largest change of the self value first (self: in the function\n"
           "itself; inclusive: with its callees)\n");
    table paths = t;
    pk_status st = put_table(&t, d->fr, d->nf, v);
    printf("\nper calling path, largest change of the inclusive value first\n");
    paths.paths = 1;
    if (!st) st = put_table(&paths, d->pr, d->np, v);
    return st ? cli_library_error("diff", st) : CLI_OK;
}
