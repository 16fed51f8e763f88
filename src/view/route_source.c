/*
 * view/route_source.c — /api/source: the library's annotate answer
 * (pk_answer_annotate(), profkit.annotate/1, what `annotate --json`
 * writes) for one function or one source file as the profile names it,
 * or, with neither, for the top functions that have source lines (what
 * `annotate PATH` shows). The URL never names a path on disk, and the
 * profile cannot either: only files under the profile's own src/ or a
 * directory the user named (-I) are read (sources=within), unless the
 * user asked for any (--any-source). What an answer could not show is
 * counted in the session, for the report's summary.
 */
#include "view/view.h"

/* What the answer (or its absence) says it could not show. */
static void count_gaps(pkv_session *s, int rc, const pk_annotate_answer *a)
{
    if (rc == 404) {
        s->gaps.no_line++;
        return;
    }
    if (rc != 200) return;
    s->gaps.no_line += a->n_missing;
    for (size_t i = 0; i < a->n_listings; i++)
        if (!a->listings[i].source) {
            s->gaps.no_file++;
            break;
        }
}

static const char *const source_params[] = {"metric",   "function", "file", "side",
                                            "location", "stat",     NULL};

int pkv_route_source(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size)
{
    pkv_common c;
    pk_query *pq = NULL;
    pk_annotate_answer *a = NULL;
    static const char *const names[] = {"file", "function", NULL};
    if (!pkv_only(q, source_params, err, size)) return 400;
    const char *fn = pkv_get(q, "function"), *file = pkv_get(q, "file");
    if (fn && file) return snprintf(err, size, "source wants function or file, not both"), 400;
    int rc = pkv_common_params(s, q, &c, err, size);
    if (rc == 200) rc = pkv_make_query(q, names, "3", &pq, err, size);
    if (rc == 200) rc = pkv_status(pk_query_set(pq, "metric", c.met.name), err, size);
    if (rc == 200)
        rc = pkv_status(pk_query_set(pq, "sources", s->any_source ? "any" : "within"), err, size);
    if (rc == 200 && s->source_dirs_joined)
        rc = pkv_status(pk_query_set(pq, "dirs", s->source_dirs_joined), err, size);
    if (rc == 200 && fn)
        rc = pkv_status(pk_query_set(pq, "function", pkv_function_name(c.sd->p, fn)), err, size);
    if (rc == 200) {
        rc = pkv_status(pk_answer_annotate(c.sd->qs, pq, &a), err, size);
        count_gaps(s, rc, a);
    }
    if (rc == 200) rc = pkv_status(pk_annotate_answer_write_json(j, a), err, size);
    pk_annotate_answer_free(a);
    pk_query_free(pq);
    return rc;
}
