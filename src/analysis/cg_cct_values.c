/*
 * analysis/cg_cct_values.c — the values of the reconstructed tree
 * (cg_to_cct.c chose its nodes), and the tree as model contexts.
 *
 * Per part and per event with data there, one pass over the nodes in
 * index order (parents first) gives each node the share of its unit it
 * stands for: 1 at the part's root units, else its parent's share times
 * the arc's inclusive cost over all arcs into the unit (in that part, for
 * that event). Each function's self cost of that part and event is then
 * spread over its nodes in proportion to their shares: summed over its
 * contexts, every function keeps exactly its self cost. Where the data
 * gives a function no share at all (its arcs carry nothing of the event),
 * the shape's shares are used instead.
 *
 * With a threshold (cg_to_cct.c) nothing is spread: a node holds its
 * share of its function's self cost, and a "<below threshold>" node what
 * its parent holds (share x self cost and calls) beyond its built
 * children: every built node's inclusive value is exactly its share.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cg_cct.h"
#include "util/error.h"
#include "util/mapfile.h"
#include "util/vec.h"

/* A node's values, as (node, raw column id, value): the node's index
 * until lay_out() numbers the contexts. */
typedef struct tvals {
    pk_triple *v;
    uint64_t n;
    size_t cap;
} tvals;

/* Scratch of the passes: per node, function, unit and unit arc. */
typedef struct vpass {
    cgt *t;
    uint32_t *fval;           /* per node: the function whose self cost it holds, or PK_NONE */
    double *share, *sum;      /* per node; per function: shares of this pass */
    double *shape_sum;        /* per function: shape shares */
    uint32_t *n_of;           /* per function: its nodes */
    double *self, *arc;       /* per function; per unit arc: this pass's costs */
    double *in, *content;     /* per unit: what the arcs into it carry, what it holds */
    uint32_t *units, n_units; /* units with either */
    uint32_t *unit_mark;
    uint8_t *is_root;                  /* per node: a root of the part at hand */
    uint32_t *fns, n_fns;              /* functions with self cost in the pass */
    uint32_t *uas, n_uas;              /* unit arcs with cost in the pass */
    uint32_t *fn_mark, *ua_mark, pass; /* 1 + the pass that listed it */
    uint8_t *has_event;                /* per event: data in the part */
    double *own;                       /* per function: self cost and calls leaving its unit */
    double *held_fn, *held;            /* per function, unit: what its subtree really holds */
    double *area, *covered;            /* threshold only, per node: its cost; built children's */
    uint64_t *ss, *cs;                 /* records by part */
    uint32_t *sp, *cp;
} vpass;

static pk_status add_value(tvals *l, uint32_t ctx, uint32_t metric, double v)
{
    if (v == 0.0) return PK_OK;
    if (pk_vec_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v))
        return pk_fail_nomem("reconstructing values");
    l->v[l->n++] = (pk_triple){ctx, (uint16_t)PK_CG_RAW_EXCLUSIVE(metric), v}; /* < 4096 events */
    return PK_OK;
}

static void unit_add(vpass *s, uint32_t u, double in, double content)
{
    if (s->unit_mark[u] != s->pass) s->unit_mark[u] = s->pass, s->units[s->n_units++] = u;
    s->in[u] += in, s->content[u] += content;
}

/* This pass's costs: self per function, inclusive per unit arc, inflow
 * and content per unit (cg_roots.c). */
static void pass_costs(vpass *s, uint32_t k, uint32_t e)
{
    const cgt *t = s->t;
    const cg_graph *g = t->g;
    s->n_fns = s->n_uas = s->n_units = 0;
    for (uint64_t i = s->ss[k]; i < s->ss[k + 1]; i++) {
        uint32_t r = s->sp[i], f = t->cg->self[r].fn;
        double v = pk_cg_self_value(t->cg, r, e);
        if (f >= g->nf || v == 0.0) continue;
        if (s->fn_mark[f] != s->pass) s->fn_mark[f] = s->pass, s->fns[s->n_fns++] = f;
        s->self[f] += v, s->own[f] += v;
        unit_add(s, g->unit_of[f], 0.0, v);
    }
    for (uint64_t i = s->cs[k]; i < s->cs[k + 1]; i++) {
        uint32_t r = s->cp[i], a = g->ua_of_call[r];
        double v = a == PK_NONE ? 0.0 : pk_cg_call_value(t->cg, r, e);
        if (v == 0.0) continue;
        if (s->ua_mark[a] != s->pass) s->ua_mark[a] = s->pass, s->uas[s->n_uas++] = a;
        s->arc[a] += v;
        unit_add(s, g->ua_to[a], v, 0.0);
        unit_add(s, g->unit_of[g->ua_from[a]], 0.0, v);
        uint32_t f = g->ua_from[a];
        if (s->fn_mark[f] != s->pass) s->fn_mark[f] = s->pass, s->fns[s->n_fns++] = f;
        s->own[f] += v;
    }
}

