/*
 * analysis/merge_values.c — the locations, values and traces of a merged
 * profile (merge.c does the dimensions and the tree).
 *
 * Appending (the default) keeps every location of every input. When two
 * inputs have a location with the same identifier tuple (two runs of one
 * program: both have rank 0 thread 0), every location gets a leading RUN
 * element naming its input, so they stay distinguishable in every format.
 * Averaging (--mean) makes locations with the same tuple one location whose
 * values are the mean over the inputs that have it.
 */
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "util/bytes.h"
#include "util/vec.h"

typedef struct loc_ref {
    const pk_ident *ids;
    uint32_t n_ids, input, loc, group;
} loc_ref;

static int cmp_ident(const pk_ident *a, const pk_ident *b)
{
    const char *x = a->kind_name ? a->kind_name : "", *y = b->kind_name ? b->kind_name : "";
    int c = strcmp(x, y);
    if (c) return c;
    if (a->logical != b->logical) return a->logical < b->logical ? -1 : 1;
    if (a->physical != b->physical) return a->physical < b->physical ? -1 : 1;
    return (a->flags > b->flags) - (a->flags < b->flags);
}

static int cmp_tuple(const void *pa, const void *pb)
{
    const loc_ref *a = *(const loc_ref *const *)pa, *b = *(const loc_ref *const *)pb;
    uint32_t n = a->n_ids < b->n_ids ? a->n_ids : b->n_ids;
    for (uint32_t k = 0; k < n; k++) {
        int c = cmp_ident(&a->ids[k], &b->ids[k]);
        if (c) return c;
    }
    if (a->n_ids != b->n_ids) return a->n_ids < b->n_ids ? -1 : 1;
    return a < b ? -1 : a > b; /* stable: input order */
}

/* Number groups of equal tuples; 1 if a group spans two inputs. */
static int group_tuples(loc_ref *refs, size_t n, loc_ref **order)
{
    for (size_t r = 0; r < n; r++)
        order[r] = &refs[r];
    qsort(order, n, sizeof *order, cmp_tuple);
    int shared = 0;
    uint32_t g = 0;
    for (size_t r = 0; r < n; r++) {
        loc_ref tmp = *order[r];
        int same = r && order[r - 1]->n_ids == tmp.n_ids;
        for (uint32_t k = 0; same && k < tmp.n_ids; k++)
            same = cmp_ident(&order[r - 1]->ids[k], &tmp.ids[k]) == 0;
        if (r && !same) g++;
        if (same && order[r - 1]->input != tmp.input) shared = 1;
        order[r]->group = g;
    }
    return shared;
}

static pk_status collect_locations(mg_state *s, loc_ref **out, size_t *n_out)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_in; i++)
        n += s->in[i].p->n_locs;
    loc_ref *refs = malloc((n ? n : 1) * sizeof *refs);
    if (!refs) return pk_fail_nomem("merging locations");
    n = 0;
    for (size_t i = 0; i < s->n_in; i++) {
        const pk_profile *p = s->in[i].p;
        s->in[i].loc = malloc((p->n_locs ? p->n_locs : 1) * sizeof *s->in[i].loc);
        if (!s->in[i].loc) return free(refs), pk_fail_nomem("merging locations");
        memset(s->in[i].loc, 0xff, (p->n_locs ? p->n_locs : 1) * sizeof *s->in[i].loc);
        for (uint32_t l = 0; l < p->n_locs; l++)
            if (!p->locs[l].is_summary)
                refs[n++] = (loc_ref){p->locs[l].ids, p->locs[l].n_ids, (uint32_t)i, l, 0};
    }
    *out = refs, *n_out = n;
    return PK_OK;
}

/* Copy a tuple into m, kinds renumbered; with `run`, a RUN element first. */
static pk_status copy_tuple(mg_state *s, const loc_ref *r, uint32_t run_kind, pk_loc_rec *to)
{
    pk_profile *m = s->m;
    uint32_t extra = run_kind != PK_NONE;
    pk_ident *ids = pk_arena_array(&m->arena, r->n_ids + extra + 1u, sizeof *ids);
    if (!ids) return pk_fail_nomem("merging locations");
    if (extra) ids[0] = (pk_ident){(uint16_t)run_kind, m->id_kind_names[run_kind], 0, r->input, 0};
    const mg_input *in = &s->in[r->input];
    for (uint32_t k = 0; k < r->n_ids; k++) {
        pk_ident id = r->ids[k];
        if (id.kind < in->p->n_id_kinds) id.kind = (uint16_t)in->kind[id.kind];
        id.kind_name = id.kind_name ? pk_intern_cstr(&m->strings, id.kind_name) : NULL;
        ids[extra + k] = id;
    }
    to->ids = ids, to->n_ids = r->n_ids + extra;
    return PK_OK;
}

