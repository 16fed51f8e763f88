/*
 * model/profile.c — profile lifecycle and the accessors of its dimensions.
 *
 * The getters copy from the internal records into the public structs, so
 * the internal layout can stay compact and change without breaking the ABI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "model.h"
#include "util/bigsize.h"

#define PK_VERSION_STRING "0.1.0"

const char *pk_version(void)
{
    return PK_VERSION_STRING;
}

pk_status pk_model_new(pk_profile **out)
{
    pk_profile *p = calloc(1, sizeof *p);
    if (!p) return pk_fail_nomem("creating a profile");
    pk_arena_init(&p->arena);
    pk_intern_init(&p->strings, &p->arena);
    pthread_mutex_init(&p->cm_lock, NULL);
    pthread_mutex_init(&p->planes_lock, NULL);
    p->complete = 1;
    *out = p;
    return PK_OK;
}

void pk_profile_free(pk_profile *p)
{
    if (!p) return;
    if (p->rows) p->rows->destroy(p->rows->user); /* before the mappings it reads */
    if (p->deferred) p->deferred->destroy(p->deferred->user);
    free(p->loc_checked);
    free(p->row_nvals), free(p->row_nctx);
    for (size_t i = 0; i < p->n_sources; i++)
        pk_unmap_file(&p->sources[i].map);
    for (int s = 0; s < PK_ID_SPACES; s++)
        free(p->col_of_raw[s]);
    free(p->ctx);
    free(p->ctx_dense);
    free(p->ctx_sorted);
    free(p->cm_built);
    free(p->loc_alone);
    free(p->cm);
    for (size_t i = 0; i < p->n_owned; i++)
        free(p->owned[i]);
    free(p->owned);
    free(p->diags);
    free(p->attrs);
    pk_cg_free(p->cg);
    pthread_mutex_destroy(&p->cm_lock);
    pthread_mutex_destroy(&p->planes_lock);
    pk_intern_free(&p->strings);
    pk_arena_free(&p->arena);
    free(p);
}

pk_source_rec *pk_model_add_source(pk_profile *p, const char *name)
{
    if (p->n_sources == PK_MAX_SOURCES) return NULL;
    pk_source_rec *s = &p->sources[p->n_sources++];
    memset(s, 0, sizeof *s);
    s->name = name;
    return s;
}

pk_status pk_model_map_column(pk_profile *p, int space, uint32_t raw, uint32_t col)
{
    if (raw == UINT32_MAX) /* raw + 1 would wrap, and realloc(..., 0) free the map */
        return pk_fail(PK_ERR_FORMAT, "metric id %u is out of range", raw);
    if (raw >= p->n_raw[space]) {
        uint32_t n = raw + 1;
        uint32_t *t = realloc(p->col_of_raw[space], (size_t)n * sizeof *t);
        if (!t) return pk_fail_nomem("mapping metric ids");
        for (uint32_t i = p->n_raw[space]; i < n; i++)
            t[i] = PK_NONE;
        p->col_of_raw[space] = t;
        p->n_raw[space] = n;
    }
    if (p->col_of_raw[space][raw] != PK_NONE)
        return pk_fail(PK_ERR_FORMAT, "metric id %u is defined twice", raw);
    p->col_of_raw[space][raw] = col;
    return PK_OK;
}

pk_status pk_model_adopt_owned(pk_profile *p, void *block)
{
    if (p->n_owned == p->cap_owned) {
        size_t cap = p->cap_owned ? 2 * p->cap_owned : 16;
        void **t = realloc(p->owned, cap * sizeof *t);
        if (!t) {
            free(block);
            return pk_fail_nomem("growing the list of owned blocks");
        }
        p->owned = t;
        p->cap_owned = cap;
    }
    p->owned[p->n_owned++] = block;
    return PK_OK;
}

void *pk_model_alloc_owned(pk_profile *p, size_t size)
{
    void *b = malloc(size ? pk_big_bytes(size) : 1); /* big: on whole huge pages */
    if (!b) {
        pk_fail_nomem("allocating a block for the profile");
        return NULL;
    }
    return pk_model_adopt_owned(p, b) == PK_OK ? b : NULL;
}

const pk_mapfile *pk_model_mapping_of(const pk_profile *p, const void *ptr)
{
    const unsigned char *b = ptr;
    for (size_t i = 0; i < p->n_sources; i++) {
        const pk_mapfile *m = &p->sources[i].map;
        if (m->mapped && b >= m->data && b < m->data + m->size) return m;
    }
    return NULL;
}

/* ---- public accessors ---- */

#define CHECK_ARGS(p, out)                                                                         \
    do {                                                                                           \
        if (!(p) || !(out)) return pk_fail(PK_ERR_INVALID_ARG, "%s: NULL argument", __func__);     \
    } while (0)

#define CHECK_INDEX(i, n, what)                                                                    \
    do {                                                                                           \
        if ((i) >= (n))                                                                            \
            return pk_fail(PK_ERR_NOT_FOUND, "%s index %llu out of range (have %llu)", what,       \
                           (unsigned long long)(i), (unsigned long long)(n));                      \
    } while (0)

/* pk_<name>_count() and pk_<name>_get() of a dimension kept as a plain
 * array of its public struct. */
