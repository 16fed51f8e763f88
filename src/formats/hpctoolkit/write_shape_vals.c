/*
 * formats/hpctoolkit/write_shape_vals.c — the per-location values of the
 * shaped profile: the source's own values under the shaped ids, scopes
 * the source lacks derived along the tree, and the values of the nodes
 * the writer adds (its entry point; the root when the source left it
 * empty).
 *
 * Derivation follows docs/model.md ("Deriving a scope"): from the stored
 * scope, point values (a context's own), then the wanted scope:
 *   point(c)     = stored(c) - Σ stored(children it spans)
 *   inclusive(c) = Σ point over c's subtree
 *   exclusive(c) = Σ point over c's lexical subtree (calls stop it)
 * (min/max metrics: the min/max over the subtree instead of sums; an
 * unsigned metric's point values are clamped at 0, as CubeLib and
 * pycubexr do). A child's stored inclusive value is taken off its parent
 * only where the parent has one: the writer's entry point and a root the
 * source left empty have none, and theirs is their children's sum. Each
 * location touches only the contexts holding its values and their
 * ancestors, each once (bottom-up by depth), so the cost is linear in
 * what it holds, whatever the tree's depth.
 */
#include <stdlib.h>
#include <string.h>

#include "util/bytes.h"
#include "util/radix.h"
#include "util/sort.h"
#include "write_shape.h"

typedef struct vwork {
    hk_shape *s;
    hs_triples out;          /* this location's values; ctx holds the shaped index */
    uint32_t n_der;          /* derived columns */
    uint32_t *der_col;       /* their shaped columns */
    hs_triples *der_in;      /* the stored values each derives from */
    uint32_t *dhead, *dnext; /* source column -> derived columns using it */
    double *acc;             /* per shaped context */
    unsigned char *mark;     /* 1: in the working set; 2: has an input value */
    uint32_t *set, n_set;
    uint64_t *keys; /* sorting room for set */
    double *edge;   /* per shaped column: sums into the added entry and the root */
    unsigned char *edge_set;
} vwork;

pk_status hs_push(hs_triples *t, uint32_t ctx, uint32_t col, double v)
{
    if (v == 0) return PK_OK;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        hs_triple *a = realloc(t->t, cap * sizeof *a);
        if (!a) return pk_fail_nomem("shaping values");
        t->t = a, t->cap = cap;
    }
    t->t[t->n++] = (hs_triple){ctx, (uint16_t)col, v};
    return PK_OK;
}

static int cmp_triple(const void *a, const void *b)
{
    const hs_triple *x = a, *y = b;
    if (x->ctx != y->ctx) return x->ctx < y->ctx ? -1 : 1;
    return (x->col > y->col) - (x->col < y->col);
}

static int cmp_value_col(const void *a, const void *b)
{
    uint16_t x = pk_le16(a), y = pk_le16(b);
    return (x > y) - (x < y);
}

/* A context's values [b, e) in column order, ties kept in order: an
 * insertion sort for the few a context has, else a merge sort. */
static pk_status sort_columns(unsigned char *vals, uint64_t b, uint64_t e)
{
    enum { SZ = PK_LM_VAL_SIZE };
    if (e - b > 16) { /* many: the merge sort */
        int failed = pk_sort_stable(vals + b * SZ, e - b, SZ, cmp_value_col);
        return failed ? pk_fail_nomem("shaping values") : PK_OK;
    }
    for (uint64_t i = b + 1; i < e; i++) {
        unsigned char rec[SZ];
        memcpy(rec, vals + i * SZ, SZ);
        uint64_t j = i;
        for (; j > b && pk_le16(vals + (j - 1) * SZ) > pk_le16(rec); j--)
            memcpy(vals + j * SZ, vals + (j - 1) * SZ, SZ);
        memcpy(vals + j * SZ, rec, SZ);
    }
    return PK_OK;
}

/* The plane of triples keyed by context id (at most max_id): counted per
 * id, placed in order (stable), then each context's values put in column
 * order. Linear: the triples come as the plane's values and then each
 * derived column's, dozens of runs a comparison sort would merge. */
