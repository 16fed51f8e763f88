/*
 * analysis/cg_to_cct.c — an approximate calling-context tree from a call
 * graph (Callgrind), so that every tree-based question and writer works on
 * it. The profile is flagged `reconstructed` and outputs say so.
 *
 * Per part, from the functions nobody calls, the tree follows call arcs
 * depth-first. A callee reached through arc e gets the share
 * I(e) / (sum of I over the callee's incoming arcs) of its parent's share,
 * per event (I = the arc's inclusive cost), so a function's cost is split
 * over its callers in proportion to what they spent calling it — the only
 * information a call graph has (speedscope and gprof2dot make the same
 * assumption). A function already on the path is not entered again: that
 * breaks cycles, and its cost is already inside the outer call. Arcs that
 * carry nothing are left out, and if the tree would grow past a budget the
 * smallest arcs are pruned. Finally each function's self cost is spread
 * over the nodes it got, in proportion to their shares, normalised so the
 * shares sum to one: every function keeps exactly its self cost (functions
 * the walk never reached hang under the entry), so totals are exact even
 * where the shape is a guess. Names written with --separate-callers
 * (fn'caller'caller2) are distinct functions with their own arcs, so the
 * context they record is kept exactly.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cg_model.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/kmap.h"
#include "util/vec.h"

typedef struct tnode {
    uint32_t parent, fn, file, line;
    uint64_t instr;
    uint8_t kind, rel, entry;
} tnode;

typedef struct tval {
    uint32_t ctx, metric;
    double v;
} tval;

typedef struct fnode {
    uint32_t node, next;
} fnode;

typedef struct frame {
    uint32_t fn, node;
    uint64_t it, end;
} frame;

typedef struct rc {
    pk_profile *p;
    const pk_cg *cg;
    uint32_t ne, nf, prim, pos;
    tnode *nodes;
    uint32_t n_nodes;
    size_t cap_nodes;
    uint32_t *slots; /* child index */
    size_t cap_slots;
    /* per part, by function */
    uint64_t *out_start, *self_start;
    uint32_t *out_perm, *self_perm;
    double *norm;
    uint8_t *has_in, *on_path;
    uint32_t *head; /* first fnode of each function, PK_NONE */
    fnode *fn_nodes;
    double *ratio; /* ne per fnode */
    uint32_t n_fn_nodes;
    size_t cap_fn_nodes, cap_ratio;
    frame *stack;
    double *stack_ratio;
    size_t cap_stack, cap_stack_ratio;
    uint64_t budget, count;
    double thr;
    int dry;
    tval *vals;
    uint64_t n_vals;
    size_t cap_vals;
} rc;

static uint64_t node_hash(uint32_t parent, uint8_t kind, uint32_t fn, uint32_t file, uint32_t line,
                          uint64_t instr)
{
    uint64_t h = ((uint64_t)parent << 8 | kind) * 0x9e3779b97f4a7c15ull;
    h = (h ^ ((uint64_t)fn << 32 | file)) * 0xff51afd7ed558ccdull;
    h = (h ^ line ^ (instr << 20) ^ (instr >> 44)) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 29);
}

static int same_node(const tnode *t, uint32_t parent, uint8_t kind, uint32_t fn, uint32_t file,
                     uint32_t line, uint64_t instr)
{
    return t->parent == parent && t->kind == kind && t->fn == fn && t->file == file &&
           t->line == line && t->instr == instr;
}

/* The child index: node indexes in an open-addressing table, keys read
 * from the nodes themselves (4 bytes a slot). */
static pk_status grow_index(rc *r)
{
    size_t cap = r->cap_slots ? r->cap_slots * 2 : 1024;
    uint32_t *s = malloc(cap * sizeof *s);
    if (!s) return pk_fail_nomem("reconstructing the calling-context tree");
    memset(s, 0xff, cap * sizeof *s);
    for (uint32_t i = 0; i < r->n_nodes; i++) {
        const tnode *t = &r->nodes[i];
        size_t j = node_hash(t->parent, t->kind, t->fn, t->file, t->line, t->instr) & (cap - 1);
        while (s[j] != PK_NONE)
            j = (j + 1) & (cap - 1);
        s[j] = i;
    }
    free(r->slots);
    r->slots = s, r->cap_slots = cap;
    return PK_OK;
}

