/*
 * formats/hpctoolkit/read.c — opening an HPCToolkit v4 database: which
 * files exist, in which order they are read, what happens when an
 * optional one is damaged, and the contexts that only profile.db/cct.db
 * know about.
 *
 * Order matters: meta.db defines the metric ids and contexts that
 * profile.db and cct.db refer to; both of those may name contexts meta.db
 * leaves out (hpcprof elides instruction contexts), which become
 * "unlisted" contexts before trace.db's samples are checked against the
 * final set of contexts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hpctk.h"
#include "util/parallel.h"

static const char *const file_names[HK_NFILES] = {"meta.db", "profile.db", "cct.db", "trace.db"};

static pk_status parse_sections(const char *list, uint32_t *mask)
{
    if (!list) {
        *mask = (1u << HK_S_COUNT) - 1;
        return PK_OK;
    }
    *mask = 0;
    const char *s = list;
    while (*s) {
        size_t len = strcspn(s, ",");
        int found = 0;
        for (int i = 0; i < HK_S_COUNT; i++) {
            if (strlen(hk_section_names[i]) == len && strncmp(s, hk_section_names[i], len) == 0) {
                *mask |= 1u << i;
                found = 1;
            }
        }
        if (!found && len)
            return pk_fail(PK_ERR_INVALID_ARG, "unknown dump section '%.*s'", (int)len, s);
        s += len + (s[len] == ',');
    }
    return PK_OK;
}

/* "3, 5, 11, ... (N more)": the first ids that fit in buf. */
static void format_id_list(const uint64_t *ids, size_t n, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0, len = 0; i < n; i++, len = strlen(buf)) {
        if (len > size - 40) {
            snprintf(buf + len, size - len, ", ... (%zu more)", n - i);
            break;
        }
        snprintf(buf + len, size - len, "%s%llu", i ? ", " : "", (unsigned long long)ids[i]);
    }
}

/* Turn the ids only profile.db / cct.db mention into unplaced contexts. */
static pk_status add_unlisted(hk_reader *r)
{
    pk_profile *p = r->p;
    pk_idset all = {0};
    int oom = 0;
    for (int f = 0; f < HK_NFILES; f++)
        oom |= pk_idset_merge(&all, &r->unlisted[f]);
    uint64_t *ids = oom ? NULL : pk_idset_sorted(&all);
    size_t n = all.count;
    pk_idset_free(&all);
    if (!ids) return pk_fail_nomem("collecting context ids");
    pk_status st = PK_OK;
    char list[160];
    for (size_t i = 0; i < n && !st; i++) {
        pk_ctx_rec *c;
        uint32_t index;
        st = pk_model_add_context(p, &c, &index);
        if (st) break;
        c->id = ids[i];
        c->kind = PK_CTX_UNKNOWN;
        c->flags = PK_CTXF_UNLISTED;
    }
    format_id_list(ids, n, list, sizeof list);
    free(ids);
    if (st || n == 0) return st;
    st = pk_model_index_contexts(p);
    if (st) return st;
    return pk_model_diag(p, PK_SEV_NOTE, "unlisted-context", "meta.db", "Context Tree", 0, 0,
                         "%zu context ids have values in profile.db/cct.db but are not listed in "
                         "meta.db (hpcprof leaves instruction contexts out of meta.db); their "
                         "values are kept as unplaced contexts: %s",
                         n, list);
}

/* Give the model its context-major view: cct.db's planes, by context. */
static pk_status attach_cct(hk_reader *r)
{
    pk_profile *p = r->p;
    if (!r->cct_planes) return PK_OK;
    p->cm = calloc(p->n_ctx ? p->n_ctx : 1, sizeof *p->cm);
    if (!p->cm) return pk_fail_nomem("attaching cct.db");
    for (uint32_t id = 0; id < r->n_cct_planes; id++) {
        uint32_t i = pk_model_ctx_find(p, id);
        if (i != PK_NONE) p->cm[i] = r->cct_planes[id];
    }
    p->cm_from_file = 1;
    p->cm_unplaced = r->cct_unplaced;
    return PK_OK;
}

