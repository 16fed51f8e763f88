/*
 * view/route_diff.c — /api/diff: the library's diff answer
 * (pk_answer_diff(), profkit.diff/1) from --base (A, before) to PATH (B,
 * after), the document `profkit diff --json BASE PATH` writes, changes
 * and all; 404 without --base.
 */
#include "view/view.h"

static const char *const diff_params[] = {"metric", "top", NULL};

int pkv_route_diff(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size)
{
    pkv_common c;
    pk_query *pq = NULL;
    pk_diff_answer *d = NULL;
    if (!pkv_only(q, diff_params, err, size)) return 400;
    if (!s->side[1].p) return snprintf(err, size, "no --base profile to compare with"), 404;
    int rc = pkv_common_params(s, q, &c, err, size);
    if (rc == 200) rc = pkv_make_query(q, NULL, "100", &pq, err, size);
    if (rc == 200) rc = pkv_status(pk_query_set(pq, "metric", c.met.name), err, size);
    if (rc == 200) rc = pkv_status(pk_answer_diff(s->side[1].qs, s->side[0].qs, pq, &d), err, size);
    if (rc == 200) rc = pkv_status(pk_diff_answer_write_json(j, d), err, size);
    pk_diff_answer_free(d);
    pk_query_free(pq);
    return rc;
}
