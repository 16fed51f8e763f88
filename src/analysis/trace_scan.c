/*
 * analysis/trace_scan.c — the call paths of contexts as chains of frames,
 * focus/hide marks on them, and the one scan of a trace's samples that
 * every trace question visits (trace_scan.h).
 *
 * The paths are built in one pass over the contexts (stored breadth-first,
 * so a parent comes before its children) and cost O(contexts), never
 * O(samples). The scan reads the trace's 12-byte records in place and
 * gives their pages back behind it (madvise: they stay in the page
 * cache), so a trace of any length is read in a few megabytes.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "profkit/pattern.h"
#include "trace_scan.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/mapfile.h"

static int is_function(const pk_profile *p, pk_index c)
{
    return p->ctx[c].kind == PK_CTX_FUNCTION;
}

/* frame[], up[], key[] and the deepest path, in one pass. */
static pk_status build_frames(ts_paths *t)
{
    const pk_profile *p = t->p;
    uint32_t *depth = malloc((t->n_ctx ? t->n_ctx : 1) * sizeof *depth);
    if (!depth) return pk_fail_nomem("following call paths");
    for (pk_index c = 0; c < t->n_ctx; c++) {
        pk_index parent = p->ctx[c].parent;
        /* the nearest function context above c (a pseudo frame is none) */
        pk_index above =
            parent < c && is_function(p, t->frame[parent]) ? t->frame[parent] : PK_NONE;
        if (is_function(p, c) || above == PK_NONE) {
            t->frame[c] = c; /* a function, or a context no function encloses */
            t->up[c] = is_function(p, c) ? above : PK_NONE;
            uint32_t fn = p->ctx[c].function;
            t->key[c] =
                is_function(p, c) && fn < t->n_functions ? fn : (uint32_t)(t->n_functions + c);
            depth[c] = t->up[c] == PK_NONE ? 1 : depth[t->up[c]] + 1;
            if (depth[c] > t->max_depth) t->max_depth = depth[c];
        } else {
            t->frame[c] = above;
            t->up[c] = PK_NONE, t->key[c] = UINT32_MAX, depth[c] = 0;
        }
    }
    free(depth);
    return PK_OK;
}

typedef struct matcher {
    pk_pattern *re; /* bounded in time and memory (util/pattern.c) */
    int on;
    signed char *by_function; /* -1 not tried, else 0/1: names repeat per function */
    pk_status st;             /* a match that failed: its time limit */
} matcher;

static pk_status matcher_init(const ts_paths *t, matcher *m, const char *expr, const char *what)
{
    memset(m, 0, sizeof *m);
    if (!expr || !*expr) return PK_OK;
    pk_status st = pk_pattern_compile(expr, 0, &m->re);
    if (st) return pk_fail(st, "%s: %s", what, pk_error_last());
    m->on = 1;
    m->by_function = malloc(t->n_functions ? t->n_functions : 1);
    if (!m->by_function) {
        pk_pattern_free(m->re);
        m->re = NULL;
        m->on = 0;
        return pk_fail_nomem("matching function names");
    }
    memset(m->by_function, -1, t->n_functions);
    return PK_OK;
}

static void matcher_free(matcher *m)
{
    pk_pattern_free(m->re);
    free(m->by_function);
}

/* Does the name of frame f match? Names are whole however long. */
static int frame_matches(const ts_paths *t, matcher *m, pk_index f)
{
    uint32_t key = t->key[f];
    if (key < t->n_functions && m->by_function[key] >= 0) return m->by_function[key];
    char small[512], *name = small;
    size_t need = pk_context_name(t->p, f, small, sizeof small);
    if (need >= sizeof small && (name = malloc(need + 1)) != NULL)
        pk_context_name(t->p, f, name, need + 1);
    const char *s = name ? name : small;
    int hit = 0;
    if (!m->st) m->st = pk_pattern_match(m->re, s, strlen(s), &hit);
    if (name != small) free(name);
    if (key < t->n_functions) m->by_function[key] = (signed char)hit;
    return hit;
}

/* on_path[f] for every frame f: f or a frame above it matches. */
static void mark_paths(const ts_paths *t, matcher *m, unsigned char *on_path)
{
    for (pk_index c = 0; c < t->n_ctx; c++) {
        if (t->frame[c] != c) continue;
        pk_index up = t->up[c];
        on_path[c] = (up != PK_NONE && on_path[up]) || frame_matches(t, m, c);
    }
}

