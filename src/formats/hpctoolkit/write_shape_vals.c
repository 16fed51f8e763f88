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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/bytes.h"
#include "util/radix.h"
#include "util/vec.h"
#include "write_shape.h"

/* A location of this many values or more keeps its plain values in its
 * plane while shaped (plain_next): copied out as triples they would sit
 * beside the plane packed from them, 16 bytes each, at most 32 MB here.
 * A smaller one copies them once, since each pass over the plane costs
 * more than one over the triples: converting a 513 MB Cube file of 640
 * locations took 7 % more CPU with every location's values in its plane,
 * and cc1's Callgrind file (one location of 603,672 values) 262 M more
 * instructions (7 %) than with its 9.6 MB of triples copied out (peak 135
 * -> 144 MB; issue 33's bound for it is 157). */
#define IN_PLANE_VALUES (1u << 21)

typedef struct vwork {
    hk_shape *s;
    const pk_plane *plain;   /* this location's source plane if it keeps its values (or NULL) */
    uint64_t plain_mix;      /* what the first pass over them took */
    int plain_mixed;         /* a pass has been made */
    hs_triples out;          /* its other values; ctx holds the shaped index */
    uint32_t n_der;          /* derived columns */
    uint32_t *der_col;       /* their shaped columns */
    hs_triples *der_in;      /* the stored values each derives from */
    uint32_t *dhead, *dnext; /* source column -> derived columns using it */
    uint32_t *parent;        /* per shaped context, its parent: the passes below read
                              * little else of a context, and 4 bytes a context stay in
                              * cache where the whole records (72) do not */
    double *acc;             /* per shaped context */
    unsigned char *mark;     /* 1: in the working set; 2: has an input value */
    uint32_t *set, n_set;
    uint64_t *keys; /* sorting room for set, grown as sorts need it */
    size_t keys_cap;
    /* Contexts by depth, when their indexes already are (a tree laid out
     * breadth first): depth d's are [level[d], level[d + 1]). NULL: not. */
    uint32_t *level, n_levels;
    /* Per shaped column, sums into the added entry (edge[0]) and into
     * the root (edge[1]): see fill_edges(). */
    double *edge[2];
    unsigned char *edge_set[2];
} vwork;

/* Room for `more` triples in t: asked for at once, a big location's
 * derived values are not copied again at each doubling. */
static pk_status hs_reserve(hs_triples *t, size_t more)
{
    if (more > SIZE_MAX - t->n ||
        pk_vec_reserve((void **)&t->t, &t->cap, t->n + more, sizeof *t->t))
        return pk_fail_nomem("shaping values");
    return PK_OK;
}

pk_status hs_push(hs_triples *t, uint32_t ctx, uint32_t col, double v)
{
    if (v == 0) return PK_OK;
    pk_status st = hs_reserve(t, 1);
    if (st) return st;
    t->t[t->n++] = (pk_triple){ctx, (uint16_t)col, v};
    return PK_OK;
}

/* A source location's values the shaped one keeps as they are, read
 * from its plane in order as triples (shaped context index, or its id
 * with `ids`), never copied out: held as triples beside the plane they
 * are packed into, they were a conversion's peak (cc1: 9.6 MB).
 *
 * The plane is read several times, and it may be a mapping of the input,
 * which another program can change meanwhile: each pass mixes every
 * value it takes (where, what and its bits), and the passes of a location
 * must agree (plain_same) before what they made is used. */
typedef struct plain_iter {
    const hk_shape *s;
    const pk_plane *pl; /* NULL: none */
    int ids;
    uint32_t k, ctx; /* the next index entry; the current one's context */
    uint64_t v, e;   /* the current one's values left */
    uint64_t mix;    /* of the values taken so far */
} plain_iter;

static plain_iter plain_values(const hk_shape *s, const pk_plane *pl, int ids)
{
    return (plain_iter){s, pl, ids, 0, 0, 0, 0, 0};
}

static uint64_t mix_value(uint64_t mix, uint64_t at, const unsigned char *rec)
{
    uint64_t x = (at * 0x9E3779B97F4A7C15ull) ^ pk_le64(rec + 2) ^ ((uint64_t)pk_le16(rec) << 47);
    return (mix ^ x) * 0x100000001B3ull + (x >> 29);
}

