/*
 * model/contexts.c — the calling-context tree: storage, lookup by the
 * source file's id, display names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "util/mapfile.h"
#include "util/vec.h"

pk_status pk_model_reserve_contexts(pk_profile *p, size_t more)
{
    size_t need = (size_t)p->n_ctx + more;
    if (need <= p->cap_ctx) return PK_OK;
    if (need >= PK_NONE) return pk_fail(PK_ERR_FORMAT, "too many contexts");
    pk_ctx_rec *c = realloc(p->ctx, need * sizeof *c);
    if (!c) return pk_fail_nomem("adding contexts");
    pk_mem_huge(c, need * sizeof *c);
    p->ctx = c, p->cap_ctx = (uint32_t)need;
    return PK_OK;
}

pk_status pk_model_add_context(pk_profile *p, pk_ctx_rec **rec, uint32_t *index)
{
    if (p->n_ctx == PK_NONE - 1) return pk_fail(PK_ERR_FORMAT, "too many contexts");
    size_t cap = p->cap_ctx;
    if (pk_vec_reserve((void **)&p->ctx, &cap, (size_t)p->n_ctx + 1, sizeof *p->ctx))
        return pk_fail_nomem("adding a context");
    p->cap_ctx = (uint32_t)(cap > PK_NONE ? PK_NONE : cap);
    pk_ctx_rec *c = &p->ctx[p->n_ctx];
    memset(c, 0, sizeof *c);
    c->parent = c->first_child = PK_NONE;
    c->function = c->file = c->module = PK_NONE;
    *index = p->n_ctx++;
    *rec = c;
    return PK_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sparse ids (rare: only damaged or foreign files) use a sorted array. */
static pk_status index_sparse(pk_profile *p)
{
    p->ctx_sorted = malloc((size_t)p->n_ctx * sizeof *p->ctx_sorted);
    if (!p->ctx_sorted) return pk_fail_nomem("indexing contexts");
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        if (p->ctx[i].id > UINT32_MAX)
            return pk_fail(PK_ERR_FORMAT, "context id %llu too large",
                           (unsigned long long)p->ctx[i].id);
        p->ctx_sorted[i] = p->ctx[i].id << 32 | i;
    }
    qsort(p->ctx_sorted, p->n_ctx, sizeof *p->ctx_sorted, cmp_u64);
    for (uint32_t i = 1; i < p->n_ctx; i++)
        if (p->ctx_sorted[i] >> 32 == p->ctx_sorted[i - 1] >> 32)
            return pk_fail(PK_ERR_FORMAT, "context id %llu is used twice",
                           (unsigned long long)(p->ctx_sorted[i] >> 32));
    return PK_OK;
}

pk_status pk_model_index_contexts(pk_profile *p)
{
    free(p->ctx_dense);
    free(p->ctx_sorted);
    p->ctx_dense = NULL;
    p->ctx_sorted = NULL;
    p->ctx_dense_len = 0;
    uint64_t max_id = 0;
    for (uint32_t i = 0; i < p->n_ctx; i++)
        if (p->ctx[i].id > max_id) max_id = p->ctx[i].id;
    /* Real files number contexts densely; a table up to 4x the count (plus
     * slack for tiny trees) is cheap and gives O(1) lookups. */
    if (max_id >= (uint64_t)p->n_ctx * 4 + 1024) return index_sparse(p);
    uint64_t len = max_id + 1;
    p->ctx_dense = malloc(len * sizeof *p->ctx_dense);
    if (!p->ctx_dense) return pk_fail_nomem("indexing contexts");
    memset(p->ctx_dense, 0xff, len * sizeof *p->ctx_dense);
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        uint64_t id = p->ctx[i].id;
        if (p->ctx_dense[id] != PK_NONE)
            return pk_fail(PK_ERR_FORMAT, "context id %llu is used twice", (unsigned long long)id);
        p->ctx_dense[id] = i;
    }
    p->ctx_dense_len = len;
    return PK_OK;
}

