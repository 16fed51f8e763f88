/*
 * formats/cube/write_plan.c — deciding how any model becomes a Cube:
 * function and entry contexts become cnodes (lines, loops and instructions
 * fold into their function's cnode, whose attributes record how many),
 * model metrics become Cube metrics with their stored scope (the Cube
 * metric type), locations become a system tree built from their
 * identifier tuples (or, for a model read from Cube, the names it kept).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cw.h"
#include "util/error.h"
#include "util/kmap.h"

static const char *attr_of(const pk_profile *p, pk_entity e, pk_index i, const char *k)
{
    return pk_attribute_find(p, e, i, k);
}

static uint32_t entry_region(cube_writer *w, const char *name)
{
    for (uint32_t i = 0; i < w->n_entry_regions; i++)
        if (strcmp(w->entry_regions[i], name) == 0) return (uint32_t)w->p->n_functions + i;
    w->entry_regions[w->n_entry_regions] = name;
    return (uint32_t)w->p->n_functions + w->n_entry_regions++;
}

/* One context in pre-order: a cnode of its own, or folded into one. */
static void plan_context(cube_writer *w, pk_index c)
{
    const pk_ctx_rec *x = &w->p->ctx[c];
    uint32_t up = x->parent == PK_NONE ? CUBE_NONE : w->cnode_of[x->parent];
    int own = (x->kind == PK_CTX_FUNCTION && x->function != PK_NONE) || x->kind == PK_CTX_ENTRY;
    if (!own) {
        w->cnode_of[c] = up;
        if (up != CUBE_NONE) w->cn[up].n_folded++;
        return;
    }
    if (x->parent == PK_NONE && c != 0) { /* unlisted: its ancestors are unknown */
        w->cnode_of[c] = CUBE_NONE;
        return;
    }
    uint32_t region = x->kind == PK_CTX_ENTRY
                          ? entry_region(w, x->entry_name ? x->entry_name : "<entry>")
                          : x->function;
    w->cnode_of[c] = w->n_cn;
    w->cn[w->n_cn++] = (cw_cnode){c, up, region, 0};
}

/* Cnodes numbered in pre-order, so EXCLUSIVE rows are cnode ids. */
static pk_status plan_cnodes(cube_writer *w)
{
    const pk_profile *p = w->p;
    uint32_t n = p->n_ctx;
    uint32_t *stack = malloc(((size_t)n + 1) * sizeof *stack);
    w->cnode_of = malloc(((size_t)n + 1) * sizeof *w->cnode_of);
    w->cn = malloc(((size_t)n + 1) * sizeof *w->cn);
    w->entry_regions = malloc(((size_t)n + 1) * sizeof *w->entry_regions);
    if (!stack || !w->cnode_of || !w->cn || !w->entry_regions) {
        free(stack);
        return pk_fail_nomem("planning the Cube call tree");
    }
    for (uint32_t i = 0; i < n; i++)
        w->cnode_of[i] = CUBE_NONE;
    size_t sp = 0;
    for (uint32_t i = 0; i < n; i++) /* the tree from the root, then unlisted contexts */
        if (p->ctx[i].parent == PK_NONE) stack[sp++] = i;
    for (size_t a = 0, b = sp; a + 1 < b; a++, b--) { /* root first */
        uint32_t t = stack[a];
        stack[a] = stack[b - 1], stack[b - 1] = t;
    }
    while (sp) {
        uint32_t c = stack[--sp];
        if (c != 0 || p->ctx[0].kind != PK_CTX_ROOT) plan_context(w, c);
        const pk_ctx_rec *x = &p->ctx[c];
        for (uint32_t k = x->n_children; k-- > 0;)
            stack[sp++] = x->first_child + k;
    }
    free(stack);
    return PK_OK;
}

/* Wide-search order of the cnodes: the row order of INCLUSIVE metrics. */
static pk_status plan_wide(cube_writer *w)
{
    uint32_t n = w->n_cn;
    uint32_t *first = malloc(((size_t)n + 1) * sizeof *first),
             *next = malloc(((size_t)n + 1) * sizeof *next),
             *stack = malloc(((size_t)n + 1) * sizeof *stack);
    w->wide = malloc(((size_t)n + 1) * sizeof *w->wide);
    pk_status st = first && next && stack && w->wide ? PK_OK : pk_fail_nomem("planning rows");
    if (!st) {
        cube_link_children(&w->cn[0].parent, sizeof *w->cn, n, first, next, NULL);
        cube_wide_enumeration(&w->cn[0].parent, sizeof *w->cn, n, first, next, stack, w->wide);
    }
    free(first), free(next), free(stack);
    return st;
}

