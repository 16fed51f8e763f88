/*
 * analysis/cct_to_cg.c — the exact call graph of a calling-context tree.
 *
 * Self cost: the value measured at each context (its point value, or its
 * inclusive value minus its children's), charged to the enclosing
 * function at the context's position (line, instruction). Call arcs: one
 * per (caller, call site, callee), from every context entered by a call,
 * with the callee context's inclusive cost; arcs of the same key in
 * different calling contexts are summed, nested recursive calls included,
 * which is exactly what Callgrind records. A CCT has no call counts: each
 * calling context counts as one call. Costs at the root and entry
 * contexts (no function) go to extra functions named after them.
 */
#include <stdlib.h>
#include <string.h>

#include "cg_model.h"
#include "profkit/profile.h"
#include "util/error.h"
#include "util/kmap.h"
#include "util/vec.h"

typedef struct conv {
    const pk_profile *p;
    pk_cg *cg;
    uint32_t ne;
    uint32_t *point_col, *incl_col; /* by event: column or PK_NONE */
    uint32_t *fn_of;                /* context -> call graph function */
    double *incl, *self;            /* per context x event, for one location */
    uint8_t *touched;
    uint32_t *list;
    uint32_t n_list;
    pk_kmap self_map, call_map;
    size_t cap_self, cap_self_cost, cap_calls, cap_call_cost, cap_extra;
} conv;

static pk_status choose_events(conv *c)
{
    const pk_profile *p = c->p;
    pk_cg *cg = c->cg;
    cg->events = calloc(p->n_metrics + 1u, sizeof *cg->events);
    c->point_col = malloc((p->n_metrics + 1u) * sizeof *c->point_col);
    c->incl_col = malloc((p->n_metrics + 1u) * sizeof *c->incl_col);
    if (!cg->events || !c->point_col || !c->incl_col) return pk_fail_nomem("building a call graph");
    for (uint32_t m = 0; m < p->n_metrics; m++) {
        pk_index pc, ic;
        if (pk_column_find(p, m, PK_SCOPE_INCLUSIVE, &ic)) continue;
        if (pk_column_find(p, m, PK_SCOPE_POINT, &pc)) pc = PK_NONE;
        c->point_col[cg->n_events] = pc, c->incl_col[cg->n_events] = ic;
        cg->events[cg->n_events++] =
            (pk_cg_event_rec){p->metrics[m].name, p->metrics[m].description, NULL, m};
    }
    pk_error_clear();
    c->ne = cg->n_events;
    return PK_OK;
}

/* Function of every context: its own, its enclosing one's, or an extra
 * function for root and entry contexts. */
static pk_status assign_functions(conv *c)
{
    const pk_profile *p = c->p;
    pk_cg *cg = c->cg;
    cg->n_model_functions = cg->n_functions = (uint32_t)p->n_functions;
    c->fn_of = malloc(((size_t)p->n_ctx + 1) * sizeof *c->fn_of);
    if (!c->fn_of) return pk_fail_nomem("building a call graph");
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        const pk_ctx_rec *x = &p->ctx[i];
        if (x->kind == PK_CTX_FUNCTION && x->function != PK_NONE) {
            c->fn_of[i] = x->function;
        } else if (x->parent != PK_NONE && x->kind != PK_CTX_ENTRY && x->parent < i) {
            c->fn_of[i] = c->fn_of[x->parent];
        } else {
            const char *name = x->kind == PK_CTX_ROOT ? "<program root>"
                               : x->entry_name        ? x->entry_name
                                                      : "<unknown entry>";
            if (pk_vec_reserve((void **)&cg->extra_names, &c->cap_extra,
                               cg->n_functions - cg->n_model_functions + 1u,
                               sizeof *cg->extra_names))
                return pk_fail_nomem("building a call graph");
            cg->extra_names[cg->n_functions - cg->n_model_functions] = name;
            c->fn_of[i] = cg->n_functions++;
        }
    }
    return PK_OK;
}

