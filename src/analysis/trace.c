/*
 * analysis/trace.c — what a trace says about time: how long each location
 * ran in each context, how long it was idle, and where samples are
 * missing.
 *
 * A sample holds from its timestamp until the next one; the last sample of
 * a trace has no known end and counts for nothing. In a sampled trace an
 * interval longer than ten times the median interval is a gap (the
 * sampler stopped, the buffer was lost): it is reported as a gap, not
 * credited to the context before it, so missing data never looks like
 * time spent. A trace with "not running" samples records events (GPU
 * streams: a kernel starts, the stream goes idle): long intervals there
 * are long kernels or idle time, never gaps.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "profkit/analysis.h"

#define GAP_FACTOR   10
#define SAMPLE_CHUNK 4096

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The median interval between consecutive samples (0 with < 2 samples). */
static pk_status median_interval(const pk_profile *p, pk_index t, uint64_t n, uint64_t *out,
                                 int *events)
{
    *out = 0, *events = 0;
    if (n < 2) return PK_OK;
    uint64_t *iv = malloc((n - 1) * sizeof *iv), prev = 0, k = 0;
    pk_sample s[SAMPLE_CHUNK];
    if (!iv) return pk_fail_nomem("summarising a trace");
    for (uint64_t first = 0; first < n;) {
        size_t got = 0;
        pk_trace_samples(p, t, first, SAMPLE_CHUNK, s, &got);
        if (got == 0) break;
        for (size_t i = 0; i < got; i++, first++) {
            if (first > 0) iv[k++] = s[i].time > prev ? s[i].time - prev : 0;
            if (s[i].raw_id == 0) *events = 1;
            prev = s[i].time;
        }
    }
    qsort(iv, k, sizeof *iv, cmp_u64);
    *out = k ? iv[k / 2] : 0;
    free(iv);
    return PK_OK;
}

static void account(pk_trace_summary *sum, const pk_sample *s, uint64_t next, double *by_ctx,
                    size_t n_ctx)
{
    double d = next > s->time ? (double)(next - s->time) : 0;
    if (!sum->event_based && sum->period_ns && d > (double)GAP_FACTOR * (double)sum->period_ns) {
        sum->n_gaps++;
        sum->gap_ns += d;
        if (d > sum->largest_gap_ns) sum->largest_gap_ns = d;
        return;
    }
    if (s->context == PK_NONE) {
        sum->idle_ns += d;
        return;
    }
    sum->running_ns += d;
    if (by_ctx && s->context < n_ctx) by_ctx[s->context] += d;
}

pk_status pk_trace_summarize(const pk_profile *p, pk_index t, double *by_ctx, size_t n_ctx,
                             pk_trace_summary *sum)
{
    pk_trace tr;
    if (!p || !sum || pk_trace_get(p, t, &tr) != PK_OK)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_trace_summarize: no trace %u", t);
    memset(sum, 0, sizeof *sum);
    sum->n_samples = tr.n_samples, sum->begin = tr.time_begin, sum->end = tr.time_end;
    pk_status st = median_interval(p, t, tr.n_samples, &sum->period_ns, &sum->event_based);
    pk_sample buf[SAMPLE_CHUNK + 1];
    uint64_t first = 0;
    size_t have = 0; /* samples in buf, the last kept for its successor */
    while (!st && first < tr.n_samples) {
        size_t got = 0;
        pk_trace_samples(p, t, first, SAMPLE_CHUNK, buf + have, &got);
        if (got == 0) break;
        first += got, have += got;
        for (size_t i = 0; i + 1 < have; i++)
            account(sum, &buf[i], buf[i + 1].time, by_ctx, n_ctx);
        buf[0] = buf[have - 1];
        have = 1;
    }
    return st;
}