static int is_component(const pk_profile *p, pk_index m, pk_index main)
{
    return !attr_of(p, PK_ENTITY_METRIC, m, "cube:dtype") &&
           attr_of(p, PK_ENTITY_METRIC, m, "cube:component") && p->metrics[m].parent == main;
}

static int derived_kind(const char *k)
{
    return k && (strcmp(k, "POSTDERIVED") == 0 || strncmp(k, "PREDERIVED", 10) == 0);
}

/* The columns a Cube metric stores and hence its type along the call
 * tree: the file's own when it came from Cube, else inclusive, exclusive
 * or (folded) point values, in that order of preference. */
static void choose_columns(const pk_profile *p, cw_metric *cm, const char *kind)
{
    static const pk_scope_kind pref[] = {PK_SCOPE_INCLUSIVE, PK_SCOPE_EXCLUSIVE, PK_SCOPE_POINT};
    static const char *const names[] = {"INCLUSIVE", "EXCLUSIVE", "EXCLUSIVE"};
    for (uint32_t k = 0; k < cm->n_comp; k++)
        cm->cols[k] = PK_NONE;
    cm->kind = kind ? kind : "EXCLUSIVE";
    if (derived_kind(kind)) return;
    int want = kind && strcmp(kind, "INCLUSIVE") == 0 ? 0 : kind ? 1 : -1;
    for (int s = 0; s < 3; s++) {
        if (want >= 0 && s != want) continue;
        pk_index c;
        if (pk_column_find(p, cm->metric, pref[s], &c)) continue;
        for (uint32_t k = 0; k < cm->n_comp; k++)
            if (pk_column_find(p, cm->metric + k, pref[s], &cm->cols[k])) cm->cols[k] = PK_NONE;
        cm->fold = s == 2;
        if (!kind) cm->kind = names[s];
        return;
    }
}

static pk_status plan_metrics(cube_writer *w)
{
    const pk_profile *p = w->p;
    uint32_t *cube_of = malloc(((size_t)p->n_metrics + 1) * sizeof *cube_of);
    w->m = calloc((size_t)p->n_metrics + 1, sizeof *w->m);
    if (!cube_of || !w->m) {
        free(cube_of);
        return pk_fail_nomem("planning Cube metrics");
    }
    for (pk_index m = 0; m < p->n_metrics;) {
        cw_metric *cm = &w->m[w->n_m];
        const char *dt = attr_of(p, PK_ENTITY_METRIC, m, "cube:dtype");
        cm->metric = m, cm->n_comp = 1;
        while (m + cm->n_comp < p->n_metrics && cm->n_comp < 64 &&
               is_component(p, m + cm->n_comp, m))
            cm->n_comp++;
        cube_dtype t = cube_parse_dtype(dt);
        int kept = dt && t.dt == DT_UNKNOWN && cm->n_comp == 1; /* SCALE_FUNC...: no values */
        if (!kept && (!dt || t.dt == DT_UNKNOWN || t.n_comp != cm->n_comp)) {
            cm->n_comp = 1; /* written as plain doubles */
            pk_combine how = p->metrics[m].combine;
            dt = how == PK_COMBINE_MIN   ? "MINDOUBLE"
                 : how == PK_COMBINE_MAX ? "MAXDOUBLE"
                                         : "DOUBLE";
            t = cube_parse_dtype(dt);
        }
        cm->type = t, cm->dtype = dt;
        pk_index parent = p->metrics[m].parent;
        cm->parent = parent != PK_NONE && parent < m ? cube_of[parent] : CUBE_NONE;
        choose_columns(p, cm, attr_of(p, PK_ENTITY_METRIC, m, "cube:type"));
        for (uint32_t k = 0; k < cm->n_comp; k++)
            cube_of[m + k] = w->n_m;
        m += cm->n_comp;
        w->n_m++;
    }
    free(cube_of);
    return PK_OK;
}

/* "kind logical" as a display name, interned in the profile's strings?
 * The profile is const here, so names live in a writer-owned arena. */
static const char *default_name(pk_arena *a, const pk_ident *id, const char *fallback)
{
    char buf[96];
    const char *k = id && id->kind_name ? id->kind_name : fallback;
    size_t n = 0;
    for (; *k && n < 60; k++)
        buf[n++] = (char)(*k >= 'A' && *k <= 'Z' ? *k + 32 : *k);
    snprintf(buf + n, sizeof buf - n, " %u", id ? id->logical : 0);
    return pk_arena_strndup(a, buf, strlen(buf));
}

