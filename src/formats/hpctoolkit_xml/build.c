/*
 * formats/hpctoolkit_xml/build.c — a parsed legacy experiment.xml into the
 * model: load modules, files and procedures; the calling-context tree laid
 * out breadth-first; metrics with their scopes and columns; the summary
 * location holding the <M> values.
 *
 * What the elements mean (hpcviewer's reading, docs/hpctoolkit-legacy.md):
 *   PF  procedure frame: a function entered by a call      -> function, call
 *   Pr/A  alien (inlined) procedure                        -> function, inlined call
 *   L   loop                                               -> loop, lexical
 *   C   call site (the line making the call below it)      -> line, lexical
 *   S   statement                                          -> line, lexical
 * S, C and L without an f attribute sit in the file of the nearest
 * enclosing element that has one. The implicit root (hpcprof's node 1, the
 * values written straight under SecCallPathProfileData) is context 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx.h"
#include "util/vec.h"

static const char *const kind_names[] = {"SUMMARY",   "NODE",       "RANK",      "THREAD",
                                         "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE"};

/* id -> index over a table, through a kmap keyed by the id. */
static pk_status index_table(const hx_table_ent *t, size_t n, pk_kmap *map)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t key[PK_KMAP_WORDS] = {t[i].id};
        uint32_t v;
        int added;
        if (pk_kmap_upsert(map, key, (uint32_t)i, &v, &added))
            return pk_fail_nomem("indexing experiment.xml tables");
    }
    return PK_OK;
}

static uint32_t lookup(const pk_kmap *map, int64_t id)
{
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)id};
    uint32_t v;
    return id >= 0 && pk_kmap_get(map, key, &v) ? v : PK_NONE;
}

typedef struct tables {
    pk_kmap lm, file, proc, func;
    size_t cap_functions;
    uint32_t *nfile, *nlm; /* per node: file / module in effect (PK_NONE if unknown) */
} tables;

static pk_status build_tables(hx_reader *r, tables *t)
{
    pk_profile *p = r->p;
    hx_exp *x = &r->x;
    p->modules = pk_arena_array(&p->arena, x->n_lms + 1, sizeof *p->modules);
    p->files = pk_arena_array(&p->arena, x->n_files + 1, sizeof *p->files);
    if (!p->modules || !p->files) return pk_fail_nomem("reading experiment.xml tables");
    for (size_t i = 0; i < x->n_lms; i++)
        p->modules[i].path = x->lms[i].name;
    for (size_t i = 0; i < x->n_files; i++)
        p->files[i] = (pk_file){x->files[i].name, 0};
    p->n_modules = (uint32_t)x->n_lms, p->n_files = (uint32_t)x->n_files;
    pk_status st = index_table(x->lms, x->n_lms, &t->lm);
    if (!st) st = index_table(x->files, x->n_files, &t->file);
    if (!st) st = index_table(x->procs, x->n_procs, &t->proc);
    return st;
}

/* The function of a PF/Pr/A node: its procedure (an id of the procedure
 * table, or a name written in place) in its module and file. */
static pk_status function_of(hx_reader *r, tables *t, const hx_node *n, uint32_t module,
                             uint32_t file, uint32_t *out)
{
    pk_profile *p = r->p;
    const char *name = n->n;
    uint64_t pid;
    char *end;
    if (name && *name && (pid = strtoull(name, &end, 10), !*end)) {
        uint32_t k = lookup(&t->proc, (int64_t)pid);
        if (k != PK_NONE) name = r->x.procs[k].name;
    }
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)(uintptr_t)name, module, file, n->line};
    int added;
    if (pk_kmap_upsert(&t->func, key, p->n_functions, out, &added))
        return pk_fail_nomem("indexing procedures");
    if (!added) return PK_OK;
    if (pk_vec_reserve((void **)&p->functions, &t->cap_functions, p->n_functions + 1u,
                       sizeof *p->functions))
        return pk_fail_nomem("indexing procedures");
    p->functions[p->n_functions++] = (pk_function){name, module, 0, file, n->line};
    return PK_OK;
}

/* Kind, relation, function and source position of node k's context. */
static pk_status describe(hx_reader *r, tables *t, uint32_t k, pk_ctx_rec *c)
{
    const hx_node *n = &r->x.nodes[k];
    uint32_t file = n->f >= 0 ? lookup(&t->file, n->f) : PK_NONE;
    uint32_t lm = n->lm >= 0 ? lookup(&t->lm, n->lm) : PK_NONE;
    if (file == PK_NONE && n->f < 0 && n->parent != PK_NONE) file = t->nfile[n->parent];
    if (lm == PK_NONE && n->lm < 0 && n->parent != PK_NONE) lm = t->nlm[n->parent];
    t->nfile[k] = file, t->nlm[k] = lm;
    c->id = n->id;
    switch (n->tag) {
    case HX_PF:
    case HX_PR:
    case HX_A:
        c->kind = PK_CTX_FUNCTION;
        c->relation = n->tag == HX_PF ? PK_REL_CALL : PK_REL_INLINED_CALL;
        c->flags = PK_CTXF_HAS_FUNCTION;
        return function_of(r, t, n, lm, file, &c->function);
    case HX_L:
        c->kind = PK_CTX_LOOP;
        break;
    default:
        c->kind = PK_CTX_LINE;
    }
    c->relation = PK_REL_LEXICAL;
    if (file != PK_NONE) c->flags |= PK_CTXF_HAS_SRCLOC, c->file = file, c->line = n->line;
    if (n->tag == HX_C && n->has_v && lm != PK_NONE)
        c->flags |= PK_CTXF_HAS_POINT, c->module = lm, c->offset = n->v;
    return PK_OK;
}

