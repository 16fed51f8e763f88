/*
 * formats/json/read_rec.c — profkit.model/1 records into the model:
 * typed access to a record's members (with errors that say which member
 * and what was expected), and the dimensions: profile, identifier kinds,
 * modules, files, functions, metrics, scopes, columns, contexts,
 * attributes, diagnostics. Every index is checked against what exists,
 * every enumeration against its names, the context list against the
 * model's breadth-first layout (which also rules out parent cycles).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jr.h"
#include "util/error.h"
#include "util/vec.h"

/* ---- member access ---- */

const jr_tok *jr_field(jr *r, const char *key)
{
    size_t n;
    const jr_tok *t = jr_rec_toks(r, &n);
    for (size_t i = 0; i < n; i++)
        if (!t[i].in_list && t[i].key != UINT32_MAX && strcmp(r->text + t[i].key, key) == 0)
            return &t[i];
    return NULL;
}

static const char *type_name(const jr_tok *t)
{
    static const char *const names[] = {"null", "a boolean", "a number", "a string",
                                        "an array or object"};
    return names[t->type];
}

pk_status jr_u64(jr *r, const jr_tok *t, const char *field, uint64_t max, uint64_t *out)
{
    if (!t) return jr_err(r, NULL, field, "missing (an integer is required)");
    if (t->type != JT_NUM)
        return jr_err(r, t, field, "must be a non-negative integer, not %s", type_name(t));
    const char *s = jr_text(r, t);
    uint64_t v = 0;
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9')
            return jr_err(r, t, field, "must be a non-negative integer, not %s", s);
        if (v > (UINT64_MAX - (uint64_t)(*c - '0')) / 10)
            return jr_err(r, t, field, "%s is too large", s);
        v = v * 10 + (uint64_t)(*c - '0');
    }
    if (v > max)
        return jr_err(r, t, field, "%llu is out of range (at most %llu)", (unsigned long long)v,
                      (unsigned long long)max);
    *out = v;
    return PK_OK;
}

pk_status jr_get_u64(jr *r, const char *key, uint64_t max, uint64_t *out)
{
    return jr_u64(r, jr_field(r, key), key, max, out);
}

pk_status jr_get_u32(jr *r, const char *key, uint32_t *out)
{
    uint64_t v;
    pk_status st = jr_get_u64(r, key, UINT32_MAX, &v);
    if (!st) *out = (uint32_t)v;
    return st;
}

pk_status jr_tok_index(jr *r, const jr_tok *t, const char *field, uint64_t n, int null_ok,
                       uint32_t *out)
{
    if (t && t->type == JT_NULL && null_ok) {
        *out = PK_NONE;
        return PK_OK;
    }
    if (t && t->type == JT_NUM && n == 0)
        return jr_err(r, t, field, "refers to an index, but there are none");
    uint64_t v;
    pk_status st = jr_u64(r, t, field, n ? n - 1 : 0, &v);
    if (st) return st;
    *out = (uint32_t)v;
    return PK_OK;
}

pk_status jr_get_index(jr *r, const char *key, uint64_t n, int null_ok, uint32_t *out)
{
    return jr_tok_index(r, jr_field(r, key), key, n, null_ok, out);
}

pk_status jr_get_bool(jr *r, const char *key, int *out)
{
    const jr_tok *t = jr_field(r, key);
    if (!t) return jr_err(r, NULL, key, "missing (true or false is required)");
    if (t->type != JT_BOOL) return jr_err(r, t, key, "must be true or false, not %s", type_name(t));
    *out = t->b;
    return PK_OK;
}

pk_status jr_intern(jr *r, const jr_tok *t, const char *field, const char **out)
{
    if (t->type == JT_NULL) {
        *out = NULL;
        return PK_OK;
    }
    if (t->type != JT_STR) return jr_err(r, t, field, "must be a string, not %s", type_name(t));
    *out = pk_intern(&r->p->strings, jr_text(r, t), t->len);
    return *out ? PK_OK : (r->st = pk_fail_nomem("reading JSON"));
}

