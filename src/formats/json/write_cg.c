/*
 * formats/json/write_cg.c — the "callgraph" member of profkit.model/1:
 * a Callgrind profile's native call graph (events, parts, self costs per
 * position, call arcs, jumps) exactly as the model holds it, so a JSON
 * copy converts back to Callgrind as the original does. Costs, calls and
 * jumps are positional arrays, one a line (docs/json.md lists the
 * positions).
 */
#include "jw.h"
#include "model/callgraph.h"

/* A row of costs as n values, one per event (the row's others are 0). */
static void put_costs(jw *w, pk_cg_row r, uint32_t n)
{
    for (uint32_t e = 0, j = 0; e < n; e++) {
        int has = j < r.n && pk_cg_row_event(r, j) == e;
        jw_raw(w, ", ");
        jw_double(w, has ? r.v[j++] : 0.0);
    }
}

static void put_cost_list(jw *w, const double *v, uint32_t n)
{
    if (!v) {
        jw_raw(w, "null");
        return;
    }
    jw_raw(w, "[");
    for (uint32_t e = 0; e < n; e++) {
        if (e) jw_raw(w, ", ");
        jw_double(w, v[e]);
    }
    jw_raw(w, "]");
}

static void put_events(jw *w, const pk_cg *cg)
{
    jw_raw(w, ",\n  \"events\": [");
    for (uint32_t e = 0; e < cg->n_events; e++) {
        const pk_cg_event_rec *ev = &cg->events[e];
        jw_raw(w, e ? ",\n   {\"name\": " : "\n   {\"name\": ");
        jw_str(w, ev->name);
        jw_raw(w, ", \"long_name\": ");
        jw_str(w, ev->long_name);
        jw_raw(w, ", \"formula\": ");
        jw_str(w, ev->formula);
        jw_raw(w, ", \"metric\": ");
        jw_idx(w, ev->metric);
        jw_raw(w, "}");
    }
    jw_raw(w, cg->n_events ? "\n  ]" : "]");
}

static void put_part(jw *w, const pk_cg *cg, const pk_cg_part_rec *r)
{
    jw_raw(w, "{\"location\": ");
    jw_idx(w, r->location);
    jw_raw(w, ", \"number\": ");
    jw_u64(w, r->number);
    jw_raw(w, ", \"thread\": ");
    jw_u64(w, r->thread);
    jw_raw(w, ", \"pid\": ");
    jw_u64(w, r->pid);
    jw_raw(w, ", \"positions\": ");
    jw_u64(w, r->positions);
    jw_raw(w, ",\n    \"file\": ");
    jw_str(w, r->file);
    jw_raw(w, ", \"cmd\": ");
    jw_str(w, r->cmd);
    jw_raw(w, ", \"creator\": ");
    jw_str(w, r->creator);
    jw_raw(w, ",\n    \"descs\": [");
    for (uint32_t i = 0; i < r->n_descs; i++) {
        if (i) jw_raw(w, ", ");
        jw_str(w, r->descs[i]);
    }
    jw_raw(w, "], \"summary\": ");
    put_cost_list(w, r->summary, cg->n_events);
    jw_raw(w, ", \"totals\": ");
    put_cost_list(w, r->totals, cg->n_events);
    jw_raw(w, ", \"summary_line\": ");
    jw_u64(w, r->summary_line);
    jw_raw(w, ", \"totals_line\": ");
    jw_u64(w, r->totals_line);
    jw_raw(w, "}");
}

static void put_self(jw *w, const pk_cg *cg)
{
    jw_raw(w, ",\n  \"self\": [");
    for (uint64_t i = 0; i < cg->n_self; i++) {
        const pk_cg_self_rec *s = &cg->self[i];
        jw_raw(w, i ? ",\n   [" : "\n   [");
        jw_u64(w, s->part);
        jw_raw(w, ", ");
        jw_u64(w, s->fn);
        jw_raw(w, ", ");
        jw_idx(w, s->file);
        jw_raw(w, ", ");
        jw_u64(w, s->line);
        jw_raw(w, ", ");
        jw_u64(w, s->instr);
        jw_raw(w, ", ");
        jw_u64(w, s->bb);
        put_costs(w, pk_cg_self_row(cg, i), cg->n_events);
        jw_raw(w, "]");
    }
    jw_raw(w, cg->n_self ? "\n  ]" : "]");
}

