/*
 * view/route_tree.c — /api/tree: one node of the library's tree answer
 * (pk_answer_tree(), profkit.tree/1) and its shown children down to a
 * depth, largest first, bounded in size; from the session's kept answer,
 * so an expansion walks only the nodes it shows. Its threshold and
 * chains are the CLI's: folded runs come drawn as `profkit tree` draws
 * them, the frame below a run in its place with the run's "via".
 */
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

#define MAX_CHILDREN 500   /* per node; `more` counts the rest */
#define MAX_NODES    20000 /* per answer; deeper nodes then come unloaded */
#define MAX_DEPTH    32

static const char *const tree_params[] = {"metric", "node", "depth",     "side",   "location",
                                          "stat",   "mode", "threshold", "chains", NULL};
static const char *const tree_names[] = {"mode", "level", "node", NULL, "depth", NULL, NULL};

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

pkv_answer *pkv_tree_of(pkv_session *s, const pkv_query *q, const char *const *allowed,
                        const char *const *names, const char *level, pkv_common *c, pk_index *node,
                        pk_query **pq, int *rc, char *err, size_t size)
{
    unsigned long long id;
    *pq = NULL;
    *rc = 400;
    if (!pkv_only(q, allowed, err, size)) return NULL;
    if ((*rc = pkv_common_params(s, q, c, err, size)) != 200) return NULL;
    if (!pkv_uint(q, "node", 0, PK_NONE - 1, 0, &id, err, size)) return *rc = 400, NULL;
    if ((*rc = pkv_make_query(q, names, NULL, pq, err, size)) != 200) return NULL;
    if (!pkv_get(q, "metric"))
        *rc = pkv_status(pk_query_set(*pq, "metric", c->met.name), err, size);
    if (*rc == 200 && level) *rc = pkv_status(pk_query_set(*pq, "level", level), err, size);
    pkv_answer *e = *rc == 200 ? pkv_tree_answer(s, c->side, *pq, rc, err, size) : NULL;
    if (e && e->tree->n_nodes && id >= e->tree->n_nodes) {
        snprintf(err, size, "no node %llu", id);
        return *rc = 404, NULL;
    }
    *node = (pk_index)id;
    return e;
}

int pkv_route_tree(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size)
{
    pkv_common c;
    pk_index id;
    pk_query *pq;
    int rc;
    unsigned long long depth;
    if (!pkv_uint(q, "depth", 0, MAX_DEPTH, 1, &depth, err, size)) return 400;
    pkv_answer *e = pkv_tree_of(s, q, tree_params, tree_names, NULL, &c, &id, &pq, &rc, err, size);
    pk_query_free(pq);
    if (!e) return rc;
    /* depth 0 asks for the node alone */
    pk_tree_json_options o = {id,  depth ? (uint32_t)depth : 0, MAX_CHILDREN, MAX_NODES, 0, NULL,
                              NULL};
    if (depth == 0) o.depth = 1, o.max_nodes = 1;
    o.lift_folded = 1;
    return pkv_status(pk_tree_answer_write_json(j, e->tree, &o), err, size);
}
