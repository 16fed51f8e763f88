/*
 * formats/cube/write_system.c — the Cube system tree of any model: one
 * root system-tree node, location groups (processes) and locations.
 *
 * A location read from Cube keeps its own path (system-tree nodes, group,
 * location, with their names, classes and types). Any other location's
 * identifier tuple is split by what each element is, so that tuples of
 * different lengths give one consistent tree (docs/cube.md, "System
 * tree"): NODE elements become system-tree nodes (class "node") under one
 * "machine", the RANK element the location group (a "process"; a tuple
 * without one gets one "process" group per node), and every other
 * element (THREAD, CORE, GPUCONTEXT, GPUSTREAM, PART...) names the
 * location itself: "thread 3", "gpucontext 1 / gpustream 7", of type
 * "gpu" when a GPU element is among them, else "thread". So a rank's CPU
 * threads and GPU streams are siblings in its group, as Score-P writes
 * them. In summary mode (no per-location values) one location, the
 * summary, is written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cw.h"
#include "util/error.h"
#include "util/kmap.h"

enum { KEY_STN = 1, KEY_GROUP = 2, KIND_NONE = 0xffff };

typedef struct sys {
    cube_writer *w;
    pk_kmap map;
    uint32_t machine; /* the one root of role-style paths, CUBE_NONE until made */
} sys;

static const char *attr_of(const pk_profile *p, pk_index l, const char *k)
{
    return pk_attribute_find(p, PK_ENTITY_LOCATION, l, k);
}

static const char *dup(cube_writer *w, const char *s)
{
    return pk_arena_strndup(&w->arena, s, strlen(s));
}

/* "kind logical [0xphysical]" in lower case, or NULL when out of memory. */
static const char *ident_name(cube_writer *w, const pk_ident *id)
{
    char buf[128];
    size_t n = 0;
    for (const char *k = id->kind_name ? id->kind_name : "id"; *k && n < 60; k++)
        buf[n++] = (char)(*k >= 'A' && *k <= 'Z' ? *k + 32 : *k);
    n += (size_t)snprintf(buf + n, sizeof buf - n, " %u", id->logical);
    if (id->flags & PK_ID_PHYSICAL)
        snprintf(buf + n, sizeof buf - n, " [0x%llx]", (unsigned long long)id->physical);
    return dup(w, buf);
}

/* Index of the entry with `key`, made by `make` when new. */
static pk_status find_or_add(sys *s, uint64_t tag, uint32_t parent, const pk_ident *id,
                             uint32_t next, uint32_t *out, int *added)
{
    uint64_t key[PK_KMAP_WORDS] = {tag, parent, id ? id->kind : KIND_NONE, id ? id->logical : 0,
                                   id ? id->physical : 0};
    if (pk_kmap_upsert(&s->map, key, next, out, added))
        return pk_fail_nomem("planning the system tree");
    return PK_OK;
}

static pk_status stn(sys *s, uint32_t parent, const pk_ident *id, const char *name,
                     const char *klass, uint32_t *out)
{
    cube_writer *w = s->w;
    int added;
    pk_status st = find_or_add(s, KEY_STN, parent, id, w->n_stn, out, &added);
    if (!st && added) {
        if (!name || !klass) return pk_fail_nomem("planning the system tree");
        w->stn[w->n_stn++] = (cw_stn){parent, name, klass};
    }
    return st;
}

static pk_status group(sys *s, uint32_t at, const pk_ident *id, const char *name, const char *type,
                       pk_index l, uint32_t *out)
{
    cube_writer *w = s->w;
    int added;
    pk_status st = find_or_add(s, KEY_GROUP, at, id, w->n_grp, out, &added);
    if (!st && added) {
        if (!name || !type) return pk_fail_nomem("planning the system tree");
        uint32_t rank = id ? id->logical : w->n_grp;
        w->grp[w->n_grp++] = (cw_group){at, rank, name, type, l, 0};
    }
    return st;
}

/* The next "cube:node" attribute (class TAB name) of a location from
 * attribute *at on, into *klass and *name when there is one. */
static void next_node(cube_writer *w, size_t *at, size_t end, const char **klass, const char **name)
{
    const pk_profile *p = w->p;
    for (; *at < end; (*at)++) {
        const pk_attr_rec *a = &p->attrs[*at];
        const char *tab = strcmp(a->key, "cube:node") == 0 ? strchr(a->value, '\t') : NULL;
        if (!tab) continue;
        *klass = pk_arena_strndup(&w->arena, a->value, (size_t)(tab - a->value));
        *name = tab + 1;
        (*at)++;
        return;
    }
}

static void add_location(cube_writer *w, cw_loc loc)
{
    if (!loc.name) loc.name = "thread"; /* an arena copy failed: the plan is dropped anyway */
    w->grp[loc.group].n_locs++;
    w->loc[w->n_loc++] = loc;
}

