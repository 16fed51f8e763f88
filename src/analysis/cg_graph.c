/*
 * analysis/cg_graph.c — strongly connected components of a call graph
 * (Tarjan's algorithm with an explicit stack: a call chain a million deep
 * costs a million stack entries on the heap, never the C stack), the
 * units in topological order and the arcs between units.
 */
#include "cg_graph.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

void cg_graph_free(cg_graph *g)
{
    if (g->borrowed) {
        memset(g, 0, sizeof *g);
        return;
    }
    free(g->unit_of), free(g->mem_start), free(g->members), free(g->cycle_of), free(g->topo);
    free(g->ua_from), free(g->ua_to), free(g->out_start), free(g->in_start), free(g->in_ua);
    free(g->ua_of_call);
    memset(g, 0, sizeof *g);
}

/* Call records of the graph grouped by caller (counting sort, stable):
 * perm[start[f] .. start[f + 1]) are the records of caller f. */
static pk_status by_caller(const pk_cg *cg, uint32_t nf, uint32_t part, uint64_t **start,
                           uint32_t **perm)
{
    uint64_t *s = calloc((size_t)nf + 2, sizeof *s);
    uint32_t *pm = malloc((cg->n_calls + 1) * sizeof *pm);
    if (!s || !pm) {
        free(s), free(pm);
        return pk_fail_nomem("reading the call graph");
    }
    for (uint64_t i = 0; i < cg->n_calls; i++)
        if (cg_graph_keeps(&cg->calls[i], nf, part)) s[cg->calls[i].caller + 2]++;
    for (uint32_t f = 0; f < nf; f++)
        s[f + 2] += s[f + 1];
    for (uint64_t i = 0; i < cg->n_calls; i++)
        if (cg_graph_keeps(&cg->calls[i], nf, part)) pm[s[cg->calls[i].caller + 1]++] = (uint32_t)i;
    *start = s, *perm = pm;
    return PK_OK;
}

typedef struct tarjan {
    const uint64_t *start;
    const uint32_t *adj;
    uint32_t *index, *low, *stack, *comp, *call;
    uint8_t *on_stack;
    uint64_t *it;
    uint32_t next, sp, n_comp;
} tarjan;

static void visit(tarjan *t, uint32_t v, uint32_t *cs)
{
    t->index[v] = t->low[v] = ++t->next;
    t->stack[t->sp++] = v, t->on_stack[v] = 1, t->it[v] = t->start[v];
    t->call[(*cs)++] = v;
}

/* Components are numbered as they complete: callees before callers. */
static void strongconnect(tarjan *t, uint32_t root)
{
    uint32_t cs = 0;
    visit(t, root, &cs);
    while (cs) {
        uint32_t v = t->call[cs - 1];
        if (t->it[v] < t->start[v + 1]) {
            uint32_t w = t->adj[t->it[v]++];
            if (!t->index[w])
                visit(t, w, &cs);
            else if (t->on_stack[w] && t->index[w] < t->low[v])
                t->low[v] = t->index[w];
            continue;
        }
        cs--;
        if (cs && t->low[v] < t->low[t->call[cs - 1]]) t->low[t->call[cs - 1]] = t->low[v];
        if (t->low[v] != t->index[v]) continue;
        uint32_t w, c = t->n_comp++;
        do {
            w = t->stack[--t->sp];
            t->on_stack[w] = 0, t->comp[w] = c;
        } while (w != v);
    }
}

pk_status cg_scc(uint32_t n, const uint64_t *start, const uint32_t *adj, uint32_t *comp,
                 uint32_t *n_comp)
{
    size_t m = (size_t)n + 1;
    tarjan t = {start, adj, NULL, NULL, NULL, comp, NULL, NULL, NULL, 0, 0, 0};
    t.index = calloc(m, 4), t.low = malloc(m * 4), t.stack = malloc(m * 4);
    t.call = malloc(m * 4), t.on_stack = calloc(m, 1), t.it = malloc(m * 8);
    pk_status st = t.index && t.low && t.stack && t.call && t.on_stack && t.it
                       ? PK_OK
                       : pk_fail_nomem("finding cycles");
    for (uint32_t v = 0; v < n && !st; v++)
        if (!t.index[v]) strongconnect(&t, v);
    *n_comp = t.n_comp;
    free(t.index), free(t.low), free(t.stack), free(t.call), free(t.on_stack), free(t.it);
    return st;
}

/* Units from components: members, cycle numbers (by smallest member, as
 * KCachegrind numbers them) and the topological order. */
static pk_status units(cg_graph *g, uint32_t *comp, uint32_t n_comp)
{
    uint32_t nf = g->nf, n = n_comp;
    g->n_units = n, g->unit_of = comp;
    g->mem_start = calloc((size_t)n + 2, sizeof *g->mem_start);
    g->members = malloc(((size_t)nf + 1) * sizeof *g->members);
    g->cycle_of = calloc((size_t)n + 1, sizeof *g->cycle_of);
    g->topo = malloc(((size_t)n + 1) * sizeof *g->topo);
    if (!g->mem_start || !g->members || !g->cycle_of || !g->topo)
        return pk_fail_nomem("finding cycles");
    for (uint32_t f = 0; f < nf; f++)
        g->mem_start[comp[f] + 2]++;
    for (uint32_t u = 0; u < n; u++)
        g->mem_start[u + 2] += g->mem_start[u + 1];
    for (uint32_t f = 0; f < nf; f++)
        g->members[g->mem_start[comp[f] + 1]++] = f;
    for (uint32_t f = 0; f < nf; f++) {
        uint32_t u = comp[f];
        if (!g->cycle_of[u] && g->mem_start[u + 1] - g->mem_start[u] > 1)
            g->cycle_of[u] = ++g->n_cycles;
    }
    for (uint32_t i = 0; i < n; i++)
        g->topo[i] = n - 1 - i;
    return PK_OK;
}

