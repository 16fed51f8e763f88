/*
 * formats/cube/build.c — turning a parsed anchor.xml into the model:
 * regions become functions, cnodes become function contexts under the
 * implicit root (laid out breadth-first, ids = cnode ids), the metric tree
 * becomes metrics (one per component of composite types) with a column in
 * the scope the file stores, and system-tree locations become locations
 * whose identifier tuple is their system-tree path. Everything Cube says
 * that the model has no field for is kept as "cube:" attributes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube.h"
#include "util/error.h"
#include "util/kmap.h"
#include "util/vec.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Absent and empty are the same to Cube (the writer always writes <url/>
 * and <descr/>), so empty values are not kept. */
static pk_status attr(cube_read *r, pk_entity e, uint32_t i, const char *key, const char *v)
{
    if (!v || !*v) return PK_OK;
    return pk_model_add_attr(r->p, e, i, key, v, strlen(v));
}

/* Index of source file `path` (interned) in p->files. */
static pk_status file_index(cube_read *r, pk_kmap *map, size_t *cap, const char *path,
                            uint32_t *out)
{
    pk_profile *p = r->p;
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)(uintptr_t)path};
    int added;
    if (pk_kmap_upsert(map, key, p->n_files, out, &added)) return pk_fail_nomem("indexing files");
    if (!added) return PK_OK;
    if (pk_vec_reserve((void **)&p->files, cap, p->n_files + 1u, sizeof *p->files))
        return pk_fail_nomem("indexing files");
    p->files[p->n_files++] = (pk_file){path, 0};
    return PK_OK;
}

/* Decimal line number, 0 when absent or not a positive number. */
static uint32_t line_of(const char *s)
{
    char *end;
    if (!s || !*s) return 0;
    long v = strtol(s, &end, 10);
    return *end || v <= 0 || v > 0x7fffffff ? 0 : (uint32_t)v;
}

static pk_status build_functions(cube_read *r, pk_kmap *files, size_t *fcap)
{
    pk_profile *p = r->p;
    const cube_anchor *a = &r->a;
    p->functions = pk_arena_array(&p->arena, a->n_regions + 1, sizeof *p->functions);
    if (!p->functions) return pk_fail_nomem("reading regions");
    pk_status st = PK_OK;
    size_t n = a->n_regions - (r->root_cnode != CUBE_NONE); /* the root's region is no function */
    for (uint32_t i = 0; i < n && !st; i++) {
        const cube_region *g = &a->regions[i];
        pk_function *f = &p->functions[p->n_functions++];
        *f = (pk_function){g->name, PK_NONE, 0, PK_NONE, line_of(g->begin)};
        if (g->mod && *g->mod) st = file_index(r, files, fcap, g->mod, &f->file);
        const char *keys[] = {"cube:mangled_name", "cube:paradigm", "cube:role",
                              "cube:url",          "cube:descr",    "cube:end"};
        const char *vals[] = {g->mangled, g->paradigm, g->role, g->url, g->descr, g->end};
        for (size_t k = 0; k < 6 && !st; k++)
            st = attr(r, PK_ENTITY_FUNCTION, i, keys[k], vals[k]);
        if (!st && g->begin && !f->line)
            st = attr(r, PK_ENTITY_FUNCTION, i, "cube:begin", g->begin);
    }
    return st;
}

/* Function index of region id `id` through the sorted (id << 32 | index). */
static uint32_t region_lookup(const uint64_t *sorted, size_t n, uint32_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] >> 32 < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && sorted[lo] >> 32 == id ? (uint32_t)sorted[lo] : PK_NONE;
}

static pk_status format_error(const cube_read *r, const char *what, uint32_t id)
{
    return pk_fail(PK_ERR_FORMAT, "%s: anchor.xml: %s %u", r->path, what, id);
}

