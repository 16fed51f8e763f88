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
static int kept_raw(const pk_profile *w, const unsigned char *val)
{
    return pk_model_col_of(w, 0, pk_le16(val)) != PK_NONE;
}

/* Profile `prof`'s values at ids [lo, hi) as one record — prof, the
 * number of contexts and of values, each context's id and count, the
 * (raw, value) pairs — written at *at when `at` is not NULL; returns its
 * size (0: nothing to send). */
static uint64_t put_record(unsigned char *at, const pk_profile *w, const pk_plane *pl,
                           uint32_t prof, uint64_t lo, uint64_t hi)
{
    uint32_t k0 = lower_bound(pl, lo), k1 = lower_bound(pl, hi), nidx = 0;
    uint64_t nvals = 0;
    unsigned char *ids = at ? at + 16 : NULL;
    for (uint32_t k = k0; k < k1; k++) {
        uint64_t vb, ve, n = 0;
        uint32_t id = idx_id(pl, k);
        if (pk_model_ctx_find(w, id) == PK_NONE) continue;
        run_of(pl, k, &vb, &ve);
        for (uint64_t v = vb; v < ve; v++)
            n += (uint64_t)kept_raw(w, pl->vals + v * PK_LM_VAL_SIZE);
        if (!n) continue;
        if (ids)
            pk_put_le32(ids + 8ull * nidx, id), pk_put_le32(ids + 8ull * nidx + 4, (uint32_t)n);
        nidx++, nvals += n;
    }
    if (!nvals) return 0;
    uint64_t size = 16 + 8ull * nidx + nvals * PK_LM_VAL_SIZE;
    if (!at) return size;
    pk_put_le32(at, prof), pk_put_le32(at + 4, nidx), pk_put_le64(at + 8, nvals);
    unsigned char *out = at + 16 + 8ull * nidx;
    for (uint32_t k = k0; k < k1; k++) {
        uint64_t vb, ve;
        if (pk_model_ctx_find(w, idx_id(pl, k)) == PK_NONE) continue;
        run_of(pl, k, &vb, &ve);
        for (uint64_t v = vb; v < ve; v++) {
            const unsigned char *x = pl->vals + v * PK_LM_VAL_SIZE;
            if (!kept_raw(w, x)) continue;
            memcpy(out, x, PK_LM_VAL_SIZE);
            out += PK_LM_VAL_SIZE;
        }
    }
    return size;
}

/* One message per member, sized first, then filled in place. */
static pk_status build_messages(hp_state *s, unsigned char **all, uint64_t *lens)
{
    uint32_t M = s->m->n;
    uint64_t total = 0;
    for (uint32_t k = 0; k < M; k++) {
        lens[k] = 0;
        for (uint32_t l = s->wfirst; l < s->wend; l++)
            lens[k] += put_record(NULL, s->w, &s->w->locs[l].plane, s->order.prof_of_loc[l],
                                  s->range_lo[k], s->range_lo[k + 1]);
        total += lens[k];
    }
    unsigned char *at = *all = malloc(total + 1);
    if (!at) return pk_fail_nomem("sending values");
    for (uint32_t k = 0; k < M; k++)
        for (uint32_t l = s->wfirst; l < s->wend; l++)
            at += put_record(at, s->w, &s->w->locs[l].plane, s->order.prof_of_loc[l],
                             s->range_lo[k], s->range_lo[k + 1]);
    return PK_OK;
}

/* ---- receiving: this member's range ---- */

static pk_status garbled(void)
{
    return pk_fail(PK_ERR_IO, "parallel build: values arrived damaged");
}

/* One record of a message: a profile's values at contexts of the range. */
typedef struct record {
    uint32_t prof, nidx;
    uint64_t nvals;
    const unsigned char *ids, *vals; /* (u32 id, u32 count) pairs; (u16 raw, f64) values */
} record;

/* The next record of message w (0 at its end), checked: ids in the range,
 * counts adding up. */