static pk_status build_marks(ts_paths *t, const char *focus, const char *hide)
{
    matcher mf, mh;
    pk_status st = matcher_init(t, &mf, focus, "focus");
    if (!st)
        st = matcher_init(t, &mh, hide, "hide");
    else
        memset(&mh, 0, sizeof mh);
    if (st || (!mf.on && !mh.on)) {
        matcher_free(&mf), matcher_free(&mh);
        return st;
    }
    size_t n = t->n_ctx ? t->n_ctx : 1;
    unsigned char *in_focus = mf.on ? calloc(n, 1) : NULL, *in_hide = mh.on ? calloc(n, 1) : NULL;
    t->out = calloc(n, 1);
    if (!t->out || (mf.on && !in_focus) || (mh.on && !in_hide)) {
        st = pk_fail_nomem("marking focus and hide");
    } else {
        if (mf.on) mark_paths(t, &mf, in_focus);
        if (mh.on) mark_paths(t, &mh, in_hide);
        st = mf.st ? mf.st : mh.st;
        if (st) st = pk_fail(st, "%s: %s", mf.st ? "focus" : "hide", pk_error_last());
        for (pk_index c = 0; c < t->n_ctx; c++) {
            pk_index f = t->frame[c];
            t->out[c] = (mf.on && !in_focus[f]) || (mh.on && in_hide[f]);
        }
    }
    free(in_focus), free(in_hide);
    matcher_free(&mf), matcher_free(&mh);
    return st;
}

pk_status ts_paths_build(const pk_profile *p, const char *focus, const char *hide, ts_paths *out)
{
    memset(out, 0, sizeof *out);
    out->p = p;
    out->n_ctx = pk_context_count(p), out->n_functions = pk_function_count(p);
    out->n_keys = out->n_ctx + out->n_functions;
    if (out->n_keys >= UINT32_MAX)
        return pk_fail(PK_ERR_LIMIT, "%zu contexts and %zu functions are too many to trace",
                       out->n_ctx, out->n_functions);
    size_t n = out->n_ctx ? out->n_ctx : 1;
    out->frame = malloc(n * sizeof *out->frame);
    out->up = malloc(n * sizeof *out->up);
    out->key = malloc(n * sizeof *out->key);
    pk_status st = out->frame && out->up && out->key ? build_frames(out)
                                                     : pk_fail_nomem("following call paths");
    if (!st) st = build_marks(out, focus, hide);
    if (st) ts_paths_free(out);
    return st;
}

void ts_paths_free(ts_paths *t)
{
    free(t->frame), free(t->up), free(t->key), free(t->out);
    memset(t, 0, sizeof *t);
}

/* ---- the scan ---- */

/* The last sample at or before `t` (0 if none), by bisection: only for
 * traces whose timestamps never decrease. */
static uint64_t bisect(const unsigned char *s, uint64_t n, uint64_t t)
{
    uint64_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (pk_le64(s + mid * PK_SAMPLE_SIZE) > t)
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

typedef struct scan {
    const ts_paths *paths;
    const pk_trace_facts *facts;
    uint64_t from, to;
    ts_visit_fn visit;
    void *user;
} scan;

static void interval(const scan *s, uint64_t a, uint64_t b, pk_index ctx)
{
    if (b <= a) return; /* no time: nothing to say */
    uint64_t lo = a > s->from ? a : s->from, hi = b < s->to ? b : s->to;
    if (lo >= hi) return;
    int kind = ts_is_gap(s->facts, b - a)            ? TS_GAP
               : ctx == PK_NONE                      ? TS_IDLE
               : s->paths->out && s->paths->out[ctx] ? TS_FILTERED
                                                     : TS_RUN;
    s->visit(s->user, lo, hi, kind, ctx, b - a);
}

pk_status ts_scan(const ts_paths *paths, pk_index t, const pk_trace_facts *facts, uint64_t from,
                  uint64_t to, ts_visit_fn visit, void *user, uint64_t *window_samples)
{
    const pk_profile *p = paths->p;
    if (t >= p->n_traces) return pk_fail(PK_ERR_NOT_FOUND, "no trace %u", t);
    const pk_trace_rec *tr = &p->traces[t];
    scan s = {paths, facts, from, to, visit, user};
    uint64_t i = facts->ordered && tr->n ? bisect(tr->samples, tr->n, from) : 0, inside = 0;
    uint64_t prev = 0;
    pk_index prev_ctx = PK_NONE;
    pk_release rel;
    pk_release_start(&rel, pk_model_mapping_of(p, tr->samples));
    for (int have = 0; i < tr->n; i++, have = 1) {
        const unsigned char *rec = tr->samples + i * PK_SAMPLE_SIZE;
        uint64_t time = pk_le64(rec);
        uint32_t id = pk_le32(rec + 8);
        if (have && time < prev) time = prev; /* never backwards */
        inside += time >= from && time < to;
        if (have) interval(&s, prev, time, prev_ctx);
        if (time >= to) break;
        prev = time;
        prev_ctx = id ? pk_model_ctx_find(p, id) : PK_NONE;
        if ((i & 0xffff) == 0) pk_release_advance(&rel, rec);
    }
    pk_release_finish(&rel, tr->samples + (i < tr->n ? i : tr->n) * PK_SAMPLE_SIZE);
    ts_release(p, tr); /* and what the bisection touched */
    if (window_samples) *window_samples = inside;
    return PK_OK;
}

void ts_release(const pk_profile *p, const pk_trace_rec *tr)
{
    if (tr->n)
        pk_map_release_range(pk_model_mapping_of(p, tr->samples), tr->samples,
                             tr->n * PK_SAMPLE_SIZE);
}
