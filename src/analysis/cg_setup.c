/*
 * analysis/cg_setup.c — metrics, scopes, columns, locations and cycle
 * functions of a profile whose data is a call graph (Callgrind), so every
 * analysis and writer works on it unchanged; and the exact call graph of a
 * profile whose data is a calling-context tree (pk_profile_callgraph()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_model.h"
#include "profkit/callgraph.h"
#include "util/bytes.h"
#include "util/error.h"

static const char *const kind_names[] = {"SUMMARY",    "NODE",      "RANK", "THREAD", "GPUDEVICE",
                                         "GPUCONTEXT", "GPUSTREAM", "CORE", "PART"};
enum { KIND_THREAD = 3, KIND_PART = 8 };

/* One column per metric: its exclusive values (see cg_model.h). */
static pk_status setup_columns(pk_profile *p, uint32_t n_metrics)
{
    /* named as HPCToolkit names exclusive values, so a written database
     * reads back the same */
    static const pk_scope scope = {"function", PK_SCOPE_EXCLUSIVE, 3, 0};
    p->scopes = pk_arena_array(&p->arena, 1, sizeof *p->scopes);
    p->columns = pk_arena_array(&p->arena, (size_t)n_metrics + 1, sizeof *p->columns);
    if (!p->scopes || !p->columns) return pk_fail_nomem("setting up metrics");
    p->scopes[0] = scope;
    p->n_scopes = 1;
    for (uint32_t m = 0; m < n_metrics; m++) {
        uint32_t c = p->n_columns++;
        p->columns[c] =
            (pk_column){m, 0, 0, PK_STAT_NONE, NULL, PK_COMBINE_SUM, PK_CG_RAW_EXCLUSIVE(m)};
        pk_status st = pk_model_map_column(p, 0, PK_CG_RAW_EXCLUSIVE(m), c);
        if (st) return st;
    }
    return PK_OK;
}

static pk_status setup_metrics(pk_profile *p)
{
    pk_cg *cg = p->cg;
    p->metrics = pk_arena_array(&p->arena, cg->n_events + 1u, sizeof *p->metrics);
    if (!p->metrics) return pk_fail_nomem("setting up metrics");
    for (uint32_t e = 0; e < cg->n_events; e++) {
        pk_cg_event_rec *ev = &cg->events[e];
        if (ev->formula) continue; /* inherited: no data of its own */
        if (p->n_metrics >= 16000) return pk_fail(PK_ERR_FORMAT, "too many events");
        ev->metric = p->n_metrics;
        p->metrics[p->n_metrics++] = (pk_metric){ev->metric_name ? ev->metric_name : ev->name,
                                                 ev->long_name, ev->unit, PK_NONE, PK_COMBINE_SUM};
    }
    return setup_columns(p, p->n_metrics);
}

static pk_status setup_locations(pk_profile *p)
{
    pk_cg *cg = p->cg;
    p->id_kind_names = (const char **)kind_names;
    p->n_id_kinds = sizeof kind_names / sizeof *kind_names;
    p->locs = pk_arena_array(&p->arena, cg->n_parts + 1u, sizeof *p->locs);
    pk_ident *ids = pk_arena_array(&p->arena, (size_t)cg->n_parts * 2 + 1, sizeof *ids);
    if (!p->locs || !ids) return pk_fail_nomem("setting up locations");
    for (uint32_t i = 0; i < cg->n_parts; i++) {
        pk_cg_part_rec *part = &cg->parts[i];
        pk_ident *t = ids + 2 * (size_t)i;
        t[0] = (pk_ident){KIND_THREAD, kind_names[KIND_THREAD], 0, part->thread, 0};
        t[1] = (pk_ident){KIND_PART, kind_names[KIND_PART], 0, part->number, 0};
        part->location = i;
        p->locs[i] = (pk_loc_rec){.raw_index = i + 1, .n_ids = 2, .ids = t, .trace = PK_NONE};
    }
    p->n_locs = cg->n_parts;
    return PK_OK;
}

static pk_status add_function(pk_profile *p, const char *name)
{
    const char *s = pk_intern_cstr(&p->strings, name);
    if (!s) return pk_fail_nomem("naming cycles");
    p->functions[p->n_functions++] = (pk_function){s, PK_NONE, 0, PK_NONE, 0};
    return PK_OK;
}

/* A function "<cycle N>" per cycle, after the call graph's functions,
 * and "<below threshold>" when the tree stops at a threshold. */