pk_status jr_get_str(jr *r, const char *key, int null_ok, const char **out)
{
    const jr_tok *t = jr_field(r, key);
    if (!t)
        return jr_err(r, NULL, key, "missing (a string%s is required)", null_ok ? " or null" : "");
    if (t->type == JT_NULL && !null_ok) return jr_err(r, t, key, "must be a string, not null");
    return jr_intern(r, t, key, out);
}

pk_status jr_get_enum(jr *r, const char *key, const char *const *names, int *out)
{
    const jr_tok *t = jr_field(r, key);
    if (!t) return jr_err(r, NULL, key, "missing");
    if (t->type == JT_STR)
        for (int i = 0; names[i]; i++)
            if (strcmp(names[i], jr_text(r, t)) == 0) {
                *out = i;
                return PK_OK;
            }
    char known[256];
    size_t n = 0;
    for (int i = 0; names[i] && n < sizeof known; i++)
        n += (size_t)snprintf(known + n, sizeof known - n, "%s\"%s\"", i ? ", " : "", names[i]);
    return jr_err(r, t, key, "must be one of %s", known);
}

pk_status jr_double(jr *r, const jr_tok *t, const char *field, double *out)
{
    if (!t) return jr_err(r, NULL, field, "missing (a number is required)");
    const char *s = jr_text(r, t);
    if (t->type == JT_NUM) {
        char *end;
        *out = strtod(s, &end);
        if (*end || !isfinite(*out)) return jr_err(r, t, field, "%s is not a finite double", s);
        return PK_OK;
    }
    if (t->type == JT_STR) {
        if (strcmp(s, "NaN") == 0) return *out = NAN, PK_OK;
        if (strcmp(s, "Infinity") == 0) return *out = INFINITY, PK_OK;
        if (strcmp(s, "-Infinity") == 0) return *out = -INFINITY, PK_OK;
        if (strncmp(s, "NaN:0x", 6) == 0 && strlen(s) == 22) {
            char *end;
            errno = 0;
            uint64_t b = strtoull(s + 6, &end, 16);
            memcpy(out, &b, sizeof b);
            if (!*end && !errno && isnan(*out)) return PK_OK;
        }
    }
    return jr_err(r, t, field,
                  "must be a number, or \"NaN\", \"Infinity\", \"-Infinity\" or "
                  "\"NaN:0x<16 hex digits>\" (found %s)",
                  type_name(t));
}

pk_status jr_get_list(jr *r, const char *key, int null_ok, const jr_tok **first, size_t *n,
                      int *present)
{
    const jr_tok *t = jr_field(r, key);
    if (!t) return jr_err(r, NULL, key, "missing (an array is required)");
    if (t->type == JT_NULL && null_ok) {
        *first = NULL, *n = 0, *present = 0;
        return PK_OK;
    }
    if (t->type != JT_LIST || t->b == 2)
        return jr_err(r, t, key, "must be an array%s, not %s", null_ok ? " or null" : "",
                      t->b == 2 ? "an object" : type_name(t));
    size_t total;
    const jr_tok *all = jr_rec_toks(r, &total), *end = all + total;
    size_t k = 0;
    while (t + 1 + k < end && t[1 + k].in_list && t[1 + k].key == t->key)
        k++;
    *first = t + 1, *n = k, *present = 1;
    return PK_OK;
}

pk_status jr_require_array(jr *r, const char *key)
{
    const jr_tok *t = jr_field(r, key);
    if (!t) return jr_err(r, NULL, key, "missing (an array is required)");
    if (t->type != JT_LIST || t->b == 2)
        return jr_err(r, t, key, "must be an array, not %s",
                      t->b == 2 ? "an object" : type_name(t));
    return PK_OK;
}

/* ---- dimensions ---- */

static pk_status grow(jr *r, void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need > PK_NONE - 1)
        return jr_err(r, NULL, NULL, "too many records (at most %u)", PK_NONE - 1);
    if (pk_vec_reserve(arr, cap, need, elem)) return r->st = pk_fail_nomem("reading JSON");
    return PK_OK;
}

