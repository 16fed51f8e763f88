/*
 * model/callgraph.c — the call graph's storage and its public accessors
 * (profkit/callgraph.h).
 */
#include "callgraph.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

void pk_cg_free(pk_cg *cg)
{
    if (!cg) return;
    if (cg->kept_graph_free) cg->kept_graph_free(cg->kept_graph);
    for (uint32_t i = 0; i < cg->n_parts; i++) {
        free(cg->parts[i].descs);
        free(cg->parts[i].summary);
        free(cg->parts[i].totals);
    }
    free(cg->parts);
    free(cg->events);
    free(cg->self);
    free(cg->self_cost);
    free(cg->self_off);
    free(cg->self_ev);
    free(cg->calls);
    free(cg->call_cost);
    free(cg->call_off);
    free(cg->call_ev);
    free(cg->jumps);
    free(cg->extra_names);
    free(cg);
}

static pk_status need_cg(const pk_profile *p)
{
    if (!p) return pk_fail(PK_ERR_INVALID_ARG, "no profile");
    if (!p->cg)
        return pk_fail(PK_ERR_NOT_FOUND, "%s: the profile has no call graph",
                       p->path ? p->path : "profile");
    return PK_OK;
}

pk_status pk_callgraph_summary(const pk_profile *p, pk_cg_summary *out)
{
    pk_status st = need_cg(p);
    if (st) return st;
    const pk_cg *cg = p->cg;
    *out = (pk_cg_summary){cg->n_events, cg->n_parts,   cg->n_self,     cg->n_calls,
                           cg->n_jumps,  cg->positions, cg->by_function};
    return PK_OK;
}

pk_status pk_callgraph_event(const pk_profile *p, size_t i, pk_cg_event *out)
{
    pk_status st = need_cg(p);
    if (st) return st;
    if (i >= p->cg->n_events) return pk_fail(PK_ERR_INVALID_ARG, "event %zu out of range", i);
    const pk_cg_event_rec *e = &p->cg->events[i];
    *out = (pk_cg_event){e->name, e->long_name, e->formula, e->metric};
    return PK_OK;
}

pk_status pk_callgraph_metric_event(const pk_profile *p, pk_index metric, size_t *out)
{
    pk_status st = need_cg(p);
    if (st) return st;
    for (size_t e = 0; e < p->cg->n_events; e++)
        if (p->cg->events[e].metric == metric) return *out = e, PK_OK;
    return pk_fail(PK_ERR_NOT_FOUND, "metric %u is no event of the call graph", metric);
}

pk_status pk_callgraph_part(const pk_profile *p, size_t i, pk_cg_part *out)
{
    pk_status st = need_cg(p);
    if (st) return st;
    if (i >= p->cg->n_parts) return pk_fail(PK_ERR_INVALID_ARG, "part %zu out of range", i);
    const pk_cg_part_rec *r = &p->cg->parts[i];
    *out = (pk_cg_part){r->location, r->number,    r->thread,  r->pid,   r->file,    r->cmd,
                        r->creator,  r->positions, r->n_descs, r->descs, r->summary, r->totals};
    return PK_OK;
}

static pk_cg_position position(uint32_t file, uint32_t line, uint64_t instr, uint64_t bb)
{
    return (pk_cg_position){file, line, instr, bb};
}

pk_status pk_callgraph_cost(const pk_profile *p, uint64_t i, pk_cg_cost *out)
{
    pk_status st = need_cg(p);
    if (st) return st;
    const pk_cg *cg = p->cg;
    if (i >= cg->n_self)
        return pk_fail(PK_ERR_INVALID_ARG, "cost %llu out of range", (unsigned long long)i);
    const pk_cg_self_rec *r = &cg->self[i];
    pk_cg_row row = pk_cg_self_row(cg, i);
    *out = (pk_cg_cost){cg->parts[r->part].location,
                        r->fn,
                        position(r->file, r->line, r->instr, r->bb),
                        row.v,
                        row.n,
                        row.ev};
    return PK_OK;
}

pk_status pk_callgraph_call(const pk_profile *p, uint64_t i, pk_cg_call *out)
{
    pk_status st = need_cg(p);
    if (st) return st;
    const pk_cg *cg = p->cg;
    if (i >= cg->n_calls)
        return pk_fail(PK_ERR_INVALID_ARG, "call %llu out of range", (unsigned long long)i);
    const pk_cg_call_rec *r = &cg->calls[i];
    pk_cg_row row = pk_cg_call_row(cg, i);
    *out = (pk_cg_call){cg->parts[r->part].location,
                        r->caller,
                        r->callee,
                        position(r->file, r->line, r->instr, r->bb),
                        position(r->to_file, r->to_line, r->to_instr, r->to_bb),
                        r->count,
                        row.v,
                        row.n,
                        row.ev};
    return PK_OK;
}

