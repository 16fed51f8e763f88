/*
 * analysis/query_callgraph.c — what the answers taken from a call graph
 * (Callgrind: flat, callers, callees, diff, annotate) share: whether a
 * query may use it, the metric's event, the selected locations, and the
 * flat rows summed over them.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/qry.h"
#include "util/error.h"

int pkq_reconstructed(const pk_profile *p)
{
    pk_profile_info info;
    return pk_profile_get_info(p, &info) == PK_OK && info.reconstructed;
}

int pkq_uses_callgraph(const pk_profile *p, const pk_query *q)
{
    pk_cg_summary s;
    return q->use_callgraph && q->stat == PK_ACROSS_SUM && !pkq_filtered(q) &&
           pk_callgraph_summary(p, &s) == PK_OK;
}

static pk_status select_locations(const pk_profile *p, const char *sel, pkq_cg *out)
{
    if (!sel) return PK_OK;
    size_t n = pk_location_count(p), k = 0;
    unsigned char *mark = calloc(n + 1, 1);
    out->locations = calloc(n + 1, sizeof *out->locations);
    if (!mark || !out->locations) return free(mark), pk_fail_nomem("selecting locations");
    pk_status st = pk_location_select(p, sel, mark, n, NULL);
    for (size_t l = 0; l < n && !st; l++)
        if (mark[l]) out->locations[k++] = (pk_index)l;
    free(mark);
    out->n_locations = k;
    return st;
}

static pk_status selection_total(const pk_profile *p, pkq_cg *out)
{
    pk_flat_row *rows = NULL;
    size_t n = 0;
    pk_status st = pkq_cg_flat(p, out, PK_BY_FUNCTION, &rows, &n);
    for (size_t i = 0; !st && i < n; i++) /* "<cycle N>" rows have no self cost of their own */
        out->total += rows[i].exclusive;
    pk_flat_free(rows);
    return st;
}

pk_status pkq_cg_init(const pk_profile *p, pk_index metric, const pk_query *q, pkq_cg *out)
{
    memset(out, 0, sizeof *out);
    out->metric = metric;
    pk_status st = pk_metric_get(p, metric, &out->met);
    if (!st && pk_callgraph_metric_event(p, metric, &out->event) != PK_OK)
        st = pk_fail(PK_ERR_NOT_FOUND, "metric '%s' is no event of the call graph",
                     out->met.name ? out->met.name : "?");
    if (!st) st = select_locations(p, pkq_text(q, PKQ_LOCATION), out);
    /* over every location the program's total is the file's own
     * (pk_metric_program_total(): Callgrind's stated totals); else the
     * selection's self costs, from the function costs (a whole pass over
     * the call graph: only when needed) */
    double program;
    if (!st && !out->locations && pk_metric_program_total(p, metric, &program) == PK_OK)
        out->total = program;
    else if (!st)
        st = selection_total(p, out);
    if (!st) st = pk_number_format_for(&out->met, out->total, &out->nf);
    if (st) pkq_cg_free(out);
    return st;
}

void pkq_cg_free(pkq_cg *cg)
{
    free(cg->locations);
    memset(cg, 0, sizeof *cg);
}

/* Rows of several locations as one: the same key summed, sorted by key. */
static void merge_keys(pk_flat_row *r, size_t *n)
{
    size_t k = 0;
    qsort(r, *n, sizeof *r, pkq_flat_row_by_key);
    for (size_t i = 0; i < *n; i++) {
        if (k && r[k - 1].key == r[i].key) {
            r[k - 1].exclusive += r[i].exclusive, r[k - 1].inclusive += r[i].inclusive;
            r[k - 1].calls += r[i].calls;
        } else {
            r[k++] = r[i];
        }
    }
    *n = k;
}

pk_status pkq_cg_flat(const pk_profile *p, const pkq_cg *cg, pk_group_by by, pk_flat_row **rows,
                      size_t *n_rows)
{
    if (!cg->locations) return pkq_callgraph_flat_by_key(p, PK_NONE, cg->event, by, rows, n_rows);
    pk_flat_row *all = NULL;
    size_t n_all = 0;
    pk_status st = PK_OK;
    for (size_t i = 0; i < cg->n_locations && !st; i++) {
        pk_flat_row *r;
        size_t n;
        st = pkq_callgraph_flat_by_key(p, cg->locations[i], cg->event, by, &r, &n);
        pk_flat_row *grown = st ? NULL : realloc(all, (n_all + n + 1) * sizeof *grown);
        if (!st && !grown) st = pk_fail_nomem("a flat profile");
        if (!st && n) memcpy(grown + n_all, r, n * sizeof *r);
        if (!st) all = grown, n_all += n;
        if (!st) pk_flat_free(r);
    }
    if (st) return free(all), st;
    merge_keys(all, &n_all);
    *rows = all, *n_rows = n_all;
    return PK_OK;
}
