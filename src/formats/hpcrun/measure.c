/*
 * formats/hpcrun/measure.c — opening an hpcrun measurement directory (the
 * *.m directory hpcrun writes: one .hpcrun profile, and maybe one
 * .hpctrace trace, per thread or GPU stream), a single .hpcrun file, or
 * in-memory images of such files, as one profile.
 *
 * Files are taken in name order (hpcrun's names sort by rank, then
 * thread), mapped, parsed (hr_parse, hr_trace_parse), merged into the
 * builder (measure_cct.c, measure_values.c) and released one at a time.
 * A damaged file fails the open with an error naming it; with
 * PK_OPEN_KEEP_GOING it is left out, reported, and the profile is marked
 * incomplete.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "util/vec.h"

pk_status hm_fail(const hm_build *b, uint64_t offset, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pk_fail(PK_ERR_FORMAT, "%s: at byte offset %llu: %s", b->file ? b->file : "?",
                   (unsigned long long)offset, msg);
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

pk_status hm_module_of(hm_build *b, const char *path, size_t len, uint32_t *out)
{
    pk_profile *p = b->p;
    const char *s = pk_intern(&p->strings, path, len);
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)(uintptr_t)s};
    int added;
    if (!s || pk_kmap_upsert(&b->mod_map, key, p->n_modules, out, &added) ||
        (added && pk_vec_reserve((void **)&p->modules, &b->cap_modules, p->n_modules + 1u,
                                 sizeof(pk_module))))
        return pk_fail_nomem("reading the loadmap");
    if (added) p->modules[p->n_modules++] = (pk_module){s};
    return PK_OK;
}

/* The model module of a loadmap path; relative paths (gpubins, vdso
 * copies) are inside the measurement directory, as hpcprof reads them. */
static pk_status module_of(hm_build *b, hr_str path, uint32_t *out)
{
    char buf[4096];
    int rel = path.len && path.p[0] != '/' && b->dir;
    int n = snprintf(buf, sizeof buf, "%s%s%.*s", rel ? b->dir : "", rel ? "/" : "", (int)path.len,
                     path.len ? path.p : "");
    if (n < 0 || (size_t)n >= sizeof buf)
        return hm_fail(b, 0, "loadmap: a module path of %u bytes is too long", path.len);
    return hm_module_of(b, buf, (size_t)n, out);
}

static pk_status read_loadmap(hm_build *b, const hr_epoch *e)
{
    uint32_t max = 0;
    for (uint32_t i = 0; i < e->n_loadmap; i++)
        if (e->loadmap[i].id > max) max = e->loadmap[i].id;
    if (pk_vec_reserve((void **)&b->lm_module, &b->cap_lm, max + 1u, sizeof *b->lm_module))
        return pk_fail_nomem("reading the loadmap");
    memset(b->lm_module, 0xff, b->cap_lm * sizeof *b->lm_module);
    pk_status st = PK_OK;
    for (uint32_t i = 0; i < e->n_loadmap && !st; i++)
        st = module_of(b, e->loadmap[i].path, &b->lm_module[e->loadmap[i].id]);
    return st;
}

/* Identifier tuple of a file: its own (04.00), or RANK / THREAD from the
 * header's mpi-rank and thread-id (02.00/03.00 have none). */
static pk_status copy_ids(hm_build *b, const hr_file *f, hm_loc *loc)
{
    pk_profile *p = b->p;
    if (f->has_sparse) {
        const hr_idtuple *t = &f->sparse.idtuple;
        hr_id *ids = pk_arena_array(&p->arena, t->n + 1u, sizeof *ids);
        if (!ids) return pk_fail_nomem("reading the identifier tuple");
        if (t->n) memcpy(ids, t->ids, t->n * sizeof *ids);
        loc->ids = ids, loc->n_ids = t->n;
        return PK_OK;
    }
    hr_id *ids = pk_arena_array(&p->arena, 2, sizeof *ids);
    if (!ids) return pk_fail_nomem("reading the identifier tuple");
    static const char *const keys[2] = {"mpi-rank", "thread-id"};
    static const uint16_t kinds[2] = {HR_IDKIND_RANK, HR_IDKIND_THREAD};
    for (int k = 0; k < 2; k++) {
        hr_str v = {0};
        char num[32] = "0";
        if (hr_nvpairs_find(&f->hdr, keys[k], &v) && v.len < sizeof num)
            memcpy(num, v.p, v.len), num[v.len] = 0;
        long long x = strtoll(num, NULL, 10);
        uint64_t u = x < 0 ? 0 : (uint64_t)x;
        ids[k] = (hr_id){(uint16_t)(kinds[k] | HR_IDINTERP_SINGLE << 14), kinds[k],
                         HR_IDINTERP_SINGLE, u, u};
    }
    loc->ids = ids, loc->n_ids = 2;
    return PK_OK;
}

