/*
 * analysis/cg_queue.h — the candidate nodes of the reconstructed tree,
 * heaviest first (cg_to_cct.c builds the tree best first).
 *
 * A binary heap of millions of candidates spends its time in cache
 * misses; here candidates go into buckets of weights within a factor
 * 2^(1/8) of each other (from the weight's binary exponent and top
 * mantissa bits), each a stack: pushing and popping are O(1) and touch
 * the end of one bucket's stack (a stack linked through one shared array
 * of items was a cache miss per pop), and "heaviest first" holds to
 * within 9 %, which is all a budget of nodes needs. Candidates that can
 * no longer be taken within the budget are dropped whole buckets at a
 * time.
 *
 * A bucket's stack is a chain of fixed blocks, not one array: an array
 * grown by doubling copied its items at every step and took fresh
 * memory for each copy (cc1: 100 MB of reallocations for a million
 * candidates, and on a virtual machine each fresh page is a dear fault),
 * where a chain never moves an item, and a block that empties is kept
 * for the next push that needs one.
 */
#ifndef PK_ANALYSIS_CG_QUEUE_H
#define PK_ANALYSIS_CG_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "profkit/status.h"

typedef struct cgq_item {
    uint32_t parent, target, ua;
    double phi; /* the share the node will have: its parent's is not looked up when taken */
} cgq_item;

#define CGQ_BLOCK_ITEMS 170 /* a block of 4 KiB */

typedef struct cgq_block {
    struct cgq_block *below; /* the bucket's next block down, all full */
    uint32_t n;              /* items here; a block in a bucket is never empty */
    cgq_item items[CGQ_BLOCK_ITEMS];
} cgq_block;

typedef struct cg_queue {
    cgq_block **bucket; /* per bucket its top block (the last pushed is taken first), or NULL */
    cgq_block *spare;   /* emptied blocks, linked through `below` */
    int top;            /* no bucket above it holds an item */
    int floor;          /* buckets below it can never be taken: no push goes there */
    uint64_t live;      /* items in the buckets */
} cg_queue;

pk_status cgq_init(cg_queue *q);
void cgq_free(cg_queue *q);
/* Add a candidate of weight w (w > 0, finite; others are not added). */
pk_status cgq_push(cg_queue *q, double w, double phi, uint32_t parent, uint32_t target,
                   uint32_t ua);
/* Take a candidate of the heaviest bucket: 1, or 0 when empty. */
int cgq_pop(cg_queue *q, cgq_item *out);
/* Weight of the heaviest candidate's bucket (its lower bound), 0 if empty. */
double cgq_top_weight(cg_queue *q);
/* Drop the lightest buckets, keeping at least `keep` candidates (whole
 * buckets): the dropped could only be taken after `keep` others. With
 * raise_floor, candidates pushed into those buckets later are not kept
 * either (right when at most `keep` more will ever be taken; a caller that
 * looks at what is left in the queue in the end must not raise it). */
void cgq_trim(cg_queue *q, uint64_t keep, int raise_floor);

#endif