static pk_status pack_by_id(pk_profile *q, hs_triples *t, uint32_t max_id, pk_plane *out)
{
    uint64_t *at = calloc((size_t)max_id + 2, sizeof *at);
    if (!at) return pk_fail_nomem("shaping values");
    for (size_t i = 0; i < t->n; i++)
        at[t->t[i].ctx + 1]++;
    uint32_t nidx = 0;
    for (uint64_t id = 0; id <= max_id; id++)
        nidx += at[id + 1] != 0, at[id + 1] += at[id];
    unsigned char *b =
        pk_model_alloc_owned(q, t->n * PK_LM_VAL_SIZE + (size_t)nidx * PK_LM_IDX_SIZE + 1);
    if (!b) return free(at), pk_fail_nomem("shaping values");
    unsigned char *vals = b, *idx = b + t->n * PK_LM_VAL_SIZE;
    for (uint64_t id = 0, k = 0; id <= max_id; id++)
        if (at[id + 1] > at[id]) {
            pk_put_le32(idx + k * PK_LM_IDX_SIZE, (uint32_t)id);
            pk_put_le64(idx + k++ * PK_LM_IDX_SIZE + 4, at[id]);
        }
    for (size_t i = 0; i < t->n; i++) {
        unsigned char *r = vals + at[t->t[i].ctx]++ * PK_LM_VAL_SIZE;
        pk_put_le16(r, t->t[i].col);
        pk_put_le64(r + 2, pk_f64_bits(t->t[i].v));
    }
    free(at);
    pk_status st = PK_OK;
    for (uint32_t k = 0; k < nidx && !st; k++) {
        uint64_t from = pk_le64(idx + (uint64_t)k * PK_LM_IDX_SIZE + 4);
        uint64_t to = k + 1 < nidx ? pk_le64(idx + (uint64_t)(k + 1) * PK_LM_IDX_SIZE + 4) : t->n;
        if (to - from > 1) st = sort_columns(vals, from, to);
    }
    *out = (pk_plane){vals, idx, t->n, nidx};
    t->n = 0;
    return st;
}

/* Triples hold shaped context indexes; the plane is keyed by their ids. */
pk_status hs_pack(pk_profile *q, hs_triples *t, pk_plane *out)
{
    uint32_t max_id = 0;
    for (size_t i = 0; i < t->n; i++) {
        t->t[i].ctx = (uint32_t)q->ctx[t->t[i].ctx].id;
        max_id = t->t[i].ctx > max_id ? t->t[i].ctx : max_id;
    }
    /* counting walks every id up to max_id: for a location with values at
     * few of the contexts (one of 10,000 threads) a sort costs less */
    if (max_id <= 4 * (uint64_t)t->n + 1024) return pack_by_id(q, t, max_id, out);
    /* ids too sparse for an array of them: sorted (stable, as before) */
    if (pk_sort_stable(t->t, t->n, sizeof *t->t, cmp_triple))
        return pk_fail_nomem("shaping values");
    uint32_t nidx = 0;
    for (size_t i = 0; i < t->n; i++)
        if (i == 0 || t->t[i].ctx != t->t[i - 1].ctx) nidx++;
    unsigned char *b =
        pk_model_alloc_owned(q, t->n * PK_LM_VAL_SIZE + (size_t)nidx * PK_LM_IDX_SIZE + 1);
    if (!b) return pk_fail_nomem("shaping values");
    unsigned char *vals = b, *idx = b + t->n * PK_LM_VAL_SIZE;
    uint32_t k = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (i == 0 || t->t[i].ctx != t->t[i - 1].ctx) {
            pk_put_le32(idx + (size_t)k * PK_LM_IDX_SIZE, t->t[i].ctx);
            pk_put_le64(idx + (size_t)k * PK_LM_IDX_SIZE + 4, i);
            k++;
        }
        pk_put_le16(vals + i * PK_LM_VAL_SIZE, t->t[i].col);
        pk_put_le64(vals + i * PK_LM_VAL_SIZE + 2, pk_f64_bits(t->t[i].v));
    }
    *out = (pk_plane){vals, idx, t->n, nidx};
    t->n = 0;
    return PK_OK;
}

static uint32_t up(const pk_profile *q, uint32_t c)
{
    return c < q->n_ctx ? q->ctx[c].parent : PK_NONE;
}

static void touch(vwork *w, uint32_t c)
{
    if (w->mark[c]) return;
    w->mark[c] = 1;
    w->acc[c] = 0;
    w->set[w->n_set++] = c;
}

/* w->set ordered deepest first, so each child comes before its parent. */
static void deepest_first(vwork *w)
{
    const pk_ctx_rec *ctx = w->s->q->ctx;
    for (uint32_t i = 0; i < w->n_set; i++)
        w->keys[i] = (uint64_t)(UINT32_MAX - ctx[w->set[i]].depth) << 32 | w->set[i];
    pk_radix_sort_u64(w->keys, w->keys + w->n_set, w->n_set, 0); /* keys are unique */
    for (uint32_t i = 0; i < w->n_set; i++)
        w->set[i] = (uint32_t)w->keys[i];
}

