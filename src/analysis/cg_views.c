/*
 * analysis/cg_views.c — the views a call graph answers exactly, with no
 * calling-context tree: caller and callee lists with call counts and the
 * inclusive cost of each arc (as KCachegrind lists them), the flat profile
 * by function, file, module or line with call counts, and the functions a
 * name or a regular expression picks.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/qry.h"
#include "cg_graph.h"
#include "profkit/analysis.h"
#include "profkit/callgraph.h"
#include "profkit/pattern.h"
#include "util/error.h"
#include "util/radix.h"
#include "util/vec.h"

/* The functions named exactly `name`, into list (room for all). */
static size_t named(const pk_profile *p, const char *name, pk_index *list)
{
    size_t k = 0;
    for (uint32_t f = 0; f < p->n_functions; f++)
        if (p->functions[f].name && strcmp(p->functions[f].name, name) == 0) list[k++] = f;
    return k;
}

pk_status pkq_functions_named(const pk_profile *p, const char *name, pk_index **out, size_t *n)
{
    pk_index *list = malloc(((size_t)p->n_functions + 1) * sizeof *list);
    if (!list) return pk_fail_nomem("matching function names");
    *out = list, *n = named(p, name, list);
    return PK_OK;
}

pk_status pk_functions_matching(const pk_profile *p, const char *pattern, pk_index **out, size_t *n)
{
    if (!p || !pattern || !out || !n)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_functions_matching: NULL argument");
    pk_index *list = malloc(((size_t)p->n_functions + 1) * sizeof *list);
    if (!list) return pk_fail_nomem("matching function names");
    size_t k = named(p, pattern, list);
    pk_pattern *re = NULL;
    pk_status st = k ? PK_OK : pk_pattern_compile(pattern, 0, &re);
    if (st == PK_ERR_INVALID_ARG)
        st = pk_fail(PK_ERR_INVALID_ARG, "'%s' is no function name; as a %s", pattern,
                     pk_error_last());
    for (uint32_t f = 0; re && !st && f < p->n_functions; f++) {
        const char *name = p->functions[f].name;
        int hit = 0;
        if (name) st = pk_pattern_match(re, name, strlen(name), &hit);
        if (hit) list[k++] = f;
    }
    pk_pattern_free(re);
    if (st) return free(list), st;
    if (!k) {
        free(list);
        return pk_fail(PK_ERR_NOT_FOUND, "no function named or matching '%s'", pattern);
    }
    *out = list, *n = k;
    return PK_OK;
}

void pk_functions_free(pk_index *list)
{
    free(list);
}

/* The part of `location` (PK_NONE: all). */
static pk_status part_of(const pk_profile *p, pk_index location, size_t event, uint32_t *part)
{
    if (!p) return pk_fail(PK_ERR_INVALID_ARG, "no profile");
    if (!p->cg) return pk_fail(PK_ERR_NOT_FOUND, "%s: the profile has no call graph", p->path);
    if (event >= p->cg->n_events)
        return pk_fail(PK_ERR_INVALID_ARG, "event %zu out of range", event);
    *part = PK_NONE;
    for (uint32_t k = 0; location != PK_NONE && k < p->cg->n_parts; k++)
        if (p->cg->parts[k].location == location) *part = k;
    if (location != PK_NONE && *part == PK_NONE)
        return pk_fail(PK_ERR_INVALID_ARG, "location %u has no call graph part", location);
    return PK_OK;
}

static int by_inclusive_desc(const void *a, const void *b)
{
    const pk_cg_arc_row *x = a, *y = b;
    if (x->inclusive != y->inclusive) return x->inclusive > y->inclusive ? -1 : 1;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return x->function < y->function ? -1 : x->function > y->function;
}

/* Whether call record c is one of the arcs asked for: into (callers) or
 * out of `function`, or for a cycle function, into or out of the cycle
 * from or to outside it (`unit` of every function, cycle unit `cu`). */
static int wanted_arc(const pk_cg_call_rec *c, int callers, pk_index function, const uint32_t *unit,
                      uint32_t cu)
{
    if (unit) {
        uint32_t in = unit[callers ? c->callee : c->caller],
                 out = unit[callers ? c->caller : c->callee];
        return in == cu && out != cu;
    }
    return (callers ? c->callee : c->caller) == function;
}

/* The unit of every function when `function` is a "<cycle N>": its cycle
 * as a unit; else NULL (and *cu PK_NONE). */
