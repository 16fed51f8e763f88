/*
 * analysis/answer_diff_arcs.c — diff where either side is a call graph
 * (Callgrind): compare what both sides hold, the functions' self and
 * inclusive costs and the caller → callee arcs' costs, each side's taken
 * from a call graph (its own, or the exact one of its calling-context
 * tree). Calling paths are never compared then: a call graph's are
 * reconstructed, an estimate, and would show changes that are none.
 *
 * Functions meet by name across the sides (as calling paths do), arcs by
 * their two names; "<cycle N>" pseudo-functions are left out (a cycle's
 * number depends on the order a reader met the functions, its members
 * are compared one by one), and so are the root and the entry points a
 * tree's call graph names as functions (a Callgrind file has none). Costs are those of each side's
 * call graph with its functions merged by name (a copy of its records naming keys, sharing the
 * costs): same-named functions that call each other (a C++ destructor's variants) are then one
 * function, as in a Callgrind file written from them, and its inclusive cost counts the inner calls
 * once. Row indexes (pk_diff_row.a/.b) are keys into the name and arc tables, the same for every
 * metric, so the further metrics' rows meet the first's as calling paths' frames do.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/answer_diff.h"
#include "analysis/cg_graph.h"
#include "analysis/frames.h"
#include "analysis/session.h"
#include "util/error.h"

typedef struct arc_side {
    const pk_profile *p;
    pk_cg *own; /* the exact call graph of its tree, or NULL: the profile's own */
    const pk_cg *cg;
    uint32_t nf;
    unsigned char *part_on; /* per part: selected; NULL: every part */
    uint32_t *key_of;       /* per function: its name's key (PK_NONE: left out) */
    pk_cg keyed;            /* cg with records naming keys (a sink for PK_NONE) */
    pk_cg_self_rec *kself;  /* keyed's records */
    pk_cg_call_rec *kcalls;
    uint32_t *arc_of; /* per call record: its arc (PK_NONE: not compared) */
    unsigned char *has_fn, *has_arc;
    unsigned char *by_cycle; /* per key: calls or is called by a "<cycle N>"
                                function (a tree reconstructed from a call
                                graph names its cycles so) */
} arc_side;

struct pkq_diff_arcs {
    arc_side side[2];
    const char **names; /* function names of both sides, sorted, each once */
    uint32_t n_names;
    uint64_t *arcs; /* caller key << 32 | callee key, sorted, each once */
    uint32_t n_arcs;
};

static int has_callgraph(const pk_profile *p)
{
    pk_cg_summary s;
    return pk_callgraph_summary(p, &s) == PK_OK;
}

/* Functions left out of the comparison: "<cycle N>", and those a writer
 * makes up for what a call graph cannot hold (the root, entry points, a
 * call site known by its address), which the other side may lack. Arcs
 * from them are left out too: their callees' costs are in the functions'
 * rows. */
static int left_out(const char *s)
{
    return strncmp(s, "<cycle ", 7) == 0 || strcmp(s, "<program root>") == 0 ||
           pk_frames_stand_in(s);
}

/* The event of metric m in side s's call graph, or -1. */
static long event_of(const pk_profile *p, const pk_cg *own, pk_index m)
{
    size_t e;
    if (!own) return pk_callgraph_metric_event(p, m, &e) == PK_OK ? (long)e : -1;
    for (uint32_t k = 0; k < own->n_events; k++)
        if (own->events[k].metric == m) return (long)k;
    return -1;
}

int pkq_diff_arcs_apply(const pkq_diff_work *w, const pk_index *mb)
{
    const pk_query *q = w->q;
    int ca = has_callgraph(w->sa->p), cb = has_callgraph(w->sb->p);
    if (!(ca || cb) || !q->use_callgraph || q->stat != PK_ACROSS_SUM || pkq_filtered(q)) return 0;
    pk_error_clear();
    for (size_t i = 0; i < w->cols.n_base; i++) {
        size_t e;
        pk_index ma = w->cols.base[i];
        if (ca ? pk_callgraph_metric_event(w->sa->p, ma, &e) != PK_OK
               : pk_cg_metric_unfit(w->sa->p, ma) != NULL)
            return pk_error_clear(), 0;
        if (cb ? pk_callgraph_metric_event(w->sb->p, mb[i], &e) != PK_OK
               : pk_cg_metric_unfit(w->sb->p, mb[i]) != NULL)
            return pk_error_clear(), 0;
    }
    return 1;
}

