/*
 * view/route_flat.c — /api/flat: the library's flat answer
 * (pk_answer_flat(), profkit.flat/1) for the page's table: any number of
 * metrics and derived `name=EXPR` columns, grouped by function (file,
 * module, line), ranked by one column, searched, at most `top` rows.
 */
#include <string.h>

#include "view/view.h"

static const char *const flat_params[] = {"metrics", "by",       "top",  "sort", "search",
                                          "side",    "location", "stat", NULL};

/* URL parameter -> query option; the others keep their names. */
static const char *const flat_names[] = {"metrics", "metric", NULL};

int pkv_route_flat(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size)
{
    pkv_common c;
    pk_query *pq = NULL;
    pk_flat_answer *a = NULL;
    if (!pkv_only(q, flat_params, err, size)) return 400;
    int rc = pkv_common_params(s, q, &c, err, size);
    if (rc == 200) rc = pkv_make_query(q, flat_names, "500", &pq, err, size);
    if (rc == 200 && !pkv_get(q, "metrics")) /* the page's default: the side's metric */
        rc = pkv_status(pk_query_set(pq, "metric", c.met.name), err, size);
    if (rc == 200) rc = pkv_status(pk_answer_flat(c.sd->qs, pq, &a), err, size);
    if (rc == 200) pk_flat_answer_write_json(j, a);
    pk_flat_answer_free(a);
    pk_query_free(pq);
    return rc;
}
