/*
 * analysis/merge.c — pk_profile_merge(): several profiles become one.
 *
 * Runs of the same program, or the parts of one run written separately,
 * are united into a new, self-contained profile: modules, files, functions,
 * metrics, scopes and columns are matched by name; calling contexts are
 * matched by their path from the root (each step's kind, relation,
 * function, source line and code point), so a context present in only some
 * inputs is kept with the values those inputs have. Locations and values
 * are merge_values.c's job.
 *
 * Summary locations (HPCToolkit's statistics across threads) are dropped:
 * statistics of the inputs are not statistics of the union, and writers
 * recompute them.
 */
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "util/vec.h"

static const char *copy_str(mg_state *s, const char *str)
{
    return str ? pk_intern_cstr(&s->m->strings, str) : NULL;
}

/* Merged index of `key`, adding an entity when it is new (*added). */
static pk_status lookup(mg_state *s, const uint64_t key[PK_KMAP_WORDS], uint32_t next,
                        uint32_t *out, int *added)
{
    if (pk_kmap_upsert(&s->map, key, next, out, added) < 0) return pk_fail_nomem("merging");
    return PK_OK;
}

/* Per-input index arrays of `n` entries, PK_NONE-filled. */
static pk_status index_array(uint32_t **out, size_t n)
{
    *out = malloc((n ? n : 1) * sizeof **out);
    if (!*out) return pk_fail_nomem("merging");
    memset(*out, 0xff, (n ? n : 1) * sizeof **out);
    return PK_OK;
}

static pk_status merge_modules(mg_state *s)
{
    pk_profile *m = s->m;
    size_t cap = 0;
    pk_kmap_clear(&s->map);
    for (size_t i = 0; i < s->n_in; i++) {
        const pk_profile *p = s->in[i].p;
        pk_status st = index_array(&s->in[i].module, p->n_modules);
        for (uint32_t k = 0; k < p->n_modules && !st; k++) {
            const char *path = copy_str(s, p->modules[k].path);
            uint64_t key[PK_KMAP_WORDS] = {(uintptr_t)path};
            int added;
            st = lookup(s, key, m->n_modules, &s->in[i].module[k], &added);
            if (st || !added) continue;
            if (pk_vec_reserve((void **)&m->modules, &cap, m->n_modules + 1u, sizeof *m->modules))
                return pk_fail_nomem("merging modules");
            m->modules[m->n_modules++] = (pk_module){path};
        }
        if (st) return st;
    }
    return m->modules ? pk_model_adopt_owned(m, m->modules) : PK_OK;
}

static pk_status merge_files(mg_state *s)
{
    pk_profile *m = s->m;
    size_t cap = 0;
    pk_kmap_clear(&s->map);
    for (size_t i = 0; i < s->n_in; i++) {
        const pk_profile *p = s->in[i].p;
        pk_status st = index_array(&s->in[i].file, p->n_files);
        for (uint32_t k = 0; k < p->n_files && !st; k++) {
            const char *path = copy_str(s, p->files[k].path);
            uint64_t key[PK_KMAP_WORDS] = {(uintptr_t)path};
            int added;
            uint32_t *to = &s->in[i].file[k];
            st = lookup(s, key, m->n_files, to, &added);
            if (st) break;
            if (!added) {
                m->files[*to].flags |= p->files[k].flags;
                continue;
            }
            if (pk_vec_reserve((void **)&m->files, &cap, m->n_files + 1u, sizeof *m->files))
                return pk_fail_nomem("merging files");
            m->files[m->n_files++] = (pk_file){path, p->files[k].flags};
        }
        if (st) return st;
    }
    return m->files ? pk_model_adopt_owned(m, m->files) : PK_OK;
}

static uint32_t remap(const uint32_t *map, uint32_t i)
{
    return i == PK_NONE ? PK_NONE : map[i];
}

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

/* Two descriptions of a function agree where both know a part: the same
 * source file name and the same module. Formats know different parts
 * (Callgrind files may omit the object, Cube has no modules), so an
 * unknown part matches anything. */