/* Sorted (id << 32 | index) of n ids; fails on a duplicate. */
static pk_status sort_ids(const cube_read *r, const void *base, size_t stride, size_t n,
                          const char *what, uint64_t **out)
{
    uint64_t *s = malloc((n + 1) * sizeof *s);
    if (!s) return pk_fail_nomem("reading anchor.xml");
    for (size_t i = 0; i < n; i++)
        s[i] = (uint64_t) * (const uint32_t *)((const char *)base + i * stride) << 32 | i;
    qsort(s, n, sizeof *s, cmp_u64);
    for (size_t i = 1; i < n; i++)
        if (s[i] >> 32 == s[i - 1] >> 32) {
            uint32_t id = (uint32_t)(s[i] >> 32);
            free(s);
            return format_error(r, what, id);
        }
    *out = s;
    return PK_OK;
}

/* The cnode standing for the model's root in a file profkit wrote: the
 * one root cnode, calling the last region, which carries CUBE_ROOT_ATTR
 * and is called by no other cnode. CUBE_NONE in any other file. */
static uint32_t written_root(const cube_read *r)
{
    const cube_anchor *a = &r->a;
    uint32_t root = CUBE_NONE, last = a->n_regions ? (uint32_t)a->n_regions - 1 : 0;
    for (uint32_t d = 0; d < a->n_cnodes; d++) {
        if (a->cnodes[d].parent != CUBE_NONE) continue;
        if (root != CUBE_NONE) return CUBE_NONE;
        root = d;
    }
    if (root == CUBE_NONE || a->cnodes[root].callee != a->regions[last].id) return CUBE_NONE;
    int marked = 0;
    for (size_t i = 0; i < a->n_attrs; i++)
        marked |= a->attrs[i].kind == CA_REGION && a->attrs[i].owner == last &&
                  strcmp(a->attrs[i].key, "attr:" CUBE_ROOT_ATTR) == 0;
    for (uint32_t d = 0; d < a->n_cnodes && marked; d++)
        if (d != root && a->cnodes[d].callee == a->regions[last].id) return CUBE_NONE;
    return marked ? root : CUBE_NONE;
}

/* One context per cnode, breadth-first so that children are consecutive;
 * the implicit root first, or the written root's cnode as the root. */
static pk_status lay_out_contexts(cube_read *r, const uint32_t *first_kid, const uint32_t *next_sib,
                                  const uint32_t *n_kids, uint32_t *queue, uint64_t root_id)
{
    const cube_anchor *a = &r->a;
    pk_ctx_rec *c;
    uint32_t idx, n = 0, tail = 0, top = r->root_cnode;
    pk_status st = pk_model_add_context(r->p, &c, &idx);
    if (st) return st;
    c->id = top == CUBE_NONE ? root_id : a->cnodes[top].id, c->kind = PK_CTX_ROOT;
    if (top != CUBE_NONE) {
        r->ctx_of[top] = 0;
        for (uint32_t k = first_kid[top]; k != CUBE_NONE; k = next_sib[k])
            queue[tail++] = k;
    }
    for (uint32_t i = 0; i < a->n_cnodes && top == CUBE_NONE; i++)
        if (a->cnodes[i].parent == CUBE_NONE) queue[tail++] = i;
    r->p->ctx[0].n_children = tail, r->p->ctx[0].first_child = tail ? 1 : PK_NONE;
    for (uint32_t h = 0; h < tail && !st; h++) {
        uint32_t d = queue[h];
        r->ctx_of[d] = h + 1;
        for (uint32_t k = first_kid[d]; k != CUBE_NONE; k = next_sib[k])
            queue[tail++] = k;
        st = pk_model_add_context(r->p, &c, &idx);
        if (st) break;
        const cube_cnode *cn = &a->cnodes[d];
        uint32_t parent = cn->parent == CUBE_NONE || cn->parent == top ? 0 : r->ctx_of[cn->parent];
        c->id = cn->id, c->kind = PK_CTX_FUNCTION, c->relation = PK_REL_CALL;
        c->parent = parent, c->depth = r->p->ctx[parent].depth + 1;
        c->n_children = n_kids[d], c->first_child = n_kids[d] ? tail - n_kids[d] + 1 : PK_NONE;
        c->flags = PK_CTXF_HAS_FUNCTION;
        n++;
    }
    return st;
}

