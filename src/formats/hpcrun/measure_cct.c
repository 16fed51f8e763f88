/*
 * formats/hpcrun/measure_cct.c — hpcrun CCT nodes to model contexts, as
 * hpcprof maps them (src/hpcprof/sources/hpcrun4.cpp, develop):
 *
 *   ^Primary root, NoActvty          -> the global root (context 0)
 *   ^Partial (under the root), *Unnorm -> an "unknown" function context
 *                                        ("unknown entry" at the top)
 *   | Main / | Thread fences          -> "main thread" / "application thread"
 *   other placeholders (GPUKernl...)  -> a function context named after the
 *                                        placeholder ("<gpu kernel>")
 *   (module, offset)                  -> an instruction context reached by a
 *                                        call; with symbols, function ->
 *                                        inlined calls -> line -> instruction
 *   not unwound (GPU PC samples)      -> parent -> unknown -> the point
 *   anything but a fence at the top   -> demoted below "unknown entry"
 *
 * Contexts are merged by (parent, what they are), so equal paths of
 * different files become one context. Children of a node hang below its
 * deepest context (the instruction: the call site).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "util/vec.h"

#define PH(a, b, c, d, e, f, g, h)                                                                 \
    ((uint64_t)(a) << 56 | (uint64_t)(b) << 48 | (uint64_t)(c) << 40 | (uint64_t)(d) << 32 |       \
     (uint64_t)(e) << 24 | (uint64_t)(f) << 16 | (uint64_t)(g) << 8 | (uint64_t)(h))
#define PH_UNNORM  PH('*', 'U', 'n', 'n', 'o', 'r', 'm', ' ')
#define PH_PRIMARY PH('^', 'P', 'r', 'i', 'm', 'a', 'r', 'y')
#define PH_PARTIAL PH('^', 'P', 'a', 'r', 't', 'i', 'a', 'l')
#define PH_MAIN    PH('|', ' ', 'M', 'a', 'i', 'n', ' ', ' ')
#define PH_THREAD  PH('|', ' ', 'T', 'h', 'r', 'e', 'a', 'd')
#define PH_IDLE    PH('N', 'o', 'A', 'c', 't', 'v', 't', 'y')

/* hpcrun's GPU range-tree nodes (hpcrun4.cpp HPCRUN_GPU_*_NODE). */
enum { LM_GPU_CONTEXT = 65531, LM_GPU_ROOT = 65533 };

pk_status hm_ctx_get(hm_build *b, const hm_ctx *c, uint32_t *out)
{
    uint64_t key[PK_KMAP_WORDS] = {
        c->parent,   (uint64_t)c->kind | (uint64_t)c->relation << 8 | (uint64_t)c->entry << 16,
        c->function, c->module,
        c->offset,   c->file,
        c->line};
    int added;
    if (b->n_ctx >= PK_NONE - 2) return pk_fail(PK_ERR_UNSUPPORTED, "too many contexts");
    if (pk_kmap_upsert(&b->ctx_map, key, b->n_ctx, out, &added) ||
        (added && pk_vec_reserve((void **)&b->ctx, &b->cap_ctx, b->n_ctx + 1u, sizeof *b->ctx)))
        return pk_fail_nomem("building the calling-context tree");
    if (added) b->ctx[b->n_ctx++] = *c;
    return PK_OK;
}

static hm_ctx proto(uint32_t parent, uint8_t kind, uint8_t relation)
{
    return (hm_ctx){.parent = parent,
                    .kind = kind,
                    .relation = relation,
                    .function = PK_NONE,
                    .file = PK_NONE,
                    .module = PK_NONE};
}

/* Index of a function, added on first use: key words name it exactly. */
pk_status hm_function_of(hm_build *b, const uint64_t key[PK_KMAP_WORDS], const pk_function *f,
                         uint32_t *out)
{
    pk_profile *p = b->p;
    int added;
    if (pk_kmap_upsert(&b->fn_map, key, p->n_functions, out, &added) ||
        (added && pk_vec_reserve((void **)&p->functions, &b->cap_functions, p->n_functions + 1u,
                                 sizeof *p->functions)) ||
        (added && pk_vec_reserve((void **)&b->fn_keys, &b->cap_fn_keys, p->n_functions + 1u,
                                 sizeof *b->fn_keys)))
        return pk_fail_nomem("adding functions");
    if (added) { /* the key too: a parallel build merges functions by it */
        memcpy(b->fn_keys[p->n_functions], key, sizeof *b->fn_keys);
        p->functions[p->n_functions++] = *f;
    }
    return PK_OK;
}

