/*
 * analysis/cg_roots.c — where a call graph's costs enter: per part, the
 * units nobody calls (roots), the units that hold more than the arcs into
 * them carry (partly roots), and the opposite, arcs that claim more than
 * their callee holds (reported).
 *
 * In a part, a unit's "content" is what it holds: its self cost plus the
 * inclusive costs of its calls leaving the unit; its "inflow" is what the
 * arcs into it carry. In consistent data the two agree. Real files differ:
 *  - content > inflow: callgrind charges a new thread to the clone() its
 *    creator called, and a call begun before a dump (calls=0) carries only
 *    part of the callee. The excess has no caller: that part of the unit
 *    is a root, under "<no caller>".
 *  - inflow > content: arcs claim more than their callee holds (rounded
 *    costs, a callee named differently in cfn= and fn=, exceptions). The
 *    tree can only show what the callee holds, so its callers' inclusive
 *    costs there fall short of their arcs: a warning says by how much.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_cct.h"
#include "util/error.h"
#include "util/vec.h"

typedef struct flow {
    uint32_t *mark, *called; /* per unit: 1 + the part that touched it / has an arc into it */
    double *content, *inflow;
    uint8_t *excess; /* per unit: content above inflow in some event (cgt_roots) */
    uint32_t *touched, n_touched;
    uint64_t *ss, *cs; /* records by part */
    uint32_t *sp, *cp;
} flow;

static void flow_free(flow *f)
{
    free(f->mark), free(f->called), free(f->content), free(f->inflow), free(f->touched);
    free(f->excess);
    free(f->ss), free(f->cs), free(f->sp), free(f->cp);
}

static pk_status flow_init(flow *f, const pk_cg *cg, const cg_graph *g)
{
    size_t n = (size_t)g->n_units + 1;
    memset(f, 0, sizeof *f);
    f->mark = calloc(n, 4), f->called = calloc(n, 4), f->touched = malloc(n * 4);
    f->content = malloc(n * 8), f->inflow = malloc(n * 8), f->excess = calloc(n, 1);
    if (!f->mark || !f->called || !f->touched || !f->content || !f->inflow || !f->excess)
        return pk_fail_nomem("reading the call graph");
    pk_status st =
        pk_cg_by_part(cg->self, sizeof *cg->self, cg->n_self, cg->n_parts, &f->ss, &f->sp);
    if (!st)
        st = pk_cg_by_part(cg->calls, sizeof *cg->calls, cg->n_calls, cg->n_parts, &f->cs, &f->cp);
    return st;
}

static void touch(flow *f, uint32_t u, uint32_t k)
{
    if (f->mark[u] == k + 1) return;
    f->mark[u] = k + 1, f->content[u] = f->inflow[u] = 0, f->excess[u] = 0;
    f->touched[f->n_touched++] = u;
}

/* Content and inflow of event `ev` of every unit part k touches (the
 * first event of a part resets them: `again` adds another event). */
static void flow_part(flow *f, const pk_cg *cg, const cg_graph *g, uint32_t ev, uint32_t k,
                      int again)
{
    if (again) {
        for (uint32_t i = 0; i < f->n_touched; i++)
            f->content[f->touched[i]] = f->inflow[f->touched[i]] = 0;
    } else {
        f->n_touched = 0;
    }
    for (uint64_t i = f->ss[k]; i < f->ss[k + 1]; i++) {
        uint32_t fn = cg->self[f->sp[i]].fn;
        if (fn >= g->nf) continue;
        touch(f, g->unit_of[fn], k);
        f->content[g->unit_of[fn]] += pk_cg_self_value(cg, f->sp[i], ev);
    }
    for (uint64_t i = f->cs[k]; i < f->cs[k + 1]; i++) {
        const pk_cg_call_rec *c = &cg->calls[f->cp[i]];
        if (c->caller >= g->nf || c->callee >= g->nf) continue;
        uint32_t a = g->unit_of[c->caller], b = g->unit_of[c->callee];
        touch(f, a, k), touch(f, b, k);
        if (g->ua_of_call[f->cp[i]] == PK_NONE) continue;
        double v = pk_cg_call_value(cg, f->cp[i], ev);
        f->called[b] = k + 1;
        f->content[a] += v, f->inflow[b] += v;
    }
}

/* What part of unit u has no caller in the part just scanned: all of
 * it (nobody calls it there), the excess of its content over its inflow,
 * or nothing. */
static double rootless(const flow *f, uint32_t u, uint32_t k)
{
    if (f->called[u] != k + 1) return f->content[u] > 0 ? f->content[u] : 1.0;
    double excess = f->content[u] - f->inflow[u];
    return excess > 1e-9 * fabs(f->content[u]) ? excess : 0.0;
}

/* Units of part k that hold more than their arcs carry in some event
 * other than the shaping one are partly roots too (with a weight of 0
 * for choosing the entry's root). Ends with the shaping event scanned. */