/* file, line, instr, bb of a position. */
static void put_pos(jw *w, uint32_t file, uint32_t line, uint64_t instr, uint64_t bb)
{
    jw_raw(w, ", ");
    jw_idx(w, file);
    jw_raw(w, ", ");
    jw_u64(w, line);
    jw_raw(w, ", ");
    jw_u64(w, instr);
    jw_raw(w, ", ");
    jw_u64(w, bb);
}

static void put_calls(jw *w, const pk_cg *cg)
{
    jw_raw(w, ",\n  \"calls\": [");
    for (uint64_t i = 0; i < cg->n_calls; i++) {
        const pk_cg_call_rec *c = &cg->calls[i];
        jw_raw(w, i ? ",\n   [" : "\n   [");
        jw_u64(w, c->part);
        jw_raw(w, ", ");
        jw_u64(w, c->caller);
        jw_raw(w, ", ");
        jw_u64(w, c->callee);
        put_pos(w, c->file, c->line, c->instr, c->bb);
        put_pos(w, c->to_file, c->to_line, c->to_instr, c->to_bb);
        jw_raw(w, ", ");
        jw_double(w, c->count);
        put_costs(w, pk_cg_call_row(cg, i), cg->n_events);
        jw_raw(w, "]");
    }
    jw_raw(w, cg->n_calls ? "\n  ]" : "]");
}

static void put_jumps(jw *w, const pk_cg *cg)
{
    jw_raw(w, ",\n  \"jumps\": [");
    for (uint64_t i = 0; i < cg->n_jumps; i++) {
        const pk_cg_jump_rec *j = &cg->jumps[i];
        jw_raw(w, i ? ",\n   [" : "\n   [");
        jw_u64(w, j->part);
        jw_raw(w, ", ");
        jw_u64(w, j->fn);
        put_pos(w, j->file, j->line, j->instr, j->bb);
        jw_raw(w, ", ");
        jw_u64(w, j->to_fn);
        put_pos(w, j->to_file, j->to_line, j->to_instr, j->to_bb);
        jw_raw(w, ", ");
        jw_bool(w, j->conditional);
        jw_raw(w, ", ");
        jw_double(w, j->followed);
        jw_raw(w, ", ");
        jw_double(w, j->executed);
        jw_raw(w, "]");
    }
    jw_raw(w, cg->n_jumps ? "\n  ]" : "]");
}

void json_put_callgraph(jw *w)
{
    const pk_cg *cg = w->p->cg;
    jw_raw(w, ",\n \"callgraph\": {\"positions\": ");
    jw_u64(w, cg->positions);
    jw_raw(w, ", \"by_function\": ");
    jw_bool(w, cg->by_function);
    jw_raw(w, ", \"model_functions\": ");
    jw_u64(w, cg->n_model_functions);
    jw_raw(w, ",\n  \"extra_functions\": [");
    for (uint32_t f = cg->n_model_functions; f < cg->n_functions; f++) {
        if (f > cg->n_model_functions) jw_raw(w, ", ");
        jw_str(w, cg->extra_names[f - cg->n_model_functions]);
    }
    jw_raw(w, "]");
    put_events(w, cg);
    jw_raw(w, ",\n  \"parts\": [");
    for (uint32_t k = 0; k < cg->n_parts; k++) {
        jw_raw(w, k ? ",\n   " : "\n   ");
        put_part(w, cg, &cg->parts[k]);
    }
    jw_raw(w, cg->n_parts ? "\n  ]" : "]");
    put_self(w, cg);
    put_calls(w, cg);
    put_jumps(w, cg);
    jw_raw(w, "}");
}