/* Lower-case copy of an identifier kind name: the system-tree class. */
static const char *lower_dup(pk_arena *a, const char *s)
{
    if (!s) return "machine";
    char *d = pk_arena_strndup(a, s, strlen(s));
    for (char *c = d; d && *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
    return d ? d : "machine";
}

/* Index of the node (level, parent, ident) in a table, adding it. */
static pk_status node_index(pk_kmap *map, uint64_t level, uint32_t parent, const pk_ident *id,
                            uint32_t next, uint32_t *out, int *added)
{
    uint64_t key[PK_KMAP_WORDS] = {level, parent, id ? id->kind : 0xffff, id ? id->logical : 0};
    if (pk_kmap_upsert(map, key, next, out, added))
        return pk_fail_nomem("planning the system tree");
    return PK_OK;
}

/* The k-th "cube:node" attribute of location l split into class/name. */
static void cube_node(const pk_profile *p, pk_index l, uint32_t k, pk_arena *a, const char **klass,
                      const char **name)
{
    size_t first, n;
    pk_attribute_range(p, PK_ENTITY_LOCATION, l, &first, &n);
    for (size_t i = first; i < first + n; i++) {
        if (strcmp(p->attrs[i].key, "cube:node") != 0 || k--) continue;
        const char *v = p->attrs[i].value, *tab = strchr(v, '\t');
        if (!tab) return;
        *klass = pk_arena_strndup(a, v, (size_t)(tab - v));
        *name = tab + 1;
        return;
    }
}

static pk_status plan_location(cube_writer *w, pk_arena *a, pk_kmap *map, pk_index l)
{
    const pk_profile *p = w->p;
    const pk_loc_rec *L = &p->locs[l];
    uint32_t n = (uint32_t)L->n_ids, n_stn = n >= 3 ? n - 2 : 0, parent = CUBE_NONE, idx;
    int added;
    pk_status st = PK_OK;
    uint32_t levels = n_stn ? n_stn : 1; /* no node levels: one synthetic machine */
    for (uint32_t k = 0; k < levels && !st; k++) {
        const pk_ident *id = n_stn ? &L->ids[k] : NULL;
        st = node_index(map, k, parent, id, w->n_stn, &idx, &added);
        if (!st && added) {
            cw_stn *s = &w->stn[w->n_stn++];
            *s = (cw_stn){parent, id ? id->kind : 0, id ? id->logical : 0,
                          default_name(a, id, "machine"), lower_dup(a, id ? id->kind_name : NULL)};
            cube_node(p, l, k, a, &s->klass, &s->name);
        }
        parent = idx;
    }
    const pk_ident *gid = n >= 2 ? &L->ids[n - 2] : NULL, *lid = n >= 1 ? &L->ids[n - 1] : NULL;
    if (!st) st = node_index(map, 1000, parent, gid, w->n_grp, &idx, &added);
    if (!st && added) {
        const char *gn = attr_of(p, PK_ENTITY_LOCATION, l, "cube:group"),
                   *gt = attr_of(p, PK_ENTITY_LOCATION, l, "cube:group_type");
        w->grp[w->n_grp++] =
            (cw_group){parent, gid ? gid->logical : 0, gid ? gid->kind : 0,
                       gn ? gn : default_name(a, gid, "process"), gt ? gt : "process"};
    }
    const char *ln = attr_of(p, PK_ENTITY_LOCATION, l, "cube:name"),
               *lt = attr_of(p, PK_ENTITY_LOCATION, l, "cube:type");
    if (!st)
        w->loc[w->n_loc++] = (cw_loc){l, idx, lid ? lid->logical : l,
                                      ln ? ln : default_name(a, lid, "thread"), lt ? lt : "thread"};
    return st;
}

static pk_status plan_system(cube_writer *w, pk_arena *a)
{
    const pk_profile *p = w->p;
    size_t n = p->n_locs, levels = 2;
    for (size_t l = 0; l < n; l++)
        levels += p->locs[l].n_ids;
    w->stn = calloc(levels + 1, sizeof *w->stn);
    w->grp = calloc(n + 1, sizeof *w->grp);
    w->loc = calloc(n + 1, sizeof *w->loc);
    if (!w->stn || !w->grp || !w->loc) return pk_fail_nomem("planning the system tree");
    pk_kmap map = {0};
    pk_status st = PK_OK;
    for (pk_index l = 0; l < n && !st; l++)
        if (!p->locs[l].is_summary) st = plan_location(w, a, &map, l);
    pk_kmap_free(&map);
    return st;
}

pk_status cw_plan(cube_writer *w)
{
    pk_status st = plan_cnodes(w);
    if (!st) st = plan_wide(w);
    if (!st) st = plan_metrics(w);
    return st;
}

pk_status cw_plan_system(cube_writer *w, pk_arena *a)
{
    return plan_system(w, a);
}

void cw_free(cube_writer *w)
{
    free(w->m), free(w->cn), free(w->cnode_of), free(w->wide), free(w->entry_regions);
    free(w->stn), free(w->grp), free(w->loc);
}