/* Function, call site and attributes of the context of cnode d. */
static pk_status describe_context(cube_read *r, uint32_t d, const uint64_t *regions, pk_kmap *files,
                                  size_t *fcap)
{
    const cube_cnode *cn = &r->a.cnodes[d];
    pk_ctx_rec *c = &r->p->ctx[r->ctx_of[d]];
    c->function = region_lookup(regions, r->a.n_regions, cn->callee);
    if (c->function == PK_NONE)
        return format_error(r, "a cnode calls an undefined region", cn->callee);
    c->line = line_of(cn->line);
    if (cn->mod && *cn->mod) {
        pk_status st = file_index(r, files, fcap, cn->mod, &c->file);
        if (st) return st;
        c->flags |= PK_CTXF_HAS_SRCLOC;
    } else if (c->line) {
        c->file = r->p->functions[c->function].file;
        if (c->file != PK_NONE) c->flags |= PK_CTXF_HAS_SRCLOC;
    }
    if (cn->line && !c->line)
        return attr(r, PK_ENTITY_CONTEXT, r->ctx_of[d], "cube:line", cn->line);
    return PK_OK;
}

static pk_status build_contexts(cube_read *r, pk_kmap *files, size_t *fcap)
{
    const cube_anchor *a = &r->a;
    size_t n = a->n_cnodes;
    uint64_t *regions = NULL, *ids = NULL;
    uint32_t *tmp = malloc((4 * n + 1) * sizeof *tmp);
    r->ctx_of = malloc((n + 1) * sizeof *r->ctx_of);
    r->bucket_of = malloc((n + 1) * sizeof *r->bucket_of);
    r->wide = malloc((n + 1) * sizeof *r->wide);
    if (!tmp || !r->ctx_of || !r->bucket_of || !r->wide) {
        free(tmp);
        return pk_fail_nomem("reading the call tree");
    }
    /* no &array[0] of an empty (NULL) array: undefined even unread */
    pk_status st = sort_ids(r, a->n_regions ? &a->regions[0].id : NULL, sizeof *a->regions,
                            a->n_regions, "region id defined twice:", &regions);
    if (!st)
        st = sort_ids(r, n ? &a->cnodes[0].id : NULL, sizeof *a->cnodes, n,
                      "cnode id defined twice:", &ids);
    uint64_t root_id = !st && n ? (ids[n - 1] >> 32) + 1 : 0; /* ids: only if sorted */
    if (!st && root_id > UINT32_MAX) st = format_error(r, "cnode id too large:", UINT32_MAX);
    for (size_t i = 0; i < n && !st; i++)
        r->bucket_of[(uint32_t)ids[i]] = (uint32_t)i;
    uint32_t *first_kid = tmp, *next_sib = tmp + n, *n_kids = tmp + 2 * n, *queue = tmp + 3 * n;
    const uint32_t *parents = n ? &a->cnodes[0].parent : NULL;
    if (!st)
        cube_link_children(parents, sizeof *a->cnodes, (uint32_t)n, first_kid, next_sib, n_kids);
    if (!st) st = lay_out_contexts(r, first_kid, next_sib, n_kids, queue, root_id);
    if (!st) /* the row order of INCLUSIVE metrics */
        cube_wide_enumeration(parents, sizeof *a->cnodes, (uint32_t)n, first_kid, next_sib, queue,
                              r->wide);
    for (uint32_t d = 0; d < n && !st; d++)
        if (d != r->root_cnode) st = describe_context(r, d, regions, files, fcap);
    free(tmp), free(regions), free(ids);
    return st ? st : pk_model_index_contexts(r->p);
}

static int is_derived(const char *type)
{
    return strcmp(type, "POSTDERIVED") == 0 || strncmp(type, "PREDERIVED", 10) == 0;
}

static pk_status metric_attrs(cube_read *r, const cube_mdef *m, uint32_t metric)
{
    const char *keys[] = {"cube:disp_name", "cube:dtype",     "cube:type",        "cube:url",
                          "cube:val",       "cube:viztype",   "cube:convertible", "cube:cacheable",
                          "cube:cubepl",    "cube:cubeplinit"};
    const char *vals[] = {m->disp,    m->dtype,       m->type,      m->url,    m->val,
                          m->viztype, m->convertible, m->cacheable, m->cubepl, m->cubeplinit};
    pk_status st = PK_OK;
    for (size_t k = 0; k < sizeof keys / sizeof *keys && !st; k++)
        st = attr(r, PK_ENTITY_METRIC, metric, keys[k], vals[k]);
    return st;
}

