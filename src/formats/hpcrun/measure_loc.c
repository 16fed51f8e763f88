/*
 * formats/hpcrun/measure_loc.c — finishing the model of a measurement:
 * metrics with hpcprof's four scopes, one location per .hpcrun file with
 * the identifier tuple hpcprof would store, point-value planes, traces,
 * and the propagated scopes and summary statistics recomputed from the
 * point values with hpcprof's rules (pk_profile_derive).
 *
 * Identifier tuples: hpcrun writes some logical ids as "to be generated"
 * (NODE: GEN LOCAL, host id as physical id). hpcprof numbers them in the
 * order it meets them; profkit numbers the distinct physical ids of each
 * group in ascending order, which is deterministic and equal for the
 * single-host runs of the corpus (ThreadAttributes::finalize).
 */
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "profkit/analysis.h"
#include "util/bytes.h"
#include "util/vec.h"

static const char *const kind_names[] = {"SUMMARY",   "NODE",       "RANK",      "THREAD",
                                         "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE"};
enum { N_KIND_NAMES = sizeof kind_names / sizeof *kind_names };

static pk_status setup_metrics(hm_build *b)
{
    static const pk_scope scopes[HM_N_SCOPES] = {{"point", PK_SCOPE_POINT, 1, 255},
                                                 {"function", PK_SCOPE_EXCLUSIVE, 3, 0},
                                                 {"lex_aware", PK_SCOPE_LEX_AWARE, 0, 255},
                                                 {"execution", PK_SCOPE_INCLUSIVE, 2, 255}};
    pk_profile *p = b->p;
    if (b->n_metrics > UINT16_MAX / HM_N_SCOPES)
        return pk_fail(PK_ERR_UNSUPPORTED, "%s: %u metrics (profkit keeps at most %u)", p->path,
                       b->n_metrics, UINT16_MAX / HM_N_SCOPES);
    p->metrics = pk_arena_array(&p->arena, b->n_metrics + 1u, sizeof *p->metrics);
    p->columns =
        pk_arena_array(&p->arena, (size_t)b->n_metrics * 2 * HM_N_SCOPES + 1, sizeof *p->columns);
    p->scopes = pk_arena_array(&p->arena, HM_N_SCOPES, sizeof *p->scopes);
    if (!p->metrics || !p->columns || !p->scopes) return pk_fail_nomem("setting up metrics");
    memcpy(p->scopes, scopes, sizeof scopes);
    p->n_scopes = HM_N_SCOPES;
    pk_status st = PK_OK;
    for (uint32_t m = 0; m < b->n_metrics && !st; m++) {
        hm_metric *hm = &b->metrics[m];
        hm->model = p->n_metrics++;
        int has_desc = *hm->desc && strcmp(hm->desc, hm->name) != 0;
        p->metrics[m] =
            (pk_metric){hm->name, has_desc ? hm->desc : NULL, NULL, PK_NONE, PK_COMBINE_SUM, 0};
        if (!hm->has_values) {
            st = pk_model_add_attr(p, PK_ENTITY_METRIC, m, "hpcrun:formula", hm->formula,
                                   strlen(hm->formula));
            if (!st && *hm->format)
                st = pk_model_add_attr(p, PK_ENTITY_METRIC, m, "hpcrun:format", hm->format,
                                       strlen(hm->format));
            continue;
        }
        for (uint32_t s = 0; s < HM_N_SCOPES && !st; s++) {
            /* hpcprof: "show inclusive only" keeps point and execution,
             * "show exclusive only" drops execution */
            if ((hm->show == 2 && (s == HM_FUNCTION || s == HM_LEX_AWARE)) ||
                (hm->show == 3 && s == HM_EXECUTION))
                continue;
            uint32_t raw = HM_N_SCOPES * m + s, c = p->n_columns++;
            p->columns[c] = (pk_column){m, s, 0, PK_STAT_NONE, NULL, PK_COMBINE_SUM, raw};
            st = pk_model_map_column(p, 0, raw, c);
            c = p->n_columns++;
            p->columns[c] = (pk_column){m, s, 1, PK_STAT_SUM, "$$", PK_COMBINE_SUM, raw};
            if (!st) st = pk_model_map_column(p, 1, raw, c);
        }
        if (!st && (hm->show == 0 || hm->show == 4))
            st = pk_model_add_attr(p, PK_ENTITY_METRIC, m, "hpcrun:show",
                                   hm->show ? "invisible" : "hidden", hm->show ? 9 : 6);
    }
    return st;
}