/* Side s's call graph over the query's locations. */
static pk_status side_graph(const pk_profile *p, const pk_query *q, arc_side *s)
{
    const char *sel = pkq_text(q, PKQ_LOCATION);
    size_t nl = pk_location_count(p);
    unsigned char *mark = sel ? calloc(nl + 1, 1) : NULL;
    pk_status st = sel && !mark ? pk_fail_nomem("a comparison") : PK_OK;
    if (!st && sel) st = pk_location_select(p, sel, mark, nl, NULL);
    s->p = p;
    if (!st && !has_callgraph(p)) {
        pk_cg_request rq = {mark, 1}; /* one part: the selection's sum */
        st = pk_cg_from_cct_request(p, &rq, &s->own);
        s->cg = s->own;
    } else if (!st) {
        s->cg = p->cg;
        s->part_on = sel ? calloc(s->cg->n_parts + 1, 1) : NULL;
        if (sel && !s->part_on) st = pk_fail_nomem("a comparison");
        for (uint32_t k = 0; !st && sel && k < s->cg->n_parts; k++)
            s->part_on[k] = s->cg->parts[k].location < nl && mark[s->cg->parts[k].location];
    }
    free(mark);
    if (st) return st;
    s->nf = s->own ? s->cg->n_functions
                   : (s->cg->n_functions < p->n_functions ? s->cg->n_functions
                                                          : (uint32_t)p->n_functions);
    return PK_OK;
}

static int part_on(const arc_side *s, uint32_t part)
{
    return !s->part_on || (part < s->cg->n_parts && s->part_on[part]);
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The name table of both sides' functions, and each function's key. */
static pk_status name_keys(pkq_diff_arcs *x)
{
    size_t n = 0, total = (size_t)x->side[0].nf + x->side[1].nf;
    const char **all = malloc((total + 1) * sizeof *all);
    if (!all) return pk_fail_nomem("a comparison");
    for (int k = 0; k < 2; k++)
        for (uint32_t f = 0; f < x->side[k].nf; f++) {
            const char *name = pk_cg_function_name(x->side[k].p, x->side[k].cg, f);
            if (!left_out(name)) all[n++] = name;
        }
    qsort(all, n, sizeof *all, by_name);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || strcmp(all[u - 1], all[i]) != 0) all[u++] = all[i];
    x->names = all, x->n_names = (uint32_t)u;
    for (int k = 0; k < 2; k++) {
        arc_side *s = &x->side[k];
        s->key_of = malloc(((size_t)s->nf + 1) * sizeof *s->key_of);
        s->has_fn = calloc((size_t)u + 1, 1);
        if (!s->key_of || !s->has_fn) return pk_fail_nomem("a comparison");
        for (uint32_t f = 0; f < s->nf; f++) {
            const char *name = pk_cg_function_name(s->p, s->cg, f);
            const char **hit = bsearch(&name, all, u, sizeof *all, by_name);
            s->key_of[f] = hit ? (uint32_t)(hit - all) : PK_NONE;
            if (hit) s->has_fn[hit - all] = 1;
        }
    }
    return PK_OK;
}

static int is_cycle_function(const arc_side *s, uint32_t f)
{
    return f < s->nf && strncmp(pk_cg_function_name(s->p, s->cg, f), "<cycle ", 7) == 0;
}

/* Flag the end of call c that a "<cycle N>" function calls or is called by. */
static void cycle_neighbours(const arc_side *s, const pk_cg_call_rec *c, unsigned char *by_cycle)
{
    if (c->caller >= s->nf || c->callee >= s->nf) return;
    uint32_t from = s->key_of[c->caller], to = s->key_of[c->callee];
    if (to != PK_NONE && is_cycle_function(s, c->caller)) by_cycle[to] = 1;
    if (from != PK_NONE && is_cycle_function(s, c->callee)) by_cycle[from] = 1;
}