/* The share of unit u that has no caller: all of it when no arc enters
 * it, else the part its content exceeds its inflow by (cg_roots.c). */
static double root_share(const vpass *s, uint32_t u)
{
    double in = s->in[u], c = s->content[u];
    if (in == 0.0) return 1.0;
    return c > in ? (c - in) / c : 0.0;
}

/* Shares of every node for the pass (see the top). */
static void pass_shares(vpass *s)
{
    const cgt *t = s->t;
    for (uint32_t n = 0; n < t->n_nodes; n++) {
        const tnode *d = &t->nodes[n];
        double sh;
        if (d->kind == TN_ROOT || d->kind == TN_ENTRY || d->kind == TN_REST)
            sh = 0;
        else if (d->kind == TN_MEMBER)
            sh = s->share[d->parent];
        else if (d->ua == PK_NONE)
            sh = s->is_root[n] ? root_share(s, d->unit) : 0.0;
        else {
            double in = s->in[d->unit], c = s->content[d->unit];
            double norm = in > 0 && c > in ? c : in;
            sh = norm != 0.0 ? s->share[d->parent] * s->arc[d->ua] / norm : 0.0;
        }
        s->share[n] = sh;
        if (s->fval[n] != PK_NONE) s->sum[s->fval[n]] += sh;
        if (!s->area) continue; /* no threshold: nothing reads what nodes cover */
        s->covered[n] = s->area[n] = 0;
        if (d->kind != TN_UNIT && d->kind != TN_MEMBER) continue;
        s->area[n] = sh * (s->fval[n] != PK_NONE ? s->held_fn[s->fval[n]] : s->held[d->unit]);
        s->covered[d->parent] += s->area[n];
    }
}

/* With a threshold: what the subtree of each function and unit really
 * holds, callees first: its self cost plus its callees' shares of what
 * they hold. Where arcs claim more than a callee holds, this is less than
 * the arcs say, and it is what the whole tree would show. */
static void held_costs(vpass *s)
{
    const cg_graph *g = s->t->g;
    for (uint32_t i = g->n_units; i-- > 0;) {
        uint32_t v = g->topo[i];
        double sum = 0;
        for (uint32_t k = g->mem_start[v]; k < g->mem_start[v + 1]; k++) {
            uint32_t m = g->members[k];
            double h = s->self[m];
            for (uint64_t a = g->out_start[m]; a < g->out_start[m + 1]; a++) {
                uint32_t w = g->ua_to[a];
                double in = s->in[w], c = s->content[w], norm = in > 0 && c > in ? c : in;
                if (norm != 0.0 && s->arc[a] != 0.0) h += s->arc[a] / norm * s->held[w];
            }
            s->held_fn[m] = h, sum += h;
        }
        s->held[v] = sum;
    }
}

/* What all children of node q hold, built or not: its cycle's members,
 * or the units its function calls (each child's share times what it
 * holds; where arcs claim more than a unit holds, what it holds). */
static double children_area(const vpass *s, uint32_t q)
{
    const cgt *t = s->t;
    const cg_graph *g = t->g;
    const tnode *d = &t->nodes[q];
    double sum = 0;
    if (d->kind == TN_UNIT && g->cycle_of[d->unit]) {
        for (uint32_t k = g->mem_start[d->unit]; k < g->mem_start[d->unit + 1]; k++)
            sum += s->share[q] * s->held_fn[g->members[k]];
        return sum;
    }
    for (uint64_t a = g->out_start[d->fn]; a < g->out_start[d->fn + 1]; a++) {
        uint32_t v = g->ua_to[a];
        double in = s->in[v], c = s->content[v], norm = in > 0 && c > in ? c : in;
        if (norm != 0.0) sum += s->share[q] * s->arc[a] / norm * s->held[v];
    }
    return sum;
}