/* Point values of one derived column into w->acc over w->set. */
static void point_values(vwork *w, const hs_col *d, const hs_triples *in, int clamp)
{
    const pk_profile *q = w->s->q;
    for (size_t i = 0; i < in->n; i++) {
        touch(w, in->t[i].ctx);
        w->mark[in->t[i].ctx] = 2;
    }
    for (size_t i = 0; i < in->n; i++) {
        uint32_t c = in->t[i].ctx;
        w->acc[c] += in->t[i].v;
        if (d->from_kind == PK_SCOPE_POINT) continue;
        if (d->from_kind == PK_SCOPE_EXCLUSIVE && q->ctx[c].relation != PK_REL_LEXICAL) continue;
        uint32_t par = up(q, c);
        if (par == w->s->entry) par = 0; /* the added entry has no value of its own */
        if (par != PK_NONE && w->mark[par] == 2) w->acc[par] -= in->t[i].v;
    }
    if (clamp)
        for (uint32_t i = 0; i < w->n_set; i++)
            if (w->acc[w->set[i]] < 0) w->acc[w->set[i]] = 0;
}

/* Point values in w->acc become the column's values, bottom-up. */
static void spread(vwork *w, int inclusive, pk_combine cb)
{
    const pk_profile *q = w->s->q;
    for (uint32_t i = 0, n = w->n_set; i < n; i++) /* the ancestors it reaches */
        for (uint32_t c = w->set[i], par; (par = up(q, c)) != PK_NONE; c = par) {
            if (!inclusive && q->ctx[c].relation != PK_REL_LEXICAL) break;
            if (w->mark[par]) break;
            touch(w, par);
            w->mark[par] = 3; /* no point value of its own */
        }
    deepest_first(w);
    for (uint32_t i = 0; i < w->n_set; i++) {
        uint32_t c = w->set[i], par = up(q, c);
        if (par == PK_NONE || (!inclusive && q->ctx[c].relation != PK_REL_LEXICAL)) continue;
        double *a = &w->acc[par], v = w->acc[c];
        if (cb == PK_COMBINE_SUM)
            *a += v;
        else if (w->mark[par] == 3) /* nothing combined into it yet */
            *a = v, w->mark[par] = 4;
        else if (cb == PK_COMBINE_MIN ? v < *a : v > *a)
            *a = v;
    }
}

static pk_status derive_column(vwork *w, uint32_t d)
{
    hk_shape *s = w->s;
    uint32_t qc = w->der_col[d];
    const hs_col *src = &s->col[qc];
    const pk_metric *m = &s->p->metrics[s->q->columns[qc].metric];
    pk_combine cb =
        m->combine == PK_COMBINE_MIN || m->combine == PK_COMBINE_MAX ? m->combine : PK_COMBINE_SUM;
    w->n_set = 0;
    if (cb == PK_COMBINE_SUM) {
        point_values(w, src, &w->der_in[d],
                     (m->flags & PK_METRIC_UNSIGNED) && src->from_kind == PK_SCOPE_INCLUSIVE);
    } else { /* min/max: the stored values themselves, combined over the subtree */
        for (size_t i = 0; i < w->der_in[d].n; i++) {
            touch(w, w->der_in[d].t[i].ctx);
            w->acc[w->der_in[d].t[i].ctx] = w->der_in[d].t[i].v;
        }
    }
    spread(w, src->kind == PK_SCOPE_INCLUSIVE, cb);
    pk_status st = PK_OK;
    uint32_t raw = s->q->columns[qc].raw_id;
    for (uint32_t i = 0; i < w->n_set; i++) {
        uint32_t c = w->set[i];
        if (!st) st = hs_push(&w->out, c, raw, w->acc[c]);
        w->mark[c] = 0;
    }
    w->der_in[d].n = 0;
    return st;
}

static void combine_into(double *a, unsigned char *set, pk_combine cb, double v)
{
    if (!*set)
        *a = v, *set = 1;
    else if (cb == PK_COMBINE_MIN)
        *a = v < *a ? v : *a;
    else if (cb == PK_COMBINE_MAX)
        *a = v > *a ? v : *a;
    else
        *a += v;
}

/* Values of the writer's entry point, then of a root the source left
 * without, for stored inclusive columns: their children's, combined. */
