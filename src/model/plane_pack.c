/*
 * model/plane_pack.c — building a location-major value plane from the
 * (context, column, value) triples a reader or writer produced, and the
 * one sort of a context's values by column that every plane builder uses.
 *
 * Two ways give the same plane, ordered by context and then by column,
 * ties in the order the values came:
 *   - counting: when the contexts' range is not much wider than the
 *     values, each value is counted out straight into its context's place
 *     (no sorted copy is made; 4-byte counters, as it sits at the peak of
 *     a conversion) and each context's run is then put in column order.
 *     Linear, and values that come as dozens of runs (one per derived
 *     column) cost a comparison sort's merges nothing;
 *   - sorting: a location with values at a few of many contexts (one of
 *     10,000 threads) would pay a pass over every context id, so its
 *     triples are sorted (stably) instead.
 * Values may also come from a stream the builder does not own, such as a
 * plane of a mapped input, read once per pass: the stream checks that
 * each pass read what the first did (another program may change the
 * file meanwhile), and every placement is bounded by the counts, so a
 * stream that changes cannot make the builder write out of bounds.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "util/bytes.h"
#include "util/sort.h"

static int cmp_column(const void *a, const void *b)
{
    uint16_t x = pk_le16(a), y = pk_le16(b);
    return (x > y) - (x < y);
}

int pk_plane_sort_columns(unsigned char *vals, uint64_t lo, uint64_t hi)
{
    enum { SZ = PK_LM_VAL_SIZE };
    if (hi - lo > 16) return pk_sort_stable(vals + lo * SZ, hi - lo, SZ, cmp_column);
    for (uint64_t i = lo + 1; i < hi; i++) {
        unsigned char rec[SZ];
        memcpy(rec, vals + i * SZ, SZ);
        uint64_t j = i;
        for (; j > lo && pk_le16(vals + (j - 1) * SZ) > pk_le16(rec); j--)
            memcpy(vals + j * SZ, vals + (j - 1) * SZ, SZ);
        memcpy(vals + j * SZ, rec, SZ);
    }
    return 0;
}

static void put_value(unsigned char *vals, uint64_t i, const pk_triple *t)
{
    pk_put_le16(vals + i * PK_LM_VAL_SIZE, t->col);
    pk_put_le64(vals + i * PK_LM_VAL_SIZE + 2, pk_f64_bits(t->v));
}

static void put_index(unsigned char *idx, uint32_t k, uint32_t ctx, uint64_t first)
{
    pk_put_le32(idx + (uint64_t)k * PK_LM_IDX_SIZE, ctx);
    pk_put_le64(idx + (uint64_t)k * PK_LM_IDX_SIZE + 4, first);
}

/* Room for a plane of n values and nidx contexts, owned by p. */
static unsigned char *plane_room(pk_profile *p, uint64_t n, uint64_t nidx)
{
    return pk_model_alloc_owned(p, n * PK_LM_VAL_SIZE + nidx * PK_LM_IDX_SIZE + 1);
}

/* One pass over the stream: at[min(ctx, max) + 1] counted up, or (at
 * NULL) the largest context noted in *max; the values counted in *n. */
static pk_status stream_count(const pk_triple_stream *s, uint32_t *at, uint32_t *max, uint64_t *n)
{
    pk_triple x;
    while (s->next(s->user, &x)) {
        if (at)
            at[(x.ctx <= *max ? x.ctx : *max) + 1]++;
        else if (x.ctx > *max)
            *max = x.ctx;
        ++*n;
    }
    return s->pass_done(s->user);
}

/* Each context's run of values put in column order. */
static pk_status sort_runs(const unsigned char *idx, uint32_t nidx, unsigned char *vals, uint64_t n)
{
    for (uint32_t k = 0; k < nidx; k++) {
        uint64_t from = pk_le64(idx + (uint64_t)k * PK_LM_IDX_SIZE + 4);
        uint64_t to = k + 1 < nidx ? pk_le64(idx + (uint64_t)(k + 1) * PK_LM_IDX_SIZE + 4) : n;
        if (to - from > 1 && pk_plane_sort_columns(vals, from, to))
            return pk_fail_nomem("packing a value plane");
    }
    return PK_OK;
}

static pk_status changed(void)
{
    return pk_fail(PK_ERR_FORMAT, "values changed between two passes over them");
}

/* The stream's values (n - nt of them, as the first pass counted) and
 * t's counted out by context, at most max. */