static void excess_in_any_event(flow *f, const pk_cg *cg, const cg_graph *g, uint32_t prim,
                                uint32_t k)
{
    for (uint32_t e = 0; e < cg->n_events; e++) {
        if (e == prim || cg->events[e].metric == PK_NONE) continue;
        flow_part(f, cg, g, e, k, 1);
        for (uint32_t i = 0; i < f->n_touched; i++)
            f->excess[f->touched[i]] |= rootless(f, f->touched[i], k) > 0;
    }
    flow_part(f, cg, g, prim, k, 1);
}

/* ------------------------------------------------------------------ */
/* Roots of the reconstructed tree                                    */
/* ------------------------------------------------------------------ */

pk_status cgt_entry(cgt *t, int kind, uint32_t *out)
{
    static const uint8_t entry_of[] = {PK_ENTRY_MAIN, PK_ENTRY_APP_THREAD, PK_ENTRY_UNKNOWN};
    pk_status st = PK_OK;
    if (t->entry[kind] == PK_NONE) {
        st = cgt_node(t, 0, TN_ENTRY, PK_NONE, PK_NONE, PK_NONE, 1.0, &t->entry[kind]);
        if (!st) t->nodes[t->entry[kind]].entry = entry_of[kind];
    }
    *out = t->entry[kind];
    return st;
}

/* Unit u as a root of part k under entry `kind` (one node per entry and
 * unit, shared by the parts that put it there), for `share` of the unit:
 * what shapes the tree below it (a unit that is mostly called is a root
 * for little, and its subtree weighs that little). */
static pk_status place_root(cgt *t, uint32_t **node, int kind, uint32_t u, uint32_t k, double share)
{
    uint32_t e, n = node[kind][u];
    pk_status st = PK_OK;
    if (n == PK_NONE) {
        st = cgt_entry(t, kind, &e);
        if (!st) st = cgt_node(t, e, TN_UNIT, cgt_unit_function(t, u), u, PK_NONE, share, &n);
        if (st) return st;
        node[kind][u] = n;
    } else if (share > t->phi[n]) {
        t->phi[n] = share;
    }
    if (pk_vec_reserve((void **)&t->roots, &t->cap_roots, t->n_roots + 1u, sizeof *t->roots))
        return pk_fail_nomem("reconstructing the calling-context tree");
    t->roots[t->n_roots++] = (troot){n, k};
    return PK_OK;
}

/* The part's entry ("main thread", "application thread") gets its
 * heaviest unit nobody calls (else its heaviest partial root); every
 * other root goes under "<no caller>". */
static pk_status roots_of_part(cgt *t, const flow *f, uint32_t **node, uint32_t k)
{
    uint32_t best = PK_NONE;
    int best_pure = 0;
    for (uint32_t i = 0; i < f->n_touched; i++) {
        uint32_t u = f->touched[i];
        double w = rootless(f, u, k);
        int pure = f->called[u] != k + 1;
        if (w == 0.0) continue;
        if (best == PK_NONE || pure > best_pure || (pure == best_pure && w > rootless(f, best, k)))
            best = u, best_pure = pure;
    }
    int own = t->cg->parts[k].thread <= 1 ? 0 : 1;
    pk_status st = PK_OK;
    for (uint32_t i = 0; i < f->n_touched && !st; i++) {
        uint32_t u = f->touched[i];
        double w = rootless(f, u, k), c = f->content[u];
        if (w == 0.0 && !f->excess[u]) continue;
        double share = f->called[u] != k + 1 || !(c > 0) ? 1.0 : w / c;
        st = place_root(t, node, u == best ? own : 2, u, k, share > 0 ? share : 1e-9);
    }
    return st;
}

pk_status cgt_roots(cgt *t)
{
    flow f;
    size_t nu = (size_t)t->g->n_units + 1;
    uint32_t *node[3] = {malloc(nu * 4), malloc(nu * 4), malloc(nu * 4)};
    pk_status st = flow_init(&f, t->cg, t->g);
    if (!st && (!node[0] || !node[1] || !node[2]))
        st = pk_fail_nomem("reconstructing the calling-context tree");
    for (int k = 0; k < 3 && !st; k++)
        memset(node[k], 0xff, nu * 4);
    for (uint32_t k = 0; k < t->cg->n_parts && !st; k++) {
        flow_part(&f, t->cg, t->g, t->prim, k, 0);
        excess_in_any_event(&f, t->cg, t->g, t->prim, k);
        st = roots_of_part(t, &f, node, k);
    }
    free(node[0]), free(node[1]), free(node[2]);
    flow_free(&f);
    return st;
}

/* ------------------------------------------------------------------ */
/* What the arcs and the costs they lead to disagree on               */
/* ------------------------------------------------------------------ */

typedef struct report {
    double *deficit; /* per unit, over the parts */
    double total, short_sum, excess_sum;
    double unexplained; /* short_sum beyond what the parts' summary: lines count */
    uint32_t n_short, n_excess;
} report;