/* Side s's call graph with functions merged by name: records naming
 * keys (PK_NONE's functions a sink key, n_names), costs shared. */
static pk_status keyed_graph(const pkq_diff_arcs *x, arc_side *s)
{
    const pk_cg *cg = s->cg;
    uint32_t sink = x->n_names;
    s->kself = malloc((cg->n_self + 1) * sizeof *s->kself);
    s->kcalls = malloc((cg->n_calls + 1) * sizeof *s->kcalls);
    if (!s->kself || !s->kcalls) return pk_fail_nomem("a comparison");
    for (uint64_t i = 0; i < cg->n_self; i++) {
        s->kself[i] = cg->self[i];
        uint32_t f = cg->self[i].fn;
        s->kself[i].fn = f < s->nf && s->key_of[f] != PK_NONE ? s->key_of[f] : sink;
    }
    s->by_cycle = calloc((size_t)sink + 1, 1);
    if (!s->by_cycle) return pk_fail_nomem("a comparison");
    for (uint64_t i = 0; i < cg->n_calls; i++) {
        pk_cg_call_rec *c = &s->kcalls[i];
        *c = cg->calls[i];
        cycle_neighbours(s, c, s->by_cycle);
        c->caller =
            c->caller < s->nf && s->key_of[c->caller] != PK_NONE ? s->key_of[c->caller] : sink;
        c->callee =
            c->callee < s->nf && s->key_of[c->callee] != PK_NONE ? s->key_of[c->callee] : sink;
    }
    s->keyed = *cg;
    s->keyed.self = s->kself, s->keyed.calls = s->kcalls;
    s->keyed.kept_graph = NULL, s->keyed.kept_graph_free = NULL; /* cg's, of other records */
    s->keyed.n_functions = s->keyed.n_model_functions = sink + 1;
    return PK_OK;
}

/* The arc of call record i of side s as a key pair, or UINT64_MAX. */
static uint64_t arc_key(const pkq_diff_arcs *x, const arc_side *s, uint64_t i)
{
    const pk_cg_call_rec *c = &s->kcalls[i];
    if (c->caller >= x->n_names || c->callee >= x->n_names || !part_on(s, c->part))
        return UINT64_MAX;
    return (uint64_t)c->caller << 32 | c->callee;
}

static int by_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* The arc table of both sides and each call record's arc. */
static pk_status arc_keys(pkq_diff_arcs *x)
{
    uint64_t n = 0, total = x->side[0].cg->n_calls + x->side[1].cg->n_calls;
    uint64_t *all = malloc((total + 1) * sizeof *all);
    if (!all) return pk_fail_nomem("a comparison");
    for (int k = 0; k < 2; k++)
        for (uint64_t i = 0; i < x->side[k].cg->n_calls; i++)
            if ((all[n] = arc_key(x, &x->side[k], i)) != UINT64_MAX) n++;
    qsort(all, n, sizeof *all, by_u64);
    uint64_t u = 0;
    for (uint64_t i = 0; i < n; i++)
        if (!u || all[u - 1] != all[i]) all[u++] = all[i];
    if (u >= PK_NONE) return free(all), pk_fail(PK_ERR_FORMAT, "too many call arcs to compare");
    x->arcs = all, x->n_arcs = (uint32_t)u;
    for (int k = 0; k < 2; k++) {
        arc_side *s = &x->side[k];
        s->arc_of = malloc((s->cg->n_calls + 1) * sizeof *s->arc_of);
        s->has_arc = calloc((size_t)u + 1, 1);
        if (!s->arc_of || !s->has_arc) return pk_fail_nomem("a comparison");
        for (uint64_t i = 0; i < s->cg->n_calls; i++) {
            uint64_t key = arc_key(x, s, i), *hit = NULL;
            if (key != UINT64_MAX) hit = bsearch(&key, all, u, sizeof *all, by_u64);
            s->arc_of[i] = hit ? (uint32_t)(hit - all) : PK_NONE;
            if (hit) s->has_arc[hit - all] = 1;
        }
    }
    return PK_OK;
}