static pk_status rec_profile(jr *r)
{
    pk_profile *p = r->p;
    const jr_tok *range;
    size_t n;
    int present, rec;
    const char *ignored;
    PK_TRY(jr_get_str(r, "title", 1, &p->title));
    PK_TRY(jr_get_str(r, "description", 1, &p->description));
    PK_TRY(jr_get_str(r, "format", 1, &ignored));
    PK_TRY(jr_get_bool(r, "reconstructed", &rec));
    p->reconstructed = rec;
    if (jr_field(r, "summary_exact")) { /* optional: files before it have none */
        PK_TRY(jr_get_bool(r, "summary_exact", &rec));
        p->summary_exact = rec;
    }
    PK_TRY(jr_get_list(r, "trace_range", 1, &range, &n, &present));
    if (present && n != 2)
        return jr_err(r, NULL, "trace_range", "must be [begin, end] or null (%zu values)", n);
    if (present) {
        PK_TRY(jr_u64(r, &range[0], "trace_range[0]", UINT64_MAX, &p->trace_begin));
        PK_TRY(jr_u64(r, &range[1], "trace_range[1]", UINT64_MAX, &p->trace_end));
        p->has_trace_range = 1;
    }
    return PK_OK;
}

static pk_status rec_source(jr *r)
{
    const char *name;
    uint64_t size;
    PK_TRY(jr_get_str(r, "name", 1, &name));
    return jr_get_u64(r, "size", UINT64_MAX, &size);
}

static pk_status rec_idkinds(jr *r)
{
    pk_profile *p = r->p;
    size_t n;
    const jr_tok *t = jr_rec_toks(r, &n);
    if (n > 65536) return jr_err(r, NULL, NULL, "more than 65536 identifier kinds");
    p->id_kind_names = pk_arena_array(&p->arena, n + 1, sizeof *p->id_kind_names);
    if (!p->id_kind_names) return r->st = pk_fail_nomem("reading JSON");
    for (size_t i = 0; i < n; i++) {
        char field[24];
        snprintf(field, sizeof field, "[%zu]", i);
        PK_TRY(jr_intern(r, &t[i], field, &p->id_kind_names[i]));
    }
    p->n_id_kinds = (uint32_t)n;
    return PK_OK;
}

static pk_status rec_module(jr *r)
{
    pk_profile *p = r->p;
    PK_TRY(grow(r, (void **)&p->modules, &r->cap_modules, p->n_modules + 1u, sizeof *p->modules));
    pk_module *m = &p->modules[p->n_modules];
    PK_TRY(jr_get_str(r, "path", 1, &m->path));
    p->n_modules++;
    return PK_OK;
}

static pk_status rec_file(jr *r)
{
    pk_profile *p = r->p;
    PK_TRY(grow(r, (void **)&p->files, &r->cap_files, p->n_files + 1u, sizeof *p->files));
    pk_file *f = &p->files[p->n_files];
    PK_TRY(jr_get_str(r, "path", 1, &f->path));
    PK_TRY(jr_get_u32(r, "flags", &f->flags));
    p->n_files++;
    return PK_OK;
}

static pk_status rec_function(jr *r)
{
    pk_profile *p = r->p;
    PK_TRY(grow(r, (void **)&p->functions, &r->cap_functions, p->n_functions + 1u,
                sizeof *p->functions));
    pk_function *f = &p->functions[p->n_functions];
    PK_TRY(jr_get_str(r, "name", 1, &f->name));
    PK_TRY(jr_get_index(r, "module", p->n_modules, 1, &f->module));
    PK_TRY(jr_get_u64(r, "offset", UINT64_MAX, &f->offset));
    PK_TRY(jr_get_index(r, "file", p->n_files, 1, &f->file));
    PK_TRY(jr_get_u32(r, "line", &f->line));
    p->n_functions++;
    return PK_OK;
}

