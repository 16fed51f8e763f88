/*
 * analysis/cg_queue.c — candidates of the reconstructed tree in weight
 * buckets (cg_queue.h).
 */
#include "cg_queue.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define SUB     8       /* buckets per power of two */
#define EXP_MIN (-1080) /* below the smallest subnormal exponent */
#define N_BUCK  ((1100 - EXP_MIN) * SUB)
#define NONE    0xffffffffu

/* The bucket of w > 0: its binary exponent and top mantissa bits. A
 * normal double's bits hold exactly those, in order: bits >> 49 is
 * (biased exponent) * 8 + top 3 mantissa bits, and (e - EXP_MIN) * SUB +
 * top bits with frexp's e = biased - 1022 is that plus 58 * SUB. */
static int bucket_of(double w)
{
    uint64_t bits;
    memcpy(&bits, &w, sizeof bits);
    if (bits >> 52) { /* normal (w > 0: the sign bit is clear) */
        uint64_t b = (bits >> 49) + 58 * SUB;
        return b >= N_BUCK ? N_BUCK - 1 : (int)b;
    }
    int e;                   /* subnormal: frexp normalizes it */
    double m = frexp(w, &e); /* w = m * 2^e, m in [0.5, 1) */
    int b = (e - EXP_MIN) * SUB + (int)((m - 0.5) * 2 * SUB);
    return b < 0 ? 0 : b >= N_BUCK ? N_BUCK - 1 : b;
}

pk_status cgq_init(cg_queue *q)
{
    memset(q, 0, sizeof *q);
    q->bucket = calloc(N_BUCK, sizeof *q->bucket);
    if (!q->bucket) return pk_fail_nomem("reconstructing the calling-context tree");
    q->top = -1;
    return PK_OK;
}

void cgq_free(cg_queue *q)
{
    for (int b = 0; q->bucket && b < N_BUCK; b++)
        free(q->bucket[b].items);
    free(q->bucket);
    memset(q, 0, sizeof *q);
}

pk_status cgq_push(cg_queue *q, double w, double phi, uint32_t parent, uint32_t target, uint32_t ua)
{
    if (!(w > 0) || !isfinite(w)) return PK_OK;
    int b = bucket_of(w);
    if (b < q->floor) return PK_OK; /* a trim showed it can never be taken */
    cgq_bucket *k = &q->bucket[b];
    if (k->n == k->cap) {
        if (k->cap >= NONE / 2) return pk_fail_nomem("reconstructing the calling-context tree");
        uint32_t cap = k->cap ? 2 * k->cap : 16;
        cgq_item *a = realloc(k->items, (size_t)cap * sizeof *a);
        if (!a) return pk_fail_nomem("reconstructing the calling-context tree");
        k->items = a, k->cap = cap;
    }
    k->items[k->n++] = (cgq_item){parent, target, ua, phi};
    q->live++;
    if (b > q->top) q->top = b;
    return PK_OK;
}

/* Lower q->top to the highest non-empty bucket. */
static void settle_top(cg_queue *q)
{
    while (q->top >= 0 && q->bucket[q->top].n == 0)
        q->top--;
}

int cgq_pop(cg_queue *q, cgq_item *out)
{
    settle_top(q);
    if (q->top < 0) return 0;
    cgq_bucket *k = &q->bucket[q->top];
    *out = k->items[--k->n];
    q->live--;
    return 1;
}

double cgq_top_weight(cg_queue *q)
{
    settle_top(q);
    if (q->top < 0) return 0;
    int e = q->top / SUB + EXP_MIN, s = q->top % SUB;
    return ldexp(0.5 + (double)s / (2 * SUB), e);
}

void cgq_trim(cg_queue *q, uint64_t keep, int raise_floor)
{
    uint64_t kept = 0;
    int b = q->top;
    for (; b >= 0 && kept < keep; b--)
        kept += q->bucket[b].n;
    if (raise_floor && b + 1 > q->floor) q->floor = b + 1;
    /* every bucket from here down goes, its array with it (the floor
     * keeps new items out of these buckets) */
    for (; b >= 0 && q->live; b--) {
        cgq_bucket *k = &q->bucket[b];
        q->live -= k->n;
        free(k->items);
        *k = (cgq_bucket){NULL, 0, 0};
    }
}
