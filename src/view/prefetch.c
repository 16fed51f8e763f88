/*
 * view/prefetch.c — the flat rows of several metrics computed at once, on
 * worker threads: a page's flat table asks for every metric in one
 * request, and on a big profile each metric's values and rows cost a
 * pass over all contexts. The workers read only the profile (immutable,
 * safe to read from any number of threads) and their own job; the
 * caller's thread puts the results into the session's caches after
 * joining them, so the caches stay single-threaded.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "view/view.h"

#define MAX_WORKERS 4

typedef struct job {
    const pk_profile *p;
    pk_index metric;
    const char *location;
    pk_across stat;
    pk_group_by by;
    const cli_view_values *cached; /* the session's values, or NULL */
    cli_view_values vals;          /* computed here when not cached */
    pk_flat_row *rows;
    size_t n;
    double total;
    int ok;
} job;

static void *run(void *arg)
{
    job *j = arg;
    const cli_view_values *v = j->cached;
    if (!v) {
        pk_metric met;
        pk_metric_get(j->p, j->metric, &met);
        cli_view cv = {.metric = met.name, .location = j->location, .stat = j->stat};
        if (cli_view_compute("view", j->p, &cv, &j->vals)) return NULL;
        v = &j->vals;
    }
    j->ok = pk_flat_profile(j->p, v->incl, v->excl, j->by, &j->rows, &j->n) == PK_OK;
    return NULL;
}

static unsigned workers(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_WORKERS ? MAX_WORKERS : (unsigned)n;
}

/* Run jobs[0..n) on up to workers() threads at a time. */
static void run_all(job *jobs, size_t n)
{
    pthread_t t[MAX_WORKERS];
    int started[MAX_WORKERS];
    unsigned w = workers();
    for (size_t at = 0; at < n; at += w) {
        size_t k = n - at < w ? n - at : w;
        for (size_t i = 0; i < k; i++) /* one in this thread if no thread can start */
            started[i] = k > 1 && pthread_create(&t[i], NULL, run, &jobs[at + i]) == 0;
        for (size_t i = 0; i < k; i++)
            if (!started[i]) run(&jobs[at + i]);
        for (size_t i = 0; i < k; i++)
            if (started[i]) pthread_join(t[i], NULL);
    }
}

void pkv_flat_prefetch(pkv_session *s, int side, const pk_index *metrics, size_t n,
                       const char *location, pk_across stat, pk_group_by by)
{
    const pk_profile *p = s->side[side].p;
    pk_cg_summary cg;
    if (n < 2 || (stat == PK_ACROSS_SUM && pk_callgraph_summary(p, &cg) == PK_OK))
        return; /* one metric gains nothing; a call graph's rows are cheap */
    job *jobs = calloc(n, sizeof *jobs);
    size_t k = 0;
    for (size_t i = 0; jobs && i < n; i++) {
        int dup = 0;
        for (size_t m = 0; m < k; m++)
            dup |= jobs[m].metric == metrics[i];
        if (dup || pkv_flat_cached(s, side, metrics[i], location, stat, by)) continue;
        const pkv_tree *t = pkv_values_cached(s, side, metrics[i], location, stat);
        jobs[k++] = (job){p, metrics[i], location, stat, by, t ? &t->vals : NULL};
    }
    if (k > 1) run_all(jobs, k);
    for (size_t i = 0; i < k; i++) /* before any put below can evict a cached tree */
        jobs[i].total = jobs[i].cached ? jobs[i].cached->total : jobs[i].vals.total;
    for (size_t i = 0; i < k; i++) {
        job *j = &jobs[i];
        double total = j->total;
        if (k > 1 && j->ok) /* the rows own nothing of the values: keep both */
            pkv_flat_put(s, side, j->metric, location, stat, by, j->rows, j->n, total),
                j->rows = NULL;
        if (k > 1 && j->ok && !j->cached)
            pkv_values_put(s, side, j->metric, location, stat, &j->vals);
        pk_flat_free(j->rows);
        cli_view_values_free(&j->vals);
    }
    free(jobs);
}
