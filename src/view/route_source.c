/*
 * view/route_source.c — /api/source: the CLI's `annotate --json` document
 * (profkit.annotate/1) for one function or one source file as the profile
 * names it. The URL never names a path on disk, and the profile cannot
 * either: only files under the profile's own src/ or a directory the
 * user named (-I) are read, unless the user asked for any (--any-source).
 */
#include "view/view.h"

static const char *const source_params[] = {"metric",   "function", "file", "side",
                                            "location", "stat",     NULL};

int pkv_route_source(pkv_session *s, const pkv_query *q, FILE *out, char *err, size_t size)
{
    pkv_common c;
    if (!pkv_only(q, source_params, err, size)) return 400;
    const char *fn = pkv_get(q, "function"), *file = pkv_get(q, "file");
    if (!fn == !file) return snprintf(err, size, "source wants function or file (one)"), 400;
    int rc = pkv_common_params(s, q, &c, err, size);
    if (rc != 200) return rc;
    if (fn) fn = pkv_function_name(c.sd->p, fn);
    cli_view v = {.metric = c.met.name, .location = c.location, .stat = c.stat, .top = 3};
    cli_sources src = {s->source_dirs, s->n_source_dirs, s->any_source};
    if (cli_annotate_json(c.sd->p, &v, fn ? fn : file, &src, out) != CLI_OK)
        return snprintf(err, size, "no source lines of %s '%.200s'", fn ? "function" : "file",
                        fn ? fn : file),
               404;
    return 200;
}
