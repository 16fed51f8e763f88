/*
 * analysis/query_prefetch.c — the flat rows of several metrics computed
 * at once, on worker threads: a table of several metrics asks for each
 * one's values, and on a big profile each costs a pass over every
 * context. The workers read only the profile (immutable, safe from any
 * number of threads) and their own job; the caller's thread puts the
 * results into the session's caches after they are done, so the caches
 * stay single-threaded.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/session.h"
#include "util/error.h"
#include "util/parallel.h"

typedef struct job {
    pk_index metric;
    int keep_values;     /* put the values into the session's cache too */
    pkq_flat_rows *rows; /* the result */
    pkq_values *values;
    pk_status st;
} job;

typedef struct jobs {
    const pk_profile *p;
    const pk_query *q;
    job *j;
} jobs;

static void run(void *user, unsigned worker, uint32_t begin, uint32_t end)
{
    (void)worker;
    jobs *all = user;
    for (uint32_t i = begin; i < end; i++) {
        job *j = &all->j[i];
        j->rows = calloc(1, sizeof *j->rows);
        j->values = calloc(1, sizeof *j->values);
        if (!j->rows || !j->values) {
            j->st = PK_ERR_NOMEM;
            continue;
        }
        j->st = pkq_flat_rows_compute(all->p, j->metric, all->q, j->rows, j->values);
        if (j->st || !j->keep_values)
            pkq_values_clear(j->values), free(j->values), j->values = NULL;
    }
}

pk_status pkq_flat_prefetch(pk_session *s, const pk_index *metrics, size_t n, const pk_query *q,
                            int cache, pkq_flat_rows **owned)
{
    job *j = calloc(n ? n : 1, sizeof *j);
    uint32_t *at = calloc(n ? n : 1, sizeof *at);
    if (!j || !at) return free(j), free(at), pk_fail_nomem("a flat profile");
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (cache &&
            (pkq_flat_rows_cached(s, metrics[i], q, 0) || pkq_values_cached(s, metrics[i], q)))
            continue; /* cheap already */
        j[k] = (job){.metric = metrics[i], .keep_values = cache && k < PKQ_CACHE / 2};
        at[k++] = (uint32_t)i;
    }
    if (k >= 2) {
        jobs all = {s->p, q, j};
        uint64_t weight = (uint64_t)k * pk_context_count(s->p) * 16;
        unsigned w = pk_workers_for(weight);
        pk_parallel_ranges(w < k ? w : k, k, NULL, run, &all);
    }
    pk_status st = PK_OK;
    for (uint32_t i = 0; i < k; i++) {
        if (k >= 2 && !j[i].st && cache) pkq_flat_rows_put(s, j[i].rows), j[i].rows = NULL;
        if (k >= 2 && !j[i].st && !cache) owned[at[i]] = j[i].rows, j[i].rows = NULL;
        if (j[i].values) pkq_values_put(s, j[i].values);
        if (j[i].rows) pkq_flat_rows_free(j[i].rows);
        if (k >= 2 && j[i].st && !st)
            st = j[i].st == PK_ERR_NOMEM ? pk_fail_nomem("a flat profile") : j[i].st;
    }
    free(j), free(at);
    return st;
}
