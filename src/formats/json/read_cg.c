/*
 * formats/json/read_cg.c — the "callgraph" member of profkit.model/1
 * back into the model's call graph (model/callgraph.h): events, parts,
 * self costs, call arcs and jumps, each reference checked against the
 * functions, files, locations and metrics read before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jr.h"
#include "util/error.h"
#include "util/vec.h"

static pk_status nomem(jr *r)
{
    return r->st = pk_fail_nomem("reading JSON");
}

pk_status jr_cg_begin(jr *r)
{
    if (!r->contexts_done)
        return jr_err(r, NULL, NULL, "the call graph needs the model's members before it");
    r->p->cg = calloc(1, sizeof *r->p->cg);
    if (!r->p->cg) return nomem(r);
    r->p->cg->n_model_functions = r->p->cg->n_functions = r->p->n_functions;
    return PK_OK;
}

pk_status jr_cg_scalar(jr *r, const char *key, const jr_tok *t)
{
    pk_cg *cg = r->p->cg;
    uint64_t v;
    if (strcmp(key, "positions") == 0) {
        PK_TRY(jr_u64(r, t, key, PK_POS_INSTR | PK_POS_BB | PK_POS_LINE, &v));
        cg->positions = (uint32_t)v;
    } else if (strcmp(key, "by_function") == 0) {
        if (t->type != JT_BOOL) return jr_err(r, t, key, "must be true or false");
        cg->by_function = t->b;
    } else if (strcmp(key, "model_functions") == 0) {
        PK_TRY(jr_u64(r, t, key, UINT32_MAX, &v));
        if (v > r->p->n_functions)
            return jr_err(r, t, key, "%llu, but the model has %u functions", (unsigned long long)v,
                          r->p->n_functions);
        /* the model's functions after the call graph's are its cycles,
         * "<cycle N>" (a Callgrind profile's cycles) */
        cg->n_model_functions = cg->n_functions = (uint32_t)v;
        cg->first_cycle_function = (uint32_t)v;
        cg->n_cycle_functions = r->p->n_functions - (uint32_t)v;
    }
    return PK_OK;
}

static pk_status rec_extra(jr *r)
{
    pk_cg *cg = r->p->cg;
    size_t n;
    const jr_tok *t = jr_rec_toks(r, &n);
    if (n > UINT32_MAX - cg->n_model_functions - 1)
        return jr_err(r, NULL, NULL, "too many function names");
    cg->extra_names = malloc((n + 1) * sizeof *cg->extra_names);
    if (!cg->extra_names) return nomem(r);
    for (size_t i = 0; i < n; i++) {
        char field[24];
        snprintf(field, sizeof field, "[%zu]", i);
        PK_TRY(jr_intern(r, &t[i], field, &cg->extra_names[i]));
    }
    cg->n_functions = cg->n_model_functions + (uint32_t)n;
    return PK_OK;
}

static pk_status rec_event(jr *r)
{
    pk_cg *cg = r->p->cg;
    if (cg->n_events == 65535) return jr_err(r, NULL, NULL, "too many events");
    if (pk_vec_reserve((void **)&cg->events, &r->cap_events, cg->n_events + 1u, sizeof *cg->events))
        return nomem(r);
    pk_cg_event_rec *e = &cg->events[cg->n_events];
    PK_TRY(jr_get_str(r, "name", 1, &e->name));
    PK_TRY(jr_get_str(r, "long_name", 1, &e->long_name));
    PK_TRY(jr_get_str(r, "formula", 1, &e->formula));
    PK_TRY(jr_get_index(r, "metric", r->p->n_metrics, 1, &e->metric));
    cg->n_events++;
    return PK_OK;
}

/* null or exactly one number per event, into a malloc'ed array. */
static pk_status cost_list(jr *r, const char *key, double **out)
{
    const jr_tok *t;
    size_t n;
    int present;
    PK_TRY(jr_get_list(r, key, 1, &t, &n, &present));
    if (!present) return PK_OK;
    uint32_t ne = r->p->cg->n_events;
    if (n != ne) return jr_err(r, NULL, key, "has %zu numbers for %u events", n, ne);
    *out = calloc(ne + 1u, sizeof **out);
    if (!*out) return nomem(r);
    for (size_t i = 0; i < n; i++) {
        char field[48];
        snprintf(field, sizeof field, "%s[%zu]", key, i);
        PK_TRY(jr_double(r, &t[i], field, &(*out)[i]));
    }
    return PK_OK;
}