static int is_unsigned(cube_dt dt)
{
    return dt == DT_U8 || dt == DT_U16 || dt == DT_U32 || dt == DT_U64;
}

/* Model metrics of definition i: one per component. */
static pk_status add_metric(cube_read *r, uint32_t i)
{
    pk_profile *p = r->p;
    const cube_mdef *m = &r->a.mdefs[i];
    cube_mbuilt *b = &r->mb[i];
    if (!m->uniq || !*m->uniq)
        return format_error(r, "a metric has no uniq_name; its id is", m->id);
    b->type = cube_parse_dtype(m->dtype);
    b->derived = is_derived(m->type);
    b->inclusive = strcmp(m->type, "INCLUSIVE") == 0;
    b->metric = p->n_metrics;
    b->column = PK_NONE;
    uint32_t parent = m->parent == CUBE_NONE ? PK_NONE : r->mb[m->parent].metric;
    uint32_t nc = b->type.n_comp ? b->type.n_comp : 1;
    pk_status st = PK_OK;
    for (uint32_t k = 0; k < nc && !st; k++) {
        char buf[32], name[600];
        const char *comp = cube_component_name(&b->type, k, buf, sizeof buf);
        snprintf(name, sizeof name, "%s%s%s", m->uniq, k ? "." : "", k ? comp : "");
        const char *nm = k ? pk_intern_cstr(&p->strings, name) : m->uniq;
        if (!nm) return pk_fail_nomem("reading metrics");
        p->metrics[p->n_metrics++] =
            (pk_metric){nm,
                        m->descr && *m->descr ? m->descr : NULL,
                        m->uom && *m->uom ? m->uom : NULL,
                        k ? b->metric : parent,
                        cube_component_combine(&b->type, k),
                        is_unsigned(b->type.dt) && nc == 1 ? PK_METRIC_UNSIGNED : 0};
        if (*comp) st = attr(r, PK_ENTITY_METRIC, p->n_metrics - 1, "cube:component", comp);
    }
    return st ? st : metric_attrs(r, m, b->metric);
}

/* Columns of definition i: each component in the scope the file stores. */
static pk_status add_columns(cube_read *r, uint32_t i)
{
    pk_profile *p = r->p;
    cube_mbuilt *b = &r->mb[i];
    if (b->derived || b->type.dt == DT_UNKNOWN) return PK_OK;
    b->column = p->n_columns;
    for (uint32_t k = 0; k < b->type.n_comp; k++) {
        uint32_t c = p->n_columns++;
        p->columns[c] = (pk_column){b->metric + k, b->inclusive ? 1u : 0u, 0, PK_STAT_NONE,
                                    NULL,          PK_COMBINE_SUM,         c};
        pk_status st = pk_model_map_column(p, 0, c, c);
        if (st) return st;
    }
    return PK_OK;
}

static pk_status build_metrics(cube_read *r)
{
    static const pk_scope scopes[] = {{"exclusive", PK_SCOPE_EXCLUSIVE, 3, 0},
                                      {"inclusive", PK_SCOPE_INCLUSIVE, 2, 255}};
    pk_profile *p = r->p;
    size_t total = 0;
    r->mb = calloc(r->a.n_mdefs + 1, sizeof *r->mb);
    if (!r->mb) return pk_fail_nomem("reading metrics");
    for (size_t i = 0; i < r->a.n_mdefs; i++) {
        cube_dtype t = cube_parse_dtype(r->a.mdefs[i].dtype);
        total += t.n_comp ? t.n_comp : 1;
    }
    if (total >= 60000)
        return pk_fail(PK_ERR_UNSUPPORTED,
                       "%s: %zu metric components (profkit keeps at most 60000)", r->path, total);
    p->metrics = pk_arena_array(&p->arena, total + 1, sizeof *p->metrics);
    p->columns = pk_arena_array(&p->arena, total + 1, sizeof *p->columns);
    p->scopes = pk_arena_array(&p->arena, 2, sizeof *p->scopes);
    if (!p->metrics || !p->columns || !p->scopes) return pk_fail_nomem("reading metrics");
    memcpy(p->scopes, scopes, sizeof scopes);
    p->n_scopes = 2;
    pk_status st = PK_OK;
    for (uint32_t i = 0; i < r->a.n_mdefs && !st; i++) /* definitions are in pre-order */
        st = add_metric(r, i);
    for (uint32_t i = 0; i < r->a.n_mdefs && !st; i++)
        st = add_columns(r, i);
    return st;
}