static int next_record(const hp_state *s, pk_wire *w, record *r, pk_status *st)
{
    if (w->at >= w->n) return 0;
    r->prof = pk_wire_get32(w), r->nidx = pk_wire_get32(w), r->nvals = pk_wire_get64(w);
    r->ids = pk_wire_take(w, (uint64_t)r->nidx * 8);
    r->vals = r->nvals <= (w->n - w->at) / PK_LM_VAL_SIZE
                  ? pk_wire_take(w, r->nvals * PK_LM_VAL_SIZE)
                  : NULL;
    uint64_t sum = 0;
    for (uint32_t i = 0; r->ids && i < r->nidx; i++) {
        uint64_t id = pk_le32(r->ids + 8ull * i);
        sum += pk_le32(r->ids + 8ull * i + 4);
        if (id < s->r.lo || id >= s->r.hi) sum = UINT64_MAX;
    }
    if (!r->ids || !r->vals || sum != r->nvals) {
        *st = garbled();
        return 0;
    }
    return 1;
}

/* Every value received, in message (so profile) order. */
typedef struct received {
    const hp_state *s;
    const pk_gathered *g;
    uint32_t k, i; /* message, context of the record */
    uint64_t left; /* values left at that context */
    pk_wire w;
    record r;
    const unsigned char *v;
    pk_status st;
} received;

static void received_start(received *it, const hp_state *s, const pk_gathered *g)
{
    memset(it, 0, sizeof *it);
    it->s = s, it->g = g;
    it->r.nidx = 0, it->i = 0, it->k = 0;
    it->w = pk_wire_reader(g->n ? g->data + g->off[0] : NULL, g->n ? g->len[0] : 0);
}

/* The next value: its context id, raw id, profile and 8 value bytes. */
static int received_next(received *it, uint64_t *id, uint32_t *raw, uint32_t *prof,
                         const unsigned char **x)
{
    while (!it->left) {
        if (it->i < it->r.nidx) {
            it->left = pk_le32(it->r.ids + 8ull * it->i + 4);
            it->i++;
            continue;
        }
        if (it->st) return 0;
        if (!next_record(it->s, &it->w, &it->r, &it->st)) {
            if (it->st || ++it->k >= it->g->n) return 0;
            it->w = pk_wire_reader(it->g->data + it->g->off[it->k], it->g->len[it->k]);
            it->r.nidx = 0, it->i = 0;
            continue;
        }
        it->i = 0, it->v = it->r.vals;
    }
    *id = pk_le32(it->r.ids + 8ull * (it->i - 1));
    *raw = pk_le16(it->v), *prof = it->r.prof, *x = it->v + 2;
    it->v += PK_LM_VAL_SIZE, it->left--;
    return 1;
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
    size_t vat = pk_buf_zeros(&r->sum_vals, n * PK_LM_VAL_SIZE);
    size_t iat = pk_buf_zeros(&r->sum_idx, PK_LM_IDX_SIZE);
    if (r->sum_vals.failed || r->sum_idx.failed) return;
    pk_put_le32(r->sum_idx.data + iat, (uint32_t)id);
    pk_put_le64(r->sum_idx.data + iat + 4, r->sum_nvals);
    unsigned char *v = r->sum_vals.data + vat;
    for (size_t i = 0; i < n; i++, v += PK_LM_VAL_SIZE) {
        pk_put_le16(v, (uint16_t)rd->found[i].key);
        pk_put_le64(v + 2, rd->found[i].val);
    }
    r->sum_nvals += n, r->sum_nidx++;
}

/* Context id's block: its entries (sorted by metric, then profile) as
 * cct.db values and index, padded to 8 bytes; its summary values. */
static uint64_t block_size(uint64_t nvals, uint32_t nidx)
{
    return (nvals * PK_CM_VAL_SIZE + (uint64_t)nidx * PK_CM_IDX_SIZE + 7) & ~7ull;
}

