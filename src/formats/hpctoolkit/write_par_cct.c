/*
 * formats/hpctoolkit/write_par_cct.c — cct.db's transpose in a parallel
 * build: the context ids are cut into one range per member, of about
 * equal weight (values there, over all members); every member sends each
 * of its profiles' values to the member holding the value's context;
 * each member builds its range's cct.db blocks (per context: values by
 * metric, then by profile) and the summary profile's values there, each
 * statistic reduced over a context's run of values in profile order, as
 * the serial writer (write_shape_sum.c) or pk_profile_derive reduce it.
 *
 * Messages arrive in member order, and members hold contiguous runs of
 * profiles in order, so every context's values arrive in profile order;
 * a stable sort by metric keeps it.
 */
#include <stdlib.h>
#include <string.h>

#include "util/radix.h"
#include "util/wire.h"
#include "write_par.h"

#define MAX_ID_SPREAD(n) (16ull * (n) + (1ull << 20))
#define MAX_CHUNKS       65536 /* weights are reduced per chunk of context ids */

void hp_range_free(hp_range *r)
{
    free(r->nvals), free(r->nidx);
    pk_buf_free(&r->blocks), pk_buf_free(&r->sum_vals), pk_buf_free(&r->sum_idx);
    memset(r, 0, sizeof *r);
}

/* The run [*b, *e) of plane values at index entry k. */
static void run_of(const pk_plane *pl, uint32_t k, uint64_t *b, uint64_t *e)
{
    const unsigned char *x = pl->idx + (uint64_t)k * PK_LM_IDX_SIZE;
    *b = pk_le64(x + 4);
    *e = k + 1 < pl->nidx ? pk_le64(x + 4 + PK_LM_IDX_SIZE) : pl->nvals;
    if (*e > pl->nvals) *e = pl->nvals;
    if (*b > *e) *b = *e;
}

static uint32_t idx_id(const pk_plane *pl, uint32_t k)
{
    return pk_le32(pl->idx + (uint64_t)k * PK_LM_IDX_SIZE);
}

