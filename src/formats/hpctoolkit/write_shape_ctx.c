/*
 * formats/hpctoolkit/write_shape_ctx.c — the calling-context tree as
 * HPCToolkit needs it: the global root with id 0, entry points directly
 * below it and nowhere else, every other id in 1..2^32-1, dense enough
 * for cct.db's id-indexed table.
 *
 * Models from other formats differ: Cube's root is a made-up node with
 * the largest id (a cnode has id 0) and its children are the call tree's
 * roots, not entry points. Their top-level contexts go below one entry
 * point the writer adds ("main thread": a Cube or Callgrind call tree is
 * the program's, as hpcprof's main-thread entry holds main), and when the
 * source's ids cannot be kept every context is numbered by its
 * breadth-first position. The tree is laid out breadth-first again
 * (children consecutive), iteratively, so any depth is fine.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/write_loss.h"
#include "util/bytes.h"
#include "write_shape.h"

/* cct.db's {CI} table is indexed by id: ids far sparser than the contexts
 * would make it mostly holes (write_cct.c refuses the same). */
#define MAX_ID_SPREAD(n) (16ull * (n) + (1ull << 20))

static int is_entry(const pk_profile *p, uint32_t i)
{
    return p->ctx[i].kind == PK_CTX_ENTRY;
}

/* Can the source's ids be written as they are? */
static int ids_fit(const pk_profile *p, uint64_t *max_id)
{
    *max_id = 0;
    if (p->ctx[0].id != 0) return 0;
    for (uint32_t i = 1; i < p->n_ctx; i++) {
        uint64_t id = p->ctx[i].id;
        if (id == 0 || id > UINT32_MAX - 1) return 0;
        if (id > *max_id) *max_id = id;
    }
    return *max_id < MAX_ID_SPREAD(p->n_ctx);
}

/* Does the root have children that are not entry points? */
static int needs_entry(const pk_profile *p)
{
    const pk_ctx_rec *root = &p->ctx[0];
    for (uint32_t k = 0; k < root->n_children; k++)
        if (!is_entry(p, root->first_child + k)) return 1;
    return 0;
}

/* The breadth-first order of the shaped tree, as source indexes
 * (PK_NONE stands for the added entry point), then unlisted contexts. */
static uint32_t *shaped_order(const pk_profile *p, int add_entry, uint32_t *n_out)
{
    uint32_t n = p->n_ctx + (add_entry ? 1u : 0u);
    uint32_t *order = malloc((size_t)n * sizeof *order);
    if (!order) return NULL;
    uint32_t tail = 0;
    order[tail++] = 0;
    for (uint32_t head = 0; head < tail; head++) {
        uint32_t i = order[head];
        const pk_ctx_rec *root = &p->ctx[0];
        if (head == 0) { /* the root: entries, then the added one */
            for (uint32_t k = 0; k < root->n_children; k++)
                if (is_entry(p, root->first_child + k)) order[tail++] = root->first_child + k;
            if (add_entry) order[tail++] = PK_NONE;
            continue;
        }
        if (i == PK_NONE) { /* the added entry: the root's other children */
            for (uint32_t k = 0; k < root->n_children; k++)
                if (!is_entry(p, root->first_child + k)) order[tail++] = root->first_child + k;
            continue;
        }
        for (uint32_t k = 0; k < p->ctx[i].n_children; k++)
            order[tail++] = p->ctx[i].first_child + k;
    }
    for (uint32_t i = 1; i < p->n_ctx; i++)
        if (p->ctx[i].parent == PK_NONE) order[tail++] = i; /* unlisted: values only */
    *n_out = tail;
    return order;
}

static const char *entry_name(pk_entry_kind e)
{
    return e == PK_ENTRY_MAIN         ? "main thread"
           : e == PK_ENTRY_APP_THREAD ? "application thread"
                                      : "unknown entry";
}

/* The shaped record at q index `qi` for source context `pi`. Propagation
 * bits stay as they are: the meta.db writer applies hpcprof's rule where
 * no reader set them (hk_shape_bits_known()). */
static void fill_record(hk_shape *s, pk_ctx_rec *c, uint32_t pi)
{
    const pk_profile *p = s->p;
    if (pi == PK_NONE) { /* the added entry point */
        memset(c, 0, sizeof *c);
        c->function = c->file = c->module = PK_NONE;
        c->kind = PK_CTX_ENTRY;
        c->relation = PK_REL_NONE;
        c->entry = PK_ENTRY_MAIN; /* the program's own call tree... */
        for (uint32_t k = 0; k < p->ctx[0].n_children; k++)
            if (is_entry(p, p->ctx[0].first_child + k))
                c->entry = PK_ENTRY_UNKNOWN; /* ...unless entries of its own name the others */
        c->entry_name = entry_name(c->entry);
        return;
    }
    *c = p->ctx[pi];
    if (c->kind == PK_CTX_ENTRY && !c->entry_name) c->entry_name = entry_name(c->entry);
    if (pi != 0 && c->kind != PK_CTX_ENTRY && c->relation == PK_REL_NONE)
        c->relation = PK_REL_CALL; /* a call-tree root: called from its entry point */
}