/* The next kept value: a known context's, of a column the shaped
 * profile holds as it is, not 0 (as hs_push keeps). 0 at the end. */
static int plain_next(plain_iter *it, pk_triple *out)
{
    const hk_shape *s = it->s;
    const pk_plane *pl = it->pl;
    for (;;) {
        while (it->v < it->e) {
            uint64_t at = it->v++;
            const unsigned char *r = pl->vals + at * PK_LM_VAL_SIZE;
            uint32_t pc = pk_model_col_of(s->p, 0, pk_le16(r));
            uint32_t qc = pc == PK_NONE ? PK_NONE : s->qcol_of_pcol[pc];
            double v = pk_le_f64(r + 2);
            if (qc == PK_NONE || v == 0) continue;
            it->mix = mix_value(it->mix, at, r);
            *out = (pk_triple){it->ctx, (uint16_t)s->q->columns[qc].raw_id, v};
            return 1;
        }
        if (!pl || it->k >= pl->nidx) return 0;
        const unsigned char *x = pl->idx + (uint64_t)it->k * PK_LM_IDX_SIZE;
        uint32_t id = pk_le32(x), pi = pk_model_ctx_find(s->p, id);
        uint64_t e = it->k + 1 < pl->nidx ? pk_le64(x + 4 + PK_LM_IDX_SIZE) : pl->nvals;
        it->k++;
        if (pi == PK_NONE) continue; /* an id the source does not define (it warned) */
        if (!it->ids)
            it->ctx = s->q_of_p[pi];
        else /* kept ids: the shaped context's is the source's (hs_contexts()) */
            it->ctx = s->renumbered ? (uint32_t)s->q->ctx[s->q_of_p[pi]].id : id;
        it->v = pk_le64(x + 4), it->e = e < pl->nvals ? e : pl->nvals;
    }
}

/* The stream's values (keyed by id already), then t's, whose shaped
 * context indexes become ids here: the plane is keyed by ids. */
static pk_status pack_by_id(pk_profile *q, const pk_triple_stream *s, hs_triples *t, pk_plane *out)
{
    for (size_t i = 0; i < t->n; i++)
        t->t[i].ctx = (uint32_t)q->ctx[t->t[i].ctx].id;
    pk_status st = pk_plane_pack(q, s, t->t, t->n, out);
    t->n = 0;
    return st;
}

pk_status hs_pack(pk_profile *q, hs_triples *t, pk_plane *out)
{
    return pack_by_id(q, NULL, t, out);
}

static uint32_t up(const vwork *w, uint32_t c)
{
    return c < w->s->q->n_ctx ? w->parent[c] : PK_NONE;
}

static void touch(vwork *w, uint32_t c)
{
    if (w->mark[c]) return;
    w->mark[c] = 1;
    w->acc[c] = 0;
    w->set[w->n_set++] = c;
}

/* Depth by depth, deepest first, each depth's in index order: a scan of
 * every context, which costs less than a sort once the set holds a good
 * part of them (one location of a call graph's tree holds nearly all),
 * and needs no sorting room (cc1's conversion: 9.6 MB at its peak). */
static void deepest_first_by_levels(vwork *w)
{
    uint32_t k = 0;
    for (uint32_t d = w->n_levels; d-- > 0;)
        for (uint32_t c = w->level[d]; c < w->level[d + 1]; c++)
            if (w->mark[c]) w->set[k++] = c; /* marked: in the set */
}

/* w->set ordered deepest first (by index within a depth), so each child
 * comes before its parent and a parent takes its children's values in
 * the same order, whichever way the order is made. */
