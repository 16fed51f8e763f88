/*
 * model/transpose.c — building the context-major view from the
 * location-major planes.
 *
 * HPCToolkit ships this view as cct.db; when it is absent (or for formats
 * that store values the other way round) it is built once, on first use,
 * in cct.db's packed layout: per context, values grouped by column, then
 * by location. Summary locations are left out, as in cct.db.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "util/bytes.h"

typedef struct cm_entry {
    double value;
    uint32_t loc;
    uint16_t raw;
} cm_entry;

static int cmp_entry(const void *a, const void *b)
{
    const cm_entry *x = a, *y = b;
    if (x->raw != y->raw) return x->raw < y->raw ? -1 : 1;
    return x->loc < y->loc ? -1 : x->loc > y->loc;
}

/* Pass 1: number of values per context -> bucket starts (n_ctx + 1). */
static uint64_t *count_per_context(const pk_profile *p)
{
    uint64_t *start = calloc((size_t)p->n_ctx + 1, sizeof *start);
    if (!start) return NULL;
    for (uint32_t l = 0; l < p->n_locs; l++) {
        if (p->locs[l].is_summary) continue;
        pk_cursor c;
        pk_value v;
        pk_location_values_begin(p, l, &c);
        while (pk_cursor_next(&c, &v))
            if (v.context != PK_NONE && v.column != PK_NONE) start[v.context + 1]++;
    }
    for (uint32_t i = 0; i < p->n_ctx; i++)
        start[i + 1] += start[i];
    return start;
}

/* Pass 2: scatter every value into its context's bucket. */
static void scatter(const pk_profile *p, const uint64_t *start, uint64_t *fill, cm_entry *entries)
{
    memcpy(fill, start, (size_t)p->n_ctx * sizeof *fill);
    for (uint32_t l = 0; l < p->n_locs; l++) {
        if (p->locs[l].is_summary) continue;
        pk_cursor c;
        pk_value v;
        pk_location_values_begin(p, l, &c);
        while (pk_cursor_next(&c, &v)) {
            if (v.context == PK_NONE || v.column == PK_NONE) continue;
            entries[fill[v.context]++] =
                (cm_entry){v.value, l, (uint16_t)p->columns[v.column].raw_id};
        }
    }
}

/* Pass 3: sort each bucket by (column, location) and pack it. */
static void pack(pk_profile *p, const uint64_t *start, cm_entry *entries, unsigned char *vals,
                 unsigned char *idx)
{
    uint64_t n_idx = 0;
    for (uint32_t ctx = 0; ctx < p->n_ctx; ctx++) {
        uint64_t b = start[ctx], e = start[ctx + 1];
        qsort(entries + b, e - b, sizeof *entries, cmp_entry);
        pk_plane *pl = &p->cm[ctx];
        pl->vals = vals + b * PK_CM_VAL_SIZE;
        pl->idx = idx + n_idx * PK_CM_IDX_SIZE;
        pl->nvals = e - b;
        pl->nidx = 0;
        for (uint64_t i = b; i < e; i++) {
            unsigned char *v = vals + i * PK_CM_VAL_SIZE;
            pk_put_le32(v, entries[i].loc);
            pk_put_le64(v + 4, pk_f64_bits(entries[i].value));
            if (i == b || entries[i].raw != entries[i - 1].raw) {
                unsigned char *x = idx + n_idx++ * PK_CM_IDX_SIZE;
                pk_put_le16(x, entries[i].raw);
                pk_put_le64(x + 2, i - b);
                pl->nidx++;
            }
        }
    }
}

static pk_status build_cm(pk_profile *p)
{
    uint64_t *start = count_per_context(p);
    if (!start) return pk_fail_nomem("transposing values");
    uint64_t n = start[p->n_ctx];
    cm_entry *entries = malloc(n ? n * sizeof *entries : 1);
    /* one buffer: values, then index records (at most one per value) */
    unsigned char *buf = malloc(n ? n * (PK_CM_VAL_SIZE + PK_CM_IDX_SIZE) : 1);
    pk_plane *cm = calloc(p->n_ctx ? p->n_ctx : 1, sizeof *cm);
    uint64_t *fill = malloc(((size_t)p->n_ctx + 1) * sizeof *fill);
    if (!entries || !buf || !cm || !fill) {
        free(start);
        free(entries);
        free(buf);
        free(cm);
        free(fill);
        return pk_fail_nomem("transposing values");
    }
    scatter(p, start, fill, entries);
    free(fill);
    p->cm = cm;
    pack(p, start, entries, buf, buf + n * PK_CM_VAL_SIZE);
    p->cm_built = buf;
    free(entries);
    free(start);
    return PK_OK;
}

pk_status pk_model_ensure_cm(const pk_profile *cp)
{
    /* The view is logically part of the immutable profile; building it
     * lazily is an implementation detail guarded by the lock. */
    pk_profile *p = (pk_profile *)cp;
    pthread_mutex_lock(&p->cm_lock);
    pk_status st = p->cm ? PK_OK : build_cm(p);
    pthread_mutex_unlock(&p->cm_lock);
    return st;
}