static pk_status add_run_kind(mg_state *s, uint32_t *out)
{
    pk_profile *m = s->m;
    const char **names = malloc((m->n_id_kinds + 1u) * sizeof *names);
    if (!names) return pk_fail_nomem("merging locations");
    if (m->n_id_kinds) memcpy(names, m->id_kind_names, m->n_id_kinds * sizeof *names);
    names[m->n_id_kinds] = pk_intern_cstr(&m->strings, "RUN");
    pk_status st = pk_model_adopt_owned(m, (void *)names);
    if (st) return st;
    m->id_kind_names = names;
    *out = m->n_id_kinds++;
    return PK_OK;
}

/* Merged locations in input order; in->loc and s->loc_members filled. */
static pk_status lay_out_locations(mg_state *s, loc_ref *refs, size_t n, uint32_t run_kind)
{
    pk_profile *m = s->m;
    uint32_t *loc_of_group = malloc((n ? n : 1) * sizeof *loc_of_group);
    m->locs = pk_arena_array(&m->arena, n + 1, sizeof *m->locs);
    s->loc_members = calloc(n + 1, sizeof *s->loc_members);
    pk_status st =
        loc_of_group && m->locs && s->loc_members ? PK_OK : pk_fail_nomem("merging locations");
    if (!st) memset(loc_of_group, 0xff, (n ? n : 1) * sizeof *loc_of_group);
    for (size_t r = 0; r < n && !st; r++) {
        uint32_t g = s->mean ? refs[r].group : (uint32_t)r;
        if (loc_of_group[g] == PK_NONE) {
            uint32_t l = loc_of_group[g] = m->n_locs++;
            m->locs[l] = (pk_loc_rec){.raw_index = l, .trace = PK_NONE};
            st = copy_tuple(s, &refs[r], run_kind, &m->locs[l]);
        }
        s->in[refs[r].input].loc[refs[r].loc] = loc_of_group[g];
        s->loc_members[loc_of_group[g]]++;
    }
    free(loc_of_group);
    return st;
}

pk_status mg_locations(mg_state *s)
{
    loc_ref *refs = NULL, **order = NULL;
    size_t n = 0;
    pk_status st = collect_locations(s, &refs, &n);
    if (st) return st;
    order = malloc((n ? n : 1) * sizeof *order);
    if (!order) st = pk_fail_nomem("merging locations");
    int shared = st ? 0 : group_tuples(refs, n, order);
    uint32_t run_kind = PK_NONE;
    if (!st && shared && !s->mean) st = add_run_kind(s, &run_kind);
    if (!st) st = lay_out_locations(s, refs, n, run_kind);
    free(order), free(refs);
    return st;
}

void mg_sorter_free(mg_sorter *so)
{
    free(so->buf), free(so->tmp), free(so->count);
    memset(so, 0, sizeof *so);
}

pk_status mg_gather(const pk_profile *p, uint32_t l, const uint32_t *ctx_map,
                    const uint32_t *col_map, mg_sorter *so)
{
    pk_cursor c;
    pk_value v;
    pk_status st = pk_location_values_begin(p, l, &c);
    while (!st && pk_cursor_next(&c, &v)) {
        uint32_t ctx = v.context < p->n_ctx ? ctx_map[v.context] : PK_NONE;
        uint32_t col = v.column == PK_NONE ? PK_NONE : col_map[v.column];
        if (ctx == PK_NONE || col == PK_NONE) continue;
        if (pk_vec_reserve((void **)&so->buf, &so->cap, so->n + 1, sizeof *so->buf))
            return pk_fail_nomem("merging values");
        so->buf[so->n++] = (mg_val){(uint64_t)ctx << 32 | col, v.value};
    }
    return st;
}

