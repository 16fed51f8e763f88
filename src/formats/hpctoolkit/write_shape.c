/*
 * formats/hpctoolkit/write_shape.c — whether a model can be written as it
 * is, and if not, the shaped copy that can (write_shape.h says what the
 * readers assume): general information, locations with identifier tuples
 * hpcviewer understands, traces under the shaped context ids; contexts,
 * columns and values come from the other write_shape_*.c files.
 *
 * Identifier kinds: hpcviewer knows kinds 0-7 (SUMMARY, NODE, RANK,
 * THREAD, GPUDEVICE, GPUCONTEXT, GPUSTREAM, CORE), sorts by a table of 8
 * and throws on anything larger. Kinds are matched by name (Cube's "GPU"
 * locations are CUDA streams: GPUSTREAM). Kinds that match none (Cube's
 * MACHINE, RACK, NODEBOARD...; Callgrind's PART; merge's RUN) take, under
 * their own names, the kinds hpcviewer uses only as labels (7, 1, 2: it
 * labels kinds with meta.db's names) that the source leaves free, those
 * telling the most locations apart first; any left over are left out of
 * the tuples and reported. GPU kinds are never reused: hpcviewer keeps
 * GPU streams out of its thread plots.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/write_loss.h"
#include "hk_yaml.h"
#include "util/bytes.h"
#include "write_shape.h"

#define MAX_ID_SPREAD(n) (16ull * (n) + (1ull << 20))
#define N_STD_KINDS      8

static const char *const std_kinds[N_STD_KINDS] = {"SUMMARY",   "NODE",       "RANK",      "THREAD",
                                                   "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE"};

static int partial(const pk_column *c)
{
    const char *f = c->formula ? c->formula : "$$";
    return c->stat != PK_STAT_OTHER && c->combine <= PK_COMBINE_MAX &&
           (!strcmp(f, "$$") || !strcmp(f, "1") || !strcmp(f, "($$^2)"));
}

/* Every plain column has its main statistic (Sum; Min or Max for a
 * min/max metric) under its own id, and ids stay below the number of
 * statistics (hpcviewer sizes arrays by it). */
static int columns_native(const pk_profile *p)
{
    uint32_t n_sum = 0, max_raw = 0;
    for (uint32_t i = 0; i < p->n_columns; i++) {
        const pk_column *c = &p->columns[i];
        if (c->raw_id > max_raw) max_raw = c->raw_id;
        if (c->is_summary) {
            if (!partial(c)) return 0;
            n_sum++;
            continue;
        }
        pk_combine cb = p->metrics[c->metric].combine; /* Min/Max for min/max metrics */
        pk_stat main = cb == PK_COMBINE_MIN   ? PK_STAT_MIN
                       : cb == PK_COMBINE_MAX ? PK_STAT_MAX
                                              : PK_STAT_SUM;
        uint32_t s = pk_model_col_of(p, 1, c->raw_id);
        if (s == PK_NONE || p->columns[s].metric != c->metric || p->columns[s].scope != c->scope ||
            p->columns[s].stat != main)
            return 0;
    }
    return max_raw < n_sum || p->n_columns == 0;
}

static int contexts_native(const pk_profile *p)
{
    if (!p->n_ctx || p->ctx[0].id != 0) return 0;
    uint64_t max = 0;
    for (uint32_t i = 1; i < p->n_ctx; i++) {
        const pk_ctx_rec *c = &p->ctx[i];
        if (c->id == 0 || c->id > UINT32_MAX - 1) return 0;
        if ((c->parent == 0) != (c->kind == PK_CTX_ENTRY)) return 0;
        if (c->id > max) max = c->id;
    }
    return max < MAX_ID_SPREAD(p->n_ctx);
}

/* Propagation bits say what the function scope spans: set by a reader
 * that knows them (HPCToolkit's, or carried in JSON), or needless when
 * nothing is lexical. Cube and Callgrind leave them 0. */
int hk_shape_bits_known(const pk_profile *p)
{
    int lexical = 0;
    for (uint32_t i = 1; i < p->n_ctx; i++) {
        if (p->ctx[i].propagation) return 1;
        lexical |= p->ctx[i].relation == PK_REL_LEXICAL;
    }
    return !lexical;
}

int hk_shape_native(const pk_profile *p)
{
    if (!contexts_native(p) || !columns_native(p) || !hk_shape_bits_known(p)) return 0;
    if (p->cm_from_file && p->cm_unplaced) return 0; /* cct.db is rebuilt without them */
    int summary = 0;
    for (uint32_t l = 0; l < p->n_locs; l++) {
        summary |= p->locs[l].is_summary;
        if (p->locs[l].is_summary && p->locs[l].n_ids) return 0;   /* written without (below) */
        if (!p->locs[l].is_summary && !p->locs[l].n_ids) return 0; /* given one (below) */
        for (uint32_t k = 0; k < p->locs[l].n_ids; k++)
            if (p->locs[l].ids[k].kind >= N_STD_KINDS) return 0;
    }
    return summary;
}