static pk_status emit_block(hp_state *s, uint64_t id, const pk_radix_kv *e, uint64_t n)
{
    hp_range *r = &s->r;
    uint32_t nidx = 0;
    for (uint64_t i = 0; i < n; i++)
        nidx += !i || e[i].key >> 32 != e[i - 1].key >> 32;
    if (nidx > UINT16_MAX)
        return pk_fail(PK_ERR_UNSUPPORTED, "cct.db: context %llu has values of %u metrics",
                       (unsigned long long)id, nidx);
    size_t at = pk_buf_zeros(&r->blocks, block_size(n, nidx)); /* the pad stays zero */
    r->nvals[id - r->lo] = n, r->nidx[id - r->lo] = nidx;
    if (r->blocks.failed) return pk_fail_nomem("building cct.db");
    unsigned char *vals = r->blocks.data + at, *x = vals + n * PK_CM_VAL_SIZE;
    for (uint64_t i = 0; i < n; i++) {
        pk_put_le32(vals + i * PK_CM_VAL_SIZE, (uint32_t)e[i].key);
        pk_put_le64(vals + i * PK_CM_VAL_SIZE + 4, e[i].val);
        if (i && e[i].key >> 32 == e[i - 1].key >> 32) continue;
        pk_put_le16(x, (uint16_t)(e[i].key >> 32));
        pk_put_le64(x + 2, i);
        x += PK_CM_IDX_SIZE;
    }
    return PK_OK;
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

/* Few (context, metric) cells: a counter each, and values go straight to
 * their place in the blocks (as the serial transpose's dense path). */
#define DENSE_CELLS (1u << 24)

/* Counts per cell become the slots values go to; index records written. */
static pk_status place_cells(hp_state *s, uint64_t *cell, uint32_t n_raw)
{
    hp_range *r = &s->r;
    uint64_t n_ids = r->hi - r->lo, total = 0;
    for (uint64_t i = 0; i < n_ids; i++) {
        for (uint32_t raw = 0; raw < n_raw; raw++) {
            uint64_t c = cell[i * n_raw + raw];
            r->nvals[i] += c, r->nidx[i] += c != 0;
        }
        if (r->nidx[i] > UINT16_MAX)
            return pk_fail(PK_ERR_UNSUPPORTED, "cct.db: context %llu has values of %u metrics",
                           (unsigned long long)(r->lo + i), r->nidx[i]);
        total += block_size(r->nvals[i], r->nidx[i]);
    }
    pk_buf_zeros(&r->blocks, total);
    if (r->blocks.failed) return pk_fail_nomem("building cct.db");
    uint64_t at = 0;
    for (uint64_t i = 0; i < n_ids; i++) {
        unsigned char *idx = r->blocks.data + at + r->nvals[i] * PK_CM_VAL_SIZE;
        uint64_t n = 0;
        for (uint32_t raw = 0; raw < n_raw; raw++) {
            uint64_t *c = &cell[i * n_raw + raw], count = *c;
            if (!count) continue;
            pk_put_le16(idx, (uint16_t)raw), pk_put_le64(idx + 2, n);
            idx += PK_CM_IDX_SIZE;
            *c = at + n * PK_CM_VAL_SIZE, n += count;
        }
        at += block_size(r->nvals[i], r->nidx[i]);
    }
    return PK_OK;
}

static pk_status build_dense(hp_state *s, const pk_gathered *g, uint32_t n_raw)
{
    hp_range *r = &s->r;
    uint64_t n_ids = r->hi - r->lo;
    uint64_t *cell = calloc(n_ids * n_raw + 1, sizeof *cell);
    if (!cell) return pk_fail_nomem("building cct.db");
    received it;
    uint64_t id;
    uint32_t raw, prof;
    const unsigned char *x;
    received_start(&it, s, g);
    while (received_next(&it, &id, &raw, &prof, &x))
        if (raw < n_raw) cell[(id - r->lo) * n_raw + raw]++;
    pk_status st = it.st ? it.st : place_cells(s, cell, n_raw);
    received_start(&it, s, g);
    while (!st && received_next(&it, &id, &raw, &prof, &x)) {
        if (raw >= n_raw) continue;
        unsigned char *v = r->blocks.data + cell[(id - r->lo) * n_raw + raw];
        cell[(id - r->lo) * n_raw + raw] += PK_CM_VAL_SIZE;
        pk_put_le32(v, prof), memcpy(v + 4, x, 8);
    }
    free(cell);
    return st ? st : it.st;
}

/* Many cells: the values of each context sorted by (metric, profile). */
static pk_status build_sorted(hp_state *s, const pk_gathered *g, uint64_t *start)
{
    hp_range *r = &s->r;
    uint64_t n_ids = r->hi - r->lo, total = 0, max = 0, id;
    uint32_t raw, prof;
    const unsigned char *x;
    received it;
    received_start(&it, s, g);
    while (received_next(&it, &id, &raw, &prof, &x))
        start[id - r->lo]++;
    pk_status st = it.st;
    for (uint64_t i = 0; i < n_ids && !st; i++) {
        uint64_t c = start[i];
        start[i] = total, total += c, max = c > max ? c : max;
    }
    start[n_ids] = total;
    pk_radix_kv *e = st ? NULL : malloc((total + 1) * sizeof *e);
    pk_radix_kv *tmp = st ? NULL : malloc((max + 1) * sizeof *tmp);
    uint64_t *fill = st ? NULL : malloc((n_ids + 1) * sizeof *fill);
    if (!st && (!e || !tmp || !fill)) st = pk_fail_nomem("building cct.db");
    if (!st) memcpy(fill, start, n_ids * sizeof *fill);
    received_start(&it, s, g);
    while (!st && received_next(&it, &id, &raw, &prof, &x))
        e[fill[id - r->lo]++] = (pk_radix_kv){(uint64_t)raw << 32 | prof, pk_le64(x)};
    if (!st) st = it.st;
    for (uint64_t i = 0; i < n_ids && !st; i++) {
        uint64_t b = start[i], n = start[i + 1] - b;
        pk_radix_sort_kv(e + b, tmp, n); /* by metric, then profile: keys are unique */
        st = emit_block(s, r->lo + i, e + b, n);
    }
    free(e), free(tmp), free(fill);
    return st;
}

static pk_status build_range(hp_state *s, const pk_gathered *g)
{
    hp_range *r = &s->r;
    uint64_t n_ids = r->hi - r->lo;
    uint32_t n_raw = s->w->n_raw[0];
    uint64_t *start = calloc(n_ids + 1, sizeof *start);
    r->nvals = calloc(n_ids + 1, sizeof *r->nvals);
    r->nidx = calloc(n_ids + 1, sizeof *r->nidx);
    reducers rd = {0};
    pk_status st = start && r->nvals && r->nidx ? PK_OK : pk_fail_nomem("building cct.db");
    if (!st && n_ids * n_raw <= DENSE_CELLS)
        st = build_dense(s, g, n_raw);
    else if (!st)
        st = build_sorted(s, g, start);
    if (!st) st = reducers_init(&rd, &s->plan);
    uint64_t at = 0;
    for (uint64_t i = 0; i < n_ids && !st && !r->blocks.failed; i++) {
        unsigned char *vals = r->blocks.data + at;
        summarise(s, &rd, r->lo + i, vals, vals + r->nvals[i] * PK_CM_VAL_SIZE, r->nidx[i],
                  r->nvals[i]);
        at += block_size(r->nvals[i], r->nidx[i]);
        if (!r->nvals[i]) note_empty(s, r->lo + i);
    }
    if (!st && (r->blocks.failed || r->sum_vals.failed || r->sum_idx.failed))
        st = pk_fail_nomem("building cct.db");
    reducers_free(&rd);
    free(start);
    return st;
}

pk_status hp_transpose(hp_state *s)
{
    uint32_t M = s->m->n;
    uint64_t *lens = calloc((size_t)M + 1, sizeof *lens);
    unsigned char *all = NULL;
    pk_status st = lens ? build_messages(s, &all, lens) : pk_fail_nomem("sending values");
    st = pk_members_agree(s->m, st);
    pk_gathered g = {0};
    if (!st) st = pk_members_alltoall(s->m, all, lens, &g);
    free(all);
    free(lens);
    st = pk_members_agree(s->m, st);
    if (!st) st = build_range(s, &g);
    pk_gathered_free(&g);
    return pk_members_agree(s->m, st);
}
