/*
 * view/route_diff.c — /api/diff: the CLI's `diff --json` document
 * (profkit.diff/1) of PATH (A) against --base (B), with the same metric
 * by name on both sides; 404 without --base.
 */
#include "view/view.h"

static const char *const diff_params[] = {"metric", "top", NULL};

int pkv_route_diff(pkv_session *s, const pkv_query *q, FILE *out, char *err, size_t size)
{
    pkv_common c;
    unsigned long long top;
    if (!pkv_only(q, diff_params, err, size)) return 400;
    if (!pkv_uint(q, "top", 0, 100000, 100, &top, err, size)) return 400;
    if (!s->side[1].p) return snprintf(err, size, "no --base profile to compare with"), 404;
    int rc = pkv_common_params(s, q, &c, err, size);
    if (rc != 200) return rc;
    cli_view v = {.metric = c.met.name, .top = top};
    if (cli_diff_json(s->side[0].p, s->side[1].p, &v, out) != CLI_OK)
        return snprintf(err, size, "cannot compare the profiles (see the server's log)"), 500;
    return 200;
}
