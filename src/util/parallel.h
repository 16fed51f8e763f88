/*
 * util/parallel.h — splitting a loop over items across a few threads.
 *
 * Whole-profile scans (validating value blocks, column totals) are loops
 * over independent items (profiles, contexts) of very unequal size. The
 * items are cut into one contiguous range per worker with about equal
 * total weight (bytes), so each worker streams through its own part of
 * the file. Contiguous ranges also keep results deterministic: a caller
 * merges per-worker results in worker order. Small jobs run on the
 * calling thread alone (thread start-up would cost more than it saves).
 */
#ifndef PK_UTIL_PARALLEL_H
#define PK_UTIL_PARALLEL_H

#include <stdint.h>

#define PK_MAX_WORKERS 16

/* fn(user, worker, begin, end) handles items [begin, end). */
typedef void (*pk_range_fn)(void *user, unsigned worker, uint32_t begin, uint32_t end);

/* How many workers a job of `total_weight` bytes deserves (1 for small
 * jobs; otherwise the online CPUs, at most PK_MAX_WORKERS). */
unsigned pk_workers_for(uint64_t total_weight);

/* Run fn over n items split into `workers` ranges by `weight(user, i)`
 * (NULL: equal weights). Falls back to fewer threads (down to running
 * everything on the calling thread) if threads cannot be started. */
void pk_parallel_ranges(unsigned workers, uint32_t n, uint64_t (*weight)(void *user, uint32_t i),
                        pk_range_fn fn, void *user);

#endif