/* Order so->buf by context (a counting sort: contexts are dense) and each
 * context's few values by column; returns the ordered array. Values of one
 * input usually arrive in order already. */
static mg_val *sort_values(const pk_profile *m, mg_sorter *so)
{
    size_t n = so->n, r = 1;
    while (r < n && so->buf[r - 1].key <= so->buf[r].key)
        r++;
    if (r >= n) return so->buf;
    uint32_t n_ctx = m->n_ctx, *count = so->count;
    memset(count, 0, ((size_t)n_ctx + 1) * sizeof *count);
    for (r = 0; r < n; r++)
        count[(so->buf[r].key >> 32) + 1]++;
    for (uint32_t c = 0; c < n_ctx; c++)
        count[c + 1] += count[c];
    for (r = 0; r < n; r++)
        so->tmp[count[so->buf[r].key >> 32]++] = so->buf[r];
    for (r = 1; r < n; r++) { /* insertion sort: runs are a few columns long */
        mg_val x = so->tmp[r];
        size_t k = r;
        for (; k > 0 && so->tmp[k - 1].key > x.key; k--)
            so->tmp[k] = so->tmp[k - 1];
        so->tmp[k] = x;
    }
    return so->tmp;
}

/* Add up equal keys, drop zeros, scale; returns how many are kept and
 * the number of distinct contexts in *nidx. */
static size_t combine_values(mg_val *v, size_t n, double scale, size_t *nidx)
{
    size_t nv = 0, kept = 0;
    for (size_t r = 0; r < n; r++) {
        if (nv && v[nv - 1].key == v[r].key)
            v[nv - 1].v += v[r].v;
        else
            v[nv++] = v[r];
    }
    *nidx = 0;
    for (size_t r = 0; r < nv; r++) {
        if (v[r].v == 0) continue;
        if (!kept || v[kept - 1].key >> 32 != v[r].key >> 32) (*nidx)++;
        v[kept++] = (mg_val){v[r].key, v[r].v * scale};
    }
    return kept;
}

pk_status mg_plane(pk_profile *m, uint32_t l, double scale, mg_sorter *so)
{
    if (pk_vec_reserve((void **)&so->tmp, &so->cap_tmp, so->n + 1, sizeof *so->tmp))
        return pk_fail_nomem("merging values");
    if (!so->count && !(so->count = malloc(((size_t)m->n_ctx + 1) * sizeof *so->count)))
        return pk_fail_nomem("merging values");
    mg_val *v = sort_values(m, so);
    size_t nidx, kept = combine_values(v, so->n, scale, &nidx);
    unsigned char *mem = pk_model_alloc_owned(m, kept * PK_LM_VAL_SIZE + nidx * PK_LM_IDX_SIZE + 1);
    if (!mem) return PK_ERR_NOMEM;
    pk_plane *pl = &m->locs[l].plane;
    *pl = (pk_plane){mem, mem + kept * PK_LM_VAL_SIZE, kept, (uint32_t)nidx};
    unsigned char *idx = (unsigned char *)pl->idx;
    for (size_t r = 0, k = 0; r < kept; r++) {
        unsigned char *val = mem + r * PK_LM_VAL_SIZE;
        pk_put_le16(val, (uint16_t)v[r].key);
        pk_put_le64(val + 2, pk_f64_bits(v[r].v));
        if (r && v[r - 1].key >> 32 == v[r].key >> 32) continue;
        pk_put_le32(idx + k * PK_LM_IDX_SIZE, (uint32_t)(v[r].key >> 32));
        pk_put_le64(idx + k * PK_LM_IDX_SIZE + 4, r);
        k++;
    }
    return PK_OK;
}

/* The (input, location) pairs feeding each merged location, in input
 * order: members[start[l] .. start[l + 1]). */
