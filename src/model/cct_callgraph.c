/*
 * model/cct_callgraph.c — the exact call graph of a calling-context tree,
 * from the model alone: what the Callgrind writer writes and
 * pk_profile_callgraph() attaches.
 *
 * Functions: a context belongs to the function it names, or else to the
 * function of the context that lexically encloses it (lines, loops and
 * instructions inside a function). An inlined frame is a function of its
 * own, called from where it was inlined, as HPCToolkit shows it. A frame
 * entered by a call that names no function (hpcrun's raw instruction
 * frames without symbols) becomes a function named as profkit names the
 * context ("binary+0x1187"). The global root and the entry points ("main
 * thread") are no functions: what they call has no caller.
 *
 * Self cost: each context's value of its own, inclusive minus the
 * children's inclusive values, charged to its function at its position
 * (file, line, instruction). Inclusive values are the stored ones, or
 * derived here from stored exclusive values by the model's rule
 * (docs/model.md: exclusive = point + the lexical children's exclusive
 * values), so metrics stored in either scope work; HPCToolkit's
 * unlisted contexts, whose values are inside their listed ancestors'
 * inclusive values, land where those ancestors are. Only cost that no
 * function encloses (rare: a value at an entry point itself) goes to an
 * extra function named after the entry point or the root.
 *
 * Call arcs: one per (caller, call site, callee), from every context a
 * function's context calls, with the callee context's inclusive cost;
 * arcs of the same key in different calling contexts are summed, nested
 * recursive calls included, which is exactly what Callgrind records. A
 * CCT has no call counts: each calling context with cost counts as one.
 */
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "model.h"
#include "profkit/profile.h"
#include "util/error.h"
#include "util/kmap.h"
#include "util/vec.h"

typedef struct conv {
    const pk_profile *p;
    pk_cg *cg;
    uint32_t ne, n, part;
    uint32_t *order;       /* contexts deepest first */
    uint32_t *metric_of;   /* event -> metric */
    uint32_t *fn_of;       /* context -> function, PK_NONE: none encloses it */
    uint32_t *home;        /* context outside every function -> its entry point or root */
    unsigned char *called; /* context entered by a call from a function */
    double *incl, *self;   /* one event's values, by context */
    uint32_t *self_rec, *call_rec, *self_at, *call_at; /* memo: record of a context in part *_at */
    uint32_t *col_of;        /* event -> its inclusive column, else its exclusive one, or PK_NONE */
    unsigned char *col_incl; /* event -> col_of is inclusive */
    uint32_t *touched;       /* contexts one location's event reaches */
    uint64_t *keys;          /* (depth, context) to sort them */
    uint32_t n_touched;
    unsigned char *is_touched; /* by context */
    pk_kmap self_map, call_map, extra_map;
    size_t cap_self, cap_self_cost, cap_calls, cap_call_cost, cap_parts;
    char *names; /* extra function names, NUL-terminated one after another */
    size_t n_names, cap_names, *name_at, cap_name_at;
} conv;

/* Does any location store a value of metric m? (Asked only of metrics
 * without an inclusive or exclusive scope: one pass over the values.) */
static int has_values(const pk_profile *p, uint32_t m)
{
    for (uint32_t l = 0; l < p->n_locs; l++) {
        pk_cursor cur;
        pk_value v;
        if (pk_location_values_begin(p, l, &cur)) return 1; /* unreadable: assume values */
        while (pk_cursor_next(&cur, &v))
            if (v.column < p->n_columns && p->columns[v.column].metric == m) return 1;
    }
    return 0;
}