/* The name hpcprof gives a placeholder: its pretty name, or its eight
 * characters with unprintable ones as \xx (Scope::enumerated_fallback_name). */
static const char *placeholder_name(hm_build *b, uint64_t ip)
{
    const char *pretty = hr_placeholder_name(ip);
    if (pretty) return pk_intern_cstr(&b->p->strings, pretty);
    char buf[40];
    size_t n = 0;
    for (int shift = 56; shift >= 0; shift -= 8) {
        unsigned ch = (unsigned)(ip >> shift) & 0xff;
        n += (size_t)snprintf(buf + n, sizeof buf - n, ch >= 0x20 && ch < 0x7f ? "%c" : "\\%02x",
                              ch);
    }
    return pk_intern(&b->p->strings, buf, n);
}

/* Context of "unknown" (hpcprof's Scope()) below parent. */
static pk_status unknown_ctx(hm_build *b, uint32_t parent, uint32_t *out)
{
    hm_ctx c = proto(parent, PK_CTX_FUNCTION, PK_REL_CALL);
    if (parent == 0) {
        c.kind = PK_CTX_ENTRY, c.relation = PK_REL_NONE, c.entry = PK_ENTRY_UNKNOWN;
        c.entry_name = "unknown entry";
    }
    return hm_ctx_get(b, &c, out);
}

static pk_status placeholder_ctx(hm_build *b, uint32_t parent, uint64_t ip, uint32_t *out)
{
    hm_ctx c = proto(parent, PK_CTX_FUNCTION, PK_REL_CALL);
    if (parent == 0 && (ip == PH_MAIN || ip == PH_THREAD)) {
        c.kind = PK_CTX_ENTRY, c.relation = PK_REL_NONE;
        c.entry = ip == PH_MAIN ? PK_ENTRY_MAIN : PK_ENTRY_APP_THREAD;
        c.entry_name = ip == PH_MAIN ? "main thread" : "application thread";
        return hm_ctx_get(b, &c, out);
    }
    const char *name = placeholder_name(b, ip);
    uint64_t key[PK_KMAP_WORDS] = {1, ip};
    pk_function f = {name, PK_NONE, 0, PK_NONE, 0};
    pk_status st = name ? hm_function_of(b, key, &f, &c.function) : pk_fail_nomem("naming");
    c.flags = PK_CTXF_HAS_FUNCTION;
    return st ? st : hm_ctx_get(b, &c, out);
}

/* The top-level parent for a context that cannot be one (hpcprof demotes
 * it below "unknown entry", its "partial call paths"). */
static pk_status demote(hm_build *b, uint32_t *parent)
{
    return *parent == 0 ? unknown_ctx(b, 0, parent) : PK_OK;
}

static pk_status map_placeholder(hm_build *b, const hr_cct_node *n, uint32_t parent, hm_node *out)
{
    pk_status st = PK_OK;
    switch (n->lm_ip) {
    case PH_PRIMARY:
        return hm_fail(b, n->offset, "CCT node %d: a ^Primary root that has a parent", (int)n->id);
    case PH_IDLE:
    case PH_PARTIAL:
        if (parent != 0)
            return hm_fail(b, n->offset, "CCT node %d: a %s node that is not a child of the root",
                           (int)n->id, n->lm_ip == PH_IDLE ? "NoActvty" : "^Partial");
        if (n->lm_ip == PH_IDLE) { /* idleness counts for the whole thread */
            out->full = out->rel = 0;
            return PK_OK;
        }
        /* fallthrough */
    case PH_UNNORM:
        st = unknown_ctx(b, parent, &out->full);
        break;
    case PH_MAIN:
    case PH_THREAD:
        st = placeholder_ctx(b, parent, n->lm_ip, &out->full);
        break;
    default:
        st = demote(b, &parent);
        if (!st) st = placeholder_ctx(b, parent, n->lm_ip, &out->full);
    }
    out->rel = out->full;
    return st;
}

