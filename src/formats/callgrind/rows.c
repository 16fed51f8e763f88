/*
 * formats/callgrind/rows.c — rows of per-event costs while a file is read
 * (cgb_rows: added to in place, line after line) and their final layout
 * in the model (model/callgraph.h: fixed, dense or sparse).
 *
 * Memory follows the values the file holds, not the number of events it
 * declares: a row is kept dense (events 0..len-1, zeros included) while
 * that is no bigger than keeping its non-zero values with their events
 * (8 bytes a slot against 12), sparse after. A valgrind file's rows of
 * eight events stay dense; a file declaring 4,096 events with a cost or
 * two a line makes sparse rows of one or two.
 */
#include <stdlib.h>
#include <string.h>

#include "cgrd.h"
#include "util/error.h"
#include "util/vec.h"

void cgb_rows_free(cgb_rows *r)
{
    free(r->v), free(r->ev), free(r->off), free(r->len), free(r->cap), free(r->nnz);
    memset(r, 0, sizeof *r);
}

/* Room for `cap` slots at the end of the pools (events too if `ev`). */
static pk_status reserve(cgb_rows *r, uint64_t cap, int ev)
{
    if (pk_vec_reserve((void **)&r->v, &r->cap_v, r->n_v + cap, sizeof *r->v) ||
        (ev && pk_vec_reserve((void **)&r->ev, &r->cap_ev, r->n_v + cap, sizeof *r->ev)))
        return pk_fail_nomem("storing costs");
    return PK_OK;
}

/* A new empty row. Both pools exist from the first row on, so that
 * `v + off[i]` and `ev + off[i]` always point into an array, empty rows'
 * included (an offset from a null pointer is undefined behaviour). */
pk_status cgb_rows_new(cgb_rows *r, uint64_t *out)
{
    pk_status st = r->v && r->ev ? PK_OK : reserve(r, 1, 1);
    if (st) return st;
    if (r->n + 1 >= r->cap_n) {
        size_t c = r->cap_n ? 2 * r->cap_n : 256;
        uint64_t *off = realloc(r->off, c * sizeof *off);
        if (off) r->off = off;
        uint32_t *len = realloc(r->len, c * sizeof *len);
        if (len) r->len = len;
        uint32_t *cap = realloc(r->cap, c * sizeof *cap);
        if (cap) r->cap = cap;
        uint32_t *nnz = realloc(r->nnz, c * sizeof *nnz);
        if (nnz) r->nnz = nnz;
        if (!off || !len || !cap || !nnz) return pk_fail_nomem("storing costs");
        r->cap_n = c;
    }
    r->off[r->n] = r->n_v, r->len[r->n] = r->cap[r->n] = r->nnz[r->n] = 0;
    *out = r->n++;
    return PK_OK;
}

/* A dense row += values[nz]: *done unless the row would then hold more
 * zeros than keeping it sparse costs. */
static pk_status dense_add(cgb_rows *r, uint64_t i, const double *values, const uint32_t *nz,
                           uint32_t k, int *done)
{
    uint32_t len = r->len[i], top = nz[k - 1] + 1, span = top > len ? top : len, fresh = 0;
    for (uint32_t j = 0; j < k; j++)
        fresh += nz[j] >= len || r->v[r->off[i] + nz[j]] == 0.0;
    uint64_t nnz = (uint64_t)r->nnz[i] + fresh;
    *done = span <= 4 || 2 * (uint64_t)span <= 3 * nnz;
    if (!*done) return PK_OK;
    if (span > r->cap[i]) { /* move to the end with twice the room */
        uint32_t cap = span > 2 * r->cap[i] ? span : 2 * r->cap[i];
        pk_status st = reserve(r, cap, 0);
        if (st) return st;
        if (len) memcpy(r->v + r->n_v, r->v + r->off[i], len * sizeof *r->v);
        r->off[i] = r->n_v, r->cap[i] = cap, r->n_v += cap;
    }
    double *v = r->v + r->off[i];
    if (span > len) memset(v + len, 0, (span - len) * sizeof *v);
    for (uint32_t j = 0; j < k; j++)
        v[nz[j]] += values[nz[j]];
    r->len[i] = span, r->nnz[i] = (uint32_t)nnz;
    return PK_OK;
}

/* A dense row as a sparse one, in place: its non-zero values with their
 * events. */
static pk_status to_sparse(cgb_rows *r, uint64_t i)
{
    if (pk_vec_reserve((void **)&r->ev, &r->cap_ev, r->off[i] + r->cap[i] + 1, sizeof *r->ev))
        return pk_fail_nomem("storing costs");
    uint32_t w = 0;
    double *v = r->v + r->off[i];
    uint32_t *ev = r->ev + r->off[i];
    for (uint32_t j = 0; j < r->len[i]; j++)
        if (v[j] != 0.0) v[w] = v[j], ev[w++] = j;
    r->len[i] = w, r->nnz[i] = CGB_SPARSE;
    return PK_OK;
}