const char *pk_cg_metric_unfit(const pk_profile *p, pk_index m)
{
    const pk_metric *met = &p->metrics[m];
    if (met->combine == PK_COMBINE_MIN || met->combine == PK_COMBINE_MAX)
        return "its values combine by minimum or maximum, and Callgrind costs are sums (over "
               "positions, calls and threads)";
    pk_index col;
    int stored = pk_column_find(p, m, PK_SCOPE_INCLUSIVE, &col) == PK_OK ||
                 pk_column_find(p, m, PK_SCOPE_EXCLUSIVE, &col) == PK_OK;
    pk_error_clear();
    if (stored || !has_values(p, m)) return NULL;
    return "it has no inclusive or exclusive values, the scopes Callgrind costs come from";
}

static pk_status choose_events(conv *c)
{
    const pk_profile *p = c->p;
    pk_cg *cg = c->cg;
    cg->events = calloc(p->n_metrics + 1u, sizeof *cg->events);
    c->metric_of = malloc((p->n_metrics + 1u) * sizeof *c->metric_of);
    if (!cg->events || !c->metric_of) return pk_fail_nomem("building a call graph");
    for (uint32_t m = 0; m < p->n_metrics; m++) {
        if (pk_cg_metric_unfit(p, m)) continue;
        c->metric_of[cg->n_events] = m;
        cg->events[cg->n_events++] =
            (pk_cg_event_rec){p->metrics[m].name, p->metrics[m].description, NULL, m};
    }
    c->ne = cg->n_events;
    return PK_OK;
}

/* An extra function (index from n_model_functions on) for `key`, named
 * `name` the first time the key is seen. */
static pk_status extra_function(conv *c, const uint64_t key[PK_KMAP_WORDS], const char *name,
                                size_t len, uint32_t *out)
{
    pk_cg *cg = c->cg;
    uint32_t k = cg->n_functions - cg->n_model_functions, got;
    int added;
    if (pk_kmap_upsert(&c->extra_map, key, k, &got, &added)) return PK_ERR_NOMEM;
    *out = cg->n_model_functions + got;
    if (!added) return PK_OK;
    if (cg->n_functions == UINT32_MAX - 1) return pk_fail(PK_ERR_FORMAT, "too many functions");
    if (pk_vec_reserve((void **)&c->names, &c->cap_names, c->n_names + len + 1, 1) ||
        pk_vec_reserve((void **)&c->name_at, &c->cap_name_at, k + 1u, sizeof *c->name_at))
        return PK_ERR_NOMEM;
    c->name_at[k] = c->n_names;
    memcpy(c->names + c->n_names, name, len), c->names[c->n_names + len] = 0;
    c->n_names += len + 1;
    cg->n_functions++;
    return PK_OK;
}

/* A function named after context i, as profkit names it everywhere. */
static pk_status named_after(conv *c, uint32_t i, uint64_t key0, uint32_t *out)
{
    const pk_ctx_rec *x = &c->p->ctx[i];
    char small[256], *name = small;
    size_t len = pk_context_name(c->p, i, small, sizeof small);
    if (len >= sizeof small) {
        name = malloc(len + 1);
        if (!name) return PK_ERR_NOMEM;
        pk_context_name(c->p, i, name, len + 1);
    }
    uint64_t key[PK_KMAP_WORDS] = {key0,      x->kind, (uint64_t)x->module << 32 | x->file,
                                   x->offset, x->line, key0 == 2 ? i : 0};
    pk_status st = extra_function(c, key, name, len, out);
    if (name != small) free(name);
    return st;
}