static pk_status add_functions(pk_profile *p, const cg_graph *g, int rest)
{
    pk_cg *cg = p->cg;
    if (!g->n_cycles && !rest) return PK_OK;
    size_t n = (size_t)p->n_functions + g->n_cycles + 1;
    pk_function *f = pk_model_alloc_owned(p, n * sizeof *f);
    if (!f) return PK_ERR_NOMEM;
    if (p->n_functions) memcpy(f, p->functions, p->n_functions * sizeof *f);
    p->functions = f; /* the old table stays owned by the profile until it is freed */
    cg->first_cycle_function = p->n_functions, cg->n_cycle_functions = g->n_cycles;
    pk_status st = PK_OK;
    for (uint32_t c = 1; c <= g->n_cycles && !st; c++) {
        char name[32];
        snprintf(name, sizeof name, "<cycle %u>", c);
        st = add_function(p, name);
    }
    return st || !rest ? st : add_function(p, "<below threshold>");
}

/* Location l's plane: context 0 with the part's sum of each metric. */
static pk_status root_plane(pk_profile *p, uint32_t l, const double *sum, const pk_cg_event_rec *ev,
                            uint32_t ne)
{
    uint32_t n = 0;
    for (uint32_t e = 0; e < ne; e++)
        n += ev[e].metric != PK_NONE && sum[e] != 0.0;
    unsigned char *b = pk_model_alloc_owned(p, (size_t)n * PK_LM_VAL_SIZE + PK_LM_IDX_SIZE + 1);
    if (!b) return PK_ERR_NOMEM;
    unsigned char *idx = b + (size_t)n * PK_LM_VAL_SIZE;
    /* metrics are numbered in event order, so the values come by column */
    for (uint32_t e = 0, i = 0; e < ne; e++) {
        if (ev[e].metric == PK_NONE || sum[e] == 0.0) continue;
        pk_put_le16(b + (size_t)i * PK_LM_VAL_SIZE, (uint16_t)PK_CG_RAW_EXCLUSIVE(ev[e].metric));
        pk_put_le64(b + (size_t)i++ * PK_LM_VAL_SIZE + 2, pk_f64_bits(sum[e]));
    }
    pk_put_le32(idx, 0), pk_put_le64(idx + 4, 0);
    p->locs[l].plane = (pk_plane){b, idx, n, n ? 1u : 0u};
    return PK_OK;
}

/* Without a tree, each part's self costs at the root context: the totals
 * of every metric and location are right, and no calling context is
 * claimed (PK_OPEN_NO_TREE). */
static pk_status root_values(pk_profile *p)
{
    const pk_cg *cg = p->cg;
    pk_ctx_rec *c;
    uint32_t idx;
    pk_status st = pk_model_add_context(p, &c, &idx);
    if (st) return st;
    c->id = 0, c->kind = PK_CTX_ROOT, c->relation = PK_REL_NONE;
    st = pk_model_index_contexts(p);
    size_t ne = cg->n_events;
    uint32_t *perm = NULL;
    uint64_t *start = NULL;
    double *sum = calloc(ne + 1, sizeof *sum);
    if (!st && !sum) st = pk_fail_nomem("summing costs");
    if (!st) st = pk_cg_by_part(cg->self, sizeof *cg->self, cg->n_self, cg->n_parts, &start, &perm);
    for (uint32_t k = 0; k < cg->n_parts && !st; k++) {
        memset(sum, 0, ne * sizeof *sum);
        for (uint64_t j = start[k]; j < start[k + 1]; j++) {
            pk_cg_row r = pk_cg_self_row(cg, perm[j]);
            for (uint32_t x = 0; x < r.n; x++)
                sum[pk_cg_row_event(r, x)] += r.v[x];
        }
        st = root_plane(p, cg->parts[k].location, sum, cg->events, (uint32_t)ne);
    }
    free(sum), free(start), free(perm);
    return st;
}

pk_status pk_cg_complete_model(pk_profile *p, int tree, double threshold)
{
    pk_status st = setup_metrics(p);
    if (!st) st = setup_locations(p);
    if (st) return st;
    cg_graph g;
    int rest = tree && threshold > 0;
    st = cg_graph_build(p->cg, p->cg->n_functions, PK_NONE, &g);
    if (!st) st = add_functions(p, &g, rest);
    if (!st && p->cg->n_events) st = cg_flow_report(p, &g, pk_cg_shaping_event(p->cg));
    if (!st && tree)
        st = pk_cg_build_cct(p, &g, rest ? threshold : 0, rest ? p->n_functions - 1 : PK_NONE);
    else if (!st)
        st = root_values(p);
    if (!st) return cg_graph_keep(p->cg, &g);
    cg_graph_free(&g);
    return st;
}

pk_status pk_profile_callgraph(pk_profile *p)
{
    if (!p) return pk_fail(PK_ERR_INVALID_ARG, "no profile");
    if (p->cg) return PK_OK;
    return pk_cg_from_cct(p, &p->cg);
}
