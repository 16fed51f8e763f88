/*
 * analysis/answer_tree.h — what the tree answer and the answers built on
 * its trees (callers, callees) share: the work of building one (each
 * base metric's nodes and values, the columns evaluated on them) and the
 * shape computed once for every renderer (hot path, ranked children,
 * which nodes the query shows).
 */
#ifndef PK_ANALYSIS_ANSWER_TREE_H
#define PK_ANALYSIS_ANSWER_TREE_H

#include "analysis/qry.h"

/* How a tree's nodes are made from one base metric's values: the frames
 * of the tree at a level (default), or those around a function. *out is
 * malloc'd, the caller's. */
typedef pk_status (*pkq_node_builder)(pk_session *s, const pkq_values *v, pk_tree_level level,
                                      const void *arg, pk_frame **out, size_t *n);

typedef struct pkq_tree_work {
    pk_session *s;
    const pk_query *q;
    pk_tree_level level;
    pkq_node_builder build; /* NULL: the tree itself */
    const void *arg;
    pkq_columns cols;
    pk_arena arena; /* the answer's */
    pk_tree_answer *a;
    pk_frame *nodes; /* malloc'd until pkq_tree_finish() */
    size_t n;
    double **base_in, **base_self;
    unsigned char *base_has_self;
    double *totals;
    pk_number_format *nf;
    /* Thresholds are shares of the root's own value (callers, callees: of
     * the function's inclusive value), not of the total. */
    int share_of_root;
    int fold; /* the tree answer: pass-through chains fold (chains=fold) */
} pkq_tree_work;

/* Nodes, values, columns, calls and shape into w->a. */
pk_status pkq_tree_compute(pkq_tree_work *w);
/* Hot path, ranked children, shown nodes and hidden count. */
pk_status pkq_tree_shape(pkq_tree_work *w);
/* The answer's folded chains (answer_tree_fold.c), once shown and the
 * ranked children are set. Only the tree answer folds (fold set in
 * pkq_tree_work); else a->folded is all 0. */
pk_status pkq_tree_fold(pkq_tree_work *w, const unsigned char *shown);
/* The one shown child of node i, or PK_NONE when it has none or several
 * (a folded frame has exactly one: the frame its run passes calls on to). */
pk_index pkq_tree_only_child(const pk_tree_answer *a, const unsigned char *shown, pk_index i);
/* The folded run drawn in the row of frame i (pk_tree_answer.folded):
 * how many folded frames are straight above it (0: none, and for a folded
 * frame, which is part of a run), and in up[]
 * the names a row shows, bottom up: the nearest two, then the topmost
 * two (a run of up to 4 gives all). The text's "(via N frames: a > b >
 * ... > y > z)" and the JSON's "via" both come from here. */
uint32_t pkq_fold_run(const pk_frame *f, const unsigned char *folded, pk_index i, pk_index up[4]);
/* The nodes into the answer's arena, the level and options set, the
 * arena handed to the answer. */
pk_status pkq_tree_finish(pkq_tree_work *w);

/* The hot path: from the root, the largest child while it holds at least
 * half of its parent; hot[i] set for its nodes (n of them). */
void pkq_mark_hot(const pk_frame *f, size_t n, unsigned char *hot);

#endif