static pk_status fill_edges(vwork *w)
{
    hk_shape *s = w->s;
    const pk_profile *q = s->q;
    pk_status st = PK_OK;
    for (int pass = 0; pass < 2 && !st; pass++) {
        uint32_t target = pass == 0 ? s->entry : 0;
        if (target == PK_NONE) continue;
        memset(w->edge_set, 0, q->n_columns);
        for (size_t i = 0; i < w->out.n; i++) {
            const hs_triple *t = &w->out.t[i];
            uint32_t qc = pk_model_col_of(q, 0, t->col);
            if (qc == PK_NONE || s->col[qc].source != HS_STORED ||
                s->col[qc].kind != PK_SCOPE_INCLUSIVE || w->edge_set[qc] == 2)
                continue;
            if (t->ctx == target)
                w->edge_set[qc] = 2; /* the source has it: kept */
            else if (up(q, t->ctx) == target)
                combine_into(&w->edge[qc], &w->edge_set[qc],
                             s->p->metrics[q->columns[qc].metric].combine, t->v);
        }
        for (uint32_t qc = 0; qc < q->n_columns && !st; qc++)
            if (w->edge_set[qc] == 1)
                st = hs_push(&w->out, target, q->columns[qc].raw_id, w->edge[qc]);
    }
    return st;
}

/* One source location's values, shaped, into w->out. */
static pk_status load_location(vwork *w, const pk_plane *pl)
{
    hk_shape *s = w->s;
    const pk_profile *p = s->p;
    pk_status st = PK_OK;
    for (uint32_t k = 0; k < pl->nidx && !st; k++) {
        const unsigned char *x = pl->idx + (uint64_t)k * PK_LM_IDX_SIZE;
        uint32_t pi = pk_model_ctx_find(p, pk_le32(x));
        uint64_t b = pk_le64(x + 4),
                 e = k + 1 < pl->nidx ? pk_le64(x + 4 + PK_LM_IDX_SIZE) : pl->nvals;
        if (pi == PK_NONE) continue; /* an id the source does not define (it warned) */
        uint32_t qi = s->q_of_p[pi];
        for (uint64_t v = b; v < e && v < pl->nvals && !st; v++) {
            const unsigned char *r = pl->vals + v * PK_LM_VAL_SIZE;
            uint32_t pc = pk_model_col_of(p, 0, pk_le16(r));
            if (pc == PK_NONE) continue;
            double val = pk_le_f64(r + 2);
            uint32_t qc = s->qcol_of_pcol[pc];
            if (qc != PK_NONE) st = hs_push(&w->out, qi, s->q->columns[qc].raw_id, val);
            for (uint32_t d = w->dhead[pc]; d != PK_NONE && !st; d = w->dnext[d])
                st = hs_push(&w->der_in[d], qi, 0, val);
        }
    }
    for (uint32_t d = 0; d < w->n_der && !st; d++)
        st = derive_column(w, d);
    for (uint32_t d = 0; d < w->n_der; d++) /* read: their memory goes back now */
        free(w->der_in[d].t), w->der_in[d] = (hs_triples){0};
    return st ? st : fill_edges(w);
}

/* The per-context room of derivations, once no location needs it more:
 * freed before the last location's values are packed (a big profile's
 * peak). vwork_free() frees the rest. */
static void vwork_release_room(vwork *w)
{
    free(w->acc), free(w->mark), free(w->set), free(w->keys);
    w->acc = NULL, w->mark = NULL, w->set = NULL, w->keys = NULL;
}

static void vwork_free(vwork *w)
{
    for (uint32_t d = 0; d < w->n_der; d++)
        free(w->der_in[d].t);
    free(w->der_in);
    free(w->der_col);
    free(w->dhead);
    free(w->dnext);
    free(w->acc);
    free(w->mark);
    free(w->set);
    free(w->keys);
    free(w->edge);
    free(w->edge_set);
    free(w->out.t);
}

