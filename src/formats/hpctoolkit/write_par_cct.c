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
        if (pk_model_ctx_at(w, id) == PK_NONE) continue;
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
        if (pk_model_ctx_at(w, idx_id(pl, k)) == PK_NONE) continue;
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

/* Every (profile, context) run of values of this member's range, in
 * profile order: from the messages every member sent it, or, with one
 * process, straight from the other members' planes. */
static pk_status runs_of_messages(const hp_state *s, const pk_gathered *g, hp_run_fn fn, void *user)
{
    pk_status st = PK_OK;
    for (uint32_t k = 0; k < g->n && !st; k++) {
        pk_wire w = pk_wire_reader(g->data + g->off[k], g->len[k]);
        record r;
        while (next_record(s, &w, &r, &st)) {
            const unsigned char *v = r.vals;
            for (uint32_t i = 0; i < r.nidx; i++) {
                uint64_t n = pk_le32(r.ids + 8ull * i + 4);
                fn(user, pk_le32(r.ids + 8ull * i), r.prof, v, n);
                v += n * PK_LM_VAL_SIZE;
            }
        }
    }
    return st;
}

/* One process: each member's profile (w pointer, locations) is in reach. */
typedef struct member_planes {
    uint64_t w;
    uint32_t first, end;
} member_planes;

/* From index entry *at on (PK_NONE: found by a search for lo); where the
 * next part of the range starts is left in *at. */
static void runs_of_plane(const hp_state *s, const pk_plane *pl, uint32_t prof, uint64_t lo,
                          uint64_t hi, uint32_t *at, hp_run_fn fn, void *user)
{
    const pk_profile *w = s->w; /* every member's has the same structure */
    uint32_t k = *at != PK_NONE ? *at : lower_bound(pl, lo);
    for (; k < pl->nidx; k++) {
        uint64_t b, e, id = idx_id(pl, k);
        if (id >= hi) break;
        if (pk_model_ctx_at(w, id) == PK_NONE) continue;
        run_of(pl, k, &b, &e);
        uint64_t v = b;
        while (v < e) { /* the kept values, in runs (all of them, usually) */
            uint64_t x = v;
            while (x < e && kept_raw(w, pl->vals + x * PK_LM_VAL_SIZE))
                x++;
            if (x > v) fn(user, id, prof, pl->vals + v * PK_LM_VAL_SIZE, x - v);
            v = x + 1;
        }
    }
    *at = k;
}

static pk_status runs_of_planes(const hp_state *s, const hp_source *src, hp_run_fn fn, void *user)
{
    const pk_gathered *g = src->g;
    uint64_t lo = src->hi ? src->lo : s->r.lo, hi = src->hi ? src->hi : s->r.hi;
    for (uint32_t k = 0; k < g->n; k++) {
        member_planes mp;
        if (g->len[k] != sizeof mp) return garbled();
        memcpy(&mp, g->data + g->off[k], sizeof mp);
        const pk_profile *w = (const pk_profile *)(uintptr_t)mp.w;
        for (uint32_t l = mp.first; l < mp.end && l < w->n_locs; l++) {
            uint32_t none = PK_NONE, *at = src->at ? &src->at[l] : &none;
            runs_of_plane(s, &w->locs[l].plane, s->order.prof_of_loc[l], lo, hi, at, fn, user);
        }
    }
    return PK_OK;
}

pk_status hp_each_run(const hp_state *s, const hp_source *src, hp_run_fn fn, void *user)
{
    return src->direct ? runs_of_planes(s, src, fn, user) : runs_of_messages(s, src->g, fn, user);
}

/* With one process the members' planes are in reach: no message. */
static pk_status direct(hp_state *s)
{
    member_planes mp = {(uint64_t)(uintptr_t)s->w, s->wfirst, s->wend};
    hp_source src = {1, NULL, 0, 0, NULL};
    pk_gathered g = {0};
    pk_status st = pk_members_allgather(s->m, &mp, sizeof mp, &g);
    src.g = &g;
    st = pk_members_agree(s->m, st);
    if (!st) st = hp_build_range(s, &src);
    /* the planes are read until every member is done: the caller's agree */
    pk_gathered_free(&g);
    return st;
}

pk_status hp_transpose(hp_state *s)
{
    if (!s->m->team) return pk_members_agree(s->m, direct(s));
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
    hp_source src = {0, &g, 0, 0, NULL};
    if (!st) st = hp_build_range(s, &src);
    pk_gathered_free(&g);
    return pk_members_agree(s->m, st);
}
