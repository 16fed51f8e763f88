/*
 * formats/cube/write_tree.c — the Cube call tree of any model: one root
 * cnode, numbered in pre-order (the row order of EXCLUSIVE metrics).
 *
 * A context gets a cnode of its own when it is an entry point, a function,
 * or reached from its parent through a call or inlined call (an
 * instruction HPCToolkit attributes a GPU kernel's samples to is such a
 * call target); loops, lines and instructions inside a function fold
 * into the function's cnode, so Cube's exclusive value of a cnode is
 * HPCToolkit's "function" value of its context. Contexts without a parent
 * (HPCToolkit's unlisted instruction contexts) fold into one
 * "<unlisted contexts>" cnode under the root when they hold values Cube
 * gets. The model's root becomes the Cube root only when it has to: when
 * it has several children, none, or values of its own; otherwise its one
 * child is the root, as in Cube files themselves (docs/cube.md, "One
 * root"). Every pass is a loop over the contexts with an explicit stack.
 */
#include <stdlib.h>
#include <string.h>

#include "cw.h"
#include "util/error.h"
#include "util/intern.h"
#include "util/kmap.h"

typedef struct tree {
    cube_writer *w;
    pk_interner names; /* made-up region names, so equal names share a region */
    pk_kmap by_name;
    char buf[512];
} tree;

static int owns_cnode(const pk_ctx_rec *x)
{
    return x->kind == PK_CTX_ENTRY || x->kind == PK_CTX_FUNCTION || x->relation == PK_REL_CALL ||
           x->relation == PK_REL_INLINED_CALL;
}

/* Region id of a made-up region called `name` (artificial: not code). */
static pk_status extra_region(tree *t, const char *name, size_t len, int artificial, uint32_t *out)
{
    cube_writer *w = t->w;
    const char *s = pk_intern(&t->names, name, len);
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)(uintptr_t)s};
    uint32_t idx;
    int added;
    if (!s || pk_kmap_upsert(&t->by_name, key, w->n_reg, &idx, &added))
        return pk_fail_nomem("planning Cube regions");
    if (added) w->reg[w->n_reg++] = (cw_region){s, artificial, 0};
    *out = (uint32_t)w->p->n_functions + idx;
    return PK_OK;
}

/* The region a context's cnode calls: its function's, or one named
 * after it (entry points, call targets that are no function). */
static pk_status region_of(tree *t, pk_index c, uint32_t *out)
{
    const pk_profile *p = t->w->p;
    const pk_ctx_rec *x = &p->ctx[c];
    if (x->kind == PK_CTX_FUNCTION && x->function < p->n_functions) {
        *out = x->function;
        return PK_OK;
    }
    size_t n = pk_context_name(p, c, t->buf, sizeof t->buf);
    if (n < sizeof t->buf) return extra_region(t, t->buf, n, x->kind == PK_CTX_ENTRY, out);
    char *big = malloc(n + 1);
    if (!big) return pk_fail_nomem("planning Cube regions");
    pk_context_name(p, c, big, n + 1);
    pk_status st = extra_region(t, big, n, x->kind == PK_CTX_ENTRY, out);
    free(big);
    return st;
}

/* Pre-order walk from the root: cnode 0 stands for context 0. */
static pk_status walk(tree *t, uint32_t *stack)
{
    cube_writer *w = t->w;
    const pk_profile *p = w->p;
    w->cn[0] = (cw_cnode){0, CUBE_NONE, CUBE_NONE, 0};
    w->cnode_of[0] = 0, w->n_cn = 1;
    size_t sp = 0;
    for (uint32_t k = p->ctx[0].n_children; k-- > 0;)
        stack[sp++] = p->ctx[0].first_child + k;
    pk_status st = PK_OK;
    while (sp && !st) {
        uint32_t c = stack[--sp];
        const pk_ctx_rec *x = &p->ctx[c];
        uint32_t up = w->cnode_of[x->parent];
        if (owns_cnode(x)) {
            uint32_t region;
            st = region_of(t, c, &region);
            w->cnode_of[c] = w->n_cn;
            w->cn[w->n_cn++] = (cw_cnode){c, up, region, 0};
        } else {
            w->cnode_of[c] = up;
            w->cn[up].n_folded++, w->n_folded++;
        }
        for (uint32_t k = x->n_children; k-- > 0;)
            stack[sp++] = x->first_child + k;
    }
    return st;
}

/* Does context c hold a value in a column Cube gets? */
static int has_written_value(const cube_writer *w, pk_index c)
{
    for (uint32_t i = 0; i < w->n_m; i++)
        for (uint32_t k = 0; k < w->m[i].n_comp && w->m[i].data; k++)
            if (w->m[i].cols[k] != PK_NONE &&
                cw_ctx_values(w, c, w->m[i].cols[k], 0, 1, PK_COMBINE_SUM, NULL, NULL))
                return 1;
    return 0;
}

/* Contexts without a parent: into one cnode under the root, if any of
 * them holds a value the Cube gets (their other values are already part
 * of their listed ancestors' inclusive and exclusive ones). */
static pk_status place_unlisted(tree *t)
{
    cube_writer *w = t->w;
    const pk_profile *p = w->p;
    uint32_t cnode = CUBE_NONE;
    for (uint32_t c = 1; c < p->n_ctx; c++) {
        if (p->ctx[c].parent != PK_NONE || !has_written_value(w, c)) continue;
        if (cnode == CUBE_NONE) {
            uint32_t region;
            pk_status st = extra_region(t, CW_UNLISTED_NAME, strlen(CW_UNLISTED_NAME), 1, &region);
            if (st) return st;
            cnode = w->n_cn++;
            w->cn[cnode] = (cw_cnode){PK_NONE, 0, region, 0};
        }
        w->cnode_of[c] = cnode;
        w->cn[cnode].n_folded++, w->n_unlisted++;
    }
    return PK_OK;
}