/* ---- identifier kinds ---- */

typedef struct kinds_map {
    uint16_t *to;                   /* source kind -> written kind, or N_STD_KINDS: left out */
    uint32_t n;                     /* source kinds covered */
    const char *names[N_STD_KINDS]; /* the written kind-name table */
} kinds_map;

static const char *source_kind_name(const pk_profile *p, const pk_ident *id)
{
    if (id->kind_name) return id->kind_name;
    return id->kind < p->n_id_kinds ? p->id_kind_names[id->kind] : NULL;
}

static int std_kind(const char *name)
{
    if (!name) return -1;
    if (!strcasecmp(name, "GPU")) return 6; /* Cube: a GPU location is a CUDA/OpenCL stream */
    for (int k = 1; k < N_STD_KINDS; k++)
        if (!strcasecmp(name, std_kinds[k])) return k;
    return -1;
}

/* How many distinct logical ids kind k takes among plain locations. */
static uint32_t spread_of(const pk_profile *p, uint32_t k)
{
    uint32_t n = 0;
    for (uint32_t l = 0; l < p->n_locs; l++) {
        for (uint32_t i = 0; i < p->locs[l].n_ids; i++) {
            const pk_ident *id = &p->locs[l].ids[i];
            if (id->kind != k || p->locs[l].is_summary) continue;
            int seen = 0;
            for (uint32_t m = 0; m < l && !seen; m++)
                for (uint32_t j = 0; j < p->locs[m].n_ids; j++)
                    if (!p->locs[m].is_summary && p->locs[m].ids[j].kind == k &&
                        p->locs[m].ids[j].logical == id->logical)
                        seen = 1;
            n += !seen;
        }
    }
    return n;
}

/* The name each source kind goes by; km->to marks kinds plain locations
 * use N_STD_KINDS (named ones get their standard kind; summaries are
 * written without tuples). */
static pk_status name_kinds(hk_shape *s, kinds_map *km, const char **names, unsigned *std_used)
{
    const pk_profile *p = s->p;
    for (uint32_t k = 0; k < km->n; k++) {
        km->to[k] = N_STD_KINDS + 1; /* not used */
        for (uint32_t l = 0; l < p->n_locs && !names[k]; l++)
            for (uint32_t i = 0; i < p->locs[l].n_ids && !names[k]; i++)
                if (p->locs[l].ids[i].kind == k && !p->locs[l].is_summary) {
                    names[k] = source_kind_name(p, &p->locs[l].ids[i]);
                    km->to[k] = N_STD_KINDS;
                    if (!names[k]) {
                        char made[32];
                        snprintf(made, sizeof made, "KIND%u", k);
                        names[k] = pk_intern_cstr(&s->q->strings, made);
                        if (!names[k]) return pk_fail_nomem("mapping identifier kinds");
                    }
                }
        int sk = std_kind(names[k]);
        if (km->to[k] == N_STD_KINDS && sk > 0) km->to[k] = (uint16_t)sk, *std_used |= 1u << sk;
    }
    return PK_OK;
}

/* Kinds HPCToolkit has no name for take the slots hpcviewer treats as
 * plain labels (7 CORE, 1 NODE, 2 RANK) the source leaves free, those
 * telling most locations apart first; the rest are left out. */
static pk_status place_foreign(hk_shape *s, kinds_map *km, const char **names, unsigned std_used)
{
    static const int slots[] = {7, 1, 2};
    size_t next = 0;
    for (;;) {
        uint32_t best = PK_NONE, best_spread = 0;
        for (uint32_t k = 0; k < km->n; k++) {
            if (km->to[k] != N_STD_KINDS) continue;
            uint32_t sp = spread_of(s->p, k);
            if (best == PK_NONE || sp > best_spread) best = k, best_spread = sp;
        }
        if (best == PK_NONE) return PK_OK;
        while (next < 3 && (std_used >> slots[next] & 1u))
            next++;
        if (next == 3) break;
        km->to[best] = (uint16_t)slots[next];
        km->names[slots[next++]] = names[best];
    }
    pk_status st = PK_OK;
    for (uint32_t k = 0; k < km->n && !st; k++) {
        if (km->to[k] != N_STD_KINDS) continue;
        char item[160];
        snprintf(item, sizeof item, "identifier kind %s", names[k]);
        st = pk_write_lose(s->o, s->stats, s->path, item,
                           "hpcviewer knows kinds 0-7 only (SUMMARY, NODE, RANK, THREAD, "
                           "GPUDEVICE, GPUCONTEXT, GPUSTREAM, CORE), and the ones free for other "
                           "kinds are taken by kinds telling more locations apart; it is left "
                           "out of the identifier tuples");
    }
    return st;
}