static pk_status cycle_units(const pk_profile *p, pk_index function, uint32_t part, cg_graph *g,
                             uint32_t *cu)
{
    const pk_cg *cg = p->cg;
    *cu = PK_NONE;
    memset(g, 0, sizeof *g);
    if (function < cg->n_functions) return PK_OK;
    uint32_t n = function - cg->first_cycle_function + 1;
    if (function < cg->first_cycle_function || n > cg->n_cycle_functions)
        return pk_fail(PK_ERR_INVALID_ARG, "pk_callgraph_arcs: no such call graph function");
    pk_status st = cg_graph_build(cg, cg->n_functions, part, g);
    for (uint32_t u = 0; !st && u < g->n_units; u++)
        if (g->cycle_of[u] == n) *cu = u;
    return st;
}

pk_status pk_callgraph_arcs(const pk_profile *p, pk_index function, int callers, pk_index location,
                            size_t event, pk_cg_arc_row **rows, size_t *n_rows)
{
    uint32_t part, cu;
    pk_status st = part_of(p, location, event, &part);
    if (st) return st;
    const pk_cg *cg = p->cg;
    if (!rows || !n_rows) return pk_fail(PK_ERR_INVALID_ARG, "pk_callgraph_arcs: NULL argument");
    cg_graph g;
    st = cycle_units(p, function, PK_NONE, &g, &cu);
    if (st) return st;
    const uint32_t *unit = cu != PK_NONE ? g.unit_of : NULL;
    uint32_t *slot = malloc(((size_t)cg->n_functions + 1) * sizeof *slot);
    pk_cg_arc_row *r = NULL;
    size_t n = 0, cap = 0;
    if (!slot) st = pk_fail_nomem("listing calls");
    if (slot) memset(slot, 0xff, ((size_t)cg->n_functions + 1) * sizeof *slot);
    for (uint64_t i = 0; i < cg->n_calls && !st; i++) {
        const pk_cg_call_rec *c = &cg->calls[i];
        if ((part != PK_NONE && c->part != part) || c->caller >= cg->n_functions ||
            c->callee >= cg->n_functions || !wanted_arc(c, callers, function, unit, cu))
            continue;
        uint32_t other = callers ? c->caller : c->callee;
        if (slot[other] == PK_NONE) {
            if (pk_vec_reserve((void **)&r, &cap, n + 1, sizeof *r)) {
                st = pk_fail_nomem("listing calls");
                break;
            }
            slot[other] = (uint32_t)n;
            r[n++] = (pk_cg_arc_row){other, 0, 0};
        }
        r[slot[other]].count += c->count;
        r[slot[other]].inclusive += pk_cg_call_value(cg, i, (uint32_t)event);
    }
    free(slot);
    cg_graph_free(&g);
    if (st) {
        free(r);
        return st;
    }
    if (n) qsort(r, n, sizeof *r, by_inclusive_desc);
    *rows = r, *n_rows = n;
    return PK_OK;
}

void pk_callgraph_arcs_free(pk_cg_arc_row *rows)
{
    free(rows);
}

/* ------------------------------------------------------------------ */
/* The flat profile                                                   */
/* ------------------------------------------------------------------ */