/* Links, depth and ids of the shaped records, from the order. */
static void link_records(hk_shape *s, const uint32_t *order, uint32_t n, uint64_t max_id)
{
    pk_profile *q = s->q;
    for (uint32_t qi = 0; qi < n; qi++) {
        pk_ctx_rec *c = &q->ctx[qi];
        uint32_t pi = order[qi];
        c->first_child = PK_NONE;
        c->n_children = 0;
        if (qi == 0) {
            c->parent = PK_NONE, c->depth = 0;
        } else if (pi == PK_NONE) {
            c->parent = 0, c->depth = 1;
        } else if (s->p->ctx[pi].parent == PK_NONE) {
            c->parent = PK_NONE, c->depth = 0; /* unlisted */
        } else {
            uint32_t pp = s->p->ctx[pi].parent;
            c->parent = pp == 0 && !is_entry(s->p, pi) ? s->entry : s->q_of_p[pp];
            c->depth = q->ctx[c->parent].depth + 1;
        }
        if (c->parent != PK_NONE) {
            pk_ctx_rec *up = &q->ctx[c->parent];
            if (!up->n_children++) up->first_child = qi;
        }
        if (!s->renumbered)
            c->id = pi == PK_NONE ? max_id + 1 : s->p->ctx[pi].id;
        else
            c->id = qi;
    }
}

/* An entry point below the root: HPCToolkit has them only at the top. */
static pk_status demote_deep_entries(hk_shape *s)
{
    pk_profile *q = s->q;
    uint32_t n = 0;
    for (uint32_t i = 1; i < q->n_ctx; i++) {
        pk_ctx_rec *c = &q->ctx[i];
        if (c->kind != PK_CTX_ENTRY || c->parent == 0) continue;
        c->kind = PK_CTX_FUNCTION;
        c->relation = PK_REL_CALL;
        n++;
    }
    if (!n) return PK_OK;
    return pk_write_lose(s->o, s->stats, s->path, "entry points below the root",
                         "HPCToolkit has entry points only directly below the global root; %u "
                         "are written as plain contexts",
                         n);
}

/* The source's tree as it is: no entry point to add, ids kept, none to
 * demote, every call-tree root already called from its entry point. */
static int tree_as_is(const hk_shape *s)
{
    const pk_profile *p = s->p;
    if (s->renumbered || needs_entry(p)) return 0;
    for (uint32_t i = 1; i < p->n_ctx; i++) {
        const pk_ctx_rec *c = &p->ctx[i];
        if ((c->kind == PK_CTX_ENTRY && c->parent != 0) ||
            (c->kind != PK_CTX_ENTRY && c->relation == PK_REL_NONE && c->parent != PK_NONE))
            return 0;
    }
    return 1;
}

pk_status hs_contexts(hk_shape *s)
{
    const pk_profile *p = s->p;
    pk_profile *q = s->q;
    uint64_t max_id;
    int add = needs_entry(p);
    s->renumbered = !ids_fit(p, &max_id) || (add && max_id + 1 > UINT32_MAX - 1);
    s->entry = PK_NONE;
    if (tree_as_is(s)) { /* borrowed, not copied (hk_shape_free gives it back) */
        q->ctx = p->ctx, q->n_ctx = q->cap_ctx = p->n_ctx;
        q->ctx_dense = p->ctx_dense, q->ctx_dense_len = p->ctx_dense_len;
        q->ctx_sorted = p->ctx_sorted;
        s->q_of_p = malloc(((size_t)p->n_ctx + 1) * sizeof *s->q_of_p);
        if (!s->q_of_p) return pk_fail_nomem("shaping the calling-context tree");
        for (uint32_t i = 0; i < p->n_ctx; i++)
            s->q_of_p[i] = i;
        return PK_OK;
    }
    uint32_t n = 0;
    uint32_t *order = shaped_order(p, add, &n);
    s->q_of_p = malloc(((size_t)p->n_ctx + 1) * sizeof *s->q_of_p);
    q->ctx = malloc(((size_t)n + 1) * sizeof *q->ctx);
    if (!order || !s->q_of_p || !q->ctx) {
        free(order);
        return pk_fail_nomem("shaping the calling-context tree");
    }
    q->n_ctx = q->cap_ctx = n;
    for (uint32_t qi = 0; qi < n; qi++) {
        if (order[qi] == PK_NONE)
            s->entry = qi;
        else
            s->q_of_p[order[qi]] = qi;
        fill_record(s, &q->ctx[qi], order[qi]);
    }
    link_records(s, order, n, max_id);
    free(order);
    pk_status st = demote_deep_entries(s);
    if (!st) st = pk_model_index_contexts(q);
    return st;
}
