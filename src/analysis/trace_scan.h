/*
 * analysis/trace_scan.h — what every trace question shares: the call
 * paths of contexts as chains of frames, the focus/hide marks, the
 * window and location selection, and one scan that turns a trace's
 * samples into timed intervals, each classified once (running, idle, gap,
 * filtered). The summary (trace_answer.c), the timeline
 * (trace_timeline.c) and the Chrome export (trace_chrome.c) are visitors
 * of that scan, so they cannot disagree about a nanosecond.
 */
#ifndef PK_ANALYSIS_TRACE_SCAN_H
#define PK_ANALYSIS_TRACE_SCAN_H

#include <stdint.h>

#include "profkit/trace.h"

/* An interval's kind. */
enum { TS_RUN = 0, TS_IDLE = 1, TS_GAP = 2, TS_FILTERED = 3 };

/* Frames: a context's frame is its nearest function context (itself or
 * an ancestor), or itself when no function encloses it. A frame's key
 * says which function it is: the function index, or n_functions + the
 * context index for a frame that is no function's. */
typedef struct ts_paths {
    const pk_profile *p;
    size_t n_ctx, n_functions, n_keys;
    pk_index *frame;    /* per context: its frame */
    pk_index *up;       /* per frame context: the frame above it, PK_NONE at the top */
    uint32_t *key;      /* per frame context: its key */
    unsigned char *out; /* per context: 1 when focus/hide leaves it out (NULL: none) */
    uint32_t max_depth; /* frames on the longest path */
} ts_paths;

/* Build the paths, and the focus/hide marks when either is given. */
pk_status ts_paths_build(const pk_profile *p, const char *focus, const char *hide, ts_paths *out);
void ts_paths_free(ts_paths *t);

/* The selection resolved: the window and the chosen traces, in trace order. */
typedef struct ts_select {
    uint64_t origin, begin, end; /* the traces' range; origin = begin */
    uint64_t from, to;           /* the window [from, to) */
    pk_index *traces;
    size_t n_traces;
} ts_select;

/* Resolve `sel` (NULL: all) on p. The errors of pk_trace_answer_compute. */
pk_status ts_select_resolve(const pk_profile *p, const pk_trace_selection *sel, ts_select *out);
void ts_select_free(ts_select *s);

/* One interval [t0, t1) of a trace, clipped to the window, of positive
 * length; ctx is the sample's context (PK_NONE when not running); full
 * is the interval's whole length (a gap is judged by it). */
typedef void (*ts_visit_fn)(void *user, uint64_t t0, uint64_t t1, int kind, pk_index ctx,
                            uint64_t full);

/* Visit the intervals of trace t inside [from, to) in time order;
 * *window_samples (may be NULL) gets the samples timed inside. Pages of
 * the mapped trace are given back behind the scan, so its resident
 * memory stays small however long the trace. */
pk_status ts_scan(const ts_paths *paths, pk_index t, const pk_trace_facts *facts, uint64_t from,
                  uint64_t to, ts_visit_fn visit, void *user, uint64_t *window_samples);

/* Give back the pages of a trace's samples the process has mapped (they
 * stay in the page cache): a scan's last step, so bisection's probes and
 * the kernel's fault-around leave nothing resident either. */
struct pk_trace_rec;
void ts_release(const pk_profile *p, const struct pk_trace_rec *tr);

/* The facts of trace t: from `cache` when valid there (cache may be
 * NULL), else computed (and stored when cache is given). */
pk_status ts_facts(const pk_profile *p, pk_index t, pk_trace_facts *cache, pk_trace_facts *out);

/* Gap rule: an interval of `d` ns in a sampled trace of median interval
 * `period` is a gap when longer than ten periods. */
static inline int ts_is_gap(const pk_trace_facts *f, uint64_t d)
{
    if (f->event_based || f->period_ns == 0) return 0;
    return f->period_ns > UINT64_MAX / 10 ? 0 : d > 10 * f->period_ns;
}

/* Where frame context f's function is: module and file paths (NULL when
 * unknown) and line (0 when unknown): the function's own where the
 * profile knows them, else the context's. The JSON answer and the Chrome
 * export say the same. */
void ts_frame_place(const pk_profile *p, pk_index f, const char **module, const char **file,
                    uint32_t *line);

/* Dense ids for the keys a question meets (a profile may have millions
 * of contexts and a window a few hundred functions). */
typedef struct ts_keymap {
    int32_t *id;    /* per key: its dense id, -1 before it is met */
    uint32_t *key;  /* per dense id: the key */
    pk_index *name; /* per dense id: the frame context that names it */
    size_t n, cap;
} ts_keymap;
pk_status ts_keymap_init(ts_keymap *m, size_t n_keys);
/* The dense id of frame f's key (-1 when out of memory). */
int32_t ts_keymap_get(ts_keymap *m, const ts_paths *paths, pk_index f);
void ts_keymap_free(ts_keymap *m);

/* The timeline (trace_timeline.c): pixels of one row at a time, spans
 * appended to the answer's array; span functions are dense key ids
 * (>= 0) or PK_TRACE_SPAN_* until ts_timeline_finish maps the ids. */
typedef struct ts_timeline ts_timeline;
pk_status ts_timeline_new(ts_keymap *keys, const ts_paths *paths, uint64_t from, uint64_t to,
                          unsigned width, ts_timeline **out);
void ts_timeline_row(ts_timeline *tl);
void ts_timeline_add(ts_timeline *tl, uint64_t t0, uint64_t t1, int kind, pk_index ctx);
/* End the row; its spans are [*first, *first + *n) of the spans so far. */
pk_status ts_timeline_end_row(ts_timeline *tl, size_t *first, size_t *n);
/* Hand the spans over with their dense ids mapped through position[]
 * (dense id -> index in the functions array, -1: none); frees tl. */
pk_status ts_timeline_finish(ts_timeline *tl, const int64_t *position, pk_trace_span **spans,
                             size_t *n);
void ts_timeline_free(ts_timeline *tl);

#endif