static pk_status node_at(rc *r, uint32_t parent, uint8_t kind, uint8_t rel, uint32_t fn,
                         uint32_t file, uint32_t line, uint64_t instr, uint32_t *out)
{
    if ((size_t)(r->n_nodes + 1) * 2 > r->cap_slots) {
        pk_status st = grow_index(r);
        if (st) return st;
    }
    size_t mask = r->cap_slots - 1, j = node_hash(parent, kind, fn, file, line, instr) & mask;
    for (; r->slots[j] != PK_NONE; j = (j + 1) & mask)
        if (same_node(&r->nodes[r->slots[j]], parent, kind, fn, file, line, instr)) {
            *out = r->slots[j];
            return PK_OK;
        }
    if (r->n_nodes >= PK_NONE - 2)
        return pk_fail(PK_ERR_FORMAT, "the reconstructed tree is too large");
    if (pk_vec_reserve((void **)&r->nodes, &r->cap_nodes, r->n_nodes + 1u, sizeof *r->nodes))
        return pk_fail_nomem("reconstructing the calling-context tree");
    r->nodes[r->n_nodes] = (tnode){parent, fn, file, line, instr, kind, rel, 0};
    r->slots[j] = *out = r->n_nodes++;
    return PK_OK;
}

/* The position context of (file, line, instr) under function node n. */
static pk_status position_node(rc *r, uint32_t n, uint32_t file, uint32_t line, uint64_t instr,
                               uint32_t *out)
{
    *out = n;
    pk_status st = PK_OK;
    if (r->pos & PK_POS_LINE)
        st = node_at(r, n, PK_CTX_LINE, PK_REL_LEXICAL, PK_NONE, file, line, 0, out);
    if (!st && (r->pos & (PK_POS_INSTR | PK_POS_BB)))
        st = node_at(r, *out, PK_CTX_INSTRUCTION, PK_REL_LEXICAL, PK_NONE, file, line, instr, out);
    return st;
}

static pk_status add_value(rc *r, uint32_t ctx, uint32_t metric, double v)
{
    if (v == 0.0) return PK_OK;
    if (pk_vec_reserve((void **)&r->vals, &r->cap_vals, r->n_vals + 1, sizeof *r->vals))
        return pk_fail_nomem("reconstructing values");
    r->vals[r->n_vals++] = (tval){ctx, metric, v};
    return PK_OK;
}

/* Remember that function f got node n with share `share` (ne values). */
static pk_status note_fnode(rc *r, uint32_t f, uint32_t n, const double *share)
{
    uint32_t i = r->n_fn_nodes;
    if (pk_vec_reserve((void **)&r->fn_nodes, &r->cap_fn_nodes, i + 1u, sizeof *r->fn_nodes) ||
        pk_vec_reserve((void **)&r->ratio, &r->cap_ratio, ((size_t)i + 1) * r->ne,
                       sizeof *r->ratio))
        return pk_fail_nomem("reconstructing the calling-context tree");
    r->fn_nodes[i] = (fnode){n, r->head[f]};
    memcpy(r->ratio + (size_t)i * r->ne, share, r->ne * sizeof *share);
    r->head[f] = i;
    r->n_fn_nodes++;
    return PK_OK;
}

/* Cost of function f's node and its positions, for the dry run. */
static uint64_t node_cost(const rc *r, uint32_t f)
{
    return 1 + (r->self_start[f + 1] - r->self_start[f]) + (r->out_start[f + 1] - r->out_start[f]);
}

/* Share of a callee reached through call c from a caller with `share`. */
static int child_share(const rc *r, const double *share, uint64_t c, double *out)
{
    const pk_cg_call_rec *call = &r->cg->calls[c];
    const double *inc = r->cg->call_cost + c * r->ne,
                 *norm = r->norm + (size_t)call->callee * r->ne;
    double w = share[r->prim] * inc[r->prim];
    if (!(fabs(w) > r->thr) || norm[r->prim] == 0.0) return 0;
    double prim = share[r->prim] * inc[r->prim] / norm[r->prim];
    for (uint32_t k = 0; k < r->ne; k++)
        out[k] = norm[k] != 0.0 ? share[k] * inc[k] / norm[k] : prim;
    return 1;
}

