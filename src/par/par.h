/*
 * par/par.h — what the parallel builders (par/build.c, par/merge.c)
 * share: shares of inputs, statistics, the write.
 */
#ifndef PK_PAR_PAR_H
#define PK_PAR_PAR_H

#include <stddef.h>
#include <stdint.h>

#include "formats/hpctoolkit/write_par.h"
#include "profkit/parallel.h"
#include "util/team.h"

double par_now(void);
/* Wall and this thread's CPU seconds of a phase (lap: since the last lap,
 * or the start). */
typedef struct par_clock {
    double wall, cpu;
} par_clock;
void par_clock_start(par_clock *c);
void par_lap(par_clock *c, double *wall, double *cpu);
/* This member's share [*lo, *hi) of n inputs of the given sizes: one
 * contiguous run per member, of about equal bytes, in member order. */
void par_share(const pk_members *m, const uint64_t *bytes, size_t n, size_t *lo, size_t *hi);
/* Input sizes over all members into ps (collective). */
pk_status par_input_stats(pk_members *m, pk_parallel_stats *ps, uint64_t mine, uint32_t n_inputs);
/* Bytes sent, over all members (collective). */
void par_collect_sent(pk_members *m, pk_parallel_stats *ps);
/* hk_par_write with the options of a parallel build (the loss callback
 * on member 0 only); fills ps's write statistics and counts. */
pk_status par_write(pk_members *m, const pk_profile *p, uint32_t first, uint32_t end,
                    const char *out, const pk_parallel_options *o, hk_par_check check,
                    const void *check_arg, pk_parallel_stats *ps);

#endif
