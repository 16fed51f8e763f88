/*
 * formats/hpctoolkit/write_shape_acc.c — the summary's statistics of many
 * plain locations accumulated per (context, plain column) in one pass
 * over their planes, instead of read from the context-major transpose.
 *
 * The transpose holds every value again (12 bytes each: a Cube of 64 M
 * values, 768 MB) only for the summary to reduce each (context, column)
 * run of it; cct.db can be written by chunks without it. Where a cell
 * per (context, column) takes less (40 bytes: a Cube of 5,000 contexts
 * and a few metrics, 2 MB), the statistics are accumulated there. The
 * planes are read location by location, each in its own order: the order
 * of the transpose's runs, so every sum is made of the same additions in
 * the same order and the bytes written are the same.
 */
#include <math.h>
#include <stdlib.h>

#include "util/bytes.h"
#include "util/error.h"
#include "write_shape.h"

#define HS_CELLS_MAX_BYTES (1ull << 30)

int hs_cells_choice;

double hs_cell_stat(const hs_cell *c, uint8_t how)
{
    switch (how) {
    case HS_COUNT:
        return c->count;
    case HS_SUMSQ:
        return c->sumsq;
    case HS_MIN:
        return c->min;
    case HS_MAX:
        return c->max;
    default:
        return c->sum;
    }
}

void hs_cell_add(hs_cell *c, double x)
{
    if (c->count == 0) {
        c->min = c->max = x;
    } else {
        c->min = fmin(c->min, x);
        c->max = fmax(c->max, x);
    }
    c->sum += x, c->sumsq += x * x, c->count += 1;
}

/* Location l's plain values into the cells (what the transpose keeps: a
 * known context, a plain column, an index within the plane). */
static void add_location(const pk_profile *q, const pk_plane *pl, hs_cell *cells, uint32_t nr)
{
    for (uint32_t k = 0; k < pl->nidx; k++) {
        const unsigned char *x = pl->idx + (uint64_t)k * PK_LM_IDX_SIZE;
        uint32_t ctx = pk_model_ctx_find(q, pk_le32(x));
        uint64_t b = pk_le64(x + 4),
                 e = k + 1 < pl->nidx ? pk_le64(x + 4 + PK_LM_IDX_SIZE) : pl->nvals;
        if (ctx == PK_NONE || e > pl->nvals) continue;
        for (uint64_t v = b; v < e; v++) {
            const unsigned char *rec = pl->vals + v * PK_LM_VAL_SIZE;
            uint32_t raw = pk_le16(rec);
            if (pk_model_col_of(q, 0, raw) == PK_NONE) continue; /* and so raw < nr */
            hs_cell_add(&cells[(size_t)ctx * nr + raw], pk_le_f64(rec + 2));
        }
    }
}

pk_status hs_cells_make(const pk_profile *q, hs_cells *out)
{
    *out = (hs_cells){NULL, q->n_raw[0]};
    uint64_t values = 0, cells = (uint64_t)q->n_ctx * out->nr;
    for (uint32_t l = 0; l < q->n_locs; l++)
        values += q->locs[l].is_summary ? 0 : q->locs[l].plane.nvals;
    uint64_t bytes = cells * sizeof(hs_cell);
    int smaller = bytes <= values * PK_CM_VAL_SIZE && bytes <= HS_CELLS_MAX_BYTES;
    if (!cells || hs_cells_choice < 0 || (!smaller && hs_cells_choice == 0)) return PK_OK;
    out->c = calloc((size_t)cells, sizeof *out->c);
    if (!out->c) return pk_fail_nomem("combining statistics");
    for (uint32_t l = 0; l < q->n_locs; l++)
        if (!q->locs[l].is_summary) add_location(q, &q->locs[l].plane, out->c, out->nr);
    return PK_OK;
}

void hs_cells_free(hs_cells *c)
{
    free(c->c);
    c->c = NULL;
}