/* A group of generated logical ids: chain of the elements before it
 * (LOCAL) or the kind alone (GLOBAL). Records are (group, physical, slot). */
typedef struct gen_rec {
    uint64_t group, physical;
    uint32_t loc, pos;
} gen_rec;

static int cmp_gen(const void *a, const void *b)
{
    const gen_rec *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    return x->physical < y->physical ? -1 : x->physical > y->physical;
}

/* Group of element i of location l; chains are numbered through `chains`. */
static pk_status gen_group(pk_kmap *chains, const hm_loc *l, uint32_t i, uint64_t *group)
{
    uint32_t chain = 0;
    for (uint32_t j = 0; j < i; j++) {
        uint64_t key[PK_KMAP_WORDS] = {chain, l->ids[j].kind, l->ids[j].physical, 1};
        int added;
        if (pk_kmap_upsert(chains, key, (uint32_t)chains->count + 1, &chain, &added))
            return pk_fail_nomem("numbering identifiers");
    }
    const hr_id *id = &l->ids[i];
    *group = id->interp == HR_IDINTERP_GEN_GLOBAL ? (uint64_t)id->kind << 48 | UINT64_C(1) << 47
                                                  : (uint64_t)id->kind << 48 | chain;
    return PK_OK;
}

static pk_status generate_ids(hm_build *b, pk_ident **idents)
{
    size_t n = 0;
    for (uint32_t l = 0; l < b->n_locs; l++)
        n += b->locs[l].n_ids;
    gen_rec *g = malloc((n + 1) * sizeof *g);
    pk_kmap chains = {0};
    if (!g) return pk_fail_nomem("numbering identifiers");
    size_t ng = 0;
    pk_status st = PK_OK;
    for (uint32_t l = 0; l < b->n_locs && !st; l++)
        for (uint32_t i = 0; i < b->locs[l].n_ids && !st; i++) {
            uint8_t in = b->locs[l].ids[i].interp;
            if (in != HR_IDINTERP_GEN_LOCAL && in != HR_IDINTERP_GEN_GLOBAL) continue;
            g[ng] = (gen_rec){0, b->locs[l].ids[i].physical, l, i};
            st = gen_group(&chains, &b->locs[l], i, &g[ng++].group);
        }
    if (ng) qsort(g, ng, sizeof *g, cmp_gen);
    uint32_t rank = 0;
    for (size_t k = 0; k < ng && !st; k++) {
        if (k && g[k].group != g[k - 1].group)
            rank = 0;
        else if (k && g[k].physical != g[k - 1].physical)
            rank++;
        idents[g[k].loc][g[k].pos].logical = rank;
    }
    free(g);
    pk_kmap_free(&chains);
    return st;
}

static pk_status location_ids(hm_build *b, pk_ident ***out)
{
    pk_profile *p = b->p;
    pk_ident **idents = pk_arena_array(&p->arena, b->n_locs + 1u, sizeof *idents);
    if (!idents) return pk_fail_nomem("reading identifier tuples");
    for (uint32_t l = 0; l < b->n_locs; l++) {
        const hm_loc *hl = &b->locs[l];
        idents[l] = pk_arena_array(&p->arena, hl->n_ids + 1u, sizeof **idents);
        if (!idents[l]) return pk_fail_nomem("reading identifier tuples");
        for (uint32_t i = 0; i < hl->n_ids; i++) {
            const hr_id *id = &hl->ids[i];
            int physical = id->interp != HR_IDINTERP_SINGLE;
            idents[l][i] = (pk_ident){
                id->kind, id->kind < N_KIND_NAMES ? kind_names[id->kind] : NULL,
                physical ? PK_ID_PHYSICAL : 0, (uint32_t)id->logical, physical ? id->physical : 0};
        }
    }
    *out = idents;
    return generate_ids(b, idents);
}