/* With a threshold: every node its share of its self cost, "<below
 * threshold>" nodes what their parent's children hold beyond the built
 * ones. */
static pk_status emit_exact(vpass *s, uint32_t metric, tvals *out)
{
    const cgt *t = s->t;
    pk_status st = PK_OK;
    for (uint32_t n = 0; n < t->n_nodes && !st; n++) {
        const tnode *d = &t->nodes[n];
        uint32_t f = s->fval[n], q = d->parent;
        if (d->kind != TN_REST) {
            if (f != PK_NONE && s->self[f] != 0.0)
                st = add_value(out, n, metric, s->share[n] * s->self[f]);
            continue;
        }
        double rest = children_area(s, q) - s->covered[q];
        if (rest > 1e-12 * fabs(s->area[q])) st = add_value(out, n, metric, rest);
    }
    return st;
}

static pk_status pass_emit(vpass *s, uint32_t metric, tvals *out)
{
    const cgt *t = s->t;
    if (t->min_w > 0) return emit_exact(s, metric, out);
    pk_status st = PK_OK;
    for (uint32_t n = 0; n < t->n_nodes && !st; n++) {
        uint32_t f = s->fval[n];
        if (f == PK_NONE || s->self[f] == 0.0) continue;
        double w = s->sum[f] != 0.0         ? s->share[n] / s->sum[f]
                   : s->shape_sum[f] != 0.0 ? t->phi[n] / s->shape_sum[f]
                                            : 1.0 / s->n_of[f];
        st = add_value(out, n, metric, s->self[f] * w);
    }
    return st;
}

static void pass_reset(vpass *s)
{
    const cg_graph *g = s->t->g;
    for (uint32_t i = 0; i < s->n_fns; i++)
        s->self[s->fns[i]] = s->own[s->fns[i]] = 0;
    for (uint32_t i = 0; i < s->n_uas; i++)
        s->arc[s->uas[i]] = 0;
    for (uint32_t i = 0; i < s->n_units; i++)
        s->in[s->units[i]] = s->content[s->units[i]] = 0;
    for (uint32_t f = 0; f < g->nf; f++)
        s->sum[f] = 0;
    s->pass++;
}

/* Events with data in part k (their rows reach them). */
static void part_events(vpass *s, uint32_t k)
{
    const pk_cg *cg = s->t->cg;
    memset(s->has_event, 0, cg->n_events);
    for (uint64_t i = s->ss[k]; i < s->ss[k + 1]; i++) {
        pk_cg_row r = pk_cg_self_row(cg, s->sp[i]);
        for (uint32_t x = 0; x < r.n; x++)
            s->has_event[pk_cg_row_event(r, x)] |= r.v[x] != 0.0;
    }
}

static pk_status one_part(vpass *s, uint32_t k, tvals *out)
{
    const cgt *t = s->t;
    for (uint32_t r = 0; r < t->n_roots; r++)
        s->is_root[t->roots[r].node] |= t->roots[r].part == k;
    part_events(s, k);
    pk_status st = PK_OK;
    for (uint32_t e = 0; e < t->ne && !st; e++) {
        uint32_t m = t->cg->events[e].metric;
        if (!s->has_event[e] || m == PK_NONE) continue;
        pass_costs(s, k, e);
        if (t->min_w > 0) held_costs(s);
        pass_shares(s);
        st = pass_emit(s, m, out);
        pass_reset(s);
    }
    for (uint32_t r = 0; r < t->n_roots; r++)
        s->is_root[t->roots[r].node] = 0;
    return st;
}

/* ------------------------------------------------------------------ */
/* Contexts and planes                                                */
/* ------------------------------------------------------------------ */

static const char *entry_name(uint8_t entry)
{
    return entry == PK_ENTRY_MAIN         ? "main thread"
           : entry == PK_ENTRY_APP_THREAD ? "application thread"
                                          : "<no caller>";
}

