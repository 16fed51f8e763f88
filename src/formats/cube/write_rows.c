/*
 * formats/cube/write_rows.c — the Cube writer's values straight from a
 * row store (a profile read from Cube), so converting a Cube file needs
 * neither the location planes nor the context-major view built from them
 * (each ~10 bytes per value of the whole file): Cube's output is
 * metric-major as its input is, and a written row is a stored row.
 *
 * Columns are opened on first use and kept open (each holds a window of
 * its mapped rows, or one inflated row); a table per column maps a
 * context to its row.
 */
#include <stdlib.h>
#include <string.h>

#include "cw.h"
#include "model/model.h"

struct cw_rows {
    pk_rows *open; /* per column, opened on first use */
    uint8_t *is_open;
    uint32_t **row_of; /* per column: context -> row, UINT32_MAX for none */
    double *buf;       /* one row: every model location */
    pk_status st;      /* the first failure, reported when the writer ends */
};

pk_status cw_rows_init(cube_writer *w)
{
    const pk_profile *p = w->p;
    if (!pk_model_has_rows(p) || w->summary) return PK_OK;
    cw_rows *r = calloc(1, sizeof *r);
    if (!r) return pk_fail_nomem("writing Cube");
    w->rows = r;
    r->open = calloc((size_t)p->n_columns + 1, sizeof *r->open);
    r->is_open = calloc((size_t)p->n_columns + 1, 1);
    r->row_of = calloc((size_t)p->n_columns + 1, sizeof *r->row_of);
    r->buf = malloc(((size_t)p->n_locs + 1) * sizeof *r->buf);
    if (!r->open || !r->is_open || !r->row_of || !r->buf) return pk_fail_nomem("writing Cube");
    return PK_OK;
}

void cw_rows_free(cube_writer *w)
{
    cw_rows *r = w->rows;
    if (!r) return;
    for (uint32_t c = 0; r->is_open && c < w->p->n_columns; c++) {
        if (r->is_open[c]) pk_model_rows_close(w->p, &r->open[c]);
        free(r->row_of[c]);
    }
    free(r->open), free(r->is_open), free(r->row_of), free(r->buf), free(r);
    w->rows = NULL;
}

pk_status cw_rows_status(const cube_writer *w)
{
    return w->rows ? w->rows->st : PK_OK;
}

static int open_column(const cube_writer *w, cw_rows *r, pk_index col)
{
    const pk_profile *p = w->p;
    if (r->is_open[col]) return r->row_of[col] != NULL;
    r->is_open[col] = 1;
    pk_status st = pk_model_rows_open(p, col, &r->open[col]);
    uint32_t *t = st ? NULL : malloc(((size_t)p->n_ctx + 1) * sizeof *t);
    if (!st && !t) st = pk_fail_nomem("writing Cube");
    if (st) {
        if (!r->st) r->st = st;
        return 0;
    }
    memset(t, 0xff, ((size_t)p->n_ctx + 1) * sizeof *t);
    const pk_rows *v = &r->open[col];
    for (uint32_t i = 0; i < v->n_rows; i++)
        if (v->ctx[i] < p->n_ctx) t[v->ctx[i]] = i;
    r->row_of[col] = t;
    return 1;
}

const double *cw_rows_get(const cube_writer *w, pk_index ctx, pk_index col)
{
    cw_rows *r = w->rows;
    if (r->st || ctx >= w->p->n_ctx || col >= w->p->n_columns || w->p->columns[col].is_summary ||
        !open_column(w, r, col))
        return NULL;
    uint32_t i = r->row_of[col][ctx];
    if (i == UINT32_MAX) return NULL;
    const pk_rows *v = &r->open[col];
    v->get(v, i, 0, w->p->n_locs, r->buf);
    return r->buf;
}
