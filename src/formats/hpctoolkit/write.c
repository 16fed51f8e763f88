/*
 * formats/hpctoolkit/write.c — writing a whole HPCToolkit v4 database.
 *
 * Everything goes into a fresh temporary directory beside the target;
 * only when every file is complete is it put in place, so a failure (or a
 * crash, or a signal) never leaves a half database under the target's
 * name. How the directory is created, marked, put in place and (with
 * --force) swapped for an older database profkit wrote is util/safeout.h's
 * business.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/write_loss.h"
#include "hpctk_write.h"
#include "util/error.h"
#include "util/mapfile.h"
#include "util/outfile.h"
#include "util/safeout.h"
#include "write_shape.h"

#define PATH_SIZE 4096

/* dir + "/" + name into buf; paths too long for it were refused before
 * anything was created (hk_write_db), so this cannot truncate. */
static const char *join(char *buf, const char *dir, const char *name)
{
    if (snprintf(buf, PATH_SIZE, "%s%s", dir, name) >= PATH_SIZE) buf[0] = '\0';
    return buf;
}

static pk_status write_meta(const pk_profile *p, const char *dir, uint64_t *bytes)
{
    pk_out out;
    char path[PATH_SIZE];
    pk_status st = pk_out_open(&out, join(path, dir, "/meta.db"));
    if (!st) st = hk_write_meta(p, &out, 1);
    *bytes += out.offset;
    pk_status closed = pk_out_close(&out);
    return st ? st : closed;
}