pk_status pk_callgraph_jump(const pk_profile *p, uint64_t i, pk_cg_jump *out)
{
    pk_status st = need_cg(p);
    if (st) return st;
    const pk_cg *cg = p->cg;
    if (i >= cg->n_jumps)
        return pk_fail(PK_ERR_INVALID_ARG, "jump %llu out of range", (unsigned long long)i);
    const pk_cg_jump_rec *r = &cg->jumps[i];
    *out = (pk_cg_jump){cg->parts[r->part].location,
                        r->fn,
                        r->to_fn,
                        position(r->file, r->line, r->instr, r->bb),
                        position(r->to_file, r->to_line, r->to_instr, r->to_bb),
                        (int)r->conditional,
                        r->followed,
                        r->executed};
    return PK_OK;
}

const char *pk_cg_function_name(const pk_profile *p, const pk_cg *cg, uint32_t f)
{
    if (f < p->n_functions) return p->functions[f].name ? p->functions[f].name : "<unknown>";
    if (f >= cg->n_model_functions && f < cg->n_functions)
        return cg->extra_names[f - cg->n_model_functions];
    return "<unknown>";
}

pk_status pk_cg_by_part(const void *base, size_t stride, uint64_t n, uint32_t n_parts,
                        uint64_t **start, uint32_t **perm)
{
    *start = calloc((size_t)n_parts + 2, sizeof **start);
    *perm = malloc((n + 1) * sizeof **perm);
    if (!*start || !*perm) return pk_fail_nomem("reading the call graph by part");
#define PK_PART_OF(i) (*(const uint32_t *)((const char *)base + (i)*stride))
    for (uint64_t i = 0; i < n; i++)
        (*start)[PK_PART_OF(i) + 2]++;
    for (uint32_t k = 0; k < n_parts; k++)
        (*start)[k + 2] += (*start)[k + 1];
    for (uint64_t i = 0; i < n; i++)
        (*perm)[(*start)[PK_PART_OF(i) + 1]++] = (uint32_t)i;
#undef PK_PART_OF
    return PK_OK;
}

/* One part's cost lines summed by event into sum (zeroed first). */
static void part_lines(const pk_cg *cg, const uint64_t *start, const uint32_t *perm, uint32_t k,
                       double *sum)
{
    memset(sum, 0, cg->n_events * sizeof *sum);
    for (uint64_t j = start[k]; j < start[k + 1]; j++) {
        pk_cg_row r = pk_cg_self_row(cg, perm[j]);
        for (uint32_t x = 0; x < r.n; x++)
            sum[pk_cg_row_event(r, x)] += r.v[x];
    }
}

pk_status pk_cg_sum_statements(const pk_cg *cg, const unsigned char *selected, double *stated,
                               double *lines, unsigned char *has)
{
    uint32_t ne = cg->n_events, *perm = NULL;
    uint64_t *start = NULL;
    double *sum = calloc(ne + 1u, sizeof *sum);
    pk_status st = sum ? PK_OK : pk_fail_nomem("summing stated totals");
    if (!st) st = pk_cg_by_part(cg->self, sizeof *cg->self, cg->n_self, cg->n_parts, &start, &perm);
    memset(stated, 0, ne * sizeof *stated), memset(lines, 0, ne * sizeof *lines);
    if (has) memset(has, 0, ne);
    for (uint32_t k = 0; k < cg->n_parts && !st; k++) {
        const pk_cg_part_rec *part = &cg->parts[k];
        if (selected && (part->location == PK_NONE || !selected[part->location])) continue;
        const double *says = pk_cg_part_statement(cg, part);
        part_lines(cg, start, perm, k, sum);
        for (uint32_t e = 0; e < ne; e++) {
            int own = says && !cg->events[e].formula && (says[e] != 0.0 || sum[e] == 0.0);
            lines[e] += sum[e];
            stated[e] += own ? says[e] : sum[e];
            if (has && own) has[e] = 1;
        }
    }
    free(start), free(perm), free(sum);
    return st;
}

pk_status pk_cg_state_totals(pk_cg *cg)
{
    uint32_t ne = cg->n_events;
    double *v = malloc(2 * (ne + 1u) * sizeof *v);
    unsigned char *has = malloc(ne + 1u);
    pk_status st = v && has ? pk_cg_sum_statements(cg, NULL, v, v + ne + 1, has)
                            : pk_fail_nomem("summing stated totals");
    for (uint32_t e = 0; e < ne && !st; e++) {
        cg->events[e].stated = has[e];
        cg->events[e].stated_total = v[e], cg->events[e].lines_total = v[ne + 1 + e];
    }
    free(v), free(has);
    return st;
}

pk_status pk_metric_stated_total(const pk_profile *p, pk_index metric, double *stated,
                                 double *cost_lines)
{
    if (!p) return pk_fail(PK_ERR_INVALID_ARG, "pk_metric_stated_total: no profile");
    for (uint32_t e = 0; p->cg && e < p->cg->n_events; e++) {
        const pk_cg_event_rec *ev = &p->cg->events[e];
        if (ev->metric != metric || !ev->stated) continue;
        if (stated) *stated = ev->stated_total;
        if (cost_lines) *cost_lines = ev->lines_total;
        return PK_OK;
    }
    return PK_ERR_NOT_FOUND; /* an answer, not a failure: no error text */
}