static pk_status deepest_first(vwork *w)
{
    const pk_ctx_rec *ctx = w->s->q->ctx;
    if (w->level && w->n_set >= w->s->q->n_ctx / 16) {
        deepest_first_by_levels(w);
        return PK_OK;
    }
    if (pk_vec_reserve((void **)&w->keys, &w->keys_cap, 2 * (size_t)w->n_set + 1, sizeof *w->keys))
        return pk_fail_nomem("shaping values");
    for (uint32_t i = 0; i < w->n_set; i++)
        w->keys[i] = (uint64_t)(UINT32_MAX - ctx[w->set[i]].depth) << 32 | w->set[i];
    pk_radix_sort_u64(w->keys, w->keys + w->n_set, w->n_set, 0); /* keys are unique */
    for (uint32_t i = 0; i < w->n_set; i++)
        w->set[i] = (uint32_t)w->keys[i];
    return PK_OK;
}

/* w->level when q's contexts are in depth order (NULL otherwise). */
static pk_status find_levels(vwork *w)
{
    const pk_profile *q = w->s->q;
    uint32_t depth = 0;
    for (uint32_t c = 0; c < q->n_ctx; c++) {
        if (q->ctx[c].depth < depth || q->ctx[c].depth > depth + 1 || q->ctx[c].depth >= q->n_ctx)
            return PK_OK; /* not breadth first (or a depth from nowhere): sorted */
        depth = q->ctx[c].depth;
    }
    w->n_levels = q->n_ctx ? depth + 1 : 0;
    w->level = malloc(((size_t)w->n_levels + 1) * sizeof *w->level);
    if (!w->level) return pk_fail_nomem("shaping values");
    for (uint32_t c = 0, d = 0; c < q->n_ctx; c++)
        while (d <= q->ctx[c].depth)
            w->level[d++] = c;
    w->level[w->n_levels] = q->n_ctx;
    return PK_OK;
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
        uint32_t par = up(w, c);
        if (par == w->s->entry) par = 0; /* the added entry has no value of its own */
        if (par != PK_NONE && w->mark[par] == 2) w->acc[par] -= in->t[i].v;
    }
    if (clamp)
        for (uint32_t i = 0; i < w->n_set; i++)
            if (w->acc[w->set[i]] < 0) w->acc[w->set[i]] = 0;
}