static pk_status push(rc *r, size_t sp, uint32_t f, uint32_t node)
{
    if (pk_vec_reserve((void **)&r->stack, &r->cap_stack, sp + 1, sizeof *r->stack) ||
        pk_vec_reserve((void **)&r->stack_ratio, &r->cap_stack_ratio, (sp + 2) * r->ne,
                       sizeof *r->stack_ratio))
        return pk_fail_nomem("reconstructing the calling-context tree");
    r->stack[sp] = (frame){f, node, r->out_start[f], r->out_start[f + 1]};
    r->on_path[f] = 1;
    return PK_OK;
}

/* Follow one call from the frame on top: the callee's node and frame. */
static pk_status descend(rc *r, size_t *sp, uint64_t c)
{
    const pk_cg_call_rec *call = &r->cg->calls[c];
    frame *fr = &r->stack[*sp - 1];
    uint32_t g = call->callee, site = fr->node, n = PK_NONE;
    double *share = r->stack_ratio + (*sp - 1) * r->ne, *child = share + r->ne;
    if (g == fr->fn || r->on_path[g] || !child_share(r, share, c, child)) return PK_OK;
    pk_status st = PK_OK;
    if (r->dry) {
        r->count += node_cost(r, g) + 1;
        if (r->count > r->budget) return PK_OK;
    } else {
        if (r->pos) st = position_node(r, fr->node, call->file, call->line, call->instr, &site);
        if (!st) st = node_at(r, site, PK_CTX_FUNCTION, PK_REL_CALL, g, PK_NONE, 0, 0, &n);
        if (!st) st = note_fnode(r, g, n, child);
    }
    if (!st) st = push(r, *sp, g, n);
    if (!st) ++*sp;
    return st;
}

/* Depth-first from root function f (share 1) under entry node `entry`. */
static pk_status walk(rc *r, uint32_t f, uint32_t entry)
{
    uint32_t n = PK_NONE;
    pk_status st = PK_OK;
    if (r->dry)
        r->count += node_cost(r, f);
    else
        st = node_at(r, entry, PK_CTX_FUNCTION, PK_REL_CALL, f, PK_NONE, 0, 0, &n);
    if (!st) st = push(r, 0, f, n);
    if (st) return st;
    double *share = r->stack_ratio;
    for (uint32_t k = 0; k < r->ne; k++)
        share[k] = 1.0;
    if (!r->dry) st = note_fnode(r, f, n, share);
    size_t sp = 1;
    while (sp > 0 && !st && r->count <= r->budget) {
        frame *fr = &r->stack[sp - 1];
        if (fr->it == fr->end) {
            r->on_path[fr->fn] = 0;
            sp--;
            continue;
        }
        st = descend(r, &sp, r->out_perm[fr->it++]);
    }
    while (sp > 0)
        r->on_path[r->stack[--sp].fn] = 0;
    return st;
}

static int active(const rc *r, uint32_t f)
{
    return r->self_start[f + 1] > r->self_start[f] || r->out_start[f + 1] > r->out_start[f];
}

static pk_status walk_roots(rc *r, uint32_t entry)
{
    pk_status st = PK_OK;
    for (uint32_t f = 0; f < r->nf && !st && r->count <= r->budget; f++)
        if (active(r, f) && !r->has_in[f]) st = walk(r, f, entry);
    return st;
}

/* Counting sort of `n` records of one part by a function field. */
/* Counting sort of records by a uint32 field (stable): perm receives the
 * indexes (idx[i], or i when idx is NULL) grouped by field value, and
 * [start[v], start[v+1]) is group v. */