static pk_status profile_attrs(hm_build *b, const hr_file *f)
{
    pk_profile *p = b->p;
    static const char *const keys[] = {"program-name", "program-path", "job-id"};
    pk_status st = PK_OK;
    for (size_t k = 0; k < sizeof keys / sizeof *keys && !st; k++) {
        hr_str v;
        char key[40];
        if (!hr_nvpairs_find(&f->hdr, keys[k], &v)) continue;
        snprintf(key, sizeof key, "hpcrun:%s", keys[k]);
        st = pk_model_add_attr(p, PK_ENTITY_PROFILE, 0, key, v.len ? v.p : "", v.len);
        if (!st && k == 0) p->title = pk_intern(&p->strings, v.len ? v.p : "", v.len);
    }
    b->major = (unsigned)f->major, b->minor = (unsigned)f->minor;
    return st;
}

/* One image: a .hpcrun profile and, when there is one, its .hpctrace. */
typedef struct hm_pair {
    const char *name, *trace_name; /* paths (or names) used in messages */
    const void *data, *tdata;
    uint64_t size, tsize;
    int has_trace;
} hm_pair;

static pk_status read_epochs(hm_build *b, const hr_file *f, hm_loc *loc)
{
    pk_status st = copy_ids(b, f, loc);
    for (uint32_t i = 0; i < f->n_epochs && !st; i++) {
        const hr_epoch *e = &f->epochs[i];
        st = read_loadmap(b, e);
        if (!st) st = hm_read_metrics(b, e);
        if (!st) st = hm_read_nodes(b, f, e);
        if (!st) st = hm_read_values(b, f, e, loc);
    }
    return st;
}

/* Drop what a damaged file added to location `loc` (KEEP_GOING). */
static void forget(hm_loc *loc, int trace_only)
{
    free(loc->samples);
    loc->samples = NULL, loc->n_samples = 0, loc->has_trace = 0;
    if (trace_only) return;
    free(loc->vals);
    loc->vals = NULL, loc->n_vals = loc->cap_vals = 0;
}

static pk_status keep_going(hm_build *b, const char *file, pk_status st)
{
    if (!(b->flags & PK_OPEN_KEEP_GOING) || st == PK_ERR_NOMEM) return st;
    b->p->complete = 0;
    return pk_model_diag(b->p, PK_SEV_ERROR, "damaged-file", file, NULL, 0, 0,
                         "%s; the file is left out", pk_error_last());
}

static pk_status read_trace(hm_build *b, const hm_pair *in, const hr_file *f, hm_loc *loc)
{
    hr_trace t;
    b->file = in->trace_name;
    pk_status st = hr_trace_parse(in->trace_name, in->tdata, in->tsize, &t);
    if (!st && (t.flags & HR_TRACE_DATA_CENTRIC)) /* hpcprof reads no data-centric traces */
        return pk_model_diag(b->p, PK_SEV_WARNING, "data-centric-trace", in->trace_name, NULL, 0, 0,
                             "a data-centric trace (flag 0x1), which hpcprof does not read: "
                             "left out");
    if (!st) st = hm_read_trace(b, &t, f->major < 3, loc);
    if (!st) b->n_traces++, b->hpctrace_bytes += in->tsize;
    if (st) forget(loc, 1);
    return st ? keep_going(b, in->trace_name, st) : PK_OK;
}

static pk_status read_pair(hm_build *b, const hm_pair *in)
{
    pk_arena scratch;
    pk_arena_init(&scratch);
    hr_file f;
    b->file = in->name;
    if (pk_vec_reserve((void **)&b->locs, &b->cap_locs, b->n_locs + 1u, sizeof *b->locs))
        return pk_fail_nomem("reading a measurement");
    hm_loc *loc = &b->locs[b->n_locs];
    memset(loc, 0, sizeof *loc);
    loc->file = pk_intern_cstr(&b->p->strings, base_name(in->name));
    pk_status st = loc->file ? PK_OK : pk_fail_nomem("reading a measurement");
    if (!st) st = hr_parse(in->name, in->data, in->size, &scratch, &f);
    if (!st && b->n_locs == 0) st = profile_attrs(b, &f);
    if (!st) st = read_epochs(b, &f, loc);
    if (!st) b->n_locs++, b->hpcrun_bytes += in->size;
    if (!st && in->has_trace)
        st = read_trace(b, in, &f, loc);
    else if (st) {
        forget(loc, 0);
        st = keep_going(b, in->name, st);
    }
    pk_arena_free(&scratch);
    return st;
}

