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
#include "util/parallel.h"

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

/* ---- sorted path: entries bucketed per context, then sorted ---- */

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

static pk_status build_cm_sorted(pk_profile *p)
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

/* ---- dense path: a counter per (context, raw column id) ---- */

/* BODY runs for every plain value of locations [l0, l1), in location
 * order, with ctx, raw, loc and rec (the value record) in scope; direct
 * loops over the planes (no cursor): this visits every value twice. */
#define FOR_EACH_PLAIN_VALUE(p, l0, l1, BODY)                                                      \
    for (uint32_t l_ = (l0); l_ < (l1); l_++) {                                                    \
        const pk_plane *pl_ = &(p)->locs[l_].plane;                                                \
        if ((p)->locs[l_].is_summary) continue;                                                    \
        for (uint32_t k_ = 0; k_ < pl_->nidx; k_++) {                                              \
            const unsigned char *x_ = pl_->idx + (uint64_t)k_ * PK_LM_IDX_SIZE;                    \
            uint32_t ctx = pk_model_ctx_find((p), pk_le32(x_));                                    \
            uint64_t b_ = pk_le64(x_ + 4);                                                         \
            uint64_t e_ = k_ + 1 < pl_->nidx ? pk_le64(x_ + 4 + PK_LM_IDX_SIZE) : pl_->nvals;      \
            if (ctx == PK_NONE || e_ > pl_->nvals) continue;                                       \
            for (uint64_t v_ = b_; v_ < e_; v_++) {                                                \
                const unsigned char *rec = pl_->vals + v_ * PK_LM_VAL_SIZE;                        \
                uint32_t raw = pk_le16(rec), loc = l_;                                             \
                if (raw >= (p)->n_raw[0] || (p)->col_of_raw[0][raw] == PK_NONE) continue;          \
                BODY                                                                               \
            }                                                                                      \
        }                                                                                          \
    }

typedef struct dense_job {
    pk_profile *p;
    uint64_t *at[PK_MAX_WORKERS]; /* per worker: count, then next slot, per cell */
    unsigned char *vals;
    int scatter;
} dense_job;

static uint64_t location_weight(void *user, uint32_t l)
{
    return ((dense_job *)user)->p->locs[l].plane.nvals;
}

static void dense_pass(void *user, unsigned w, uint32_t l0, uint32_t l1)
{
    dense_job *job = user;
    pk_profile *p = job->p;
    uint64_t *at = job->at[w];
    uint32_t nr = p->n_raw[0];
    if (!job->scatter) {
        FOR_EACH_PLAIN_VALUE(p, l0, l1, {
            at[(size_t)ctx * nr + raw]++;
            (void)rec;
            (void)loc;
        })
        return;
    }
    FOR_EACH_PLAIN_VALUE(p, l0, l1, {
        unsigned char *v = job->vals + at[(size_t)ctx * nr + raw]++ * PK_CM_VAL_SIZE;
        pk_put_le32(v, loc);
        memcpy(v + 4, rec + 2, 8);
    })
}

/* Counts become slots: cell by cell, worker 0's values first (workers hold
 * ascending location ranges, so each run stays in location order); also
 * writes the index records and each context's plane. */
static void place_cells(pk_profile *p, dense_job *job, unsigned workers, unsigned char *vals,
                        unsigned char *idx, pk_plane *cm)
{
    uint32_t nr = p->n_raw[0];
    uint64_t n = 0, k = 0;
    for (uint32_t ctx = 0; ctx < p->n_ctx; ctx++) {
        uint64_t first = n;
        cm[ctx].vals = vals + first * PK_CM_VAL_SIZE;
        cm[ctx].idx = idx + k * PK_CM_IDX_SIZE;
        for (uint32_t r = 0; r < nr; r++) {
            uint64_t start = n;
            for (unsigned w = 0; w < workers; w++) {
                uint64_t *c = &job->at[w][(size_t)ctx * nr + r], count = *c;
                *c = n;
                n += count;
            }
            if (n == start) continue;
            pk_put_le16(idx + k * PK_CM_IDX_SIZE, (uint16_t)r);
            pk_put_le64(idx + k * PK_CM_IDX_SIZE + 2, start - first);
            k++, cm[ctx].nidx++;
        }
        cm[ctx].nvals = n - first;
    }
}

unsigned pk_model_plane_workers(const pk_profile *p)
{
    uint64_t total = 0;
    uint32_t plain = 0;
    for (uint32_t l = 0; l < p->n_locs; l++)
        total += p->locs[l].plane.nvals, plain += !p->locs[l].is_summary;
    unsigned workers = pk_workers_for(total * PK_LM_VAL_SIZE);
    return plain && plain < workers ? plain : workers;
}

/* Values land directly in their final place: no intermediate array, no
 * sort; counting and placing run on all cores, by ranges of locations. */
static pk_status build_cm_dense(pk_profile *p)
{
    size_t cells = (size_t)p->n_ctx * p->n_raw[0];
    dense_job job = {.p = p};
    unsigned workers = pk_model_plane_workers(p);
    uint64_t *all = calloc(workers * cells + 1, sizeof *all);
    pk_plane *cm = calloc(p->n_ctx ? p->n_ctx : 1, sizeof *cm);
    if (!all || !cm) {
        free(all), free(cm);
        return pk_fail_nomem("transposing values");
    }
    for (unsigned w = 0; w < workers; w++)
        job.at[w] = all + w * cells;
    pk_parallel_ranges(workers, p->n_locs, location_weight, dense_pass, &job);
    /* sizes first: place_cells() turns the counts into slots */
    uint64_t n = 0, n_idx = 0;
    for (size_t i = 0; i < cells; i++) {
        uint64_t c = 0;
        for (unsigned w = 0; w < workers; w++)
            c += job.at[w][i];
        n += c;
        n_idx += c != 0;
    }
    unsigned char *buf = malloc(n * PK_CM_VAL_SIZE + n_idx * PK_CM_IDX_SIZE + 1);
    if (!buf) {
        free(all), free(cm);
        return pk_fail_nomem("transposing values");
    }
    place_cells(p, &job, workers, buf, buf + n * PK_CM_VAL_SIZE, cm);
    job.vals = buf;
    job.scatter = 1;
    pk_parallel_ranges(workers, p->n_locs, location_weight, dense_pass, &job);
    free(all);
    p->cm = cm;
    p->cm_built = buf;
    return PK_OK;
}

/* Counters per (context, raw id) are affordable up to this many cells;
 * beyond, entries are sorted per context instead. */
#define DENSE_CELLS (1u << 24)

static pk_status build_cm(pk_profile *p)
{
    if ((uint64_t)p->n_ctx * p->n_raw[0] <= DENSE_CELLS && !p->cm_sorted_only)
        return build_cm_dense(p);
    return build_cm_sorted(p);
}

pk_status pk_model_ensure_cm(const pk_profile *cp)
{
    /* The view is logically part of the immutable profile; building it
     * lazily is an implementation detail guarded by the lock. */
    pk_profile *p = (pk_profile *)cp;
    pk_status st = pk_model_ensure_planes(p);
    if (st) return st;
    pthread_mutex_lock(&p->cm_lock);
    st = p->cm ? PK_OK : build_cm(p);
    pthread_mutex_unlock(&p->cm_lock);
    return st;
}