/* Identifier kind named after a system-tree class or type. */
static uint16_t kind_of(cube_read *r, const char *raw, const char *fallback)
{
    pk_profile *p = r->p;
    char up[64];
    size_t n = 0;
    const char *s = raw && *raw ? raw : fallback;
    if (strcmp(s, "process") == 0) s = "RANK";
    for (; *s && n < sizeof up - 1; s++)
        up[n++] = *s == ' ' ? '_' : (char)(*s >= 'a' && *s <= 'z' ? *s - 32 : *s);
    up[n] = 0;
    for (uint32_t k = 0; k < p->n_id_kinds; k++)
        if (strcmp(p->id_kind_names[k], up) == 0) return (uint16_t)k;
    if (p->n_id_kinds >= 64) return 0;
    p->id_kind_names[p->n_id_kinds] = pk_intern_cstr(&p->strings, up);
    return p->id_kind_names[p->n_id_kinds] ? (uint16_t)p->n_id_kinds++ : 0;
}

static uint32_t rank_of(const cube_sysres *s)
{
    char *end;
    unsigned long v = s->rank ? strtoul(s->rank, &end, 10) : 0;
    return s->rank && *s->rank && !*end && v <= UINT32_MAX ? (uint32_t)v : s->id;
}

/* System-tree nodes above location def d, leaf first, into chain[256]. */
static pk_status stn_chain(cube_read *r, uint32_t d, uint32_t *chain, uint32_t *depth)
{
    const cube_anchor *a = &r->a;
    *depth = 0;
    for (uint32_t s = a->groups[a->locs[d].parent].parent; s != CUBE_NONE; s = a->stns[s].parent) {
        if (*depth == 256)
            return format_error(r, "the system tree is deeper than 256 levels at location",
                                a->locs[d].id);
        chain[(*depth)++] = s;
    }
    return PK_OK;
}

/* Attributes of location l (model index) defined by location def d. */
static pk_status location_attrs(cube_read *r, uint32_t d, uint32_t l, const uint32_t *chain,
                                uint32_t depth)
{
    const cube_anchor *a = &r->a;
    const cube_sysres *loc = &a->locs[d], *g = &a->groups[loc->parent];
    pk_status st = attr(r, PK_ENTITY_LOCATION, l, "cube:name", loc->name);
    if (!st) st = attr(r, PK_ENTITY_LOCATION, l, "cube:type", loc->type);
    if (!st) st = attr(r, PK_ENTITY_LOCATION, l, "cube:group", g->name);
    if (!st) st = attr(r, PK_ENTITY_LOCATION, l, "cube:group_type", g->type);
    while (depth-- > 0 && !st) {
        const cube_stn *s = &a->stns[chain[depth]];
        char buf[1024];
        snprintf(buf, sizeof buf, "%s\t%s", s->klass ? s->klass : "", s->name ? s->name : "");
        st = attr(r, PK_ENTITY_LOCATION, l, "cube:node", buf);
    }
    return st;
}

