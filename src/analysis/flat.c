/*
 * analysis/flat.c — the flat profile: a metric's exclusive and inclusive
 * values per function, source file, load module or source line.
 *
 * Exclusive: each context's own (point) value — its exclusive value minus
 * what its lexical children (loops, lines) hold, since HPCToolkit's
 * exclusive scope already includes them — goes to the group of the
 * nearest context, itself or a lexical ancestor, that names one. So a
 * line's cost counts for its function, and nothing counts twice.
 * Inclusive: a context's inclusive value goes to its group unless an
 * ancestor on its call path is already in the same group: recursion
 * counts once, as in gprof, pprof and callgrind_annotate.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/context_groups.h"
#include "model/model.h"
#include "profkit/analysis.h"
#include "profkit/callgraph.h"

typedef struct flat_job {
    const pk_profile *p;
    pk_group_by by;
    uint32_t *canon; /* per function: the first function of the same name and module */
    uint64_t *key;   /* per context: its group key, or NO_KEY */
    uint32_t *group; /* per context: index into rows, or PK_NONE */
    pk_flat_row *rows;
    uint32_t n_rows;
} flat_job;

#define NO_KEY UINT64_MAX

typedef struct fn_ref {
    const char *name;
    uint32_t module, index;
} fn_ref;

static int cmp_function(const void *a, const void *b)
{
    const fn_ref *x = a, *y = b;
    int d = strcmp(x->name, y->name);
    if (d) return d;
    if (x->module != y->module) return x->module < y->module ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Functions that differ only in their index (a file may list one name
 * twice, as Cube regions with different ids) form one group. */
static pk_status canonical_functions(flat_job *j)
{
    const pk_profile *p = j->p;
    fn_ref *order = malloc((p->n_functions + 1) * sizeof *order);
    j->canon = malloc((p->n_functions + 1) * sizeof *j->canon);
    if (!order || !j->canon) return free(order), pk_fail_nomem("grouping functions");
    for (uint32_t i = 0; i < p->n_functions; i++) {
        const pk_function *f = &p->functions[i];
        order[i] = (fn_ref){f->name ? f->name : "", f->module, i};
    }
    qsort(order, p->n_functions, sizeof *order, cmp_function);
    for (uint32_t k = 0; k < p->n_functions; k++) {
        const fn_ref *f = &order[k], *prev = k ? &order[k - 1] : NULL;
        int same =
            prev && *f->name && strcmp(f->name, prev->name) == 0 && f->module == prev->module;
        j->canon[f->index] = same ? j->canon[prev->index] : f->index;
    }
    free(order);
    return PK_OK;
}

/* The group a context names by itself, or NO_KEY. */
static uint64_t own_key(const flat_job *j, const pk_ctx_rec *c)
{
    const pk_profile *p = j->p;
    pk_group_by by = j->by;
    int has_fn = (c->flags & PK_CTXF_HAS_FUNCTION) && c->function < p->n_functions;
    const pk_function *f = has_fn ? &p->functions[c->function] : NULL;
    switch (by) {
    case PK_BY_FUNCTION:
        return f ? j->canon[c->function] : NO_KEY;
    case PK_BY_FILE:
        if (c->flags & PK_CTXF_HAS_SRCLOC && c->file < p->n_files) return c->file;
        return f && f->file < p->n_files ? f->file : NO_KEY;
    case PK_BY_MODULE:
        if (c->flags & PK_CTXF_HAS_POINT && c->module < p->n_modules) return c->module;
        return f && f->module < p->n_modules ? f->module : NO_KEY;
    case PK_BY_LINE:
        if (c->flags & PK_CTXF_HAS_SRCLOC && c->file < p->n_files)
            return (uint64_t)c->file << 32 | c->line;
        return f && f->file < p->n_files ? (uint64_t)f->file << 32 | f->line : NO_KEY;
    }
    return NO_KEY;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Keys are below this bound (a table indexes them), or 0: line keys. */
static uint64_t key_bound(const flat_job *j)
{
    const pk_profile *p = j->p;
    return j->by == PK_BY_FUNCTION ? p->n_functions
           : j->by == PK_BY_FILE   ? p->n_files
           : j->by == PK_BY_MODULE ? p->n_modules
                                   : 0;
}

static pk_status alloc_rows(flat_job *j, uint32_t n)
{
    j->rows = calloc(n + 1, sizeof *j->rows);
    j->n_rows = n;
    return j->rows ? PK_OK : pk_fail_nomem("grouping contexts");
}

/* Rows of bounded keys, in key order: a table from key to row, so the
 * cost is one pass over the contexts plus one over the possible keys. */
static pk_status rows_by_table(flat_job *j, uint64_t bound)
{
    const pk_profile *p = j->p;
    uint32_t *row_of = malloc((bound + 1) * sizeof *row_of), n = 0;
    if (!row_of) return pk_fail_nomem("grouping contexts");
    memset(row_of, 0, (bound + 1) * sizeof *row_of);
    for (uint32_t i = 0; i < p->n_ctx; i++)
        if (j->key[i] != NO_KEY) row_of[j->key[i]] = 1;
    for (uint64_t k = 0; k < bound; k++)
        row_of[k] = row_of[k] ? n++ : PK_NONE;
    pk_status st = alloc_rows(j, n);
    for (uint64_t k = 0; !st && k < bound; k++)
        if (row_of[k] != PK_NONE) j->rows[row_of[k]].key = k;
    for (uint32_t i = 0; !st && i < p->n_ctx; i++)
        j->group[i] = j->key[i] == NO_KEY ? PK_NONE : row_of[j->key[i]];
    free(row_of);
    return st;
}

static uint32_t find_key(const uint64_t *keys, uint32_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

/* Rows of line keys (file << 32 | line): the keys alone sorted and made
 * distinct (8 bytes each, not whole rows), then found by bisection. */
static pk_status rows_by_sorting(flat_job *j)
{
    const pk_profile *p = j->p;
    uint64_t *keys = malloc((p->n_ctx + 1) * sizeof *keys);
    if (!keys) return pk_fail_nomem("grouping contexts");
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n_ctx; i++)
        if (j->key[i] != NO_KEY) keys[n++] = j->key[i];
    qsort(keys, n, sizeof *keys, cmp_u64);
    uint32_t distinct = 0;
    for (uint32_t r = 0; r < n; r++)
        if (distinct == 0 || keys[r] != keys[distinct - 1]) keys[distinct++] = keys[r];
    pk_status st = alloc_rows(j, distinct);
    for (uint32_t r = 0; !st && r < distinct; r++)
        j->rows[r].key = keys[r];
    for (uint32_t i = 0; !st && i < p->n_ctx; i++)
        j->group[i] = j->key[i] == NO_KEY ? PK_NONE : find_key(keys, distinct, j->key[i]);
    free(keys);
    return st;
}

/* One row per distinct key; each context's key (its own, else its
 * lexical parent's: parents come first in the breadth-first order). */
static pk_status make_groups(flat_job *j)
{
    const pk_profile *p = j->p;
    j->key = malloc((p->n_ctx + 1) * sizeof *j->key);
    j->group = malloc((p->n_ctx + 1) * sizeof *j->group);
    if (!j->key || !j->group) return pk_fail_nomem("grouping contexts");
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        const pk_ctx_rec *c = &p->ctx[i];
        uint64_t k = own_key(j, c);
        if (k == NO_KEY && c->relation == PK_REL_LEXICAL && c->parent < i) k = j->key[c->parent];
        j->key[i] = k;
    }
    uint64_t bound = key_bound(j);
    return bound ? rows_by_table(j, bound) : rows_by_sorting(j);
}

/* Exclusive: point values into their groups; contexts counted. */
static void add_exclusive(flat_job *j, const double *excl)
{
    const pk_profile *p = j->p;
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        if (j->group[i] == PK_NONE) continue;
        j->rows[j->group[i]].exclusive += pk_point_value(p, excl, i);
        if (own_key(j, &p->ctx[i]) != NO_KEY) j->rows[j->group[i]].n_contexts++;
    }
}

