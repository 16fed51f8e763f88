/*
 * analysis/answer_callers.h — the callers and callees answer's two ways:
 * from a calling-context tree (answer_callers.c) and from a call graph's
 * own lists (answer_callers_cg.c).
 */
#ifndef PK_ANALYSIS_ANSWER_CALLERS_H
#define PK_ANALYSIS_ANSWER_CALLERS_H

#include "analysis/qry.h"

typedef struct pkq_callers_work {
    pk_session *s;
    const pk_query *q;
    int callees;
    const char *pattern;
    pkq_columns cols;
    pk_callers_answer *a;
    pk_arena arena;
} pkq_callers_work;

pk_status pkq_callers_from_tree(pkq_callers_work *w);
/* The block's function's module and file (strings of the profile). */
void pkq_block_place(const pk_profile *p, pk_callers_block *b);
pk_status pkq_callers_from_callgraph(pkq_callers_work *w);

#endif