static void position_of(const pk_profile *p, uint32_t i, uint32_t *file, uint32_t *line,
                        uint64_t *instr)
{
    const pk_ctx_rec *x = &p->ctx[i];
    *file = PK_NONE, *line = 0, *instr = 0;
    if (x->kind == PK_CTX_INSTRUCTION) {
        *instr = x->offset;
        if (x->parent != PK_NONE && p->ctx[x->parent].kind == PK_CTX_LINE) x = &p->ctx[x->parent];
    }
    if (x->flags & PK_CTXF_HAS_SRCLOC) *file = x->file, *line = x->line;
    if (x->kind == PK_CTX_FUNCTION && x->function != PK_NONE && x->function < p->n_functions)
        *file = p->functions[x->function].file, *line = p->functions[x->function].line;
}

static pk_status add_self(conv *c, uint32_t part, uint32_t ctx, const double *v)
{
    pk_cg *cg = c->cg;
    pk_cg_self_rec r = {part, c->fn_of[ctx], PK_NONE, 0, 0, 0};
    position_of(c->p, ctx, &r.file, &r.line, &r.instr);
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)part << 32 | r.fn, (uint64_t)r.file << 32 | r.line,
                                   r.instr};
    uint32_t i;
    int added;
    if (pk_kmap_upsert(&c->self_map, key, (uint32_t)cg->n_self, &i, &added)) return PK_ERR_NOMEM;
    if (added) {
        if (pk_vec_reserve((void **)&cg->self, &c->cap_self, cg->n_self + 1, sizeof *cg->self) ||
            pk_vec_reserve((void **)&cg->self_cost, &c->cap_self_cost, (cg->n_self + 1) * c->ne,
                           sizeof *cg->self_cost))
            return PK_ERR_NOMEM;
        cg->self[i] = r;
        memset(cg->self_cost + (uint64_t)i * c->ne, 0, c->ne * sizeof(double));
        cg->n_self++;
        if (r.instr) cg->positions |= PK_POS_INSTR;
    }
    for (uint32_t e = 0; e < c->ne; e++)
        cg->self_cost[(uint64_t)i * c->ne + e] += v[e];
    return PK_OK;
}

static pk_status add_call(conv *c, uint32_t part, uint32_t ctx, const double *v)
{
    pk_cg *cg = c->cg;
    const pk_profile *p = c->p;
    uint32_t site = p->ctx[ctx].parent;
    pk_cg_call_rec r = {part, c->fn_of[site], c->fn_of[ctx], PK_NONE, 0, PK_NONE, 0, 0, 0, 0, 0, 0,
                        0};
    position_of(p, site, &r.file, &r.line, &r.instr);
    position_of(p, ctx, &r.to_file, &r.to_line, &r.to_instr);
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)part << 32 | r.caller, r.callee,
                                   (uint64_t)r.file << 32 | r.line, r.instr};
    uint32_t i;
    int added;
    if (pk_kmap_upsert(&c->call_map, key, (uint32_t)cg->n_calls, &i, &added)) return PK_ERR_NOMEM;
    if (added) {
        if (pk_vec_reserve((void **)&cg->calls, &c->cap_calls, cg->n_calls + 1,
                           sizeof *cg->calls) ||
            pk_vec_reserve((void **)&cg->call_cost, &c->cap_call_cost, (cg->n_calls + 1) * c->ne,
                           sizeof *cg->call_cost))
            return PK_ERR_NOMEM;
        cg->calls[i] = r;
        memset(cg->call_cost + (uint64_t)i * c->ne, 0, c->ne * sizeof(double));
        cg->n_calls++;
    }
    cg->calls[i].count += 1;
    for (uint32_t e = 0; e < c->ne; e++)
        cg->call_cost[(uint64_t)i * c->ne + e] += v[e];
    return PK_OK;
}

static void load_location(conv *c, uint32_t l)
{
    pk_cursor cur;
    pk_value v;
    c->n_list = 0;
    if (pk_location_values_begin(c->p, l, &cur)) return;
    while (pk_cursor_next(&cur, &v)) {
        for (uint32_t e = 0; e < c->ne; e++) {
            double *dst = v.column == c->incl_col[e]    ? c->incl
                          : v.column == c->point_col[e] ? c->self
                                                        : NULL;
            if (!dst) continue;
            if (!c->touched[v.context]) c->touched[v.context] = 1, c->list[c->n_list++] = v.context;
            dst[(size_t)v.context * c->ne + e] += v.value;
        }
    }
}

static int is_call(const pk_ctx_rec *x)
{
    return x->kind == PK_CTX_FUNCTION && x->parent != PK_NONE &&
           (x->relation == PK_REL_CALL || x->relation == PK_REL_INLINED_CALL);
}