static int by_exclusive(const void *a, const void *b)
{
    const pk_flat_row *x = a, *y = b;
    if (x->exclusive != y->exclusive) return x->exclusive > y->exclusive ? -1 : 1;
    if (x->inclusive != y->inclusive) return x->inclusive > y->inclusive ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Exclusive of a min/max metric: the smallest (largest) exclusive value
 * of the contexts in each group, as stored: no point values to take
 * apart, nothing to add up. */
static void combine_exclusive(flat_job *j, const double *excl, pk_combine how)
{
    const pk_profile *p = j->p;
    for (uint32_t r = 0; r < j->n_rows; r++)
        j->rows[r].exclusive = NAN;
    for (uint32_t i = 0; i < p->n_ctx; i++) {
        if (j->group[i] == PK_NONE) continue;
        pk_combine_slot(&j->rows[j->group[i]].exclusive, excl[i], how);
        if (own_key(j, &p->ctx[i]) != NO_KEY) j->rows[j->group[i]].n_contexts++;
    }
    for (uint32_t r = 0; r < j->n_rows; r++)
        if (isnan(j->rows[r].exclusive)) j->rows[r].exclusive = 0;
}

pk_status pk_flat_profile_combined(const pk_profile *p, const double *inclusive,
                                   const double *exclusive, pk_group_by by, pk_combine how,
                                   pk_flat_row **rows, size_t *n_rows)
{
    if (!p || !rows || !n_rows || (!inclusive && !exclusive))
        return pk_fail(PK_ERR_INVALID_ARG, "pk_flat_profile: NULL argument");
    if (by > PK_BY_LINE) return pk_fail(PK_ERR_INVALID_ARG, "pk_flat_profile: unknown grouping");
    int extreme = how == PK_COMBINE_MIN || how == PK_COMBINE_MAX;
    flat_job j = {.p = p, .by = by};
    pk_status st = canonical_functions(&j);
    if (!st) st = make_groups(&j);
    if (!st && exclusive && extreme) combine_exclusive(&j, exclusive, how);
    if (!st && exclusive && !extreme) add_exclusive(&j, exclusive);
    if (!st && inclusive) /* once per path: recursion counted once */
        st = extreme ? pk_group_inclusive_combined(p, j.group, j.n_rows, inclusive,
                                                   &j.rows[0].inclusive, sizeof *j.rows, how)
                     : pk_group_inclusive_once(p, j.group, j.n_rows, inclusive,
                                               &j.rows[0].inclusive, sizeof *j.rows);
    free(j.key), free(j.group), free(j.canon);
    if (st) {
        free(j.rows);
        return st;
    }
    qsort(j.rows, j.n_rows, sizeof *j.rows, by_exclusive);
    *rows = j.rows, *n_rows = j.n_rows;
    return PK_OK;
}

pk_status pk_flat_profile(const pk_profile *p, const double *inclusive, const double *exclusive,
                          pk_group_by by, pk_flat_row **rows, size_t *n_rows)
{
    return pk_flat_profile_combined(p, inclusive, exclusive, by, PK_COMBINE_SUM, rows, n_rows);
}

void pk_flat_free(pk_flat_row *rows)
{
    free(rows);
}

size_t pk_flat_row_name(const pk_profile *p, pk_group_by by, const pk_flat_row *row, char *buf,
                        size_t size)
{
    uint32_t k = (uint32_t)(by == PK_BY_LINE ? row->key >> 32 : row->key);
    switch (by) {
    case PK_BY_FUNCTION:
        return (size_t)snprintf(buf, size, "%s",
                                k < p->n_functions && p->functions[k].name ? p->functions[k].name
                                                                           : "<unknown function>");
    case PK_BY_FILE:
        return (size_t)snprintf(buf, size, "%s", k < p->n_files ? p->files[k].path : "?");
    case PK_BY_MODULE:
        return (size_t)snprintf(buf, size, "%s", k < p->n_modules ? p->modules[k].path : "?");
    case PK_BY_LINE:
        return (size_t)snprintf(buf, size, "%s:%u", k < p->n_files ? p->files[k].path : "?",
                                (uint32_t)row->key);
    }
    return (size_t)snprintf(buf, size, "?");
}

pk_status pk_flat_callgraph_inclusive(const pk_profile *p, pk_index metric, pk_flat_row *rows,
                                      size_t n_rows, int *used)
{
    size_t e;
    *used = 0;
    /* no call graph, or no event of the metric: nothing to do */
    if (pk_callgraph_metric_event(p, metric, &e) != PK_OK) return PK_OK;
    pk_cg_function_cost *cost = malloc((p->n_functions + 1) * sizeof *cost);
    if (!cost) return pk_fail_nomem("reading function costs");
    pk_status st = pk_callgraph_function_costs(p, PK_NONE, e, cost, NULL, NULL);
    for (size_t r = 0; r < n_rows && !st; r++)
        rows[r].inclusive = rows[r].key < p->n_functions ? cost[rows[r].key].inclusive : 0;
    free(cost);
    *used = !st;
    return st;
}
