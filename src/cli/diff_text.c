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

#define MAX_X 16 /* further columns shown (the JSON has every one) */
enum { C_A, C_B, C_D, C_PCT, C_LAST, C_X, N_CELLS = C_X + 2 * MAX_X };

typedef struct table {
    const pk_diff_answer *d;
    pk_number_format nf;              /* the table's metric's, for this table */
    pk_number_format nf_x[MAX_X + 1]; /* further columns' */
    size_t n_x;                       /* further columns shown */
    int paths, color, keep_mangled;
    unsigned width; /* columns names may fill; 0: whole */
    size_t cycles;  /* shown rows marked [cycle] */
    int w[N_CELLS];
    size_t n_cells;
} table;

typedef struct row_text {
    char c[N_CELLS][48];
} row_text;

static void values_of(const table *t, const pk_diff_entry *r, double *a, double *b)
{
    *a = t->paths ? r->a_inclusive[0] : r->a_self[0],
    *b = t->paths ? r->b_inclusive[0] : r->b_self[0];
}

/* Further column c's values: per path inclusive, per function self. */
static void further_of(const table *t, const pk_diff_entry *r, size_t c, double *a, double *b)
{
    *a = t->paths ? r->a_inclusive[c] : r->a_self[c],
    *b = t->paths ? r->b_inclusive[c] : r->b_self[c];
}

/* "+55", "-1.200G"; "0" when there is no change. */
static void signed_text(char *buf, size_t size, double change, const pk_number_format *nf)
{
    char d[32];
    if (isnan(change)) {
        snprintf(buf, size, "-");
        return;
    }
    pk_format_number(d, sizeof d, change, nf);
    snprintf(buf, size, "%s%s", change > 0 ? "+" : "", change == 0 ? "0" : d);
}