static pk_status rec_metric(jr *r)
{
    pk_profile *p = r->p;
    PK_TRY(grow(r, (void **)&p->metrics, &r->cap_metrics, p->n_metrics + 1u, sizeof *p->metrics));
    pk_metric *m = &p->metrics[p->n_metrics];
    int combine;
    PK_TRY(jr_get_str(r, "name", 1, &m->name));
    PK_TRY(jr_get_str(r, "description", 1, &m->description));
    PK_TRY(jr_get_str(r, "unit", 1, &m->unit));
    PK_TRY(jr_get_index(r, "parent", PK_NONE - 1, 1, &m->parent)); /* checked when all are read */
    PK_TRY(jr_get_enum(r, "combine", json_combines, &combine));
    PK_TRY(jr_get_u32(r, "flags", &m->flags));
    m->combine = (pk_combine)combine;
    p->n_metrics++;
    return PK_OK;
}

static pk_status rec_scope(jr *r)
{
    pk_profile *p = r->p;
    PK_TRY(grow(r, (void **)&p->scopes, &r->cap_scopes, p->n_scopes + 1u, sizeof *p->scopes));
    pk_scope *s = &p->scopes[p->n_scopes];
    int kind;
    uint64_t raw_type, prop;
    PK_TRY(jr_get_str(r, "name", 1, &s->name));
    PK_TRY(jr_get_enum(r, "kind", json_scope_kinds, &kind));
    PK_TRY(jr_get_u64(r, "raw_type", 255, &raw_type));
    PK_TRY(jr_get_u64(r, "propagation_index", 255, &prop));
    s->kind = (pk_scope_kind)kind, s->raw_type = (uint8_t)raw_type;
    s->propagation_index = (uint8_t)prop;
    p->n_scopes++;
    return PK_OK;
}

static pk_status rec_column(jr *r)
{
    pk_profile *p = r->p;
    PK_TRY(grow(r, (void **)&p->columns, &r->cap_columns, p->n_columns + 1u, sizeof *p->columns));
    pk_column *c = &p->columns[p->n_columns];
    int stat, combine;
    uint64_t raw;
    PK_TRY(jr_get_index(r, "metric", p->n_metrics, 0, &c->metric));
    PK_TRY(jr_get_index(r, "scope", p->n_scopes, 0, &c->scope));
    PK_TRY(jr_get_bool(r, "summary", &c->is_summary));
    PK_TRY(jr_get_enum(r, "stat", json_stats, &stat));
    PK_TRY(jr_get_str(r, "formula", 1, &c->formula));
    PK_TRY(jr_get_enum(r, "combine", json_combines, &combine));
    /* values store column ids in 16 bits, as profile.db does */
    PK_TRY(jr_get_u64(r, "raw_id", UINT16_MAX, &raw));
    c->stat = (pk_stat)stat, c->combine = (pk_combine)combine, c->raw_id = (uint32_t)raw;
    p->n_columns++;
    return PK_OK;
}

/* ---- contexts ---- */

/* Parent and tree links: contexts come breadth-first, as the model keeps
 * them, so a parent precedes its children and the parents of successive
 * contexts never decrease (each context's children are consecutive). */
static pk_status link_context(jr *r, pk_ctx_rec *c, uint32_t index, uint32_t parent)
{
    pk_profile *p = r->p;
    if (index == 0 && parent != PK_NONE)
        return jr_err(r, NULL, "parent", "context 0 is the root: its parent must be null");
    if (parent == PK_NONE) {
        if (index && !(c->flags & PK_CTXF_UNLISTED))
            return jr_err(r, NULL, "parent",
                          "null, but only the root (context 0) and unlisted contexts (flag %u) "
                          "have no parent",
                          PK_CTXF_UNLISTED);
        return PK_OK;
    }
    if (parent >= index)
        return jr_err(r, NULL, "parent",
                      "%u does not precede context %u: contexts are listed breadth-first, "
                      "parents first (a parent cycle cannot be written so)",
                      parent, index);
    if (r->last_parent != PK_NONE && parent < r->last_parent)
        return jr_err(r, NULL, "parent",
                      "%u after a context whose parent is %u: contexts are listed "
                      "breadth-first, so the children of one parent are consecutive",
                      parent, r->last_parent);
    r->last_parent = parent;
    pk_ctx_rec *up = &p->ctx[parent];
    if (up->n_children++ == 0) up->first_child = index;
    c->depth = up->depth + 1;
    c->parent = parent;
    return PK_OK;
}

