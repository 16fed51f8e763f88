/*
 * analysis/answer_diff.h — the diff answer's work: each metric's rows on
 * both sides (answer_diff.c) and the tables made of them (answer_diff_rows.c).
 */
#ifndef PK_ANALYSIS_ANSWER_DIFF_H
#define PK_ANALYSIS_ANSWER_DIFF_H

#include "analysis/qry.h"

typedef struct pkq_diff_side {
    pk_index metric;
    pk_metric met;
    double total; /* in A's unit */
    pk_number_format nf;
    int has_self;
    pk_frame *frames;
    size_t n_frames;
} pkq_diff_side;

/* One metric compared: both sides, the function and path rows. */
typedef struct pkq_diff_rows {
    pkq_diff_side a, b;
    double scale; /* B's values x scale are in A's unit */
    int exact;    /* function rows from both sides' call graphs */
    pk_diff_row *fr, *pr;
    size_t nf, np;
} pkq_diff_rows;

/* Functions and call arcs of both sides' call graphs (answer_diff_arcs.c). */
typedef struct pkq_diff_arcs pkq_diff_arcs;

typedef struct pkq_diff_work {
    pk_session *sa, *sb;
    const pk_query *q;
    pkq_diff_arcs *arcs; /* either side a call graph: rows of functions and
                            call arcs; NULL: of functions and calling paths */
    pkq_columns cols;
    size_t main;         /* the base of the first column: the tables' metric */
    pkq_diff_rows *base; /* per base metric */
    pk_diff_answer *a;
    pk_arena arena;
} pkq_diff_work;

/* Column c's values in A and B of row r of the main metric. */
void pkq_diff_values(const pkq_diff_work *w, size_t c, const pk_diff_row *r, int paths,
                     int inclusive, double *a, double *b);
/* The answer from the rows: head, totals, the tables' shown rows. */
pk_status pkq_diff_fill(pkq_diff_work *w);
/* The main metric's frames into the answer (freed from r), the arena
 * handed to it. */
pk_status pkq_diff_keep_frames(pkq_diff_work *w, pkq_diff_rows *r);

/* ---- answer_diff_arcs.c: where either side is a call graph ---- */

/* Are the rows of functions and call arcs (not calling paths)? Either
 * side has a call graph, the query needs no tree (no focus, hide or
 * statistic) and every metric compared (B's: mb, per base) is an event of
 * both sides' call graphs (a tree's exact one: summed metrics). */
int pkq_diff_arcs_apply(const pkq_diff_work *w, const pk_index *mb);
/* Both sides' call graphs over the query's locations, the table of
 * function names and of arcs (w->arcs). */
pk_status pkq_diff_arcs_build(pkq_diff_work *w);
void pkq_diff_arcs_free(pkq_diff_arcs *x);
/* One metric's rows (r->a, r->b and r->scale set): fr of functions
 * (a, b: name keys), pr of arcs (a, b: arc keys; self = inclusive), settled. */
pk_status pkq_diff_arcs_rows(const pkq_diff_arcs *x, pk_index ma, pk_index mb, pkq_diff_rows *r);
/* Which sides are call graphs of their own (1 A, 2 B; else a tree's). */
int pkq_diff_arcs_graphs(const pkq_diff_arcs *x);
/* The name of a function key, the ends of an arc key. */
const char *pkq_diff_arcs_function(const pkq_diff_arcs *x, pk_index key);
void pkq_diff_arcs_ends(const pkq_diff_arcs *x, pk_index arc, const char **caller,
                        const char **callee);

#endif
