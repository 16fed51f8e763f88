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
#include <string.h>

#include "model.h"
#include "rowsum.h"
#include "util/parallel.h"

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
    pk_status st = pk_model_check_deferred(p);
    if (st || !p->rows) return st;
    pthread_mutex_lock(&p->planes_lock);
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

/* Per worker of a scan: its counts, which contexts had a row with a
 * value at every location (then no cell of that context needs a mark),
 * and its marks of the other rows' (context, location) pairs. Marks are
 * kept only for the contexts that have such a row: slot[c] is context c's
 * bitset of locations in `has` (UINT32_MAX: none yet), so they cost a bit
 * per value a row holds, never n_ctx x n_locs bits (a file of 120,000
 * contexts and as many locations, with no row stored, asked for 1.8 GB). */
typedef struct scan_worker {
    uint64_t *nvals;
    uint32_t *slot;
    unsigned char *full, *has;
    size_t n_slots, cap_slots;
    double *buf;
    pk_status st;
} scan_worker;

typedef struct scan_job {
    const pk_profile *p;
    pk_rows_fn fn;
    void *user;
    int count; /* the counts are not cached yet: take them on the way */
    scan_worker w[PK_MAX_WORKERS];
} scan_job;

/* Context c's bitset of locations in w->has, made on first use; NULL
 * when out of memory. */
static unsigned char *marks_of(const pk_profile *p, scan_worker *w, uint32_t c)
{
    size_t bytes = ((size_t)p->n_locs + 7) / 8;
    if (w->slot[c] == UINT32_MAX) {
        if (w->n_slots == w->cap_slots) {
            size_t cap = w->cap_slots ? 2 * w->cap_slots : 16;
            unsigned char *more = realloc(w->has, cap * bytes + 1);
            if (!more) return NULL;
            w->has = more, w->cap_slots = cap;
        }
        memset(w->has + w->n_slots * bytes, 0, bytes);
        w->slot[c] = (uint32_t)w->n_slots++;
    }
    return w->has + (size_t)w->slot[c] * bytes;
}

/* A row's values (n_locs doubles at `row`) into the worker's counts. */
static void count_row(const pk_profile *p, scan_worker *w, uint32_t c, const unsigned char *row)
{
    size_t nz = pk_row_count(row, p->n_locs, w->nvals);
    if (c >= p->n_ctx || w->full[c] || w->st) return; /* a row of no context: no context counts */
    if (nz == p->n_locs) {                            /* dense rows (the usual): no cell to mark */
        w->full[c] = 1;
        return;
    }
    unsigned char *has = marks_of(p, w, c);
    if (!has) {
        w->st = pk_fail_nomem("counting values");
        return;
    }
    for (uint32_t l = 0; l < p->n_locs && nz; l++) {
        double x;
        memcpy(&x, row + 8 * (size_t)l, 8);
        if (x != 0) has[l >> 3] |= (unsigned char)(1u << (l & 7)), nz--;
    }
}

/* Row i of an open column as doubles in native byte order: in place
 * when the store has it so, else decoded into buf. */
static const unsigned char *row_bytes(const pk_rows *v, uint32_t i, uint32_t n, double *buf)
{
    const unsigned char *raw = v->raw ? v->raw(v, i) : NULL;
    if (raw) return raw;
    v->get(v, i, 0, n, buf);
    return (const unsigned char *)buf;
}

static void scan_range(void *user, unsigned wi, uint32_t begin, uint32_t end)
{
    scan_job *job = user;
    const pk_profile *p = job->p;
    scan_worker *w = &job->w[wi];
    for (uint32_t col = begin; col < end && !w->st; col++) {
        pk_rows v;
        if (p->columns[col].is_summary) continue;
        if ((w->st = pk_model_rows_open(p, col, &v)) != PK_OK) break;
        for (uint32_t i = 0; i < v.n_rows; i++) {
            const unsigned char *row = row_bytes(&v, i, p->n_locs, w->buf);
            double sum, comp;
            if (job->count) count_row(p, w, v.ctx[i], row);
            pk_row_sum(row, p->n_locs, &sum, &comp);
            job->fn(job->user, wi, col, v.ctx[i], sum, comp);
        }
        pk_model_rows_close(p, &v);
    }
}

static pk_status scan_init(scan_job *job, unsigned workers)
{
    const pk_profile *p = job->p;
    for (unsigned i = 0; i < workers; i++) {
        scan_worker *w = &job->w[i];
        w->buf = malloc(((size_t)p->n_locs + 1) * sizeof *w->buf);
        if (job->count) {
            w->nvals = calloc((size_t)p->n_locs + 1, sizeof *w->nvals);
            w->full = calloc((size_t)p->n_ctx + 1, 1);
            w->slot = malloc(((size_t)p->n_ctx + 1) * sizeof *w->slot);
            if (w->slot) memset(w->slot, 0xff, ((size_t)p->n_ctx + 1) * sizeof *w->slot);
        }
        if (!w->buf || (job->count && (!w->nvals || !w->full || !w->slot)))
            return pk_fail_nomem("scanning rows");
    }
    return PK_OK;
}

