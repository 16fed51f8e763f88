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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cg_cct.h"
#include "cg_queue.h"
#include "util/error.h"
#include "util/vec.h"

/* Room for n nodes in each per-node array. */
static int reserve_nodes(cgt *t, size_t n)
{
    return pk_vec_reserve((void **)&t->nodes, &t->cap_nodes, n, sizeof *t->nodes) ||
           pk_vec_reserve((void **)&t->phi, &t->cap_phi, n, sizeof *t->phi) ||
           pk_vec_reserve((void **)&t->cut, &t->cap_cut, n, 1);
}

void cgt_drop_nodes(cgt *t)
{
    free(t->nodes), free(t->phi), free(t->cut);
    t->nodes = NULL, t->phi = NULL, t->cut = NULL;
    t->n_nodes = 0, t->cap_nodes = t->cap_phi = t->cap_cut = 0;
}

pk_status cgt_node(cgt *t, uint32_t parent, uint8_t kind, uint32_t fn, uint32_t unit, uint32_t ua,
                   double phi, uint32_t *out)
{
    if (t->n_nodes >= PK_NONE - 2)
        return pk_fail(PK_ERR_FORMAT, "the reconstructed tree is too large");
    if (reserve_nodes(t, t->n_nodes + 1u))
        return pk_fail_nomem("reconstructing the calling-context tree");
    uint32_t n = t->n_nodes++;
    t->nodes[n] = (tnode){parent, fn, unit, ua, kind, 0};
    t->phi[n] = phi, t->cut[n] = 0;
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

/* The shape's weight of every event: without a threshold, every event
 * with a total counts, each in proportion to its own total (so an arc
 * that carries only a rarely-counted event's cost still gets its nodes,
 * and every event's function costs survive the reconstruction); with a
 * threshold, the shaping event alone (the fraction the view hides below
 * is of that event). NULL when out of memory. */
static double *event_weights(const cgt *t)
{
    const pk_cg *cg = t->cg;
    double *w = calloc((size_t)t->ne + 1, sizeof *w);
    if (!w || t->min_w > 0) {
        if (w && t->prim < t->ne) w[t->prim] = 1.0;
        return w;
    }
    for (uint64_t i = 0; i < cg->n_self; i++)
        for (uint32_t e = 0; e < t->ne; e++)
            w[e] += fabs(pk_cg_self_value(cg, i, e));
    for (uint32_t e = 0; e < t->ne; e++)
        w[e] = cg->events[e].metric != PK_NONE && w[e] > 0 ? 1.0 / w[e] : 0.0;
    return w;
}

static double weighted(const double *w, uint32_t ne, const pk_cg *cg, uint64_t i, int call)
{
    double v = 0;
    for (uint32_t e = 0; e < ne; e++)
        if (w[e] != 0) v += w[e] * (call ? pk_cg_call_value(cg, i, e) : pk_cg_self_value(cg, i, e));
    return v;
}

static pk_status shape(cgt *t, uint8_t *has)
{
    const pk_cg *cg = t->cg;
    const cg_graph *g = t->g;
    double *in = calloc(g->n_ua + 1, sizeof *in), *cnt = calloc(g->n_ua + 1, sizeof *cnt);
    t->ratio = malloc((g->n_ua + 1) * sizeof *t->ratio);
    t->inc_fn = calloc((size_t)g->nf + 1, sizeof *t->inc_fn);
    t->inc_unit = calloc((size_t)g->n_units + 1, sizeof *t->inc_unit);
    double *w = event_weights(t);
    pk_status st = in && cnt && w && t->ratio && t->inc_fn && t->inc_unit
                       ? PK_OK
                       : pk_fail_nomem("reconstructing the calling-context tree");
    for (uint64_t i = 0; i < cg->n_self && !st; i++) {
        uint32_t f = cg->self[i].fn;
        if (f >= g->nf) continue;
        t->inc_fn[f] += weighted(w, t->ne, cg, i, 0);
        has[g->unit_of[f]] = 1;
    }
    for (uint64_t i = 0; i < cg->n_calls && !st; i++) {
        const pk_cg_call_rec *c = &cg->calls[i];
        if (c->caller >= g->nf || c->callee >= g->nf) continue;
        has[g->unit_of[c->caller]] = has[g->unit_of[c->callee]] = 1;
        uint32_t a = g->ua_of_call[i];
        if (a == PK_NONE) continue;
        double v = weighted(w, t->ne, cg, i, 1);
        in[a] += v, cnt[a] += c->count;
        t->inc_fn[c->caller] += v;
    }
    for (uint32_t f = 0; f < g->nf && !st; f++)
        t->inc_unit[g->unit_of[f]] += t->inc_fn[f];
    if (!st) arc_shares(t, in, cnt);
    free(in), free(cnt), free(w);
    return st;
}

/* ------------------------------------------------------------------ */
/* Best first, then one node for every unit still without             */
/* ------------------------------------------------------------------ */

/* A candidate of node n: queued, or (with a threshold) below it, which
 * leaves n a "<below threshold>" child. */
static pk_status offer(cgt *t, cg_queue *q, double w, double phi, uint32_t n, uint32_t target,
                       uint32_t ua)
{
    if (t->min_w > 0 && !(w >= t->min_w)) {
        t->cut[n] = 1;
        return PK_OK;
    }
    return cgq_push(q, w, phi, n, target, ua);
}

/* The candidates below node n: its unit's arcs out, or a cycle's members
 * (a candidate with no unit arc is a member of its parent's cycle). */
static pk_status push_children(cgt *t, cg_queue *q, uint32_t n)
{
    const cg_graph *g = t->g;
    const tnode *d = &t->nodes[n];
    double phi = t->phi[n];
    pk_status st = PK_OK;
    if (d->kind == TN_UNIT && g->cycle_of[d->unit]) {
        for (uint32_t k = g->mem_start[d->unit]; k < g->mem_start[d->unit + 1] && !st; k++) {
            uint32_t m = g->members[k];
            st = offer(t, q, phi * t->inc_fn[m], phi, n, m, PK_NONE);
        }
        return st;
    }
    if (d->kind != TN_UNIT && d->kind != TN_MEMBER) return PK_OK;
    for (uint64_t a = g->out_start[d->fn]; a < g->out_start[d->fn + 1] && !st; a++) {
        uint32_t v = g->ua_to[a];
        st = offer(t, q, phi * t->ratio[a] * t->inc_unit[v], phi * t->ratio[a], n, v, (uint32_t)a);
    }
    return st;
}

static pk_status take(cgt *t, cg_queue *q, const cgq_item *c)
{
    int member = c->ua == PK_NONE;
    uint32_t fn = member ? c->target : cgt_unit_function(t, c->target);
    uint32_t unit = member ? t->g->unit_of[c->target] : c->target, n;
    pk_status st =
        cgt_node(t, c->parent, member ? TN_MEMBER : TN_UNIT, fn, unit, c->ua, c->phi, &n);
    return st ? st : push_children(t, q, n);
}

static pk_status best_first(cgt *t)
{
    cg_queue q;
    pk_status st = cgq_init(&q);
    for (uint32_t n = 0; n < t->n_nodes && !st; n++)
        st = push_children(t, &q, n);
    cgq_item c;
    while (!st && t->n_nodes < t->budget && cgq_pop(&q, &c)) {
        st = take(t, &q, &c);
        uint64_t left = t->budget - t->n_nodes;
        if (q.live > 4 * left + 65536) cgq_trim(&q, left, t->min_w == 0);
    }
    /* with a threshold, the budget only bounds memory: what it left out
     * is below threshold too */
    while (t->min_w > 0 && cgq_pop(&q, &c))
        t->cut[c.parent] = 1;
    cgq_free(&q);
    return st;
}

/* With a threshold: a "<below threshold>" child for every node whose
 * callees were not all built (cg_cct_values.c gives it their cost). */
static pk_status rest_nodes(cgt *t)
{
    pk_status st = PK_OK;
    for (uint32_t n = 0, end = t->n_nodes; n < end && !st; n++) {
        uint32_t r;
        if (t->cut[n]) st = cgt_node(t, n, TN_REST, t->rest_fn, PK_NONE, PK_NONE, 0, &r);
    }
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

/* The first metric's event, or when that has no cost at all (GPU
 * metrics of a CPU-only run) the first event of a metric that has some. */
uint32_t pk_cg_shaping_event(const pk_cg *cg)
{
    uint32_t first = PK_NONE, best = PK_NONE;
    for (uint32_t e = 0; e < cg->n_events; e++) {
        uint32_t m = cg->events[e].metric;
        if (m == PK_NONE) continue;
        if (first == PK_NONE || m < cg->events[first].metric) first = e;
        if (best != PK_NONE && m > cg->events[best].metric) continue;
        for (uint64_t i = 0; i < cg->n_self; i++)
            if (pk_cg_self_value(cg, i, e) != 0) {
                best = e;
                break;
            }
    }
    return best != PK_NONE ? best : first != PK_NONE ? first : 0;
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
    cgt_drop_nodes(t);
    free(t->roots), free(t->best_fn), free(t->best_unit), free(t->ratio), free(t->inc_fn);
    free(t->inc_unit);
}

/* The least weight of a node with a threshold (a fraction of the total
 * of the shaping event over all parts), or 0. */
static double min_weight(const cgt *t, double threshold)
{
    double total = 0;
    for (uint64_t i = 0; threshold > 0 && i < t->cg->n_self; i++)
        total += pk_cg_self_value(t->cg, i, t->prim);
    double w = threshold * fabs(total);
    return w > 0 ? w : threshold > 0 ? 1e-300 : 0;
}

pk_status pk_cg_build_cct(pk_profile *p, const cg_graph *g, double threshold, uint32_t rest_fn)
{
    cgt t = {0};
    t.p = p, t.cg = p->cg, t.g = g, t.ne = p->cg->n_events, t.prim = pk_cg_shaping_event(p->cg);
    t.budget = budget_of(g), t.rest_fn = rest_fn, t.min_w = min_weight(&t, threshold);
    if (t.min_w > 0) t.budget = 4000000; /* a threshold bounds the tree; this bounds memory */
    t.entry[0] = t.entry[1] = t.entry[2] = PK_NONE;
    t.best_fn = malloc(((size_t)g->nf + 1) * sizeof *t.best_fn);
    t.best_unit = malloc(((size_t)g->n_units + 1) * sizeof *t.best_unit);
    uint8_t *has = calloc((size_t)g->n_units + 1, 1);
    uint32_t root;
    /* Without a threshold best first stops at the budget and the units
     * still without a node add about one each, so the arrays get that
     * room at once instead of doubling up to it: each doubling copied
     * them into fresh memory (cc1: 29 MB of arrays). They still grow if
     * cycles' members need more; pages past the end are never touched. */
    int sized = t.min_w > 0 || !reserve_nodes(&t, t.budget + g->n_units + 8);
    pk_status st = t.best_fn && t.best_unit && has && sized
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
    if (!st) st = t.min_w > 0 ? rest_nodes(&t) : force_missing(&t, has);
    free(has);
    if (!st) st = cgt_values(&t);
    cgt_free(&t);
    if (!st) p->reconstructed = 1;
    return st;
}
