/*
 * view/route_locations.c — /api/locations: one function's values on
 * every location, with their spread: the library's per-location answer
 * (pk_answer_threads() with option function, profkit.threads/1), the
 * document `threads --function NAME --json` writes; without a function,
 * each location's total (`threads --json`), what the pane shows before
 * anything is selected.
 */
#include "view/view.h"

static const char *const locations_params[] = {"metric", "function", "side", NULL};

int pkv_route_locations(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size)
{
    pkv_common c;
    pk_query *pq = NULL;
    pk_threads_answer *a = NULL;
    if (!pkv_only(q, locations_params, err, size)) return 400;
    const char *name = pkv_get(q, "function");
    int rc = pkv_common_params(s, q, &c, err, size);
    if (rc == 200) rc = pkv_make_query(q, NULL, NULL, &pq, err, size);
    if (rc == 200) rc = pkv_status(pk_query_set(pq, "metric", c.met.name), err, size);
    if (rc == 200 && name)
        rc = pkv_status(pk_query_set(pq, "function", pkv_function_name(c.sd->p, name)), err, size);
    if (rc == 200) rc = pkv_status(pk_answer_threads(c.sd->qs, pq, &a), err, size);
    if (rc == 200) rc = pkv_status(pk_threads_answer_write_json(j, a), err, size);
    pk_threads_answer_free(a);
    pk_query_free(pq);
    return rc;
}
