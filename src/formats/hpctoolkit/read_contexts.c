/*
 * formats/hpctoolkit/read_contexts.c — meta.db Context Tree section.
 *
 * The tree is walked breadth-first with the model's context array as the
 * queue, so a node's children end up at consecutive indexes and no
 * recursion depends on the file. A damaged file could make children arrays
 * overlap or point back at an ancestor; every {Ctx} takes at least 32
 * bytes of the section (24 in the intermediate layout), so more nodes than
 * section_size / that size means the
 * arrays are reused, and the walk stops with an error instead of looping.
 *
 * The intermediate v4.0 layout has no entry points: the section header is
 * {szRoots, pRoots}, an array of ordinary {Ctx} that become children of
 * the global root. Its {Ctx} is 24 bytes (flex words at 0x18) and has no
 * `propagation` field; the bit is derived from the relation, which is
 * what every final-layout file in the corpus stores (field notes §a,
 * item 2: set exactly when the relation is lexical).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpctk.h"
#include "util/vec.h"

typedef struct kids {
    uint64_t ptr, size; /* children array of a context, in bytes */
} kids;

typedef struct walk {
    hk_reader *r;
    hk_file *f;
    kids *kids; /* by context index */
    size_t cap_kids;
    uint64_t max_nodes;
    unsigned ctx_size; /* fixed part of a {Ctx}: HK_SZ_CTX, or HK_V40I_SZ_CTX */
} walk;

static pk_status remember_kids(walk *w, uint32_t index, uint64_t ptr, uint64_t size)
{
    if (pk_vec_reserve((void **)&w->kids, &w->cap_kids, (size_t)index + 1, sizeof *w->kids))
        return pk_fail_nomem("reading the context tree");
    w->kids[index] = (kids){ptr, size};
    return PK_OK;
}

static const uint8_t lexical_kinds[4] = {PK_CTX_FUNCTION, PK_CTX_LOOP, PK_CTX_LINE,
                                         PK_CTX_INSTRUCTION};
static const uint8_t relations[3] = {PK_REL_LEXICAL, PK_REL_CALL, PK_REL_INLINED_CALL};
static const uint8_t entry_kinds[3] = {PK_ENTRY_UNKNOWN, PK_ENTRY_MAIN, PK_ENTRY_APP_THREAD};

/* Decode the flex words of a {Ctx} at e into c (pointers become indexes). */
static pk_status read_flex(walk *w, uint64_t e, pk_ctx_rec *c)
{
    const unsigned char *d = w->f->data + e;
    unsigned flags = d[0x14], n_flex = d[0x17];
    unsigned need = (flags & 1) + (flags & 2 ? 2 : 0) + (flags & 4 ? 2 : 0);
    if (need > n_flex)
        return hk_fail(w->f,
                       "Context %llu at 0x%llx: flags 0x%x need %u flex words, nFlexWords "
                       "is %u",
                       (unsigned long long)c->id, (unsigned long long)e, flags, need, n_flex);
    const unsigned char *word = d + w->ctx_size;
    unsigned k = 0;
    pk_status st = PK_OK;
    if (flags & 1) {
        st = hk_array_index(w->f, &w->r->functions, pk_le64(word + 8 * k++), &c->function,
                            "Context %llu: pFunction", (unsigned long long)c->id);
        c->flags |= PK_CTXF_HAS_FUNCTION;
    }
    if (!st && (flags & 2)) {
        st = hk_array_index(w->f, &w->r->files, pk_le64(word + 8 * k++), &c->file,
                            "Context %llu: pFile", (unsigned long long)c->id);
        c->line = pk_le32(word + 8 * k++); /* the only u32: takes a fresh word's low half */
        c->flags |= PK_CTXF_HAS_SRCLOC;
    }
    if (!st && (flags & 4)) {
        st = hk_array_index(w->f, &w->r->modules, pk_le64(word + 8 * k++), &c->module,
                            "Context %llu: pModule", (unsigned long long)c->id);
        c->offset = pk_le64(word + 8 * k++);
        c->flags |= PK_CTXF_HAS_POINT;
    }
    return st;
}