static pk_status map_kinds(hk_shape *s, kinds_map *km)
{
    const pk_profile *p = s->p;
    km->n = 1;
    for (uint32_t l = 0; l < p->n_locs; l++)
        for (uint32_t i = 0; i < p->locs[l].n_ids; i++)
            if (p->locs[l].ids[i].kind >= km->n) km->n = p->locs[l].ids[i].kind + 1u;
    memcpy(km->names, std_kinds, sizeof std_kinds);
    km->to = malloc(km->n * sizeof *km->to);
    const char **names = calloc(km->n, sizeof *names);
    unsigned std_used = 0;
    pk_status st = km->to && names ? PK_OK : pk_fail_nomem("mapping identifier kinds");
    if (!st) st = name_kinds(s, km, names, &std_used);
    if (!st) st = place_foreign(s, km, names, std_used);
    free(names);
    return st;
}

static pk_status shaped_tuple(hk_shape *s, const kinds_map *km, const pk_loc_rec *src,
                              pk_loc_rec *dst)
{
    pk_profile *q = s->q;
    pk_ident *ids = pk_arena_array(&q->arena, src->n_ids + 1u, sizeof *ids);
    if (!ids) return pk_fail_nomem("shaping identifier tuples");
    uint32_t n = 0;
    for (uint32_t i = 0; i < src->n_ids; i++) {
        pk_ident id = src->ids[i];
        uint16_t to = km->to[id.kind];
        if (to >= N_STD_KINDS) continue;
        id.kind = to;
        id.kind_name = q->id_kind_names[to];
        ids[n++] = id;
    }
    if (!n) { /* hpcviewer indexes every thread's tuple: one that has none gets THREAD N */
        ids[n++] = (pk_ident){3, q->id_kind_names[3], 0, dst->raw_index - 1, dst->raw_index - 1};
        s->n_untupled++;
    }
    dst->ids = ids;
    dst->n_ids = n;
    return PK_OK;
}

/* ---- locations and traces ---- */

/* FORMATS.md gives a summary profile an identifier tuple of the ids its
 * threads share (all but the canonical one), but hpcviewer lists every
 * profile with a tuple as a thread and would show the statistics as one:
 * summaries are written without. */
static pk_status summary_tuple_lost(hk_shape *s, uint32_t l)
{
    char item[64];
    snprintf(item, sizeof item, "identifier tuple of summary location %u", l);
    return pk_write_lose(s->o, s->stats, s->path, item,
                         "hpcviewer lists every profile that has an identifier tuple as a "
                         "thread, so a summary profile is written without one (its statistics "
                         "are kept)");
}

static pk_status shaped_locations(hk_shape *s)
{
    const pk_profile *p = s->p;
    pk_profile *q = s->q;
    kinds_map km = {0};
    s->q_of_ploc = malloc(((size_t)p->n_locs + 1) * sizeof *s->q_of_ploc);
    q->locs = pk_arena_array(&q->arena, (size_t)p->n_locs + 1, sizeof *q->locs);
    q->id_kind_names = pk_arena_array(&q->arena, N_STD_KINDS, sizeof *q->id_kind_names);
    if (!s->q_of_ploc || !q->locs || !q->id_kind_names) return pk_fail_nomem("shaping locations");
    pk_status st = map_kinds(s, &km);
    memcpy(q->id_kind_names, km.names, sizeof km.names);
    q->n_id_kinds = N_STD_KINDS;
    q->locs[0] = (pk_loc_rec){.is_summary = 1, .trace = PK_NONE};
    q->n_locs = 1;
    s->p_summary = PK_NONE;
    for (uint32_t l = 0; l < p->n_locs && !st; l++) {
        s->q_of_ploc[l] = PK_NONE;
        if (p->locs[l].is_summary && p->locs[l].n_ids) st = summary_tuple_lost(s, l);
        if (p->locs[l].is_summary && s->p_summary == PK_NONE) {
            s->p_summary = l, s->q_of_ploc[l] = 0; /* the canonical summary, profile 0 */
            continue;
        }
        /* any other summary stays one: profile.db may hold several, only
         * the first is canonical (FORMATS.md, {PI} flags) */
        pk_loc_rec *d = &q->locs[q->n_locs];
        *d = (pk_loc_rec){
            .raw_index = q->n_locs, .is_summary = p->locs[l].is_summary, .trace = PK_NONE};
        s->q_of_ploc[l] = q->n_locs++;
        if (!st && !d->is_summary) st = shaped_tuple(s, &km, &p->locs[l], d);
    }
    free(km.to);
    if (!st && s->n_untupled)
        st = pk_write_lose(s->o, s->stats, s->path, "locations without identifiers",
                           "hpcviewer reads every thread's profile by its identifier tuple: %u "
                           "locations without identifiers (a pprof profile's samples without "
                           "labels) are THREAD N, N their place among the profiles",
                           s->n_untupled);
    return st;
}