static pk_status list_members(const mg_state *s, uint32_t **start_out, uint64_t **members_out)
{
    uint32_t n_locs = s->m->n_locs;
    size_t total = 0;
    for (size_t i = 0; i < s->n_in; i++)
        total += s->in[i].p->n_locs;
    uint32_t *start = calloc(n_locs + 1u, sizeof *start), *fill = calloc(n_locs + 1u, sizeof *fill);
    uint64_t *member = malloc((total ? total : 1) * sizeof *member);
    if (!start || !fill || !member) {
        free(start), free(fill), free(member);
        return pk_fail_nomem("merging values");
    }
    for (uint32_t l = 0; l < n_locs; l++)
        start[l + 1] = start[l] + s->loc_members[l];
    for (size_t i = 0; i < s->n_in; i++)
        for (uint32_t l = 0; l < s->in[i].p->n_locs; l++) {
            uint32_t to = s->in[i].loc[l];
            if (to != PK_NONE) member[start[to] + fill[to]++] = (uint64_t)i << 32 | l;
        }
    free(fill);
    *start_out = start, *members_out = member;
    return PK_OK;
}

pk_status mg_values(mg_state *s)
{
    uint32_t *start = NULL;
    uint64_t *member = NULL;
    pk_status st = list_members(s, &start, &member);
    if (st) return st;
    mg_sorter so = {0};
    for (uint32_t l = 0; l < s->m->n_locs && !st; l++) {
        so.n = 0;
        for (uint32_t k = start[l]; k < start[l + 1] && !st; k++) {
            const mg_input *in = &s->in[member[k] >> 32];
            st = mg_gather(in->p, (uint32_t)member[k], in->ctx, in->column, &so);
        }
        if (!st) st = mg_plane(s->m, l, s->mean ? 1.0 / s->loc_members[l] : 1.0, &so);
    }
    free(start), free(member);
    mg_sorter_free(&so);
    return st;
}

pk_status mg_trace_samples(pk_profile *m, const pk_profile *p, const uint32_t *ctx_map,
                           const pk_trace_rec *t, unsigned char **out)
{
    unsigned char *mem = pk_model_alloc_owned(m, t->n * PK_SAMPLE_SIZE + 1);
    if (!mem) return PK_ERR_NOMEM;
    for (uint64_t k = 0; k < t->n; k++) {
        const unsigned char *rec = t->samples + k * PK_SAMPLE_SIZE;
        uint32_t id = pk_le32(rec + 8), ctx = id ? pk_model_ctx_find(p, id) : PK_NONE;
        uint32_t merged = ctx == PK_NONE || ctx >= p->n_ctx ? PK_NONE : ctx_map[ctx];
        memcpy(mem + k * PK_SAMPLE_SIZE, rec, 8);
        /* 0 is "not running"; an id the input did not know stays unknown */
        pk_put_le32(mem + k * PK_SAMPLE_SIZE + 8,
                    merged == PK_NONE ? (id ? UINT32_MAX : 0) : (uint32_t)m->ctx[merged].id);
    }
    *out = mem;
    return PK_OK;
}

/* Copy trace t of input i with its context ids renumbered. */
static pk_status copy_trace(mg_state *s, size_t i, const pk_trace_rec *t, pk_trace_rec *to)
{
    unsigned char *mem;
    pk_status st = mg_trace_samples(s->m, s->in[i].p, s->in[i].ctx, t, &mem);
    if (!st) *to = (pk_trace_rec){s->in[i].loc[t->location], mem, t->n};
    return st;
}

pk_status mg_traces(mg_state *s)
{
    pk_profile *m = s->m;
    size_t n = 0;
    for (size_t i = 0; i < s->n_in; i++)
        n += s->in[i].p->n_traces;
    if (!n) return PK_OK;
    m->traces = pk_arena_array(&m->arena, n, sizeof *m->traces);
    if (!m->traces) return pk_fail_nomem("merging traces");
    pk_status st = PK_OK;
    for (size_t i = 0; i < s->n_in && !st; i++) {
        const pk_profile *p = s->in[i].p;
        for (uint32_t t = 0; t < p->n_traces && !st; t++) {
            if (p->traces[t].location >= p->n_locs ||
                s->in[i].loc[p->traces[t].location] == PK_NONE)
                continue;
            st = copy_trace(s, i, &p->traces[t], &m->traces[m->n_traces]);
            if (!st) m->locs[m->traces[m->n_traces].location].trace = m->n_traces, m->n_traces++;
        }
        if (!p->has_trace_range) continue;
        if (!m->has_trace_range || p->trace_begin < m->trace_begin) m->trace_begin = p->trace_begin;
        if (!m->has_trace_range || p->trace_end > m->trace_end) m->trace_end = p->trace_end;
        m->has_trace_range = 1;
    }
    return st;
}
