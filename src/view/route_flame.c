/*
 * view/route_flame.c — /api/flame: the library's tree answer below a node
 * as nested frames for a flame graph (profkit.tree/1), children narrower
 * than `min` percent of the node left out, bounded in size; with --base,
 * side a's nodes carry the same path's values in the base profile for a
 * differential colouring.
 */
#include "view/view.h"

#define MAX_FRAMES 20000

static const char *const flame_params[] = {"metric",   "node", "min", "side",
                                           "location", "stat", NULL};
static const char *const flame_names[] = {"node", NULL, "min", NULL, NULL};

int pkv_route_flame(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size)
{
    pkv_common c;
    pk_index id;
    pk_query *pq;
    int rc;
    double min;
    if (!pkv_double(q, "min", 0, 100, PKV_PAGE_THRESHOLD, &min, err, size)) return 400;
    pkv_answer *e =
        pkv_tree_of(s, q, flame_params, flame_names, "functions", &c, &id, &pq, &rc, err, size);
    if (e && c.side == 0 && s->side[1].p) rc = pkv_answer_base(s, e, pq, err, size);
    pk_query_free(pq);
    if (!e || rc != 200) return rc;
    rc = pkv_status(pk_tree_answer_flame_ready(e->tree), err, size);
    if (rc != 200) return rc;
    pk_tree_json_options o = {.from = id, .max_nodes = MAX_FRAMES, .min_share = min};
    o.base_inclusive = e->base_incl, o.base_self = e->base_self;
    return pkv_status(pk_tree_answer_write_json(j, e->tree, &o), err, size);
}