void hm_build_free(hm_build *b)
{
    pk_kmap *maps[] = {&b->ctx_map,    &b->mod_map,   &b->fn_map,  &b->file_map,
                       &b->metric_map, &b->frame_map, &b->node_map};
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        pk_kmap_free(maps[i]);
    for (uint32_t l = 0; l < b->n_locs; l++) /* a failed file's slot was cleaned already */
        forget(&b->locs[l], 0);
    free(b->ctx), free(b->metrics), free(b->locs), free(b->nodes), free(b->lm_module);
    free(b->fmetrics), free(b->frames), free(b->node_slot), free(b->kv), free(b->kv_tmp),
        free(b->points);
    free(b->fn_keys);
    hs_free(b->sym);
}

pk_status hm_build_init(hm_build *b, pk_profile *p, const pk_open_options *opts, const char *dir,
                        int symbols)
{
    memset(b, 0, sizeof *b);
    b->p = p;
    b->flags = opts ? opts->flags : 0;
    b->dir = dir;
    b->sym = symbols ? hs_new() : NULL;
    /* the key words each map uses (hashing fewer is faster) */
    b->ctx_map.words = 7, b->fn_map.words = 4, b->frame_map.words = 2;
    b->mod_map.words = b->file_map.words = b->metric_map.words = 1;
    hm_ctx root = {.parent = PK_NONE,
                   .kind = PK_CTX_ROOT,
                   .function = PK_NONE,
                   .file = PK_NONE,
                   .module = PK_NONE};
    uint32_t at;
    return hm_ctx_get(b, &root, &at);
}

static void add_sources(hm_build *b)
{
    pk_profile *p = b->p;
    pk_source_rec *s = pk_model_add_source(p, "hpcrun");
    if (s) *s = (pk_source_rec){"hpcrun", 1, 1, b->hpcrun_bytes, b->major, b->minor, {0}};
    if (!b->n_traces) return;
    s = pk_model_add_source(p, "hpctrace");
    if (s) *s = (pk_source_rec){"hpctrace", 1, 1, b->hpctrace_bytes, 1, 1, {0}};
}

static pk_status report(hm_build *b)
{
    pk_profile *p = b->p;
    pk_status st = PK_OK;
    if (b->dropped_nodes)
        st = pk_model_diag(p, PK_SEV_WARNING, "gpu-range-tree", NULL, NULL, 0, 0,
                           "%llu CCT nodes of GPU range trees (load module ids 65531-65533) and "
                           "their %llu values are left out: profkit does not read range trees yet",
                           (unsigned long long)b->dropped_nodes,
                           (unsigned long long)b->dropped_values);
    if (!st && b->formula_values)
        st = pk_model_diag(p, PK_SEV_WARNING, "formula-metric-values", NULL, NULL, 0, 0,
                           "%llu values of metrics defined by a formula are left out",
                           (unsigned long long)b->formula_values);
    if (!st && b->unmapped_samples)
        st = pk_model_diag(p, PK_SEV_NOTE, "unmapped-trace-samples", NULL, NULL, 0, 0,
                           "%llu trace records name no CCT node of their profile; left out, as "
                           "hpcprof does",
                           (unsigned long long)b->unmapped_samples);
    if (!st && (b->sym || b->sym_note))
        st = pk_model_diag(p, PK_SEV_NOTE, "symbols", NULL, NULL, 0, 0,
                           "%u of %u code addresses resolved from the load modules' symbols",
                           b->n_resolved, b->n_frames);
    return st;
}

/* Everything after the last file: the tree, metrics, locations, values
 * (derived unless `plain`: a parallel build derives its own share). */
pk_status hm_finish(hm_build *b, const char *path, int plain)
{
    pk_profile *p = b->p;
    if (!b->n_locs) return pk_fail(PK_ERR_FORMAT, "%s: no readable .hpcrun profile", path);
    uint32_t *new_index = NULL;
    pk_status st = hm_layout(b, &new_index);
    if (!st) st = hm_finish_model(b, new_index, plain);
    free(new_index);
    add_sources(b);
    p->format = PK_FORMAT_HPCRUN, p->format_name = "hpcrun";
    p->major = b->major, p->minor = b->minor;
    if (!st) st = report(b);
    pk_model_sort_attrs(p);
    if (!st) st = pk_model_finish_diagnostics(p);
    return st;
}