pk_status hm_file_of(hm_build *b, const char *path, uint32_t *out)
{
    pk_profile *p = b->p;
    const char *s = path ? pk_intern_cstr(&p->strings, path) : NULL;
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)(uintptr_t)s};
    int added;
    *out = PK_NONE;
    if (!path) return PK_OK;
    if (!s || pk_kmap_upsert(&b->file_map, key, p->n_files, out, &added) ||
        (added &&
         pk_vec_reserve((void **)&p->files, &b->cap_files, p->n_files + 1u, sizeof *p->files)))
        return pk_fail_nomem("adding source files");
    if (added) p->files[p->n_files++] = (pk_file){s, 0};
    return PK_OK;
}

/* A function found by symbols: keyed by module, entry and name. */
static pk_status symbol_function(hm_build *b, uint32_t module, uint64_t entry, const char *name,
                                 const char *decl_file, uint32_t decl_line, int inlined,
                                 uint32_t *out)
{
    const char *s = pk_intern_cstr(&b->p->strings, name ? name : "");
    uint32_t file;
    pk_status st = s ? hm_file_of(b, decl_file, &file) : pk_fail_nomem("adding functions");
    if (st) return st;
    uint64_t key[PK_KMAP_WORDS] = {inlined ? 3 : 2, module, inlined ? 0 : entry,
                                   (uint64_t)(uintptr_t)s};
    pk_function f = {name ? s : NULL, module, inlined ? 0 : entry, file,
                     file == PK_NONE ? 0 : decl_line};
    if (inlined) f.module = PK_NONE;
    return hm_function_of(b, key, &f, out);
}

/* Resolve (module, offset) once; *out is the cached frame. */
static pk_status resolve(hm_build *b, uint32_t module, uint64_t offset, const hm_frame **out)
{
    uint64_t key[PK_KMAP_WORDS] = {module, offset};
    uint32_t idx;
    int added;
    if (pk_kmap_upsert(&b->frame_map, key, b->n_frames, &idx, &added) ||
        (added &&
         pk_vec_reserve((void **)&b->frames, &b->cap_frames, b->n_frames + 1u, sizeof *b->frames)))
        return pk_fail_nomem("resolving symbols");
    *out = &b->frames[idx];
    if (!added) return PK_OK;
    hm_frame *fr = &b->frames[b->n_frames++];
    memset(fr, 0, sizeof *fr);
    fr->fn = fr->file = PK_NONE;
    hs_frame h;
    if (!hs_lookup(b->sym, module, b->p->modules[module].path, offset, &h)) return PK_OK;
    b->n_resolved++;
    pk_status st =
        symbol_function(b, module, h.entry, h.function, h.decl_file, h.decl_line, 0, &fr->fn);
    for (uint32_t i = 0; i < h.n_inline && i < HM_MAX_INLINE && !st; i++) {
        st = symbol_function(b, module, 0, h.inl[i].function, NULL, 0, 1, &fr->inl_fn[i]);
        if (!st) st = hm_file_of(b, h.inl[i].call_file, &fr->inl_file[i]);
        fr->inl_line[i] = fr->inl_file[i] == PK_NONE ? 0 : h.inl[i].call_line;
        fr->n_inl = i + 1;
    }
    if (!st) st = hm_file_of(b, h.file, &fr->file);
    fr->line = fr->file == PK_NONE ? 0 : h.line;
    *out = &b->frames[idx];
    return st;
}