static void row_cells(const table *t, const pk_diff_entry *r, row_text *x)
{
    double a, b;
    values_of(t, r, &a, &b);
    pk_format_number(x->c[C_A], sizeof x->c[C_A], a, &t->nf);
    pk_format_number(x->c[C_B], sizeof x->c[C_B], b, &t->nf);
    signed_text(x->c[C_D], sizeof x->c[C_D], r->change[0], &t->nf);
    cli_change_text(x->c[C_PCT], sizeof x->c[C_PCT], r->change_percent[0], b);
    if (t->paths) /* "of A": the change in percent of A's total ("-": min/max) */
        cli_percent_text(x->c[C_LAST], sizeof x->c[C_LAST], r->change_share);
    else
        signed_text(x->c[C_LAST], sizeof x->c[C_LAST], r->inclusive_change, &t->nf);
    for (size_t c = 1; c <= t->n_x; c++) {
        further_of(t, r, c, &a, &b);
        signed_text(x->c[C_X + 2 * (c - 1)], sizeof x->c[0], r->change[c], &t->nf_x[c]);
        cli_change_text(x->c[C_X + 2 * (c - 1) + 1], sizeof x->c[0], r->change_percent[c], b);
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

static void decide_formats(table *t, const pk_diff_entry *r, size_t k)
{
    double top = 0, top_x[MAX_X + 1] = {0};
    for (size_t j = 0; j < k; j++) {
        double a, b, inc = t->paths ? 0 : fabs(r[j].inclusive_change);
        if (r[j].folded) continue;
        values_of(t, &r[j], &a, &b);
        top = fmax(top, fmax(fmax(fabs(a), fabs(b)), fmax(fabs(r[j].change[0]), inc)));
        for (size_t c = 1; c <= t->n_x; c++)
            if (!isnan(r[j].change[c])) top_x[c] = fmax(top_x[c], fabs(r[j].change[c]));
    }
    settle_format(&t->nf, top);
    for (size_t c = 1; c <= t->n_x; c++)
        settle_format(&t->nf_x[c], top_x[c]);
}

static void header_cells(const table *t, row_text *h)
{
    snprintf(h->c[C_A], sizeof h->c[0], "A %s", t->paths ? "incl" : "self");
    snprintf(h->c[C_B], sizeof h->c[0], "B %s", t->paths ? "incl" : "self");
    snprintf(h->c[C_D], sizeof h->c[0], "change");
    snprintf(h->c[C_PCT], sizeof h->c[0], "%%");
    snprintf(h->c[C_LAST], sizeof h->c[0], "%s", t->paths ? "of A" : "incl change");
    for (size_t c = 1; c <= t->n_x; c++) {
        char plain[48], label[64];
        const pk_number_format *f = &t->nf_x[c];
        if (f->unit[0]) /* "GXCOPY:H2D chg (KiB)": the unit the values are in, once */
            pk_metric_label(t->d->head.columns[c].name, plain, sizeof plain);
        else
            snprintf(plain, sizeof plain, "%.30s", t->d->head.columns[c].name);
        snprintf(label, sizeof label, "%.30s chg", cli_text(plain));
        pk_format_header(h->c[C_X + 2 * (c - 1)], sizeof h->c[0], label, f);
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

static const char *label_of(const table *t, const pk_diff_entry *r, unsigned room)
{
    if (t->paths && r->caller)
        return cli_diff_arc_text(r->caller, r->callee, t->keep_mangled, room);
    const pk_profile *p = r->side ? t->d->b : t->d->head.profile;
    const pk_frame *frames = r->side ? t->d->b_frames : t->d->a_frames;
    if (t->paths) return cli_diff_path_text(p, frames, r->frame, t->keep_mangled, room);
    return cli_name(r->name, t->keep_mangled, room);
}

/* Every shown row's cells measured, then printed: the name or path gets
 * what the terminal has left after them. */
static void put_rows(table *t, const pk_diff_entry *r, size_t k)
{
    row_text x, h;
    static const int least[C_X] = {10, 10, 10, 7, 12}; /* as wide as ever, wider when needed */
    for (size_t c = 0; c < t->n_cells; c++)
        t->w[c] = c < C_X ? least[c] : (c - C_X) % 2 ? 7 : 10;
    if (t->paths) t->w[C_LAST] = 7; /* "of A" */
    header_cells(t, &h), widen(t, &h);
    for (size_t j = 0; j < k; j++)
        if (!r[j].folded) row_cells(t, &r[j], &x), widen(t, &x);
    unsigned used = put_cells(t, &h, 0) + 2, width = t->width;
    printf("  %s\n", !t->paths ? "function" : t->d->arcs ? "caller > callee" : "path");
    for (size_t j = 0; j < k; j++) {
        const pk_diff_entry *row = &r[j];
        if (row->folded) continue;
        row_cells(t, row, &x);
        const char *mark = !strcmp(row->status, "added")     ? " [added]"
                           : !strcmp(row->status, "removed") ? " [removed]"
                                                             : "";
        /* a cycle's costs differ by definition between a call graph and a tree */
        const char *cycle = t->d->arcs && t->d->callgraphs != 3 && row->in_cycle ? " [cycle]" : "";
        unsigned fixed = used + (unsigned)strlen(mark) + (unsigned)strlen(cycle);
        put_cells(t, &x, row->change[0] > 0 ? 1 : row->change[0] < 0 ? -1 : 0);
        unsigned room = width == 0 ? 0 : width > fixed + 20 ? width - fixed : 20;
        printf("  %s%s%s\n", label_of(t, row, room), mark, cycle);
        t->cycles += *cycle != 0;
    }
}

static void put_table(table *t, const pk_diff_entry *r, size_t n, size_t n_folded)
{
    t->n_cells = C_X + 2 * t->n_x;
    decide_formats(t, r, n);
    t->cycles = 0;
    put_rows(t, r, n);
    if (t->cycles)
        printf("([cycle]: %s in a cycle of calls, whose costs a call graph and a tree count "
               "differently; a tree made from a call graph holds it as <cycle N>)\n",
               t->paths ? "an end of the arc is" : "the function is");
    if (n_folded && t->paths)
        printf("(%zu path%s whose own value did not change, only below %s, not shown)\n", n_folded,
               n_folded == 1 ? "" : "s", n_folded == 1 ? "it" : "them");
    else if (n_folded)
        printf("(%zu function%s whose own value did not change, only %s callees', not shown)\n",
               n_folded, n_folded == 1 ? "" : "s", n_folded == 1 ? "its" : "their");
}

/* "metric Ir", both totals and their change, B's unit, notes. */
static void put_totals(const pk_diff_answer *d, const cli_view *v, const char *pa, const char *pb)
{
    const pk_answer_column *c = &d->head.columns[0];
    const pk_number_format *nf = &c->numbers;
    double ta = c->total, tb = d->b_totals[0];
    char pct[48];
    if (d->head.n_columns > 1)
        printf("metrics %s; the tables are of %s, further columns the change of each\n"
               "metric's self value (per function) or inclusive value (per path)\n",
               cli_text(v->metric), cli_text(c->name));
    printf("metric %s\n  A %s: total ", cli_text(c->name), cli_text(pa));
    cli_put_number(stdout, ta, nf);
    printf("\n  B %s: total ", cli_text(pb));
    cli_put_number(stdout, tb, nf);
    printf(" (%s", d->total_change[0] > 0 ? "+" : "");
    cli_put_number(stdout, d->total_change[0], nf);
    cli_change_text(pct, sizeof pct, d->total_change_percent[0], tb);
    printf(", %s)\n", pct);
    if (d->b_scale != 1)
        printf("  B's metric %s is in %s: its values x%g, in A's unit\n", cli_text(d->b_metric),
               cli_text(d->b_unit ? d->b_unit : "?"), d->b_scale);
    for (size_t i = 0; i < d->head.n_notes; i++)
        printf("(%s)\n", cli_text(d->head.notes[i].text));
    if (nf->unit[0]) printf("(values in %s)\n", cli_text(nf->unit));
    putchar('\n');
}

int cli_diff_write_text(const pk_diff_answer *d, const cli_view *v, const char *pa, const char *pb)
{
    double change = d->b_totals[0] - d->head.columns[0].total;
    put_totals(d, v, pa, pb);
    if (!d->any_change) {
        printf("no differences: every function and %s has the same value in A and B"
               "%s\n",
               d->arcs ? "call arc" : "calling path",
               fabs(change) > 1e-9 * fabs(d->head.columns[0].total) ? " (though the totals differ)"
                                                                    : "");
        return CLI_OK;
    }
    table t = {.d = d,
               .nf = d->head.columns[0].numbers,
               .color = cli_use_color(stdout, v->no_color),
               .keep_mangled = v->no_demangle,
               .width = cli_view_width(v)};
    t.n_x = d->head.n_columns - 1 < MAX_X ? d->head.n_columns - 1 : MAX_X;
    for (size_t c = 1; c <= t.n_x; c++) {
        const pk_answer_column *col = &d->head.columns[c];
        t.nf_x[c] = col->expression ? (pk_number_format){1, "", 0, 0, 0, 0} : col->numbers;
    }
    printf("per function, largest change of the self value first (self: in the function\n"
           "itself; inclusive: with its callees)\n");
    table paths = t;
    put_table(&t, d->functions, d->n_functions, d->folded_functions);
    if (d->arcs)
        printf("\nper call arc (the cost of the calls from caller to callee), largest change "
               "first\n");
    else
        printf("\nper calling path, largest change of the inclusive value first\n");
    paths.paths = 1;
    put_table(&paths, d->paths, d->n_paths, d->folded_paths);
    return CLI_OK;
}