/* Events of nz[0, k) that sparse row i lacks. */
static uint32_t missing_events(const cgb_rows *r, uint64_t i, const uint32_t *nz, uint32_t k)
{
    uint32_t len = r->len[i], a = 0, missing = 0;
    if (!len) return k;
    const uint32_t *ev = r->ev + r->off[i];
    for (uint32_t j = 0; j < k; j++) {
        while (a < len && ev[a] < nz[j])
            a++;
        missing += !(a < len && ev[a] == nz[j]);
    }
    return missing;
}

/* Sparse row i merged with values[nz] into room at the end of the pools,
 * twice the old room at least. */
static pk_status sparse_grow(cgb_rows *r, uint64_t i, const double *values, const uint32_t *nz,
                             uint32_t k, uint32_t missing)
{
    uint32_t len = r->len[i], cap = len + missing > 2 * r->cap[i] ? len + missing : 2 * r->cap[i];
    pk_status st = reserve(r, cap, 1);
    if (st) return st;
    const double *ov = r->v + r->off[i];
    const uint32_t *oe = r->ev + r->off[i];
    double *nv = r->v + r->n_v;
    uint32_t *ne = r->ev + r->n_v, a = 0, j = 0, n = 0;
    while (a < len || j < k) {
        if (j >= k || (a < len && oe[a] < nz[j]))
            ne[n] = oe[a], nv[n++] = ov[a++];
        else if (a >= len || nz[j] < oe[a])
            ne[n] = nz[j], nv[n++] = values[nz[j]], j++;
        else
            ne[n] = oe[a], nv[n++] = ov[a++] + values[nz[j++]];
    }
    r->off[i] = r->n_v, r->len[i] = n, r->cap[i] = cap, r->n_v += cap;
    return PK_OK;
}

/* Sparse row i += values[nz]: new events merged from the back in place
 * when there is room. */
static pk_status sparse_add(cgb_rows *r, uint64_t i, const double *values, const uint32_t *nz,
                            uint32_t k)
{
    uint32_t missing = missing_events(r, i, nz, k);
    if (missing && r->len[i] + missing > r->cap[i])
        return sparse_grow(r, i, values, nz, k, missing);
    double *v = r->v + r->off[i];
    uint32_t *ev = r->ev + r->off[i];
    if (missing) {
        int64_t a = (int64_t)r->len[i] - 1, j = (int64_t)k - 1, w = a + missing;
        for (; j >= 0; w--) {
            if (a >= 0 && ev[a] > nz[j])
                ev[w] = ev[a], v[w] = v[a], a--;
            else if (a >= 0 && ev[a] == nz[j])
                ev[w] = ev[a], v[w] = v[a] + values[nz[j]], a--, j--;
            else
                ev[w] = nz[j], v[w] = values[nz[j]], j--;
        }
        r->len[i] += missing;
        return PK_OK;
    }
    for (uint32_t j = 0, a = 0; j < k; j++, a++) {
        while (ev[a] < nz[j])
            a++;
        v[a] += values[nz[j]];
    }
    return PK_OK;
}

pk_status cgb_rows_add(cgb_rows *r, uint64_t i, const double *values, const uint32_t *nz,
                       uint32_t k)
{
    if (!k) return PK_OK;
    if (r->nnz[i] != CGB_SPARSE) {
        int done = 0;
        pk_status st = dense_add(r, i, values, nz, k, &done);
        if (st || done) return st;
        if ((st = to_sparse(r, i))) return st;
    }
    return sparse_add(r, i, values, nz, k);
}

pk_status cgb_rows_put(cgb_rows *r, const double *v, const uint32_t *ev, uint32_t n)
{
    uint64_t i = 0;
    pk_status st = cgb_rows_new(r, &i);
    if (!st) st = reserve(r, n + 1u, 1);
    if (st) return st;
    uint32_t w = 0;
    for (uint32_t j = 0; j < n; j++)
        if (v[j] != 0.0) r->v[r->n_v + w] = v[j], r->ev[r->n_v + w++] = ev[j];
    r->len[i] = r->cap[i] = w, r->nnz[i] = CGB_SPARSE, r->n_v += w;
    return PK_OK;
}

pk_status cgb_rows_copy(cgb_rows *dst, const cgb_rows *src, uint64_t i, uint32_t *ev)
{
    const double *v = src->v + src->off[i];
    uint32_t n = src->len[i];
    if (src->nnz[i] == CGB_SPARSE) return cgb_rows_put(dst, v, src->ev + src->off[i], n);
    for (uint32_t j = 0; j < n; j++)
        ev[j] = j;
    return cgb_rows_put(dst, v, ev, n);
}

/* ------------------------------------------------------------------ */
/* Settling: the final layout                                          */
/* ------------------------------------------------------------------ */

static uint32_t event_at(const cgb_rows *r, uint64_t i, uint32_t j)
{
    return r->nnz[i] == CGB_SPARSE ? r->ev[r->off[i] + j] : j;
}

