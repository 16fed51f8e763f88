/*
 * analysis/trace_timeline.c — a trace row drawn in `width` pixels over
 * the window: within a pixel the innermost function with the most time
 * wins (idle time, gaps and filtered time compete as themselves), and
 * runs of pixels with the same winner become one span. Work is the
 * row's intervals plus its pixels; memory the spans written, which are
 * at most `width` per row.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_scan.h"
#include "util/error.h"

#define SPECIAL 3 /* slots 0..2: idle, gap, filtered; 3 + dense id: a function */

struct ts_timeline {
    ts_keymap *keys;
    const ts_paths *paths;
    uint64_t from, to;
    unsigned width;
    double w;        /* ns per pixel */
    double *acc;     /* per slot: time in the current pixel */
    size_t *touched; /* slots with time in it */
    size_t n_touched, cap;
    unsigned cur, last; /* the pixel being filled; the last one closed */
    int have;           /* a pixel is being filled */
    size_t run;         /* slot of the open span */
    unsigned run_from;
    int open;
    pk_trace_span *spans;
    size_t n_spans, cap_spans, row_first;
    int nomem;
};

pk_status ts_timeline_new(ts_keymap *keys, const ts_paths *paths, uint64_t from, uint64_t to,
                          unsigned width, ts_timeline **out)
{
    ts_timeline *tl = calloc(1, sizeof *tl);
    if (!tl) return pk_fail_nomem("drawing a timeline");
    *tl = (ts_timeline){.keys = keys, .paths = paths, .from = from, .to = to, .width = width};
    tl->w = (double)(to - from) / width;
    *out = tl;
    return PK_OK;
}

void ts_timeline_free(ts_timeline *tl)
{
    if (!tl) return;
    free(tl->acc), free(tl->touched), free(tl->spans);
    free(tl);
}

/* Room for slot `s` in the accumulators. */
static int room(ts_timeline *tl, size_t s)
{
    if (s < tl->cap) return 1;
    size_t cap = tl->cap ? tl->cap : 64;
    while (cap <= s)
        cap *= 2;
    double *acc = realloc(tl->acc, cap * sizeof *acc);
    if (acc) tl->acc = acc;
    size_t *t = acc ? realloc(tl->touched, cap * sizeof *t) : NULL;
    if (!acc || !t) return tl->nomem = 1, 0;
    memset(acc + tl->cap, 0, (cap - tl->cap) * sizeof *acc);
    tl->touched = t, tl->cap = cap;
    return 1;
}

static void push_span(ts_timeline *tl, uint64_t b, uint64_t e, int64_t f)
{
    if (tl->n_spans == tl->cap_spans) {
        size_t cap = tl->cap_spans ? 2 * tl->cap_spans : 256;
        pk_trace_span *s = realloc(tl->spans, cap * sizeof *s);
        if (!s) return (void)(tl->nomem = 1);
        tl->spans = s, tl->cap_spans = cap;
    }
    tl->spans[tl->n_spans++] = (pk_trace_span){b, e, f};
}

/* Write the open span, ending at pixel `to` (exclusive). */
static void flush_span(ts_timeline *tl, unsigned to)
{
    if (!tl->open) return;
    uint64_t b = tl->from + (uint64_t)(tl->run_from * tl->w);
    uint64_t e = to >= tl->width ? tl->to : tl->from + (uint64_t)(to * tl->w);
    int64_t f = tl->run >= SPECIAL ? (int64_t)(tl->run - SPECIAL) : -1 - (int64_t)tl->run;
    push_span(tl, b, e, f);
    tl->open = 0;
}

/* Close the current pixel: its winner extends the open span or starts one. */
static void close_pixel(ts_timeline *tl)
{
    if (!tl->have || !tl->n_touched) return;
    size_t best = tl->touched[0];
    for (size_t i = 1; i < tl->n_touched; i++) {
        size_t k = tl->touched[i];
        if (tl->acc[k] > tl->acc[best]) best = k;
    }
    for (size_t i = 0; i < tl->n_touched; i++)
        tl->acc[tl->touched[i]] = 0;
    tl->n_touched = 0;
    if (tl->open && (tl->run != best || tl->last + 1 != tl->cur)) flush_span(tl, tl->last + 1);
    if (!tl->open) tl->open = 1, tl->run = best, tl->run_from = tl->cur;
    tl->last = tl->cur;
}

static void add(ts_timeline *tl, unsigned pixel, size_t slot, double t)
{
    if (!tl->have || pixel != tl->cur) close_pixel(tl), tl->cur = pixel, tl->have = 1;
    if (!room(tl, slot)) return;
    if (tl->acc[slot] == 0) tl->touched[tl->n_touched++] = slot;
    tl->acc[slot] += t;
}

void ts_timeline_row(ts_timeline *tl)
{
    tl->have = 0, tl->open = 0, tl->n_touched = 0;
    tl->row_first = tl->n_spans;
}

void ts_timeline_add(ts_timeline *tl, uint64_t t0, uint64_t t1, int kind, pk_index ctx)
{
    size_t slot = kind == TS_IDLE ? 0 : kind == TS_GAP ? 1 : kind == TS_FILTERED ? 2 : SPECIAL;
    if (kind == TS_RUN) {
        int32_t id = ts_keymap_get(tl->keys, tl->paths, tl->paths->frame[ctx]);
        if (id < 0) return (void)(tl->nomem = 1);
        slot = SPECIAL + (size_t)id;
    }
    double a0 = (double)(t0 - tl->from), a1 = (double)(t1 - tl->from);
    unsigned a = (unsigned)(a0 / tl->w), b = (unsigned)(a1 / tl->w);
    if (a >= tl->width) a = tl->width - 1;
    if (b >= tl->width) b = tl->width - 1;
    for (unsigned k = a; k <= b; k++) {
        double lo = k * tl->w, hi = lo + tl->w;
        double from = a0 > lo ? a0 : lo, to = a1 < hi ? a1 : hi;
        if (to > from) add(tl, k, slot, to - from);
    }
}

pk_status ts_timeline_end_row(ts_timeline *tl, size_t *first, size_t *n)
{
    close_pixel(tl);
    flush_span(tl, tl->last + 1);
    *first = tl->row_first, *n = tl->n_spans - tl->row_first;
    return tl->nomem ? pk_fail_nomem("drawing a timeline") : PK_OK;
}

pk_status ts_timeline_finish(ts_timeline *tl, const int64_t *position, pk_trace_span **spans,
                             size_t *n)
{
    if (tl->nomem) return ts_timeline_free(tl), pk_fail_nomem("drawing a timeline");
    for (size_t i = 0; i < tl->n_spans; i++) {
        int64_t f = tl->spans[i].function;
        if (f >= 0) tl->spans[i].function = position[f] >= 0 ? position[f] : PK_TRACE_SPAN_IDLE;
    }
    *spans = tl->spans, *n = tl->n_spans;
    tl->spans = NULL;
    ts_timeline_free(tl);
    return PK_OK;
}