/* Function of context i (its parent done already). */
static pk_status assign(conv *c, uint32_t i)
{
    const pk_profile *p = c->p;
    const pk_ctx_rec *x = &p->ctx[i];
    uint32_t up = x->parent < c->n ? x->parent : PK_NONE;
    uint32_t up_fn = up != PK_NONE ? c->fn_of[up] : PK_NONE;
    int frame = x->kind == PK_CTX_FUNCTION || x->relation == PK_REL_CALL ||
                x->relation == PK_REL_INLINED_CALL;
    c->fn_of[i] = c->home[i] = PK_NONE;
    if (x->kind == PK_CTX_ROOT || x->kind == PK_CTX_ENTRY) {
        c->home[i] = i;
    } else if (up == PK_NONE) {
        return PK_OK; /* unlisted: its values are inside a listed ancestor's */
    } else if (frame && x->kind == PK_CTX_FUNCTION && x->function < p->n_functions) {
        c->fn_of[i] = x->function;
    } else if (frame) {
        pk_status st = named_after(c, i, 1, &c->fn_of[i]);
        if (st) return st;
    } else if (up_fn != PK_NONE) {
        c->fn_of[i] = up_fn;
        return PK_OK;
    } else {
        c->home[i] = c->home[up];
        return PK_OK;
    }
    c->called[i] = c->fn_of[i] != PK_NONE && up_fn != PK_NONE;
    return PK_OK;
}

static pk_status assign_functions(conv *c)
{
    const pk_profile *p = c->p;
    c->cg->n_model_functions = c->cg->n_functions = p->n_functions;
    size_t n = (size_t)c->n + 1;
    c->fn_of = malloc(n * sizeof *c->fn_of), c->home = malloc(n * sizeof *c->home);
    c->called = calloc(n, 1);
    c->order = pk_deepest_first(p);
    pk_status st = c->fn_of && c->home && c->called && c->order ? PK_OK : PK_ERR_NOMEM;
    for (uint32_t k = c->n; k-- > 0 && !st;) /* shallowest first: parents before children */
        st = assign(c, c->order[k]);
    return st;
}

/* Where context i's own cost is, in function fn: a function context at
 * the function's definition, others at their source line, instructions
 * also at their address; positions without a file are in fn's file. */
static void position_of(const conv *c, uint32_t i, uint32_t fn, uint32_t *file, uint32_t *line,
                        uint64_t *instr)
{
    const pk_profile *p = c->p;
    const pk_ctx_rec *x = &p->ctx[i];
    *file = PK_NONE, *line = 0, *instr = x->flags & PK_CTXF_HAS_POINT ? x->offset : 0;
    if (x->kind == PK_CTX_FUNCTION && x->function < p->n_functions) {
        *file = p->functions[x->function].file, *line = p->functions[x->function].line;
    } else if (x->flags & PK_CTXF_HAS_SRCLOC) {
        *file = x->file, *line = x->line;
    } else if (x->kind == PK_CTX_INSTRUCTION && x->parent < c->n &&
               p->ctx[x->parent].kind == PK_CTX_LINE &&
               (p->ctx[x->parent].flags & PK_CTXF_HAS_SRCLOC)) {
        *file = p->ctx[x->parent].file, *line = p->ctx[x->parent].line;
    }
    if (*file == PK_NONE && fn < p->n_functions) *file = p->functions[fn].file;
}

/* Where the call that entered context i was made: a function context
 * that carries a source location has its call site there (Cube's cnode
 * lines); otherwise it is where its parent is. */
static void site_of(const conv *c, uint32_t i, uint32_t caller, uint32_t *file, uint32_t *line,
                    uint64_t *instr)
{
    const pk_profile *p = c->p;
    const pk_ctx_rec *x = &p->ctx[i];
    if (x->kind == PK_CTX_FUNCTION && (x->flags & PK_CTXF_HAS_SRCLOC)) {
        *file = x->file, *line = x->line, *instr = 0;
        if (*file == PK_NONE && caller < p->n_functions) *file = p->functions[caller].file;
        return;
    }
    position_of(c, x->parent, caller, file, line, instr);
}