static pk_status write_yaml(const char *dir, const char *text, size_t len, uint64_t *bytes)
{
    char path[PATH_SIZE];
    join(path, dir, "/metrics");
    if (mkdir(path, 0755) != 0)
        return pk_fail(PK_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    join(path, dir, "/metrics/default.yaml");
    pk_status st = pk_write_file(path, text, len);
    if (!st) *bytes += len;
    return st;
}

typedef struct progress {
    const pk_write_options *o;
    uint64_t done, total;
} progress;

static void step(progress *pr, uint64_t bytes)
{
    pr->done = bytes;
    pk_write_progress(pr->o, pr->done, pr->total);
}

/* About what the files after meta.db take: the values (profile.db and
 * cct.db each hold every one), each context's and profile's index
 * entries, the trace samples. */
static uint64_t expected_bytes(const pk_profile *p)
{
    uint64_t n = (uint64_t)p->n_ctx * 2 * 16 + (uint64_t)p->n_locs * 64 + 4096;
    for (uint32_t l = 0; l < p->n_locs; l++)
        n += p->locs[l].plane.nvals * (PK_LM_VAL_SIZE + PK_CM_VAL_SIZE);
    for (uint32_t t = 0; t < p->n_traces; t++)
        n += p->traces[t].n * PK_SAMPLE_SIZE;
    return n;
}

/* Does a location's plane (profile.db) hold values at context id `id`? */
static int profile_holds(const pk_profile *p, uint64_t id)
{
    uint64_t b, e;
    for (uint32_t l = 0; l < p->n_locs; l++)
        if (id <= UINT32_MAX && hs_values_at(&p->locs[l].plane, (uint32_t)id, &b, &e) && e > b)
            return 1;
    return 0;
}

/* A context meta.db does not list (hpcprof's elided instructions) exists
 * in HPCToolkit only through its values in profile.db and cct.db: one
 * that holds none in the profile being written cannot be written (its
 * values named no profile, say). */
static pk_status unlisted_without_values(const pk_profile *p, const hk_cct_src *src,
                                         const char *path, const pk_write_options *o,
                                         pk_write_stats *stats)
{
    pk_status st = src ? PK_OK : pk_model_ensure_cm(p);
    uint32_t n = 0;
    char ids[128] = "";
    size_t len = 0;
    for (uint32_t i = 1; i < p->n_ctx && !st; i++) {
        uint64_t id = p->ctx[i].id;
        uint64_t in_cct = src ? hk_cct_src_nvals(src, i) : p->cm[i].nvals;
        if (p->ctx[i].parent != PK_NONE || in_cct || profile_holds(p, id)) continue;
        if (n++ < 8 && len < sizeof ids)
            len += (size_t)snprintf(ids + len, sizeof ids - len, "%s%llu", n > 1 ? ", " : "",
                                    (unsigned long long)id);
    }
    if (st || !n) return st;
    return pk_write_lose(o, stats, path, "unlisted contexts",
                         "%u contexts meta.db does not list hold no value (ids %s%s); HPCToolkit "
                         "knows such a context only by its values in profile.db and cct.db, so "
                         "they are left out",
                         n, ids, n > 8 ? ", ..." : "");
}

/* cct.db; its source made only now (cc1: 17 MB of counters), after
 * meta.db and profile.db are written, so their memory and its own never
 * add up. */
static pk_status write_cct(const pk_profile *p, const hk_order *order, const char *path,
                           const char *target, const pk_write_options *o, pk_write_stats *stats,
                           uint64_t *bytes)
{
    hk_cct_src *src = NULL; /* cct.db straight from the planes, by chunks */
    pk_status st = hk_cct_src_make(p, &src);
    if (!st) st = unlisted_without_values(p, src, target, o, stats);
    if (!st) st = hk_write_cct_db(p, order, src, path, bytes);
    hk_cct_src_free(src);
    return st;
}

/* meta.db first, then the rest of the shaping (the summary's values):
 * meta.db's layout and those values are never in memory together. */
static pk_status write_files(const pk_profile *p, hk_shape *rest, const char *target,
                             const char *dir, const pk_write_options *o, pk_write_stats *stats,
                             const char *yaml, size_t yaml_len)
{
    hk_order order;
    char path[PATH_SIZE];
    progress pr = {o, 0, 0};
    pk_status st = hk_order_init(p, &order);
    if (st) return hk_shape_finish(rest, 1), st;
    uint64_t bytes = 0;
    st = write_meta(p, dir, &bytes);
    pk_status finished = hk_shape_finish(rest, st != PK_OK);
    st = st ? st : finished;
    pr.total = bytes + expected_bytes(p); /* meta.db's size is known now */
    join(path, dir, "/profile.db");
    if (!st) st = hk_write_profile_db(p, &order, path, &bytes);
    step(&pr, bytes);
    join(path, dir, "/cct.db");
    if (!st) st = write_cct(p, &order, path, target, o, stats, &bytes);
    step(&pr, bytes);
    int traces = (p->n_traces || p->has_trace_range) && !(o && (o->flags & PK_WRITE_NO_TRACE));
    join(path, dir, "/trace.db");
    if (!st && traces) st = hk_write_trace_db(p, &order, path, &bytes, &stats->n_skipped_traces);
    if (!st) st = write_yaml(dir, yaml, yaml_len, &bytes);
    step(&pr, bytes);
    stats->bytes = bytes;
    stats->n_files = 4u + (traces ? 1u : 0u);
    for (uint32_t l = 0; l < p->n_locs; l++)
        stats->n_values += p->locs[l].plane.nvals;
    hk_order_free(&order);
    return st;
}

pk_status hk_write_db(const pk_profile *p, const char *target, const pk_write_options *o,
                      pk_write_stats *stats)
{
    pk_safeout out;
    if (strlen(target) >= PATH_SIZE - 64)
        return pk_fail(PK_ERR_INVALID_ARG, "output path too long");
    uint32_t force = o ? o->flags & PK_WRITE_FORCE : 0;
    pk_status st = pk_safeout_dir(&out, target, force);
    if (st) return st;
    const pk_profile *source = p;
    pk_profile *shaped = NULL; /* a copy fitted to what HPCToolkit's readers need */
    char *yaml = NULL;
    size_t yaml_len = 0;
    hk_shape *rest = NULL; /* the shaping left to do once meta.db is written */
    st = hk_shape_begin(p, target, o, stats, &shaped, &rest);
    if (shaped) p = shaped;
    if (!st) st = hk_yaml_text(p, target, o, stats, &yaml, &yaml_len);
    if (!st)
        st = write_files(p, rest, target, out.tmp, o, stats, yaml, yaml_len);
    else
        hk_shape_finish(rest, 1);
    if (!st)
        st = pk_safeout_commit(&out);
    else
        pk_safeout_abort(&out);
    free(yaml);
    hk_shape_free(source, shaped);
    return st;
}
