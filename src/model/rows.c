/*
 * model/rows.c — the second value store: metric-major rows kept in the
 * format's own layout (Cube's N.data, read in place from the mapped
 * archive), with the location-major planes built only when a question
 * walks locations.
 *
 * Whole-column questions (totals, per-context and per-location sums) read
 * rows directly; they are what the big views ask, and reading rows costs
 * no copy. Location cursors, the context-major view and the writers need
 * planes: pk_model_ensure_planes() builds them once, through the store.
 */
#include <stdlib.h>

#include "model.h"

void pk_model_attach_rows(pk_profile *p, pk_row_store *store)
{
    p->rows = store;
    p->planes_ready = 0;
}

pk_status pk_model_ensure_planes(const pk_profile *cp)
{
    /* The planes are logically part of the immutable profile; building
     * them lazily is an implementation detail guarded by the lock. */
    pk_profile *p = (pk_profile *)cp;
    if (!p->rows) return PK_OK;
    pthread_mutex_lock(&p->planes_lock);
    pk_status st = PK_OK;
    if (!p->planes_ready) {
        st = p->rows->planes(p->rows->user);
        p->planes_ready = st == PK_OK;
    }
    pthread_mutex_unlock(&p->planes_lock);
    return st;
}

pk_status pk_model_rows_open(const pk_profile *p, uint32_t col, pk_rows *out)
{
    *out = (pk_rows){0};
    if (!p->rows || col >= p->n_columns || p->columns[col].is_summary) return PK_OK;
    return p->rows->open(p->rows->user, col, out);
}

void pk_model_rows_close(const pk_profile *p, pk_rows *v)
{
    if (p->rows) p->rows->close(p->rows->user, v);
    *v = (pk_rows){0};
}

pk_status pk_model_planes_only(pk_profile *p)
{
    pk_status st = pk_model_ensure_planes(p);
    if (st || !p->rows) return st;
    p->rows->destroy(p->rows->user); /* the planes own their values */
    p->rows = NULL;
    return PK_OK;
}