#define DIMENSION(name, type, array, count)                                                        \
    size_t pk_##name##_count(const pk_profile *p)                                                  \
    {                                                                                              \
        return p ? p->count : 0;                                                                   \
    }                                                                                              \
    pk_status pk_##name##_get(const pk_profile *p, pk_index i, type *out)                          \
    {                                                                                              \
        CHECK_ARGS(p, out);                                                                        \
        CHECK_INDEX(i, p->count, #name);                                                           \
        *out = p->array[i];                                                                        \
        return PK_OK;                                                                              \
    }

pk_status pk_profile_get_info(const pk_profile *p, pk_profile_info *out)
{
    CHECK_ARGS(p, out);
    out->format = p->format;
    out->format_name = p->format_name;
    out->layout = p->layout;
    out->version_major = p->major;
    out->version_minor = p->minor;
    out->title = p->title;
    out->description = p->description;
    out->path = p->path;
    out->complete = p->complete;
    /* a call graph's tree is reconstructed whether or not this open built
     * it (PK_OPEN_NO_TREE): `info` must say what any tree view would be */
    out->reconstructed = p->reconstructed || p->cg != NULL;
    return PK_OK;
}

pk_status pk_profile_intact(const pk_profile *p)
{
    if (!p) return pk_fail(PK_ERR_INVALID_ARG, "pk_profile_intact: NULL profile");
    for (size_t i = 0; i < p->n_sources; i++) {
        pk_status st = pk_map_check(&p->sources[i].map);
        if (st) return st;
    }
    return PK_OK;
}

size_t pk_source_count(const pk_profile *p)
{
    return p ? p->n_sources : 0;
}

pk_status pk_source_get(const pk_profile *p, size_t i, pk_source *out)
{
    CHECK_ARGS(p, out);
    CHECK_INDEX(i, p->n_sources, "source");
    const pk_source_rec *s = &p->sources[i];
    *out = (pk_source){s->name, s->present, s->loaded, s->size, s->major, s->minor};
    return PK_OK;
}

DIMENSION(module, pk_module, modules, n_modules)
DIMENSION(file, pk_file, files, n_files)
DIMENSION(function, pk_function, functions, n_functions)
DIMENSION(metric, pk_metric, metrics, n_metrics)
DIMENSION(scope, pk_scope, scopes, n_scopes)
DIMENSION(column, pk_column, columns, n_columns)
pk_status pk_column_find(const pk_profile *p, pk_index metric, pk_scope_kind kind, pk_index *out)
{
    CHECK_ARGS(p, out);
    CHECK_INDEX(metric, p->n_metrics, "metric");
    for (uint32_t c = 0; c < p->n_columns; c++) {
        const pk_column *col = &p->columns[c];
        if (col->metric == metric && !col->is_summary && p->scopes[col->scope].kind == kind) {
            *out = c;
            return PK_OK;
        }
    }
    return pk_fail(PK_ERR_NOT_FOUND, "metric '%s' has no column in that scope",
                   p->metrics[metric].name);
}

size_t pk_location_count(const pk_profile *p)
{
    return p ? p->n_locs : 0;
}

pk_status pk_location_get(const pk_profile *p, pk_index i, pk_location *out)
{
    CHECK_ARGS(p, out);
    CHECK_INDEX(i, p->n_locs, "location");
    const pk_loc_rec *l = &p->locs[i];
    out->raw_index = l->raw_index;
    out->is_summary = l->is_summary;
    out->n_ids = l->n_ids;
    out->ids = l->ids;
    pk_status st = pk_model_location_counts(p, i, &out->n_values, &out->n_contexts);
    if (st) return st;
    out->trace = l->trace;
    return PK_OK;
}

size_t pk_trace_count(const pk_profile *p)
{
    return p ? p->n_traces : 0;
}

pk_status pk_trace_range(const pk_profile *p, uint64_t *begin, uint64_t *end)
{
    if (!p || !begin || !end) return pk_fail(PK_ERR_INVALID_ARG, "pk_trace_range: NULL argument");
    if (!p->has_trace_range) return pk_fail(PK_ERR_NOT_FOUND, "the profile has no traces");
    *begin = p->trace_begin;
    *end = p->trace_end;
    return PK_OK;
}

/* The name of identifier `kind`'s value in location l (attribute
 * "value-name:KIND": a pprof string label), or NULL. */
static const char *value_name(const pk_profile *p, pk_index l, const char *kind)
{
    char key[160];
    if (!kind || snprintf(key, sizeof key, "value-name:%s", kind) >= (int)sizeof key) return NULL;
    return pk_attribute_find(p, PK_ENTITY_LOCATION, l, key);
}

size_t pk_location_name(const pk_profile *p, pk_index i, char *buf, size_t size)
{
    char dummy[1];
    if (!buf || size == 0) {
        buf = dummy;
        size = sizeof dummy;
    }
    buf[0] = '\0';
    if (!p || i >= p->n_locs) return (size_t)snprintf(buf, size, "<no location>");
    const pk_loc_rec *l = &p->locs[i];
    if (l->n_ids == 0) return (size_t)snprintf(buf, size, l->is_summary ? "summary" : "<no id>");
    size_t len = 0;
    for (uint32_t k = 0; k < l->n_ids; k++) {
        const pk_ident *id = &l->ids[k];
        char kind[16];
        if (!id->kind_name) snprintf(kind, sizeof kind, "KIND%u", id->kind);
        const char *named = value_name(p, i, id->kind_name);
        char part[200];
        if (named)
            snprintf(part, sizeof part, "%s %s", id->kind_name, named);
        else if (id->flags & PK_ID_PHYSICAL)
            snprintf(part, sizeof part, "%s %u [0x%llx]", id->kind_name ? id->kind_name : kind,
                     id->logical, (unsigned long long)id->physical);
        else
            snprintf(part, sizeof part, "%s %u", id->kind_name ? id->kind_name : kind, id->logical);
        len += (size_t)snprintf(buf + (len < size ? len : size - 1), len < size ? size - len : 1,
                                "%s%s", k ? " / " : "", part);
    }
    return len;
}