static void bucket(uint64_t *start, uint32_t *perm, uint32_t n_groups, const uint32_t *idx,
                   uint64_t n, const void *base, size_t stride, size_t field)
{
#define PK_RECORD(i) (idx ? idx[i] : (uint32_t)(i))
#define PK_GROUP(i)  (*(const uint32_t *)((const char *)base + PK_RECORD(i) * stride + field))
    memset(start, 0, ((size_t)n_groups + 2) * sizeof *start);
    for (uint64_t i = 0; i < n; i++)
        start[PK_GROUP(i) + 2]++;
    for (uint32_t g = 0; g < n_groups; g++)
        start[g + 2] += start[g + 1];
    for (uint64_t i = 0; i < n; i++)
        perm[start[PK_GROUP(i) + 1]++] = PK_RECORD(i);
#undef PK_GROUP
#undef PK_RECORD
}

/* Spread the self costs of function f over its nodes (see the top). */
static pk_status distribute(rc *r, uint32_t f, uint32_t entry)
{
    const pk_cg *cg = r->cg;
    uint32_t ne = r->ne;
    pk_status st = PK_OK;
    if (r->head[f] == PK_NONE) {
        uint32_t n;
        double *ones = r->stack_ratio;
        for (uint32_t k = 0; k < ne; k++)
            ones[k] = 1.0;
        st = node_at(r, entry, PK_CTX_FUNCTION, PK_REL_CALL, f, PK_NONE, 0, 0, &n);
        if (!st) st = note_fnode(r, f, n, ones);
        if (st) return st;
    }
    double *sum = r->stack_ratio + ne; /* scratch: push() reserved two rows at least */
    uint32_t cnt = 0;
    memset(sum, 0, ne * sizeof *sum);
    for (uint32_t i = r->head[f]; i != PK_NONE; i = r->fn_nodes[i].next, cnt++)
        for (uint32_t k = 0; k < ne; k++)
            sum[k] += r->ratio[(size_t)i * ne + k];
    for (uint32_t i = r->head[f]; i != PK_NONE && !st; i = r->fn_nodes[i].next) {
        const double *share = r->ratio + (size_t)i * ne;
        for (uint64_t s = r->self_start[f]; s < r->self_start[f + 1] && !st; s++) {
            const pk_cg_self_rec *rec = &cg->self[r->self_perm[s]];
            uint32_t ctx;
            st = position_node(r, r->fn_nodes[i].node, rec->file, rec->line,
                               rec->instr ? rec->instr : rec->bb, &ctx);
            const double *v = cg->self_cost + (uint64_t)r->self_perm[s] * ne;
            for (uint32_t k = 0; k < ne && !st; k++) {
                uint32_t m = cg->events[k].metric;
                if (m == PK_NONE || v[k] == 0.0) continue;
                double w = sum[k] != 0.0         ? share[k] / sum[k]
                           : sum[r->prim] != 0.0 ? share[r->prim] / sum[r->prim]
                                                 : 1.0 / cnt;
                st = add_value(r, ctx, m, v[k] * w);
            }
        }
    }
    return st;
}

static double part_total(const rc *r, const uint32_t *self_idx, uint64_t n)
{
    double t = 0;
    for (uint64_t i = 0; i < n; i++)
        t += fabs(r->cg->self_cost[(uint64_t)self_idx[i] * r->ne + r->prim]);
    return t;
}

/* Choose the pruning threshold: the smallest that keeps the tree in budget. */
static pk_status choose_threshold(rc *r, uint32_t entry, double total)
{
    r->thr = 0;
    for (int round = 0; round < 40; round++) {
        r->dry = 1;
        r->count = 0;
        pk_status st = walk_roots(r, entry);
        r->dry = 0;
        if (st || r->count <= r->budget) return st;
        r->thr = r->thr > 0 ? r->thr * 4 : total * 1e-9;
        if (!(r->thr > 0)) r->thr = 1e-300;
    }
    r->thr = INFINITY; /* keep only the roots */
    return PK_OK;
}

