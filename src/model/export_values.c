/*
 * model/export_values.c — one column's stored values as three plain arrays
 * (context, location, value) for bindings that wrap them without copying
 * (profkit/export.h; the Python package's p.values(locations="all")).
 *
 * Reads each location's plane as stored (a row store's planes are built
 * first: every location is asked for). One pass over ranges of locations on
 * all cores: a column has at most one value per context a location has
 * values at (pk_location.n_contexts), so every location gets that many
 * slots, is filled in place, and the slices are then closed up and the
 * arrays shrunk to the values' own size. Should a location ever hold more,
 * a count pass sizes the arrays exactly instead. Ranges are contiguous, so
 * the result does not depend on the number of workers.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "profkit/export.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/mapfile.h"
#include "util/parallel.h"

typedef struct export_job {
    const pk_profile *p;
    pk_index column;
    uint64_t *start; /* per location: its first slot */
    uint64_t *cap;   /* per location: its slots (NULL: count only) */
    uint64_t *count; /* per location: values of the column */
    pk_value_table *out;
    unsigned char want[UINT16_MAX + 1]; /* plain raw column ids that are the column */
    int overflow[PK_MAX_WORKERS];       /* a location held more than its slots */
    pk_status status[PK_MAX_WORKERS];
} export_job;

/* Values stored at location l (0 for a summary location: skipped), and
 * the contexts it has values at. */
static uint64_t location_size(const pk_profile *p, pk_index l, uint64_t *n_contexts)
{
    pk_location loc;
    if (pk_location_get(p, l, &loc) != PK_OK || loc.is_summary) return *n_contexts = 0, 0;
    *n_contexts = loc.n_contexts;
    return loc.n_values;
}

static uint64_t location_weight(void *user, uint32_t l)
{
    const export_job *job = user;
    uint64_t n_ctx;
    return location_size(job->p, l, &n_ctx) + 1;
}

/* Count (cap == NULL) or place the column's values of location l: one
 * linear pass over its plane as stored (profile.db's packed pairs), a
 * table lookup per value for its raw column id and one per context run
 * for the context's index, no call per value. */
static void export_location(export_job *job, unsigned worker, uint32_t l)
{
    const pk_profile *p = job->p;
    const pk_plane *pl;
    pk_status st = pk_model_location_plane(p, l, &pl);
    if (st) {
        job->status[worker] = st;
        return;
    }
    uint64_t n = 0, at = job->start[l], cap = job->cap ? job->cap[l] : UINT64_MAX;
    pk_value_table *t = job->out;
    const unsigned char *want = job->want;
    for (uint32_t i = 0; i < pl->nidx; i++) {
        const unsigned char *rec = pl->idx + (uint64_t)i * PK_LM_IDX_SIZE;
        uint64_t v = pk_le64(rec + 4);
        uint64_t end = i + 1 < pl->nidx ? pk_le64(rec + PK_LM_IDX_SIZE + 4) : pl->nvals;
        if (end > pl->nvals) end = pl->nvals; /* clamped, as the cursor does */
        pk_index ctx = PK_NONE;
        for (const unsigned char *x = pl->vals + v * PK_LM_VAL_SIZE; v < end;
             v++, x += PK_LM_VAL_SIZE) {
            if (!want[pk_le16(x)]) continue;
            if (n == cap) {
                job->overflow[worker] = 1;
                return;
            }
            if (ctx == PK_NONE) { /* the dense table inline: real files number densely */
                uint32_t id = pk_le32(rec);
                ctx = id < p->ctx_dense_len ? p->ctx_dense[id] : pk_model_ctx_find(p, id);
            }
            if (job->cap) {
                t->context[at + n] = ctx;
                t->location[at + n] = l;
                t->value[at + n] = pk_le_f64(x + 2);
            }
            n++;
        }
    }
    job->count[l] = n;
}

static void export_range(void *user, unsigned worker, uint32_t b, uint32_t e)
{
    export_job *job = user;
    for (uint32_t l = b; l < e && !job->status[worker] && !job->overflow[worker]; l++) {
        uint64_t n_ctx;
        if (location_size(job->p, l, &n_ctx) == 0) continue; /* summary, or no values */
        export_location(job, worker, l);
    }
}

/* 1 on overflow, else 0; *st the first failure. */
static int run_pass(export_job *job, unsigned workers, uint32_t n_locs, pk_status *st)
{
    memset(job->status, 0, sizeof job->status);
    memset(job->overflow, 0, sizeof job->overflow);
    memset(job->count, 0, n_locs * sizeof *job->count);
    pk_parallel_ranges(workers, n_locs, location_weight, export_range, job);
    int overflow = 0;
    *st = PK_OK;
    for (unsigned w = 0; w < PK_MAX_WORKERS; w++) {
        if (job->status[w] && !*st) *st = job->status[w];
        overflow |= job->overflow[w];
    }
    return overflow;
}

