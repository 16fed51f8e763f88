/*
 * formats/callgrind/cgw.h — the Callgrind writer's internals: what is
 * written (write_plan.c: locations, parts, events, their units and
 * scales, what is left out), the summing of a call graph's parts
 * (write_sum.c), and the text itself (write_body.c). write.c ties them
 * together and owns the files.
 */
#ifndef PK_FORMATS_CALLGRIND_CGW_H
#define PK_FORMATS_CALLGRIND_CGW_H

#include <stdio.h>

#include "model/callgraph.h"
#include "profkit/write.h"

/* One event as written. */
typedef struct cgw_event {
    uint32_t src;     /* event index in the call graph written */
    char *name;       /* "events:" name: no blanks, '=', ':' (malloc) */
    const char *orig; /* the metric's name when `name` had to differ, else NULL */
    char *unit;       /* unit of the written values, or NULL (malloc) */
    double scale;     /* written value = model value x scale (integers) */
} cgw_event;

typedef struct cgw {
    const pk_profile *p;
    const pk_write_options *opts;
    pk_write_stats *stats;
    const char *path;
    /* what is written: parts[part_of[k]] goes to file k (one file unless split) */
    const pk_cg *cg;
    pk_cg *own;         /* cg when the writer built it (freed with the writer) */
    const pk_cg *names; /* whose extra function names apply (cg, or the one summed) */
    uint32_t *part_of, n_out;
    uint32_t n_summed; /* locations summed into the one part (0: not a sum) */
    cgw_event *ev;     /* events with data, in "events:" order */
    uint32_t n_ev;
    uint32_t positions; /* PK_POS_INSTR | PK_POS_LINE: what positions: says */
    /* text state */
    FILE *f;
    FILE **out;        /* one stream per file */
    uint8_t *def[3];   /* compressed name defined in this part: files, functions, objects */
    uint8_t *has_line; /* by file: a cost line with a line number in this part */
    uint32_t nfile, nfn, nobj;
    uint32_t cur_fl, cur_fi, cur_obj;
    uint64_t n_values;
} cgw;

/* Event e's self cost of record i, and inclusive cost of call arc i: the
 * only places the writer reads the call graph's cost storage. */
static inline double cgw_self(const pk_cg *cg, uint64_t i, uint32_t e)
{
    return pk_cg_self_value(cg, i, e);
}

static inline double cgw_call(const pk_cg *cg, uint64_t i, uint32_t e)
{
    return pk_cg_call_value(cg, i, e);
}

/* write_plan.c: choose locations and parts, build or sum the call graph,
 * name and scale the events, report what Callgrind cannot hold. */
pk_status cgw_plan(cgw *w);
void cgw_plan_free(cgw *w);

/* write_sum.c: one part holding the sum of in's parts whose location is
 * selected (NULL: all). Events are copied; records of equal key merged.
 * Function numbers are in's: extra functions keep in's names. */
pk_status cgw_sum_parts(const pk_cg *in, const unsigned char *selected, pk_cg **out);

/* write_body.c: each file's part, header to totals, on w->out[k]. */
pk_status cgw_write_parts(cgw *w);

#endif
