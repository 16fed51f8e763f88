/*
 * analysis/cg_to_cct.c — a calling-context tree reconstructed from a call
 * graph (Callgrind), so that every tree-based view and writer works on it.
 * A call graph does not say in which context a function spent its cost,
 * so the tree is approximate and the profile says so (`reconstructed`);
 * but it keeps every cost where the call graph puts it:
 *
 *  - The graph is cut into units: single functions, and cycles of mutually
 *    recursive functions (strongly connected components, cg_graph.c). A
 *    cycle is one node "<cycle N>" whose children are its members, each
 *    once, as KCachegrind shows cycles: inside a cycle the call graph
 *    cannot say who called whom how often, and outside it each call chain
 *    counts once.
 *  - Units form a DAG. A unit's cost flows down the arcs into it in
 *    proportion to their inclusive costs (per part and event,
 *    cg_cct_values.c): the share of the unit a node stands for is its
 *    parent's share times arc / (all arcs into the unit). So over all its
 *    nodes a unit gets exactly its inclusive cost, and every function its
 *    self cost, wherever the data is consistent.
 *  - Each part's units that nobody calls in that part are its roots: the
 *    heaviest hangs under the part's entry ("main thread", "application
 *    thread"), the others under one "<no caller>" entry. Everything else
 *    hangs below its callers: no orphan roots.
 *  - The unrolled DAG can be exponentially large, so it is built best
 *    first: the heaviest nodes until a budget, then, for any unit still
 *    without a node, one node under its heaviest caller's (in topological
 *    order, so that caller has one). Each function's self cost is spread
 *    over the nodes it got, so it stays exact; what pruning moves is only
 *    where, among a function's contexts, a little of its cost sits.
 *
 * Every pass is iterative and linear in the nodes and records: a call
 * chain a million deep is a million nodes, never a million stack frames.
 */
#include <stdlib.h>
#include <string.h>

#include "cg_cct.h"
#include "util/error.h"
#include "util/vec.h"

pk_status cgt_node(cgt *t, uint32_t parent, uint8_t kind, uint32_t fn, uint32_t unit, uint32_t ua,
                   double phi, uint32_t *out)
{
    if (t->n_nodes >= PK_NONE - 2)
        return pk_fail(PK_ERR_FORMAT, "the reconstructed tree is too large");
    if (pk_vec_reserve((void **)&t->nodes, &t->cap_nodes, t->n_nodes + 1u, sizeof *t->nodes) ||
        pk_vec_reserve((void **)&t->phi, &t->cap_phi, t->n_nodes + 1u, sizeof *t->phi))
        return pk_fail_nomem("reconstructing the calling-context tree");
    uint32_t n = t->n_nodes++;
    t->nodes[n] = (tnode){parent, fn, unit, ua, kind, 0};
    t->phi[n] = phi;
    if (kind == TN_UNIT && (t->best_unit[unit] == PK_NONE || phi > t->phi[t->best_unit[unit]]))
        t->best_unit[unit] = n;
    int single = kind == TN_UNIT && !t->g->cycle_of[unit];
    if ((kind == TN_MEMBER || single) &&
        (t->best_fn[fn] == PK_NONE || phi > t->phi[t->best_fn[fn]]))
        t->best_fn[fn] = n;
    *out = n;
    return PK_OK;
}

uint32_t cgt_unit_function(const cgt *t, uint32_t u)
{
    uint32_t c = t->g->cycle_of[u];
    return c ? t->cg->first_cycle_function + c - 1 : t->g->members[t->g->mem_start[u]];
}

/* ------------------------------------------------------------------ */
/* The shape: inclusive costs of the shaping event, shares of arcs     */
/* ------------------------------------------------------------------ */

/* Per unit arc, the share of the unit it enters: its inclusive cost of
 * the shaping event over the larger of what all arcs into the unit carry
 * and what the unit holds (a unit holding more than its callers' arcs is
 * partly a root, cg_roots.c); else by call count, else equal. */
static void arc_shares(cgt *t, const double *in, const double *cnt)
{
    const cg_graph *g = t->g;
    for (uint32_t v = 0; v < g->n_units; v++) {
        double norm = 0, cnorm = 0;
        uint64_t a0 = g->in_start[v], a1 = g->in_start[v + 1];
        for (uint64_t k = a0; k < a1; k++)
            norm += in[g->in_ua[k]], cnorm += cnt[g->in_ua[k]];
        if (norm > 0 && t->inc_unit[v] > norm) norm = t->inc_unit[v];
        for (uint64_t k = a0; k < a1; k++) {
            uint32_t a = g->in_ua[k];
            t->ratio[a] = norm > 0 ? in[a] / norm : cnorm > 0 ? cnt[a] / cnorm : 1.0 / (a1 - a0);
        }
    }
}

