/*
 * formats/hpctoolkit/write_par_range.c — a parallel build's member builds
 * cct.db's blocks for its range of context ids and the summary profile's
 * values there (write_par.h), from every profile's runs of values at
 * those contexts (write_par_cct.c brings them, in profile order): like
 * the serial transpose, with a counter per (context, metric) when there
 * are few enough cells, values going straight to their place; else each
 * context's values sorted by (metric, profile). Each statistic of the
 * summary is reduced over its column's run in profile order
 * (hs_reduce_run, the serial writer's own).
 *
 * On the dense path the blocks' sizes come from the counts alone, so
 * with one process (threads: every member's planes in reach) each member
 * learns where its blocks go in cct.db (a scan of the sizes over the
 * members) before it builds them, and builds, summarises and writes them
 * a chunk of contexts at a time (pk_parallel_options.chunk_bytes): it
 * holds one chunk, not its share of every value, and touches each page of
 * it many times instead of once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/outfile.h"
#include "util/radix.h"
#include "util/vec.h"
#include "util/wire.h"
#include "write_par.h"

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

/* The counts per cell give each context's sizes (nvals, nidx) and the
 * bytes of the range's blocks. */
static pk_status size_cells(hp_state *s, const uint64_t *cell, uint32_t n_raw)
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
    r->blocks_len = total;
    return PK_OK;
}

/* Ids [lo + i0, lo + i1) into `chunk`: counts per cell become the offsets
 * their values go to; index records and each block's pad written. */
static void place_chunk(hp_range *r, uint64_t *cell, uint32_t n_raw, uint64_t i0, uint64_t i1,
                        unsigned char *chunk)
{
    uint64_t at = 0;
    for (uint64_t i = i0; i < i1; i++) {
        uint64_t used = r->nvals[i] * PK_CM_VAL_SIZE + (uint64_t)r->nidx[i] * PK_CM_IDX_SIZE;
        unsigned char *idx = chunk + at + r->nvals[i] * PK_CM_VAL_SIZE;
        uint64_t n = 0, size = block_size(r->nvals[i], r->nidx[i]);
        for (uint32_t raw = 0; raw < n_raw; raw++) {
            uint64_t *c = &cell[i * n_raw + raw], count = *c;
            if (!count) continue;
            pk_put_le16(idx, (uint16_t)raw), pk_put_le64(idx + 2, n);
            idx += PK_CM_IDX_SIZE;
            *c = at + n * PK_CM_VAL_SIZE, n += count;
        }
        memset(chunk + at + used, 0, size - used); /* the pad */
        at += size;
    }
}

typedef struct dense_pass {
    hp_range *r;
    uint64_t *cell;
    uint32_t n_raw;
    unsigned char *chunk; /* filling: where the cells' offsets point into */
} dense_pass;

static void count_cells(void *user, uint64_t id, uint32_t prof, const unsigned char *vals,
                        uint64_t n)
{
    dense_pass *d = user;
    uint64_t *row = d->cell + (id - d->r->lo) * d->n_raw;
    (void)prof;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t raw = pk_le16(vals + i * PK_LM_VAL_SIZE);
        if (raw < d->n_raw) row[raw]++;
    }
}

static void fill_cells(void *user, uint64_t id, uint32_t prof, const unsigned char *vals,
                       uint64_t n)
{
    dense_pass *d = user;
    uint64_t *row = d->cell + (id - d->r->lo) * d->n_raw;
    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *x = vals + i * PK_LM_VAL_SIZE;
        uint32_t raw = pk_le16(x);
        if (raw >= d->n_raw) continue;
        unsigned char *v = d->chunk + row[raw];
        row[raw] += PK_CM_VAL_SIZE;
        pk_put_le32(v, prof), memcpy(v + 4, x + 2, 8);
    }
}

/* Ids [lo + i, lo + j) of one chunk: from i on, blocks while they fit in
 * `limit` bytes (at least one); all of the range when nothing is written. */
static uint64_t chunk_end(const hp_range *r, uint64_t i, uint64_t limit, int whole, uint64_t *bytes)
{
    uint64_t n_ids = r->hi - r->lo, j = i;
    *bytes = 0;
    while (j < n_ids) {
        uint64_t b = block_size(r->nvals[j], r->nidx[j]);
        if (j > i && !whole && *bytes + b > limit) break;
        *bytes += b, j++;
    }
    return j;
}

static void summarise_blocks(hp_state *s, reducers *rd, uint64_t i0, uint64_t i1,
                             const unsigned char *chunk)
{
    hp_range *r = &s->r;
    uint64_t at = 0;
    for (uint64_t i = i0; i < i1; i++) {
        const unsigned char *vals = chunk + at;
        summarise(s, rd, r->lo + i, vals, vals + r->nvals[i] * PK_CM_VAL_SIZE, r->nidx[i],
                  r->nvals[i]);
        at += block_size(r->nvals[i], r->nidx[i]);
        if (!r->nvals[i]) note_empty(s, r->lo + i);
    }
}

/* The blocks, chunk by chunk, each summarised and written to `out`; with
 * no `out`, one chunk, left in r->blocks. */