/* The growing dimension arrays are malloc'ed; the profile frees them. */
pk_status hm_adopt_arrays(pk_profile *p)
{
    void *blocks[] = {p->files, p->functions, p->modules};
    pk_status st = PK_OK;
    for (size_t i = 0; i < 3; i++)
        if (blocks[i] && pk_model_adopt_owned(p, blocks[i])) st = PK_ERR_NOMEM;
    return st;
}

static pk_status run(const char *path, const char *dir, const pk_open_options *opts, int symbols,
                     pk_status (*next)(void *ctx, size_t i, hm_pair *in, int *done), void *ctx,
                     pk_profile **out)
{
    pk_profile *p;
    pk_status st = pk_model_new(&p);
    if (st) return st;
    p->path = pk_intern_cstr(&p->strings, path);
    hm_build b;
    memset(&b, 0, sizeof b);
    if (!p->path) st = pk_fail_nomem("opening");
    if (!st) st = hm_build_init(&b, p, opts, dir, symbols);
    for (size_t i = 0; !st; i++) {
        hm_pair in = {0};
        int done = 0;
        st = next(ctx, i, &in, &done);
        if (st == PK_ERR_IO && in.name) { /* cannot be opened (a FIFO...): as if damaged */
            st = keep_going(&b, in.name, st);
            next(ctx, i, NULL, &done);
            continue;
        }
        if (st || done) break;
        st = read_pair(&b, &in);
        next(ctx, i, NULL, &done); /* release the images */
    }
    int done;
    next(ctx, 0, NULL, &done); /* also after a failure */
    if (!st) st = hm_finish(&b, path, 0);
    hm_build_free(&b);
    if (hm_adopt_arrays(p) && !st) st = PK_ERR_NOMEM;
    if (st) {
        pk_profile_free(p);
        return st;
    }
    *out = p;
    return PK_OK;
}

/* Files of a directory (or one file), mapped one pair at a time. */
typedef struct dir_iter {
    const char *dir;
    char **names;
    size_t n;
    pk_mapfile m, tm;
    pk_loadbuf buf, tbuf; /* files are read, one after the other, into these */
    char path[4096], tpath[4096];
} dir_iter;

/* Files up to this size are read into a buffer, bigger ones mapped: a
 * measurement holds thousands of small files, and a read(2) costs less
 * than a mapping's page faults and unmapping. */
#define HM_READ_LIMIT (64u << 20)

static void dir_iter_free(dir_iter *it)
{
    pk_loadbuf_free(&it->buf), pk_loadbuf_free(&it->tbuf);
}

static pk_status dir_next(void *ctx, size_t i, hm_pair *in, int *done)
{
    dir_iter *it = ctx;
    if (!in) {
        pk_unmap_file(&it->m), pk_unmap_file(&it->tm);
        return PK_OK;
    }
    if (i >= it->n) {
        *done = 1;
        return PK_OK;
    }
    int n = snprintf(it->path, sizeof it->path, "%s/%s", it->dir, it->names[i]);
    if (n < 0 || (size_t)n >= sizeof it->path - 8)
        return pk_fail(PK_ERR_IO, "%s/%s: path too long", it->dir, it->names[i]);
    memcpy(it->tpath, it->path, (size_t)n - 7); /* ".hpcrun" -> ".hpctrace" */
    memcpy(it->tpath + n - 7, ".hpctrace", 10);
    in->name = it->path; /* for the caller's report, should mapping fail */
    it->buf.limit = it->tbuf.limit = HM_READ_LIMIT;
    pk_status st = pk_load_file(it->path, &it->buf, &it->m);
    if (st) return st;
    *in = (hm_pair){it->path, it->tpath, it->m.data, NULL, it->m.size, 0, 0};
    if (pk_path_exists(it->tpath)) {
        st = pk_load_file(it->tpath, &it->tbuf, &it->tm);
        in->tdata = it->tm.data, in->tsize = it->tm.size, in->has_trace = !st;
    }
    return st;
}