static pk_status convert_location(conv *c, uint32_t l, uint32_t part)
{
    const pk_profile *p = c->p;
    load_location(c, l);
    uint32_t ne = c->ne;
    /* without a point column, self = inclusive minus the children's */
    for (uint32_t e = 0; e < ne; e++) {
        if (c->point_col[e] != PK_NONE) continue;
        for (uint32_t k = 0; k < c->n_list; k++)
            c->self[(size_t)c->list[k] * ne + e] += c->incl[(size_t)c->list[k] * ne + e];
        for (uint32_t k = 0; k < c->n_list; k++) {
            uint32_t x = c->list[k], up = p->ctx[x].parent;
            if (up == PK_NONE) continue;
            if (!c->touched[up]) c->touched[up] = 1, c->list[c->n_list++] = up;
            c->self[(size_t)up * ne + e] -= c->incl[(size_t)x * ne + e];
        }
    }
    pk_status st = PK_OK;
    for (uint32_t k = 0; k < c->n_list && !st; k++) {
        uint32_t x = c->list[k];
        const double *s = c->self + (size_t)x * ne;
        int any = 0;
        for (uint32_t e = 0; e < ne; e++)
            any |= s[e] != 0.0;
        if (any) st = add_self(c, part, x, s);
        if (!st && is_call(&p->ctx[x])) st = add_call(c, part, x, c->incl + (size_t)x * ne);
    }
    for (uint32_t k = 0; k < c->n_list; k++) {
        uint32_t x = c->list[k];
        c->touched[x] = 0;
        memset(c->self + (size_t)x * ne, 0, ne * sizeof(double));
        memset(c->incl + (size_t)x * ne, 0, ne * sizeof(double));
    }
    return st == PK_ERR_NOMEM ? pk_fail_nomem("building a call graph") : st;
}

static void conv_free(conv *c)
{
    free(c->point_col), free(c->incl_col), free(c->fn_of), free(c->incl), free(c->self);
    free(c->touched), free(c->list);
    pk_kmap_free(&c->self_map), pk_kmap_free(&c->call_map);
}

static pk_status make_parts(conv *c)
{
    const pk_profile *p = c->p;
    pk_cg *cg = c->cg;
    cg->parts = calloc(p->n_locs + 1u, sizeof *cg->parts);
    if (!cg->parts) return pk_fail_nomem("building a call graph");
    for (uint32_t l = 0; l < p->n_locs; l++) {
        if (p->locs[l].is_summary) continue;
        uint32_t thread = cg->n_parts + 1;
        for (uint32_t i = 0; i < p->locs[l].n_ids; i++)
            if (p->locs[l].ids[i].kind_name && strcmp(p->locs[l].ids[i].kind_name, "THREAD") == 0)
                thread = p->locs[l].ids[i].logical;
        cg->parts[cg->n_parts++] = (pk_cg_part_rec){.location = l,
                                                    .number = 1,
                                                    .thread = thread,
                                                    .positions = PK_POS_LINE,
                                                    .file = p->path,
                                                    .cmd = p->title};
    }
    return PK_OK;
}

pk_status pk_cg_from_cct(const pk_profile *p, pk_cg **out)
{
    conv c = {0};
    c.p = p;
    c.cg = calloc(1, sizeof *c.cg);
    if (!c.cg) return pk_fail_nomem("building a call graph");
    c.cg->positions = PK_POS_LINE;
    pk_status st = choose_events(&c);
    if (!st) st = assign_functions(&c);
    if (!st) st = make_parts(&c);
    size_t n = (size_t)p->n_ctx + 1;
    if (!st) {
        c.incl = calloc(n * (c.ne + 1), sizeof *c.incl);
        c.self = calloc(n * (c.ne + 1), sizeof *c.self);
        c.touched = calloc(n, 1);
        c.list = malloc(n * sizeof *c.list);
        if (!c.incl || !c.self || !c.touched || !c.list)
            st = pk_fail_nomem("building a call graph");
    }
    for (uint32_t k = 0; !st && k < c.cg->n_parts; k++)
        st = convert_location(&c, c.cg->parts[k].location, k);
    conv_free(&c);
    if (st) {
        pk_cg_free(c.cg);
        return st;
    }
    *out = c.cg;
    return PK_OK;
}
