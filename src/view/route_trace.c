/*
 * view/route_trace.c — /api/trace: the trace answer of the library
 * (pk_trace_answer_compute) for the page's selection, with a timeline of
 * a page of rows, written by the library's one writer as profkit.trace/1
 * (docs/view.md): the same document `profkit trace --json --timeline PX`
 * prints for the same selection. The session keeps each trace's facts
 * (median interval: a pass over the whole trace) so zooming reads only
 * the samples in the window.
 */
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

static const char *const trace_params[] = {"begin", "end",   "from", "to",       "width", "first",
                                           "count", "focus", "hide", "location", NULL};

/* `from`/`to` as the CLI takes them, or the older begin/end (absolute
 * ns, digits only): one of each pair at most. */
static int window(const pkv_query *q, pk_trace_selection *sel, char *err, size_t size)
{
    const char *begin = pkv_get(q, "begin"), *end = pkv_get(q, "end");
    sel->from = pkv_get(q, "from"), sel->to = pkv_get(q, "to");
    if ((begin && sel->from) || (end && sel->to))
        return snprintf(err, size, "give from/to or begin/end, not both"), 400;
    for (const char *const *v = (const char *const[]){begin, end, NULL}; *v; v++)
        if (**v && strspn(*v, "0123456789") != strlen(*v))
            return snprintf(err, size, "begin and end want nanoseconds (digits)"), 400;
    if (begin) sel->from = begin;
    if (end) sel->to = end;
    return 200;
}

static int status_of(pk_status st)
{
    return st == PK_ERR_INVALID_ARG ? 400 : st == PK_ERR_NOT_FOUND ? 404 : 500;
}

int pkv_route_trace(pkv_session *s, const pkv_query *q, pk_json *j, char *err, size_t size)
{
    const pk_profile *p = s->side[0].p;
    unsigned long long width, first, count;
    pk_trace_selection sel = {0};
    if (!pkv_only(q, trace_params, err, size)) return 400;
    if (!pk_trace_count(p)) return snprintf(err, size, "the profile has no traces"), 404;
    int rc = window(q, &sel, err, size);
    if (rc != 200) return rc;
    if (!pkv_uint(q, "width", 1, 20000, 1200, &width, err, size) ||
        !pkv_uint(q, "first", 0, UINT32_MAX, 0, &first, err, size) ||
        !pkv_uint(q, "count", 1, 1024, 64, &count, err, size))
        return 400;
    sel.location = pkv_get(q, "location");
    sel.focus = pkv_get(q, "focus"), sel.hide = pkv_get(q, "hide");
    if (!s->trace_facts && !(s->trace_facts = calloc(pk_trace_count(p), sizeof *s->trace_facts)))
        return snprintf(err, size, "out of memory"), 500;
    pk_trace_timeline_options tl = {(unsigned)width, (size_t)first, (size_t)count};
    pk_trace_answer *a = NULL;
    pk_status st = pk_trace_answer_compute(p, &sel, &tl, s->trace_facts, &a);
    if (!st) st = pk_trace_answer_write_json(j, p, a);
    pk_trace_answer_free(a);
    if (st) return snprintf(err, size, "%s", pk_error_last()), status_of(st);
    return 200;
}
