/*
 * formats/hpctoolkit_xml/read.c — opening a legacy HPCToolkit database
 * (experiment.xml 2.x): which files are read, in which order, and how the
 * threads they describe become locations.
 *
 * Per-thread values come from experiment-1.mdb (or experiment.mdb) when
 * hpcviewer has merged the metric-db files, else from the *.metric-db
 * files themselves (sorted by name, as hpcviewer and Hatchet list them);
 * traces from experiment.mt, else *.hpctrace. experiment.xml is required;
 * everything else is optional (hpcprof without --metric-db writes only the
 * summary values in experiment.xml).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx.h"
#include "util/bytes.h"
#include "util/mapfile.h"

pk_status hx_fail(const hx_file *f, const char *structure, uint64_t off, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pk_fail(PK_ERR_FORMAT, "%s: %s at byte %llu: %s", f ? f->name : "experiment.xml",
                   structure, (unsigned long long)off, msg);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int cmp_loc(const void *a, const void *b)
{
    const struct hx_loc *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

/* Identifier tuple as hpcviewer builds it for these databases (FileDB2):
 * RANK and THREAD when both vary, RANK or THREAD when one does, THREAD
 * (physical = thread id, logical = position) when neither does. */
static pk_status set_ids(hx_reader *r, pk_loc_rec *l, const struct hx_loc *h, int mp, int mt,
                         uint32_t pos)
{
    pk_profile *p = r->p;
    pk_ident *ids = pk_arena_array(&p->arena, 2, sizeof *ids);
    if (!ids) return pk_fail_nomem("adding locations");
    uint32_t n = 0;
    if (mp) ids[n++] = (pk_ident){2, p->id_kind_names[2], 0, h->rank, h->rank};
    if (mt || !mp)
        ids[n++] = (pk_ident){3, p->id_kind_names[3], 0, mt || mp ? h->thread : pos, h->thread};
    l->ids = ids, l->n_ids = n;
    return PK_OK;
}

static pk_status add_unlisted(hx_reader *r)
{
    pk_profile *p = r->p;
    if (!r->unlisted.count) return PK_OK;
    uint64_t *ids = pk_idset_sorted(&r->unlisted);
    if (!ids) return pk_fail_nomem("collecting context ids");
    pk_status st = PK_OK;
    for (size_t i = 0; i < r->unlisted.count && !st; i++) {
        pk_ctx_rec *c;
        uint32_t index;
        st = pk_model_add_context(p, &c, &index);
        if (!st) c->id = ids[i], c->kind = PK_CTX_UNKNOWN, c->flags = PK_CTXF_UNLISTED;
    }
    unsigned long long first = ids[0];
    free(ids);
    if (!st) st = pk_model_index_contexts(p);
    if (!st)
        st = pk_model_diag(p, PK_SEV_WARNING, "unlisted-context", "experiment.xml",
                           "SecCallPathProfileData", 0, 0,
                           "%zu node ids have per-thread values but no node in experiment.xml "
                           "(first: %llu); their values are kept as unplaced contexts",
                           r->unlisted.count, first);
    return st;
}