/* Trace samples under the shaped ids (idle samples keep id 0; an id the
 * source does not know is kept as it is). */
static pk_status shaped_traces(hk_shape *s)
{
    const pk_profile *p = s->p;
    pk_profile *q = s->q;
    q->traces = pk_arena_array(&q->arena, (size_t)p->n_traces + 1, sizeof *q->traces);
    if (!q->traces) return pk_fail_nomem("shaping traces");
    q->trace_begin = p->trace_begin, q->trace_end = p->trace_end;
    q->has_trace_range = p->has_trace_range;
    for (uint32_t t = 0; t < p->n_traces; t++) {
        const pk_trace_rec *tr = &p->traces[t];
        uint32_t ql = tr->location < p->n_locs ? s->q_of_ploc[tr->location] : PK_NONE;
        pk_trace_rec *d = &q->traces[q->n_traces++];
        *d = (pk_trace_rec){ql == 0 ? PK_NONE : ql, tr->samples, tr->n};
        /* a trace of no profile, or of the summary (damage): the trace
         * writer leaves it out and counts it (pk_write_stats) */
        if (d->location == PK_NONE) continue;
        q->locs[ql].trace = q->n_traces - 1;
        if (!s->renumbered) continue; /* kept ids: the samples stand as they are */
        unsigned char *b = pk_model_alloc_owned(q, tr->n * PK_SAMPLE_SIZE + 1);
        if (!b) return pk_fail_nomem("shaping traces");
        if (tr->n) memcpy(b, tr->samples, tr->n * PK_SAMPLE_SIZE);
        for (uint64_t k = 0; k < tr->n; k++) {
            uint32_t id = pk_le32(b + k * PK_SAMPLE_SIZE + 8);
            uint32_t pi = id ? pk_model_ctx_find(p, id) : PK_NONE;
            if (pi != PK_NONE)
                pk_put_le32(b + k * PK_SAMPLE_SIZE + 8, (uint32_t)q->ctx[s->q_of_p[pi]].id);
        }
        d->samples = b;
    }
    return PK_OK;
}

/* ---- values of no location ---- */

/* cct.db values naming a profile profile.db lacks belong to no location:
 * cct.db holds the values of profile.db's profiles only (hpcviewer sizes
 * its per-thread arrays by them), so the shaped cct.db, transposed from
 * the locations' planes, leaves them out. (Values naming a summary are
 * that summary's, kept in profile.db.) */
static pk_status unplaced_values(hk_shape *s)
{
    const pk_profile *p = s->p;
    if (!p->cm_from_file || !p->cm_unplaced || !p->cm) return PK_OK;
    uint64_t n = 0;
    uint32_t ctxs = 0;
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        const pk_plane *pl = &p->cm[i];
        uint64_t here = 0;
        for (uint64_t v = 0; v < pl->nvals; v++)
            here += pk_le32(pl->vals + v * PK_CM_VAL_SIZE) >= p->n_locs;
        n += here;
        ctxs += here > 0;
    }
    if (!n) return PK_OK;
    return pk_write_lose(s->o, s->stats, s->path, "cct.db values of no profile",
                         "%llu values at %u contexts name profiles profile.db does not have; "
                         "cct.db holds the values of profile.db's profiles only, so they are "
                         "left out",
                         (unsigned long long)n, ctxs);
}

/* ---- the shaped profile ---- */