static void fill_context(pk_ctx_rec *c, const tnode *d)
{
    if (d->kind == TN_ENTRY) {
        c->kind = PK_CTX_ENTRY, c->relation = PK_REL_NONE;
        c->entry = d->entry, c->entry_name = entry_name(d->entry);
    } else if (d->kind == TN_ROOT) {
        c->kind = PK_CTX_ROOT, c->relation = PK_REL_NONE;
    } else {
        c->kind = PK_CTX_FUNCTION, c->relation = PK_REL_CALL;
        c->function = d->fn, c->flags |= PK_CTXF_HAS_FUNCTION; /* "<below threshold>" too */
    }
    c->raw_kind = c->kind, c->raw_relation = c->relation, c->raw_entry = c->entry;
}

/* Contexts in breadth-first order (children consecutive), ids = indexes.
 * The walk notes each new context's parent and first child by their new
 * indexes, so the contexts are then written reading those in order: only
 * the node itself is looked up where it was built (looking parents and
 * children up by old index was a cache miss each, 12 % of cc1's tree). */
static pk_status lay_out(cgt *t, uint32_t *new_index)
{
    uint32_t n = t->n_nodes;
    uint32_t *start = pk_calloc_big((size_t)n + 2, sizeof *start),
             *kids = pk_malloc_big(((size_t)n + 1) * sizeof *kids),
             *order = pk_malloc_big(((size_t)n + 1) * sizeof *order),
             *up = pk_malloc_big(((size_t)n + 1) * sizeof *up),
             *first = pk_malloc_big(((size_t)n + 2) * sizeof *first);
    if (!start || !kids || !order || !up || !first) {
        free(start), free(kids), free(order), free(up), free(first);
        return pk_fail_nomem("laying out contexts");
    }
    for (uint32_t i = 1; i < n; i++)
        start[t->nodes[i].parent + 2]++;
    for (uint32_t i = 0; i < n; i++)
        start[i + 2] += start[i + 1];
    for (uint32_t i = 1; i < n; i++)
        kids[start[t->nodes[i].parent + 1]++] = i;
    uint32_t tail = 1;
    order[0] = 0, up[0] = PK_NONE;
    for (uint32_t h = 0; h < tail; h++) {
        first[h] = tail; /* h's children: new indexes [first[h], first[h + 1]) */
        for (uint32_t j = start[order[h]]; j < start[order[h] + 1]; j++)
            up[tail] = h, order[tail++] = kids[j];
    }
    first[tail] = tail;
    for (uint32_t i = 0; i < tail; i++)
        new_index[order[i]] = i;
    pk_status st = pk_model_reserve_contexts(t->p, tail);
    for (uint32_t i = 0; i < tail && !st; i++) {
        const tnode *d = &t->nodes[order[i]];
        if (i + 16 < tail) __builtin_prefetch(&t->nodes[order[i + 16]]); /* known ahead */
        pk_ctx_rec *c;
        uint32_t idx;
        st = pk_model_add_context(t->p, &c, &idx);
        if (st) break;
        c->id = idx;
        c->parent = up[i];
        c->depth = i ? t->p->ctx[c->parent].depth + 1 : 0;
        c->n_children = first[i + 1] - first[i];
        c->first_child = c->n_children ? first[i] : PK_NONE;
        fill_context(c, d);
    }
    free(start), free(kids), free(order), free(up), free(first);
    return st ? st : pk_model_index_contexts(t->p);
}

/* Location l's plane from its list: one value per (context, metric),
 * since a node holds one function's self cost. */
static pk_status make_plane(pk_profile *p, uint32_t l, tvals *list, const uint32_t *new_index)
{
    for (uint64_t i = 0; i < list->n; i++)
        list->v[i].ctx = new_index[list->v[i].ctx];
    return pk_plane_pack(p, NULL, list->v, list->n, &p->locs[l].plane);
}

/* ------------------------------------------------------------------ */