static pk_status part_descs(jr *r, pk_cg_part_rec *part)
{
    const jr_tok *t;
    size_t n;
    int present;
    PK_TRY(jr_get_list(r, "descs", 0, &t, &n, &present));
    if (n > UINT32_MAX) return jr_err(r, NULL, "descs", "too many");
    part->descs = malloc((n + 1) * sizeof *part->descs);
    if (!part->descs) return nomem(r);
    for (size_t i = 0; i < n; i++) {
        char field[40];
        snprintf(field, sizeof field, "descs[%zu]", i);
        PK_TRY(jr_intern(r, &t[i], field, &part->descs[i]));
        if (!part->descs[i]) return jr_err(r, &t[i], field, "must be a string, not null");
    }
    part->n_descs = (uint32_t)n;
    return PK_OK;
}

static pk_status rec_part(jr *r)
{
    pk_cg *cg = r->p->cg;
    if (pk_vec_reserve((void **)&cg->parts, &r->cap_parts, cg->n_parts + 1u, sizeof *cg->parts))
        return nomem(r);
    pk_cg_part_rec *part = &cg->parts[cg->n_parts++]; /* counted now: freed with the graph */
    memset(part, 0, sizeof *part);
    uint64_t positions;
    PK_TRY(jr_get_index(r, "location", r->p->n_locs, 1, &part->location));
    PK_TRY(jr_get_u32(r, "number", &part->number));
    PK_TRY(jr_get_u32(r, "thread", &part->thread));
    PK_TRY(jr_get_u64(r, "pid", UINT64_MAX, &part->pid));
    PK_TRY(jr_get_u64(r, "positions", PK_POS_INSTR | PK_POS_BB | PK_POS_LINE, &positions));
    part->positions = (uint32_t)positions;
    PK_TRY(jr_get_str(r, "file", 1, &part->file));
    PK_TRY(jr_get_str(r, "cmd", 1, &part->cmd));
    PK_TRY(jr_get_str(r, "creator", 1, &part->creator));
    PK_TRY(part_descs(r, part));
    PK_TRY(cost_list(r, "summary", &part->summary));
    PK_TRY(cost_list(r, "totals", &part->totals));
    PK_TRY(jr_get_u64(r, "summary_line", UINT64_MAX, &part->summary_line));
    return jr_get_u64(r, "totals_line", UINT64_MAX, &part->totals_line);
}

/* Positional fields of a call-graph row. */
typedef struct row {
    jr *r;
    const jr_tok *t;
    size_t i;
} row;

static pk_status row_u64(row *w, uint64_t max, uint64_t *out)
{
    char field[24];
    snprintf(field, sizeof field, "[%zu]", w->i);
    return jr_u64(w->r, &w->t[w->i++], field, max, out);
}

static pk_status row_u32(row *w, uint32_t *out)
{
    uint64_t v;
    PK_TRY(row_u64(w, UINT32_MAX, &v));
    *out = (uint32_t)v;
    return PK_OK;
}

static pk_status row_index(row *w, uint64_t n, int null_ok, uint32_t *out)
{
    char field[24];
    snprintf(field, sizeof field, "[%zu]", w->i);
    return jr_tok_index(w->r, &w->t[w->i++], field, n, null_ok, out);
}

static pk_status row_double(row *w, double *out)
{
    char field[24];
    snprintf(field, sizeof field, "[%zu]", w->i);
    return jr_double(w->r, &w->t[w->i++], field, out);
}

/* file, line, instr, bb */
static pk_status row_pos(row *w, uint32_t *file, uint32_t *line, uint64_t *instr, uint64_t *bb)
{
    PK_TRY(row_index(w, w->r->p->n_files, 1, file));
    PK_TRY(row_u32(w, line));
    PK_TRY(row_u64(w, UINT64_MAX, instr));
    return row_u64(w, UINT64_MAX, bb);
}

static pk_status row_begin(jr *r, row *w, size_t want, const char *what)
{
    size_t n;
    w->r = r, w->t = jr_rec_toks(r, &n), w->i = 0;
    if (n != want)
        return jr_err(r, NULL, NULL, "a %s row has %zu elements here, not %zu (docs/json.md)", what,
                      n, want);
    return PK_OK;
}