static int same_function(const pk_profile *m, const pk_function *a, const pk_function *b)
{
    if (a->file != PK_NONE && b->file != PK_NONE && a->file != b->file &&
        strcmp(base_name(m->files[a->file].path), base_name(m->files[b->file].path)) != 0)
        return 0;
    if (a->module != PK_NONE && b->module != PK_NONE && a->module != b->module) return 0;
    if (a->module != PK_NONE && b->module != PK_NONE && a->offset != b->offset) return 0;
    return 1;
}

/* Fill what the merged function does not know yet from another input. */
static void complete_function(pk_function *to, const pk_function *from)
{
    if (to->file == PK_NONE) to->file = from->file, to->line = from->line;
    if (to->module == PK_NONE) to->module = from->module, to->offset = from->offset;
}

/* Named functions are matched by name among those that agree (above);
 * anonymous ones by module and offset. `same_name` chains the merged
 * functions of one name. */
static pk_status function_index(mg_state *s, const pk_function *g, uint32_t **same_name,
                                size_t *cap_chain, uint32_t *out)
{
    pk_profile *m = s->m;
    uint64_t key[PK_KMAP_WORDS] = {(uintptr_t)g->name, g->name ? 0 : g->module,
                                   g->name ? 0 : g->offset};
    int added;
    uint32_t f;
    pk_status st = lookup(s, key, m->n_functions, &f, &added);
    if (st) return st;
    uint32_t last = f;
    for (; !added && f != PK_NONE; last = f, f = (*same_name)[f])
        if (same_function(m, &m->functions[f], g)) {
            complete_function(&m->functions[f], g);
            return *out = f, PK_OK;
        }
    if (pk_vec_reserve((void **)same_name, cap_chain, m->n_functions + 1u, sizeof **same_name))
        return pk_fail_nomem("merging functions");
    (*same_name)[m->n_functions] = PK_NONE;
    if (!added) (*same_name)[last] = m->n_functions;
    *out = m->n_functions;
    return PK_OK;
}

static pk_status merge_functions(mg_state *s)
{
    pk_profile *m = s->m;
    size_t cap = 0, cap_owner = 0, cap_chain = 0;
    uint32_t *same_name = NULL;
    pk_status st = PK_OK;
    pk_kmap_clear(&s->map);
    for (size_t i = 0; i < s->n_in && !st; i++) {
        const pk_profile *p = s->in[i].p;
        st = index_array(&s->in[i].function, p->n_functions);
        for (uint32_t k = 0; k < p->n_functions && !st; k++) {
            const pk_function *f = &p->functions[k];
            pk_function g = {copy_str(s, f->name), remap(s->in[i].module, f->module), f->offset,
                             remap(s->in[i].file, f->file), f->line};
            if (g.module == PK_NONE) g.offset = 0;
            st = function_index(s, &g, &same_name, &cap_chain, &s->in[i].function[k]);
            if (st || s->in[i].function[k] < m->n_functions) continue;
            if (pk_vec_reserve((void **)&m->functions, &cap, m->n_functions + 1u,
                               sizeof *m->functions) ||
                pk_vec_reserve((void **)&s->fn_owner, &cap_owner, m->n_functions + 1u,
                               sizeof *s->fn_owner))
                st = pk_fail_nomem("merging functions");
            else
                s->fn_owner[m->n_functions] = (uint32_t)i, m->functions[m->n_functions++] = g;
        }
    }
    free(same_name);
    if (st) return st;
    return m->functions ? pk_model_adopt_owned(m, m->functions) : PK_OK;
}

/* Identifier kinds by name; the first input's numbering is kept, so
 * HPCToolkit's standard kinds (RANK = 2, THREAD = 3...) keep their values. */
static pk_status merge_kinds(mg_state *s)
{
    pk_profile *m = s->m;
    size_t cap = 0;
    pk_kmap_clear(&s->map);
    for (size_t i = 0; i < s->n_in; i++) {
        const pk_profile *p = s->in[i].p;
        pk_status st = index_array(&s->in[i].kind, p->n_id_kinds);
        for (uint32_t k = 0; k < p->n_id_kinds && !st; k++) {
            const char *name = copy_str(s, p->id_kind_names[k]);
            uint64_t key[PK_KMAP_WORDS] = {(uintptr_t)name, name ? 0 : k + 1u};
            int added;
            st = lookup(s, key, m->n_id_kinds, &s->in[i].kind[k], &added);
            if (st || !added) continue;
            if (pk_vec_reserve((void **)&m->id_kind_names, &cap, m->n_id_kinds + 2u,
                               sizeof *m->id_kind_names))
                return pk_fail_nomem("merging identifier kinds");
            m->id_kind_names[m->n_id_kinds++] = name;
        }
        if (st) return st;
    }
    return m->id_kind_names ? pk_model_adopt_owned(m, (void *)m->id_kind_names) : PK_OK;
}