static pk_status self_record(conv *c, uint32_t i, uint32_t *rec)
{
    if (c->self_at[i] == c->part) return *rec = c->self_rec[i], PK_OK;
    pk_cg *cg = c->cg;
    uint32_t fn = c->fn_of[i];
    if (fn == PK_NONE) { /* outside every function: the entry point's or root's own */
        pk_status st = named_after(c, c->home[i], 2, &fn);
        if (st) return st;
    }
    pk_cg_self_rec r = {c->part, fn, PK_NONE, 0, 0, 0};
    position_of(c, i, fn, &r.file, &r.line, &r.instr);
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)c->part << 32 | fn, (uint64_t)r.file << 32 | r.line,
                                   r.instr};
    int added;
    if (pk_kmap_upsert(&c->self_map, key, (uint32_t)cg->n_self, rec, &added)) return PK_ERR_NOMEM;
    if (added) {
        if (pk_vec_reserve((void **)&cg->self, &c->cap_self, cg->n_self + 1, sizeof *cg->self) ||
            pk_vec_reserve((void **)&cg->self_cost, &c->cap_self_cost, (cg->n_self + 1) * c->ne,
                           sizeof *cg->self_cost))
            return PK_ERR_NOMEM;
        cg->self[*rec] = r;
        if (c->ne) memset(cg->self_cost + (uint64_t)*rec * c->ne, 0, c->ne * sizeof(double));
        cg->n_self++;
        if (r.instr) cg->positions |= PK_POS_INSTR;
    }
    c->self_at[i] = c->part, c->self_rec[i] = *rec;
    return PK_OK;
}

static pk_status call_record(conv *c, uint32_t i, uint32_t *rec)
{
    if (c->call_at[i] == c->part) return *rec = c->call_rec[i], PK_OK;
    pk_cg *cg = c->cg;
    pk_cg_call_rec r = {
        c->part, c->fn_of[c->p->ctx[i].parent], c->fn_of[i], PK_NONE, 0, PK_NONE, 0, 0, 0, 0, 0, 0,
        0};
    site_of(c, i, r.caller, &r.file, &r.line, &r.instr);
    position_of(c, i, r.callee, &r.to_file, &r.to_line, &r.to_instr);
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)c->part << 32 | r.caller, r.callee,
                                   (uint64_t)r.file << 32 | r.line, r.instr};
    int added;
    if (pk_kmap_upsert(&c->call_map, key, (uint32_t)cg->n_calls, rec, &added)) return PK_ERR_NOMEM;
    if (added) {
        if (pk_vec_reserve((void **)&cg->calls, &c->cap_calls, cg->n_calls + 1,
                           sizeof *cg->calls) ||
            pk_vec_reserve((void **)&cg->call_cost, &c->cap_call_cost, (cg->n_calls + 1) * c->ne,
                           sizeof *cg->call_cost))
            return PK_ERR_NOMEM;
        cg->calls[*rec] = r;
        if (c->ne) memset(cg->call_cost + (uint64_t)*rec * c->ne, 0, c->ne * sizeof(double));
        cg->n_calls++;
        if (r.instr || r.to_instr) cg->positions |= PK_POS_INSTR;
    }
    cg->calls[*rec].count += 1; /* one more calling context */
    c->call_at[i] = c->part, c->call_rec[i] = *rec;
    return PK_OK;
}

/* The summary's sum statistic of the metric and scope of plain column
 * `col`: what a profile whose values live only in summary locations
 * holds of it (hpcprof --no-thread-local), or PK_NONE. */
static uint32_t summary_sum_of(const pk_profile *p, uint32_t col)
{
    for (uint32_t k = 0; col != PK_NONE && k < p->n_columns; k++) {
        const pk_column *s = &p->columns[k];
        if (s->is_summary && s->stat == PK_STAT_SUM && s->metric == p->columns[col].metric &&
            s->scope == p->columns[col].scope)
            return k;
    }
    return PK_NONE;
}

/* Inclusive values from exclusive ones in out, for a metric whose values
 * sum: point = exclusive minus what the lexical children hold (parents
 * first, while out[] still holds exclusive values), then every context's
 * inclusive value added into its parent's (children first). */