/* Undo what a failed optional file left in the model (KEEP_GOING). */
static void drop_file(hk_reader *r, int fid)
{
    pk_profile *p = r->p;
    pk_idset_free(&r->unlisted[fid]);
    free(r->noted[fid]);
    r->noted[fid] = NULL;
    if (fid == HK_PROFILE) {
        p->locs = NULL;
        p->n_locs = 0;
        r->n_profiles = 0;
        r->profile_is_summary = NULL;
    } else if (fid == HK_CCT) {
        free(r->cct_planes);
        r->cct_planes = NULL;
        r->n_cct_planes = 0;
        r->cct_unplaced = 0;
    }
}

static pk_status read_optional(hk_reader *r, int fid, pk_status (*read)(hk_reader *), uint32_t skip)
{
    hk_file *f = &r->f[fid];
    if (!f->present || (r->flags & skip)) return PK_OK;
    pk_status st = read(r);
    f->source->major = f->major;
    f->source->minor = f->minor;
    if (st == PK_OK) {
        f->source->loaded = 1;
        return PK_OK;
    }
    if (!(r->flags & PK_OPEN_KEEP_GOING) || st == PK_ERR_NOMEM) return st;
    drop_file(r, fid);
    r->p->complete = 0;
    return pk_model_diag(r->p, PK_SEV_ERROR, "unreadable-file", f->name, NULL, 0, 0,
                         "%s (the file was not loaded)", pk_error_last());
}

/* hpcprof's summary profile (one, profile 0's role) holds each statistic
 * over the plain profiles' stored values: questions it holds are answered
 * from it (analysis/summary.c), unless the caller wants the values added
 * up (PK_OPEN_RECOMPUTE). */
static int summary_is_exact(const hk_reader *r)
{
    const pk_profile *p = r->p;
    uint32_t n = 0;
    for (uint32_t l = 0; l < p->n_locs; l++)
        n += p->locs[l].is_summary != 0;
    return n == 1 && !(r->flags & PK_OPEN_RECOMPUTE) && !p->summary_inexact;
}

static pk_status hk_run(hk_reader *r)
{
    pk_profile *p = r->p;
    uint64_t input = 0;
    for (int f = 0; f < HK_NFILES; f++)
        input += r->f[f].size;
    pk_budget_init(&r->budget, r->max_memory, input);
    hk_file *meta = &r->f[HK_META];
    if (!meta->present)
        return pk_fail(PK_ERR_FORMAT, "meta.db: missing (every HPCToolkit v4 database has one)");
    pk_status st = hk_read_meta(r);
    meta->source->major = meta->major;
    meta->source->minor = meta->minor;
    if (st) return st;
    meta->source->loaded = 1;
    p->format = PK_FORMAT_HPCTOOLKIT_V4;
    p->format_name = "hpctoolkit";
    p->major = meta->major;
    p->minor = meta->minor;
    st = read_optional(r, HK_PROFILE, hk_read_profiles, 0);
    if (!st) st = read_optional(r, HK_CCT, hk_read_cct, PK_OPEN_NO_CCT);
    if (!st) st = add_unlisted(r);
    if (!st) st = attach_cct(r);
    if (!st) st = read_optional(r, HK_TRACE, hk_read_traces, PK_OPEN_NO_TRACES);
    if (!st && r->dir) st = hk_read_yaml(r, r->dir);
    if (!st) hk_viewer_checks(r);
    if (!st) st = pk_model_finish_diagnostics(p);
    if (!st && r->deferred) st = hk_defer_attach(r);
    if (!st) p->summary_exact = summary_is_exact(r);
    return st;
}

static void reader_free(hk_reader *r)
{
    for (int f = 0; f < HK_NFILES; f++) {
        pk_idset_free(&r->unlisted[f]);
        free(r->noted[f]);
    }
    free(r->cct_planes);
}

/* Set up a reader around a fresh profile. */
unsigned hk_workers(const hk_reader *r, uint64_t bytes)
{
    if (r->threads) return r->threads > PK_MAX_WORKERS ? PK_MAX_WORKERS : r->threads;
    return pk_workers_for(bytes);
}

static pk_status reader_init(hk_reader *r, const pk_open_options *opts, pk_record_fn emit,
                             void *user, const char *sections)
{
    memset(r, 0, sizeof *r);
    r->flags = opts ? opts->flags : 0;
    r->threads = opts ? opts->threads : 0;
    r->max_memory = opts ? opts->max_memory : 0;
    r->emit = emit;
    r->emit_user = user;
    pk_status st = parse_sections(sections, &r->sections);
    if (!st) st = pk_model_new(&r->p);
    for (int f = 0; !st && f < HK_NFILES; f++) {
        r->f[f].name = file_names[f];
        r->f[f].source = pk_model_add_source(r->p, file_names[f]);
    }
    return st;
}

