/*
 * cli/diff_columns.c — `diff -m 'A,B,name=EXPR'`: further metrics beside
 * the one the tables are of. Each metric of the list is compared on its
 * own (the same pipeline as the first); its rows match the first's by
 * the frames they index, which are the same in every metric's frame tree
 * of one profile (frames merge by name, whatever the values). Derived
 * columns are evaluated on each side's aggregated values, A and B apart.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int by_frames(const void *x, const void *y)
{
    const pk_diff_row *a = x, *b = y;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

int cli_diff_cols_parse(const pk_profile *pa, const char *spec, cli_diff_cols *d)
{
    memset(d, 0, sizeof *d);
    int rc = cli_columns_parse("diff", pa, spec, &d->cols);
    if (rc) return rc;
    if (!d->cols.col[0].plain) {
        cli_columns_free(&d->cols);
        return cli_usage_error("diff", "the first of -m must be a metric: the tables are sorted "
                                       "by it (derived ones may follow)");
    }
    return CLI_OK;
}

const char *cli_diff_cols_main(const cli_diff_cols *d)
{
    return d->cols.base[d->cols.col[0].base[0]].name;
}

pk_status cli_diff_cols_set(cli_diff_cols *d, size_t base, const pk_diff_row *fr, size_t nf,
                            const pk_diff_row *pr, size_t np, double a_total, double b_total)
{
    cli_diff_base *b = &d->base[base];
    b->fr = malloc((nf ? nf : 1) * sizeof *b->fr);
    b->pr = malloc((np ? np : 1) * sizeof *b->pr);
    if (!b->fr || !b->pr) return PK_ERR_NOMEM;
    if (nf) memcpy(b->fr, fr, nf * sizeof *fr);
    if (np) memcpy(b->pr, pr, np * sizeof *pr);
    qsort(b->fr, nf, sizeof *b->fr, by_frames);
    qsort(b->pr, np, sizeof *b->pr, by_frames);
    b->nf = nf, b->np = np, b->a_total = a_total, b->b_total = b_total, b->set = 1;
    return PK_OK;
}

void cli_diff_cols_values(const cli_diff_cols *d, size_t c, const pk_diff_row *r, int paths,
                          int inclusive, double *a, double *b)
{
    double va[CLI_MAX_BASES], vb[CLI_MAX_BASES];
    for (size_t i = 0; i < d->cols.n_base; i++) {
        const cli_diff_base *base = &d->base[i];
        const pk_diff_row *hit = bsearch(r, paths ? base->pr : base->fr,
                                         paths ? base->np : base->nf, sizeof *r, by_frames);
        va[i] = !hit ? 0 : inclusive ? hit->a_incl : hit->a_self;
        vb[i] = !hit ? 0 : inclusive ? hit->b_incl : hit->b_self;
    }
    *a = cli_columns_eval(&d->cols, c, va);
    *b = cli_columns_eval(&d->cols, c, vb);
}

void cli_diff_cols_totals(const cli_diff_cols *d, size_t c, double *a, double *b)
{
    double va[CLI_MAX_BASES], vb[CLI_MAX_BASES];
    for (size_t i = 0; i < d->cols.n_base; i++)
        va[i] = d->base[i].a_total, vb[i] = d->base[i].b_total;
    *a = cli_columns_eval(&d->cols, c, va);
    *b = cli_columns_eval(&d->cols, c, vb);
}

void cli_diff_cols_free(cli_diff_cols *d)
{
    for (size_t i = 0; i < CLI_MAX_BASES; i++)
        free(d->base[i].fr), free(d->base[i].pr);
    cli_columns_free(&d->cols);
    memset(d, 0, sizeof *d);
}