static pk_status shaped_header(hk_shape *s)
{
    const pk_profile *p = s->p;
    pk_profile *q = s->q;
    q->format = PK_FORMAT_HPCTOOLKIT_V4;
    q->format_name = "hpctoolkit";
    q->major = 4;
    q->path = p->path;
    q->title = p->title ? p->title : ""; /* never a null pointer (hpcviewer) */
    /* HPCToolkit has no flag for it: a tree rebuilt from a call graph says
     * so where hpcviewer shows the database's description */
    q->description = p->description     ? p->description
                     : p->reconstructed ? "calling contexts reconstructed from a call graph: "
                                          "approximate"
                                        : "";
    q->modules = p->modules, q->n_modules = p->n_modules;
    q->files = p->files, q->n_files = p->n_files;
    q->functions = p->functions, q->n_functions = p->n_functions;
    q->metrics = p->metrics, q->n_metrics = p->n_metrics;
    const char *yaml = pk_attribute_find(p, PK_ENTITY_PROFILE, 0, HK_YAML_ATTR);
    pk_status st =
        yaml ? pk_model_add_attr(q, PK_ENTITY_PROFILE, 0, HK_YAML_ATTR, yaml, strlen(yaml)) : PK_OK;
    if (!st) pk_model_sort_attrs(q);
    return st;
}

static void shape_free(hk_shape *s)
{
    free(s->q_of_p);
    free(s->col);
    free(s->qcol_of_pcol);
    free(s->has_plain);
    free(s->q_of_ploc);
}

void hk_shape_free(const pk_profile *p, pk_profile *q)
{
    if (q && q->ctx == p->ctx) /* the tree was borrowed (write_shape_ctx.c) */
        q->ctx = NULL, q->ctx_dense = NULL, q->ctx_sorted = NULL;
    pk_profile_free(q);
}

/* The shaped copy; for a parallel build's member (plan != NULL) without
 * the summary's values, and with the plan to make them; with rest != NULL
 * also without them, left to hk_shape_finish(*rest). */
static pk_status shape(hk_shape *s, pk_profile **out, hk_sum_plan *plan, hk_shape **rest)
{
    pk_status st = pk_model_new(&s->q);
    if (!st) st = shaped_header(s);
    if (!st) st = hs_contexts(s);
    if (!st) st = hs_columns(s);
    if (!st) st = shaped_locations(s);
    if (!st) st = shaped_traces(s);
    if (!st) st = hs_plain_values(s);
    hk_shape *kept = !st && rest ? malloc(sizeof *kept) : NULL;
    if (kept) { /* the summary is left to hk_shape_finish() */
        *kept = *s, *rest = kept, *out = s->q;
        return PK_OK;
    }
    if (!st && rest) st = pk_fail_nomem("shaping values");
    if (!st && !plan) st = hs_summary_values(s);
    if (!st && !plan) st = unplaced_values(s);
    if (!st && plan) st = hk_sum_plan_shaped(s, plan);
    shape_free(s);
    if (st) {
        hk_shape_free(s->p, s->q);
        return st;
    }
    *out = s->q;
    return PK_OK;
}

pk_status hk_shape_begin(const pk_profile *p, const char *path, const pk_write_options *o,
                         pk_write_stats *stats, pk_profile **out, hk_shape **rest)
{
    *out = NULL, *rest = NULL;
    if (hk_shape_native(p)) return PK_OK;
    if (!p->n_ctx) return pk_fail(PK_ERR_INVALID_ARG, "meta.db: the profile has no contexts");
    hk_shape s = {.p = p, .path = path, .o = o, .stats = stats};
    return shape(&s, out, NULL, rest);
}

pk_status hk_shape_finish(hk_shape *rest, int drop)
{
    if (!rest) return PK_OK;
    pk_status st = drop ? PK_OK : hs_summary_values(rest);
    if (!st && !drop) st = unplaced_values(rest);
    shape_free(rest);
    free(rest);
    return st;
}

pk_status hk_shape_make(const pk_profile *p, const char *path, const pk_write_options *o,
                        pk_write_stats *stats, pk_profile **out)
{
    hk_shape *rest;
    pk_status st = hk_shape_begin(p, path, o, stats, out, &rest);
    if (!st) st = hk_shape_finish(rest, 0);
    if (st && *out) hk_shape_free(p, *out), *out = NULL;
    return st;
}

pk_status hk_shape_make_part(const pk_profile *p, const char *path, const pk_write_options *o,
                             pk_write_stats *stats, const unsigned char *has_plain, int unknown_raw,
                             pk_profile **out, hk_sum_plan *plan)
{
    *out = NULL;
    memset(plan, 0, sizeof *plan);
    if (hk_shape_native(p)) return hk_sum_plan_native(p, plan);
    if (!p->n_ctx) return pk_fail(PK_ERR_INVALID_ARG, "meta.db: the profile has no contexts");
    hk_shape s = {.p = p, .path = path, .o = o, .stats = stats};
    s.preset_plain = has_plain, s.preset_unknown = unknown_raw;
    pk_status st = shape(&s, out, plan, NULL);
    if (st) hk_sum_plan_free(plan);
    return st;
}