static pk_status fill_dense(hp_state *s, const hp_source *src, dense_pass *d, pk_out *out)
{
    hp_range *r = &s->r;
    reducers rd = {0};
    hp_source part = *src; /* the chunks in order: each location's plane goes on */
    part.at = malloc(((size_t)s->w->n_locs + 1) * sizeof *part.at);
    pk_status st = part.at ? reducers_init(&rd, &s->plan) : pk_fail_nomem("building cct.db");
    if (part.at) memset(part.at, 0xff, ((size_t)s->w->n_locs + 1) * sizeof *part.at);
    for (uint64_t i = 0, j, bytes; !st && i < r->hi - r->lo; i = j) {
        j = chunk_end(r, i, s->chunk_bytes, out == NULL, &bytes);
        if (pk_vec_reserve((void **)&r->blocks.data, &r->blocks.cap, bytes + 1, 1)) {
            st = pk_fail_nomem("building cct.db");
            break;
        }
        r->blocks.len = bytes;
        d->chunk = r->blocks.data;
        place_chunk(r, d->cell, d->n_raw, i, j, d->chunk);
        part.lo = r->lo + i, part.hi = r->lo + j;
        st = hp_each_run(s, &part, fill_cells, d);
        if (!st) summarise_blocks(s, &rd, i, j, d->chunk);
        if (!st && out) pk_out_bytes(out, d->chunk, bytes);
        if (!st && out) st = out->status;
    }
    if (!st && (r->sum_vals.failed || r->sum_idx.failed)) st = pk_fail_nomem("building cct.db");
    reducers_free(&rd);
    free(part.at);
    return st;
}

typedef struct sorted_pass {
    hp_range *r;
    uint64_t *count; /* per id: how many; then where the next goes */
    pk_radix_kv *e;  /* NULL: counting */
} sorted_pass;

static void sort_pass(void *user, uint64_t id, uint32_t prof, const unsigned char *vals, uint64_t n)
{
    sorted_pass *p = user;
    uint64_t *at = &p->count[id - p->r->lo];
    if (!p->e) {
        *at += n;
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *x = vals + i * PK_LM_VAL_SIZE;
        p->e[(*at)++] = (pk_radix_kv){(uint64_t)pk_le16(x) << 32 | prof, pk_le64(x + 2)};
    }
}

/* Many cells: the values of each context sorted by (metric, profile). */
static pk_status build_sorted(hp_state *s, const hp_source *src, uint64_t *start)
{
    hp_range *r = &s->r;
    uint64_t n_ids = r->hi - r->lo, total = 0, max = 0;
    sorted_pass sp = {r, start, NULL};
    pk_status st = hp_each_run(s, src, sort_pass, &sp);
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
    sp = (sorted_pass){r, fill, e};
    if (!st) st = hp_each_run(s, src, sort_pass, &sp);
    for (uint64_t i = 0; i < n_ids && !st; i++) {
        uint64_t b = start[i], n = start[i + 1] - b;
        pk_radix_sort_kv(e + b, tmp, n); /* by metric, then profile: keys are unique */
        st = emit_block(s, r->lo + i, e + b, n);
    }
    free(e), free(tmp), free(fill);
    return st;
}

/* The sorted path's blocks, whole, summarised. */
static pk_status sorted_range(hp_state *s, const hp_source *src, uint64_t *start)
{
    hp_range *r = &s->r;
    reducers rd = {0};
    pk_status st = build_sorted(s, src, start);
    if (!st) st = reducers_init(&rd, &s->plan);
    if (!st && r->blocks.failed) st = pk_fail_nomem("building cct.db");
    if (!st) summarise_blocks(s, &rd, 0, r->hi - r->lo, r->blocks.data);
    if (!st && (r->sum_vals.failed || r->sum_idx.failed)) st = pk_fail_nomem("building cct.db");
    r->blocks_len = r->blocks.len;
    reducers_free(&rd);
    return st;
}

/* With a direct source, the dense path's blocks go to cct.db at this
 * member's offset (its blocks follow the lower members'), chunk by chunk. */
static pk_status dense_range(hp_state *s, const hp_source *src, dense_pass *d, uint64_t before)
{
    char path[4096];
    pk_out out;
    if (!src->direct || !s->dir || !s->r.blocks_len) return fill_dense(s, src, d, NULL);
    if (snprintf(path, sizeof path, "%s/cct.db", s->dir) >= (int)sizeof path)
        return pk_fail(PK_ERR_INVALID_ARG, "output path too long");
    pk_status st = pk_out_at(&out, path, hk_cct_first_block(s->n_ids) + before);
    if (!st) st = fill_dense(s, src, d, &out);
    pk_status closed = pk_out_close(&out);
    s->r.flushed = 1;
    pk_buf_free(&s->r.blocks);
    return st ? st : closed;
}

pk_status hp_build_range(hp_state *s, const hp_source *src)
{
    hp_range *r = &s->r;
    uint64_t n_ids = r->hi - r->lo, before = 0, total = 0;
    uint32_t n_raw = s->w->n_raw[0];
    int dense = n_ids * n_raw <= DENSE_CELLS;
    uint64_t *start = calloc(n_ids + 1, sizeof *start);
    r->nvals = calloc(n_ids + 1, sizeof *r->nvals);
    r->nidx = calloc(n_ids + 1, sizeof *r->nidx);
    dense_pass d = {r, dense ? calloc(n_ids * n_raw + 1, sizeof *d.cell) : NULL, n_raw, NULL};
    pk_status st = start && r->nvals && r->nidx && (d.cell || !dense)
                       ? PK_OK
                       : pk_fail_nomem("building cct.db");
    if (!st && dense) st = hp_each_run(s, src, count_cells, &d);
    if (!st && dense) st = size_cells(s, d.cell, n_raw);
    if (!st && !dense) st = sorted_range(s, src, start);
    st = pk_members_agree(s->m, st); /* every member: the scan is a collective */
    if (!st) st = pk_members_scan(s->m, r->blocks_len, &before, &total);
    if (!st && dense) st = dense_range(s, src, &d, before);
    free(d.cell);
    free(start);
    return st;
}