static pk_status vpass_init(vpass *s, cgt *t)
{
    const cg_graph *g = t->g;
    size_t nn = (size_t)t->n_nodes + 1, nf = (size_t)g->nf + 1, na = g->n_ua + 1;
    memset(s, 0, sizeof *s);
    s->t = t, s->pass = 1;
    s->fval = pk_malloc_big(nn * 4), s->share = pk_malloc_big(nn * 8);
    s->is_root = pk_calloc_big(nn, 1);
    if (t->min_w > 0) /* only a threshold's "<below threshold>" nodes need them */
        s->area = pk_malloc_big(nn * 8), s->covered = pk_malloc_big(nn * 8);
    s->own = calloc(nf, 8);
    s->held_fn = calloc(nf, 8), s->held = calloc((size_t)g->n_units + 1, 8);
    s->sum = calloc(nf, 8), s->shape_sum = calloc(nf, 8), s->n_of = calloc(nf, 4);
    s->self = calloc(nf, 8), s->fns = malloc(nf * 4), s->fn_mark = calloc(nf, 4);
    s->arc = calloc(na, 8), s->uas = malloc(na * 4), s->ua_mark = calloc(na, 4);
    size_t nu = (size_t)g->n_units + 1;
    s->in = calloc(nu, 8), s->content = calloc(nu, 8), s->units = malloc(nu * 4);
    s->unit_mark = calloc(nu, 4), s->has_event = malloc((size_t)t->ne + 1);
    if (!s->fval || !s->share || !s->is_root || !s->sum || !s->shape_sum || !s->n_of || !s->self ||
        !s->fns || !s->fn_mark || !s->arc || !s->uas || !s->ua_mark || !s->in || !s->content ||
        !s->units || !s->unit_mark || !s->has_event ||
        (t->min_w > 0 && (!s->area || !s->covered)) || !s->own || !s->held_fn || !s->held)
        return pk_fail_nomem("reconstructing values");
    for (uint32_t n = 0; n < t->n_nodes; n++) {
        const tnode *d = &t->nodes[n];
        int holds = d->kind == TN_MEMBER || (d->kind == TN_UNIT && !g->cycle_of[d->unit]);
        s->fval[n] = holds ? g->members[g->mem_start[d->unit]] : PK_NONE;
        if (d->kind == TN_MEMBER) s->fval[n] = d->fn;
        if (s->fval[n] == PK_NONE) continue;
        s->shape_sum[s->fval[n]] += t->phi[n];
        s->n_of[s->fval[n]]++;
    }
    return PK_OK;
}

static void vpass_free(vpass *s)
{
    free(s->fval), free(s->share), free(s->is_root), free(s->sum), free(s->shape_sum);
    free(s->n_of), free(s->self), free(s->fns), free(s->fn_mark), free(s->arc), free(s->uas);
    free(s->ua_mark), free(s->in), free(s->content), free(s->units), free(s->unit_mark);
    free(s->has_event), free(s->area), free(s->covered), free(s->own), free(s->held_fn);
    free(s->held);
    free(s->ss), free(s->cs), free(s->sp), free(s->cp);
    memset(s, 0, sizeof *s); /* freed once, whichever call comes first */
}

/* After the last part's values: the passes' scratch and the nodes (58
 * bytes a node) go before its plane is packed, which on a one-part file
 * (most) was the reconstruction's peak (cc1: 34 MB of them beside a 13
 * MB plane). Only the value list and the new indexes are read after. */
static void free_before_last_plane(vpass *s, cgt *t)
{
    vpass_free(s);
    cgt_drop_nodes(t);
}

pk_status cgt_values(cgt *t)
{
    const pk_cg *cg = t->cg;
    vpass s;
    tvals list = {0};
    uint32_t *new_index = NULL;
    pk_status st = vpass_init(&s, t);
    if (!st) st = pk_cg_by_part(cg->self, sizeof *cg->self, cg->n_self, cg->n_parts, &s.ss, &s.sp);
    if (!st)
        st = pk_cg_by_part(cg->calls, sizeof *cg->calls, cg->n_calls, cg->n_parts, &s.cs, &s.cp);
    if (!st && !(new_index = pk_malloc_big(((size_t)t->n_nodes + 1) * sizeof *new_index)))
        st = pk_fail_nomem("laying out contexts");
    if (!st) st = lay_out(t, new_index);
    for (uint32_t k = 0; k < cg->n_parts && !st; k++) {
        list.n = 0;
        st = one_part(&s, k, &list);
        if (k + 1 == cg->n_parts) free_before_last_plane(&s, t);
        if (!st) st = make_plane(t->p, cg->parts[k].location, &list, new_index);
        if (st == PK_ERR_NOMEM) st = pk_fail_nomem("reconstructing values");
    }
    free(list.v), free(new_index);
    vpass_free(&s);
    return st;
}