/* The file has no numeric kinds; the raw ones are v4's codes for the same
 * kind and relation (lexicalType 0 function, 1 loop, 2 line; relation 0
 * lexical, 1 call, 2 inlined call), so a converted database keeps them. */
static void set_raw_codes(pk_ctx_rec *c)
{
    c->raw_kind = c->kind == PK_CTX_LOOP ? 1 : c->kind == PK_CTX_LINE ? 2 : 0;
    c->raw_relation = c->relation == PK_REL_CALL ? 1 : c->relation == PK_REL_INLINED_CALL ? 2 : 0;
    c->propagation = c->relation == PK_REL_LEXICAL; /* hpcprof's bit 0 ("function" scope) */
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int hx_top_slot(const hx_reader *r, uint64_t id)
{
    size_t lo = 0, hi = r->n_tops;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->tops[mid] >> 8 < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_tops && r->tops[lo] >> 8 == id ? (int)(r->tops[lo] & 0xff) : -1;
}

/* The entry point a top-level node belongs under, by its procedure:
 * hpcprof 2.x roots the main thread's tree in "<program root>" (libmonitor)
 * and other threads' in "<thread root>"; everything else at the top
 * ("<no activity>", "<partial call paths>", "<no thread>") had no known
 * caller. v4 databases put such trees under these three entry points. */
static int entry_class(hx_reader *r, tables *t, const hx_node *n)
{
    const char *name = n->n;
    uint64_t pid;
    char *end;
    if (name && *name && (pid = strtoull(name, &end, 10), !*end)) {
        uint32_t k = lookup(&t->proc, (int64_t)pid);
        if (k != PK_NONE) name = r->x.procs[k].name;
    }
    if (n->tag == HX_PF && name && strcmp(name, "<program root>") == 0) return 0;
    if (n->tag == HX_PF && name && strcmp(name, "<thread root>") == 0) return 1;
    return 2;
}

/* Root, then one entry point per class of top-level node, in class order. */
static pk_status add_entries(hx_reader *r, tables *t, int *cls, uint32_t *n_in)
{
    static const pk_entry_kind kinds[3] = {PK_ENTRY_MAIN, PK_ENTRY_APP_THREAD, PK_ENTRY_UNKNOWN};
    static const uint16_t codes[3] = {1, 2, 0};
    static const char *const names[3] = {"main thread", "application thread", "unknown entry"};
    hx_exp *x = &r->x;
    pk_ctx_rec *c;
    uint32_t idx, n_entries = 0;
    for (uint32_t kid = x->nodes[0].first_kid; x->nodes[0].n_kids && kid != PK_NONE;
         kid = x->nodes[kid].next_sib)
        n_in[entry_class(r, t, &x->nodes[kid])]++;
    pk_status st = pk_model_add_context(r->p, &c, &idx);
    if (st) return st;
    c->kind = PK_CTX_ROOT;
    r->ctx_of_node[0] = 0;
    for (int k = 0; k < 3 && !st; k++) {
        cls[k] = -1;
        if (!n_in[k]) continue;
        st = pk_model_add_context(r->p, &c, &idx);
        if (st) break;
        cls[k] = (int)idx;
        c->id = r->max_id + 1 + n_entries, c->kind = PK_CTX_ENTRY, c->entry = kinds[k];
        c->raw_entry = codes[k], c->parent = 0, c->depth = 1;
        c->entry_name = pk_intern_cstr(&r->p->strings, names[k]);
        if (!c->entry_name) st = pk_fail_nomem("adding entry points");
        n_entries++;
    }
    r->p->ctx[0].n_children = n_entries, r->p->ctx[0].first_child = n_entries ? 1 : PK_NONE;
    r->n_entries = n_entries;
    return st;
}

/* One context per node, breadth-first so that children are consecutive. */
static pk_status lay_out(hx_reader *r, tables *t)
{
    hx_exp *x = &r->x;
    uint32_t *queue = malloc((size_t)x->n_nodes * sizeof *queue);
    r->ctx_of_node = malloc((size_t)x->n_nodes * sizeof *r->ctx_of_node);
    t->nfile = malloc((size_t)x->n_nodes * sizeof *t->nfile);
    t->nlm = malloc((size_t)x->n_nodes * sizeof *t->nlm);
    for (uint32_t k = 1; k < x->n_nodes; k++)
        if (x->nodes[k].id > r->max_id) r->max_id = x->nodes[k].id;
    r->tops = malloc(((size_t)x->nodes[0].n_kids + 1) * sizeof *r->tops);
    if (!queue || !r->ctx_of_node || !t->nfile || !t->nlm || !r->tops) {
        free(queue);
        return pk_fail_nomem("laying out the calling-context tree");
    }
    int cls[3];
    uint32_t n_in[3] = {0, 0, 0}, tail = 0;
    t->nfile[0] = t->nlm[0] = PK_NONE;
    pk_status st = add_entries(r, t, cls, n_in);
    uint32_t base = r->p->n_ctx;         /* context of queue position h: base + h */
    for (int k = 0; k < 3 && !st; k++) { /* top-level nodes, grouped by entry point */
        if (cls[k] < 0) continue;
        r->p->ctx[cls[k]].first_child = base + tail, r->p->ctx[cls[k]].n_children = n_in[k];
        for (uint32_t kid = x->nodes[0].first_kid; kid != PK_NONE; kid = x->nodes[kid].next_sib)
            if (entry_class(r, t, &x->nodes[kid]) == k) {
                queue[tail++] = kid;
                r->tops[r->n_tops++] = x->nodes[kid].id << 8 | (uint64_t)(cls[k] - 1);
            }
    }
    for (uint32_t h = 0; h < tail && !st; h++) {
        uint32_t k = queue[h];
        const hx_node *n = &x->nodes[k];
        pk_ctx_rec *c;
        uint32_t idx;
        st = pk_model_add_context(r->p, &c, &idx);
        if (st) break;
        r->ctx_of_node[k] = idx;
        c->n_children = n->n_kids;
        c->first_child = n->n_kids ? base + tail : PK_NONE;
        for (uint32_t kid = n->first_kid; kid != PK_NONE && n->n_kids; kid = x->nodes[kid].next_sib)
            queue[tail++] = kid;
        c->parent = n->parent ? r->ctx_of_node[n->parent] : (uint32_t)cls[entry_class(r, t, n)];
        c->depth = r->p->ctx[c->parent].depth + 1;
        st = describe(r, t, k, c);
        set_raw_codes(c);
    }
    free(queue);
    qsort(r->tops, r->n_tops, sizeof *r->tops, cmp_u64);
    if (!st) st = pk_model_index_contexts(r->p);
    if (st && strstr(pk_error_last(), "used twice"))
        st = hx_fail(r->xml, "calling-context tree", 0, "%s", pk_error_last());
    return st;
}

/* Trace ids (the it attributes) -> context ids. */
static pk_status index_trace_ids(hx_reader *r)
{
    for (uint32_t k = 1; k < r->x.n_nodes; k++) {
        const hx_node *n = &r->x.nodes[k];
        if (!n->has_it) continue;
        uint64_t key[PK_KMAP_WORDS] = {n->it};
        uint32_t v;
        int added;
        if (pk_kmap_upsert(&r->trace_ids, key, (uint32_t)n->id, &v, &added))
            return pk_fail_nomem("indexing trace ids");
        if (!added)
            return hx_fail(r->xml, "S", n->xml_off, "trace id it=%llu is used twice",
                           (unsigned long long)n->it);
    }
    return PK_OK;
}

/* 4.0: the IdentifierNameTable's names, by kind (the 2.x files have
 * none; their locations use the v4 kinds RANK and THREAD). */
static pk_status kind_names_of(hx_reader *r)
{
    pk_profile *p = r->p;
    const hx_exp *x = &r->x;
    p->id_kind_names = (const char **)kind_names;
    p->n_id_kinds = sizeof kind_names / sizeof kind_names[0];
    if (!x->n_idnames) return PK_OK;
    uint64_t n = 0;
    for (size_t i = 0; i < x->n_idnames; i++)
        if (x->idnames[i].id + 1 > n) n = x->idnames[i].id + 1;
    const char **names = pk_arena_array(&p->arena, n, sizeof *names);
    if (!names) return pk_fail_nomem("reading the IdentifierNameTable");
    for (size_t i = 0; i < x->n_idnames; i++)
        names[x->idnames[i].id] = x->idnames[i].name;
    p->id_kind_names = names, p->n_id_kinds = (uint32_t)n;
    return PK_OK;
}

pk_status hx_build_model(hx_reader *r)
{
    pk_profile *p = r->p;
    p->title = r->x.title;
    tables t = {0};
    pk_status st = kind_names_of(r);
    if (!st) st = build_tables(r, &t);
    if (!st) st = lay_out(r, &t);
    if (!st) st = index_trace_ids(r);
    if (p->functions) { /* the profile owns the table from here, whatever happens */
        pk_status a = pk_model_adopt_owned(p, p->functions);
        if (a) p->functions = NULL, p->n_functions = 0;
        if (!st) st = a;
    }
    pk_kmap_free(&t.lm), pk_kmap_free(&t.file), pk_kmap_free(&t.proc), pk_kmap_free(&t.func);
    free(t.nfile), free(t.nlm);
    if (!st) st = hx_build_metrics(r);
    if (!st) st = hx_build_summary(r);
    return st;
}