static pk_status add_metric(mg_state *s, size_t i, const pk_metric *mt, size_t *cap,
                            size_t *cap_owner)
{
    pk_profile *m = s->m;
    if (pk_vec_reserve((void **)&m->metrics, cap, m->n_metrics + 1u, sizeof *m->metrics) ||
        pk_vec_reserve((void **)&s->met_owner, cap_owner, m->n_metrics + 1u, sizeof *s->met_owner))
        return pk_fail_nomem("merging metrics");
    pk_metric g = *mt;
    g.name = copy_str(s, mt->name);
    g.description = copy_str(s, mt->description);
    g.unit = copy_str(s, mt->unit);
    g.parent = PK_NONE; /* set once every metric has its merged index */
    s->met_owner[m->n_metrics] = (uint32_t)i;
    m->metrics[m->n_metrics++] = g;
    return PK_OK;
}

static pk_status merge_metrics(mg_state *s)
{
    pk_profile *m = s->m;
    size_t cap = 0, cap_owner = 0;
    pk_kmap_clear(&s->map);
    for (size_t i = 0; i < s->n_in; i++) {
        const pk_profile *p = s->in[i].p;
        pk_status st = index_array(&s->in[i].metric, p->n_metrics);
        for (uint32_t k = 0; k < p->n_metrics && !st; k++) {
            uint64_t key[PK_KMAP_WORDS] = {(uintptr_t)copy_str(s, p->metrics[k].name)};
            int added;
            st = lookup(s, key, m->n_metrics, &s->in[i].metric[k], &added);
            if (!st && added) st = add_metric(s, i, &p->metrics[k], &cap, &cap_owner);
        }
        if (st) return st;
    }
    for (size_t i = 0; i < s->n_in; i++)
        for (uint32_t k = 0; k < s->in[i].p->n_metrics; k++) {
            uint32_t to = s->in[i].metric[k], parent = s->in[i].p->metrics[k].parent;
            if (m->metrics[to].parent == PK_NONE && parent < s->in[i].p->n_metrics &&
                s->in[i].metric[parent] != to)
                m->metrics[to].parent = s->in[i].metric[parent];
        }
    return m->metrics ? pk_model_adopt_owned(m, m->metrics) : PK_OK;
}

static pk_status merge_scopes(mg_state *s)
{
    pk_profile *m = s->m;
    size_t cap = 0;
    pk_kmap_clear(&s->map);
    for (size_t i = 0; i < s->n_in; i++) {
        const pk_profile *p = s->in[i].p;
        pk_status st = index_array(&s->in[i].scope, p->n_scopes);
        for (uint32_t k = 0; k < p->n_scopes && !st; k++) {
            pk_scope g = p->scopes[k];
            g.name = copy_str(s, g.name);
            uint64_t key[PK_KMAP_WORDS] = {(uintptr_t)g.name, g.kind};
            int added;
            st = lookup(s, key, m->n_scopes, &s->in[i].scope[k], &added);
            if (st || !added) continue;
            if (pk_vec_reserve((void **)&m->scopes, &cap, m->n_scopes + 1u, sizeof *m->scopes))
                return pk_fail_nomem("merging scopes");
            m->scopes[m->n_scopes++] = g;
        }
        if (st) return st;
    }
    return m->scopes ? pk_model_adopt_owned(m, m->scopes) : PK_OK;
}

/* Plain columns only: summary statistics are dropped (see the top). Each
 * merged column's raw id is its index. */