/* The point-value plane of a location: sorted by context id, then column,
 * values of one (context, metric) from several nodes summed in the order
 * they were read (the sort is stable). */
static pk_status make_plane(hm_build *b, hm_loc *hl, const uint32_t *new_index, pk_plane *out)
{
    uint64_t n = hl->n_vals, nv = 0;
    if (pk_vec_reserve((void **)&b->kv, &b->cap_kv, n + 1, sizeof *b->kv) ||
        pk_vec_reserve((void **)&b->kv_tmp, &b->cap_kv_tmp, n + 1, sizeof *b->kv_tmp))
        return pk_fail_nomem("sorting values");
    pk_radix_kv *kv = b->kv;
    for (uint64_t i = 0; i < n; i++)
        kv[i] = (pk_radix_kv){(uint64_t)new_index[hl->vals[i].ctx] << 32 | hl->vals[i].metric,
                              pk_f64_bits(hl->vals[i].v)};
    pk_radix_sort_kv(kv, b->kv_tmp, n);
    for (uint64_t i = 0; i < n; i++) {
        double x = pk_f64_from_bits(kv[i].val);
        while (i + 1 < n && kv[i + 1].key == kv[i].key)
            x += pk_f64_from_bits(kv[++i].val);
        if (x != 0) kv[nv++] = (pk_radix_kv){kv[i].key, pk_f64_bits(x)};
    }
    unsigned char *buf = pk_model_alloc_owned(b->p, nv * (PK_LM_VAL_SIZE + PK_LM_IDX_SIZE) + 1);
    if (!buf) return PK_ERR_NOMEM;
    unsigned char *idx = buf + nv * PK_LM_VAL_SIZE;
    uint32_t ni = 0;
    for (uint64_t i = 0; i < nv; i++) {
        uint32_t ctx = (uint32_t)(kv[i].key >> 32), metric = (uint32_t)kv[i].key;
        if (i == 0 || kv[i].key >> 32 != kv[i - 1].key >> 32) {
            pk_put_le32(idx + (size_t)ni * PK_LM_IDX_SIZE, ctx);
            pk_put_le64(idx + (size_t)ni * PK_LM_IDX_SIZE + 4, i);
            ni++;
        }
        pk_put_le16(buf + i * PK_LM_VAL_SIZE, (uint16_t)(HM_N_SCOPES * metric + HM_POINT));
        pk_put_le64(buf + i * PK_LM_VAL_SIZE + 2, kv[i].val);
    }
    *out = (pk_plane){buf, idx, nv, ni};
    free(hl->vals);
    hl->vals = NULL;
    return PK_OK;
}

/* The trace of location l in the model's packed sample layout. */
static pk_status make_trace(hm_build *b, hm_loc *hl, uint32_t l, const uint32_t *new_index)
{
    pk_profile *p = b->p;
    unsigned char *s = pk_model_alloc_owned(p, hl->n_samples * PK_SAMPLE_SIZE + 1);
    if (!s) return PK_ERR_NOMEM;
    for (uint64_t i = 0; i < hl->n_samples; i++) {
        const hm_sample *x = &hl->samples[i];
        pk_put_le64(s + i * PK_SAMPLE_SIZE, x->time);
        pk_put_le32(s + i * PK_SAMPLE_SIZE + 8, x->ctx == PK_NONE ? 0 : new_index[x->ctx]);
    }
    if (hl->n_samples) {
        uint64_t lo = hl->samples[0].time, hi = hl->samples[hl->n_samples - 1].time;
        if (!p->has_trace_range || lo < p->trace_begin) p->trace_begin = lo;
        if (!p->has_trace_range || hi > p->trace_end) p->trace_end = hi;
        p->has_trace_range = 1;
    }
    p->locs[l].trace = p->n_traces;
    p->traces[p->n_traces++] = (pk_trace_rec){l, s, hl->n_samples};
    free(hl->samples);
    hl->samples = NULL;
    return PK_OK;
}