static pk_status do_part(rc *r, uint32_t k, const uint32_t *self_idx, uint64_t n_self,
                         const uint32_t *call_idx, uint64_t n_calls)
{
    const pk_cg *cg = r->cg;
    uint32_t nf = r->nf, ne = r->ne;
    bucket(r->self_start, r->self_perm, nf, self_idx, n_self, cg->self, sizeof *cg->self,
           offsetof(pk_cg_self_rec, fn));
    bucket(r->out_start, r->out_perm, nf, call_idx, n_calls, cg->calls, sizeof *cg->calls,
           offsetof(pk_cg_call_rec, caller));
    memset(r->norm, 0, (size_t)nf * ne * sizeof *r->norm);
    memset(r->has_in, 0, nf);
    for (uint64_t i = 0; i < n_calls; i++) {
        const pk_cg_call_rec *c = &cg->calls[call_idx[i]];
        if (c->caller == c->callee) continue;
        r->has_in[c->callee] = 1;
        for (uint32_t e = 0; e < ne; e++)
            r->norm[(size_t)c->callee * ne + e] += cg->call_cost[(uint64_t)call_idx[i] * ne + e];
    }
    uint32_t entry;
    int main_thread = cg->parts[k].thread <= 1;
    pk_status st =
        node_at(r, 0, PK_CTX_ENTRY, PK_REL_NONE, main_thread ? PK_ENTRY_MAIN : PK_ENTRY_APP_THREAD,
                PK_NONE, 0, 0, &entry);
    if (!st) st = push(r, 0, 0, PK_NONE); /* reserve scratch rows */
    r->on_path[0] = 0;
    if (!st) st = choose_threshold(r, entry, part_total(r, self_idx, n_self));
    if (!st) st = walk_roots(r, entry);
    for (uint32_t f = 0; f < nf && !st; f++)
        if (r->self_start[f + 1] > r->self_start[f]) st = distribute(r, f, entry);
    for (uint32_t f = 0; f < nf; f++)
        r->head[f] = PK_NONE;
    r->n_fn_nodes = 0;
    return st;
}

/* Contexts in breadth-first order (children consecutive), ids = indexes. */
static pk_status lay_out(rc *r, uint32_t *new_index)
{
    uint32_t n = r->n_nodes;
    uint32_t *start = calloc((size_t)n + 2, sizeof *start),
             *kids = malloc(((size_t)n + 1) * sizeof *kids),
             *order = malloc(((size_t)n + 1) * sizeof *order);
    pk_status st = start && kids && order ? PK_OK : pk_fail_nomem("laying out contexts");
    for (uint32_t i = 1; i < n && !st; i++)
        start[r->nodes[i].parent + 2]++;
    for (uint32_t i = 0; i < n && !st; i++)
        start[i + 2] += start[i + 1];
    for (uint32_t i = 1; i < n && !st; i++)
        kids[start[r->nodes[i].parent + 1]++] = i;
    uint32_t tail = 1;
    if (!st) order[0] = 0;
    for (uint32_t h = 0; h < tail && !st; h++)
        for (uint32_t j = start[order[h]]; j < start[order[h] + 1]; j++)
            order[tail++] = kids[j];
    for (uint32_t i = 0; i < tail && !st; i++)
        new_index[order[i]] = i;
    for (uint32_t i = 0; i < tail && !st; i++) {
        const tnode *t = &r->nodes[order[i]];
        pk_ctx_rec *c;
        uint32_t idx;
        st = pk_model_add_context(r->p, &c, &idx);
        if (st) break;
        c->id = idx;
        c->kind = t->kind;
        c->relation = t->rel;
        c->parent = i ? new_index[t->parent] : PK_NONE;
        c->depth = i ? r->p->ctx[c->parent].depth + 1 : 0;
        uint32_t first = start[order[i]], nk = start[order[i] + 1] - first;
        c->n_children = nk;
        c->first_child = nk ? new_index[kids[first]] : PK_NONE;
        if (t->kind == PK_CTX_ENTRY) {
            c->entry = (uint8_t)t->fn;
            c->entry_name = t->fn == PK_ENTRY_MAIN ? "main thread" : "application thread";
        } else if (t->kind == PK_CTX_FUNCTION) {
            c->function = t->fn;
            c->flags |= PK_CTXF_HAS_FUNCTION;
        } else if (t->kind != PK_CTX_ROOT) {
            c->propagation = 1; /* lexical: exclusive cost flows to the function */
            c->file = t->file, c->line = t->line;
            if (t->file != PK_NONE) c->flags |= PK_CTXF_HAS_SRCLOC;
            if (t->kind == PK_CTX_INSTRUCTION) {
                uint32_t a = c->parent;
                while (a != PK_NONE && r->p->ctx[a].kind != PK_CTX_FUNCTION)
                    a = r->p->ctx[a].parent;
                uint32_t fnc = a != PK_NONE ? r->p->ctx[a].function : PK_NONE;
                c->module = fnc != PK_NONE ? r->p->functions[fnc].module : PK_NONE;
                c->offset = t->instr;
                if (c->module != PK_NONE) c->flags |= PK_CTXF_HAS_POINT;
            }
        }
    }
    free(start), free(kids), free(order);
    return st ? st : pk_model_index_contexts(r->p);
}