/* How much more part k's summary: line states of event ev than its cost
 * lines hold (0 if it states no more): cost valgrind counted and charged
 * to no line, which the arcs into a function may carry. */
static double stated_slack(const pk_cg *cg, const flow *f, uint32_t k, uint32_t ev)
{
    const double *says = pk_cg_part_statement(cg, &cg->parts[k]);
    if (!says) return 0;
    double sum = 0;
    for (uint64_t j = f->ss[k]; j < f->ss[k + 1]; j++)
        sum += pk_cg_self_value(cg, f->sp[j], ev);
    return says[ev] > sum ? says[ev] - sum : 0;
}

static void tally(report *r, const flow *f, uint32_t k, double slack)
{
    double part_short = 0;
    for (uint32_t i = 0; i < f->n_touched; i++) {
        uint32_t u = f->touched[i];
        double c = f->content[u], in = f->inflow[u];
        if (f->called[u] == k + 1 && in - c > 1e-9 * fabs(in)) {
            if (r->deficit[u] == 0) r->n_short++;
            r->deficit[u] += in - c, r->short_sum += in - c, part_short += in - c;
        } else if (f->called[u] == k + 1 && rootless(f, u, k) > 0) {
            r->n_excess++, r->excess_sum += c - in;
        }
    }
    if (part_short > slack * (1 + 1e-12)) r->unexplained += part_short - slack;
}

/* The unit with the largest deficit not yet named (marked by negating). */
static uint32_t worst(report *r, uint32_t n_units)
{
    uint32_t w = PK_NONE;
    for (uint32_t u = 0; u < n_units; u++)
        if (r->deficit[u] > 0 && (w == PK_NONE || r->deficit[u] > r->deficit[w])) w = u;
    return w;
}

static void say(pk_profile *p, const cg_graph *g, report *r, uint32_t ev)
{
    const char *evn = p->cg->events[ev].name;
    double pct = r->total ? 100.0 * r->short_sum / fabs(r->total) : 0;
    if (r->n_short) {
        char names[600] = "";
        for (int i = 0; i < 3; i++) {
            uint32_t u = worst(r, g->n_units);
            if (u == PK_NONE) break;
            const char *nm = p->functions[g->members[g->mem_start[u]]].name;
            size_t l = strlen(names);
            snprintf(names + l, sizeof names - l, "%s'%.150s' by %.17g", i ? ", " : "",
                     nm ? nm : "?", r->deficit[u]);
            r->deficit[u] = -r->deficit[u];
        }
        /* Where each part's summary: line counts the difference, the file
         * says so itself (valgrind charges a thread's last instructions to
         * no line, but to the call that started it): a note. */
        int stated = r->unexplained == 0;
        pk_model_diag(p, stated ? PK_SEV_NOTE : PK_SEV_WARNING, "calls-exceed-costs", NULL, NULL, 0,
                      0,
                      "the calls into %u function%s carry more %s than %s (self cost and "
                      "calls): %s; in the reconstructed tree their callers' inclusive costs fall "
                      "short of their calls by up to %.3g (%.2g%% of the total)%s",
                      r->n_short, r->n_short == 1 ? "" : "s", evn,
                      r->n_short == 1 ? "it holds" : "they hold", names, r->short_sum, pct,
                      stated ? "; the file's summary: lines count that cost, which it charges "
                               "to no cost line (as valgrind does with a thread's or the "
                               "program's last instructions)"
                             : "");
    }
    if (r->n_excess)
        pk_model_diag(p, PK_SEV_NOTE, "cost-without-caller", NULL, NULL, 0, 0,
                      "%u function%s hold more %s than the calls into them carry (a thread "
                      "charged to the clone() that started it, a call begun before a dump): "
                      "the excess, %.3g (%.2g%% of the total), has no caller and hangs under "
                      "<no caller> in the reconstructed tree",
                      r->n_excess, r->n_excess == 1 ? "" : "s", evn, r->excess_sum,
                      r->total ? 100.0 * r->excess_sum / fabs(r->total) : 0.0);
}

pk_status cg_flow_report(pk_profile *p, const cg_graph *g, uint32_t ev)
{
    const pk_cg *cg = p->cg;
    flow f;
    report r = {calloc((size_t)g->n_units + 1, sizeof *r.deficit), 0, 0, 0, 0, 0, 0};
    pk_status st = flow_init(&f, cg, g);
    if (!st && !r.deficit) st = pk_fail_nomem("reading the call graph");
    for (uint64_t i = 0; i < cg->n_self && !st; i++)
        r.total += pk_cg_self_value(cg, i, ev);
    for (uint32_t k = 0; k < cg->n_parts && !st; k++) {
        flow_part(&f, cg, g, ev, k, 0);
        tally(&r, &f, k, stated_slack(cg, &f, k, ev));
    }
    if (!st) say(p, g, &r, ev);
    free(r.deficit);
    flow_free(&f);
    return st;
}
