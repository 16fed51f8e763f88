/*
 * view/route_frames.c — /api/callers and /api/callees: the library's
 * callers/callees answer (pk_answer_callers(), profkit.callers/1) for the
 * page's function pane, the same document `callers --json` writes: a
 * call graph's exact lists, or the tree around the function, 8 levels
 * deep, pruned at 0.1 % of its inclusive value.
 */
#include <string.h>

#include "view/view.h"

static const char *const frames_params[] = {"metric", "function", "side", "location", "stat", NULL};

static int around(pkv_session *s, const pkv_query *q, pk_json *j, int callees, char *err,
                  size_t size)
{
    pkv_common c;
    pk_query *pq = NULL;
    pk_callers_answer *a = NULL;
    const char *fn = pkv_get(q, "function");
    if (!pkv_only(q, frames_params, err, size)) return 400;
    if (!fn) return snprintf(err, size, "function is missing"), 400;
    int rc = pkv_common_params(s, q, &c, err, size);
    if (rc == 200) rc = pkv_make_query(q, NULL, "10", &pq, err, size);
    if (rc == 200 && !pkv_get(q, "metric"))
        rc = pkv_status(pk_query_set(pq, "metric", c.met.name), err, size);
    if (rc == 200)
        rc = pkv_status(pk_query_set(pq, "function", pkv_function_name(c.sd->p, fn)), err, size);
    if (rc == 200)
        rc = pkv_status(pk_query_set(pq, "threshold", PKV_PAGE_THRESHOLD_TEXT), err, size);
    if (rc == 200) rc = pkv_status(pk_query_set(pq, "depth", "8"), err, size);
    if (rc == 200) rc = pkv_status(pk_answer_callers(c.sd->qs, pq, callees, &a), err, size);
    if (rc == 200) rc = pkv_status(pk_callers_answer_write_json(j, a), err, size);
    pk_callers_answer_free(a);
    pk_query_free(pq);
    return rc;
}

int pkv_route_callers(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size)
{
    return around(s, q, j, 0, err, size);
}

int pkv_route_callees(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size)
{
    return around(s, q, j, 1, err, size);
}
