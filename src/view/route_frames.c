/*
 * view/route_frames.c — /api/callers and /api/callees: exactly the CLI's
 * `callers --json` / `callees --json` tree document (profkit.frames/1)
 * for a function of the session's cached function-level tree, 8 levels
 * deep and pruned at 0.1 % of the total.
 */
#include <string.h>

#include "view/view.h"

static const char *const frames_params[] = {"metric", "function", "side", "location", "stat", NULL};

static int around(pkv_session *s, const pkv_query *q, FILE *out, int callers, char *err,
                  size_t size)
{
    pkv_common c;
    pk_index node;
    int rc;
    const char *fn = pkv_get(q, "function");
    if (!pkv_only(q, frames_params, err, size)) return 400;
    if (!fn) return snprintf(err, size, "function is missing"), 400;
    const pkv_tree *t =
        pkv_tree_of(s, q, frames_params, PKV_MODE_FUNCTION, &c, &node, &rc, err, size);
    if (!t) return rc;
    pk_frame *f = NULL;
    size_t n = 0;
    fn = pkv_function_name(c.sd->p, fn);
    pk_status st = pk_frames_around(c.sd->p, t->frames, t->n_frames, fn, callers, &f, &n);
    if (st == PK_ERR_NOT_FOUND || st == PK_ERR_INVALID_ARG)
        return snprintf(err, size, "no function '%.200s' in the tree", fn), 404;
    if (st) return snprintf(err, size, "%s", pk_error_last()), 500;
    pk_tree_options o = {.threshold = 0.1, .max_depth = 8, .metric = c.met.name};
    st = pk_frames_write_json(out, c.sd->p, f, n, t->vals.total, fn, callers, &o);
    pk_frames_free(f);
    if (st) return snprintf(err, size, "%s", pk_error_last()), 500;
    return 200;
}

int pkv_route_callers(pkv_session *s, const pkv_query *q, FILE *out, char *err, size_t size)
{
    return around(s, q, out, 1, err, size);
}

int pkv_route_callees(pkv_session *s, const pkv_query *q, FILE *out, char *err, size_t size)
{
    return around(s, q, out, 0, err, size);
}
