/*
 * analysis/filter.c — narrowing per-context values to part of the program
 * by context names: `--focus REGEX` keeps what runs inside matching
 * contexts, `--hide REGEX` drops matching contexts with their subtrees.
 *
 * Both work on inclusive/exclusive arrays already computed, never on the
 * stored values, so they combine with any location choice or statistic.
 * A context is "inside" a match when it or an ancestor matches; names are
 * matched once per function, not once per context, since big trees repeat
 * a few thousand functions over millions of contexts.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "profkit/analysis.h"
#include "profkit/pattern.h"
#include "scopes.h"

typedef struct matcher {
    pk_pattern *re;
    signed char *by_function; /* -1 not tried yet, else 0/1 */
    pk_status st;             /* a match that failed (the time limit) */
} matcher;

static pk_status matcher_init(const pk_profile *p, matcher *m, const char *expr, const char *what)
{
    m->st = PK_OK;
    pk_status st = pk_pattern_compile(expr, 0, &m->re);
    if (st) return pk_fail(st, "%s: %s", what, pk_error_last());
    m->by_function = malloc(p->n_functions ? p->n_functions : 1);
    if (!m->by_function) {
        pk_pattern_free(m->re);
        return pk_fail_nomem("matching context names");
    }
    memset(m->by_function, -1, p->n_functions);
    return PK_OK;
}

static void matcher_free(matcher *m)
{
    pk_pattern_free(m->re);
    free(m->by_function);
}

static int context_matches(const pk_profile *p, matcher *m, uint32_t c)
{
    const pk_ctx_rec *r = &p->ctx[c];
    int is_function = r->kind == PK_CTX_FUNCTION && r->function < p->n_functions;
    if (is_function && m->by_function[r->function] >= 0) return m->by_function[r->function];
    char name[1024];
    pk_context_name(p, c, name, sizeof name);
    int hit = 0;
    if (!m->st) m->st = pk_pattern_match(m->re, name, strlen(name), &hit);
    if (is_function) m->by_function[r->function] = (signed char)hit;
    return hit;
}

/* inside[c] = c or one of its ancestors matches; returns the matches. */
static size_t mark_inside(const pk_profile *p, matcher *m, const uint32_t *order,
                          unsigned char *inside)
{
    size_t hits = 0;
    for (uint32_t k = p->n_ctx; k-- > 0;) { /* shallowest first */
        uint32_t c = order[k], parent = p->ctx[c].parent;
        int hit = context_matches(p, m, c);
        hits += hit;
        inside[c] = hit || (parent < p->n_ctx && inside[parent]);
    }
    return hits;
}

/* Outside the focus, a context keeps only what its children inside keep. */
static void keep_inside(const pk_profile *p, const uint32_t *order, const unsigned char *inside,
                        double *incl, double *excl)
{
    for (uint32_t c = 0; c < p->n_ctx; c++) {
        if (inside[c]) continue;
        if (incl) incl[c] = 0;
        if (excl) excl[c] = 0;
    }
    for (uint32_t k = 0; k < p->n_ctx; k++) { /* deepest first */
        uint32_t c = order[k], parent = p->ctx[c].parent;
        if (parent >= p->n_ctx || inside[parent]) continue;
        if (incl) incl[parent] += incl[c];
        if (excl && pk_lexical_child(p, c)) excl[parent] += excl[c];
    }
}

/* Hidden contexts go, and what they held comes off their ancestors. */
static pk_status drop_inside(const pk_profile *p, const uint32_t *order,
                             const unsigned char *inside, double *incl, double *excl)
{
    size_t n = p->n_ctx ? p->n_ctx : 1;
    double *lost_incl = calloc(n, sizeof *lost_incl), *lost_excl = calloc(n, sizeof *lost_excl);
    if (!lost_incl || !lost_excl) {
        free(lost_incl), free(lost_excl);
        return pk_fail_nomem("hiding contexts");
    }
    for (uint32_t k = 0; k < p->n_ctx; k++) { /* deepest first: lost_*[c] is final */
        uint32_t c = order[k], parent = p->ctx[c].parent;
        if (parent >= p->n_ctx || inside[parent]) continue;
        lost_incl[parent] += inside[c] ? (incl ? incl[c] : 0) : lost_incl[c];
        if (pk_lexical_child(p, c))
            lost_excl[parent] += inside[c] ? (excl ? excl[c] : 0) : lost_excl[c];
    }
    for (uint32_t c = 0; c < p->n_ctx; c++) {
        if (incl) incl[c] = inside[c] ? 0 : incl[c] - lost_incl[c];
        if (excl) excl[c] = inside[c] ? 0 : excl[c] - lost_excl[c];
    }
    free(lost_incl), free(lost_excl);
    return PK_OK;
}

static pk_status apply(const pk_profile *p, const char *expr, int focus, const uint32_t *order,
                       double *incl, double *excl, size_t *hits)
{
    matcher m;
    pk_status st = matcher_init(p, &m, expr, focus ? "--focus" : "--hide");
    if (st) return st;
    unsigned char *inside = malloc(p->n_ctx ? p->n_ctx : 1);
    if (!inside) st = pk_fail_nomem("matching context names");
    if (!st) *hits += mark_inside(p, &m, order, inside);
    if (!st && m.st) st = pk_fail(m.st, "%s: %s", focus ? "--focus" : "--hide", pk_error_last());
    if (!st && focus) keep_inside(p, order, inside, incl, excl);
    if (!st && !focus) st = drop_inside(p, order, inside, incl, excl);
    free(inside);
    matcher_free(&m);
    return st;
}

pk_status pk_context_filter(const pk_profile *p, pk_index metric, const char *focus,
                            const char *hide, double *incl, double *excl, size_t *n_matched)
{
    if (!p || metric >= p->n_metrics)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_context_filter: bad arguments");
    int have_focus = focus && *focus, have_hide = hide && *hide;
    size_t hits = 0;
    if (n_matched) *n_matched = 0;
    if (!have_focus && !have_hide) return PK_OK;
    pk_combine how = p->metrics[metric].combine;
    if (how != PK_COMBINE_SUM && how != PK_COMBINE_OTHER)
        return pk_fail(PK_ERR_UNSUPPORTED,
                       "metric '%s' combines by min/max: --focus and --hide "
                       "need values that add up",
                       p->metrics[metric].name);
    uint32_t *order = pk_deepest_first(p);
    pk_status st = order ? PK_OK : pk_fail_nomem("filtering contexts");
    if (!st && have_hide) st = apply(p, hide, 0, order, incl, excl, &hits);
    if (!st && have_focus) st = apply(p, focus, 1, order, incl, excl, &hits);
    free(order);
    if (!st && n_matched) *n_matched = hits;
    return st;
}
