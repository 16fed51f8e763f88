/*
 * view/route_tree.c — /api/tree: one node of the function-level tree and
 * its children down to a depth, largest first, from the session's cached
 * tree (children found through the frames' links: O(children) a level).
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

#define MAX_CHILDREN 500   /* per node; `more` counts the rest */
#define MAX_NODES    20000 /* per answer; deeper nodes then come unloaded */
#define MAX_DEPTH    32

static const char *const tree_params[] = {"metric",   "node", "depth", "side",
                                          "location", "stat", "mode",  NULL};

const char *pkv_kind_name(pk_context_kind k)
{
    static const char *const names[] = {"root", "entry",       "function", "loop",
                                        "line", "instruction", "unknown"};
    return k <= PK_CTX_UNKNOWN ? names[k] : "unknown";
}

static const char *relation_name(pk_relation r)
{
    static const char *const names[] = {"none", "lexical", "call", "inlined", "unknown"};
    return r <= PK_REL_UNKNOWN ? names[r] : "unknown";
}

static int by_inclusive(const void *a, const void *b, void *frames)
{
    const pk_frame *f = frames;
    pk_index x = *(const pk_index *)a, y = *(const pk_index *)b;
    if (f[x].inclusive != f[y].inclusive) return f[x].inclusive > f[y].inclusive ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The children of frame i, largest first: a malloc'd list, *n of them. */
pk_index *pkv_sorted_children(const pkv_tree *t, pk_index i, size_t *n)
{
    *n = 0;
    for (pk_index c = t->frames[i].first_child; c != PK_NONE; c = t->frames[c].next_sibling)
        (*n)++;
    pk_index *list = malloc((*n ? *n : 1) * sizeof *list);
    if (!list) return NULL;
    size_t k = 0;
    for (pk_index c = t->frames[i].first_child; c != PK_NONE; c = t->frames[c].next_sibling)
        list[k++] = c;
    qsort_r(list, k, sizeof *list, by_inclusive, t->frames);
    return list;
}

typedef struct walk {
    const pk_profile *p;
    const pkv_tree *t;
    pk_json *j;
    size_t emitted;
    int failed;
} walk;

static void node_head(walk *w, pk_index i)
{
    const pk_frame *f = &w->t->frames[i];
    pk_context c;
    pk_context_get(w->p, f->context, &c);
    pk_json *j = w->j;
    pk_json_key(j, "id");
    pk_json_uint(j, i);
    pkv_json_frame_place(j, w->p, f);
    pk_json_key(j, "kind");
    pk_json_string(j, i == 0 ? "root" : pkv_kind_name(c.kind));
    pk_json_key(j, "relation");
    pk_json_string(j, i == 0 ? "none" : relation_name(c.relation));
    pk_json_key(j, "inclusive");
    pk_json_double(j, f->inclusive);
    pk_json_key(j, "exclusive");
    pk_json_double(j, f->self);
    pk_json_key(j, "calls");
    pk_json_null(j);
    pk_json_key(j, "hot");
    pk_json_bool(j, w->t->hot[i]);
}

/* Node i with `depth` levels of children loaded; recursion bounded by
 * MAX_DEPTH, whatever the tree's depth. */
static void node(walk *w, pk_index i, unsigned depth)
{
    pk_json *j = w->j;
    size_t n = 0;
    for (pk_index k = w->t->frames[i].first_child; k != PK_NONE; k = w->t->frames[k].next_sibling)
        n++;
    int load = depth > 0 && !(n && w->emitted >= MAX_NODES);
    pk_index *kids = load ? pkv_sorted_children(w->t, i, &n) : NULL;
    if (load && !kids) {
        w->failed = 1;
        return;
    }
    w->emitted++;
    pk_json_object_begin(j);
    node_head(w, i);
    pk_json_key(j, "child_count");
    pk_json_uint(j, n);
    pk_json_key(j, "children");
    size_t shown = 0;
    if (!load) {
        pk_json_null(j);
    } else {
        pk_json_array_begin(j);
        for (; shown < n && shown < MAX_CHILDREN && !w->failed; shown++)
            node(w, kids[shown], depth - 1);
        pk_json_array_end(j);
    }
    pk_json_key(j, "more");
    pk_json_uint(j, load ? n - shown : 0);
    pk_json_object_end(j);
    free(kids);
}

/* mode, depth and node of a tree request. */
static int tree_params_read(const pkv_query *q, int *mode, char *err, size_t size)
{
    const char *m = pkv_get(q, "mode");
    if (!m || strcmp(m, "function") == 0)
        *mode = PKV_MODE_FUNCTION;
    else if (strcmp(m, "loops") == 0)
        *mode = PKV_MODE_LOOPS;
    else if (strcmp(m, "lines") == 0)
        *mode = PKV_MODE_LINES;
    else
        return snprintf(err, size, "mode wants function, loops or lines"), 400;
    return 200;
}

void pkv_json_head(pk_json *j, const char *schema, const pkv_common *c, double total)
{
    pk_json_object_begin(j);
    pk_json_key(j, "schema");
    pk_json_string(j, schema);
    pk_json_key(j, "metric");
    pk_json_string(j, c->met.name);
    pk_json_key(j, "unit");
    pk_json_string(j, c->met.unit);
    pk_json_key(j, "total");
    pk_json_double(j, total);
}

const pkv_tree *pkv_tree_of(pkv_session *s, const pkv_query *q, const char *const *allowed,
                            int mode, pkv_common *c, pk_index *node, int *rc, char *err,
                            size_t size)
{
    *rc = 400;
    if (!pkv_only(q, allowed, err, size)) return NULL;
    if ((*rc = pkv_common_params(s, q, c, err, size)) != 200) return NULL;
    unsigned long long id;
    if (!pkv_uint(q, "node", 0, PK_NONE - 1, 0, &id, err, size)) return *rc = 400, NULL;
    const pkv_tree *t =
        pkv_tree_get(s, c->side, c->metric, c->location, c->stat, mode, rc, err, size);
    if (t && id >= t->n_frames) {
        snprintf(err, size, "no node %llu", id);
        return *rc = 404, NULL;
    }
    *node = (pk_index)id;
    return t;
}

int pkv_route_tree(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size)
{
    pkv_common c;
    int mode, rc;
    pk_index id;
    unsigned long long depth;
    if ((rc = tree_params_read(q, &mode, err, size)) != 200) return rc;
    if (!pkv_uint(q, "depth", 0, MAX_DEPTH, 1, &depth, err, size)) return 400;
    const pkv_tree *t = pkv_tree_of(s, q, tree_params, mode, &c, &id, &rc, err, size);
    if (!t) return rc;
    pkv_json_head(j, "profkit.view.tree/1", &c, t->vals.total);
    pk_json_key(j, "node");
    walk w = {c.sd->p, t, j, 0, 0};
    node(&w, id, (unsigned)depth);
    pk_json_object_end(j);
    return w.failed ? (snprintf(err, size, "out of memory"), 500) : 200;
}
