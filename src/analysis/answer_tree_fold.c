/*
 * analysis/answer_tree_fold.c — a tree answer's pass-through chains: the
 * loader frames a Callgrind tree starts with (0x...1ab70 > (below main) >
 * __libc_start_main > ...) and every other run of frames that only pass
 * calls on. A shown frame passes calls on when it has exactly one shown
 * child and its own cost, its value less that child's (its self value
 * and what its hidden callees hold), is below the threshold (exactly 0
 * without one) in every column that sums. A run of two or more such frames is folded into the
 * frame below it, which the text shows as "name (via N frames: a > b)",
 * as pprof's default trimming keeps such frames out of sight; the query
 * option chains=show keeps them. Metrics that combine by min or max have
 * no own cost to speak of: nothing folds. One pass, parents first.
 */
#include <math.h>
#include <stdlib.h>

#include "analysis/answer_tree.h"
#include "util/error.h"

pk_index pkq_tree_only_child(const pk_tree_answer *a, const unsigned char *shown, pk_index i)
{
    pk_index one = PK_NONE;
    for (size_t c = a->child_start[i]; c < a->child_start[i + 1]; c++) {
        pk_index k = a->children[c];
        if (!shown[k]) continue;
        if (one != PK_NONE) return PK_NONE;
        one = k;
    }
    return one;
}

/* Does node i only pass calls on to its one shown child, in every
 * column that sums (a further metric's own cost keeps the frame in sight;
 * derived and min/max columns have no own cost to weigh)? `share` is the
 * threshold as a fraction (0: what rounding leaves of nothing). */
static int passes_on(const pkq_tree_work *w, const unsigned char *shown, pk_index i, double share)
{
    const pk_tree_answer *a = w->a;
    pk_index c = pkq_tree_only_child(a, shown, i);
    if (c == PK_NONE) return 0;
    for (size_t k = 0; k < a->head.n_columns; k++) {
        const pk_answer_column *col = &a->head.columns[k];
        if (!col->percent || col->expression) continue;
        double in = a->inclusive[k][i], below = a->inclusive[k][c];
        double limit = (share > 0 ? share * (1 - 1e-12) : 1e-12) * fabs(col->total);
        if (isnan(in) || isnan(below) || isnan(col->total) || !(fabs(in - below) <= limit))
            return 0;
    }
    return 1;
}

uint32_t pkq_fold_run(const pk_frame *f, const unsigned char *folded, pk_index i, pk_index up[4])
{
    uint32_t n = 0;
    /* a folded frame is drawn in the row below its run and names no run of
     * its own: each run is walked once, by the frame below it, and a tree
     * that folds 100 000 frames in one run stays linear */
    if (!folded || folded[i]) return 0;
    for (pk_index k = f[i].parent; k != PK_NONE && folded[k]; k = f[k].parent, n++) {
        if (n >= 4) up[2] = up[3];
        up[n < 4 ? n : 3] = k;
    }
    return n;
}

pk_status pkq_tree_fold(pkq_tree_work *w, const unsigned char *shown)
{
    pk_tree_answer *a = w->a;
    size_t n = w->n, folded = 0;
    unsigned char *fold = pk_arena_alloc(&w->arena, n ? n : 1);
    unsigned char *pass = calloc(n ? n : 1, 1);
    if (!fold || !pass) return free(pass), pk_fail_nomem("a tree's chains");
    a->folded = fold;
    const pk_answer_column *c0 = &a->head.columns[0];
    if (!w->fold || !w->q->fold_chains || w->level == PK_LEVEL_LINES || !c0->percent ||
        c0->expression || w->share_of_root)
        return free(pass), PK_OK;
    double share = w->q->threshold > 0 ? w->q->threshold / 100.0 : 0;
    for (size_t i = 1; i < n; i++)
        pass[i] = shown[i] && passes_on(w, shown, (pk_index)i, share);
    /* runs: a passing node whose parent does not pass starts one */
    for (size_t i = 1; i < n; i++) {
        pk_index up = w->nodes[i].parent;
        if (!pass[i] || (up != PK_NONE && up < n && pass[up])) continue;
        size_t len = 0;
        for (pk_index k = (pk_index)i; k != PK_NONE && pass[k];
             k = pkq_tree_only_child(a, shown, k))
            len++;
        if (len < 2) continue; /* one frame is as short as a note about it */
        for (pk_index k = (pk_index)i; k != PK_NONE && pass[k];
             k = pkq_tree_only_child(a, shown, k))
            fold[k] = 1, folded++;
    }
    free(pass);
    a->n_folded = folded;
    if (!folded) return PK_OK;
    return pkq_note(&a->head, &w->arena, "folded",
                    "%zu frame%s that only pass%s calls on (one callee, own cost below the "
                    "threshold) drawn in the row of the frame below, after 'via'; chains=show "
                    "(tree --show-chains) draws them",
                    folded, folded == 1 ? "" : "s", folded == 1 ? "es" : "");
}