static pk_status merge_columns(mg_state *s)
{
    pk_profile *m = s->m;
    size_t cap = 0;
    pk_kmap_clear(&s->map);
    for (size_t i = 0; i < s->n_in; i++) {
        const pk_profile *p = s->in[i].p;
        pk_status st = index_array(&s->in[i].column, p->n_columns);
        for (uint32_t k = 0; k < p->n_columns && !st; k++) {
            const pk_column *c = &p->columns[k];
            if (c->is_summary || c->metric >= p->n_metrics || c->scope >= p->n_scopes) continue;
            pk_column g = {s->in[i].metric[c->metric],
                           s->in[i].scope[c->scope],
                           0,
                           PK_STAT_NONE,
                           NULL,
                           c->combine,
                           m->n_columns};
            uint64_t key[PK_KMAP_WORDS] = {g.metric, g.scope};
            int added;
            st = lookup(s, key, m->n_columns, &s->in[i].column[k], &added);
            if (st || !added) continue;
            if (m->n_columns >= UINT16_MAX)
                return pk_fail(PK_ERR_UNSUPPORTED, "merge: more than %u value columns", UINT16_MAX);
            if (pk_vec_reserve((void **)&m->columns, &cap, m->n_columns + 1u, sizeof *m->columns))
                return pk_fail_nomem("merging columns");
            st = pk_model_map_column(m, 0, m->n_columns, m->n_columns);
            m->columns[m->n_columns++] = g;
        }
        if (st) return st;
    }
    return m->columns ? pk_model_adopt_owned(m, m->columns) : PK_OK;
}

/* The node a context of input i maps to: found by its parent's node and
 * its own description, or new. Unlisted contexts (no parent) are never
 * shared between inputs: their ids mean nothing across files. */
static pk_status context_node(mg_state *s, size_t i, uint32_t k)
{
    const pk_ctx_rec *c = &s->in[i].p->ctx[k];
    mg_input *in = &s->in[i];
    if (k == 0 && s->n_nodes) { /* every input's root is the one root */
        in->node[0] = 0;
        return PK_OK;
    }
    uint32_t parent = c->parent == PK_NONE || c->parent >= k ? PK_NONE : in->node[c->parent];
    int unlisted = k && parent == PK_NONE;
    pk_ctx_rec r = *c;
    r.parent = parent;
    r.function = remap(in->function, c->function);
    r.file = remap(in->file, c->file);
    r.module = remap(in->module, c->module);
    r.entry_name = copy_str(s, c->entry_name);
    uint64_t key[PK_KMAP_WORDS] = {unlisted ? (uint64_t)i << 32 | UINT32_MAX : parent,
                                   (uint64_t)r.kind | (uint64_t)r.relation << 8 |
                                       (uint64_t)r.entry << 16 |
                                       (uint64_t)(r.flags & ~PK_CTXF_UNLISTED) << 32,
                                   r.function,
                                   r.file,
                                   r.line,
                                   r.module,
                                   unlisted ? c->id : r.offset,
                                   (uintptr_t)r.entry_name};
    int added;
    pk_status st = lookup(s, key, (uint32_t)s->n_nodes, &in->node[k], &added);
    if (st || !added) return st;
    if (pk_vec_reserve((void **)&s->nodes, &s->cap_nodes, s->n_nodes + 1, sizeof *s->nodes))
        return pk_fail_nomem("merging contexts");
    mg_node *n = &s->nodes[s->n_nodes];
    *n = (mg_node){r, PK_NONE, PK_NONE, PK_NONE, (uint32_t)i, k};
    if (parent != PK_NONE) {
        mg_node *pn = &s->nodes[parent];
        if (pn->last_kid == PK_NONE)
            pn->first_kid = (uint32_t)s->n_nodes;
        else
            s->nodes[pn->last_kid].next_sib = (uint32_t)s->n_nodes;
        pn->last_kid = (uint32_t)s->n_nodes;
    }
    s->n_nodes++;
    return PK_OK;
}

/* Append node `n` as a context of m; children are linked by the caller. */
static pk_status emit_context(mg_state *s, uint32_t n, uint32_t parent)
{
    pk_ctx_rec *c;
    uint32_t idx;
    pk_status st = pk_model_add_context(s->m, &c, &idx);
    if (st) return st;
    *c = s->nodes[n].rec;
    c->id = idx;
    c->parent = parent;
    c->first_child = PK_NONE;
    c->n_children = 0;
    c->depth = parent == PK_NONE ? 0 : s->m->ctx[parent].depth + 1;
    s->ctx_of_node[n] = idx;
    if (parent != PK_NONE) {
        pk_ctx_rec *pc = &s->m->ctx[parent];
        if (!pc->n_children++) pc->first_child = idx;
    }
    return PK_OK;
}

