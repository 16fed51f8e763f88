/*
 * cli/callgraph.c — what the views answered from a call graph (flat,
 * callers, callees on a Callgrind profile) share: the metric's event, the
 * selected locations, the flat profile summed over them, and how such a
 * view says what it is.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int select_locations(const char *cmd, const pk_profile *p, const char *sel, cli_cg_view *out)
{
    if (!sel) return CLI_OK;
    size_t n = pk_location_count(p), k = 0;
    unsigned char *mark = calloc(n + 1, 1);
    out->locations = calloc(n + 1, sizeof *out->locations);
    if (!mark || !out->locations) {
        free(mark);
        fprintf(stderr, "profkit %s: out of memory\n", cmd);
        return CLI_BAD;
    }
    pk_status st = pk_location_select(p, sel, mark, n, NULL);
    for (size_t l = 0; l < n && !st; l++)
        if (mark[l]) out->locations[k++] = (pk_index)l;
    free(mark);
    out->n_locations = k;
    return st ? cli_library_error(cmd, st) : CLI_OK;
}

int cli_cg_view_init(const char *cmd, const pk_profile *p, const cli_view *v, cli_cg_view *out)
{
    memset(out, 0, sizeof *out);
    if (!cli_pick_metric(cmd, p, v->metric, &out->metric, NULL)) return CLI_BAD;
    pk_metric_get(p, out->metric, &out->met);
    if (pk_callgraph_metric_event(p, out->metric, &out->event) != PK_OK) {
        fprintf(stderr, "profkit %s: metric '%s' is no event of the call graph\n", cmd,
                out->met.name);
        return CLI_BAD;
    }
    int rc = select_locations(cmd, p, v->location, out);
    if (rc) return rc;
    pk_flat_row *rows;
    size_t n;
    pk_status st = cli_cg_flat(p, out, PK_BY_FUNCTION, &rows, &n);
    if (st) return cli_library_error(cmd, st);
    for (size_t i = 0; i < n; i++) /* "<cycle N>" rows have no self cost of their own */
        out->total += rows[i].exclusive;
    pk_flat_free(rows);
    double stated; /* the whole program's: as the file states it (summary:), as the tree's */
    if (!v->location && pk_metric_program_total(p, out->metric, &stated) == PK_OK)
        out->total = stated;
    pk_number_format_for(&out->met, out->total, &out->nf);
    return CLI_OK;
}

void cli_cg_view_free(cli_cg_view *v)
{
    free(v->locations);
    memset(v, 0, sizeof *v);
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const pk_flat_row *)a)->key, y = ((const pk_flat_row *)b)->key;
    return x < y ? -1 : x > y;
}

static int by_exclusive(const void *a, const void *b)
{
    const pk_flat_row *x = a, *y = b;
    if (x->exclusive != y->exclusive) return x->exclusive > y->exclusive ? -1 : 1;
    if (x->inclusive != y->inclusive) return x->inclusive > y->inclusive ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Rows of several locations as one: the same key summed. */
static pk_status add_rows(pk_flat_row **all, size_t *n_all, const pk_flat_row *r, size_t n)
{
    pk_flat_row *a = realloc(*all, (*n_all + n + 1) * sizeof *a);
    if (!a) return PK_ERR_NOMEM;
    memcpy(a + *n_all, r, n * sizeof *r);
    *all = a, *n_all += n;
    return PK_OK;
}

static void merge_keys(pk_flat_row *r, size_t *n)
{
    size_t k = 0;
    qsort(r, *n, sizeof *r, by_key);
    for (size_t i = 0; i < *n; i++) {
        if (k && r[k - 1].key == r[i].key) {
            r[k - 1].exclusive += r[i].exclusive, r[k - 1].inclusive += r[i].inclusive;
            r[k - 1].calls += r[i].calls;
        } else {
            r[k++] = r[i];
        }
    }
    *n = k;
    qsort(r, k, sizeof *r, by_exclusive);
}

pk_status cli_cg_flat(const pk_profile *p, const cli_cg_view *cv, pk_group_by by,
                      pk_flat_row **rows, size_t *n_rows)
{
    if (!cv->locations) return pk_callgraph_flat(p, PK_NONE, cv->event, by, rows, n_rows);
    pk_flat_row *all = NULL;
    size_t n_all = 0;
    pk_status st = PK_OK;
    for (size_t i = 0; i < cv->n_locations && !st; i++) {
        pk_flat_row *r;
        size_t n;
        st = pk_callgraph_flat(p, cv->locations[i], cv->event, by, &r, &n);
        if (!st) st = add_rows(&all, &n_all, r, n);
        if (!st) pk_flat_free(r);
    }
    if (st) {
        free(all);
        return st == PK_ERR_NOMEM ? PK_ERR_NOMEM : st;
    }
    merge_keys(all, &n_all);
    *rows = all, *n_rows = n_all;
    return PK_OK;
}

void cli_cg_describe(const pk_profile *p, const cli_view *v, const cli_cg_view *cv, FILE *out)
{
    (void)p;
    fprintf(out, "metric %s: %s ", cli_text(cv->met.name), v->location ? "total" : "program total");
    cli_put_number(out, cv->total, &cv->nf);
    if (v->location)
        fprintf(out, " over %zu location%s matching '%s'", cv->n_locations,
                cv->n_locations == 1 ? "" : "s", v->location);
    fputc('\n', out);
    fprintf(out, "(exact, from the call graph: inclusive costs count recursion and cycles once, "
                 "as KCachegrind does)\n");
}