/* A location read from Cube: its system-tree path as it was. */
static pk_status cube_location(sys *s, pk_index l)
{
    cube_writer *w = s->w;
    const pk_profile *p = w->p;
    const pk_loc_rec *L = &p->locs[l];
    uint32_t n = L->n_ids, parent = CUBE_NONE, g;
    size_t at, na;
    pk_attribute_range(p, PK_ENTITY_LOCATION, l, &at, &na);
    size_t end = at + na;
    pk_status st = PK_OK;
    for (uint32_t i = 0; i + 2 < n && !st; i++) {
        const char *klass = "machine", *name = ident_name(w, &L->ids[i]);
        next_node(w, &at, end, &klass, &name);
        st = stn(s, parent, &L->ids[i], name, klass, &parent);
    }
    if (!st && parent == CUBE_NONE) st = stn(s, CUBE_NONE, NULL, "machine", "machine", &parent);
    const pk_ident *gid = n >= 2 ? &L->ids[n - 2] : NULL, *lid = n >= 1 ? &L->ids[n - 1] : NULL;
    const char *gn = attr_of(p, l, "cube:group"), *gt = attr_of(p, l, "cube:group_type");
    if (!st)
        st = group(s, parent, gid,
                   gn    ? gn
                   : gid ? ident_name(w, gid)
                         : "process",
                   gt ? gt : "process", l, &g);
    const char *ln = attr_of(p, l, "cube:name"), *lt = attr_of(p, l, "cube:type");
    if (!st)
        add_location(w, (cw_loc){l, g, lid ? lid->logical : w->grp[g].n_locs,
                                 ln    ? ln
                                 : lid ? ident_name(w, lid)
                                       : "thread",
                                 lt ? lt : "thread", 1});
    return st;
}

static int kind_is(const pk_ident *id, const char *name)
{
    return id->kind_name && strcmp(id->kind_name, name) == 0;
}

static int names_location(const pk_ident *id)
{
    return !kind_is(id, "NODE") && !kind_is(id, "RANK");
}

/* The elements that name the location itself, joined: "gpucontext 1 /
 * gpustream 7"; "" when there are none (then the group names it), NULL
 * when out of memory. */
static const char *location_name(cube_writer *w, const pk_loc_rec *L, int *gpu)
{
    const char *parts[64];
    size_t len = 0, n = 0;
    *gpu = 0;
    for (uint32_t i = 0; i < L->n_ids && n < 64; i++) {
        const pk_ident *id = &L->ids[i];
        if (!names_location(id)) continue;
        *gpu |= id->kind_name && strncmp(id->kind_name, "GPU", 3) == 0;
        if (!(parts[n] = ident_name(w, id))) return NULL;
        len += strlen(parts[n++]) + 3;
    }
    char *name = pk_arena_alloc(&w->arena, len + 1);
    if (!name) return NULL;
    for (size_t k = 0, at = 0; k < n; k++) {
        size_t m = strlen(parts[k]);
        if (k) memcpy(name + at, " / ", 3), at += 3;
        memcpy(name + at, parts[k], m + 1), at += m;
    }
    return name;
}

/* Any other location: by what each element of its tuple is. */
static pk_status role_location(sys *s, pk_index l)
{
    cube_writer *w = s->w;
    const pk_loc_rec *L = &w->p->locs[l];
    uint32_t at, g;
    pk_status st = PK_OK;
    if (s->machine == CUBE_NONE) {
        static const pk_ident machine = {KIND_NONE - 1, NULL, 0, 0, 0};
        st = stn(s, CUBE_NONE, &machine, "machine", "machine", &s->machine);
    }
    at = s->machine;
    const pk_ident *rank = NULL;
    for (uint32_t i = 0; i < L->n_ids && !st; i++) {
        if (kind_is(&L->ids[i], "NODE"))
            st = stn(s, at, &L->ids[i], ident_name(w, &L->ids[i]), "node", &at);
        else if (kind_is(&L->ids[i], "RANK"))
            rank = &L->ids[i];
    }
    if (!st) st = group(s, at, rank, rank ? ident_name(w, rank) : "process", "process", l, &g);
    int gpu = 0;
    const char *name = st ? NULL : location_name(w, L, &gpu);
    if (!st && !name) st = pk_fail_nomem("planning the system tree");
    if (!st)
        add_location(w, (cw_loc){l, g, w->grp[g].n_locs, *name ? name : w->grp[g].name,
                                 gpu ? "gpu" : "thread", 0});
    return st;
}

/* Summary mode: the summary location is the one location written. */
static pk_status summary_location(sys *s)
{
    cube_writer *w = s->w;
    uint32_t at, g, n_plain = 0;
    for (uint32_t l = 0; l < w->p->n_locs; l++)
        n_plain += !w->p->locs[l].is_summary;
    char name[96];
    snprintf(name, sizeof name, "summary of %u locations", n_plain);
    pk_status st = stn(s, CUBE_NONE, NULL, "machine", "machine", &at);
    if (!st) st = group(s, at, NULL, "summary", "process", w->sum_loc, &g);
    const char *n = st ? NULL : dup(w, name);
    if (!st && !n) st = pk_fail_nomem("planning the system tree");
    if (!st) add_location(w, (cw_loc){w->sum_loc, g, 0, n, "thread", 0});
    return st;
}

/* Several root system-tree nodes (locations of several machines, or of
 * both kinds): one "machine" above them all, as pycubexr needs one root. */
