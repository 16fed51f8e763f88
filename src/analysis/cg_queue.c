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

/* Free a chain of blocks; the items they held. */
static uint64_t free_chain(cgq_block *k)
{
    uint64_t n = 0;
    while (k) {
        cgq_block *below = k->below;
        n += k->n;
        free(k);
        k = below;
    }
    return n;
}

void cgq_free(cg_queue *q)
{
    for (int b = 0; q->bucket && b < N_BUCK; b++)
        free_chain(q->bucket[b]);
    free_chain(q->spare);
    free(q->bucket);
    memset(q, 0, sizeof *q);
}

/* A block for bucket b's stack, on top of the full one there (or none). */
static cgq_block *new_top(cg_queue *q, int b)
{
    cgq_block *k = q->spare;
    if (k)
        q->spare = k->below;
    else if (!(k = malloc(sizeof *k)))
        return NULL;
    k->below = q->bucket[b];
    k->n = 0;
    return q->bucket[b] = k;
}

pk_status cgq_push(cg_queue *q, double w, double phi, uint32_t parent, uint32_t target, uint32_t ua)
{
    if (!(w > 0) || !isfinite(w)) return PK_OK;
    int b = bucket_of(w);
    if (b < q->floor) return PK_OK; /* a trim showed it can never be taken */
    cgq_block *k = q->bucket[b];
    if ((!k || k->n == CGQ_BLOCK_ITEMS) && !(k = new_top(q, b)))
        return pk_fail_nomem("reconstructing the calling-context tree");
    k->items[k->n++] = (cgq_item){parent, target, ua, phi};
    q->live++;
    if (b > q->top) q->top = b;
    return PK_OK;
}

/* Lower q->top to the highest non-empty bucket. */
static void settle_top(cg_queue *q)
{
    while (q->top >= 0 && !q->bucket[q->top])
        q->top--;
}

int cgq_pop(cg_queue *q, cgq_item *out)
{
    settle_top(q);
    if (q->top < 0) return 0;
    cgq_block *k = q->bucket[q->top];
    *out = k->items[--k->n];
    q->live--;
    if (!k->n) { /* emptied: off the stack, kept for a later push */
        q->bucket[q->top] = k->below;
        k->below = q->spare;
        q->spare = k;
    }
    return 1;
}

double cgq_top_weight(cg_queue *q)
{
    settle_top(q);
    if (q->top < 0) return 0;
    int e = q->top / SUB + EXP_MIN, s = q->top % SUB;
    return ldexp(0.5 + (double)s / (2 * SUB), e);
}

/* Items in bucket b. */
static uint64_t bucket_items(const cg_queue *q, int b)
{
    uint64_t n = 0;
    for (const cgq_block *k = q->bucket[b]; k; k = k->below)
        n += k->n;
    return n;
}

void cgq_trim(cg_queue *q, uint64_t keep, int raise_floor)
{
    uint64_t kept = 0;
    int b = q->top;
    for (; b >= 0 && kept < keep; b--)
        kept += bucket_items(q, b);
    if (raise_floor && b + 1 > q->floor) q->floor = b + 1;
    /* every bucket from here down goes, its blocks with it (the floor
     * keeps new items out of these buckets; freed, not kept spare: what
     * a trim drops is most of the queue, and the tree grows meanwhile) */
    for (; b >= 0 && q->live; b--) {
        q->live -= free_chain(q->bucket[b]);
        q->bucket[b] = NULL;
    }
}