static cgb_row_stats measure(const cgb_rows *r)
{
    cgb_row_stats s = {0, 0, 0, 1, 1, 1};
    for (uint64_t i = 0; i < r->n; i++) {
        if (!r->len[i]) continue; /* empty rows are either */
        const double *v = r->v + r->off[i];
        uint32_t last = 0;
        for (uint32_t j = 0; j < r->len[i]; j++)
            if (v[j] != 0.0) s.nnz++, last = event_at(r, i, j) + 1;
        s.span += last;
        s.compact &= r->off[i] == s.used, s.used += r->len[i];
        if (r->nnz[i] == CGB_SPARSE)
            s.all_dense = 0;
        else
            s.all_sparse = 0;
    }
    return s;
}

/* The rows copied into the layout `o` describes: fixed (off NULL), dense
 * (ev NULL) or sparse. */
static void fill(const cgb_rows *r, uint32_t ne, double *ov, uint64_t *ooff, uint32_t *oev)
{
    uint64_t at = 0;
    for (uint64_t i = 0; i < r->n; i++) {
        if (ooff) ooff[i] = at;
        if (!r->len[i]) continue;
        const double *v = r->v + r->off[i];
        double *row = ooff ? ov + at : ov + i * ne;
        uint32_t last = 0;
        for (uint32_t j = 0; j < r->len[i]; j++) {
            if (v[j] == 0.0) continue;
            uint32_t e = event_at(r, i, j);
            if (oev)
                ov[at] = v[j], oev[at++] = e;
            else
                row[e] = v[j], last = e + 1;
        }
        if (ooff && !oev) at += last;
    }
    if (ooff) ooff[r->n] = at;
}

/* The pools taken over as the model's rows: dense, or sparse (`sparse`),
 * row starts one longer, the slack at the end given back. Empty rows
 * start where the next one does (they hold nothing). */
static pk_status adopt_pools(cgb_rows *r, uint64_t used, int sparse, double **v, uint64_t **off,
                             uint32_t **ev)
{
    uint64_t *o = realloc(r->off, (r->n + 1) * sizeof *o);
    if (!o) return pk_fail_nomem("settling costs");
    r->off = o;
    o[r->n] = used;
    for (uint64_t i = r->n; i-- > 0;)
        if (!r->len[i]) o[i] = o[i + 1];
    double *d = realloc(r->v, (used + 1) * sizeof *d);
    uint32_t *e = sparse ? realloc(r->ev, (used + 1) * sizeof *e) : NULL;
    if (!d || (sparse && !e)) {
        if (d) r->v = d;
        if (e) r->ev = e;
        return pk_fail_nomem("settling costs");
    }
    if (!sparse) free(r->ev);
    *v = d, *off = o, *ev = e;
    r->v = NULL, r->off = NULL, r->ev = NULL;
    return PK_OK;
}

cgb_layout cgb_rows_layout(uint64_t n, uint32_t ne, const cgb_row_stats *s, int *adopt)
{
    uint64_t offs = (n + 1) * 8;
    uint64_t fixed = n * ne * 8, dense = s->span * 8 + offs, sparse = s->nnz * 12 + offs;
    uint64_t best = fixed < dense ? fixed : dense;
    best = sparse < best ? sparse : best;
    /* the pools as they are, when no bigger than the best by an eighth */
    uint64_t pools = s->used * (s->all_dense ? 8 : 12) + offs;
    *adopt = s->compact && (s->all_dense || s->all_sparse) && pools <= best + best / 8;
    if (*adopt) return s->all_dense ? CGB_LAYOUT_DENSE : CGB_LAYOUT_SPARSE;
    return best == fixed ? CGB_LAYOUT_FIXED : best == sparse ? CGB_LAYOUT_SPARSE : CGB_LAYOUT_DENSE;
}

pk_status cgb_rows_settle(cgb_rows *r, uint32_t ne, double **v, uint64_t **off, uint32_t **ev)
{
    uint64_t n = r->n;
    cgb_row_stats s = measure(r);
    int adopt;
    cgb_layout lay = cgb_rows_layout(n, ne, &s, &adopt);
    pk_status st = PK_OK;
    if (adopt) {
        st = adopt_pools(r, s.used, lay == CGB_LAYOUT_SPARSE, v, off, ev);
    } else {
        int fix = lay == CGB_LAYOUT_FIXED, sp = lay == CGB_LAYOUT_SPARSE;
        uint64_t n_v = fix ? n * ne : sp ? s.nnz : s.span;
        double *ov = calloc(n_v + 1, sizeof *ov);
        uint64_t *ooff = fix ? NULL : malloc((n + 1) * sizeof *ooff);
        uint32_t *oev = sp ? malloc((n_v + 1) * sizeof *oev) : NULL;
        if (!ov || (!fix && !ooff) || (sp && !oev)) {
            free(ov), free(ooff), free(oev);
            st = pk_fail_nomem("settling costs");
        } else {
            fill(r, ne, ov, ooff, oev);
            *v = ov, *off = ooff, *ev = oev;
        }
    }
    cgb_rows_free(r);
    return st;
}