/* function -> inlined calls -> line -> instruction for a resolved frame. */
static pk_status resolved_ctx(hm_build *b, uint32_t parent, uint32_t module, uint64_t offset,
                              const hm_frame *fr, hm_node *out)
{
    hm_ctx c = proto(parent, PK_CTX_FUNCTION, PK_REL_CALL);
    c.function = fr->fn, c.flags = PK_CTXF_HAS_FUNCTION;
    pk_status st = hm_ctx_get(b, &c, &out->rel);
    uint32_t cur = out->rel;
    for (uint32_t i = 0; i < fr->n_inl && !st; i++) {
        c = proto(cur, PK_CTX_FUNCTION, PK_REL_INLINED_CALL);
        c.function = fr->inl_fn[i], c.flags = PK_CTXF_HAS_FUNCTION;
        if (fr->inl_file[i] != PK_NONE)
            c.file = fr->inl_file[i], c.line = fr->inl_line[i], c.flags |= PK_CTXF_HAS_SRCLOC;
        st = hm_ctx_get(b, &c, &cur);
    }
    if (!st && fr->file != PK_NONE) {
        c = proto(cur, PK_CTX_LINE, PK_REL_LEXICAL);
        c.file = fr->file, c.line = fr->line, c.flags = PK_CTXF_HAS_SRCLOC;
        st = hm_ctx_get(b, &c, &cur);
    }
    c = proto(cur, PK_CTX_INSTRUCTION, PK_REL_LEXICAL);
    c.module = module, c.offset = offset, c.flags = PK_CTXF_HAS_POINT;
    return st ? st : hm_ctx_get(b, &c, &out->full);
}

static size_t point_slot(const hm_build *b, uint64_t key, uint64_t offset)
{
    uint64_t h = (key ^ (key >> 29)) * 0x9e3779b97f4a7c15ull + offset * 0xc2b2ae3d27d4eb4full;
    h ^= h >> 32;
    size_t mask = b->cap_points - 1, i = (size_t)h & mask;
    while (b->points[i].key && (b->points[i].key != key || b->points[i].offset != offset))
        i = (i + 1) & mask;
    return i;
}

static int point_grow(hm_build *b)
{
    size_t cap = b->cap_points ? 2 * b->cap_points : 4096;
    hm_point *old = b->points, *t = calloc(cap, sizeof *t);
    if (!t) return -1;
    size_t old_cap = b->cap_points;
    b->points = t, b->cap_points = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key) b->points[point_slot(b, old[i].key, old[i].offset)] = old[i];
    free(old);
    return 0;
}

/* An unresolved point: parent -> (module, offset), relation call. */
static pk_status plain_point(hm_build *b, uint32_t parent, uint32_t module, uint64_t offset,
                             hm_node *out)
{
    hm_ctx c = proto(parent, PK_CTX_INSTRUCTION, PK_REL_CALL);
    c.module = module, c.offset = offset, c.flags = PK_CTXF_HAS_POINT;
    pk_status st = hm_ctx_get(b, &c, &out->full);
    out->rel = out->full;
    return st;
}

/* Remember what (parent, module, offset) gave, for the files after. */
static void point_remember(hm_build *b, uint64_t key, uint64_t offset, const hm_node *n)
{
    if ((b->n_points + 1) * 2 > b->cap_points && point_grow(b)) return; /* just slower */
    b->points[point_slot(b, key, offset)] = (hm_point){key, offset, n->full, n->rel};
    b->n_points++;
}

/* The contexts of a point below parent: the front table's when met
 * before (the symbols and the general map are not asked again), else
 * resolved (function -> inlined calls -> line -> instruction) or plain. */
static pk_status point_ctx(hm_build *b, uint32_t parent, uint32_t module, uint64_t offset,
                           hm_node *out)
{
    uint64_t key = (uint64_t)(parent + 1u) << 32 | module; /* never 0 */
    if (b->cap_points) {
        const hm_point *e = &b->points[point_slot(b, key, offset)];
        if (e->key) return out->full = e->full, out->rel = e->rel, PK_OK;
    }
    const hm_frame *fr = NULL;
    pk_status st = b->sym ? resolve(b, module, offset, &fr) : PK_OK;
    if (!st)
        st = fr && fr->fn != PK_NONE ? resolved_ctx(b, parent, module, offset, fr, out)
                                     : plain_point(b, parent, module, offset, out);
    if (!st) point_remember(b, key, offset, out);
    return st;
}

static pk_status map_point(hm_build *b, const hr_cct_node *n, uint32_t parent, hm_node *out)
{
    uint32_t module = n->lm_id < b->cap_lm ? b->lm_module[n->lm_id] : PK_NONE;
    if (module == PK_NONE)
        return hm_fail(b, n->offset, "CCT node %d: load module id %u is not in the loadmap",
                       (int)n->id, n->lm_id);
    pk_status st = demote(b, &parent);
    if (!st && !n->unwound) /* hpcprof without binary structure: parent -> unknown -> point */
        st = unknown_ctx(b, parent, &parent);
    return st ? st : point_ctx(b, parent, module, n->lm_ip, out);
}