static void report_unknown_enums(walk *w, uint64_t e, const pk_ctx_rec *c, unsigned flags)
{
    pk_severity sev = hk_unknown_enum_severity(w->f);
    if (c->kind == PK_CTX_UNKNOWN)
        hk_diag(w->r, sev, "unknown-enum", w->f, "Context", e,
                "context %llu has unknown lexicalType %u", (unsigned long long)c->id, c->raw_kind);
    if (c->relation == PK_REL_UNKNOWN)
        hk_diag(w->r, sev, "unknown-enum", w->f, "Context", e,
                "context %llu has unknown relation %u", (unsigned long long)c->id, c->raw_relation);
    if (flags & ~7u)
        hk_diag(w->r, sev, "unknown-flags", w->f, "Context", e,
                "context %llu has reserved flag bits set (0x%x)", (unsigned long long)c->id, flags);
}

/* Pointer the file stored for element `i` of `a` (0 for PK_NONE): the
 * element index was checked to come from exactly such a pointer. */
static uint64_t pointer_of(const hk_array *a, uint32_t i)
{
    return i == PK_NONE ? 0 : a->base + (uint64_t)i * a->stride;
}

static void emit_context(walk *w, uint64_t e, const pk_ctx_rec *c)
{
    const unsigned char *d = w->f->data + e;
    const hk_reader *r = w->r;
    HK_EMIT(w->r, w->f, e, HK_S_CONTEXTS, "context", HK_U("ctx_id", c->id),
            HK_U("parent_id", r->p->ctx[c->parent].id), HK_X("flags", d[0x14]),
            HK_U("relation", c->raw_relation), HK_U("lexical_type", c->raw_kind),
            HK_U("nFlexWords", d[0x17]), HK_X("propagation", c->propagation),
            HK_X("pFunction", pointer_of(&r->functions, c->function)),
            HK_X("pFile", pointer_of(&r->files, c->file)), HK_U("line", c->line),
            HK_X("pModule", pointer_of(&r->modules, c->module)), HK_X("offset", c->offset),
            HK_X("pChildren", pk_le64(d + 8)), HK_X("szChildren", pk_le64(d)));
}

/* One {Ctx} at e, child of `parent`. */
static pk_status read_context(walk *w, uint64_t e, uint32_t parent)
{
    const unsigned char *d = w->f->data + e;
    pk_ctx_rec *c;
    uint32_t index;
    pk_status st = pk_model_add_context(w->r->p, &c, &index);
    if (st) return st;
    c->id = pk_le32(d + 0x10);
    c->parent = parent;
    c->depth = w->r->p->ctx[parent].depth + 1;
    c->raw_relation = d[0x15];
    c->raw_kind = d[0x16];
    c->relation = c->raw_relation < 3 ? relations[c->raw_relation] : PK_REL_UNKNOWN;
    c->kind = c->raw_kind < 4 ? lexical_kinds[c->raw_kind] : PK_CTX_UNKNOWN;
    c->propagation = w->r->intermediate ? c->raw_relation == 0 : pk_le16(d + 0x18);
    if (c->id == 0)
        return hk_fail(w->f, "Context at 0x%llx: ctxId 0 is reserved for the global context",
                       (unsigned long long)e);
    st = read_flex(w, e, c);
    if (st) return st;
    report_unknown_enums(w, e, c, d[0x14]);
    if (hk_want(w->r, HK_S_CONTEXTS)) emit_context(w, e, c);
    return remember_kids(w, index, pk_le64(d + 8), pk_le64(d));
}

