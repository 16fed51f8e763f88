/*
 * analysis/function_lines.c — the source lines of given functions with
 * only those functions' own costs (profkit/annotate.h), as `pprof list`
 * shows a function: the per-line flat profile (pk_line_costs()) mixes
 * every function that has code on a line, so a function's listing built
 * from it would show its neighbours' and its inlined callees' costs.
 *
 * A calling-context tree: a context belongs to the nearest enclosing
 * function frame through lexical relations (loops, lines, instructions);
 * an inlined function is a frame of its own, so the caller keeps only the
 * call site's line. A call graph: a function's own cost records and the
 * calls it makes (callgrind_annotate's attribution, one function only).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/context_groups.h"
#include "cg_graph.h"
#include "model/model.h"
#include "profkit/annotate.h"
#include "util/error.h"
#include "util/vec.h"

/* One (function, file, line) with its costs. */
typedef struct fl_row {
    uint32_t slot, file, line;
    double self, incl, calls;
} fl_row;

static int by_slot_file_line(const void *a, const void *b)
{
    const fl_row *x = a, *y = b;
    if (x->slot != y->slot) return x->slot < y->slot ? -1 : 1;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Sort the rows and sum those of one key; the number left. */
static size_t merge_rows(fl_row *r, size_t n)
{
    size_t k = 0;
    if (n) qsort(r, n, sizeof *r, by_slot_file_line);
    for (size_t i = 0; i < n; i++) {
        if (k && !by_slot_file_line(&r[k - 1], &r[i])) {
            r[k - 1].self += r[i].self, r[k - 1].incl += r[i].incl, r[k - 1].calls += r[i].calls;
            continue;
        }
        r[k++] = r[i];
    }
    return k;
}

/* The merged rows as each function's sorted line costs. */
static pk_status split_rows(const fl_row *r, size_t n, pk_function_lines *out, size_t n_fns)
{
    size_t i = 0;
    for (size_t s = 0; s < n_fns; s++) {
        size_t end = i;
        while (end < n && r[end].slot == s)
            end++;
        out[s].lines = malloc((end - i + 1) * sizeof *out[s].lines);
        if (!out[s].lines) return pk_fail_nomem("collecting a function's line costs");
        for (size_t k = i; k < end; k++)
            out[s].lines[k - i] =
                (pk_line_cost){r[k].file, r[k].line, r[k].self, r[k].incl, r[k].calls};
        out[s].n_lines = end - i, i = end;
    }
    return PK_OK;
}

void pk_function_lines_free(pk_function_lines *fl, size_t n)
{
    for (size_t i = 0; fl && i < n; i++)
        free(fl[i].lines), fl[i].lines = NULL;
}

typedef struct fn_ref {
    const char *name; /* interned: equal names are equal pointers */
    uint32_t module, index;
} fn_ref;

static int by_name_module(const void *a, const void *b)
{
    const fn_ref *x = a, *y = b;
    if (x->name != y->name) return (uintptr_t)x->name < (uintptr_t)y->name ? -1 : 1;
    if (x->module != y->module) return x->module < y->module ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Functions that differ only in their index (a file may list a name
 * twice) are one, as flat groups them: every one of a group asked about
 * maps to the first asked about (the others' same_as say so). */
static void group_slots(const pk_profile *p, fn_ref *order, uint32_t *slot, pk_function_lines *out)
{
    uint32_t nm = p->n_functions;
    for (uint32_t f = 0; f < nm; f++)
        order[f] = (fn_ref){p->functions[f].name, p->functions[f].module, f};
    qsort(order, nm, sizeof *order, by_name_module);
    for (uint32_t a = 0, b; a < nm; a = b) {
        uint32_t first = PK_NONE;
        for (b = a; b < nm && order[b].name && order[b].name == order[a].name &&
                    order[b].module == order[a].module;
             b++)
            if (slot[order[b].index] != PK_NONE && slot[order[b].index] < first)
                first = slot[order[b].index];
        if (b == a) b = a + 1; /* an anonymous function is a group of its own */
        for (uint32_t k = a; k < b && first != PK_NONE; k++) {
            uint32_t f = order[k].index;
            if (slot[f] != PK_NONE && slot[f] != first) out[slot[f]].same_as = first;
            slot[f] = first;
        }
    }
}

/* Per function index: its place among the `n` asked about, or PK_NONE.
 * `nf` functions are indexed (a call graph's may be fewer or more than
 * the model's: cycles join the model later, CCT entries exist only in
 * the call graph); grouping reads every model function's, so the table
 * covers both. */
static pk_status slots_of(const pk_profile *p, const pk_index *functions, size_t n, uint32_t nf,
                          uint32_t **slot, pk_function_lines *out)
{
    if (nf < p->n_functions) nf = p->n_functions;
    *slot = malloc(((size_t)nf + 1) * sizeof **slot);
    fn_ref *order = malloc(((size_t)p->n_functions + 1) * sizeof *order);
    if (!*slot || !order) {
        free(*slot), free(order);
        return pk_fail_nomem("collecting functions' line costs");
    }
    for (uint32_t f = 0; f < nf; f++)
        (*slot)[f] = PK_NONE;
    for (size_t k = 0; k < n; k++) {
        out[k] = (pk_function_lines){.same_as = PK_NONE};
        if (functions[k] >= p->n_functions) {
            free(*slot), free(order);
            return pk_fail(PK_ERR_INVALID_ARG, "no function %u", functions[k]);
        }
        if ((*slot)[functions[k]] == PK_NONE) (*slot)[functions[k]] = (uint32_t)k;
    }
    group_slots(p, order, *slot, out);
    free(order);
    return PK_OK;
}

/* The tree's walk: per context the function it belongs to (its slot),
 * the row its inclusive value goes to and the row its self cost goes to. */
typedef struct tree_job {
    const pk_profile *p;
    const uint32_t *slot;
    uint32_t *owner, *group, *selfrow;
    fl_row *rows;
    size_t n_rows;
} tree_job;

static int is_frame(const pk_profile *p, const pk_ctx_rec *c)
{
    return (c->flags & PK_CTXF_HAS_FUNCTION) && c->function < p->n_functions;
}

/* The row key of context i, or slot PK_NONE: a line, loop or instruction
 * context's own line in the function it belongs to; a frame's own line
 * (a call site) in its caller. */
static fl_row key_of(const tree_job *j, uint32_t i)
{
    const pk_ctx_rec *c = &j->p->ctx[i];
    uint32_t par = c->parent < i ? c->parent : PK_NONE;
    int frame = is_frame(j->p, c);
    uint32_t who = !frame ? j->owner[i] : par != PK_NONE ? j->owner[par] : PK_NONE;
    int line = (c->flags & PK_CTXF_HAS_SRCLOC) && c->file < j->p->n_files && c->line;
    return (fl_row){line ? who : PK_NONE, c->file, c->line, 0, 0, 0};
}

static uint32_t find_row(const tree_job *j, const fl_row *key)
{
    size_t lo = 0, hi = j->n_rows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (by_slot_file_line(&j->rows[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

/* Owners (contexts come parents first), then rows and each context's. */
static void tree_groups(tree_job *j)
{
    const pk_profile *p = j->p;
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        const pk_ctx_rec *c = &p->ctx[i];
        int lex = c->relation == PK_REL_LEXICAL && c->parent < i;
        j->owner[i] = is_frame(p, c) ? j->slot[c->function] : lex ? j->owner[c->parent] : PK_NONE;
        fl_row k = key_of(j, i);
        if (k.slot != PK_NONE) j->rows[j->n_rows++] = k;
    }
    j->n_rows = merge_rows(j->rows, j->n_rows);
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        const pk_ctx_rec *c = &p->ctx[i];
        fl_row k = key_of(j, i);
        j->group[i] = k.slot == PK_NONE ? PK_NONE : find_row(j, &k);
        /* self: a line's own row, else (an instruction without a line)
         * its lexical parent's; a frame's own cost has no line in it */
        int lex = c->relation == PK_REL_LEXICAL && c->parent < i;
        j->selfrow[i] = is_frame(p, c)           ? PK_NONE
                        : j->group[i] != PK_NONE ? j->group[i]
                        : lex                    ? j->selfrow[c->parent]
                                                 : PK_NONE;
    }
}

/* Self: each context's point value, to its line's row or, without one,
 * to what its function has on no line. */
static void tree_self(tree_job *j, const double *excl, pk_function_lines *out)
{
    const pk_profile *p = j->p;
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        if (j->owner[i] == PK_NONE) continue;
        double own = pk_point_value(p, excl, i);
        out[j->owner[i]].self += own;
        if (j->selfrow[i] != PK_NONE)
            j->rows[j->selfrow[i]].self += own;
        else
            out[j->owner[i]].unlined += own;
    }
}

pk_status pk_function_line_costs(const pk_profile *p, const double *inclusive,
                                 const double *exclusive, const pk_index *functions, size_t n,
                                 pk_function_lines *out)
{
    if (!p || !inclusive || !exclusive || (n && (!functions || !out)))
        return pk_fail(PK_ERR_INVALID_ARG, "pk_function_line_costs: NULL argument");
    uint32_t *slot;
    pk_status st = slots_of(p, functions, n, p->n_functions, &slot, out);
    if (st) return st;
    size_t nc = (size_t)p->n_ctx + 1;
    tree_job j = {.p = p, .slot = slot};
    j.owner = malloc(nc * sizeof *j.owner), j.group = malloc(nc * sizeof *j.group);
    j.selfrow = malloc(nc * sizeof *j.selfrow), j.rows = malloc(nc * sizeof *j.rows);
    if (!j.owner || !j.group || !j.selfrow || !j.rows) st = pk_fail_nomem("summing line costs");
    if (!st) {
        tree_groups(&j);
        tree_self(&j, exclusive, out);
        /* point values are differences of exclusive values: what is left
         * of a frame's own cost can be rounding alone (1e-17 of 0.99) */
        for (size_t k = 0; k < n; k++)
            if (fabs(out[k].unlined) <= 1e-9 * fabs(out[k].self)) out[k].unlined = 0;
        /* once per path, as flat's rows count recursion */
        st = pk_group_inclusive_once(p, j.group, j.n_rows, inclusive, &j.rows[0].incl,
                                     sizeof *j.rows);
    }
    if (!st) st = split_rows(j.rows, j.n_rows, out, n);
    if (st) pk_function_lines_free(out, n);
    free(j.owner), free(j.group), free(j.selfrow), free(j.rows), free(slot);
    return st;
}

/* A call graph part's (PK_NONE: all parts') rows of the functions. */
typedef struct cg_job {
    const pk_cg *cg;
    const uint32_t *slot;
    uint32_t event;
    fl_row *rows;
    size_t n_rows, cap;
    pk_function_lines *out;
} cg_job;

static pk_status cg_push(cg_job *j, fl_row r)
{
    if (pk_vec_reserve((void **)&j->rows, &j->cap, j->n_rows + 1, sizeof *j->rows))
        return pk_fail_nomem("collecting a function's line costs");
    j->rows[j->n_rows++] = r;
    return PK_OK;
}

static pk_status cg_self_rows(cg_job *j, uint32_t part)
{
    const pk_cg *cg = j->cg;
    pk_status st = PK_OK;
    for (uint64_t i = 0; i < cg->n_self && !st; i++) {
        const pk_cg_self_rec *r = &cg->self[i];
        if ((part != PK_NONE && r->part != part) || r->fn >= cg->n_functions) continue;
        uint32_t s = j->slot[r->fn];
        if (s == PK_NONE) continue;
        double v = pk_cg_self_value(cg, i, j->event);
        j->out[s].self += v;
        if (r->file == PK_NONE || r->line == 0)
            j->out[s].unlined += v;
        else
            st = cg_push(j, (fl_row){s, r->file, r->line, v, v, 0});
    }
    return st;
}

/* The calls a function makes, on their call lines, counted as the
 * per-line flat profile counts them (a call inside the function or its
 * cycle costs nothing more: the call into it holds it). */
static pk_status cg_call_rows(cg_job *j, uint32_t part)
{
    const pk_cg *cg = j->cg;
    cg_graph g;
    pk_status st = cg_graph_build(cg, cg->n_functions, part, &g);
    if (st) return st;
    for (uint64_t i = 0; i < cg->n_calls && !st; i++) {
        const pk_cg_call_rec *c = &cg->calls[i];
        if (!cg_graph_keeps(c, g.nf, part) || j->slot[c->caller] == PK_NONE) continue;
        if (c->file == PK_NONE || c->line == 0) continue;
        double v = g.ua_of_call[i] == PK_NONE ? 0 : pk_cg_call_value(cg, i, j->event);
        st = cg_push(j, (fl_row){j->slot[c->caller], c->file, c->line, 0, v, c->count});
    }
    cg_graph_free(&g);
    return st;
}

/* The part of each location (all parts when there is no list). */
static pk_status cg_parts(const pk_cg *cg, const pk_index *locations, size_t n_locations, cg_job *j)
{
    pk_status st = PK_OK;
    if (!locations) return (st = cg_self_rows(j, PK_NONE)) ? st : cg_call_rows(j, PK_NONE);
    for (size_t l = 0; l < n_locations && !st; l++) {
        uint32_t part = PK_NONE;
        for (uint32_t k = 0; k < cg->n_parts; k++)
            if (cg->parts[k].location == locations[l]) part = k;
        if (part == PK_NONE)
            return pk_fail(PK_ERR_INVALID_ARG, "location %u has no call graph part", locations[l]);
        if (!(st = cg_self_rows(j, part))) st = cg_call_rows(j, part);
    }
    return st;
}

pk_status pk_callgraph_function_lines(const pk_profile *p, size_t event, const pk_index *locations,
                                      size_t n_locations, const pk_index *functions, size_t n,
                                      pk_function_lines *out)
{
    if (!p || (n && (!functions || !out)))
        return pk_fail(PK_ERR_INVALID_ARG, "pk_callgraph_function_lines: NULL argument");
    if (!p->cg) return pk_fail(PK_ERR_NOT_FOUND, "%s: the profile has no call graph", p->path);
    if (event >= p->cg->n_events)
        return pk_fail(PK_ERR_INVALID_ARG, "event %zu out of range", event);
    uint32_t *slot;
    pk_status st = slots_of(p, functions, n, p->cg->n_functions, &slot, out);
    if (st) return st;
    cg_job j = {.cg = p->cg, .slot = slot, .event = (uint32_t)event, .out = out};
    st = cg_parts(p->cg, locations, n_locations, &j);
    if (!st) st = split_rows(j.rows, merge_rows(j.rows, j.n_rows), out, n);
    if (st) pk_function_lines_free(out, n);
    free(j.rows), free(slot);
    return st;
}