const hm_node *hm_node_find(const hm_build *b, uint32_t id)
{
    if (b->node_direct) {
        if (id >= b->cap_node_slot || b->node_slot[id] >> 32 != b->node_gen) return NULL;
        return &b->nodes[(uint32_t)b->node_slot[id]];
    }
    uint64_t key[PK_KMAP_WORDS] = {id};
    uint32_t i;
    return pk_kmap_get(&b->node_map, key, &i) ? &b->nodes[i] : NULL;
}

/* Remember node `id` at index i of b->nodes (hm_node_find finds it). */
static pk_status node_remember(hm_build *b, uint32_t id, uint32_t i)
{
    if (b->node_direct) {
        b->node_slot[id] = (uint64_t)b->node_gen << 32 | i;
        return PK_OK;
    }
    uint64_t key[PK_KMAP_WORDS] = {id};
    uint32_t slot;
    int added;
    return pk_kmap_upsert(&b->node_map, key, i, &slot, &added) ? pk_fail_nomem("reading the CCT")
                                                               : PK_OK;
}

/* 02.00/03.00 mark leaves by negating their ids; parents use the plain id. */
static uint32_t node_key(int32_t id)
{
    return id < 0 ? (uint32_t)0 - (uint32_t)id : (uint32_t)id;
}

static pk_status map_root(hm_build *b, const hr_cct_node *n, hm_node *out)
{
    if (n->lm_id == HR_PLACEHOLDER_LM && n->lm_ip == PH_PRIMARY) return PK_OK; /* the root */
    if (n->lm_id == LM_GPU_ROOT) {
        out->state = HM_NODE_DROPPED;
        return PK_OK;
    }
    return hm_fail(b, n->offset,
                   "CCT node %d: a root (parent 0) that is not the ^Primary placeholder (load "
                   "module %u, ip 0x%llx)",
                   (int)n->id, n->lm_id, (unsigned long long)n->lm_ip);
}

static pk_status map_node(hm_build *b, const hr_cct_node *n, hm_node *out)
{
    *out = (hm_node){0, 0, HM_NODE_SINGLE};
    if (n->parent == 0) return map_root(b, n, out);
    const hm_node *par = hm_node_find(b, node_key(n->parent));
    if (!par)
        return hm_fail(b, n->offset, "CCT node %d: its parent %d is not an earlier node",
                       (int)n->id, (int)n->parent);
    if (par->state == HM_NODE_DROPPED || n->lm_id >= LM_GPU_CONTEXT) {
        out->state = HM_NODE_DROPPED;
        return PK_OK;
    }
    if (n->lm_id == HR_PLACEHOLDER_LM && n->unwound) return map_placeholder(b, n, par->full, out);
    return map_point(b, n, par->full, out);
}

/* A new file: node ids are looked up in a table indexed by id when they
 * are dense enough (a few times the node count), else hashed. */
static pk_status start_nodes(hm_build *b, const hr_epoch *e)
{
    uint32_t max = 0;
    for (uint64_t i = 0; i < e->n_nodes; i++)
        if (node_key(e->nodes[i].id) > max) max = node_key(e->nodes[i].id);
    b->node_direct = (uint64_t)max < 16 * e->n_nodes + 4096;
    if (!b->node_direct) {
        pk_kmap_clear(&b->node_map);
        b->node_map.words = 1;
        return PK_OK;
    }
    size_t old = b->cap_node_slot;
    if (pk_vec_reserve((void **)&b->node_slot, &b->cap_node_slot, (size_t)max + 1,
                       sizeof *b->node_slot))
        return pk_fail_nomem("reading the CCT");
    memset(b->node_slot + old, 0, (b->cap_node_slot - old) * sizeof *b->node_slot);
    if (++b->node_gen == 0) { /* 2^32 files: start the generations again */
        memset(b->node_slot, 0, b->cap_node_slot * sizeof *b->node_slot);
        b->node_gen = 1;
    }
    return PK_OK;
}

