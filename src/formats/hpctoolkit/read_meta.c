/*
 * formats/hpctoolkit/read_meta.c — meta.db: file header, General
 * Properties, Identifier Names, Load Modules, Source Files, Functions.
 * Metrics and the context tree have files of their own.
 */
#include <stdio.h>

#include "hpctk.h"

static pk_status read_general(hk_reader *r, hk_file *f)
{
    uint64_t h;
    pk_status st = hk_section_header(f, HK_MS_GENERAL, 0x10, &h);
    if (st) return st;
    hk_region in = f->sect[HK_MS_GENERAL];
    st = hk_string_interned(r, f, in, pk_le64(f->data + h), 1, &r->p->title,
                            "General Properties: pTitle");
    if (!st)
        st = hk_string_interned(r, f, in, pk_le64(f->data + h + 8), 1, &r->p->description,
                                "General Properties: pDescription");
    if (st) return st;
    HK_EMIT(r, f, h, HK_S_GENERAL, "general", HK_S("title", r->p->title),
            HK_S("description", r->p->description));
    /* A null pointer is a fault (hpcviewer's check); an empty string is how
     * a writer says "none" without one (profkit writes none so). */
    r->null_strings = (!r->p->title ? 1 : 0) | (!r->p->description ? 2 : 0);
    if (r->p->title && !*r->p->title) r->p->title = NULL;
    if (r->p->description && !*r->p->description) r->p->description = NULL;
    return PK_OK;
}

static pk_status read_id_names(hk_reader *r, hk_file *f)
{
    uint64_t h;
    pk_status st = hk_section_header(f, HK_MS_ID_NAMES, 0x09, &h);
    if (st) return st;
    uint64_t pp = pk_le64(f->data + h), n = f->data[h + 8];
    st =
        hk_check_range(f, f->sect[HK_MS_ID_NAMES], pp, n, 8, "nKinds", "Identifier Names: ppNames");
    if (st) return st;
    HK_EMIT(r, f, h, HK_S_HEADERS, "array", HK_S("name", "Identifier Names: ppNames"),
            HK_X("pointer", pp), HK_U("count", n), HK_U("size", 8));
    r->kind_names = pk_arena_array(&r->p->arena, n ? n : 1, sizeof *r->kind_names);
    if (!r->kind_names) return pk_fail_nomem("reading identifier names");
    r->n_kinds = n;
    for (uint64_t k = 0; k < n; k++) {
        st = hk_string_interned(r, f, f->sect[HK_MS_ID_NAMES], pk_le64(f->data + pp + 8 * k), 0,
                                &r->kind_names[k], "Identifier Names: ppNames[%llu]",
                                (unsigned long long)k);
        if (st) return st;
        HK_EMIT(r, f, pp + 8 * k, HK_S_ID_NAMES, "id-name", HK_U("kind", k),
                HK_S("name", r->kind_names[k]));
    }
    r->p->id_kind_names = r->kind_names;
    r->p->n_id_kinds = (uint32_t)n;
    return PK_OK;
}

/* Load Modules and Source Files share a shape: {u32 flags, char* pPath}.
 * The array is validated before anything is allocated for it, so a
 * damaged count can never make us allocate more than the file holds. */
static pk_status read_path_table(hk_reader *r, hk_file *f, unsigned sec, const char *label,
                                 hk_array *a, uint32_t **flags_out, const char ***paths_out)
{
    uint64_t h;
    const char *what = sec == HK_MS_MODULES ? "Load Modules: pModules" : "Source Files: pFiles";
    pk_status st = hk_section_header(f, sec, 0x0e, &h);
    if (!st)
        st = hk_array_in_section(r, f, sec, what, pk_le64(f->data + h), pk_le32(f->data + h + 8),
                                 pk_le16(f->data + h + 0xc), HK_SZ_MODULE, a);
    if (st) return st;
    size_t n = a->count ? a->count : 1;
    uint32_t *flags = pk_arena_array(&r->p->arena, n, sizeof *flags);
    const char **paths = pk_arena_array(&r->p->arena, n, sizeof *paths);
    if (!flags || !paths) return pk_fail_nomem("reading paths");
    for (uint64_t i = 0; !st && i < a->count; i++) {
        uint64_t e = a->base + i * a->stride;
        flags[i] = pk_le32(f->data + e);
        st = hk_string_interned(r, f, f->sect[HK_MS_STRINGS], pk_le64(f->data + e + 8), 0,
                                &paths[i], "%s %llu: pPath", label, (unsigned long long)i);
    }
    *flags_out = flags;
    *paths_out = paths;
    return st;
}