/* Identifier tuple of location def d: system-tree nodes, group, itself. */
static pk_status location_ids(cube_read *r, uint32_t d, const uint32_t *sib, const uint32_t *chain,
                              uint32_t depth, pk_loc_rec *out)
{
    const cube_anchor *a = &r->a;
    const cube_sysres *loc = &a->locs[d], *g = &a->groups[loc->parent];
    pk_ident *ids = pk_arena_array(&r->p->arena, depth + 2, sizeof *ids);
    if (!ids) return pk_fail_nomem("reading the system tree");
    uint32_t n = 0;
    while (depth-- > 0) {
        const cube_stn *s = &a->stns[chain[depth]];
        uint16_t k = kind_of(r, s->klass, "NODE");
        ids[n++] = (pk_ident){k, r->p->id_kind_names[k], 0, sib[chain[depth]], 0};
    }
    uint16_t kg = kind_of(r, g->type, "GROUP"), kl = kind_of(r, loc->type, "LOCATION");
    ids[n++] = (pk_ident){kg, r->p->id_kind_names[kg], 0, rank_of(g), 0};
    ids[n++] = (pk_ident){kl, r->p->id_kind_names[kl], 0, rank_of(loc), 0};
    out->ids = ids, out->n_ids = n;
    return PK_OK;
}

static pk_status build_locations(cube_read *r)
{
    pk_profile *p = r->p;
    const cube_anchor *a = &r->a;
    uint64_t *ids = NULL;
    uint32_t *sib = calloc(a->n_stns + 1, sizeof *sib),
             *count = calloc(a->n_stns + 2, sizeof *count);
    r->loc_col = malloc((a->n_locs + 1) * sizeof *r->loc_col);
    p->locs = pk_arena_array(&p->arena, a->n_locs + 1, sizeof *p->locs);
    p->id_kind_names = pk_arena_array(&p->arena, 64, sizeof *p->id_kind_names);
    pk_status st = sib && count && r->loc_col && p->locs && p->id_kind_names
                       ? PK_OK
                       : pk_fail_nomem("reading the system tree");
    for (uint32_t s = 0; s < a->n_stns && !st; s++) { /* rank among siblings */
        uint32_t par = a->stns[s].parent;
        sib[s] = count[par == CUBE_NONE ? 0 : par + 1]++;
    }
    if (!st)
        st = sort_ids(r, &a->locs[0].id, sizeof *a->locs, a->n_locs,
                      "location Id defined twice:", &ids);
    for (uint32_t i = 0; i < a->n_locs && !st; i++) {
        uint32_t d = (uint32_t)ids[i];
        r->loc_col[d] = i;
        p->locs[i] = (pk_loc_rec){.raw_index = a->locs[d].id, .trace = PK_NONE};
        uint32_t chain[256], depth;
        st = stn_chain(r, d, chain, &depth);
        if (!st) st = location_ids(r, d, sib, chain, depth, &p->locs[i]);
        if (!st) st = location_attrs(r, d, i, chain, depth);
    }
    if (!st && a->n_locs && (ids[a->n_locs - 1] >> 32) != a->n_locs - 1)
        pk_model_diag(p, PK_SEV_WARNING, "sparse-location-ids", r->path, "anchor.xml system tree",
                      0, 0, "location Ids are not 0..%zu; data columns are taken in Id order",
                      a->n_locs - 1);
    if (!st) p->n_locs = r->n_locs = (uint32_t)a->n_locs;
    free(sib), free(count), free(ids);
    return st;
}

/* A group's attribute goes to each of its locations. */
static pk_status group_attr(cube_read *r, const cube_pattr *at)
{
    char key[700];
    snprintf(key, sizeof key, "cube:group_%s", at->key);
    pk_status st = PK_OK;
    for (uint32_t d = 0; d < r->a.n_locs && !st; d++)
        if (r->a.locs[d].parent == at->owner)
            st = attr(r, PK_ENTITY_LOCATION, r->loc_col[d], key, at->value);
    return st;
}

/* A region attribute profkit writes for a function's load module or
 * offset (CUBE_MODULE_ATTR, CUBE_OFFSET_ATTR): back into the function.
 * The region's `mod` names the module only for want of a source file.
 * Returns 1 when the attribute was one of them. */