/* hr_parse() checked the epoch's shape (hr_check_cct): no id twice, every
 * parent an earlier node. (A lookup per node tested the first again.) */
pk_status hm_read_nodes(hm_build *b, const hr_file *f, const hr_epoch *e)
{
    (void)f;
    if (pk_vec_reserve((void **)&b->nodes, &b->cap_nodes, e->n_nodes + 1, sizeof *b->nodes))
        return pk_fail_nomem("reading the CCT");
    pk_status st = start_nodes(b, e);
    for (uint64_t i = 0; i < e->n_nodes && !st; i++) {
        const hr_cct_node *n = &e->nodes[i];
        st = map_node(b, n, &b->nodes[i]);
        if (!st && b->nodes[i].state == HM_NODE_DROPPED) b->dropped_nodes++;
        if (!st) st = node_remember(b, node_key(n->id), (uint32_t)i);
    }
    return st;
}

/* Children of every context in creation order: start[c]..start[c+1] in kids. */
static pk_status children(const hm_build *b, uint32_t **start_out, uint32_t **kids_out)
{
    uint32_t n = b->n_ctx;
    uint32_t *start = calloc((size_t)n + 2, sizeof *start), *kids = malloc(((size_t)n + 1) * 4);
    if (!start || !kids) {
        free(start), free(kids);
        return pk_fail_nomem("laying out contexts");
    }
    for (uint32_t i = 1; i < n; i++)
        start[b->ctx[i].parent + 2]++;
    for (uint32_t i = 2; i <= n + 1; i++)
        start[i] += start[i - 1];
    for (uint32_t i = 1; i < n; i++) /* parents precede children: creation order kept */
        kids[start[b->ctx[i].parent + 1]++] = i;
    *start_out = start, *kids_out = kids;
    return PK_OK;
}

static const uint8_t raw_kind_of[] = {0, 0, 0, 1, 2, 3, 0};
static const uint8_t raw_relation_of[] = {0, 0, 1, 2, 0};
static const uint8_t raw_entry_of[] = {0, 0, 1, 2, 0};

static void to_model(pk_ctx_rec *r, const hm_ctx *c)
{
    r->kind = c->kind, r->relation = c->relation, r->entry = c->entry;
    r->flags = (uint8_t)c->flags;
    r->function = c->function, r->file = c->file, r->line = c->line;
    r->module = c->module, r->offset = c->offset;
    r->entry_name = c->entry_name;
    r->raw_kind = raw_kind_of[c->kind];
    r->raw_relation = raw_relation_of[c->relation];
    r->raw_entry = raw_entry_of[c->entry];
    r->propagation = c->relation == PK_REL_LEXICAL ? 1 : 0; /* the "function" scope's bit */
}

pk_status hm_layout(hm_build *b, uint32_t **new_index)
{
    pk_profile *p = b->p;
    uint32_t *start = NULL, *kids = NULL, *order = malloc(((size_t)b->n_ctx + 1) * sizeof *order);
    uint32_t *idx = malloc(((size_t)b->n_ctx + 1) * sizeof *idx);
    pk_status st = order && idx ? children(b, &start, &kids) : pk_fail_nomem("laying out contexts");
    if (st) {
        free(order), free(idx);
        return st;
    }
    uint32_t tail = 1;
    order[0] = 0, idx[0] = 0;
    for (uint32_t h = 0; h < tail && !st; h++) { /* breadth-first: children consecutive */
        uint32_t t = order[h], first = tail;
        for (uint32_t k = start[t]; k < start[t + 1]; k++) {
            idx[kids[k]] = tail;
            order[tail++] = kids[k];
        }
        pk_ctx_rec *r;
        uint32_t at;
        st = pk_model_add_context(p, &r, &at);
        if (st) break;
        to_model(r, &b->ctx[t]);
        r->id = h;
        r->parent = t ? idx[b->ctx[t].parent] : PK_NONE;
        r->depth = t ? p->ctx[r->parent].depth + 1 : 0;
        r->n_children = tail - first;
        r->first_child = tail > first ? first : PK_NONE;
    }
    free(start), free(kids), free(order);
    if (!st) st = pk_model_index_contexts(p);
    if (st) {
        free(idx);
        return st;
    }
    *new_index = idx;
    return PK_OK;
}