static int by_exclusive_desc(const void *a, const void *b)
{
    const pk_flat_row *x = a, *y = b;
    if (x->exclusive != y->exclusive) return x->exclusive > y->exclusive ? -1 : 1;
    if (x->inclusive != y->inclusive) return x->inclusive > y->inclusive ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static pk_status flat_functions(const pk_profile *p, pk_index location, size_t event,
                                pk_flat_row **rows, size_t *n_rows)
{
    size_t nf = p->n_functions;
    pk_cg_function_cost *c = malloc((nf + 1) * sizeof *c);
    pk_flat_row *r = malloc((nf + 1) * sizeof *r);
    pk_status st = c && r ? PK_OK : pk_fail_nomem("the flat profile");
    if (!st) st = pk_callgraph_function_costs(p, location, event, c, NULL, NULL);
    size_t n = 0;
    for (size_t f = 0; f < nf && !st; f++)
        if (c[f].self != 0 || c[f].inclusive != 0 || c[f].called != 0)
            r[n++] = (pk_flat_row){f, c[f].self, c[f].inclusive, 0, c[f].called};
    free(c);
    if (st) {
        free(r);
        return st;
    }
    *rows = r, *n_rows = n;
    return PK_OK;
}

/* Groups (files or modules) as a graph of their own: a group's inclusive
 * cost is its self cost plus the calls leaving the strongly connected
 * component it is in (groups calling each other count those calls once). */
typedef struct groups {
    uint32_t n;      /* groups; group n - 1 is "unknown" */
    uint32_t *of_fn; /* per call graph function: its group */
    double *self, *incl, *called;
    uint64_t *start; /* arcs between groups, by caller group */
    uint32_t *adj, *comp;
} groups;

static void groups_free(groups *g)
{
    free(g->of_fn), free(g->self), free(g->incl), free(g->called), free(g->start), free(g->adj);
    free(g->comp);
}

static uint32_t group_of(const groups *g, uint32_t idx)
{
    return idx == PK_NONE || idx >= g->n - 1 ? g->n - 1 : idx;
}

static pk_status group_graph(const pk_cg *cg, uint32_t part, groups *g)
{
    size_t n = (size_t)g->n + 2;
    g->start = calloc(n, sizeof *g->start), g->adj = malloc((cg->n_calls + 1) * 4);
    g->comp = malloc(n * 4);
    if (!g->start || !g->adj || !g->comp) return pk_fail_nomem("the flat profile");
    for (int pass = 0; pass < 2; pass++) {
        for (uint64_t i = 0; i < cg->n_calls; i++) {
            const pk_cg_call_rec *c = &cg->calls[i];
            if (!cg_graph_keeps(c, cg->n_functions, part)) continue;
            uint32_t a = g->of_fn[c->caller], b = g->of_fn[c->callee];
            if (a == b) continue;
            if (pass == 0)
                g->start[a + 2]++;
            else
                g->adj[g->start[a + 1]++] = b;
        }
        for (uint32_t k = 0; pass == 0 && k < g->n; k++)
            g->start[k + 2] += g->start[k + 1];
    }
    uint32_t n_comp;
    return cg_scc(g->n, g->start, g->adj, g->comp, &n_comp);
}

static pk_status group_costs(const pk_profile *p, uint32_t part, size_t event, int by_file,
                             groups *g)
{
    const pk_cg *cg = p->cg;
    uint32_t ng = (by_file ? p->n_files : p->n_modules) + 1;
    g->n = ng;
    g->of_fn = malloc(((size_t)cg->n_functions + 1) * 4);
    g->self = calloc(ng, 8), g->incl = calloc(ng, 8), g->called = calloc(ng, 8);
    if (!g->of_fn || !g->self || !g->incl || !g->called) return pk_fail_nomem("the flat profile");
    for (uint32_t f = 0; f < cg->n_functions; f++)
        g->of_fn[f] = f < p->n_functions
                          ? group_of(g, by_file ? p->functions[f].file : p->functions[f].module)
                          : ng - 1;
    pk_status st = group_graph(cg, part, g);
    for (uint64_t i = 0; i < cg->n_self && !st; i++) {
        const pk_cg_self_rec *r = &cg->self[i];
        if ((part != PK_NONE && r->part != part) || r->fn >= cg->n_functions) continue;
        uint32_t k = by_file ? group_of(g, r->file) : g->of_fn[r->fn];
        double v = pk_cg_self_value(cg, i, (uint32_t)event);
        g->self[k] += v, g->incl[k] += v;
    }
    for (uint64_t i = 0; i < cg->n_calls && !st; i++) {
        const pk_cg_call_rec *c = &cg->calls[i];
        if (!cg_graph_keeps(c, cg->n_functions, part)) continue;
        uint32_t a = g->of_fn[c->caller], b = g->of_fn[c->callee];
        if (g->comp[a] == g->comp[b]) continue;
        g->incl[a] += pk_cg_call_value(cg, i, (uint32_t)event);
        g->called[b] += c->count;
    }
    return st;
}

static pk_status flat_groups(const pk_profile *p, uint32_t part, size_t event, int by_file,
                             pk_flat_row **rows, size_t *n_rows)
{
    groups g = {0};
    pk_status st = group_costs(p, part, event, by_file, &g);
    pk_flat_row *r = st ? NULL : malloc(((size_t)g.n + 1) * sizeof *r);
    if (!st && !r) st = pk_fail_nomem("the flat profile");
    size_t n = 0;
    for (uint32_t k = 0; k < g.n && !st; k++)
        if (g.self[k] != 0 || g.incl[k] != 0 || g.called[k] != 0)
            r[n++] =
                (pk_flat_row){k == g.n - 1 ? PK_NONE : k, g.self[k], g.incl[k], 0, g.called[k]};
    groups_free(&g);
    if (st) {
        free(r);
        return st;
    }
    *rows = r, *n_rows = n;
    return PK_OK;
}

/* Lines: one item per self record and per call record, by (file, line). */
typedef struct line_item {
    double self, incl, calls;
} line_item;

static uint64_t line_key(uint32_t file, uint32_t line)
{
    return (uint64_t)file << 32 | line;
}

/* The items and their (key, item) pairs, in record order: self records
 * first, then calls. */
static void line_items(const pk_cg *cg, const cg_graph *g, uint32_t part, size_t event,
                       line_item *it, pk_radix_kv *kv, size_t *n_out)
{
    size_t n = 0;
    for (uint64_t i = 0; i < cg->n_self; i++) {
        const pk_cg_self_rec *r = &cg->self[i];
        if (part != PK_NONE && r->part != part) continue;
        double v = pk_cg_self_value(cg, i, (uint32_t)event);
        kv[n] = (pk_radix_kv){line_key(r->file, r->line), n};
        it[n++] = (line_item){v, v, 0};
    }
    for (uint64_t i = 0; i < cg->n_calls; i++) {
        const pk_cg_call_rec *c = &cg->calls[i];
        if (!cg_graph_keeps(c, g->nf, part)) continue;
        double v = g->ua_of_call[i] == PK_NONE ? 0 : pk_cg_call_value(cg, i, (uint32_t)event);
        kv[n] = (pk_radix_kv){line_key(c->file, c->line), n};
        it[n++] = (line_item){0, v, c->count};
    }
    *n_out = n;
}

/* One row per line, in key order; a line's items summed in record order
 * (the radix sort is stable), as the stable sort this replaced summed
 * them: the same sums to the last bit. NULL when out of memory. */
static pk_flat_row *sum_lines(const line_item *it, const pk_radix_kv *kv, size_t n, size_t *n_rows)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += !i || kv[i].key != kv[i - 1].key;
    pk_flat_row *r = malloc((k + 1) * sizeof *r);
    if (!r) return NULL;
    k = 0;
    for (size_t i = 0; i < n; i++) {
        const line_item *x = &it[kv[i].val];
        if (!k || r[k - 1].key != kv[i].key) r[k++] = (pk_flat_row){kv[i].key, 0, 0, 0, 0};
        r[k - 1].exclusive += x->self, r[k - 1].inclusive += x->incl;
        r[k - 1].calls += x->calls;
    }
    *n_rows = k;
    return r;
}