static pk_status reader_finish(hk_reader *r, pk_status st, pk_profile **out)
{
    reader_free(r);
    if (st == PK_OK && out) {
        *out = r->p;
        return PK_OK;
    }
    pk_profile_free(r->p);
    return st;
}

pk_status hk_open_memory(size_t n, const char *const *names, const void *const *data,
                         const uint64_t *sizes, const pk_open_options *opts, pk_record_fn emit,
                         void *user, const char *sections, pk_profile **out)
{
    hk_reader r;
    pk_status st = reader_init(&r, opts, emit, user, sections);
    for (size_t i = 0; !st && i < n; i++) {
        int fid = -1;
        for (int f = 0; f < HK_NFILES; f++)
            if (names[i] && strcmp(names[i], file_names[f]) == 0) fid = f;
        if (fid < 0) {
            st = pk_fail(PK_ERR_INVALID_ARG, "'%s' is not a file of an HPCToolkit v4 database",
                         names[i] ? names[i] : "(null)");
            break;
        }
        r.f[fid].data = data[i];
        r.f[fid].size = sizes[i];
        r.f[fid].present = 1;
        r.f[fid].source->present = 1;
        r.f[fid].source->size = sizes[i];
    }
    if (!st) r.p->path = "(memory)";
    if (!st) st = hk_run(&r);
    return reader_finish(&r, st, out);
}

/* An optional file the caller asked not to read is not even opened. */
static int skipped(const hk_reader *r, int f)
{
    return (f == HK_TRACE && (r->flags & PK_OPEN_NO_TRACES)) ||
           (f == HK_CCT && (r->flags & PK_OPEN_NO_CCT));
}

/* An optional file that cannot be opened (permission, not a regular
 * file): fatal, unless KEEP_GOING drops it as it drops a damaged one. */
static pk_status unreadable_optional(hk_reader *r, int f)
{
    if (!(r->flags & PK_OPEN_KEEP_GOING)) return PK_ERR_IO;
    r->f[f].source->present = 1;
    r->p->complete = 0;
    return pk_model_diag(r->p, PK_SEV_ERROR, "unreadable-file", file_names[f], NULL, 0, 0,
                         "%s (the file was not loaded)", pk_error_last());
}

/* A file of the database is there to be read: it exists, or its name is
 * there but cannot be followed (a symbolic link loop: ELOOP; no
 * permission on the way): then the open says why, rather than the file
 * being taken for absent. */
static int named(const char *full)
{
    struct stat st;
    return stat(full, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

pk_status hk_open_dir(const char *path, const pk_open_options *opts, pk_record_fn emit, void *user,
                      const char *sections, pk_profile **out)
{
    hk_reader r;
    pk_status st = reader_init(&r, opts, emit, user, sections);
    if (!st) {
        r.p->path = r.dir = pk_intern_cstr(&r.p->strings, path);
        if (!r.p->path) st = pk_fail_nomem("opening a database");
    }
    for (int f = 0; !st && f < HK_NFILES; f++) {
        char full[4096];
        if ((size_t)snprintf(full, sizeof full, "%s/%s", path, file_names[f]) >= sizeof full)
            st = pk_fail(PK_ERR_IO, "%s: path too long", path);
        else if (named(full) && !skipped(&r, f))
            /* profile.db and cct.db: read ahead only when every block is
             * validated at open (read_profile.c, read_cct.c) */
            st = f == HK_PROFILE || f == HK_CCT ? pk_map_file_cold(full, &r.f[f].source->map)
                                                : pk_map_file(full, &r.f[f].source->map);
        else
            continue;
        if (st && f != HK_META) st = unreadable_optional(&r, f);
        if (st || !r.f[f].source->map.data) continue;
        r.f[f].data = r.f[f].source->map.data;
        r.f[f].size = r.f[f].source->map.size;
        r.f[f].present = 1;
        r.f[f].source->present = 1;
        r.f[f].source->size = r.f[f].size;
    }
    if (!st) st = hk_run(&r);
    return reader_finish(&r, st, out);
}

int hk_detect_dir(const char *path)
{
    char full[4096];
    if ((size_t)snprintf(full, sizeof full, "%s/meta.db", path) >= sizeof full) return 0;
    return pk_path_exists(full);
}