static void inclusive_from_exclusive(const conv *c, double *out)
{
    const pk_profile *p = c->p;
    for (uint32_t k = c->n; k-- > 0;)
        if (pk_lexical_child(p, c->order[k])) out[p->ctx[c->order[k]].parent] -= out[c->order[k]];
    for (uint32_t k = 0; k < c->n; k++) {
        uint32_t i = c->order[k], up = p->ctx[i].parent;
        if (up < c->n) out[up] += out[i];
    }
}

/* Event e's inclusive values summed over the `selected` (NULL: all)
 * plain locations, or over the summary's sum statistic where only
 * summaries hold values. A metric without values has zeros. */
static pk_status summed_inclusive(conv *c, uint32_t e, const unsigned char *selected, double *out)
{
    const pk_profile *p = c->p;
    int summary = !pk_has_plain_locations(p);
    uint32_t col = summary ? summary_sum_of(p, c->col_of[e]) : c->col_of[e];
    memset(out, 0, c->n * sizeof *out);
    for (uint32_t l = 0; col != PK_NONE && l < p->n_locs; l++) {
        pk_cursor cur;
        pk_value v;
        if (p->locs[l].is_summary != summary || (!summary && selected && !selected[l])) continue;
        pk_status st = pk_location_column_begin(p, l, col, &cur);
        if (st) return st;
        while (pk_cursor_next(&cur, &v))
            if (v.context < c->n) out[v.context] += v.value;
    }
    if (col != PK_NONE && !c->col_incl[e]) inclusive_from_exclusive(c, out);
    return PK_OK;
}

/* Event e's inclusive values (the costs of calls) and each context's own
 * value, its inclusive value minus its children's: the model's point
 * values (docs/model.md), so that the self costs below a call add up to
 * the call's inclusive cost and all of them to the program's total, as
 * every Callgrind reader assumes. Where a file's stored exclusive values
 * disagree with its inclusive ones (experiment.xml rounds values to six
 * digits and counts inlined code in its caller's exclusive value; unsigned
 * counts whose noise the model clamps), these self costs follow the
 * inclusive ones. Contexts not in the tree (unlisted) have no parent:
 * their values are inside an ancestor's inclusive value already. */
static pk_status load_event(conv *c, uint32_t e, const unsigned char *selected)
{
    const pk_profile *p = c->p;
    pk_status st = summed_inclusive(c, e, selected, c->incl);
    if (st) return st;
    memcpy(c->self, c->incl, c->n * sizeof *c->self);
    for (uint32_t i = 0; i < c->n; i++)
        if (p->ctx[i].parent < c->n) c->self[p->ctx[i].parent] -= c->incl[i];
    return PK_OK;
}

/* Context i's self cost and the cost of the call that entered it, for
 * event e, into the part's records. */
static pk_status emit(conv *c, uint32_t i, uint32_t e)
{
    const pk_ctx_rec *x = &c->p->ctx[i];
    if (x->parent >= c->n && x->kind != PK_CTX_ROOT) return PK_OK; /* unlisted */
    uint32_t r;
    pk_status st = PK_OK;
    if (c->self[i] != 0.0 && !(st = self_record(c, i, &r)))
        c->cg->self_cost[(uint64_t)r * c->ne + e] += c->self[i];
    if (!st && c->called[i] && c->incl[i] != 0.0 && !(st = call_record(c, i, &r)))
        c->cg->call_cost[(uint64_t)r * c->ne + e] += c->incl[i];
    return st;
}

/* One part holding the sum over `selected` (NULL: all) locations, from
 * the model's scope derivation: O(values + contexts) per event. */
static pk_status convert_part(conv *c, const unsigned char *selected)
{
    pk_status st = PK_OK;
    for (uint32_t e = 0; e < c->ne && !st; e++) {
        st = load_event(c, e, selected);
        for (uint32_t i = 0; i < c->n && !st; i++)
            st = emit(c, i, e);
    }
    return st == PK_ERR_NOMEM ? pk_fail_nomem("building a call graph") : st;
}