static pk_status flat_lines(const pk_profile *p, uint32_t part, size_t event, pk_flat_row **rows,
                            size_t *n_rows)
{
    const pk_cg *cg = p->cg;
    if (cg->by_function)
        return pk_fail(PK_ERR_UNSUPPORTED, "%s: opened by function: no source lines to group by",
                       p->path);
    size_t cap = cg->n_self + cg->n_calls + 1, n = 0;
    line_item *it = malloc(cap * sizeof *it);
    pk_radix_kv *kv = malloc(2 * cap * sizeof *kv);
    cg_graph g;
    pk_status st = it && kv ? cg_graph_build(cg, cg->n_functions, part, &g)
                            : pk_fail_nomem("the flat profile");
    if (!st) {
        line_items(cg, &g, part, event, it, kv, &n);
        cg_graph_free(&g);
        pk_radix_sort_kv(kv, kv + cap, n);
        *rows = sum_lines(it, kv, n, n_rows);
        if (!*rows) st = pk_fail_nomem("the flat profile");
    }
    free(it), free(kv);
    return st;
}

pk_status pkq_callgraph_flat_by_key(const pk_profile *p, pk_index location, size_t event,
                                    pk_group_by by, pk_flat_row **rows, size_t *n_rows)
{
    uint32_t part;
    pk_status st = part_of(p, location, event, &part);
    if (st) return st;
    if (!rows || !n_rows) return pk_fail(PK_ERR_INVALID_ARG, "pk_callgraph_flat: NULL argument");
    switch (by) { /* each makes its rows in key order */
    case PK_BY_FUNCTION:
        return flat_functions(p, location, event, rows, n_rows);
    case PK_BY_FILE:
    case PK_BY_MODULE:
        return flat_groups(p, part, event, by == PK_BY_FILE, rows, n_rows);
    case PK_BY_LINE:
        return flat_lines(p, part, event, rows, n_rows);
    default:
        return pk_fail(PK_ERR_INVALID_ARG, "unknown grouping %d", (int)by);
    }
}

pk_status pk_callgraph_flat(const pk_profile *p, pk_index location, size_t event, pk_group_by by,
                            pk_flat_row **rows, size_t *n_rows)
{
    pk_status st = pkq_callgraph_flat_by_key(p, location, event, by, rows, n_rows);
    if (!st && *n_rows) qsort(*rows, *n_rows, sizeof **rows, by_exclusive_desc);
    return st;
}