/* Unit arcs, one per (caller, called unit), in caller order. */
static pk_status unit_arcs(cg_graph *g, const pk_cg *cg, const uint64_t *start,
                           const uint32_t *perm)
{
    uint32_t nf = g->nf;
    uint64_t n = start[nf];
    uint32_t *stamp = malloc(((size_t)g->n_units + 1) * sizeof *stamp);
    uint32_t *slot = malloc(((size_t)g->n_units + 1) * sizeof *slot);
    g->ua_from = malloc((n + 1) * sizeof *g->ua_from);
    g->ua_to = malloc((n + 1) * sizeof *g->ua_to);
    g->out_start = malloc(((size_t)nf + 1) * sizeof *g->out_start);
    g->ua_of_call = malloc((cg->n_calls + 1) * sizeof *g->ua_of_call);
    pk_status st = stamp && slot && g->ua_from && g->ua_to && g->out_start && g->ua_of_call
                       ? PK_OK
                       : pk_fail_nomem("reading the call graph");
    if (!st) {
        memset(stamp, 0xff, ((size_t)g->n_units + 1) * sizeof *stamp);
        memset(g->ua_of_call, 0xff, (cg->n_calls + 1) * sizeof *g->ua_of_call);
    }
    for (uint32_t f = 0; f < nf && !st; f++) {
        g->out_start[f] = g->n_ua;
        for (uint64_t k = start[f]; k < start[f + 1]; k++) {
            uint32_t v = g->unit_of[cg->calls[perm[k]].callee];
            if (v == g->unit_of[f]) continue; /* inside a cycle */
            if (stamp[v] != f) {
                stamp[v] = f, slot[v] = (uint32_t)g->n_ua;
                g->ua_from[g->n_ua] = f, g->ua_to[g->n_ua++] = v;
            }
            g->ua_of_call[perm[k]] = slot[v];
        }
    }
    if (!st) g->out_start[nf] = g->n_ua;
    free(stamp), free(slot);
    return st;
}

/* in_start/in_ua: unit arcs grouped by the unit they enter. */
static pk_status arcs_in(cg_graph *g)
{
    g->in_start = calloc((size_t)g->n_units + 2, sizeof *g->in_start);
    g->in_ua = malloc((g->n_ua + 1) * sizeof *g->in_ua);
    if (!g->in_start || !g->in_ua) return pk_fail_nomem("reading the call graph");
    for (uint64_t a = 0; a < g->n_ua; a++)
        g->in_start[g->ua_to[a] + 2]++;
    for (uint32_t u = 0; u < g->n_units; u++)
        g->in_start[u + 2] += g->in_start[u + 1];
    for (uint64_t a = 0; a < g->n_ua; a++)
        g->in_ua[g->in_start[g->ua_to[a] + 1]++] = (uint32_t)a;
    return PK_OK;
}

static void free_kept(void *g)
{
    cg_graph_free(g);
    free(g);
}

pk_status cg_graph_keep(pk_cg *cg, cg_graph *g)
{
    cg_graph *kept = malloc(sizeof *kept);
    if (!kept) {
        cg_graph_free(g);
        return pk_fail_nomem("keeping the call graph");
    }
    *kept = *g;
    memset(g, 0, sizeof *g);
    if (cg->kept_graph_free) cg->kept_graph_free(cg->kept_graph);
    cg->kept_graph = kept, cg->kept_graph_free = free_kept;
    return PK_OK;
}

pk_status cg_graph_build(const pk_cg *cg, uint32_t nf, uint32_t part, cg_graph *g)
{
    const cg_graph *kept = cg->kept_graph;
    if (part == PK_NONE && kept && kept->nf == nf && kept->calls == cg->calls &&
        kept->n_calls == cg->n_calls) {
        *g = *kept;
        g->borrowed = 1;
        return PK_OK;
    }
    memset(g, 0, sizeof *g);
    g->nf = nf, g->calls = cg->calls, g->n_calls = cg->n_calls;
    uint64_t *start = NULL;
    uint32_t *perm = NULL, *adj = NULL, *comp = NULL, n_comp = 0;
    pk_status st = by_caller(cg, nf, part, &start, &perm);
    if (!st) {
        adj = malloc((start[nf] + 1) * sizeof *adj), comp = malloc(((size_t)nf + 1) * 4);
        if (!adj || !comp) st = pk_fail_nomem("finding cycles");
    }
    for (uint64_t k = 0; !st && k < start[nf]; k++)
        adj[k] = cg->calls[perm[k]].callee;
    if (!st) st = cg_scc(nf, start, adj, comp, &n_comp);
    if (!st) {
        st = units(g, comp, n_comp);
        comp = NULL; /* g->unit_of owns it */
    }
    if (!st) st = unit_arcs(g, cg, start, perm);
    if (!st) st = arcs_in(g);
    free(comp), free(adj), free(start), free(perm);
    if (st) cg_graph_free(g);
    return st;
}