/* Breadth-first, as the model requires; unlisted contexts last. */
static pk_status lay_out(mg_state *s)
{
    s->ctx_of_node = malloc(s->n_nodes * sizeof *s->ctx_of_node);
    uint32_t *queue = malloc(s->n_nodes * sizeof *queue);
    pk_status st = s->ctx_of_node && queue ? PK_OK : pk_fail_nomem("merging contexts");
    size_t head = 0, tail = 0;
    if (!st) queue[tail++] = 0, st = emit_context(s, 0, PK_NONE);
    while (!st && head < tail) {
        uint32_t n = queue[head++];
        for (uint32_t k = s->nodes[n].first_kid; k != PK_NONE && !st; k = s->nodes[k].next_sib) {
            queue[tail++] = k;
            st = emit_context(s, k, s->ctx_of_node[n]);
        }
    }
    for (uint32_t n = 1; n < s->n_nodes && !st; n++)
        if (s->nodes[n].rec.parent == PK_NONE) st = emit_context(s, n, PK_NONE);
    free(queue);
    for (size_t i = 0; i < s->n_in && !st; i++) { /* one lookup per value later */
        const mg_input *in = &s->in[i];
        st = index_array(&s->in[i].ctx, in->p->n_ctx);
        for (uint32_t k = 0; k < in->p->n_ctx && !st; k++)
            in->ctx[k] = s->ctx_of_node[in->node[k]];
    }
    return st ? st : pk_model_index_contexts(s->m);
}

static pk_status merge_contexts(mg_state *s)
{
    pk_kmap_clear(&s->map);
    for (size_t i = 0; i < s->n_in; i++) {
        const pk_profile *p = s->in[i].p;
        if (!p->n_ctx) return pk_fail(PK_ERR_INVALID_ARG, "merge: input %zu has no contexts", i);
        pk_status st = index_array(&s->in[i].node, p->n_ctx);
        for (uint32_t k = 0; k < p->n_ctx && !st; k++)
            st = context_node(s, i, k);
        if (st) return st;
    }
    return lay_out(s);
}

/* Attributes of the entities an input created in the merged profile (the
 * first input's profile attributes; every location's). */
static pk_status copy_attrs(mg_state *s)
{
    for (size_t i = 0; i < s->n_in; i++) {
        const pk_profile *p = s->in[i].p;
        for (size_t a = 0; a < p->n_attrs; a++) {
            const pk_attr_rec *r = &p->attrs[a];
            uint32_t to = PK_NONE;
            if (r->entity == PK_ENTITY_PROFILE && i == 0) to = 0;
            if (r->entity == PK_ENTITY_METRIC && r->index < p->n_metrics &&
                s->met_owner[s->in[i].metric[r->index]] == i)
                to = s->in[i].metric[r->index];
            if (r->entity == PK_ENTITY_FUNCTION && r->index < p->n_functions &&
                s->fn_owner[s->in[i].function[r->index]] == i)
                to = s->in[i].function[r->index];
            if (r->entity == PK_ENTITY_CONTEXT && r->index < p->n_ctx &&
                s->nodes[s->in[i].node[r->index]].input == i &&
                s->nodes[s->in[i].node[r->index]].index == r->index)
                to = mg_ctx(s, i, r->index);
            if (r->entity == PK_ENTITY_LOCATION && r->index < p->n_locs)
                to = s->in[i].loc[r->index];
            /* an averaged location has no one source to take attributes from */
            if (r->entity == PK_ENTITY_LOCATION && to != PK_NONE && s->loc_members[to] > 1)
                to = PK_NONE;
            if (to == PK_NONE) continue;
            const char *v = r->value ? r->value : "";
            pk_status st = pk_model_add_attr(s->m, r->entity, to, r->key, v, strlen(v));
            if (st) return st;
        }
    }
    pk_model_sort_attrs(s->m);
    return PK_OK;
}