/* ------------------------------------------------------------------ */
/* One part per location: sparse                                      */
/* ------------------------------------------------------------------ */

static void touch(conv *c, uint32_t i)
{
    if (!c->is_touched[i]) c->is_touched[i] = 1, c->touched[c->n_touched++] = i;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The touched contexts, deepest first. */
static void sort_touched(conv *c)
{
    for (uint32_t k = 0; k < c->n_touched; k++)
        c->keys[k] = (uint64_t)(UINT32_MAX - c->p->ctx[c->touched[k]].depth) << 32 | c->touched[k];
    qsort(c->keys, c->n_touched, sizeof *c->keys, cmp_u64);
    for (uint32_t k = 0; k < c->n_touched; k++)
        c->touched[k] = (uint32_t)c->keys[k];
}

/* Event e of metric m stored exclusive only: c->incl holds the location's
 * exclusive values at the touched contexts. Own values are exclusive
 * minus the lexical children's; inclusive values the own values summed
 * up every ancestor (touched first, deepest first). */
static void sparse_from_exclusive(conv *c)
{
    const pk_profile *p = c->p;
    uint32_t n0 = c->n_touched;
    for (uint32_t k = 0; k < n0; k++) {
        uint32_t i = c->touched[k];
        c->self[i] += c->incl[i];
        if (pk_lexical_child(p, i))
            touch(c, p->ctx[i].parent), c->self[p->ctx[i].parent] -= c->incl[i];
    }
    for (uint32_t k = 0; k < c->n_touched; k++) { /* grows: every ancestor once */
        uint32_t i = c->touched[k];
        c->incl[i] = 0;
        if (p->ctx[i].parent < c->n) touch(c, p->ctx[i].parent);
    }
    sort_touched(c);
    for (uint32_t k = 0; k < c->n_touched; k++) {
        uint32_t i = c->touched[k];
        c->incl[i] += c->self[i];
        if (p->ctx[i].parent < c->n) c->incl[p->ctx[i].parent] += c->incl[i];
    }
}

/* Location l's values of event e at the contexts they touch (and the
 * parents their own values need), into the part's records. Costs the
 * location's values, not the tree's size. */
static pk_status sparse_event(conv *c, uint32_t l, uint32_t e)
{
    const pk_profile *p = c->p;
    pk_cursor cur;
    pk_value v;
    c->n_touched = 0;
    pk_status st = pk_location_values_begin(p, l, &cur);
    if (st) return st; /* a block that fails its (deferred) validation */
    while (pk_cursor_next(&cur, &v))
        if (v.column == c->col_of[e] && v.context < c->n)
            touch(c, v.context), c->incl[v.context] += v.value;
    if (c->col_incl[e]) {
        uint32_t n0 = c->n_touched;
        for (uint32_t k = 0; k < n0; k++) {
            uint32_t i = c->touched[k], up = p->ctx[i].parent;
            c->self[i] += c->incl[i];
            if (up < c->n) touch(c, up), c->self[up] -= c->incl[i];
        }
    } else {
        sparse_from_exclusive(c);
    }
    for (uint32_t k = 0; k < c->n_touched; k++) {
        uint32_t i = c->touched[k];
        if (!st) st = emit(c, i, e);
        c->incl[i] = c->self[i] = 0, c->is_touched[i] = 0;
    }
    return st;
}

static pk_status convert_location(conv *c, uint32_t l)
{
    pk_status st = PK_OK;
    for (uint32_t e = 0; e < c->ne && !st; e++)
        if (c->col_of[e] != PK_NONE) st = sparse_event(c, l, e);
    return st == PK_ERR_NOMEM ? pk_fail_nomem("building a call graph") : st;
}

static pk_status add_part(conv *c, uint32_t location)
{
    const pk_profile *p = c->p;
    pk_cg *cg = c->cg;
    if (pk_vec_reserve((void **)&cg->parts, &c->cap_parts, cg->n_parts + 1u, sizeof *cg->parts))
        return pk_fail_nomem("building a call graph");
    uint32_t thread = 1;
    if (location != PK_NONE) {
        thread = cg->n_parts + 1;
        for (uint32_t i = 0; i < p->locs[location].n_ids; i++)
            if (p->locs[location].ids[i].kind_name &&
                strcmp(p->locs[location].ids[i].kind_name, "THREAD") == 0)
                thread = p->locs[location].ids[i].logical;
    }
    cg->parts[cg->n_parts++] = (pk_cg_part_rec){.location = location,
                                                .number = 1,
                                                .thread = thread,
                                                .positions = PK_POS_LINE,
                                                .file = p->path,
                                                .cmd = p->title};
    return PK_OK;
}

static pk_status convert_parts(conv *c, const pk_cg_request *rq)
{
    const pk_profile *p = c->p;
    int sum = rq->sum || !pk_has_plain_locations(p);
    if (sum) {
        pk_status st = add_part(c, PK_NONE);
        return st ? st : convert_part(c, rq->selected);
    }
    pk_status st = PK_OK;
    for (uint32_t l = 0; l < p->n_locs && !st; l++) {
        if (p->locs[l].is_summary || (rq->selected && !rq->selected[l])) continue;
        c->part = c->cg->n_parts;
        st = add_part(c, l);
        if (!st) st = convert_location(c, l);
    }
    return st;
}

/* Does the call graph hold a cost other than 0? */
static int any_cost(const pk_cg *cg)
{
    uint64_t n = (cg->n_self + cg->n_calls) * cg->n_events;
    for (uint64_t k = 0; k < n; k++)
        if ((k < cg->n_self * cg->n_events ? cg->self_cost[k]
                                           : cg->call_cost[k - cg->n_self * cg->n_events]) != 0.0)
            return 1;
    return 0;
}

/* A profile whose values are all 0 is still a profile: its tree becomes a
 * call graph of zeros (a record per function, in the first part, and an
 * arc per call, counting its calling contexts), not an empty file. With
 * costs, contexts that hold none are left out, as callgrind records only
 * code that ran: a tree that lists every context, sampled or not, would
 * otherwise fill the file with zeros. */
static pk_status fill_structure(conv *c)
{
    const pk_profile *p = c->p;
    pk_cg *cg = c->cg;
    if (!cg->n_parts || any_cost(cg)) return PK_OK;
    unsigned char *has_self = calloc((size_t)cg->n_functions + 1, 1);
    if (!has_self) return pk_fail_nomem("building a call graph");
    for (uint64_t k = 0; k < cg->n_self; k++)
        if (cg->self[k].fn < cg->n_functions) has_self[cg->self[k].fn] = 1;
    c->part = 0;
    pk_status st = PK_OK;
    for (uint32_t k = c->n; k-- > 0 && !st;) { /* parents first: the order of the tree */
        uint32_t i = c->order[k], fn = c->fn_of[i], r;
        const pk_ctx_rec *x = &p->ctx[i];
        int frame = fn != PK_NONE && (x->kind == PK_CTX_FUNCTION || x->relation == PK_REL_CALL ||
                                      x->relation == PK_REL_INLINED_CALL);
        if (x->parent >= c->n) continue; /* the root, and unlisted contexts */
        if (frame && fn < cg->n_functions && !has_self[fn] && !(st = self_record(c, i, &r)))
            has_self[fn] = 1;
        if (!st && c->called[i]) st = call_record(c, i, &r);
    }
    free(has_self);
    return st == PK_ERR_NOMEM ? pk_fail_nomem("building a call graph") : st;
}

/* The extra names as one block that pk_cg_free() releases: the pointer
 * array followed by the strings it points into. */
static pk_status finish_names(conv *c)
{
    pk_cg *cg = c->cg;
    size_t n = cg->n_functions - cg->n_model_functions;
    if (!n) return PK_OK;
    char *block = malloc(n * sizeof(char *) + c->n_names);
    if (!block) return pk_fail_nomem("building a call graph");
    const char **names = (const char **)(void *)block;
    char *text = block + n * sizeof(char *);
    memcpy(text, c->names, c->n_names);
    for (size_t k = 0; k < n; k++)
        names[k] = text + c->name_at[k];
    cg->extra_names = names;
    return PK_OK;
}

static pk_status scratch(conv *c)
{
    size_t n = (size_t)c->n + 1;
    c->incl = malloc(n * sizeof *c->incl), c->self = malloc(n * sizeof *c->self);
    c->self_rec = malloc(n * sizeof *c->self_rec), c->call_rec = malloc(n * sizeof *c->call_rec);
    c->self_at = malloc(n * sizeof *c->self_at), c->call_at = malloc(n * sizeof *c->call_at);
    c->touched = malloc(n * sizeof *c->touched), c->is_touched = calloc(n, 1);
    c->keys = malloc(n * sizeof *c->keys);
    c->col_of = malloc((c->ne + 1u) * sizeof *c->col_of), c->col_incl = calloc(c->ne + 1u, 1);
    if (!c->incl || !c->self || !c->self_rec || !c->call_rec || !c->self_at || !c->call_at ||
        !c->touched || !c->is_touched || !c->keys || !c->col_of || !c->col_incl)
        return pk_fail_nomem("building a call graph");
    for (uint32_t e = 0; e < c->ne; e++) { /* sparse parts read columns directly */
        pk_index col;
        c->col_incl[e] = pk_column_find(c->p, c->metric_of[e], PK_SCOPE_INCLUSIVE, &col) == PK_OK;
        if (!c->col_incl[e] &&
            pk_column_find(c->p, c->metric_of[e], PK_SCOPE_EXCLUSIVE, &col) != PK_OK)
            col = PK_NONE;
        c->col_of[e] = col;
    }
    pk_error_clear();
    memset(c->incl, 0, n * sizeof *c->incl), memset(c->self, 0, n * sizeof *c->self);
    memset(c->self_at, 0xff, n * sizeof *c->self_at); /* PK_NONE: no part yet */
    memset(c->call_at, 0xff, n * sizeof *c->call_at);
    return PK_OK;
}

static void conv_free(conv *c)
{
    free(c->order), free(c->metric_of), free(c->fn_of), free(c->home), free(c->called);
    free(c->incl), free(c->self), free(c->self_rec), free(c->call_rec);
    free(c->self_at), free(c->call_at), free(c->names), free(c->name_at);
    free(c->touched), free(c->is_touched), free(c->keys), free(c->col_of), free(c->col_incl);
    pk_kmap_free(&c->self_map), pk_kmap_free(&c->call_map), pk_kmap_free(&c->extra_map);
}

pk_status pk_cg_from_cct_request(const pk_profile *p, const pk_cg_request *rq, pk_cg **out)
{
    static const pk_cg_request all = {NULL, 0};
    conv c = {0};
    c.p = p, c.n = p->n_ctx;
    c.cg = calloc(1, sizeof *c.cg);
    if (!c.cg) return pk_fail_nomem("building a call graph");
    c.cg->positions = PK_POS_LINE;
    pk_status st = choose_events(&c);
    if (!st) st = assign_functions(&c);
    if (st == PK_ERR_NOMEM) st = pk_fail_nomem("building a call graph");
    if (!st) st = scratch(&c);
    if (!st) st = convert_parts(&c, rq ? rq : &all);
    if (!st) st = fill_structure(&c);
    if (!st) st = finish_names(&c);
    conv_free(&c);
    if (st) {
        pk_cg_free(c.cg);
        return st;
    }
    *out = c.cg;
    return PK_OK;
}

pk_status pk_cg_from_cct(const pk_profile *p, pk_cg **out)
{
    return pk_cg_from_cct_request(p, NULL, out);
}
