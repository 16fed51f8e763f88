/*
 * analysis/trace.c — pk_trace_summarize(): one whole trace's time as
 * running, idle and gaps, with each context's running time. The first
 * trace question profkit answered; it is now the trace answer's scan
 * (trace_scan.c) over the whole trace with nothing filtered, so it
 * follows the same rules (profkit/trace.h).
 */
#include <string.h>

#include "model/model.h"
#include "profkit/analysis.h"
#include "trace_scan.h"
#include "util/error.h"

typedef struct summing {
    pk_trace_summary *sum;
    double *by_ctx;
    size_t n_ctx;
} summing;

static void on_interval(void *user, uint64_t t0, uint64_t t1, int kind, pk_index ctx, uint64_t full)
{
    summing *s = user;
    double d = (double)(t1 - t0);
    (void)full;
    if (kind == TS_GAP) {
        s->sum->n_gaps++;
        s->sum->gap_ns += d;
        if (d > s->sum->largest_gap_ns) s->sum->largest_gap_ns = d;
    } else if (kind == TS_IDLE) {
        s->sum->idle_ns += d;
    } else {
        s->sum->running_ns += d;
        if (s->by_ctx && ctx < s->n_ctx) s->by_ctx[ctx] += d;
    }
}

pk_status pk_trace_summarize(const pk_profile *p, pk_index t, double *by_ctx, size_t n_ctx,
                             pk_trace_summary *sum)
{
    pk_trace tr;
    if (!p || !sum || pk_trace_get(p, t, &tr) != PK_OK)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_trace_summarize: no trace %u", t);
    memset(sum, 0, sizeof *sum);
    sum->n_samples = tr.n_samples, sum->begin = tr.time_begin, sum->end = tr.time_end;
    pk_trace_facts f;
    pk_status st = pk_trace_facts_compute(p, t, &f);
    if (st) return st;
    sum->period_ns = f.period_ns, sum->event_based = f.event_based;
    ts_paths whole = {.p = p}; /* nothing filtered: the scan needs no paths */
    summing s = {sum, by_ctx, n_ctx};
    return ts_scan(&whole, t, &f, 0, UINT64_MAX, on_interval, &s, NULL);
}