static pk_status attach_traces(hx_reader *r)
{
    pk_profile *p = r->p;
    size_t n = 0;
    for (size_t i = 0; i < r->n_locs; i++)
        n += r->locs[i].trace != NULL;
    if (!n) return PK_OK;
    p->traces = pk_arena_array(&p->arena, n, sizeof *p->traces);
    if (!p->traces) return pk_fail_nomem("adding traces");
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < r->n_locs; i++) {
        const struct hx_loc *h = &r->locs[i];
        if (!h->trace) continue;
        p->locs[i + 1].trace = p->n_traces;
        p->traces[p->n_traces++] = (pk_trace_rec){(uint32_t)i + 1, h->trace, h->n_samples};
        for (uint64_t k = 0; k < h->n_samples; k++) {
            uint64_t t = pk_le64(h->trace + k * PK_SAMPLE_SIZE);
            lo = t < lo ? t : lo, hi = t > hi ? t : hi;
        }
    }
    double u = r->x.trace_units > 0 ? 1e9 / r->x.trace_units : 1;
    if (r->x.has_trace_db && r->x.trace_max && u == 1) /* ns: exact */
        lo = r->x.trace_min, hi = r->x.trace_max;
    else if (r->x.has_trace_db && r->x.trace_max)
        lo = (uint64_t)((double)r->x.trace_min * u), hi = (uint64_t)((double)r->x.trace_max * u);
    p->trace_begin = lo <= hi ? lo : 0, p->trace_end = lo <= hi ? hi : 0;
    p->has_trace_range = 1;
    if (r->trace_unknown)
        pk_model_diag(p, PK_SEV_WARNING, "unknown-trace-id", "hpctrace", NULL, 0, 0,
                      "%llu trace samples name a trace id no node of experiment.xml has (it=); "
                      "they are kept as samples without a context",
                      (unsigned long long)r->trace_unknown);
    if (r->trace_unordered)
        pk_model_diag(p, PK_SEV_WARNING, "trace-order", "hpctrace", NULL, 0, 0,
                      "%d trace samples are earlier than the sample before them",
                      r->trace_unordered);
    return PK_OK;
}

/* The summary location first (as profile 0 of a v4 database), then one
 * plain location per thread, by rank and thread. */
static pk_status finish_locations(hx_reader *r)
{
    pk_profile *p = r->p;
    int draft = r->x.major == 4; /* profile.db order, tuples from the file */
    if (r->n_locs && !draft) qsort(r->locs, r->n_locs, sizeof *r->locs, cmp_loc);
    pk_loc_rec *locs = pk_arena_array(&p->arena, r->n_locs + 1, sizeof *locs);
    if (!locs) return pk_fail_nomem("adding locations");
    locs[0] = p->locs[0];
    int mp = 0, mt = 0;
    for (size_t i = 0; i < r->n_locs; i++)
        mp |= r->locs[i].rank != 0, mt |= r->locs[i].thread != 0;
    pk_status st = PK_OK;
    for (size_t i = 0; i < r->n_locs && !st; i++) {
        pk_loc_rec *l = &locs[i + 1];
        *l =
            (pk_loc_rec){.raw_index = (uint32_t)i + 1, .trace = PK_NONE, .plane = r->locs[i].plane};
        if (draft)
            l->ids = r->locs[i].ids, l->n_ids = r->locs[i].n_ids;
        else
            st = set_ids(r, l, &r->locs[i], mp, mt, (uint32_t)i);
    }
    p->locs = locs, p->n_locs = (uint32_t)r->n_locs + 1;
    if (!st) st = add_unlisted(r);
    if (!st) st = attach_traces(r);
    return st;
}

typedef enum {
    K_XML,
    K_MDB,
    K_METRICDB,
    K_MT,
    K_TRACE,
    K_PROFILE_DB,
    K_CCT_DB,
    K_TRACE_DB,
    K_OTHER
} file_kind;

static file_kind kind_of(const char *name)
{
    const char *b = base_name(name);
    if (strcmp(b, "experiment.xml") == 0) return K_XML;
    if (ends_with(b, ".mdb")) return K_MDB;
    if (ends_with(b, ".metric-db")) return K_METRICDB;
    if (ends_with(b, ".mt")) return K_MT;
    if (ends_with(b, ".hpctrace")) return K_TRACE;
    if (strcmp(b, "profile.db") == 0) return K_PROFILE_DB;
    if (strcmp(b, "cct.db") == 0) return K_CCT_DB;
    if (strcmp(b, "trace.db") == 0) return K_TRACE_DB;
    return K_OTHER;
}

static void note_source(hx_reader *r, const char *role, const hx_file *f)
{
    pk_profile *p = r->p;
    for (size_t i = 0; i < p->n_sources; i++)
        if (strcmp(p->sources[i].name, role) == 0) {
            p->sources[i].size += f->size;
            return;
        }
    pk_source_rec *s = pk_model_add_source(p, role);
    if (s)
        s->present = s->loaded = 1, s->size = f->size, s->major = r->x.major, s->minor = r->x.minor;
}