pk_status hm_read_files(hm_build *b, const char *dir, char **names, size_t n)
{
    dir_iter it = {.dir = dir, .names = names, .n = n};
    pk_status st = PK_OK;
    for (size_t i = 0; i < n && !st; i++) {
        hm_pair in = {0};
        int done = 0;
        st = dir_next(&it, i, &in, &done);
        if (!st) st = read_pair(b, &in);
        dir_next(&it, i, NULL, &done); /* release the images */
    }
    dir_iter_free(&it);
    return st;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of the .hpcrun files of dir, sorted; *n = 0 when there are none. */
pk_status hm_list_dir(const char *dir, char ***names, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d) return pk_fail(PK_ERR_IO, "%s: cannot read the directory", dir);
    size_t cap = 0;
    *names = NULL, *n = 0;
    pk_status st = PK_OK;
    for (struct dirent *e; !st && (e = readdir(d));) {
        if (!has_suffix(e->d_name, ".hpcrun")) continue;
        char *s = strdup(e->d_name);
        if (!s || pk_vec_reserve((void **)names, &cap, *n + 1, sizeof **names)) {
            free(s);
            st = pk_fail_nomem("listing a measurement directory");
        } else
            (*names)[(*n)++] = s;
    }
    closedir(d);
    if (*n) qsort(*names, *n, sizeof **names, cmp_name);
    return st;
}

void hm_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int hm_detect_path(const char *path)
{
    if (!pk_path_is_dir(path)) return hr_detect_path(path) == HR_KIND_PROFILE;
    char **names;
    size_t n;
    if (hm_list_dir(path, &names, &n)) return 0;
    hm_free_names(names, n);
    return n > 0;
}

pk_status hm_open(const char *path, const pk_open_options *opts, pk_profile **out)
{
    dir_iter it = {0};
    char dir[4096];
    const char *one = NULL;
    if (pk_path_is_dir(path)) {
        snprintf(dir, sizeof dir, "%s", path);
    } else { /* one file: its directory holds the relative module paths */
        const char *slash = strrchr(path, '/');
        one = slash ? slash + 1 : path;
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
        if (!*dir) snprintf(dir, sizeof dir, "/");
        if (!has_suffix(one, ".hpcrun"))
            return pk_fail(PK_ERR_UNSUPPORTED, "%s: a measurement profile must be named *.hpcrun",
                           path);
    }
    it.dir = dir;
    pk_status st = PK_OK;
    if (one) {
        it.names = malloc(sizeof *it.names);
        if (it.names) it.names[0] = strdup(one);
        if (!it.names || !it.names[0]) st = pk_fail_nomem("opening");
        it.n = it.names && it.names[0] ? 1 : 0;
    } else
        st = hm_list_dir(dir, &it.names, &it.n);
    int symbols = !(opts && (opts->flags & PK_OPEN_NO_SYMBOLS));
    if (!st) st = run(path, dir, opts, symbols, dir_next, &it, out);
    dir_iter_free(&it);
    hm_free_names(it.names, it.n);
    return st;
}

/* In-memory images: each *.hpcrun name with the *.hpctrace of its stem. */
typedef struct mem_iter {
    size_t n;
    const char *const *names;
    const void *const *data;
    const uint64_t *sizes;
    size_t *order; /* indexes of the profiles, by name */
    size_t n_order;
} mem_iter;

static pk_status mem_next(void *ctx, size_t i, hm_pair *in, int *done)
{
    mem_iter *it = ctx;
    if (!in) return PK_OK;
    if (i >= it->n_order) {
        *done = 1;
        return PK_OK;
    }
    size_t k = it->order[i], stem = strlen(it->names[k]) - 7;
    *in = (hm_pair){it->names[k], NULL, it->data[k], NULL, it->sizes[k], 0, 0};
    for (size_t j = 0; j < it->n; j++) {
        const char *t = it->names[j];
        if (t && strlen(t) == stem + 9 && strncmp(t, it->names[k], stem) == 0 &&
            strcmp(t + stem, ".hpctrace") == 0)
            *in =
                (hm_pair){it->names[k], t, it->data[k], it->data[j], it->sizes[k], it->sizes[j], 1};
    }
    return PK_OK;
}

pk_status hm_open_memory(size_t n, const char *const *names, const void *const *data,
                         const uint64_t *sizes, const pk_open_options *opts, pk_profile **out)
{
    mem_iter it = {n, names, data, sizes, malloc((n + 1) * sizeof(size_t)), 0};
    if (!it.order) return pk_fail_nomem("opening");
    for (size_t i = 0; i < n; i++)
        if (names[i] && has_suffix(names[i], ".hpcrun")) it.order[it.n_order++] = i;
    for (size_t i = 1; i < it.n_order; i++) /* by name (insertion sort: few files) */
        for (size_t j = i; j > 0 && strcmp(names[it.order[j - 1]], names[it.order[j]]) > 0; j--) {
            size_t t = it.order[j];
            it.order[j] = it.order[j - 1], it.order[j - 1] = t;
        }
    /* no symbols: images in memory name no binaries of this machine */
    pk_status st = run("<memory>", NULL, opts, 0, mem_next, &it, out);
    free(it.order);
    return st;
}