static pk_status pack_counted(pk_profile *p, const pk_triple_stream *s, const pk_triple *t,
                              uint64_t nt, uint64_t n, uint32_t max, pk_plane *out)
{
    uint32_t *at = calloc((size_t)max + 2, sizeof *at); /* n < 2^32 */
    uint64_t ns = 0, placed = 0;
    if (!at) return pk_fail_nomem("packing a value plane");
    uint32_t nidx = 0;
    pk_status st = s ? stream_count(s, at, &max, &ns) : PK_OK;
    if (!st && ns + nt != n) st = changed();
    for (uint64_t i = 0; i < nt; i++)
        at[t[i].ctx + 1]++;
    for (uint64_t c = 0; c <= max; c++)
        nidx += at[c + 1] != 0, at[c + 1] += at[c];
    unsigned char *vals = st ? NULL : plane_room(p, n, nidx);
    if (!st && !vals) st = pk_fail_nomem("packing a value plane");
    if (st) return free(at), st;
    unsigned char *idx = vals + n * PK_LM_VAL_SIZE;
    for (uint64_t c = 0, k = 0; c <= max; c++)
        if (at[c + 1] > at[c]) put_index(idx, (uint32_t)k++, (uint32_t)c, at[c]);
    pk_triple x; /* a stream that changed stays in bounds, and is refused */
    while (s && s->next(s->user, &x))
        if (x.ctx <= max && at[x.ctx] < n) put_value(vals, at[x.ctx]++, &x), placed++;
    st = s ? s->pass_done(s->user) : PK_OK;
    if (!st && placed != n - nt) st = changed();
    for (uint64_t i = 0; i < nt && !st; i++) /* bounded too: the stream's may not have been */
        if (at[t[i].ctx] < n) put_value(vals, at[t[i].ctx]++, &t[i]);
    free(at);
    if (!st) st = sort_runs(idx, nidx, vals, n);
    if (!st) *out = (pk_plane){vals, idx, n, nidx};
    return st;
}

static int cmp_triple(const void *a, const void *b)
{
    const pk_triple *x = a, *y = b;
    if (x->ctx != y->ctx) return x->ctx < y->ctx ? -1 : 1;
    return (x->col > y->col) - (x->col < y->col);
}

/* The stream's values copied out ahead of t's (n in all, as counted). */
static pk_status gather(const pk_triple_stream *s, const pk_triple *t, uint64_t nt, uint64_t n,
                        pk_triple **all)
{
    pk_triple *a = malloc((n ? n : 1) * sizeof *a);
    if (!a) return pk_fail_nomem("packing a value plane");
    uint64_t k = 0;
    pk_triple x;
    for (; s->next(s->user, &x); k++)
        if (k < n - nt) a[k] = x;
    pk_status st = s->pass_done(s->user);
    if (!st && k != n - nt) st = changed();
    if (st) return free(a), st;
    if (nt) memcpy(a + k, t, nt * sizeof *t);
    *all = a;
    return PK_OK;
}

static pk_status pack_sorted(pk_profile *p, pk_triple *t, uint64_t n, pk_plane *out)
{
    if (pk_sort_stable(t, n, sizeof *t, cmp_triple)) return pk_fail_nomem("packing a value plane");
    uint32_t nidx = 0;
    for (uint64_t i = 0; i < n; i++)
        nidx += i == 0 || t[i].ctx != t[i - 1].ctx;
    unsigned char *vals = plane_room(p, n, nidx);
    if (!vals) return pk_fail_nomem("packing a value plane");
    unsigned char *idx = vals + n * PK_LM_VAL_SIZE;
    for (uint64_t i = 0, k = 0; i < n; i++) {
        if (i == 0 || t[i].ctx != t[i - 1].ctx) put_index(idx, (uint32_t)k++, t[i].ctx, i);
        put_value(vals, i, &t[i]);
    }
    *out = (pk_plane){vals, idx, n, nidx};
    return PK_OK;
}

pk_status pk_plane_pack(pk_profile *p, const pk_triple_stream *s, pk_triple *t, uint64_t nt,
                        pk_plane *out)
{
    uint32_t max = 0;
    uint64_t n = nt;
    pk_status st = s ? stream_count(s, NULL, &max, &n) : PK_OK;
    for (uint64_t i = 0; i < nt; i++)
        max = t[i].ctx > max ? t[i].ctx : max;
    if (st) return st;
    if (max <= 4 * n + 1024 && n < UINT32_MAX) return pack_counted(p, s, t, nt, n, max, out);
    if (!s) return pack_sorted(p, t, nt, out);
    pk_triple *all = NULL;
    st = gather(s, t, nt, n, &all);
    if (!st) st = pack_sorted(p, all, n, out);
    free(all);
    return st;
}