static pk_status alloc_table(pk_value_table *t, size_t n)
{
    t->context = malloc(n * sizeof *t->context + 1);
    t->location = malloc(n * sizeof *t->location + 1);
    t->value = malloc(n * sizeof *t->value + 1);
    if (t->context && t->location && t->value) {
        /* one call maps the pages; a fault per page costs far more */
        pk_mem_prefault(t->context, n * sizeof *t->context);
        pk_mem_prefault(t->location, n * sizeof *t->location);
        pk_mem_prefault(t->value, n * sizeof *t->value);
        return PK_OK;
    }
    pk_value_table_free(t);
    return pk_fail_nomem("exporting a column's values");
}

/* First slots from per-location sizes; returns the total. */
static uint64_t prefix(uint64_t *start, const uint64_t *size, uint32_t n_locs)
{
    uint64_t total = 0;
    for (uint32_t l = 0; l < n_locs; l++)
        start[l] = total, total += size[l];
    return total;
}

/* Close up the filled slices (in order: every move is downwards) and give
 * the slots no value took back to the allocator. */
static void compact(export_job *job, uint32_t n_locs)
{
    pk_value_table *t = job->out;
    uint64_t at = 0;
    for (uint32_t l = 0; l < n_locs; l++) {
        uint64_t n = job->count[l], from = job->start[l];
        if (n && from != at) {
            memmove(t->context + at, t->context + from, n * sizeof *t->context);
            memmove(t->location + at, t->location + from, n * sizeof *t->location);
            memmove(t->value + at, t->value + from, n * sizeof *t->value);
        }
        at += n;
    }
    t->n = (size_t)at;
    void *c = realloc(t->context, at * sizeof *t->context + 1);
    void *l = realloc(t->location, at * sizeof *t->location + 1);
    void *v = realloc(t->value, at * sizeof *t->value + 1);
    if (c) t->context = c; /* a failed shrink keeps the larger block */
    if (l) t->location = l;
    if (v) t->value = v;
}

/* The fallback: count every location's values, then place them. */
static pk_status export_exact(export_job *job, unsigned workers, uint32_t n_locs)
{
    pk_status st;
    pk_value_table_free(job->out);
    job->cap = NULL;
    memset(job->start, 0, n_locs * sizeof *job->start);
    run_pass(job, workers, n_locs, &st);
    if (st) return st;
    memcpy(job->cap = job->start + 2 * (size_t)n_locs, job->count, n_locs * sizeof *job->cap);
    uint64_t total = prefix(job->start, job->count, n_locs);
    if ((st = alloc_table(job->out, (size_t)total)) != PK_OK) return st;
    if (run_pass(job, workers, n_locs, &st) && !st)
        st = pk_fail(PK_ERR_FORMAT, "a location's values changed while they were exported");
    job->out->n = (size_t)total;
    return st;
}

static pk_status export_all(export_job *job, unsigned threads, uint32_t n_locs)
{
    uint64_t weight = 0;
    for (uint32_t l = 0; l < n_locs; l++)
        weight += location_size(job->p, l, &job->cap[l]);
    unsigned workers = threads ? (threads > PK_MAX_WORKERS ? PK_MAX_WORKERS : threads)
                               : pk_workers_for(weight * 16);
    uint64_t total = prefix(job->start, job->cap, n_locs);
    pk_status st = alloc_table(job->out, (size_t)total);
    if (st) return st;
    if (run_pass(job, workers, n_locs, &st)) return export_exact(job, workers, n_locs);
    if (!st) compact(job, n_locs);
    return st;
}

pk_status pk_column_values_export(const pk_profile *profile, pk_index column, unsigned threads,
                                  pk_value_table *out)
{
    if (!profile || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_column_values_export: NULL");
    if (column >= pk_column_count(profile))
        return pk_fail(PK_ERR_NOT_FOUND, "no column %u (the profile has %zu)", (unsigned)column,
                       pk_column_count(profile));
    uint32_t n_locs = (uint32_t)pk_location_count(profile);
    pk_value_table t = {0};
    export_job job = {.p = profile, .column = column, .out = &t};
    /* start, count, cap: one allocation */
    job.start = calloc(3 * (size_t)n_locs + 1, sizeof *job.start);
    if (!job.start) return pk_fail_nomem("exporting a column's values");
    job.count = job.start + n_locs;
    job.cap = job.start + 2 * (size_t)n_locs;
    const pk_profile *p = profile;
    memset(job.want, 0, sizeof job.want);
    if (!p->columns[column].is_summary)
        for (uint32_t raw = 0; raw < p->n_raw[0] && raw <= UINT16_MAX; raw++)
            job.want[raw] = p->col_of_raw[0][raw] == column;
    pk_status st = pk_model_ensure_planes(p); /* every location: the transpose at once */
    if (!st) st = export_all(&job, threads, n_locs);
    free(job.start);
    if (st) {
        pk_value_table_free(&t);
        return st;
    }
    *out = t;
    return PK_OK;
}

void pk_value_table_free(pk_value_table *table)
{
    if (!table) return;
    free(table->context);
    free(table->location);
    free(table->value);
    memset(table, 0, sizeof *table);
}
