/*
 * analysis/cg_setup.c — metrics, scopes, columns and locations of a
 * profile whose data is a call graph (Callgrind): the same shape an
 * HPCToolkit database has, so every analysis and writer works unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "cg_model.h"
#include "profkit/analysis.h"
#include "util/error.h"

static const char *const kind_names[] = {"SUMMARY",    "NODE",      "RANK", "THREAD", "GPUDEVICE",
                                         "GPUCONTEXT", "GPUSTREAM", "CORE", "PART"};
enum { KIND_THREAD = 3, KIND_PART = 8 };

static pk_status setup_columns(pk_profile *p, uint32_t n_metrics)
{
    static const pk_scope scopes[] = {{"point", PK_SCOPE_POINT, 1, 255},
                                      {"function", PK_SCOPE_EXCLUSIVE, 3, 0},
                                      {"execution", PK_SCOPE_INCLUSIVE, 2, 255}};
    p->scopes = pk_arena_array(&p->arena, 3, sizeof *p->scopes);
    p->columns = pk_arena_array(&p->arena, (size_t)n_metrics * 5 + 1, sizeof *p->columns);
    if (!p->scopes || !p->columns) return pk_fail_nomem("setting up metrics");
    memcpy(p->scopes, scopes, sizeof scopes);
    p->n_scopes = 3;
    for (uint32_t m = 0; m < n_metrics; m++) {
        for (uint32_t s = 0; s < 3; s++) {
            uint32_t c = p->n_columns++;
            p->columns[c] = (pk_column){m, s, 0, PK_STAT_NONE, NULL, PK_COMBINE_SUM, 3 * m + s};
            pk_status st = pk_model_map_column(p, 0, 3 * m + s, c);
            if (st) return st;
        }
        for (uint32_t s = 1; s < 3; s++) {
            uint32_t c = p->n_columns++, raw = 2 * m + s - 1;
            p->columns[c] = (pk_column){m, s, 1, PK_STAT_SUM, "$$", PK_COMBINE_SUM, raw};
            pk_status st = pk_model_map_column(p, 1, raw, c);
            if (st) return st;
        }
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
    p->locs[cg->n_parts] = (pk_loc_rec){.raw_index = 0, .is_summary = 1, .trace = PK_NONE};
    p->n_locs = cg->n_parts + 1;
    return PK_OK;
}

pk_status pk_cg_setup_model(pk_profile *p)
{
    pk_status st = setup_metrics(p);
    if (!st) st = setup_locations(p);
    return st;
}

pk_status pk_cg_derive(pk_profile *p)
{
    if (!p->n_metrics) return PK_OK;
    pk_derive_options o = {0, 1};
    return pk_profile_derive(p, &o, NULL);
}