/* Append the children of context `parent` (breadth-first). */
static pk_status read_children(walk *w, uint32_t parent)
{
    kids k = w->kids[parent];
    pk_profile *p = w->r->p;
    if (k.size == 0) return PK_OK; /* leaf: pChildren is 0 (or anything) */
    pk_status st = hk_check_range(w->f, w->f->sect[HK_MS_CONTEXT], k.ptr, k.size, 1, NULL,
                                  "Context %llu: pChildren", (unsigned long long)p->ctx[parent].id);
    if (st) return st;
    uint64_t off = k.ptr, end = k.ptr + k.size;
    uint32_t first = p->n_ctx;
    while (off < end && !st) {
        if (end - off < w->ctx_size || end - off < w->ctx_size + 8ull * w->f->data[off + 0x17])
            return hk_fail(w->f,
                           "Context at 0x%llx: runs past the end of its parent's children "
                           "array [0x%llx, 0x%llx)",
                           (unsigned long long)off, (unsigned long long)k.ptr,
                           (unsigned long long)end);
        if (p->n_ctx >= w->max_nodes)
            return hk_fail(w->f, "Context Tree: more contexts than the section can hold "
                                 "(children arrays overlap or form a cycle)");
        st = read_context(w, off, parent);
        off += w->ctx_size + 8ull * w->f->data[off + 0x17];
    }
    p->ctx[parent].first_child = p->n_ctx > first ? first : PK_NONE;
    p->ctx[parent].n_children = p->n_ctx - first;
    return st;
}

/* One {Entry} at e: a child of the global root. */
static pk_status read_entry(walk *w, uint64_t e)
{
    const unsigned char *d = w->f->data + e;
    pk_ctx_rec *c;
    uint32_t index;
    pk_status st = pk_model_add_context(w->r->p, &c, &index);
    if (st) return st;
    c->id = pk_le32(d + 0x10);
    c->parent = 0;
    c->depth = 1;
    c->kind = PK_CTX_ENTRY;
    c->relation = PK_REL_NONE;
    c->raw_entry = pk_le16(d + 0x14);
    c->entry = c->raw_entry < 3 ? entry_kinds[c->raw_entry] : PK_ENTRY_OTHER;
    if (c->id == 0)
        return hk_fail(w->f, "Entry Point at 0x%llx: ctxId 0 is reserved for the global context",
                       (unsigned long long)e);
    st = hk_string_interned(w->r, w->f, w->f->sect[HK_MS_STRINGS], pk_le64(d + 0x18), 1,
                            &c->entry_name, "Entry Point %llu: pPrettyName",
                            (unsigned long long)c->id);
    if (st) return st;
    if (c->entry == PK_ENTRY_OTHER)
        hk_diag(w->r, hk_unknown_enum_severity(w->f), "unknown-enum", w->f, "Entry Point", e,
                "entry point %llu has unknown entryPoint %u", (unsigned long long)c->id,
                c->raw_entry);
    HK_EMIT(w->r, w->f, e, HK_S_CONTEXTS, "entry-point", HK_U("ctx_id", c->id),
            HK_U("entry_point", c->raw_entry), HK_S("pretty_name", c->entry_name),
            HK_X("pChildren", pk_le64(d + 8)), HK_X("szChildren", pk_le64(d)));
    return remember_kids(w, index, pk_le64(d + 8), pk_le64(d));
}

static pk_status add_root(hk_reader *r)
{
    pk_ctx_rec *root;
    uint32_t index;
    pk_status st = pk_model_add_context(r->p, &root, &index);
    if (st) return st;
    root->kind = PK_CTX_ROOT;
    root->relation = PK_REL_NONE;
    return PK_OK;
}

static pk_status walk_tree(walk *w, const hk_array *entries)
{
    pk_profile *p = w->r->p;
    pk_status st = add_root(w->r);
    for (uint64_t i = 0; !st && i < entries->count; i++)
        st = read_entry(w, entries->base + i * entries->stride);
    if (st) return st;
    p->ctx[0].first_child = entries->count ? 1 : PK_NONE;
    p->ctx[0].n_children = (uint32_t)entries->count;
    for (uint32_t i = 1; !st && i < p->n_ctx; i++)
        st = read_children(w, i);
    return st;
}