/* Point values in w->acc become the column's values, bottom-up. */
static pk_status spread(vwork *w, int inclusive, pk_combine cb)
{
    const pk_profile *q = w->s->q;
    for (uint32_t i = 0, n = w->n_set; i < n; i++) /* the ancestors it reaches */
        for (uint32_t c = w->set[i], par; (par = up(w, c)) != PK_NONE; c = par) {
            if (!inclusive && q->ctx[c].relation != PK_REL_LEXICAL) break;
            if (w->mark[par]) break;
            touch(w, par);
            w->mark[par] = 3; /* no point value of its own */
        }
    pk_status st = deepest_first(w);
    if (st) return st;
    for (uint32_t i = 0; i < w->n_set; i++) {
        uint32_t c = w->set[i], par = up(w, c);
        if (par == PK_NONE || (!inclusive && q->ctx[c].relation != PK_REL_LEXICAL)) continue;
        double *a = &w->acc[par], v = w->acc[c];
        if (cb == PK_COMBINE_SUM)
            *a += v;
        else if (w->mark[par] == 3) /* nothing combined into it yet */
            *a = v, w->mark[par] = 4;
        else if (cb == PK_COMBINE_MIN ? v < *a : v > *a)
            *a = v;
    }
    return PK_OK;
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
    pk_status st = spread(w, src->kind == PK_SCOPE_INCLUSIVE, cb);
    if (!st) st = hs_reserve(&w->out, w->n_set);
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

/* A pass over the location's plain values took what the first one did. */
static pk_status plain_same(vwork *w, uint64_t mix)
{
    if (!w->plain_mixed) w->plain_mix = mix, w->plain_mixed = 1;
    if (mix == w->plain_mix) return PK_OK;
    const char *path = w->s->p->path;
    return pk_fail(PK_ERR_FORMAT,
                   "%s: a location's values changed while they were shaped for writing (the "
                   "input changed while it was read): nothing written",
                   path ? path : "the profile");
}

/* One value's part in the edge sums: into the added entry point
 * (target[0]) and into the root (target[1]), each unless PK_NONE. */
static void edge_take(vwork *w, const uint32_t target[2], const pk_triple *t)
{
    const hk_shape *s = w->s;
    const pk_profile *q = s->q;
    uint32_t par = up(w, t->ctx);
    for (int k = 0; k < 2; k++) {
        if (target[k] == PK_NONE || (t->ctx != target[k] && par != target[k])) continue;
        uint32_t qc = pk_model_col_of(q, 0, t->col);
        if (qc == PK_NONE || s->col[qc].source != HS_STORED ||
            s->col[qc].kind != PK_SCOPE_INCLUSIVE || w->edge_set[k][qc] == 2)
            continue;
        if (t->ctx == target[k])
            w->edge_set[k][qc] = 2; /* the source has it: kept */
        else
            combine_into(&w->edge[k][qc], &w->edge_set[k][qc],
                         s->p->metrics[q->columns[qc].metric].combine, t->v);
    }
}

/* The sums into target k that the source lacks, as its values. */
static pk_status push_edges(vwork *w, int k, uint32_t target)
{
    const pk_profile *q = w->s->q;
    pk_status st = PK_OK;
    for (uint32_t qc = 0; qc < q->n_columns && !st; qc++)
        if (w->edge_set[k][qc] == 1)
            st = hs_push(&w->out, target, q->columns[qc].raw_id, w->edge[k][qc]);
    return st;
}

/* Values of the writer's entry point, then of a root the source left
 * without, for stored inclusive columns: their children's, combined
 * (the plain values first, then the others; the root's take the entry
 * point's last). Both come from one pass over the values. */
static pk_status fill_edges(vwork *w)
{
    hk_shape *s = w->s;
    uint32_t target[2] = {s->entry, 0}, root_only[2] = {PK_NONE, 0};
    for (int k = 0; k < 2; k++)
        memset(w->edge_set[k], 0, s->q->n_columns);
    pk_triple t;
    plain_iter it = plain_values(s, w->plain, 0);
    while (plain_next(&it, &t))
        edge_take(w, target, &t);
    pk_status st = plain_same(w, it.mix);
    size_t before = w->out.n;
    for (size_t i = 0; i < before && !st; i++)
        edge_take(w, target, &w->out.t[i]);
    if (!st && s->entry != PK_NONE) st = push_edges(w, 0, s->entry);
    for (size_t i = before; i < w->out.n && !st; i++) /* the entry point's, just pushed */
        edge_take(w, root_only, &w->out.t[i]);
    return st ? st : push_edges(w, 1, 0);
}

/* One source location's values, shaped: those kept as they are stay in
 * a big location's plane (w->plain), the others go into w->out. */
static pk_status load_location(vwork *w, const pk_plane *pl)
{
    hk_shape *s = w->s;
    const pk_profile *p = s->p;
    pk_status st = PK_OK;
    uint64_t mix = 0; /* of the values plain_next() takes: the first pass */
    uint64_t from = p->shape_in_plane_values ? p->shape_in_plane_values : IN_PLANE_VALUES;
    w->plain = pl->nvals >= from ? pl : NULL, w->plain_mixed = 0;
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
            if (qc != PK_NONE && !w->plain)
                st = hs_push(&w->out, qi, s->q->columns[qc].raw_id, val);
            if (qc != PK_NONE && w->plain && val != 0) mix = mix_value(mix, v, r);
            for (uint32_t d = w->dhead[pc]; d != PK_NONE && !st; d = w->dnext[d])
                st = hs_push(&w->der_in[d], qi, 0, val);
        }
    }
    if (!st) st = plain_same(w, mix);
    for (uint32_t d = 0; d < w->n_der && !st; d++)
        st = derive_column(w, d);
    for (uint32_t d = 0; d < w->n_der; d++) /* read: their memory goes back now */
        free(w->der_in[d].t), w->der_in[d] = (hs_triples){0};
    return st ? st : fill_edges(w);
}

/* A big location's plain values as pk_plane_pack() reads them: once per
 * pass, each whole pass taking what the first one did (plain_same). */
typedef struct plain_stream {
    vwork *w;
    plain_iter it;
    int passes;
} plain_stream;