static pk_status shape(cgt *t, uint8_t *has)
{
    const pk_cg *cg = t->cg;
    const cg_graph *g = t->g;
    double *in = calloc(g->n_ua + 1, sizeof *in), *cnt = calloc(g->n_ua + 1, sizeof *cnt);
    t->ratio = malloc((g->n_ua + 1) * sizeof *t->ratio);
    t->inc_fn = calloc((size_t)g->nf + 1, sizeof *t->inc_fn);
    t->inc_unit = calloc((size_t)g->n_units + 1, sizeof *t->inc_unit);
    pk_status st = in && cnt && t->ratio && t->inc_fn && t->inc_unit
                       ? PK_OK
                       : pk_fail_nomem("reconstructing the calling-context tree");
    for (uint64_t i = 0; i < cg->n_self && !st; i++) {
        uint32_t f = cg->self[i].fn;
        if (f >= g->nf) continue;
        t->inc_fn[f] += pk_cg_self_value(cg, i, t->prim);
        has[g->unit_of[f]] = 1;
    }
    for (uint64_t i = 0; i < cg->n_calls && !st; i++) {
        const pk_cg_call_rec *c = &cg->calls[i];
        if (c->caller >= g->nf || c->callee >= g->nf) continue;
        has[g->unit_of[c->caller]] = has[g->unit_of[c->callee]] = 1;
        uint32_t a = g->ua_of_call[i];
        if (a == PK_NONE) continue;
        double v = pk_cg_call_value(cg, i, t->prim);
        in[a] += v, cnt[a] += c->count;
        t->inc_fn[c->caller] += v;
    }
    for (uint32_t f = 0; f < g->nf && !st; f++)
        t->inc_unit[g->unit_of[f]] += t->inc_fn[f];
    if (!st) arc_shares(t, in, cnt);
    free(in), free(cnt);
    return st;
}

/* ------------------------------------------------------------------ */
/* Best first, then one node for every unit still without             */
/* ------------------------------------------------------------------ */

typedef struct cand {
    double w, phi;
    uint32_t parent, target, ua;
    uint8_t kind;
} cand;

typedef struct heap {
    cand *a;
    size_t n, cap;
} heap;

static void sift_down(heap *h, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && h->a[l].w > h->a[m].w) m = l;
        if (r < h->n && h->a[r].w > h->a[m].w) m = r;
        if (m == i) return;
        cand x = h->a[i];
        h->a[i] = h->a[m], h->a[m] = x, i = m;
    }
}

static int by_weight_desc(const void *a, const void *b)
{
    double x = ((const cand *)a)->w, y = ((const cand *)b)->w;
    return x > y ? -1 : x < y;
}

/* Keep the `keep` heaviest candidates: the others could only be taken
 * after more nodes than the budget has left. */
static void prune(heap *h, size_t keep)
{
    qsort(h->a, h->n, sizeof *h->a, by_weight_desc);
    h->n = keep; /* sorted descending is a valid max-heap */
}

static pk_status push(heap *h, cand c, size_t limit)
{
    if (!(c.w > 0)) return PK_OK; /* nothing of the shaping event: placed later if it has cost */
    if (h->n >= limit) prune(h, limit / 2);
    if (pk_vec_reserve((void **)&h->a, &h->cap, h->n + 1, sizeof *h->a))
        return pk_fail_nomem("reconstructing the calling-context tree");
    size_t i = h->n++;
    h->a[i] = c;
    while (i && h->a[(i - 1) / 2].w < h->a[i].w) {
        cand x = h->a[i];
        h->a[i] = h->a[(i - 1) / 2], h->a[(i - 1) / 2] = x, i = (i - 1) / 2;
    }
    return PK_OK;
}

/* The candidates below node n: its unit's arcs out, or a cycle's members. */
static pk_status push_children(cgt *t, heap *h, uint32_t n, size_t limit)
{
    const cg_graph *g = t->g;
    const tnode *d = &t->nodes[n];
    double phi = t->phi[n];
    pk_status st = PK_OK;
    if (d->kind == TN_UNIT && g->cycle_of[d->unit]) {
        for (uint32_t k = g->mem_start[d->unit]; k < g->mem_start[d->unit + 1] && !st; k++) {
            uint32_t m = g->members[k];
            st = push(h, (cand){phi * t->inc_fn[m], phi, n, m, PK_NONE, TN_MEMBER}, limit);
        }
        return st;
    }
    if (d->kind != TN_UNIT && d->kind != TN_MEMBER) return PK_OK;
    for (uint64_t a = g->out_start[d->fn]; a < g->out_start[d->fn + 1] && !st; a++) {
        uint32_t v = g->ua_to[a];
        double f = phi * t->ratio[a];
        st = push(h, (cand){f * t->inc_unit[v], f, n, v, (uint32_t)a, TN_UNIT}, limit);
    }
    return st;
}

