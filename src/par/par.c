/*
 * par/par.c — what the parallel builders share (par/par.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "par.h"

#include <time.h>

double par_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void par_clock_start(par_clock *c)
{
    c->wall = par_now(), c->cpu = thread_cpu();
}

void par_lap(par_clock *c, double *wall, double *cpu)
{
    double w = par_now(), u = thread_cpu();
    *wall = w - c->wall, *cpu = u - c->cpu;
    c->wall = w, c->cpu = u;
}

void par_share(const pk_members *m, const uint64_t *bytes, size_t n, size_t *lo, size_t *hi)
{
    uint64_t total = 0, acc = 0;
    for (size_t i = 0; i < n; i++)
        total += bytes[i] + 1; /* +1: empty files count too */
    size_t b = 0, bound[2] = {0, n};
    for (uint32_t k = 1; k <= m->me + 1 && k < m->n; k++) {
        uint64_t target = total / m->n * k + total % m->n * k / m->n;
        while (b < n && acc < target)
            acc += bytes[b++] + 1;
        if (k == m->me) bound[0] = b;
        if (k == m->me + 1) bound[1] = b;
    }
    *lo = bound[0], *hi = bound[1];
}

pk_status par_input_stats(pk_members *m, pk_parallel_stats *ps, uint64_t mine, uint32_t n_inputs)
{
    uint64_t sum = mine, max = mine;
    pk_status st = pk_members_reduce(m, &sum, 1, PK_REDUCE_SUM);
    if (!st) st = pk_members_reduce(m, &max, 1, PK_REDUCE_MAX);
    ps->input_bytes = sum, ps->max_input_bytes = max;
    ps->n_inputs = n_inputs, ps->n_members = m->n;
    return st;
}

void par_collect_sent(pk_members *m, pk_parallel_stats *ps)
{
    uint64_t sum = m->sent, max = m->sent;
    if (pk_members_reduce(m, &sum, 1, PK_REDUCE_SUM) == PK_OK &&
        pk_members_reduce(m, &max, 1, PK_REDUCE_MAX) == PK_OK)
        ps->sent_bytes = sum, ps->max_sent_bytes = max;
}

pk_status par_write(pk_members *m, const pk_profile *p, uint32_t first, uint32_t end,
                    const char *out, const pk_parallel_options *o, hk_par_check check,
                    const void *check_arg, pk_parallel_stats *ps)
{
    pk_write_options wo = {.flags = o->write_flags};
    if (m->me == 0) wo.loss = o->loss, wo.loss_user = o->loss_user;
    ps->n_contexts = p->n_ctx, ps->n_locations = p->n_locs;
    return hk_par_write(m, p, first, end, out, &wo, check, check_arg, o->chunk_bytes, &ps->write);
}
