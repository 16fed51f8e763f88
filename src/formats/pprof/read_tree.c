/*
 * formats/pprof/read_tree.c — a pprof Location as calling contexts, laid
 * out as hpcprof lays out a symbolized frame (docs/pprof.md):
 *
 *   Location{lines: [inner ... outer], mapping M, address A}
 *     -> outer function                  (relation call)
 *        -> each inlined function        (inlined call, at the line of
 *                                         the function around it)
 *           -> the innermost line        (lexical: file and line)
 *              -> the instruction M+A    (lexical: module and address)
 *   a location without lines (unsymbolized)
 *     -> "[M's file name]"               (call: what go tool pprof names
 *                                         such frames)
 *        -> the instruction M+A
 *   neither lines nor mapping -> "<unknown>", as go tool pprof says.
 *
 * The next location of a stack hangs below the deepest of these (the
 * call site). Contexts merge by (parent, what they are), so equal paths
 * of any samples are one context; a (parent, location) memo makes a
 * location seen again under the same parent one lookup.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof.h"
#include "pr.h"
#include "util/error.h"

enum { NAME_FILE = 1, NAME_MODULE = 2, NAME_UNSYM = 3 };

pk_status pr_tree_init(pr *r)
{
    r->ctx_map.words = 7, r->memo.words = 2, r->file_map.words = 2;
    PK_TRY(pr_grow(r, (void **)&r->ctx, &r->cap_ctx, 1, sizeof *r->ctx, "contexts"));
    r->ctx[0] = (pr_ctx){PK_NONE, PK_CTX_ROOT, PK_REL_NONE, 0, PK_NONE, PK_NONE, 0, PK_NONE, 0};
    r->n_ctx = 1;
    r->unknown_fn = PK_NONE;
    return PK_OK;
}

static pk_status ctx_get(pr *r, const pr_ctx *c, uint32_t *out)
{
    uint64_t key[PK_KMAP_WORDS] = {c->parent,   (uint64_t)c->kind | (uint64_t)c->relation << 8,
                                   c->function, c->file,
                                   c->line,     c->module,
                                   c->offset};
    int added;
    if (r->n_ctx >= PK_NONE - 2)
        return pk_fail(PK_ERR_LIMIT, "%s: more calling contexts than profkit can hold", r->file);
    if (pk_kmap_upsert(&r->ctx_map, key, r->n_ctx, out, &added))
        return pk_fail_nomem("building the calling-context tree");
    if (!added) return PK_OK;
    PK_TRY(pr_grow(r, (void **)&r->ctx, &r->cap_ctx, r->n_ctx + 1u, sizeof *r->ctx, "contexts"));
    r->ctx[r->n_ctx++] = *c;
    return PK_OK;
}

static pr_ctx proto(uint32_t parent, uint8_t kind, uint8_t relation)
{
    return (pr_ctx){parent, kind, relation, 0, PK_NONE, PK_NONE, 0, PK_NONE, 0};
}

/* A model entity by a name: index of the existing one, or *added. */
static pk_status by_name(pr *r, int tag, const char *s, uint32_t next, uint32_t *out, int *added)
{
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)tag, (uint64_t)(uintptr_t)s};
    if (pk_kmap_upsert(&r->file_map, key, next, out, added))
        return pk_fail_nomem("reading a pprof profile");
    return PK_OK;
}

static pk_status intern_str(pr *r, uint64_t idx, const char **out)
{
    uint32_t len;
    const char *s = pr_str_at(r, idx, &len);
    *out = pk_intern(&r->p->strings, s, len);
    return *out ? PK_OK : pk_fail_nomem("reading a pprof profile");
}

/* The model file of string index idx (PK_NONE for ""). */
static pk_status file_of(pr *r, uint64_t idx, uint32_t *out)
{
    pk_profile *p = r->p;
    const char *s;
    int added;
    *out = PK_NONE;
    if (!r->strs[idx].len) return PK_OK;
    PK_TRY(intern_str(r, idx, &s));
    PK_TRY(by_name(r, NAME_FILE, s, p->n_files, out, &added));
    if (!added) return PK_OK;
    PK_TRY(pr_grow(r, (void **)&p->files, &r->cap_files, p->n_files + 1u, sizeof *p->files,
                   "source files"));
    p->files[p->n_files++] = (pk_file){s, 0};
    return PK_OK;
}