static pk_status best_first(cgt *t)
{
    heap h = {0};
    size_t limit = t->budget * 4 + 1024;
    pk_status st = PK_OK;
    for (uint32_t n = 0; n < t->n_nodes && !st; n++)
        st = push_children(t, &h, n, limit);
    while (!st && h.n && t->n_nodes < t->budget) {
        cand c = h.a[0];
        h.a[0] = h.a[--h.n];
        sift_down(&h, 0);
        uint32_t fn = c.kind == TN_MEMBER ? c.target : cgt_unit_function(t, c.target);
        uint32_t unit = c.kind == TN_MEMBER ? t->g->unit_of[c.target] : c.target, n;
        st = cgt_node(t, c.parent, c.kind, fn, unit, c.ua, c.phi, &n);
        if (!st) st = push_children(t, &h, n, limit);
    }
    free(h.a);
    return st;
}

/* Unit v without a node: under the node of its caller that gives it the
 * largest share (callers come first in topological order). */
static pk_status force_unit(cgt *t, uint32_t v)
{
    const cg_graph *g = t->g;
    uint32_t parent = PK_NONE, via = PK_NONE, n;
    double best = -1;
    for (uint64_t k = g->in_start[v]; k < g->in_start[v + 1]; k++) {
        uint32_t a = g->in_ua[k], at = t->best_fn[g->ua_from[a]];
        if (at == PK_NONE || !(t->phi[at] * t->ratio[a] > best)) continue;
        best = t->phi[at] * t->ratio[a], parent = at, via = a;
    }
    pk_status st = PK_OK;
    if (parent == PK_NONE) { /* cannot happen for a unit with cost: a root then */
        st = cgt_entry(t, 2, &parent);
        best = 1.0;
    }
    return st ? st : cgt_node(t, parent, TN_UNIT, cgt_unit_function(t, v), v, via, best, &n);
}

static pk_status force_missing(cgt *t, const uint8_t *has)
{
    const cg_graph *g = t->g;
    pk_status st = PK_OK;
    for (uint32_t i = 0; i < g->n_units && !st; i++) {
        uint32_t v = g->topo[i], n;
        if (!has[v]) continue;
        if (t->best_unit[v] == PK_NONE) st = force_unit(t, v);
        if (st || !g->cycle_of[v]) continue;
        uint32_t at = t->best_unit[v];
        for (uint32_t k = g->mem_start[v]; k < g->mem_start[v + 1] && !st; k++) {
            uint32_t m = g->members[k];
            if (t->best_fn[m] == PK_NONE)
                st = cgt_node(t, at, TN_MEMBER, m, v, PK_NONE, t->phi[at], &n);
        }
    }
    return st;
}

/* ------------------------------------------------------------------ */

uint32_t pk_cg_shaping_event(const pk_cg *cg)
{
    for (uint32_t e = 0; e < cg->n_events; e++)
        if (cg->events[e].metric == 0) return e;
    return 0;
}

/* Nodes beyond the ones every unit needs: a few times the graph, so the
 * heavy part of the tree is exact and memory stays in proportion. */
static uint64_t budget_of(const cg_graph *g)
{
    uint64_t b = 4 * ((uint64_t)g->n_units + g->n_ua);
    return b < 100000 ? 100000 : b > 1000000 ? 1000000 : b;
}

static void cgt_free(cgt *t)
{
    free(t->nodes), free(t->phi), free(t->roots), free(t->best_fn), free(t->best_unit);
    free(t->ratio), free(t->inc_fn), free(t->inc_unit);
}

pk_status pk_cg_build_cct(pk_profile *p, const cg_graph *g)
{
    cgt t = {0};
    t.p = p, t.cg = p->cg, t.g = g, t.ne = p->cg->n_events, t.prim = pk_cg_shaping_event(p->cg);
    t.budget = budget_of(g);
    t.entry[0] = t.entry[1] = t.entry[2] = PK_NONE;
    t.best_fn = malloc(((size_t)g->nf + 1) * sizeof *t.best_fn);
    t.best_unit = malloc(((size_t)g->n_units + 1) * sizeof *t.best_unit);
    uint8_t *has = calloc((size_t)g->n_units + 1, 1);
    uint32_t root;
    pk_status st = t.best_fn && t.best_unit && has
                       ? PK_OK
                       : pk_fail_nomem("reconstructing the calling-context tree");
    if (!st) {
        memset(t.best_fn, 0xff, ((size_t)g->nf + 1) * sizeof *t.best_fn);
        memset(t.best_unit, 0xff, ((size_t)g->n_units + 1) * sizeof *t.best_unit);
        st = cgt_node(&t, PK_NONE, TN_ROOT, PK_NONE, PK_NONE, PK_NONE, 1.0, &root);
    }
    if (!st) st = shape(&t, has);
    if (!st) st = cgt_roots(&t);
    if (!st) st = best_first(&t);
    if (!st) st = force_missing(&t, has);
    free(has);
    if (!st) st = cgt_values(&t);
    cgt_free(&t);
    if (!st) p->reconstructed = 1;
    return st;
}