static void one_root(cube_writer *w)
{
    uint32_t roots = 0;
    for (uint32_t i = 0; i < w->n_stn; i++)
        roots += w->stn[i].parent == CUBE_NONE;
    if (roots <= 1) return;
    for (uint32_t i = 0; i < w->n_stn; i++)
        w->stn[i].parent = w->stn[i].parent == CUBE_NONE ? w->n_stn : w->stn[i].parent;
    w->stn[w->n_stn++] = (cw_stn){CUBE_NONE, "machines", "machine"};
}

/* Renumber system-tree nodes and groups in the order anchor.xml lists
 * them (a node's groups before its child nodes: CubeLib's grammar).
 * Locations keep their Ids, the model's order: data columns are in
 * location Id order, which need not be the document's (Cube files list a
 * process's threads together, Ids 0, 2, 4... under rank 0). */
static pk_status document_order(cube_writer *w)
{
    uint32_t ns = w->n_stn, ng = w->n_grp, nl = w->n_loc;
    uint32_t *first = malloc(((size_t)ns + ng + 1) * 3 * sizeof *first);
    uint32_t *next = first + ns + ng + 1, *stack = next + ns + ng + 1;
    cw_stn *stn = malloc(((size_t)ns + 1) * sizeof *stn);
    cw_group *grp = malloc(((size_t)ng + 1) * sizeof *grp);
    uint32_t *sid = malloc(((size_t)ns + ng + 1) * sizeof *sid), *gid = sid + ns;
    pk_status st = first && stn && grp && sid ? PK_OK : pk_fail_nomem("ordering the system tree");
    if (!st) {
        /* children lists (groups first, then nodes, each in planning order) */
        for (uint32_t i = 0; i < ns; i++)
            first[i] = CUBE_NONE;
        for (uint32_t i = ns; i-- > 0;)
            if (w->stn[i].parent != CUBE_NONE)
                next[i] = first[w->stn[i].parent], first[w->stn[i].parent] = i;
        for (uint32_t g = ng; g-- > 0;)
            next[ns + g] = first[w->grp[g].stn], first[w->grp[g].stn] = ns + g;
        uint32_t n_s = 0, n_g = 0, sp = 0;
        for (uint32_t r = ns; r-- > 0;)
            if (w->stn[r].parent == CUBE_NONE) stack[sp++] = r;
        while (sp) { /* pre-order; a node's entries in list order */
            uint32_t v = stack[--sp];
            if (v >= ns) {
                gid[v - ns] = n_g, grp[n_g] = w->grp[v - ns],
                        grp[n_g++].stn = sid[w->grp[v - ns].stn];
                continue;
            }
            sid[v] = n_s, stn[n_s] = w->stn[v];
            stn[n_s++].parent = w->stn[v].parent == CUBE_NONE ? CUBE_NONE : sid[w->stn[v].parent];
            uint32_t base = sp;
            for (uint32_t c = first[v]; c != CUBE_NONE; c = next[c])
                stack[sp++] = c;
            for (uint32_t i = base, j = sp; i + 1 < j; i++, j--) {
                uint32_t t = stack[i];
                stack[i] = stack[j - 1], stack[j - 1] = t;
            }
        }
        for (uint32_t i = 0; i < nl; i++) /* locations keep their order: it is the data's */
            w->loc[i].group = gid[w->loc[i].group];
    }
    if (!st) memcpy(w->stn, stn, ns * sizeof *stn), memcpy(w->grp, grp, ng * sizeof *grp);
    free(first), free(stn), free(grp), free(sid);
    return st;
}

pk_status cw_plan_system(cube_writer *w)
{
    const pk_profile *p = w->p;
    size_t n = p->n_locs, levels = 3;
    for (size_t l = 0; l < n; l++)
        levels += p->locs[l].n_ids + 1;
    w->stn = calloc(levels + 1, sizeof *w->stn);
    w->grp = calloc(n + 2, sizeof *w->grp);
    w->loc = calloc(n + 2, sizeof *w->loc);
    if (!w->stn || !w->grp || !w->loc) return pk_fail_nomem("planning the system tree");
    sys s = {.w = w, .machine = CUBE_NONE};
    pk_status st = PK_OK;
    if (w->summary) st = summary_location(&s);
    for (pk_index l = 0; l < n && !st && !w->summary; l++) {
        if (p->locs[l].is_summary) continue;
        int cube = attr_of(p, l, "cube:group_type") || attr_of(p, l, "cube:node");
        st = cube ? cube_location(&s, l) : role_location(&s, l);
    }
    if (!st && !w->n_loc) { /* nothing to write: Cube still needs one location */
        uint32_t at, g;
        st = stn(&s, CUBE_NONE, NULL, "machine", "machine", &at);
        if (!st) st = group(&s, at, NULL, "process", "process", PK_NONE, &g);
        if (!st) add_location(w, (cw_loc){PK_NONE, g, 0, "thread 0", "thread", 0});
    }
    if (!st) one_root(w);
    if (!st) st = document_order(w);
    pk_kmap_free(&s.map);
    return st;
}
