/*
 * analysis/cells.c — a min/max metric's program total as CubeLib and
 * pycubexr define it: combined over every cell of the calling-context
 * tree × the plain locations, an empty cell counting as 0.
 *
 * Cube stores a row for every call-tree node with a value for every
 * location, 0 where a location never reached the node; CubeLib and
 * pycubexr combine all of them, so a MIN metric's total is 0 once one cell
 * is empty. profkit's own total (pk_metric_program_total) combines the
 * values measured, which is what HPCToolkit's MIN statistic means and
 * what a reader wants to know; this gives the tools' figure beside it
 * (docs/model.md, "Min/max metrics"): the measured total, combined with 0
 * when fewer cells hold a value than there are cells.
 */
#include <stdlib.h>

#include "model/model.h"
#include "profkit/analysis.h"
#include "scopes.h"
#include "totals.h"

/* Non-zero values of column at the contexts `pick` marks, over the plain
 * locations. */
static pk_status count_values(const pk_profile *p, pk_index col, const unsigned char *pick,
                              uint64_t *n)
{
    if (pk_model_has_rows(p)) return pk_rows_count_values(p, col, pick, n);
    *n = 0;
    for (uint32_t l = 0; l < p->n_locs; l++) {
        pk_cursor c;
        pk_value v;
        if (p->locs[l].is_summary) continue;
        pk_status st = pk_location_values_begin(p, l, &c);
        if (st) return st;
        while (pk_cursor_next(&c, &v))
            *n += v.column == col && v.context < p->n_ctx && pick[v.context] && v.value != 0;
    }
    return PK_OK;
}

pk_status pk_metric_cell_total(const pk_profile *p, pk_index metric, double *out)
{
    pk_status st = pk_metric_program_total(p, metric, out);
    if (st) return st;
    pk_combine how = p->metrics[metric].combine;
    if (how != PK_COMBINE_MIN && how != PK_COMBINE_MAX) return PK_OK;
    pk_index col;
    int derived;
    st = pk_scope_source(p, metric, PK_SCOPE_INCLUSIVE, &col, &derived);
    if (st) return st;
    unsigned char *pick = malloc((size_t)p->n_ctx + 1);
    if (!pick) return pk_fail_nomem("counting cells");
    uint64_t n_ctx = 0, n_locs = 0, have = 0;
    /* the tree's contexts below the root: the root is the model's own for a
     * Cube file (its cnodes hang below it, and it holds values only where
     * the file's are inclusive), and unlisted contexts are in no tree */
    for (uint32_t c = 0; c < p->n_ctx; c++)
        n_ctx += pick[c] = c != 0 && !(p->ctx[c].flags & PK_CTXF_UNLISTED);
    for (uint32_t l = 0; l < p->n_locs; l++)
        n_locs += !p->locs[l].is_summary;
    if (p->columns[col].is_summary) n_locs = 0; /* summary-only: no plain cells to count */
    st = count_values(p, col, pick, &have);
    free(pick);
    if (!st && have < n_ctx * n_locs)
        *out = how == PK_COMBINE_MIN ? (*out < 0 ? *out : 0) : (*out > 0 ? *out : 0);
    return st;
}