static pk_status context_links(jr *r, pk_ctx_rec *c)
{
    pk_profile *p = r->p;
    PK_TRY(jr_get_index(r, "function", p->n_functions, 1, &c->function));
    PK_TRY(jr_get_index(r, "file", p->n_files, 1, &c->file));
    PK_TRY(jr_get_u32(r, "line", &c->line));
    PK_TRY(jr_get_index(r, "module", p->n_modules, 1, &c->module));
    PK_TRY(jr_get_u64(r, "offset", UINT64_MAX, &c->offset));
    const jr_tok *raw;
    size_t n;
    int present;
    uint64_t v[3], prop;
    PK_TRY(jr_get_list(r, "raw", 0, &raw, &n, &present));
    if (n != 3) return jr_err(r, NULL, "raw", "must be [kind, relation, entry] (%zu values)", n);
    PK_TRY(jr_u64(r, &raw[0], "raw[0]", 255, &v[0]));
    PK_TRY(jr_u64(r, &raw[1], "raw[1]", 255, &v[1]));
    PK_TRY(jr_u64(r, &raw[2], "raw[2]", UINT16_MAX, &v[2]));
    PK_TRY(jr_get_u64(r, "propagation", UINT16_MAX, &prop));
    c->raw_kind = (uint8_t)v[0], c->raw_relation = (uint8_t)v[1], c->raw_entry = (uint16_t)v[2];
    c->propagation = (uint16_t)prop;
    return PK_OK;
}

static pk_status rec_context(jr *r, uint64_t index)
{
    pk_profile *p = r->p;
    pk_ctx_rec *c;
    uint32_t at, parent;
    uint64_t flags;
    int kind, rel, entry;
    PK_TRY(jr_get_index(r, "parent", PK_NONE - 1, 1, &parent));
    PK_TRY(jr_get_enum(r, "kind", json_ctx_kinds, &kind));
    PK_TRY(jr_get_enum(r, "relation", json_relations, &rel));
    PK_TRY(jr_get_enum(r, "entry", json_entries, &entry));
    PK_TRY(jr_get_u64(r, "flags", 255, &flags));
    pk_status st = pk_model_add_context(p, &c, &at);
    if (st) return r->st = st;
    (void)index;
    PK_TRY(jr_get_u64(r, "id", UINT64_MAX, &c->id));
    PK_TRY(jr_get_str(r, "entry_name", 1, &c->entry_name));
    c->kind = (uint8_t)kind, c->relation = (uint8_t)rel, c->entry = (uint8_t)entry;
    c->flags = (uint8_t)flags;
    PK_TRY(context_links(r, c));
    return link_context(r, c, at, parent);
}

static pk_status contexts_done(jr *r)
{
    pk_profile *p = r->p;
    if (!p->n_ctx) return jr_err(r, NULL, NULL, "there must be at least the root context");
    pk_status st = pk_model_index_contexts(p);
    if (st) return jr_err(r, NULL, NULL, "%s", pk_error_last());
    r->contexts_done = 1;
    return PK_OK;
}

/* ---- metrics and columns, once all are read ---- */

static pk_status metrics_done(jr *r)
{
    pk_profile *p = r->p;
    for (uint32_t m = 0; m < p->n_metrics; m++) {
        uint32_t up = p->metrics[m].parent;
        if (up != PK_NONE && up >= p->n_metrics)
            return jr_err(r, NULL, NULL, "metric %u: parent %u does not exist (%u metrics)", m, up,
                          p->n_metrics);
    }
    for (uint32_t m = 0; m < p->n_metrics; m++) { /* every parent exists: walk the chains */
        uint32_t up = p->metrics[m].parent, steps = 0;
        while (up != PK_NONE && steps++ <= p->n_metrics)
            up = p->metrics[up].parent;
        if (up != PK_NONE) return jr_err(r, NULL, NULL, "metric %u: its parents form a cycle", m);
    }
    return PK_OK;
}

