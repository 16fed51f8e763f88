/*
 * util/parallel.c — splitting a loop over items across a few threads.
 */
#define _POSIX_C_SOURCE 200809L
#include "parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* Below this much data one thread is fast enough (about 5 ms of work). */
#define PARALLEL_MIN_WEIGHT (16ull << 20)

unsigned pk_workers_for(uint64_t total_weight)
{
    if (total_weight < PARALLEL_MIN_WEIGHT) return 1;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) return 1;
    return n > PK_MAX_WORKERS ? PK_MAX_WORKERS : (unsigned)n;
}

typedef struct job {
    pk_range_fn fn;
    void *user;
    unsigned worker;
    uint32_t begin, end;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    j->fn(j->user, j->worker, j->begin, j->end);
    return NULL;
}

/* Cut [0, n) into `workers` ranges of about equal weight. */
static void split(unsigned workers, uint32_t n, uint64_t (*weight)(void *, uint32_t), void *user,
                  uint32_t *bounds)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += weight ? weight(user, i) + 1 : 1;
    bounds[0] = 0;
    uint64_t acc = 0;
    uint32_t i = 0;
    for (unsigned w = 1; w < workers; w++) {
        uint64_t target = total / workers * w;
        while (i < n && acc < target)
            acc += weight ? weight(user, i++) + 1 : (i++, 1);
        bounds[w] = i;
    }
    bounds[workers] = n;
}

void pk_parallel_ranges(unsigned workers, uint32_t n, uint64_t (*weight)(void *user, uint32_t i),
                        pk_range_fn fn, void *user)
{
    if (workers < 1) workers = 1;
    if (workers > PK_MAX_WORKERS) workers = PK_MAX_WORKERS;
    if (workers > n) workers = n ? n : 1;
    uint32_t bounds[PK_MAX_WORKERS + 1];
    split(workers, n, weight, user, bounds);
    job jobs[PK_MAX_WORKERS];
    pthread_t threads[PK_MAX_WORKERS];
    int started[PK_MAX_WORKERS] = {0};
    for (unsigned w = 0; w < workers; w++)
        jobs[w] = (job){fn, user, w, bounds[w], bounds[w + 1]};
    for (unsigned w = 1; w < workers; w++)
        started[w] = pthread_create(&threads[w], NULL, run_job, &jobs[w]) == 0;
    run_job(&jobs[0]);
    for (unsigned w = 1; w < workers; w++) {
        if (started[w])
            pthread_join(threads[w], NULL);
        else
            run_job(&jobs[w]); /* could not start a thread: do its share here */
    }
}