static pk_status rec_self(jr *r)
{
    pk_cg *cg = r->p->cg;
    uint32_t ne = cg->n_events;
    row w;
    PK_TRY(row_begin(r, &w, 6 + (size_t)ne, "self cost"));
    if (pk_vec_reserve((void **)&cg->self, &r->cap_self, cg->n_self + 1, sizeof *cg->self))
        return nomem(r);
    size_t cap = r->cap_self;
    if (pk_vec_reserve((void **)&cg->self_cost, &r->cap_self_cost, cap * (ne + 1u), sizeof(double)))
        return nomem(r);
    pk_cg_self_rec *s = &cg->self[cg->n_self];
    PK_TRY(row_index(&w, cg->n_parts, 0, &s->part));
    PK_TRY(row_index(&w, cg->n_functions, 0, &s->fn));
    PK_TRY(row_pos(&w, &s->file, &s->line, &s->instr, &s->bb));
    for (uint32_t e = 0; e < ne; e++)
        PK_TRY(row_double(&w, &cg->self_cost[cg->n_self * ne + e]));
    cg->n_self++;
    return PK_OK;
}

static pk_status rec_call(jr *r)
{
    pk_cg *cg = r->p->cg;
    uint32_t ne = cg->n_events;
    row w;
    PK_TRY(row_begin(r, &w, 12 + (size_t)ne, "call"));
    if (pk_vec_reserve((void **)&cg->calls, &r->cap_calls, cg->n_calls + 1, sizeof *cg->calls))
        return nomem(r);
    size_t cap = r->cap_calls;
    if (pk_vec_reserve((void **)&cg->call_cost, &r->cap_call_cost, cap * (ne + 1u), sizeof(double)))
        return nomem(r);
    pk_cg_call_rec *c = &cg->calls[cg->n_calls];
    memset(c, 0, sizeof *c);
    PK_TRY(row_index(&w, cg->n_parts, 0, &c->part));
    PK_TRY(row_index(&w, cg->n_functions, 0, &c->caller));
    PK_TRY(row_index(&w, cg->n_functions, 0, &c->callee));
    PK_TRY(row_pos(&w, &c->file, &c->line, &c->instr, &c->bb));
    PK_TRY(row_pos(&w, &c->to_file, &c->to_line, &c->to_instr, &c->to_bb));
    PK_TRY(row_double(&w, &c->count));
    for (uint32_t e = 0; e < ne; e++)
        PK_TRY(row_double(&w, &cg->call_cost[cg->n_calls * ne + e]));
    cg->n_calls++;
    return PK_OK;
}

static pk_status rec_jump(jr *r)
{
    pk_cg *cg = r->p->cg;
    row w;
    PK_TRY(row_begin(r, &w, 14, "jump"));
    if (pk_vec_reserve((void **)&cg->jumps, &r->cap_jumps, cg->n_jumps + 1, sizeof *cg->jumps))
        return nomem(r);
    pk_cg_jump_rec *j = &cg->jumps[cg->n_jumps];
    memset(j, 0, sizeof *j);
    PK_TRY(row_index(&w, cg->n_parts, 0, &j->part));
    PK_TRY(row_index(&w, cg->n_functions, 0, &j->fn));
    PK_TRY(row_pos(&w, &j->file, &j->line, &j->instr, &j->bb));
    PK_TRY(row_index(&w, cg->n_functions, 0, &j->to_fn));
    PK_TRY(row_pos(&w, &j->to_file, &j->to_line, &j->to_instr, &j->to_bb));
    if (w.t[w.i].type != JT_BOOL) return jr_err(r, &w.t[w.i], "[11]", "must be true or false");
    j->conditional = w.t[w.i++].b;
    PK_TRY(row_double(&w, &j->followed));
    PK_TRY(row_double(&w, &j->executed));
    cg->n_jumps++;
    return PK_OK;
}

pk_status jr_cg_record(jr *r, jr_kind kind, uint64_t index)
{
    (void)index;
    switch (kind) {
    case R_CG_EXTRA:
        return rec_extra(r);
    case R_EVENT:
        return rec_event(r);
    case R_PART:
        return rec_part(r);
    case R_SELF:
        return rec_self(r);
    case R_CALL:
        return rec_call(r);
    case R_JUMP:
        return rec_jump(r);
    default:
        return jr_err(r, NULL, NULL, "internal: no handler for record kind %d", (int)kind);
    }
}

/* The call graph is whole: the totals its parts state (Callgrind's
 * summary: lines), which are its metrics' program totals. */
pk_status jr_cg_finish(jr *r)
{
    return r->p->cg ? pk_cg_state_totals(r->p->cg) : PK_OK;
}