static pk_status add_function(pr *r, const pk_function *f, uint32_t *out)
{
    pk_profile *p = r->p;
    PK_TRY(pr_grow(r, (void **)&p->functions, &r->cap_functions, p->n_functions + 1u,
                   sizeof *p->functions, "functions"));
    *out = p->n_functions;
    p->functions[p->n_functions++] = *f;
    return PK_OK;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* A function without a name is named as go tool pprof names it: after
 * the mapping of the location it is first seen in, else "<unknown>"
 * (attribute pprof:unnamed says so, for the writer). */
static pk_status unnamed(pr *r, uint32_t map, const char **out)
{
    char name[512] = "<unknown>";
    if (map != PK_NONE && r->strs[r->maps[map].file].len) {
        uint32_t len;
        const char *f = pr_str_at(r, r->maps[map].file, &len);
        char path[400];
        snprintf(path, sizeof path, "%.*s", (int)(len < 399 ? len : 399), f);
        snprintf(name, sizeof name, "[%s]", base_name(path));
    }
    *out = pk_intern_cstr(&r->p->strings, name);
    return *out ? PK_OK : pk_fail_nomem("reading a pprof profile");
}

/* The model function of pprof function i, made on first use (in a
 * location of mapping `map`). */
static pk_status function_of(pr *r, uint32_t i, uint32_t map, uint32_t *out)
{
    pr_fn *f = &r->fns[i];
    if (f->model != PK_NONE) return *out = f->model, PK_OK;
    pk_function m = {NULL, PK_NONE, 0, PK_NONE, 0};
    const char *sys;
    int named = r->strs[f->name].len != 0;
    PK_TRY(named ? intern_str(r, f->name, &m.name) : unnamed(r, map, &m.name));
    PK_TRY(file_of(r, f->file, &m.file));
    if (m.file != PK_NONE && f->start > 0 && f->start <= UINT32_MAX) m.line = (uint32_t)f->start;
    PK_TRY(add_function(r, &m, &f->model));
    if (!named)
        PK_TRY(pk_model_add_attr(r->p, PK_ENTITY_FUNCTION, f->model, PPROF_ATTR_UNNAMED, "1", 1));
    if (r->strs[f->sys].len) {
        PK_TRY(intern_str(r, f->sys, &sys));
        if (sys != m.name)
            PK_TRY(pk_model_add_attr(r->p, PK_ENTITY_FUNCTION, f->model, PPROF_ATTR_SYSNAME, sys,
                                     strlen(sys)));
    }
    *out = f->model;
    return PK_OK;
}

/* The model module of mapping m (by its file name). */
static pk_status module_of(pr *r, uint32_t m, uint32_t *out)
{
    pk_profile *p = r->p;
    pr_map *map = &r->maps[m];
    const char *s;
    int added;
    if (map->module != PK_NONE) return *out = map->module, PK_OK;
    if (r->strs[map->file].len)
        PK_TRY(intern_str(r, map->file, &s));
    else if (!(s = pk_intern_cstr(&p->strings, "<unnamed mapping>")))
        return pk_fail_nomem("reading a pprof profile");
    PK_TRY(by_name(r, NAME_MODULE, s, p->n_modules, &map->module, &added));
    if (added) {
        PK_TRY(pr_grow(r, (void **)&p->modules, &r->cap_modules, p->n_modules + 1u,
                       sizeof *p->modules, "load modules"));
        p->modules[p->n_modules++] = (pk_module){s};
    }
    *out = map->module;
    return PK_OK;
}

/* "[file name]" for a mapping's unsymbolized frames (one per module). */
static pk_status unsym_function(pr *r, uint32_t module, uint32_t *out)
{
    char name[512];
    int added;
    uint64_t key[PK_KMAP_WORDS] = {NAME_UNSYM, module};
    if (pk_kmap_upsert(&r->file_map, key, r->p->n_functions, out, &added))
        return pk_fail_nomem("reading a pprof profile");
    if (!added) return PK_OK;
    snprintf(name, sizeof name, "[%s]", base_name(r->p->modules[module].path));
    pk_function f = {pk_intern_cstr(&r->p->strings, name), PK_NONE, 0, PK_NONE, 0};
    if (!f.name) return pk_fail_nomem("reading a pprof profile");
    PK_TRY(add_function(r, &f, out));
    return pk_model_add_attr(r->p, PK_ENTITY_FUNCTION, *out, PPROF_ATTR_UNSYM, "1", 1);
}

static pk_status unknown_function(pr *r, uint32_t *out)
{
    if (r->unknown_fn == PK_NONE) {
        pk_function f = {pk_intern_cstr(&r->p->strings, "<unknown>"), PK_NONE, 0, PK_NONE, 0};
        if (!f.name) return pk_fail_nomem("reading a pprof profile");
        PK_TRY(add_function(r, &f, &r->unknown_fn));
        PK_TRY(
            pk_model_add_attr(r->p, PK_ENTITY_FUNCTION, r->unknown_fn, PPROF_ATTR_UNSYM, "1", 1));
    }
    *out = r->unknown_fn;
    return PK_OK;
}

/* Functions of the location's lines, outermost first, then its line. */
static pk_status symbolized(pr *r, const pr_loc *l, uint32_t *cur)
{
    uint32_t outer_file = PK_NONE, outer_line = 0;
    for (uint32_t k = l->n_lines; k-- > 0;) {
        const pr_line *ln = &r->lines[l->first_line + k];
        pr_ctx c =
            proto(*cur, PK_CTX_FUNCTION, k + 1 == l->n_lines ? PK_REL_CALL : PK_REL_INLINED_CALL);
        PK_TRY(function_of(r, ln->fn, l->map, &c.function));
        c.flags = PK_CTXF_HAS_FUNCTION;
        if (k + 1 < l->n_lines && outer_file != PK_NONE && outer_line)
            c.file = outer_file, c.line = outer_line, c.flags |= PK_CTXF_HAS_SRCLOC;
        PK_TRY(ctx_get(r, &c, cur));
        outer_file = r->p->functions[c.function].file;
        outer_line = ln->line > 0 && ln->line <= UINT32_MAX ? (uint32_t)ln->line : 0;
    }
    if (outer_file == PK_NONE || !outer_line) return PK_OK;
    pr_ctx c = proto(*cur, PK_CTX_LINE, PK_REL_LEXICAL);
    c.file = outer_file, c.line = outer_line, c.flags = PK_CTXF_HAS_SRCLOC;
    return ctx_get(r, &c, cur);
}

static pk_status expand(pr *r, uint32_t parent, const pr_loc *l, uint32_t *cur)
{
    uint32_t module = PK_NONE;
    *cur = parent;
    if (l->map != PK_NONE) PK_TRY(module_of(r, l->map, &module));
    if (l->n_lines) {
        PK_TRY(symbolized(r, l, cur));
    } else {
        pr_ctx c = proto(parent, PK_CTX_FUNCTION, PK_REL_CALL);
        if (module != PK_NONE)
            PK_TRY(unsym_function(r, module, &c.function));
        else
            PK_TRY(unknown_function(r, &c.function));
        c.flags = PK_CTXF_HAS_FUNCTION;
        PK_TRY(ctx_get(r, &c, cur));
    }
    if (module == PK_NONE) return PK_OK;
    pr_ctx c = proto(*cur, PK_CTX_INSTRUCTION, PK_REL_LEXICAL);
    c.module = module, c.offset = l->address, c.flags = PK_CTXF_HAS_POINT;
    return ctx_get(r, &c, cur);
}

pk_status pr_loc_ctx(pr *r, uint32_t parent, uint32_t loc, uint32_t *out)
{
    uint64_t key[PK_KMAP_WORDS] = {parent, loc};
    if (pk_kmap_get(&r->memo, key, out)) return PK_OK;
    PK_TRY(expand(r, parent, &r->locs[loc], out));
    uint32_t v;
    int added;
    if (pk_kmap_upsert(&r->memo, key, *out, &v, &added))
        return pk_fail_nomem("building the calling-context tree");
    return PK_OK;
}

static void fill(void *user, uint32_t node, pk_ctx_rec *rec)
{
    const pr_ctx *c = &((const pr *)user)->ctx[node];
    rec->kind = rec->raw_kind = c->kind;
    rec->relation = rec->raw_relation = c->relation;
    rec->flags = c->flags;
    rec->function = c->function, rec->file = c->file, rec->line = c->line;
    rec->module = c->module, rec->offset = c->offset;
    rec->propagation = c->relation == PK_REL_LEXICAL ? 1 : 0; /* the exclusive scope's bit */
}

pk_status pr_layout(pr *r, uint32_t **new_index)
{
    uint32_t *parent = malloc(((size_t)r->n_ctx + 1) * sizeof *parent);
    uint32_t *idx = malloc(((size_t)r->n_ctx + 1) * sizeof *idx);
    pk_status st = parent && idx ? PK_OK : pk_fail_nomem("laying out contexts");
    for (uint32_t i = 0; i < r->n_ctx && !st; i++)
        parent[i] = r->ctx[i].parent;
    if (!st) st = pk_model_layout_tree(r->p, r->n_ctx, parent, fill, r, idx);
    free(parent);
    if (st) {
        free(idx);
        return st;
    }
    *new_index = idx;
    return PK_OK;
}