/* First index entry with a context id >= id (the index is sorted). */
static uint32_t lower_bound(const pk_plane *pl, uint64_t id)
{
    uint32_t lo = 0, hi = pl->nidx;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (idx_id(pl, mid) < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static pk_status count_ids(hp_state *s)
{
    const pk_profile *w = s->w;
    uint64_t max = 0;
    for (uint32_t i = 0; i < w->n_ctx; i++)
        if (w->ctx[i].id > max) max = w->ctx[i].id;
    if (max >= MAX_ID_SPREAD(w->n_ctx))
        return pk_fail(PK_ERR_UNSUPPORTED,
                       "cct.db: context ids up to %llu for %u contexts are too sparse for "
                       "cct.db's id-indexed table",
                       (unsigned long long)max, w->n_ctx);
    s->n_ids = max + 1;
    return PK_OK;
}

/* Bounds of the members' ranges: chunks of ids cut by cumulative weight
 * (bytes of cct.db each chunk will hold). */
static void cut(hp_state *s, const uint64_t *weight, uint64_t n_chunks, uint64_t chunk)
{
    uint32_t M = s->m->n;
    uint64_t total = 0, acc = 0, c = 0;
    for (uint64_t k = 0; k < n_chunks; k++)
        total += weight[k];
    s->range_lo[0] = 0;
    for (uint32_t k = 1; k < M; k++) {
        uint64_t target = total / M * k + (total % M) * k / M;
        while (c < n_chunks && acc < target)
            acc += weight[c++];
        s->range_lo[k] = c * chunk < s->n_ids ? c * chunk : s->n_ids;
    }
    s->range_lo[M] = s->n_ids;
}

pk_status hp_ranges(hp_state *s)
{
    pk_status st = count_ids(s);
    if (st) return st;
    uint64_t chunk = (s->n_ids + MAX_CHUNKS - 1) / MAX_CHUNKS;
    uint64_t n_chunks = (s->n_ids + chunk - 1) / chunk;
    uint64_t *weight = calloc(n_chunks + 1, sizeof *weight);
    s->range_lo = calloc((size_t)s->m->n + 1, sizeof *s->range_lo);
    if (!weight || !s->range_lo) return free(weight), pk_fail_nomem("cutting cct.db");
    for (uint32_t l = s->wfirst; l < s->wend; l++) {
        const pk_plane *pl = &s->w->locs[l].plane;
        for (uint32_t k = 0; k < pl->nidx; k++) {
            uint64_t b, e, id = idx_id(pl, k);
            run_of(pl, k, &b, &e);
            if (id < s->n_ids) weight[id / chunk] += (e - b) * PK_CM_VAL_SIZE + PK_CM_IDX_SIZE;
        }
    }
    st = pk_members_reduce(s->m, weight, n_chunks, PK_REDUCE_SUM);
    if (!st) {
        for (uint64_t k = 0; k < n_chunks; k++) /* every id has its {CI} entry */
            weight[k] += HK_SZ_CCT_CTX * (k + 1 < n_chunks ? chunk : s->n_ids - k * chunk);
        cut(s, weight, n_chunks, chunk);
        s->r.lo = s->range_lo[s->m->me], s->r.hi = s->range_lo[s->m->me + 1];
    }
    free(weight);
    return st;
}

/* ---- sending ---- */

/* Does cct.db hold this value (a plain column's, of a context meta.db
 * or the values know)? The serial transpose keeps exactly these. */
static int kept(const pk_profile *w, uint32_t id, uint16_t raw)
{
    return pk_model_col_of(w, 0, raw) != PK_NONE && pk_model_ctx_find(w, id) != PK_NONE;
}

/* Profile `prof`'s values at ids [lo, hi) as one record: prof, the
 * contexts with their counts, the (raw, value) pairs. */
static void put_record(pk_buf *b, const pk_profile *w, const pk_plane *pl, uint32_t prof,
                       uint64_t lo, uint64_t hi)
{
    uint32_t k0 = lower_bound(pl, lo), k1 = lower_bound(pl, hi), nidx = 0;
    uint64_t nvals = 0;
    size_t head = b->len;
    pk_wire_u32(b, prof), pk_wire_u32(b, 0), pk_wire_u64(b, 0);
    for (uint32_t k = k0; k < k1; k++) {
        uint64_t vb, ve, n = 0;
        uint32_t id = idx_id(pl, k);
        run_of(pl, k, &vb, &ve);
        for (uint64_t v = vb; v < ve; v++)
            n += kept(w, id, pk_le16(pl->vals + v * PK_LM_VAL_SIZE));
        if (!n) continue;
        pk_wire_u32(b, id), pk_wire_u32(b, (uint32_t)n);
        nidx++, nvals += n;
    }
    for (uint32_t k = k0; k < k1 && nvals; k++) {
        uint64_t vb, ve;
        uint32_t id = idx_id(pl, k);
        run_of(pl, k, &vb, &ve);
        for (uint64_t v = vb; v < ve; v++)
            if (kept(w, id, pk_le16(pl->vals + v * PK_LM_VAL_SIZE)))
                pk_buf_bytes(b, pl->vals + v * PK_LM_VAL_SIZE, PK_LM_VAL_SIZE);
    }
    if (!nvals) {
        b->len = head; /* nothing for that member */
        return;
    }
    pk_buf_set_u32(b, head + 4, nidx);
    pk_buf_set_u64(b, head + 8, nvals);
}

static pk_status build_messages(hp_state *s, pk_buf *all, uint64_t *lens)
{
    uint32_t M = s->m->n;
    pk_buf one = {0};
    for (uint32_t k = 0; k < M; k++) {
        one.len = 0;
        for (uint32_t l = s->wfirst; l < s->wend; l++)
            put_record(&one, s->w, &s->w->locs[l].plane, s->order.prof_of_loc[l], s->range_lo[k],
                       s->range_lo[k + 1]);
        lens[k] = one.len;
        if (one.len) pk_buf_bytes(all, one.data, one.len);
    }
    int failed = one.failed || all->failed;
    pk_buf_free(&one);
    return failed ? pk_fail_nomem("sending values") : PK_OK;
}

/* ---- receiving: this member's range ---- */

static pk_status garbled(void)
{
    return pk_fail(PK_ERR_IO, "parallel build: values arrived damaged");
}

/* Walk the records of all messages: count (fill == NULL) or scatter. */
static pk_status walk(hp_state *s, const pk_gathered *g, uint64_t *count, uint64_t *fill,
                      pk_radix_kv *entries)
{
    for (uint32_t k = 0; k < g->n; k++) {
        pk_wire w = pk_wire_reader(g->data + g->off[k], g->len[k]);
        while (w.at < w.n && !w.bad) {
            uint32_t prof = pk_wire_get32(&w), nidx = pk_wire_get32(&w);
            uint64_t nvals = pk_wire_get64(&w);
            const unsigned char *ids = pk_wire_take(&w, (uint64_t)nidx * 8);
            const unsigned char *vals = nvals <= (w.n - w.at) / PK_LM_VAL_SIZE
                                            ? pk_wire_take(&w, nvals * PK_LM_VAL_SIZE)
                                            : NULL;
            if (!ids || !vals) return garbled();
            uint64_t v = 0;
            for (uint32_t i = 0; i < nidx; i++) {
                uint64_t id = pk_le32(ids + 8ull * i), n = pk_le32(ids + 8ull * i + 4);
                if (id < s->r.lo || id >= s->r.hi || n > nvals - v) return garbled();
                if (!fill) {
                    count[id - s->r.lo] += n;
                    v += n;
                    continue;
                }
                for (; n; n--, v++) {
                    const unsigned char *x = vals + v * PK_LM_VAL_SIZE;
                    entries[fill[id - s->r.lo]++] =
                        (pk_radix_kv){(uint64_t)pk_le16(x) << 32 | prof, pk_le64(x + 2)};
                }
            }
            if (v != nvals) return garbled();
        }
    }
    return PK_OK;
}

/* Plan entries by the plain column they reduce, and room for one
 * context's statistics (at most one per plan entry). */
typedef struct reducers {
    uint32_t *first, *next, n_raw;
    pk_radix_kv *found, *tmp;
} reducers;

static void reducers_free(reducers *rd)
{
    free(rd->first), free(rd->next), free(rd->found), free(rd->tmp);
}

static pk_status reducers_init(reducers *rd, const hk_sum_plan *plan)
{
    memset(rd, 0, sizeof *rd);
    for (uint32_t i = 0; i < plan->n; i++)
        if (plan->e[i].plain_raw >= rd->n_raw) rd->n_raw = plan->e[i].plain_raw + 1;
    rd->first = malloc(((size_t)rd->n_raw + 1) * sizeof *rd->first);
    rd->next = malloc(((size_t)plan->n + 1) * sizeof *rd->next);
    rd->found = malloc(((size_t)plan->n + 1) * sizeof *rd->found);
    rd->tmp = malloc(((size_t)plan->n + 1) * sizeof *rd->tmp);
    if (!rd->first || !rd->next || !rd->found || !rd->tmp)
        return pk_fail_nomem("planning the summary");
    memset(rd->first, 0xff, ((size_t)rd->n_raw + 1) * sizeof *rd->first);
    for (uint32_t i = plan->n; i-- > 0;) {
        rd->next[i] = rd->first[plan->e[i].plain_raw];
        rd->first[plan->e[i].plain_raw] = i;
    }
    return PK_OK;
}

/* The summary values of one context, from its block's runs: each plan
 * entry reduced over its column's run, zeros left out, by statistic id. */
static void summarise(hp_state *s, reducers *rd, uint64_t id, const unsigned char *vals,
                      const unsigned char *idx, uint32_t nidx, uint64_t nvals)
{
    hp_range *r = &s->r;
    size_t n = 0;
    for (uint32_t k = 0; k < nidx; k++) {
        uint32_t raw = pk_le16(idx + (uint64_t)k * PK_CM_IDX_SIZE);
        uint64_t b = pk_le64(idx + (uint64_t)k * PK_CM_IDX_SIZE + 2);
        uint64_t e = k + 1 < nidx ? pk_le64(idx + (uint64_t)(k + 1) * PK_CM_IDX_SIZE + 2) : nvals;
        for (uint32_t j = raw < rd->n_raw ? rd->first[raw] : PK_NONE; j != PK_NONE;
             j = rd->next[j]) {
            double x = hs_reduce_run(vals, b, e, s->plan.e[j].reduce);
            if (x != 0) /* HPCToolkit stores no zeros */
                rd->found[n++] = (pk_radix_kv){s->plan.e[j].stat_raw, pk_f64_bits(x)};
        }
    }
    if (!n) return;
    pk_radix_sort_kv(rd->found, rd->tmp, n);
    pk_wire_u32(&r->sum_idx, (uint32_t)id);
    pk_wire_u64(&r->sum_idx, r->sum_nvals);
    for (size_t i = 0; i < n; i++) {
        pk_wire_u16(&r->sum_vals, (uint16_t)rd->found[i].key);
        pk_wire_u64(&r->sum_vals, rd->found[i].val);
    }
    r->sum_nvals += n, r->sum_nidx++;
}

/* Context id's block: its entries (sorted by metric, then profile) as
 * cct.db values and index, padded to 8 bytes; its summary values. */
static void emit_block(hp_state *s, reducers *rd, uint64_t id, const pk_radix_kv *e, uint64_t n)
{
    hp_range *r = &s->r;
    size_t at = r->blocks.len;
    uint32_t nidx = 0;
    for (uint64_t i = 0; i < n; i++) {
        pk_wire_u32(&r->blocks, (uint32_t)e[i].key);
        pk_wire_u64(&r->blocks, e[i].val);
    }
    size_t idx_at = r->blocks.len;
    for (uint64_t i = 0; i < n; i++) {
        if (i && e[i].key >> 32 == e[i - 1].key >> 32) continue;
        pk_wire_u16(&r->blocks, (uint16_t)(e[i].key >> 32));
        pk_wire_u64(&r->blocks, i);
        nidx++;
    }
    pk_buf_align(&r->blocks, 8);
    r->nvals[id - r->lo] = n, r->nidx[id - r->lo] = nidx;
    if (!r->blocks.failed)
        summarise(s, rd, id, r->blocks.data + at, r->blocks.data + idx_at, nidx, n);
}

/* Unlisted contexts (no parent: known by their values only) that hold
 * none: the serial writer reports them (write.c). */
static void note_empty(hp_state *s, uint64_t id)
{
    uint32_t i = pk_model_ctx_find(s->w, id);
    if (i == PK_NONE || i == 0 || s->w->ctx[i].parent != PK_NONE) return;
    if (s->r.n_empty < 8) s->r.empty_ids[s->r.n_empty] = id;
    s->r.n_empty++;
}

static pk_status build_range(hp_state *s, const pk_gathered *g)
{
    hp_range *r = &s->r;
    uint64_t n_ids = r->hi - r->lo, total = 0, max = 0;
    uint64_t *start = calloc(n_ids + 1, sizeof *start), *fill = malloc((n_ids + 1) * 8);
    r->nvals = calloc(n_ids + 1, sizeof *r->nvals);
    r->nidx = calloc(n_ids + 1, sizeof *r->nidx);
    pk_status st = start && fill && r->nvals && r->nidx ? PK_OK : pk_fail_nomem("building cct.db");
    if (!st) st = walk(s, g, start, NULL, NULL);
    for (uint64_t i = 0; i < n_ids && !st; i++) {
        uint64_t c = start[i];
        start[i] = fill[i] = total, total += c, max = c > max ? c : max;
    }
    start[n_ids] = total;
    pk_radix_kv *e = st ? NULL : malloc((total + 1) * sizeof *e);
    pk_radix_kv *tmp = st ? NULL : malloc((max + 1) * sizeof *tmp);
    reducers rd = {0};
    if (!st && (!e || !tmp)) st = pk_fail_nomem("building cct.db");
    if (!st) st = walk(s, g, NULL, fill, e);
    if (!st) st = reducers_init(&rd, &s->plan);
    for (uint64_t i = 0; i < n_ids && !st; i++) {
        uint64_t b = start[i], n = start[i + 1] - b;
        pk_radix_sort_kv(e + b, tmp, n); /* by metric, then profile: keys are unique */
        emit_block(s, &rd, r->lo + i, e + b, n);
        if (r->nidx[i] > UINT16_MAX)
            st = pk_fail(PK_ERR_UNSUPPORTED, "cct.db: context %llu has values of %u metrics",
                         (unsigned long long)(r->lo + i), r->nidx[i]);
        if (!n) note_empty(s, r->lo + i);
    }
    if (!st && (r->blocks.failed || r->sum_vals.failed || r->sum_idx.failed))
        st = pk_fail_nomem("building cct.db");
    reducers_free(&rd);
    free(start), free(fill), free(e), free(tmp);
    return st;
}

pk_status hp_transpose(hp_state *s)
{
    uint32_t M = s->m->n;
    uint64_t *lens = calloc((size_t)M + 1, sizeof *lens);
    pk_buf all = {0};
    pk_status st = lens ? build_messages(s, &all, lens) : pk_fail_nomem("sending values");
    st = pk_members_agree(s->m, st);
    pk_gathered g = {0};
    if (!st) st = pk_members_alltoall(s->m, all.data, lens, &g);
    pk_buf_free(&all);
    free(lens);
    st = pk_members_agree(s->m, st);
    if (!st) st = build_range(s, &g);
    pk_gathered_free(&g);
    return pk_members_agree(s->m, st);
}
