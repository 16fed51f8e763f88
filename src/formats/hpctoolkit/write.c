/*
 * formats/hpctoolkit/write.c — writing a whole HPCToolkit v4 database.
 *
 * Everything goes into a fresh temporary directory beside the target
 * ("<target>.tmp-<pid>"); only when every file is complete is it renamed
 * into place, so a failure (or a crash) never leaves a half database
 * under the target's name. Replacing an existing database (--force) first
 * moves the old one aside, then removes it once the new one is in place;
 * only a directory that holds a meta.db is ever replaced.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpctk_write.h"
#include "util/error.h"
#include "util/mapfile.h"
#include "util/outfile.h"
#include "write_shape.h"

#define PATH_SIZE 4096

/* dir + "/" + name into buf; paths too long for it were refused before
 * anything was created (hk_write_db), so this cannot truncate. */
static const char *join(char *buf, const char *dir, const char *name)
{
    if (snprintf(buf, PATH_SIZE, "%s%s", dir, name) >= PATH_SIZE) buf[0] = '\0';
    return buf;
}

static const char *const db_files[] = {"meta.db", "profile.db", "cct.db", "trace.db",
                                       "metrics/default.yaml"};

/* Remove what a writer may have put into `dir`, then `dir` itself. Only
 * names a database holds are touched, so nothing else is ever lost. */
static void remove_db_dir(const char *dir)
{
    char path[PATH_SIZE];
    for (size_t i = 0; i < sizeof db_files / sizeof db_files[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "/%s", db_files[i]);
        join(path, dir, name);
        unlink(path);
    }
    join(path, dir, "/metrics");
    rmdir(path);
    rmdir(dir);
}

static pk_status write_meta(const pk_profile *p, const char *dir, uint64_t *bytes)
{
    pk_buf b = {0};
    char path[PATH_SIZE];
    join(path, dir, "/meta.db");
    pk_status st = hk_build_meta(p, &b);
    if (!st) st = pk_write_file(path, b.data, b.len);
    *bytes += b.len;
    pk_buf_free(&b);
    return st;
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
    if (pr->o && pr->o->progress) pr->o->progress(pr->o->progress_user, pr->done, pr->total);
}

static uint64_t expected_bytes(const pk_profile *p)
{
    uint64_t n = 0;
    for (uint32_t l = 0; l < p->n_locs; l++)
        n += p->locs[l].plane.nvals * (PK_LM_VAL_SIZE + PK_CM_VAL_SIZE);
    for (uint32_t t = 0; t < p->n_traces; t++)
        n += p->traces[t].n * PK_SAMPLE_SIZE;
    return n;
}

static pk_status write_files(const pk_profile *p, const char *dir, const pk_write_options *o,
                             pk_write_stats *stats, const char *yaml, size_t yaml_len)
{
    hk_order order;
    char path[PATH_SIZE];
    progress pr = {o, 0, expected_bytes(p)};
    pk_status st = hk_order_init(p, &order);
    if (st) return st;
    uint64_t bytes = 0;
    st = write_meta(p, dir, &bytes);
    join(path, dir, "/profile.db");
    if (!st) st = hk_write_profile_db(p, &order, path, &bytes);
    step(&pr, bytes);
    join(path, dir, "/cct.db");
    if (!st) st = hk_write_cct_db(p, &order, path, &bytes);
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

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* An existing target may be replaced only with PK_WRITE_FORCE, and only
 * if it is a database (a directory with a meta.db or experiment.xml). */
static pk_status may_replace(const char *path, const pk_write_options *o, int *exists)
{
    *exists = pk_path_exists(path);
    if (!*exists) return PK_OK;
    if (!(o && (o->flags & PK_WRITE_FORCE)))
        return pk_fail(PK_ERR_IO, "%s: already exists (use --force to replace it)", path);
    char probe[PATH_SIZE], probe2[PATH_SIZE];
    join(probe, path, "/meta.db");
    join(probe2, path, "/experiment.xml");
    if (!pk_path_is_dir(path) || !(pk_path_exists(probe) || pk_path_exists(probe2)))
        return pk_fail(PK_ERR_IO, "%s: exists and is not an HPCToolkit database; not replacing it",
                       path);
    return PK_OK;
}

/* Put the finished temporary directory in place of `path`. */
static pk_status install(const char *tmp, const char *path, int exists)
{
    char old[PATH_SIZE];
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".old-%ld", (long)getpid());
    join(old, path, suffix);
    if (exists && rename(path, old) != 0)
        return pk_fail(PK_ERR_IO, "%s: cannot move the old database aside: %s", path,
                       strerror(errno));
    if (rename(tmp, path) != 0) {
        int e = errno;
        if (exists) rename(old, path);
        return pk_fail(PK_ERR_IO, "%s: cannot rename %s into place: %s", path, tmp, strerror(e));
    }
    if (exists) nftw(old, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return PK_OK;
}

pk_status hk_write_db(const pk_profile *p, const char *target, const pk_write_options *o,
                      pk_write_stats *stats)
{
    char path[PATH_SIZE], tmp[PATH_SIZE];
    size_t len = strlen(target);
    while (len > 1 && target[len - 1] == '/')
        len--;
    if (len >= PATH_SIZE - 64) return pk_fail(PK_ERR_INVALID_ARG, "output path too long");
    memcpy(path, target, len);
    path[len] = '\0';
    int exists;
    pk_status st = may_replace(path, o, &exists);
    if (st) return st;
    const pk_profile *source = p;
    pk_profile *shaped = NULL; /* a copy fitted to what HPCToolkit's readers need */
    char *yaml = NULL;
    size_t yaml_len = 0;
    st = hk_shape_make(p, path, o, stats, &shaped);
    if (shaped) p = shaped;
    if (!st) st = hk_yaml_text(p, path, o, stats, &yaml, &yaml_len);
    if (st) {
        hk_shape_free(source, shaped);
        return st;
    }
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".tmp-%ld", (long)getpid());
    join(tmp, path, suffix);
    if (mkdir(tmp, 0755) != 0) {
        st = pk_fail(PK_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
    } else {
        st = write_files(p, tmp, o, stats, yaml, yaml_len);
        if (!st) st = install(tmp, path, exists);
        if (st) remove_db_dir(tmp);
    }
    free(yaml);
    hk_shape_free(source, shaped);
    return st;
}