static void describe(mg_state *s)
{
    pk_profile *m = s->m, *first = (pk_profile *)s->in[0].p;
    m->format = first->format;
    m->format_name = first->format_name;
    m->major = first->major, m->minor = first->minor;
    for (size_t i = 1; i < s->n_in; i++)
        if (s->in[i].p->format != first->format) m->format = PK_FORMAT_UNKNOWN;
    if (m->format == PK_FORMAT_UNKNOWN) m->format_name = "merged", m->major = m->minor = 0;
    m->title = copy_str(s, first->title);
    m->description = copy_str(s, first->description);
    m->path = copy_str(s, first->path);
    for (size_t i = 0; i < s->n_in; i++) {
        m->complete &= s->in[i].p->complete;
        m->reconstructed |= s->in[i].p->reconstructed;
    }
}

static void free_state(mg_state *s)
{
    for (size_t i = 0; s->in && i < s->n_in; i++) {
        mg_input *in = &s->in[i];
        free(in->module), free(in->file), free(in->function), free(in->metric);
        free(in->scope), free(in->column), free(in->kind), free(in->node), free(in->ctx),
            free(in->loc);
    }
    free(s->in), free(s->nodes), free(s->ctx_of_node);
    free(s->met_owner), free(s->fn_owner), free(s->loc_members);
    pk_kmap_free(&s->map);
}

void mg_keep_free(mg_keep *k)
{
    for (size_t i = 0; k->ctx && i < k->n_in; i++)
        free(k->ctx[i]), free(k->column[i]), free(k->loc[i]);
    free(k->ctx), free(k->column), free(k->loc), free(k->loc_members);
    memset(k, 0, sizeof *k);
}

/* The maps a parallel merge needs, moved out of the state. */
static pk_status keep_maps(mg_state *s, mg_keep *k)
{
    k->n_in = s->n_in;
    k->ctx = calloc(s->n_in, sizeof *k->ctx);
    k->column = calloc(s->n_in, sizeof *k->column);
    k->loc = calloc(s->n_in, sizeof *k->loc);
    if (!k->ctx || !k->column || !k->loc) return pk_fail_nomem("merging");
    for (size_t i = 0; i < s->n_in; i++) {
        k->ctx[i] = s->in[i].ctx, k->column[i] = s->in[i].column, k->loc[i] = s->in[i].loc;
        s->in[i].ctx = s->in[i].column = s->in[i].loc = NULL;
    }
    k->loc_members = s->loc_members, s->loc_members = NULL;
    return PK_OK;
}

pk_status mg_merge(const pk_profile *const *profiles, size_t n, const pk_merge_options *opts,
                   pk_profile **out, mg_keep *keep)
{
    if (!profiles || !n || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_profile_merge: no input");
    for (size_t i = 0; i < n; i++)
        if (!profiles[i]) return pk_fail(PK_ERR_INVALID_ARG, "pk_profile_merge: NULL input");
    mg_state s = {0};
    s.n_in = n;
    s.mean = opts && opts->mean;
    s.in = calloc(n, sizeof *s.in);
    pk_status st = s.in ? pk_model_new(&s.m) : pk_fail_nomem("merging");
    for (size_t i = 0; s.in && i < n; i++)
        s.in[i].p = profiles[i];
    if (!st) st = merge_modules(&s);
    if (!st) st = merge_files(&s);
    if (!st) st = merge_functions(&s);
    if (!st) st = merge_kinds(&s);
    if (!st) st = merge_metrics(&s);
    if (!st) st = merge_scopes(&s);
    if (!st) st = merge_columns(&s);
    if (!st) st = merge_contexts(&s);
    if (!st) st = mg_locations(&s);
    if (!st) st = mg_values(&s);
    if (!st && !s.mean) st = mg_traces(&s);
    if (!st) st = copy_attrs(&s);
    if (!st) describe(&s);
    if (!st && keep) st = keep_maps(&s, keep);
    free_state(&s);
    if (st) {
        if (keep) mg_keep_free(keep);
        pk_profile_free(s.m);
        return st;
    }
    *out = s.m;
    return PK_OK;
}

pk_status pk_profile_merge(const pk_profile *const *profiles, size_t n,
                           const pk_merge_options *opts, pk_profile **out)
{
    return mg_merge(profiles, n, opts, out, NULL);
}