/* The draft 4.0 database: profile.db checked (and cct.db) before the
 * model is built, values and traces after. */
static pk_status run_draft(hx_reader *r, const hx_file *const by_kind[K_OTHER])
{
    pk_status st = hx_draft_scan(r, by_kind[K_PROFILE_DB], by_kind[K_CCT_DB]);
    if (!st) st = hx_build_model(r);
    if (!st) st = hx_draft_values(r);
    if (!st && by_kind[K_TRACE_DB] && !(r->flags & PK_OPEN_NO_TRACES))
        st = hx_read_trace_db(r, by_kind[K_TRACE_DB]);
    if (st) return st;
    static const char *const roles[] = {"experiment.xml", "profile.db", "cct.db", "trace.db"};
    static const file_kind kinds[] = {K_XML, K_PROFILE_DB, K_CCT_DB, K_TRACE_DB};
    for (size_t i = 0; i < 4; i++)
        if (by_kind[kinds[i]]) note_source(r, roles[i], by_kind[kinds[i]]);
    st = finish_locations(r);
    r->p->format = PK_FORMAT_HPCTOOLKIT_DRAFT;
    r->p->format_name = "hpctoolkit-draft";
    r->p->major = r->x.major, r->p->minor = r->x.minor;
    if (!st) st = pk_model_finish_diagnostics(r->p);
    return st;
}

/* Read the files (experiment.xml among them) into r->p. */
static pk_status run(hx_reader *r, const hx_file *files, size_t n)
{
    const hx_file *by_kind[K_OTHER] = {0};
    for (size_t i = 0; i < n; i++)
        if (kind_of(files[i].name) != K_OTHER) by_kind[kind_of(files[i].name)] = &files[i];
    const hx_file *xml = by_kind[K_XML];
    if (!xml) return pk_fail(PK_ERR_FORMAT, "experiment.xml: missing");
    pk_status st = hx_parse_xml(r, xml);
    if (!st && r->x.major == 4) return run_draft(r, by_kind);
    if (!st) st = hx_build_model(r);
    if (st) return st;
    note_source(r, "experiment.xml", xml);
    static const char *const roles[] = {"", "experiment.mdb", "metric-db", "experiment.mt",
                                        "hpctrace"};
    for (int pass = K_MDB; pass <= K_TRACE && !st; pass++) {
        if (pass >= K_MT && (r->flags & PK_OPEN_NO_TRACES)) break;
        for (size_t i = 0; i < n && !st; i++) {
            if (kind_of(files[i].name) != (file_kind)pass) continue;
            st = pass == K_MDB        ? hx_read_mdb(r, &files[i])
                 : pass == K_METRICDB ? hx_read_metric_db(r, &files[i])
                 : pass == K_MT       ? hx_read_mt(r, &files[i])
                                      : hx_read_hpctrace(r, &files[i]);
            note_source(r, roles[pass], &files[i]);
        }
    }
    if (!st) st = finish_locations(r);
    r->p->format = PK_FORMAT_HPCTOOLKIT_XML;
    r->p->format_name = "hpctoolkit-xml";
    r->p->major = r->x.major, r->p->minor = r->x.minor;
    if (!st) st = pk_model_finish_diagnostics(r->p);
    return st;
}

static void reader_free(hx_reader *r)
{
    hx_exp *x = &r->x;
    free(x->nodes), free(x->mvals), free(x->metrics), free(x->dbs);
    free(x->lms), free(x->files), free(x->procs), free(x->idnames);
    free(r->ctx_of_node), free(r->locs), free(r->tops), free(r->plain_incl);
    pk_kmap_free(&r->trace_ids);
    pk_idset_free(&r->unlisted);
}

static pk_status open_files(const hx_file *files, size_t n, const char *path,
                            const pk_open_options *opts, pk_profile **out)
{
    hx_reader r;
    memset(&r, 0, sizeof r);
    r.flags = opts ? opts->flags : 0;
    pk_status st = pk_model_new(&r.p);
    if (!st) {
        r.p->path = pk_intern_cstr(&r.p->strings, path);
        if (!r.p->path) st = pk_fail_nomem("opening a database");
    }
    if (!st) st = run(&r, files, n);
    reader_free(&r);
    if (st == PK_OK) {
        *out = r.p;
        return PK_OK;
    }
    pk_profile_free(r.p);
    return st;
}