/* Load Modules or Source Files into the model. */
static pk_status read_paths(hk_reader *r, hk_file *f, unsigned sec)
{
    pk_profile *p = r->p;
    int modules = sec == HK_MS_MODULES;
    hk_array *a = modules ? &r->modules : &r->files;
    uint32_t *flags = NULL;
    const char **paths = NULL;
    pk_status st =
        read_path_table(r, f, sec, modules ? "Load Module" : "Source File", a, &flags, &paths);
    if (st) return st;
    uint32_t n = (uint32_t)a->count;
    if (modules)
        p->modules = pk_arena_array(&p->arena, n ? n : 1, sizeof *p->modules);
    else
        p->files = pk_arena_array(&p->arena, n ? n : 1, sizeof *p->files);
    if (modules ? !p->modules : !p->files) return pk_fail_nomem("reading paths");
    for (uint32_t i = 0; i < n; i++) {
        if (modules)
            p->modules[i].path = paths[i];
        else
            p->files[i] = (pk_file){paths[i], flags[i] & 1u ? PK_FILE_COPIED : 0};
        HK_EMIT(r, f, a->base + (uint64_t)i * a->stride, modules ? HK_S_MODULES : HK_S_SOURCE_FILES,
                modules ? "module" : "source-file", HK_U("index", i), HK_X("flags", flags[i]),
                HK_S("path", paths[i]));
    }
    *(modules ? &p->n_modules : &p->n_files) = n;
    return PK_OK;
}

/* One {FS}: name, module + offset, file + line; pointers become indexes. */
static pk_status read_function(hk_reader *r, hk_file *f, uint32_t i, pk_function *fn)
{
    uint64_t e = r->functions.base + (uint64_t)i * r->functions.stride;
    const unsigned char *d = f->data + e;
    pk_status st = hk_string_interned(r, f, f->sect[HK_MS_STRINGS], pk_le64(d), 1, &fn->name,
                                      "Function %u: pName", i);
    uint64_t p_module = pk_le64(d + 8), p_file = pk_le64(d + 0x18);
    fn->module = fn->file = PK_NONE;
    fn->offset = pk_le64(d + 0x10);
    fn->line = pk_le32(d + 0x20);
    if (!st && p_module)
        st = hk_array_index(f, &r->modules, p_module, &fn->module, "Function %u: pModule", i);
    if (!st && p_file)
        st = hk_array_index(f, &r->files, p_file, &fn->file, "Function %u: pFile", i);
    if (st) return st;
    if (!fn->name && !p_module && !p_file)
        hk_diag(r, PK_SEV_WARNING, "empty-function", f, "Function", e,
                "function %u has neither name, module nor file", i);
    HK_EMIT(r, f, e, HK_S_FUNCTIONS, "function", HK_U("index", i), HK_S("name", fn->name),
            HK_X("pModule", p_module), HK_X("offset", fn->offset), HK_X("pFile", p_file),
            HK_U("line", fn->line), HK_X("flags", pk_le32(d + 0x24)));
    return PK_OK;
}

static pk_status read_functions(hk_reader *r, hk_file *f)
{
    pk_profile *p = r->p;
    uint64_t h;
    pk_status st = hk_section_header(f, HK_MS_FUNCTIONS, 0x0e, &h);
    if (!st)
        st = hk_array_in_section(r, f, HK_MS_FUNCTIONS, "Functions: pFunctions",
                                 pk_le64(f->data + h), pk_le32(f->data + h + 8),
                                 pk_le16(f->data + h + 0xc), HK_SZ_FUNCTION, &r->functions);
    if (st) return st;
    uint32_t n = (uint32_t)r->functions.count;
    p->functions = pk_arena_array(&p->arena, n ? n : 1, sizeof *p->functions);
    if (!p->functions) return pk_fail_nomem("reading functions");
    for (uint32_t i = 0; i < n; i++) {
        st = read_function(r, f, i, &p->functions[i]);
        if (st) return st;
    }
    p->n_functions = n;
    return PK_OK;
}

pk_status hk_read_meta(hk_reader *r)
{
    hk_file *f = &r->f[HK_META];
    pk_status st = hk_read_file_header(r, f, "meta", "_meta.db", 8, HK_SZ_META_HEADER);
    if (!st) st = hk_section_header(f, HK_MS_STRINGS, 0, &(uint64_t){0});
    if (!st) st = read_general(r, f);
    if (!st) st = read_id_names(r, f);
    if (!st) st = read_paths(r, f, HK_MS_MODULES);
    if (!st) st = read_paths(r, f, HK_MS_FILES);
    if (!st) st = read_functions(r, f);
    if (!st) st = hk_read_metrics(r);
    if (!st) st = hk_read_context_tree(r);
    return st;
}
