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

typedef struct pkq_diff_work {
    pk_session *sa, *sb;
    const pk_query *q;
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

#endif
