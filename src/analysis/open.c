/*
 * analysis/open.c — pk_profile_open() and pk_profile_open_memory(): the
 * format's reader (formats/open.h), then what the model derives from what
 * was read. A Callgrind reader makes only the call graph; its metrics,
 * locations, cycles and reconstructed calling-context tree are made here
 * (cg_setup.c), so that formats talk to the model only.
 */
#include "formats/open.h"
#include "cg_model.h"
#include "util/error.h"

/* The parts of the model a reader left to be derived. */
static pk_status complete(pk_profile *p)
{
    pk_cg *cg = p->cg;
    if (!cg || !cg->pending) return PK_OK;
    cg->pending = 0;
    pk_status st = pk_cg_complete_model(p, cg->pending_tree, cg->pending_threshold);
    return st ? st : pk_model_finish_diagnostics(p);
}

static pk_status completed(pk_status st, pk_profile *p, pk_profile **out)
{
    if (!st) st = complete(p);
    if (st) {
        pk_profile_free(p);
        return st;
    }
    *out = p;
    return PK_OK;
}

pk_status pk_profile_open(const char *path, const pk_open_options *opts, pk_profile **out)
{
    if (!out) return pk_fail(PK_ERR_INVALID_ARG, "pk_profile_open: NULL out");
    pk_profile *p = NULL;
    pk_status st = pk_formats_open(path, opts, &p);
    return completed(st, p, out);
}

pk_status pk_profile_open_memory(pk_format format, size_t n, const char *const *names,
                                 const void *const *data, const uint64_t *sizes,
                                 const pk_open_options *opts, pk_profile **out)
{
    if (!out || (n && (!names || !data || !sizes)))
        return pk_fail(PK_ERR_INVALID_ARG, "pk_profile_open_memory: NULL argument");
    pk_profile *p = NULL;
    pk_status st = pk_formats_open_memory(format, n, names, data, sizes, opts, &p);
    return completed(st, p, out);
}
