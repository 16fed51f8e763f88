/*
 * model/tree_layout.c — a tree a reader built as parent links (each node
 * after its parent), laid out as the model keeps contexts: breadth-first,
 * the children of a node consecutive, in the order they were made.
 */
#include <stdlib.h>

#include "model.h"

pk_status pk_model_layout_tree(pk_profile *p, uint32_t n, const uint32_t *parent,
                               void (*fill)(void *user, uint32_t node, pk_ctx_rec *rec), void *user,
                               uint32_t *new_index)
{
    uint32_t *start = calloc((size_t)n + 2, sizeof *start);
    uint32_t *kids = malloc(((size_t)n + 1) * sizeof *kids);
    uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    pk_status st = start && kids && order ? PK_OK : pk_fail_nomem("laying out contexts");
    for (uint32_t i = 1; i < n && !st; i++) {
        if (parent[i] >= i) st = pk_fail(PK_ERR_FORMAT, "node %u comes before its parent", i);
        if (!st) start[parent[i] + 2]++;
    }
    for (uint32_t i = 2; i <= n && !st; i++)
        start[i] += start[i - 1];
    for (uint32_t i = 1; i < n && !st; i++) /* children in creation order */
        kids[start[parent[i] + 1]++] = i;
    uint32_t tail = n ? 1 : 0;
    if (n) order[0] = 0, new_index[0] = 0;
    for (uint32_t h = 0; h < tail && !st; h++) {
        uint32_t t = order[h], first = tail;
        for (uint32_t k = start[t]; k < start[t + 1]; k++)
            new_index[kids[k]] = tail, order[tail++] = kids[k];
        pk_ctx_rec *r;
        uint32_t at;
        st = pk_model_add_context(p, &r, &at);
        if (st) break;
        fill(user, t, r);
        r->id = h;
        r->parent = h ? new_index[parent[t]] : PK_NONE;
        r->depth = h ? p->ctx[r->parent].depth + 1 : 0;
        r->n_children = tail - first;
        r->first_child = tail > first ? first : PK_NONE;
    }
    free(start), free(kids), free(order);
    return st ? st : pk_model_index_contexts(p);
}