pk_status hx_open_memory(size_t n, const char *const *names, const void *const *data,
                         const uint64_t *sizes, const pk_open_options *opts, pk_profile **out)
{
    hx_file *files = calloc(n ? n : 1, sizeof *files);
    if (!files) return pk_fail_nomem("opening a database");
    for (size_t i = 0; i < n; i++)
        files[i] = (hx_file){names[i] ? base_name(names[i]) : "(null)", data[i], sizes[i]};
    pk_status st = open_files(files, n, "(memory)", opts, out);
    free(files);
    return st;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the files to read in `path`, sorted; only one source of
 * per-thread values and one of traces. */
static pk_status list_files(const char *path, char ***out, size_t *n_out)
{
    DIR *d = opendir(path);
    if (!d) return pk_fail(PK_ERR_IO, "%s: cannot list the directory", path);
    char **names = NULL;
    size_t n = 0, cap = 0;
    int has[K_OTHER + 1] = {0}, mdb1 = 0;
    pk_status st = PK_OK;
    for (struct dirent *e; (e = readdir(d)) && !st;) {
        file_kind k = kind_of(e->d_name);
        if (k == K_OTHER ||
            (k == K_MDB && strcmp(e->d_name, "experiment-1.mdb") != 0 &&
             strcmp(e->d_name, "experiment.mdb") != 0) ||
            (k == K_MT && strcmp(e->d_name, "experiment.mt") != 0))
            continue;
        has[k] = 1, mdb1 |= strcmp(e->d_name, "experiment-1.mdb") == 0;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **t = realloc(names, cap * sizeof *t);
            if (!t)
                st = pk_fail_nomem("listing the database");
            else
                names = t;
        }
        if (!st && !(names[n++] = strdup(e->d_name))) st = pk_fail_nomem("listing the database");
    }
    closedir(d);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) { /* a merged file replaces the files it merged */
        file_kind fk = kind_of(names[i]);
        int drop = (fk == K_METRICDB && has[K_MDB]) || (fk == K_TRACE && has[K_MT]) ||
                   (fk == K_MDB && mdb1 && strcmp(names[i], "experiment.mdb") == 0);
        if (drop)
            free(names[i]);
        else
            names[k++] = names[i];
    }
    if (names) qsort(names, k, sizeof *names, cmp_str);
    *out = names, *n_out = k;
    return st;
}

pk_status hx_open_dir(const char *path, const pk_open_options *opts, pk_profile **out)
{
    char **names = NULL;
    size_t n = 0;
    pk_status st = list_files(path, &names, &n);
    pk_mapfile *maps = calloc(n ? n : 1, sizeof *maps);
    hx_file *files = calloc(n ? n : 1, sizeof *files);
    if (!st && (!maps || !files)) st = pk_fail_nomem("opening a database");
    for (size_t i = 0; i < n && !st; i++) {
        char full[4096];
        if ((size_t)snprintf(full, sizeof full, "%s/%s", path, names[i]) >= sizeof full)
            st = pk_fail(PK_ERR_IO, "%s: path too long", path);
        else
            st = pk_map_file(full, &maps[i]);
        files[i] = (hx_file){names[i], maps[i].data, maps[i].size};
    }
    if (!st) st = open_files(files, n, path, opts, out);
    for (size_t i = 0; i < n; i++) {
        if (maps) pk_unmap_file(&maps[i]);
        free(names[i]);
    }
    free(names), free(maps), free(files);
    return st;
}

int hx_detect_dir(const char *path)
{
    char full[4096];
    if ((size_t)snprintf(full, sizeof full, "%s/experiment.xml", path) >= sizeof full) return 0;
    return pk_path_is_dir(path) && pk_path_exists(full) ? 2 : 0;
}