/* The contexts at each location: a context with a dense row in some
 * worker is at every location; for the others, the workers' marks
 * together (one context's rows may be in several workers' columns). */
static void count_contexts(const scan_job *job, unsigned workers, unsigned char *any, uint32_t *nc)
{
    const pk_profile *p = job->p;
    size_t bytes = ((size_t)p->n_locs + 7) / 8;
    for (uint32_t c = 0; c < p->n_ctx; c++) {
        int seen = 0, full = 0;
        for (unsigned i = 0; i < workers && !full; i++)
            full = job->w[i].full[c];
        for (unsigned i = 0; i < workers && !full; i++) {
            const scan_worker *w = &job->w[i];
            if (w->slot[c] == UINT32_MAX) continue;
            const unsigned char *has = w->has + (size_t)w->slot[c] * bytes;
            if (!seen++)
                memcpy(any, has, bytes);
            else
                for (size_t b = 0; b < bytes; b++)
                    any[b] |= has[b];
        }
        for (uint32_t l = 0; (seen || full) && l < p->n_locs; l++)
            nc[l] += full ? 1u : (any[l >> 3] >> (l & 7)) & 1u;
    }
}

/* The workers' counts into the profile's cache. */
static pk_status scan_keep_counts(scan_job *job, unsigned workers)
{
    pk_profile *p = (pk_profile *)job->p; /* the counts are a cache, as the planes */
    uint64_t *nv = calloc((size_t)p->n_locs + 1, sizeof *nv);
    uint32_t *nc = calloc((size_t)p->n_locs + 1, sizeof *nc);
    unsigned char *any = malloc(((size_t)p->n_locs + 7) / 8 + 1);
    if (!nv || !nc || !any) return free(nv), free(nc), free(any), pk_fail_nomem("counting values");
    count_contexts(job, workers, any, nc);
    free(any);
    for (unsigned i = 0; i < workers; i++)
        for (uint32_t l = 0; l < p->n_locs; l++)
            nv[l] += job->w[i].nvals[l];
    pthread_mutex_lock(&p->planes_lock);
    if (!p->row_nvals) p->row_nvals = nv, p->row_nctx = nc, nv = NULL, nc = NULL;
    pthread_mutex_unlock(&p->planes_lock);
    free(nv), free(nc);
    return PK_OK;
}

pk_status pk_model_rows_scan(const pk_profile *cp, unsigned workers, pk_rows_fn fn, void *user)
{
    pk_profile *p = (pk_profile *)cp;
    scan_job job = {.p = p, .fn = fn, .user = user};
    pthread_mutex_lock(&p->planes_lock);
    job.count = p->row_nvals == NULL;
    pthread_mutex_unlock(&p->planes_lock);
    if (workers > p->n_columns) workers = p->n_columns ? p->n_columns : 1;
    if (workers < 1) workers = 1;
    pk_status st = scan_init(&job, workers);
    if (!st) pk_parallel_ranges(workers, p->n_columns, NULL, scan_range, &job);
    for (unsigned i = 0; i < workers && !st; i++)
        st = job.w[i].st;
    if (!st && job.count) st = scan_keep_counts(&job, workers);
    for (unsigned i = 0; i < workers; i++)
        free(job.w[i].nvals), free(job.w[i].slot), free(job.w[i].full), free(job.w[i].has),
            free(job.w[i].buf);
    return st;
}

static void count_only(void *user, unsigned worker, uint32_t col, uint32_t ctx, double sum,
                       double comp)
{
    (void)user, (void)worker, (void)col, (void)ctx, (void)sum, (void)comp;
}

pk_status pk_model_location_counts(const pk_profile *cp, uint32_t loc, uint64_t *n_values,
                                   uint32_t *n_contexts)
{
    pk_profile *p = (pk_profile *)cp;
    pthread_mutex_lock(&p->planes_lock);
    int from_rows = p->rows && !p->planes_ready, counted = p->row_nvals != NULL;
    pthread_mutex_unlock(&p->planes_lock);
    if (from_rows && !counted) {
        uint64_t bytes = (uint64_t)p->n_ctx * p->n_locs * 8 * p->n_columns;
        pk_status st = pk_model_rows_scan(p, pk_workers_for(bytes), count_only, NULL);
        if (st) return st;
    }
    *n_values = from_rows ? p->row_nvals[loc] : p->locs[loc].plane.nvals;
    *n_contexts = from_rows ? p->row_nctx[loc] : p->locs[loc].plane.nidx;
    return PK_OK;
}
