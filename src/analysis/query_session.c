/*
 * analysis/query_session.c — a profile with what its answers share: per
 * selection (metric, locations, statistic, focus, hide) the per-context
 * values and the trees built from them, in a small least-recently-used
 * cache. The CLI asks one question of a session; the view and Python ask
 * many, and an expansion or a second metric then costs no pass over the
 * profile's values.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "analysis/frames.h"
#include "analysis/qry.h"
#include "analysis/session.h"
#include "util/error.h"

pk_status pk_session_new(const pk_profile *p, pk_session **out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_session_new: bad arguments");
    pk_session *s = calloc(1, sizeof *s);
    if (!s) return pk_fail_nomem("a session");
    s->p = p;
    *out = s;
    return PK_OK;
}

void pk_session_free(pk_session *s)
{
    if (!s) return;
    for (size_t i = 0; i < PKQ_CACHE; i++)
        if (s->cache[i]) pkq_values_clear(s->cache[i]), free(s->cache[i]);
    pkq_session_flat_clear(s);
    pkq_fn_locations_clear(&s->fnloc);
    free(s);
}

const pk_profile *pk_session_profile(const pk_session *s)
{
    return s ? s->p : NULL;
}

static int same_text(const char *a, const char *b)
{
    return a ? b && strcmp(a, b) == 0 : !b;
}

static int same_selection(const pkq_values *v, pk_index metric, const pk_query *q)
{
    return v->metric == metric && v->stat == q->stat &&
           same_text(v->location, pkq_text(q, PKQ_LOCATION)) &&
           same_text(v->focus, pkq_text(q, PKQ_FOCUS)) && same_text(v->hide, pkq_text(q, PKQ_HIDE));
}

const pkq_values *pkq_values_cached(pk_session *s, pk_index metric, const pk_query *q)
{
    for (size_t i = 0; i < PKQ_CACHE; i++)
        if (s->cache[i] && same_selection(s->cache[i], metric, q)) return s->cache[i];
    return NULL;
}

void pkq_values_put(pk_session *s, pkq_values *v)
{
    size_t victim = 0;
    for (size_t i = 0; i < PKQ_CACHE; i++)
        if (!s->cache[i] || (s->cache[victim] && s->cache[i]->used < s->cache[victim]->used))
            victim = i;
    if (s->cache[victim]) pkq_values_clear(s->cache[victim]), free(s->cache[victim]);
    s->cache[victim] = v;
    v->used = ++s->clock;
}

pk_status pkq_values_get(pk_session *s, pk_index metric, const pk_query *q, const pkq_values **out)
{
    size_t victim = 0;
    for (size_t i = 0; i < PKQ_CACHE; i++) {
        pkq_values *v = s->cache[i];
        if (v && same_selection(v, metric, q)) {
            v->used = ++s->clock;
            return *out = v, PK_OK;
        }
        if (!v || (s->cache[victim] && v->used < s->cache[victim]->used)) victim = i;
    }
    pkq_values *v = calloc(1, sizeof *v);
    if (!v) return pk_fail_nomem("a view's values");
    pk_status st = pkq_values_compute(s->p, metric, q, v);
    if (st) return free(v), st;
    if (s->cache[victim]) pkq_values_clear(s->cache[victim]), free(s->cache[victim]);
    s->cache[victim] = v;
    v->used = ++s->clock;
    *out = v;
    return PK_OK;
}

/* Every context as a node of its own (level lines): the tree as stored,
 * each context's exclusive value as its self value. */
static pk_status context_frames(const pk_profile *p, const double *incl, const double *excl,
                                pk_frame **out, size_t *n_out)
{
    size_t n = pk_context_count(p);
    pk_frame *f = calloc(n ? n : 1, sizeof *f);
    if (!f) return pk_fail_nomem("a tree of contexts");
    for (size_t i = 0; i < n; i++) {
        pk_context c;
        pk_context_get(p, (pk_index)i, &c);
        f[i] = (pk_frame){.parent = i ? c.parent : PK_NONE,
                          .first_child = PK_NONE,
                          .next_sibling = PK_NONE,
                          .context = (pk_index)i,
                          .depth = c.depth,
                          .inclusive = incl[i],
                          .self = excl ? excl[i] : 0};
        if (c.flags & PK_CTXF_UNLISTED) f[i].parent = PK_NONE;
    }
    for (size_t i = n; i-- > 1;) { /* back to front: each list keeps context order */
        pk_index par = f[i].parent;
        if (par == PK_NONE || par >= i) continue;
        f[i].next_sibling = f[par].first_child;
        f[par].first_child = (pk_index)i;
    }
    *out = f, *n_out = n;
    return PK_OK;
}

pk_status pkq_frames_build(const pk_profile *p, const double *incl, const double *excl,
                           pk_tree_level level, pk_combine how, pk_frame **f, size_t *n)
{
    if (level == PK_LEVEL_LINES) return context_frames(p, incl, excl, f, n);
    if (how == PK_COMBINE_MIN || how == PK_COMBINE_MAX) /* values that do not add up */
        return pk_frames_build_combined(p, incl, excl, how, level == PK_LEVEL_LOOPS, f, n);
    if (level == PK_LEVEL_LOOPS) return pk_frames_build_loops(p, incl, f, n);
    return pk_frames_build(p, incl, f, n);
}

pk_status pkq_values_frames(pk_session *s, const pkq_values *cv, pk_tree_level level,
                            const pk_frame **frames, size_t *n)
{
    pkq_values *v = (pkq_values *)cv; /* the session's own entry */
    if (!v->frames[level]) {
        pk_status st = pkq_frames_build(s->p, v->incl, v->excl, level, v->met.combine,
                                        &v->frames[level], &v->n_frames[level]);
        if (st) return st;
    }
    *frames = v->frames[level], *n = v->n_frames[level];
    return PK_OK;
}

pk_status pkq_values_frames_take(pk_session *s, const pkq_values *cv, pk_tree_level level,
                                 pk_frame **frames, size_t *n)
{
    pkq_values *v = (pkq_values *)cv; /* the session's own entry */
    if (!v->frames[level])
        return pkq_frames_build(s->p, v->incl, v->excl, level, v->met.combine, frames, n);
    *frames = v->frames[level], *n = v->n_frames[level];
    v->frames[level] = NULL, v->n_frames[level] = 0;
    return PK_OK;
}