/* The entry point hpcrun's placeholder function `name` stands for
 * ("<program root>": the main thread), or -1 for any other name. */
static int placeholder_entry(const char *name)
{
    static const char *const names[] = {"<partial call paths>", "<program root>", "<thread root>"};
    for (int k = 0; name && k < 3; k++)
        if (strcmp(name, names[k]) == 0) return k; /* the final layout's entryPoint codes */
    return -1;
}

/* Intermediate layout: a root context naming hpcrun's placeholder for the
 * program's or a thread's start is what the final layout writes as an
 * entry point (hpcprof's 2022 writer, tests/fixtures/v40_writer.c), so it
 * is read as one. Read as a function context it would be a context no
 * other layout has: a converted database would gain an entry point above
 * it (a context more, its values counted once more in every sum). */
static void placeholders_as_entries(hk_reader *r)
{
    static const char *const pretty[] = {"unknown entry", "main thread", "application thread"};
    pk_profile *p = r->p;
    for (uint32_t k = 0; k < p->ctx[0].n_children; k++) {
        pk_ctx_rec *c = &p->ctx[p->ctx[0].first_child + k];
        int e = c->kind == PK_CTX_FUNCTION && c->function < p->n_functions
                    ? placeholder_entry(p->functions[c->function].name)
                    : -1;
        if (e < 0) continue;
        c->kind = PK_CTX_ENTRY, c->relation = PK_REL_NONE;
        c->entry = entry_kinds[e], c->raw_entry = (uint16_t)e, c->entry_name = pretty[e];
        c->raw_kind = c->raw_relation = 0, c->propagation = 0;
        c->function = c->file = c->module = PK_NONE;
        c->line = 0, c->offset = 0, c->flags = 0;
    }
}

/* Intermediate layout: the roots array is the global root's children. */
static pk_status walk_roots(walk *w, uint64_t h)
{
    const unsigned char *d = w->f->data + h;
    HK_EMIT(w->r, w->f, h, HK_S_CONTEXTS, "roots", HK_X("pRoots", pk_le64(d + 8)),
            HK_X("szRoots", pk_le64(d)));
    pk_status st = add_root(w->r);
    if (!st) st = remember_kids(w, 0, pk_le64(d + 8), pk_le64(d));
    for (uint32_t i = 0; !st && i < w->r->p->n_ctx; i++)
        st = read_children(w, i);
    if (!st) placeholders_as_entries(w->r);
    return st;
}

pk_status hk_read_context_tree(hk_reader *r)
{
    hk_file *f = &r->f[HK_META];
    uint64_t h;
    hk_array entries;
    int inter = r->intermediate;
    pk_status st = hk_section_header(f, HK_MS_CONTEXT, inter ? HK_V40I_SZ_CONTEXT_HDR : 0x0b, &h);
    if (!st && !inter)
        st = hk_array_in_section(r, f, HK_MS_CONTEXT, "Context Tree: pEntryPoints",
                                 pk_le64(f->data + h), pk_le16(f->data + h + 8), f->data[h + 0x0a],
                                 HK_SZ_ENTRY, &entries);
    if (st) return st;
    const hk_region *sec = &f->sect[HK_MS_CONTEXT];
    unsigned ctx_size = inter ? HK_V40I_SZ_CTX : HK_SZ_CTX;
    walk w = {
        .r = r, .f = f, .max_nodes = 1 + (sec->hi - sec->lo) / ctx_size, .ctx_size = ctx_size};
    st = inter ? walk_roots(&w, h) : walk_tree(&w, &entries);
    free(w.kids);
    if (st) return st;
    if (pk_model_index_contexts(r->p) != PK_OK)
        return hk_fail(f, "Context Tree: %s", pk_error_last());
    return PK_OK;
}