static int cmp_tval(const void *a, const void *b)
{
    const tval *x = a, *y = b;
    if (x->ctx != y->ctx) return x->ctx < y->ctx ? -1 : 1;
    return x->metric < y->metric ? -1 : x->metric > y->metric;
}

/* Location l's plane from its (context, metric, value) list. */
static pk_status make_plane(pk_profile *p, uint32_t l, tval *v, uint64_t n,
                            const uint32_t *new_index)
{
    for (uint64_t i = 0; i < n; i++)
        v[i].ctx = new_index[v[i].ctx];
    if (n) qsort(v, n, sizeof *v, cmp_tval);
    unsigned char *b = pk_model_alloc_owned(p, n * (PK_LM_VAL_SIZE + PK_LM_IDX_SIZE) + 1);
    if (!b) return PK_ERR_NOMEM;
    unsigned char *vals = b;
    uint64_t nv = 0;
    uint32_t ni = 0;
    for (uint64_t i = 0; i < n; i++) { /* merge same (ctx, metric) */
        double x = v[i].v;
        while (i + 1 < n && v[i + 1].ctx == v[i].ctx && v[i + 1].metric == v[i].metric)
            x += v[++i].v;
        v[nv++] = (tval){v[i].ctx, v[i].metric, x};
    }
    unsigned char *idx = b + nv * PK_LM_VAL_SIZE;
    for (uint64_t i = 0; i < nv; i++) {
        if (i == 0 || v[i].ctx != v[i - 1].ctx) {
            pk_put_le32(idx + (size_t)ni * PK_LM_IDX_SIZE, v[i].ctx);
            pk_put_le64(idx + (size_t)ni * PK_LM_IDX_SIZE + 4, i);
            ni++;
        }
        pk_put_le16(vals + i * PK_LM_VAL_SIZE, (uint16_t)PK_CG_RAW_POINT(v[i].metric));
        pk_put_le64(vals + i * PK_LM_VAL_SIZE + 2, pk_f64_bits(v[i].v));
    }
    p->locs[l].plane = (pk_plane){vals, idx, nv, ni};
    return PK_OK;
}

static void rc_free(rc *r)
{
    free(r->nodes), free(r->out_start), free(r->self_start), free(r->out_perm), free(r->self_perm);
    free(r->norm), free(r->has_in), free(r->on_path), free(r->head), free(r->fn_nodes);
    free(r->ratio), free(r->stack), free(r->stack_ratio), free(r->vals);
    free(r->slots);
}