uint32_t pk_model_ctx_find(const pk_profile *p, uint64_t id)
{
    if (p->ctx_dense) return id < p->ctx_dense_len ? p->ctx_dense[id] : PK_NONE;
    if (!p->ctx_sorted || id > UINT32_MAX) return PK_NONE;
    size_t lo = 0, hi = p->n_ctx;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t mid_id = p->ctx_sorted[mid] >> 32;
        if (mid_id == id) return (uint32_t)p->ctx_sorted[mid];
        if (mid_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return PK_NONE;
}

size_t pk_context_count(const pk_profile *p)
{
    return p ? p->n_ctx : 0;
}

pk_status pk_context_get(const pk_profile *p, pk_index i, pk_context *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_context_get: NULL argument");
    if (i >= p->n_ctx)
        return pk_fail(PK_ERR_NOT_FOUND, "context index %u out of range (have %u)", i, p->n_ctx);
    const pk_ctx_rec *c = &p->ctx[i];
    *out = (pk_context){
        .id = c->id,
        .parent = c->parent,
        .first_child = c->first_child,
        .n_children = c->n_children,
        .depth = c->depth,
        .kind = (pk_context_kind)c->kind,
        .relation = (pk_relation)c->relation,
        .entry = (pk_entry_kind)c->entry,
        .entry_name = c->entry_name,
        .flags = c->flags,
        .function = c->function,
        .file = c->file,
        .line = c->line,
        .module = c->module,
        .offset = c->offset,
        .propagation = c->propagation,
        .raw_kind = c->raw_kind,
        .raw_relation = c->raw_relation,
        .raw_entry = c->raw_entry,
    };
    return PK_OK;
}

pk_status pk_context_find(const pk_profile *p, uint64_t id, pk_index *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_context_find: NULL argument");
    uint32_t i = pk_model_ctx_find(p, id);
    if (i == PK_NONE)
        return pk_fail(PK_ERR_NOT_FOUND, "no context with id %llu", (unsigned long long)id);
    *out = i;
    return PK_OK;
}

static const char *base_name(const char *path)
{
    if (!path) return "?";
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

static const char *module_name(const pk_profile *p, uint32_t m)
{
    return m < p->n_modules ? base_name(p->modules[m].path) : "?";
}

static const char *file_name(const pk_profile *p, uint32_t f)
{
    return f < p->n_files ? base_name(p->files[f].path) : "?";
}

static const char *entry_default_name(unsigned entry)
{
    switch (entry) {
    case PK_ENTRY_UNKNOWN:
        return "unknown entry";
    case PK_ENTRY_MAIN:
        return "main thread";
    case PK_ENTRY_APP_THREAD:
        return "application thread";
    }
    return "entry point";
}

/* snprintf(buf, size, "%s", s) without the format machinery: a tree's
 * frames name each of its functions this way (58,000 in cc1's), and
 * vfprintf was most of that. */
static size_t copy_name(char *buf, size_t size, const char *s)
{
    size_t n = strlen(s);
    if (size) {
        size_t k = n < size - 1 ? n : size - 1;
        memcpy(buf, s, k);
        buf[k] = 0;
    }
    return n;
}

/* Name of a function context: the function's name, else what is known of
 * where it is. */
static size_t function_ctx_name(const pk_profile *p, const pk_ctx_rec *c, char *buf, size_t size)
{
    const pk_function *f = c->function < p->n_functions ? &p->functions[c->function] : NULL;
    if (f && f->name) return copy_name(buf, size, f->name);
    if (f && f->module != PK_NONE)
        return (size_t)snprintf(buf, size, "<unknown function> %s+0x%llx",
                                module_name(p, f->module), (unsigned long long)f->offset);
    if (c->flags & PK_CTXF_HAS_POINT)
        return (size_t)snprintf(buf, size, "<unknown function> %s+0x%llx",
                                module_name(p, c->module), (unsigned long long)c->offset);
    return (size_t)snprintf(buf, size, "<unknown function>");
}

size_t pk_context_name(const pk_profile *p, pk_index i, char *buf, size_t size)
{
    char dummy[1];
    if (!buf || size == 0) {
        buf = dummy;
        size = sizeof dummy;
    }
    if (!p || i >= p->n_ctx) return (size_t)snprintf(buf, size, "<no context>");
    const pk_ctx_rec *c = &p->ctx[i];
    if (c->flags & PK_CTXF_UNLISTED)
        return (size_t)snprintf(buf, size, "[context %llu]", (unsigned long long)c->id);
    switch (c->kind) {
    case PK_CTX_ROOT:
        return (size_t)snprintf(buf, size, "<program root>");
    case PK_CTX_ENTRY:
        return copy_name(buf, size, c->entry_name ? c->entry_name : entry_default_name(c->entry));
    case PK_CTX_FUNCTION:
        return function_ctx_name(p, c, buf, size);
    case PK_CTX_LOOP:
        return (size_t)snprintf(buf, size, "loop at %s:%u", file_name(p, c->file), c->line);
    case PK_CTX_LINE:
        return (size_t)snprintf(buf, size, "%s:%u", file_name(p, c->file), c->line);
    case PK_CTX_INSTRUCTION:
        return (size_t)snprintf(buf, size, "%s+0x%llx", module_name(p, c->module),
                                (unsigned long long)c->offset);
    }
    return (size_t)snprintf(buf, size, "[context %llu kind %u]", (unsigned long long)c->id,
                            c->raw_kind);
}

/* Context indexes ordered deepest first, so each context comes before its
 * parent (a counting sort on depth). */
uint32_t *pk_deepest_first(const pk_profile *p)
{
    uint32_t max_depth = 0;
    for (uint32_t i = 0; i < p->n_ctx; i++)
        if (p->ctx[i].depth > max_depth) max_depth = p->ctx[i].depth;
    uint32_t *start = calloc((size_t)max_depth + 2, sizeof *start);
    uint32_t *order = malloc((p->n_ctx ? p->n_ctx : 1) * sizeof *order);
    if (!start || !order) {
        free(start);
        free(order);
        return NULL;
    }
    for (uint32_t i = 0; i < p->n_ctx; i++) /* bucket d starts after all deeper ones */
        start[max_depth - p->ctx[i].depth + 1]++;
    for (uint32_t d = 1; d <= max_depth + 1; d++)
        start[d] += start[d - 1];
    for (uint32_t i = 0; i < p->n_ctx; i++)
        order[start[max_depth - p->ctx[i].depth]++] = i;
    free(start);
    return order;
}