pk_status pkq_diff_arcs_build(pkq_diff_work *w)
{
    pkq_diff_arcs *x = calloc(1, sizeof *x);
    if (!x) return pk_fail_nomem("a comparison");
    w->arcs = x;
    pk_status st = side_graph(w->sa->p, w->q, &x->side[0]);
    if (!st) st = side_graph(w->sb->p, w->q, &x->side[1]);
    if (!st) st = name_keys(x);
    if (!st) st = keyed_graph(x, &x->side[0]);
    if (!st) st = keyed_graph(x, &x->side[1]);
    if (!st) st = arc_keys(x);
    return st;
}

void pkq_diff_arcs_free(pkq_diff_arcs *x)
{
    if (!x) return;
    for (int k = 0; k < 2; k++) {
        arc_side *s = &x->side[k];
        pk_cg_free(s->own);
        free(s->part_on), free(s->key_of), free(s->arc_of), free(s->has_fn), free(s->has_arc);
        free(s->kself), free(s->kcalls), free(s->by_cycle);
    }
    free(x->names), free(x->arcs), free(x);
}

int pkq_diff_arcs_graphs(const pkq_diff_arcs *x)
{
    return (x->side[0].own == NULL) | (x->side[1].own == NULL) << 1;
}

const char *pkq_diff_arcs_function(const pkq_diff_arcs *x, pk_index key)
{
    return key < x->n_names ? x->names[key] : "?";
}

void pkq_diff_arcs_ends(const pkq_diff_arcs *x, pk_index arc, const char **caller,
                        const char **callee)
{
    *caller = arc < x->n_arcs ? x->names[x->arcs[arc] >> 32] : "?";
    *callee = arc < x->n_arcs ? x->names[x->arcs[arc] & 0xffffffffu] : "?";
}

/* One side's costs of one metric, in A's unit, by name key and by arc. */
typedef struct arc_costs {
    double *self, *incl, *arc;
    unsigned char *cyc;
} arc_costs;

/* The functions' costs (by key) of the selected parts (all at once
 * when every part is: cycles then span the parts, as on the other side). */
static pk_status key_costs(const arc_side *s, uint32_t nk, long ev, pk_cg_function_cost *sum)
{
    pk_cg_function_cost *t = calloc((size_t)nk + 1, sizeof *t);
    if (!t) return pk_fail_nomem("a comparison");
    uint32_t n = s->part_on ? s->cg->n_parts : 1;
    pk_status st = PK_OK;
    for (uint32_t k = 0; !st && k < n; k++) {
        if (s->part_on && !s->part_on[k]) continue;
        st = cg_function_costs(&s->keyed, nk, s->part_on ? k : PK_NONE, (size_t)ev, t);
        for (uint32_t f = 0; !st && f < nk; f++)
            sum[f].self += t[f].self, sum[f].inclusive += t[f].inclusive,
                sum[f].cycle |= t[f].cycle;
    }
    free(t);
    return st;
}

static pk_status costs_of(const pkq_diff_arcs *x, int k, pk_index m, double scale, arc_costs *c)
{
    const arc_side *s = &x->side[k];
    long ev = event_of(s->p, s->own, m);
    if (ev < 0) return pk_fail(PK_ERR_NOT_FOUND, "a metric compared is no event of a call graph");
    uint32_t nk = x->n_names + 1; /* the keys and the sink */
    pk_cg_function_cost *kc = calloc((size_t)nk + 1, sizeof *kc);
    pk_status st = kc ? key_costs(s, nk, ev, kc) : pk_fail_nomem("a comparison");
    for (uint32_t key = 0; !st && key < x->n_names; key++) {
        c->self[key] = kc[key].self * scale, c->incl[key] = kc[key].inclusive * scale;
        c->cyc[key] = kc[key].cycle != 0 || s->by_cycle[key];
    }
    free(kc);
    for (uint64_t i = 0; !st && i < s->cg->n_calls; i++)
        if (s->arc_of[i] != PK_NONE)
            c->arc[s->arc_of[i]] += pk_cg_call_value(s->cg, i, (uint32_t)ev) * scale;
    return st;
}