static int same_value(double a, double b)
{
    double m = a < 0 ? -a : a, n = b < 0 ? -b : b;
    return a == b || (a - b <= 1e-12 * (m > n ? m : n) && b - a <= 1e-12 * (m > n ? m : n));
}

/* Would leaving the model's root out change a value? Its inclusive
 * values must be its one child's, its other values absent. */
static int root_has_own_values(const cube_writer *w, pk_index top, double *a, double *b)
{
    for (uint32_t i = 0; i < w->n_m; i++) {
        const cw_metric *m = &w->m[i];
        for (uint32_t k = 0; k < m->n_comp && m->data; k++) {
            pk_index col = m->cols[k];
            if (col == PK_NONE) continue;
            memset(a, 0, w->n_loc * sizeof *a), memset(b, 0, w->n_loc * sizeof *b);
            if (!cw_ctx_values(w, 0, col, 0, 1, PK_COMBINE_SUM, a, NULL)) continue;
            if (!m->inclusive || m->fold) return 1;
            cw_ctx_values(w, top, col, 0, 1, PK_COMBINE_SUM, b, NULL);
            for (uint32_t l = 0; l < w->n_loc; l++)
                if (!same_value(a[l], b[l])) return 1;
        }
    }
    return 0;
}

/* Keep cnode 0 as the root, or drop it when its one child can be. */
static pk_status settle_root(tree *t)
{
    cube_writer *w = t->w;
    uint32_t n_top = 0, top = CUBE_NONE;
    for (uint32_t i = 1; i < w->n_cn; i++)
        if (w->cn[i].parent == 0) n_top++, top = i;
    int keep = w->p->ctx[0].kind != PK_CTX_ROOT || n_top != 1 || w->cn[0].n_folded;
    if (!keep) {
        double *a = malloc(((size_t)w->n_loc + 1) * 2 * sizeof *a);
        if (!a) return pk_fail_nomem("planning the Cube call tree");
        keep = w->cn[top].ctx == PK_NONE ||
               root_has_own_values(w, w->cn[top].ctx, a, a + w->n_loc + 1);
        free(a);
    }
    if (keep && w->p->ctx[0].kind == PK_CTX_ROOT) { /* the made-up root region comes last */
        w->reg[w->n_reg] = (cw_region){CW_ROOT_NAME, 1, 1};
        w->cn[0].region = (uint32_t)w->p->n_functions + w->n_reg++;
        return PK_OK;
    }
    if (keep) return region_of(t, 0, &w->cn[0].region);
    for (uint32_t i = 1; i < w->n_cn; i++) {
        cw_cnode c = w->cn[i];
        c.parent = c.parent == 0 ? CUBE_NONE : c.parent - 1;
        w->cn[i - 1] = c;
    }
    w->n_cn--;
    for (uint32_t c = 0; c < w->p->n_ctx; c++)
        w->cnode_of[c] =
            w->cnode_of[c] == 0 || w->cnode_of[c] == CUBE_NONE ? CUBE_NONE : w->cnode_of[c] - 1;
    return PK_OK;
}

/* Wide-search order of the cnodes: the row order of INCLUSIVE metrics. */
static pk_status plan_wide(cube_writer *w)
{
    uint32_t n = w->n_cn;
    uint32_t *first = malloc(((size_t)n + 1) * sizeof *first),
             *next = malloc(((size_t)n + 1) * sizeof *next),
             *stack = malloc(((size_t)n + 1) * sizeof *stack);
    w->wide = malloc(((size_t)n + 1) * sizeof *w->wide);
    pk_status st = first && next && stack && w->wide ? PK_OK : pk_fail_nomem("planning rows");
    if (!st) {
        cube_link_children(&w->cn[0].parent, sizeof *w->cn, n, first, next, NULL);
        cube_wide_enumeration(&w->cn[0].parent, sizeof *w->cn, n, first, next, stack, w->wide);
    }
    free(first), free(next), free(stack);
    return st;
}

pk_status cw_plan_tree(cube_writer *w)
{
    const pk_profile *p = w->p;
    size_t n = p->n_ctx;
    tree t = {.w = w};
    pk_intern_init(&t.names, &w->arena);
    uint32_t *stack = malloc((n + 1) * sizeof *stack);
    w->cnode_of = malloc((n + 1) * sizeof *w->cnode_of);
    w->cn = malloc((n + 2) * sizeof *w->cn);
    w->reg = malloc((n + 3) * sizeof *w->reg);
    pk_status st = stack && w->cnode_of && w->cn && w->reg
                       ? PK_OK
                       : pk_fail_nomem("planning the Cube call tree");
    for (size_t c = 0; c < n && !st; c++)
        w->cnode_of[c] = CUBE_NONE;
    if (!st && !n) { /* no context at all: the root alone */
        w->cn[0] = (cw_cnode){PK_NONE, CUBE_NONE, (uint32_t)p->n_functions, 0};
        w->reg[w->n_reg++] = (cw_region){CW_ROOT_NAME, 1, 1};
        w->n_cn = 1;
    }
    if (!st && n) st = walk(&t, stack);
    if (!st && n) st = place_unlisted(&t);
    if (!st && n) st = settle_root(&t);
    if (!st) st = plan_wide(w);
    free(stack);
    pk_kmap_free(&t.by_name);
    pk_intern_free(&t.names);
    return st;
}