pk_status hm_build_locations(hm_build *b, const uint32_t *new_index)
{
    pk_profile *p = b->p;
    pk_ident **idents = NULL;
    pk_status st = location_ids(b, &idents);
    if (st) return st;
    p->id_kind_names = (const char **)kind_names;
    p->n_id_kinds = N_KIND_NAMES;
    p->locs = pk_arena_array(&p->arena, b->n_locs + 1u, sizeof *p->locs);
    p->traces = pk_arena_array(&p->arena, b->n_locs + 1u, sizeof *p->traces);
    if (!p->locs || !p->traces) return pk_fail_nomem("setting up locations");
    /* location 0 holds the summary statistics, as profile 0 of profile.db */
    p->locs[0] = (pk_loc_rec){.raw_index = 0, .is_summary = 1, .trace = PK_NONE};
    p->n_locs = 1;
    for (uint32_t l = 0; l < b->n_locs && !st; l++) {
        hm_loc *hl = &b->locs[l];
        uint32_t at = p->n_locs++;
        p->locs[at] =
            (pk_loc_rec){.raw_index = at, .n_ids = hl->n_ids, .ids = idents[l], .trace = PK_NONE};
        st = make_plane(b, hl, new_index, &p->locs[at].plane);
        if (!st && hl->has_trace) st = make_trace(b, hl, at, new_index);
        if (!st)
            st = pk_model_add_attr(p, PK_ENTITY_LOCATION, at, "hpcrun:file", hl->file,
                                   strlen(hl->file));
    }
    return st;
}

/* Keep only the load modules some context or function refers to, as
 * hpcprof's meta.db does (a loadmap lists every library mapped). */
static pk_status drop_unused_modules(pk_profile *p)
{
    uint32_t *map = malloc(((size_t)p->n_modules + 1) * sizeof *map);
    if (!map) return pk_fail_nomem("listing load modules");
    memset(map, 0xff, ((size_t)p->n_modules + 1) * sizeof *map);
    for (uint32_t i = 0; i < p->n_ctx; i++)
        if (p->ctx[i].module != PK_NONE) map[p->ctx[i].module] = 0;
    for (uint32_t i = 0; i < p->n_functions; i++)
        if (p->functions[i].module != PK_NONE) map[p->functions[i].module] = 0;
    uint32_t n = 0;
    for (uint32_t m = 0; m < p->n_modules; m++)
        if (map[m] == 0) p->modules[n] = p->modules[m], map[m] = n++;
    p->n_modules = n;
    for (uint32_t i = 0; i < p->n_ctx; i++)
        if (p->ctx[i].module != PK_NONE) p->ctx[i].module = map[p->ctx[i].module];
    for (uint32_t i = 0; i < p->n_functions; i++)
        if (p->functions[i].module != PK_NONE) p->functions[i].module = map[p->functions[i].module];
    free(map);
    return PK_OK;
}

pk_status hm_finish_model(hm_build *b, const uint32_t *new_index, int plain)
{
    pk_status st = drop_unused_modules(b->p);
    if (!st) st = setup_metrics(b);
    if (!st) st = hm_build_locations(b, new_index);
    int measured = 0;
    for (uint32_t m = 0; m < b->n_metrics; m++)
        measured |= b->metrics[m].has_values;
    if (!st && measured && !plain) st = pk_profile_derive(b->p, NULL, NULL);
    return st;
}
