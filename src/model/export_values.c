/*
 * model/export_values.c — one column's stored values as three plain arrays
 * (context, location, value) for bindings that wrap them without copying
 * (profkit/export.h; the Python package's p.values(locations="all")).
 *
 * Built on the public cursor over each location's values, so it reads
 * whatever value store the model has. Two passes over ranges of locations
 * on all cores: the first counts each location's values of the column, so
 * the arrays are allocated at their exact size once (memory = the values'
 * own size, no growing and no copy); the second fills each location's slice
 * in place. Ranges are contiguous, so the result does not depend on the
 * number of workers.
 */
#include <stdlib.h>
#include <string.h>

#include "profkit/export.h"
#include "util/error.h"
#include "util/parallel.h"

typedef struct export_job {
    const pk_profile *p;
    pk_index column;
    uint64_t *start;     /* per location: first slot (after the count pass) */
    pk_value_table *out; /* NULL in the count pass */
    pk_status status[PK_MAX_WORKERS];
} export_job;

static int is_summary(const pk_profile *p, pk_index l, uint64_t *n_values)
{
    pk_location loc;
    if (pk_location_get(p, l, &loc) != PK_OK) return 1;
    if (n_values) *n_values = loc.n_values;
    return loc.is_summary;
}

static uint64_t location_weight(void *user, uint32_t l)
{
    const export_job *job = user;
    uint64_t n = 0;
    is_summary(job->p, l, &n);
    return n + 1;
}

/* Count (out == NULL) or place the column's values of locations [b, e). */
static void export_range(void *user, unsigned worker, uint32_t b, uint32_t e)
{
    export_job *job = user;
    for (uint32_t l = b; l < e && job->status[worker] == PK_OK; l++) {
        if (is_summary(job->p, l, NULL)) continue;
        pk_cursor c;
        pk_value v;
        pk_status st = pk_location_values_begin(job->p, l, &c);
        if (st) {
            job->status[worker] = st;
            return;
        }
        uint64_t n = 0, at = job->out ? job->start[l] : 0;
        while (pk_cursor_next(&c, &v)) {
            if (v.column != job->column) continue;
            if (job->out) {
                job->out->context[at + n] = v.context;
                job->out->location[at + n] = l;
                job->out->value[at + n] = v.value;
            }
            n++;
        }
        if (!job->out) job->start[l] = n;
    }
}

static pk_status run_pass(export_job *job, unsigned workers, uint32_t n_locs)
{
    memset(job->status, 0, sizeof job->status);
    pk_parallel_ranges(workers, n_locs, location_weight, export_range, job);
    for (unsigned w = 0; w < PK_MAX_WORKERS; w++)
        if (job->status[w]) return job->status[w];
    return PK_OK;
}

static unsigned workers_for(const pk_profile *p, uint32_t n_locs, unsigned threads)
{
    if (threads) return threads > PK_MAX_WORKERS ? PK_MAX_WORKERS : threads;
    uint64_t total = 0;
    for (uint32_t l = 0; l < n_locs; l++) {
        uint64_t n = 0;
        is_summary(p, l, &n);
        total += n;
    }
    return pk_workers_for(total * 16);
}

static pk_status alloc_table(pk_value_table *t, size_t n)
{
    t->n = n;
    t->context = malloc(n * sizeof *t->context + 1);
    t->location = malloc(n * sizeof *t->location + 1);
    t->value = malloc(n * sizeof *t->value + 1);
    if (t->context && t->location && t->value) return PK_OK;
    pk_value_table_free(t);
    return pk_fail_nomem("exporting a column's values");
}

pk_status pk_column_values_export(const pk_profile *profile, pk_index column, unsigned threads,
                                  pk_value_table *out)
{
    if (!profile || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_column_values_export: NULL");
    if (column >= pk_column_count(profile))
        return pk_fail(PK_ERR_NOT_FOUND, "no column %u (the profile has %zu)", (unsigned)column,
                       pk_column_count(profile));
    uint32_t n_locs = (uint32_t)pk_location_count(profile);
    export_job job = {.p = profile, .column = column};
    job.start = calloc(n_locs + 1, sizeof *job.start);
    if (!job.start) return pk_fail_nomem("exporting a column's values");
    unsigned workers = workers_for(profile, n_locs, threads);
    pk_status st = run_pass(&job, workers, n_locs);
    uint64_t total = 0;
    for (uint32_t l = 0; l < n_locs && !st; l++) { /* counts become first slots */
        uint64_t n = job.start[l];
        job.start[l] = total;
        total += n;
    }
    pk_value_table t = {0};
    if (!st) st = alloc_table(&t, (size_t)total);
    job.out = &t;
    if (!st) st = run_pass(&job, workers, n_locs);
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