static pk_status vwork_init(vwork *w, hk_shape *s)
{
    const pk_profile *p = s->p, *q = s->q;
    *w = (vwork){.s = s};
    for (uint32_t c = 0; c < q->n_columns; c++)
        w->n_der += s->col[c].source == HS_DERIVED;
    size_t n = (size_t)q->n_ctx + 1;
    w->der_col = malloc(((size_t)w->n_der + 1) * sizeof *w->der_col);
    w->der_in = calloc((size_t)w->n_der + 1, sizeof *w->der_in);
    w->dhead = malloc(((size_t)p->n_columns + 1) * sizeof *w->dhead);
    w->dnext = malloc(((size_t)w->n_der + 1) * sizeof *w->dnext);
    if (w->n_der) { /* derivation's room: per context, only when something is derived */
        w->acc = malloc(n * sizeof *w->acc);
        w->mark = calloc(n, 1);
        w->set = malloc(n * sizeof *w->set);
        w->keys = malloc(2 * n * sizeof *w->keys); /* keys, and the radix sort's room */
    }
    w->edge = malloc(((size_t)q->n_columns + 1) * sizeof *w->edge);
    w->edge_set = malloc((size_t)q->n_columns + 1);
    if (!w->der_col || !w->der_in || !w->dhead || !w->dnext || !w->edge || !w->edge_set ||
        (w->n_der && (!w->acc || !w->mark || !w->set || !w->keys)))
        return pk_fail_nomem("shaping values");
    for (uint32_t c = 0; c < p->n_columns; c++)
        w->dhead[c] = PK_NONE;
    for (uint32_t c = 0, d = 0; c < q->n_columns; c++) {
        if (s->col[c].source != HS_DERIVED) continue;
        w->der_col[d] = c;
        w->dnext[d] = w->dhead[s->col[c].from];
        w->dhead[s->col[c].from] = d++;
    }
    return PK_OK;
}

int hs_values_at(const pk_plane *pl, uint32_t id, uint64_t *b, uint64_t *e)
{
    uint32_t lo = 0, hi = pl->nidx;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pk_le32(pl->idx + (uint64_t)mid * PK_LM_IDX_SIZE) < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == pl->nidx || pk_le32(pl->idx + (uint64_t)lo * PK_LM_IDX_SIZE) != id) return 0;
    *b = pk_le64(pl->idx + (uint64_t)lo * PK_LM_IDX_SIZE + 4);
    *e = lo + 1 < pl->nidx ? pk_le64(pl->idx + (uint64_t)(lo + 1) * PK_LM_IDX_SIZE + 4) : pl->nvals;
    if (*e > pl->nvals) *e = pl->nvals;
    return *b <= *e;
}

/* Does the root hold every stored inclusive value its entry points hold
 * (so that fill_edges() would add nothing)? w->edge_set marks the root's. */
static int root_complete(vwork *w, const pk_plane *pl)
{
    const pk_profile *q = w->s->q;
    uint64_t b, e;
    memset(w->edge_set, 0, q->n_columns);
    if (hs_values_at(pl, 0, &b, &e))
        for (uint64_t v = b; v < e; v++) {
            uint32_t qc = pk_model_col_of(q, 0, pk_le16(pl->vals + v * PK_LM_VAL_SIZE));
            if (qc != PK_NONE) w->edge_set[qc] = 1;
        }
    const pk_ctx_rec *root = &q->ctx[0];
    for (uint32_t k = 0; k < root->n_children; k++) {
        if (!hs_values_at(pl, (uint32_t)q->ctx[root->first_child + k].id, &b, &e)) continue;
        for (uint64_t v = b; v < e; v++) {
            uint32_t qc = pk_model_col_of(q, 0, pk_le16(pl->vals + v * PK_LM_VAL_SIZE));
            if (qc != PK_NONE && w->s->col[qc].kind == PK_SCOPE_INCLUSIVE && !w->edge_set[qc])
                return 0;
        }
    }
    return 1;
}

pk_status hs_plain_values(hk_shape *s)
{
    const pk_profile *p = s->p;
    vwork w;
    pk_status st = vwork_init(&w, s);
    uint32_t last = 0; /* the last location loaded */
    for (uint32_t l = 0; l < p->n_locs; l++)
        if (s->q_of_ploc[l] != PK_NONE && !p->locs[l].is_summary) last = l;
    for (uint32_t l = 0; l < p->n_locs && !st; l++) {
        uint32_t ql = s->q_of_ploc[l];
        if (ql == PK_NONE || p->locs[l].is_summary) continue;
        if (s->plain_identity && root_complete(&w, &p->locs[l].plane)) {
            s->q->locs[ql].plane = p->locs[l].plane; /* as the source has it: no copy */
            continue;
        }
        st = load_location(&w, &p->locs[l].plane);
        if (l == last) vwork_release_room(&w);
        if (!st) st = hs_pack(s->q, &w.out, &s->q->locs[ql].plane);
    }
    vwork_free(&w);
    return st;
}