static pk_status costs_alloc(const pkq_diff_arcs *x, arc_costs *c)
{
    c->self = calloc((size_t)x->n_names + 1, sizeof *c->self);
    c->incl = calloc((size_t)x->n_names + 1, sizeof *c->incl);
    c->cyc = calloc((size_t)x->n_names + 1, 1);
    c->arc = calloc((size_t)x->n_arcs + 1, sizeof *c->arc);
    return c->self && c->incl && c->cyc && c->arc ? PK_OK : pk_fail_nomem("a comparison");
}

static void costs_free(arc_costs *c)
{
    free(c->self), free(c->incl), free(c->cyc), free(c->arc);
}

static int by_self_change(const void *x, const void *y)
{
    const pk_diff_row *a = x, *b = y;
    double da = fabs(a->b_self - a->a_self), db = fabs(b->b_self - b->a_self);
    if (da != db) return da > db ? -1 : 1;
    da = fabs(a->b_incl - a->a_incl), db = fabs(b->b_incl - b->a_incl);
    return da > db ? -1 : da < db;
}

static int by_incl_change(const void *x, const void *y)
{
    const pk_diff_row *a = x, *b = y;
    double da = fabs(a->b_incl - a->a_incl), db = fabs(b->b_incl - b->a_incl);
    return da > db ? -1 : da < db;
}

/* Rows of the functions either side has, and of the arcs. */
static pk_status fill_rows(const pkq_diff_arcs *x, const arc_costs *c, pkq_diff_rows *r)
{
    const arc_side *a = &x->side[0], *b = &x->side[1];
    r->fr = malloc(((size_t)x->n_names + 1) * sizeof *r->fr);
    r->pr = malloc(((size_t)x->n_arcs + 1) * sizeof *r->pr);
    if (!r->fr || !r->pr) return pk_fail_nomem("a comparison");
    r->nf = r->np = 0;
    for (uint32_t k = 0; k < x->n_names; k++) {
        if (!a->has_fn[k] && !b->has_fn[k]) continue;
        r->fr[r->nf++] = (pk_diff_row){a->has_fn[k] ? k : PK_NONE,
                                       b->has_fn[k] ? k : PK_NONE,
                                       c[0].incl[k],
                                       c[1].incl[k],
                                       c[0].self[k],
                                       c[1].self[k],
                                       0,
                                       c[0].cyc[k] || c[1].cyc[k]};
    }
    for (uint32_t j = 0; j < x->n_arcs; j++) { /* an arc's cost is inclusive: no self */
        uint32_t from = (uint32_t)(x->arcs[j] >> 32), to = (uint32_t)x->arcs[j];
        int cyc = from == to || c[0].cyc[from] || c[0].cyc[to] || c[1].cyc[from] || c[1].cyc[to];
        r->pr[r->np++] = (pk_diff_row){a->has_arc[j] ? j : PK_NONE,
                                       b->has_arc[j] ? j : PK_NONE,
                                       c[0].arc[j],
                                       c[1].arc[j],
                                       c[0].arc[j],
                                       c[1].arc[j],
                                       0,
                                       cyc};
    }
    qsort(r->fr, r->nf, sizeof *r->fr, by_self_change);
    qsort(r->pr, r->np, sizeof *r->pr, by_incl_change);
    return PK_OK;
}

pk_status pkq_diff_arcs_rows(const pkq_diff_arcs *x, pk_index ma, pk_index mb, pkq_diff_rows *r)
{
    arc_costs c[2] = {{0}};
    pk_status st = costs_alloc(x, &c[0]);
    if (!st) st = costs_alloc(x, &c[1]);
    if (!st) st = costs_of(x, 0, ma, 1, &c[0]);
    if (!st) st = costs_of(x, 1, mb, r->scale, &c[1]);
    if (!st) st = fill_rows(x, c, r);
    costs_free(&c[0]), costs_free(&c[1]);
    if (!st) pk_diff_settle(r->fr, r->nf, r->a.total), pk_diff_settle(r->pr, r->np, r->a.total);
    return st;
}