static int plain_stream_next(void *user, pk_triple *out)
{
    return plain_next(&((plain_stream *)user)->it, out);
}

static pk_status plain_stream_done(void *user)
{
    plain_stream *ps = user;
    const hk_shape *s = ps->w->s;
    pk_status st = plain_same(ps->w, ps->it.mix);
    if (ps->passes++ == 0 && s->p->shape_between_passes)
        s->p->shape_between_passes(s->p); /* tests: the input changes */
    ps->it = plain_values(s, ps->w->plain, 1);
    return st;
}

/* The location's plane: its plain values, then w->out's, keyed by the
 * shaped contexts' ids. */
static pk_status pack_location(vwork *w, pk_plane *out)
{
    plain_stream ps = {w, plain_values(w->s, w->plain, 1), 0};
    pk_triple_stream stream = {&ps, plain_stream_next, plain_stream_done};
    return pack_by_id(w->s->q, &stream, &w->out, out);
}

/* The per-context room of derivations, once no location needs it more:
 * freed before the last location's values are packed (a big profile's
 * peak). vwork_free() frees the rest. */
static void vwork_release_room(vwork *w)
{
    free(w->parent), free(w->acc), free(w->mark), free(w->set), free(w->keys), free(w->level);
    w->parent = NULL, w->acc = NULL, w->mark = NULL, w->set = NULL, w->keys = NULL;
    w->level = NULL;
    w->keys_cap = 0;
}

static void vwork_free(vwork *w)
{
    for (uint32_t d = 0; d < w->n_der; d++)
        free(w->der_in[d].t);
    free(w->der_in);
    free(w->der_col);
    free(w->dhead);
    free(w->dnext);
    free(w->parent);
    free(w->acc);
    free(w->mark);
    free(w->set);
    free(w->keys);
    free(w->level);
    for (int k = 0; k < 2; k++)
        free(w->edge[k]), free(w->edge_set[k]);
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
    }
    w->parent = malloc(n * sizeof *w->parent);
    for (int k = 0; k < 2; k++) {
        w->edge[k] = malloc(((size_t)q->n_columns + 1) * sizeof *w->edge[k]);
        w->edge_set[k] = malloc((size_t)q->n_columns + 1);
    }
    if (!w->der_col || !w->der_in || !w->dhead || !w->dnext || !w->parent || !w->edge[0] ||
        !w->edge[1] || !w->edge_set[0] || !w->edge_set[1] ||
        (w->n_der && (!w->acc || !w->mark || !w->set)))
        return pk_fail_nomem("shaping values");
    for (uint32_t c = 0; c < q->n_ctx; c++)
        w->parent[c] = q->ctx[c].parent;
    if (w->n_der) {
        pk_status st = find_levels(w);
        if (st) return st;
    }
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
 * (so that fill_edges() would add nothing)? w->edge_set[1] marks the root's. */
static int root_complete(vwork *w, const pk_plane *pl)
{
    const pk_profile *q = w->s->q;
    uint64_t b, e;
    unsigned char *has = w->edge_set[1];
    memset(has, 0, q->n_columns);
    if (hs_values_at(pl, 0, &b, &e))
        for (uint64_t v = b; v < e; v++) {
            uint32_t qc = pk_model_col_of(q, 0, pk_le16(pl->vals + v * PK_LM_VAL_SIZE));
            if (qc != PK_NONE) has[qc] = 1;
        }
    const pk_ctx_rec *root = &q->ctx[0];
    for (uint32_t k = 0; k < root->n_children; k++) {
        if (!hs_values_at(pl, (uint32_t)q->ctx[root->first_child + k].id, &b, &e)) continue;
        for (uint64_t v = b; v < e; v++) {
            uint32_t qc = pk_model_col_of(q, 0, pk_le16(pl->vals + v * PK_LM_VAL_SIZE));
            if (qc != PK_NONE && w->s->col[qc].kind == PK_SCOPE_INCLUSIVE && !has[qc]) return 0;
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
        if (!st) st = pack_location(&w, &s->q->locs[ql].plane);
    }
    vwork_free(&w);
    return st;
}