static pk_status columns_done(jr *r)
{
    pk_profile *p = r->p;
    for (uint32_t c = 0; c < p->n_columns; c++) {
        const pk_column *col = &p->columns[c];
        if (pk_model_map_column(p, col->is_summary, col->raw_id, c))
            return jr_err(r, NULL, NULL, "column %u: raw_id %u is used by another %s column", c,
                          col->raw_id, col->is_summary ? "summary" : "plain");
    }
    return PK_OK;
}

/* ---- attributes and diagnostics ---- */

static uint32_t entity_count(const pk_profile *p, int entity)
{
    switch (entity) {
    case PK_ENTITY_METRIC:
        return p->n_metrics;
    case PK_ENTITY_FUNCTION:
        return p->n_functions;
    case PK_ENTITY_CONTEXT:
        return p->n_ctx;
    case PK_ENTITY_LOCATION:
        return p->n_locs;
    }
    return 1;
}

static pk_status rec_attr(jr *r)
{
    int entity;
    uint32_t index;
    const char *key, *value;
    PK_TRY(jr_get_enum(r, "entity", json_entities, &entity));
    PK_TRY(jr_get_index(r, "index", entity_count(r->p, entity), 0, &index));
    PK_TRY(jr_get_str(r, "key", 0, &key));
    PK_TRY(jr_get_str(r, "value", 0, &value));
    pk_status st = pk_model_add_attr(r->p, (pk_entity)entity, index, key, value, strlen(value));
    return st ? (r->st = st) : PK_OK;
}

static pk_status rec_diag(jr *r)
{
    pk_profile *p = r->p;
    int sev;
    pk_diagnostic d = {0};
    PK_TRY(jr_get_enum(r, "severity", json_severities, &sev));
    PK_TRY(jr_get_str(r, "code", 0, &d.code));
    PK_TRY(jr_get_str(r, "file", 1, &d.file));
    PK_TRY(jr_get_str(r, "structure", 1, &d.structure));
    PK_TRY(jr_get_str(r, "message", 0, &d.message));
    const jr_tok *off = jr_field(r, "offset");
    d.has_offset = off && off->type != JT_NULL;
    if (d.has_offset) PK_TRY(jr_u64(r, off, "offset", UINT64_MAX, &d.offset));
    if (!off) return jr_err(r, NULL, "offset", "missing (an integer or null is required)");
    d.severity = (pk_severity)sev;
    /* as the original reader recorded them (already capped per code) */
    if (pk_vec_reserve((void **)&p->diags, &p->cap_diags, p->n_diags + 1, sizeof *p->diags))
        return r->st = pk_fail_nomem("reading JSON");
    p->diags[p->n_diags++].d = d;
    return PK_OK;
}

/* ---- dispatch ---- */

pk_status jr_record(jr *r, jr_kind kind, uint64_t index)
{
    switch (kind) {
    case R_PROFILE:
        return rec_profile(r);
    case R_SOURCE:
        return rec_source(r);
    case R_IDKINDS:
        return rec_idkinds(r);
    case R_MODULE:
        return rec_module(r);
    case R_FILE:
        return rec_file(r);
    case R_FUNCTION:
        return rec_function(r);
    case R_METRIC:
        return rec_metric(r);
    case R_SCOPE:
        return rec_scope(r);
    case R_COLUMN:
        return rec_column(r);
    case R_CONTEXT:
        return rec_context(r, index);
    case R_ATTR:
        return rec_attr(r);
    case R_DIAG:
        return rec_diag(r);
    default:
        return jr_err(r, NULL, NULL, "internal: no handler for record kind %d", (int)kind);
    }
}

pk_status jr_list_begin(jr *r, jr_kind kind)
{
    if (kind == R_CONTEXT) r->last_parent = PK_NONE;
    return PK_OK;
}

pk_status jr_list_end(jr *r, jr_kind kind, uint64_t n)
{
    (void)n;
    switch (kind) {
    case R_METRIC:
        return metrics_done(r);
    case R_COLUMN:
        return columns_done(r);
    case R_CONTEXT:
        return contexts_done(r);
    default:
        return PK_OK;
    }
}