static int region_address(cube_read *r, const cube_pattr *at, pk_kmap *mods, size_t *cap,
                          pk_status *st)
{
    pk_profile *p = r->p;
    pk_function *f = &p->functions[at->owner];
    if (strcmp(at->key, "attr:" CUBE_OFFSET_ATTR) == 0) {
        f->offset = strtoull(at->value, NULL, 16);
        return 1;
    }
    if (strcmp(at->key, "attr:" CUBE_MODULE_ATTR) != 0) return 0;
    uint64_t key[PK_KMAP_WORDS] = {(uint64_t)(uintptr_t)at->value};
    int added;
    if (pk_kmap_upsert(mods, key, p->n_modules, &f->module, &added) ||
        (added && pk_vec_reserve((void **)&p->modules, cap, p->n_modules + 1u, sizeof *p->modules)))
        *st = pk_fail_nomem("reading regions");
    else if (added)
        p->modules[p->n_modules++] = (pk_module){at->value};
    if (f->file < p->n_files && strcmp(p->files[f->file].path, at->value) == 0) f->file = PK_NONE;
    return 1;
}

/* <attr>s, parameters, mirrors and topologies onto their model entities. */
static pk_status attach_attrs(cube_read *r)
{
    pk_status st = PK_OK;
    pk_kmap mods = {0};
    size_t cap = 0;
    for (size_t i = 0; i < r->a.n_attrs && !st; i++) {
        const cube_pattr *at = &r->a.attrs[i];
        switch (at->kind) {
        case CA_PROFILE:
            st = attr(r, PK_ENTITY_PROFILE, 0, at->key, at->value);
            break;
        case CA_METRIC:
            st = attr(r, PK_ENTITY_METRIC, r->mb[at->owner].metric, at->key, at->value);
            break;
        case CA_REGION:
            if (at->owner < r->p->n_functions && !region_address(r, at, &mods, &cap, &st))
                st = attr(r, PK_ENTITY_FUNCTION, at->owner, at->key, at->value);
            break;
        case CA_CNODE:
            st = attr(r, PK_ENTITY_CONTEXT, r->ctx_of[at->owner], at->key, at->value);
            break;
        case CA_LOCATION:
            st = attr(r, PK_ENTITY_LOCATION, r->loc_col[at->owner], at->key, at->value);
            break;
        case CA_GROUP:
            st = group_attr(r, at);
            break;
        }
    }
    pk_kmap_free(&mods);
    if (r->p->modules && pk_model_adopt_owned(r->p, r->p->modules) && !st) st = PK_ERR_NOMEM;
    return st;
}

static pk_status profile_attrs(cube_read *r)
{
    const char *keys[] = {"cube:version", "cube:metrics_title", "cube:program_title",
                          "cube:system_title"};
    const char *vals[] = {r->a.version, r->a.metrics_title, r->a.program_title, r->a.system_title};
    pk_status st = PK_OK;
    for (size_t k = 0; k < 4 && !st; k++)
        st = attr(r, PK_ENTITY_PROFILE, 0, keys[k], vals[k]);
    return st;
}

/* Metrics whose values cannot be decoded are kept, without values. */
static void report_unknown_types(cube_read *r)
{
    for (uint32_t i = 0; i < r->a.n_mdefs; i++) {
        const cube_mdef *m = &r->a.mdefs[i];
        if (r->mb[i].derived || r->mb[i].type.dt != DT_UNKNOWN) continue;
        pk_model_diag(r->p, PK_SEV_WARNING, "unsupported-dtype", r->path, "anchor.xml metric", 0, 0,
                      "metric %s has data type %s, whose value layout profkit does not know; the "
                      "metric is kept without values",
                      m->uniq, m->dtype ? m->dtype : "(none)");
    }
}

pk_status cube_build_model(cube_read *r)
{
    pk_kmap files = {0};
    size_t fcap = 0;
    r->root_cnode = written_root(r);
    pk_status st = profile_attrs(r);
    if (!st) st = build_functions(r, &files, &fcap);
    if (!st) st = build_contexts(r, &files, &fcap);
    if (!st) st = build_metrics(r);
    if (!st) st = build_locations(r);
    if (!st) st = attach_attrs(r);
    pk_kmap_free(&files);
    if (r->p->files && pk_model_adopt_owned(r->p, r->p->files) && !st) st = PK_ERR_NOMEM;
    if (!st) report_unknown_types(r);
    return st;
}