static pk_status rc_init(rc *r, pk_profile *p)
{
    const pk_cg *cg = p->cg;
    memset(r, 0, sizeof *r);
    r->p = p, r->cg = cg, r->ne = cg->n_events ? cg->n_events : 1, r->nf = (uint32_t)p->n_functions;
    r->pos = cg->by_function ? 0 : cg->positions;
    for (uint32_t e = 0; e < cg->n_events; e++)
        if (cg->events[e].metric == 0) r->prim = e;
    uint64_t nrec = (cg->n_self > cg->n_calls ? cg->n_self : cg->n_calls) + 1;
    size_t nf = (size_t)r->nf + 2;
    r->out_start = malloc(nf * sizeof *r->out_start);
    r->self_start = malloc(nf * sizeof *r->self_start);
    r->out_perm = malloc(nrec * sizeof *r->out_perm);
    r->self_perm = malloc(nrec * sizeof *r->self_perm);
    r->norm = malloc(nf * r->ne * sizeof *r->norm);
    r->has_in = malloc(nf), r->on_path = calloc(nf, 1);
    r->head = malloc(nf * sizeof *r->head);
    uint32_t root;
    if (!r->out_start || !r->self_start || !r->out_perm || !r->self_perm || !r->norm ||
        !r->has_in || !r->on_path || !r->head)
        return pk_fail_nomem("reconstructing the calling-context tree");
    memset(r->head, 0xff, nf * sizeof *r->head);
    /* The tree may be a few times bigger than the call graph, never more:
     * beyond that the smallest arcs are pruned (see choose_threshold). */
    uint64_t records = (cg->n_self + cg->n_calls) / (cg->n_parts ? cg->n_parts : 1);
    r->budget = records * 4 < 100000 ? 100000 : records * 4 > 4000000 ? 4000000 : records * 4;
    return node_at(r, PK_NONE, PK_CTX_ROOT, PK_REL_NONE, PK_NONE, PK_NONE, 0, 0, &root);
}

/* Indexes of part k's records: counting sort of all records by part. */
static pk_status by_part(const void *base, size_t stride, uint64_t n, uint32_t n_parts,
                         uint64_t **start, uint32_t **perm)
{
    *start = malloc(((size_t)n_parts + 2) * sizeof **start);
    *perm = malloc((n + 1) * sizeof **perm);
    if (!*start || !*perm) return pk_fail_nomem("reconstructing the calling-context tree");
    bucket(*start, *perm, n_parts, NULL, n, base, stride,
           0); /* part is every record's first field */
    return PK_OK;
}

static pk_status all_parts(rc *r, tval **vals, uint64_t *n_vals)
{
    const pk_cg *cg = r->cg;
    uint64_t *ss = NULL, *cs = NULL;
    uint32_t *sp = NULL, *cp = NULL;
    pk_status st = by_part(cg->self, sizeof *cg->self, cg->n_self, cg->n_parts, &ss, &sp);
    if (!st) st = by_part(cg->calls, sizeof *cg->calls, cg->n_calls, cg->n_parts, &cs, &cp);
    for (uint32_t k = 0; k < cg->n_parts && !st && r->nf; k++) {
        st = do_part(r, k, sp + ss[k], ss[k + 1] - ss[k], cp + cs[k], cs[k + 1] - cs[k]);
        vals[k] = r->vals, n_vals[k] = r->n_vals;
        r->vals = NULL, r->n_vals = 0, r->cap_vals = 0;
    }
    free(ss), free(cs), free(sp), free(cp);
    return st;
}

pk_status pk_cg_build_cct(pk_profile *p)
{
    const pk_cg *cg = p->cg;
    rc r;
    pk_status st = rc_init(&r, p);
    tval **vals = calloc(cg->n_parts + 1u, sizeof *vals);
    uint64_t *n_vals = calloc(cg->n_parts + 1u, sizeof *n_vals);
    if (!st && (!vals || !n_vals)) st = pk_fail_nomem("reconstructing the calling-context tree");
    if (!st) st = all_parts(&r, vals, n_vals);
    uint32_t *new_index = st ? NULL : malloc(((size_t)r.n_nodes + 1) * sizeof *new_index);
    if (!st && !new_index) st = pk_fail_nomem("laying out contexts");
    if (!st) st = lay_out(&r, new_index);
    for (uint32_t k = 0; k < cg->n_parts && !st; k++)
        st = make_plane(p, cg->parts[k].location, vals[k], n_vals[k], new_index);
    if (st == PK_ERR_NOMEM) st = pk_fail_nomem("reconstructing values");
    for (uint32_t k = 0; vals && k < cg->n_parts; k++)
        free(vals[k]);
    free(vals), free(n_vals), free(new_index);
    rc_free(&r);
    if (!st) p->reconstructed = 1;
    return st;
}
