/*
 * formats/cube/anchor.c — parsing anchor.xml with expat into a
 * cube_anchor: the nested metric tree, regions, the nested call tree with
 * parameters, the system tree in both its 4.x form
 * (systemtreenode/locationgroup/location) and the Cube 3 form
 * (machine/node/process/thread), cartesian topologies and <attr>s.
 * Element names follow CubeLib's own scanner (Cube4Scanner.ll), which
 * also accepts "Id" and "id" alike.
 */
#include <expat.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchor.h"
#include "util/error.h"
#include "util/vec.h"

/* What an open element is, as far as the parser cares. */
enum {
    E_OTHER,
    E_CUBE,
    E_METRIC,
    E_REGION,
    E_CNODE,
    E_STN,
    E_GROUP,
    E_LOC,
    E_CART,
    E_LEAF,
};

typedef struct frame {
    int kind;
    uint32_t index; /* of the object this element created */
} frame;

typedef struct parser {
    pk_profile *p;
    const char *file;
    uint64_t offset;
    XML_Parser xp;
    cube_anchor *a;
    frame *stack;
    size_t depth, cap;
    char *text;
    size_t text_len, text_cap;
    uint32_t n_carts;
    pk_status st;
} parser;

static const char *attr_of(const XML_Char **atts, const char *name)
{
    for (size_t i = 0; atts[i]; i += 2)
        if (strcmp(atts[i], name) == 0) return atts[i + 1];
    return NULL;
}

/* "id" or "Id", as CubeLib accepts both. */
static const char *id_of(const XML_Char **atts)
{
    const char *v = attr_of(atts, "id");
    return v ? v : attr_of(atts, "Id");
}

static pk_status fail_here(parser *ps, const char *fmt, const char *arg)
{
    if (ps->st) return ps->st;
    char msg[512];
    snprintf(msg, sizeof msg, fmt, arg ? arg : "");
    ps->st =
        pk_fail(PK_ERR_FORMAT, "%s: anchor.xml line %lu (byte %llu of the archive): %s", ps->file,
                (unsigned long)XML_GetCurrentLineNumber(ps->xp),
                (unsigned long long)(ps->offset + (uint64_t)XML_GetCurrentByteIndex(ps->xp)), msg);
    XML_StopParser(ps->xp, XML_FALSE);
    return ps->st;
}

/* A non-negative decimal id that fits 32 bits; 0 if malformed. */
static int parse_id(const char *s, uint32_t *out)
{
    uint64_t v = 0;
    if (!s || !*s) return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 0xfffffffeu) return 0;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    if (v > 0xfffffffeu) return 0;
    *out = (uint32_t)v;
    return 1;
}

static const char *intern(parser *ps, const char *s)
{
    if (!s) return NULL;
    const char *r = pk_intern_cstr(&ps->p->strings, s);
    if (!r && !ps->st) {
        ps->st = pk_fail_nomem("reading anchor.xml");
        XML_StopParser(ps->xp, XML_FALSE);
    }
    return r;
}

/* Grow one of the anchor's arrays by one element; NULL on failure. */
static void *grow(parser *ps, void **arr, size_t *n, size_t *cap, size_t elem)
{
    if (pk_vec_reserve(arr, cap, *n + 1, elem)) {
        if (!ps->st) ps->st = pk_fail_nomem("reading anchor.xml");
        XML_StopParser(ps->xp, XML_FALSE);
        return NULL;
    }
    void *e = (char *)*arr + (*n)++ * elem;
    memset(e, 0, elem);
    return e;
}
#define GROW(ps, field)                                                                            \
    grow(ps, (void **)&(ps)->a->field, &(ps)->a->n_##field, &(ps)->a->cap_##field,                 \
         sizeof *(ps)->a->field)

static void add_attr(parser *ps, uint32_t kind, uint32_t owner, const char *key, const char *val)
{
    const char *k = intern(ps, key), *v = intern(ps, val ? val : "");
    cube_pattr *at = k && v ? GROW(ps, attrs) : NULL;
    if (at) *at = (cube_pattr){kind, owner, k, v};
}

/* The innermost open element of kind `kind` (its object index), or NONE. */
static uint32_t enclosing(const parser *ps, int kind)
{
    for (size_t i = ps->depth; i-- > 0;)
        if (ps->stack[i].kind == kind) return ps->stack[i].index;
    return CUBE_NONE;
}

static const frame *top(const parser *ps)
{
    return ps->depth ? &ps->stack[ps->depth - 1] : NULL;
}

static void start_metric(parser *ps, const XML_Char **atts)
{
    uint32_t parent = enclosing(ps, E_METRIC);
    cube_mdef *m = GROW(ps, mdefs);
    if (!m) return;
    m->parent = parent;
    m->has_id = parse_id(id_of(atts), &m->id);
    if (!m->has_id) fail_here(ps, "a <metric> without a valid id attribute", NULL);
    const char *type = attr_of(atts, "type");
    /* Cube 4.0 child metrics carry no type: they take their parent's. */
    if (!type && parent != CUBE_NONE) type = ps->a->mdefs[parent].type;
    m->type = intern(ps, type ? type : "EXCLUSIVE");
    m->viztype = intern(ps, attr_of(atts, "viztype"));
    m->convertible = intern(ps, attr_of(atts, "convertible"));
    m->cacheable = intern(ps, attr_of(atts, "cacheable"));
}

static void start_region(parser *ps, const XML_Char **atts)
{
    cube_region *r = GROW(ps, regions);
    if (!r) return;
    r->has_id = parse_id(id_of(atts), &r->id);
    if (!r->has_id) fail_here(ps, "a <region> without a valid id attribute", NULL);
    r->mod = intern(ps, attr_of(atts, "mod"));
    r->begin = intern(ps, attr_of(atts, "begin"));
    r->end = intern(ps, attr_of(atts, "end"));
}

static void start_cnode(parser *ps, const XML_Char **atts)
{
    uint32_t parent = enclosing(ps, E_CNODE);
    cube_cnode *c = GROW(ps, cnodes);
    if (!c) return;
    c->parent = parent;
    c->has_id = parse_id(id_of(atts), &c->id);
    c->has_callee = parse_id(attr_of(atts, "calleeId"), &c->callee);
    if (!c->has_id || !c->has_callee)
        fail_here(ps, "a <cnode> without a valid id or calleeId attribute", NULL);
    c->mod = intern(ps, attr_of(atts, "mod"));
    c->line = intern(ps, attr_of(atts, "line"));
}

static void start_stn(parser *ps, const char *klass)
{
    uint32_t parent = enclosing(ps, E_STN);
    cube_stn *s = GROW(ps, stns);
    if (!s) return;
    s->parent = parent;
    s->klass = klass ? intern(ps, klass) : NULL;
}

static void start_sysres(parser *ps, const XML_Char **atts, int is_group, const char *type)
{
    uint32_t parent = enclosing(ps, is_group ? E_STN : E_GROUP);
    cube_sysres *r = is_group ? GROW(ps, groups) : GROW(ps, locs);
    if (!r) return;
    r->parent = parent;
    r->has_id = parse_id(id_of(atts), &r->id);
    if (!r->has_id) fail_here(ps, "a system resource without a valid Id attribute", NULL);
    if (parent == CUBE_NONE)
        fail_here(ps,
                  is_group ? "a location group outside any system tree node"
                           : "a location outside any location group",
                  NULL);
    r->type = type ? intern(ps, type) : NULL;
}

static void start_topology(parser *ps, const char *el, const XML_Char **atts)
{
    char buf[1024];
    if (strcmp(el, "cart") == 0) {
        const char *name = attr_of(atts, "name"), *nd = attr_of(atts, "ndims");
        snprintf(buf, sizeof buf, "%s\t%s", nd ? nd : "", name ? name : "");
        add_attr(ps, CA_PROFILE, 0, "cube:cart", buf);
        ps->n_carts++;
    } else if (strcmp(el, "dim") == 0 && ps->n_carts) {
        const char *name = attr_of(atts, "name"), *size = attr_of(atts, "size"),
                   *per = attr_of(atts, "periodic");
        snprintf(buf, sizeof buf, "%u\t%s\t%s\t%s", ps->n_carts - 1, size ? size : "",
                 per ? per : "", name ? name : "");
        add_attr(ps, CA_PROFILE, 0, "cube:cart_dim", buf);
    }
}

/* Which kind of frame an element opens, creating its object. */
static int open_element(parser *ps, const char *el, const XML_Char **atts)
{
    if (strcmp(el, "metric") == 0) return start_metric(ps, atts), E_METRIC;
    if (strcmp(el, "cnode") == 0) return start_cnode(ps, atts), E_CNODE;
    if (strcmp(el, "region") == 0) return start_region(ps, atts), E_REGION;
    if (strcmp(el, "systemtreenode") == 0) return start_stn(ps, NULL), E_STN;
    if (strcmp(el, "machine") == 0 || strcmp(el, "node") == 0) {
        ps->a->cube3_system = 1;
        return start_stn(ps, el), E_STN;
    }
    if (strcmp(el, "locationgroup") == 0) return start_sysres(ps, atts, 1, NULL), E_GROUP;
    if (strcmp(el, "process") == 0) return start_sysres(ps, atts, 1, "process"), E_GROUP;
    if (strcmp(el, "location") == 0) return start_sysres(ps, atts, 0, NULL), E_LOC;
    if (strcmp(el, "thread") == 0) return start_sysres(ps, atts, 0, "thread"), E_LOC;
    if (strcmp(el, "cube") == 0) {
        ps->a->version = intern(ps, attr_of(atts, "version"));
        return E_CUBE;
    }
    return E_OTHER;
}

static void attr_element(parser *ps, const XML_Char **atts)
{
    const char *key = attr_of(atts, "key"), *val = attr_of(atts, "value");
    const frame *f = top(ps);
    if (!key || !f) return;
    static const int owner_of[] = {
        [E_CUBE] = CA_PROFILE + 1, [E_METRIC] = CA_METRIC + 1, [E_REGION] = CA_REGION + 1,
        [E_CNODE] = CA_CNODE + 1,  [E_GROUP] = CA_GROUP + 1,   [E_LOC] = CA_LOCATION + 1};
    int kind = f->kind < (int)(sizeof owner_of / sizeof *owner_of) ? owner_of[f->kind] : 0;
    if (!kind) return; /* attributes of system tree nodes are not kept */
    char k[600];
    snprintf(k, sizeof k, "attr:%s", key);
    add_attr(ps, (uint32_t)kind - 1, f->index, k, val);
}

static void param_element(parser *ps, const XML_Char **atts)
{
    const frame *f = top(ps);
    const char *type = attr_of(atts, "partype"), *key = attr_of(atts, "parkey");
    if (!f || f->kind != E_CNODE || !key) return;
    char k[600];
    snprintf(k, sizeof k, "cube:param:%s:%s", type ? type : "string", key);
    add_attr(ps, CA_CNODE, f->index, k, attr_of(atts, "parvalue"));
}

static void coord_element(parser *ps, const XML_Char **atts)
{
    if (!ps->n_carts || !atts[0]) return;
    char buf[256];
    snprintf(buf, sizeof buf, "%u\t%s\t%s", ps->n_carts - 1, atts[0], atts[1]);
    add_attr(ps, CA_PROFILE, 0, "cube:cart_coord", buf); /* text appended at the end tag */
}

static void XMLCALL on_start(void *user, const XML_Char *el, const XML_Char **atts)
{
    parser *ps = user;
    if (ps->st) return;
    ps->text_len = 0;
    if (pk_vec_reserve((void **)&ps->stack, &ps->cap, ps->depth + 1, sizeof *ps->stack)) {
        ps->st = pk_fail_nomem("reading anchor.xml");
        XML_StopParser(ps->xp, XML_FALSE);
        return;
    }
    if (strcmp(el, "attr") == 0) attr_element(ps, atts);
    if (strcmp(el, "parameter") == 0) param_element(ps, atts);
    if (strcmp(el, "coord") == 0) coord_element(ps, atts);
    if (strcmp(el, "cart") == 0 || strcmp(el, "dim") == 0) start_topology(ps, el, atts);
    if (strcmp(el, "cubeplaggr") == 0 && top(ps) && top(ps)->kind == E_METRIC) {
        const char *t = attr_of(atts, "cubeplaggrtype");
        char k[128];
        snprintf(k, sizeof k, "cube:cubeplaggr:%s", t ? t : "plus");
        add_attr(ps, CA_METRIC, top(ps)->index, k, NULL); /* text set at the end tag */
    }
    if (strcmp(el, "metrics") == 0 || strcmp(el, "program") == 0 || strcmp(el, "system") == 0) {
        const char *t = intern(ps, attr_of(atts, "title"));
        if (el[0] == 'm') ps->a->metrics_title = t;
        if (el[0] == 'p') ps->a->program_title = t;
        if (el[0] == 's') ps->a->system_title = t;
    }
    int kind = open_element(ps, el, atts);
    uint32_t index = 0;
    if (kind == E_METRIC) index = (uint32_t)ps->a->n_mdefs - 1;
    if (kind == E_REGION) index = (uint32_t)ps->a->n_regions - 1;
    if (kind == E_CNODE) index = (uint32_t)ps->a->n_cnodes - 1;
    if (kind == E_STN) index = (uint32_t)ps->a->n_stns - 1;
    if (kind == E_GROUP) index = (uint32_t)ps->a->n_groups - 1;
    if (kind == E_LOC) index = (uint32_t)ps->a->n_locs - 1;
    ps->stack[ps->depth++] = (frame){kind, index};
}

static void XMLCALL on_text(void *user, const XML_Char *s, int len)
{
    parser *ps = user;
    /* blanks before an element's text are dropped (element_text trims
     * them anyway): between elements they would pile up, 100 MiB of them
     * in a padded anchor, a copy of what inflating already held */
    while (ps->text_len == 0 && len > 0 && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
        s++, len--;
    if (ps->st || len <= 0) return;
    if (pk_vec_reserve((void **)&ps->text, &ps->text_cap, ps->text_len + (size_t)len + 1, 1)) {
        ps->st = pk_fail_nomem("reading anchor.xml");
        XML_StopParser(ps->xp, XML_FALSE);
        return;
    }
    memcpy(ps->text + ps->text_len, s, (size_t)len);
    ps->text_len += (size_t)len;
}

/* The text of the element just closed, without surrounding blanks. */
static const char *element_text(parser *ps)
{
    if (!ps->text) return intern(ps, "");
    ps->text[ps->text_len] = 0;
    char *s = ps->text, *e = ps->text + ps->text_len;
    while (s < e && (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r'))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    *e = 0;
    return intern(ps, s);
}

static void metric_text(parser *ps, cube_mdef *m, const char *el, const char *t)
{
    static const struct {
        const char *name;
        size_t off;
    } fields[] = {{"disp_name", offsetof(cube_mdef, disp)},
                  {"uniq_name", offsetof(cube_mdef, uniq)},
                  {"dtype", offsetof(cube_mdef, dtype)},
                  {"uom", offsetof(cube_mdef, uom)},
                  {"val", offsetof(cube_mdef, val)},
                  {"url", offsetof(cube_mdef, url)},
                  {"descr", offsetof(cube_mdef, descr)},
                  {"cubepl", offsetof(cube_mdef, cubepl)},
                  {"cubeplinit", offsetof(cube_mdef, cubeplinit)}};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        if (strcmp(el, fields[i].name) == 0) *(const char **)((char *)m + fields[i].off) = t;
    if (strcmp(el, "cubeplaggr") == 0 && ps->a->n_attrs) ps->a->attrs[ps->a->n_attrs - 1].value = t;
}

static void region_text(cube_region *r, const char *el, const char *t)
{
    if (strcmp(el, "name") == 0) r->name = t;
    if (strcmp(el, "mangled_name") == 0) r->mangled = t;
    if (strcmp(el, "paradigm") == 0) r->paradigm = t;
    if (strcmp(el, "role") == 0) r->role = t;
    if (strcmp(el, "url") == 0) r->url = t;
    if (strcmp(el, "descr") == 0) r->descr = t;
}

static void sysres_text(cube_sysres *r, const char *el, const char *t)
{
    if (strcmp(el, "name") == 0) r->name = t;
    if (strcmp(el, "type") == 0) r->type = t;
    if (strcmp(el, "rank") == 0) r->rank = t;
}

static void coord_text(parser *ps, const char *t)
{
    cube_pattr *at = ps->a->n_attrs ? &ps->a->attrs[ps->a->n_attrs - 1] : NULL;
    if (!at || strcmp(at->key, "cube:cart_coord") != 0) return;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s\t%s", at->value, t);
    at->value = intern(ps, buf);
}

static void XMLCALL on_end(void *user, const XML_Char *el)
{
    parser *ps = user;
    if (ps->st || !ps->depth) return;
    ps->depth--;
    const frame *f = top(ps); /* the element enclosing the one that ends */
    if (!f || ps->stack[ps->depth].kind != E_OTHER) return;
    const char *t = element_text(ps);
    cube_anchor *a = ps->a;
    if (!t) return;
    if (f->kind == E_METRIC) metric_text(ps, &a->mdefs[f->index], el, t);
    if (f->kind == E_REGION) region_text(&a->regions[f->index], el, t);
    if (f->kind == E_GROUP) sysres_text(&a->groups[f->index], el, t);
    if (f->kind == E_LOC) sysres_text(&a->locs[f->index], el, t);
    if (f->kind == E_STN) {
        cube_stn *s = &a->stns[f->index];
        if (strcmp(el, "name") == 0) s->name = t;
        if (strcmp(el, "class") == 0) s->klass = t;
        if (strcmp(el, "descr") == 0) s->descr = t;
    }
    if (strcmp(el, "murl") == 0) add_attr(ps, CA_PROFILE, 0, "cube:mirror", t);
    if (strcmp(el, "coord") == 0) coord_text(ps, t);
    ps->text_len = 0;
}

/* Entity declarations are refused: a real anchor.xml has none, and
 * refusing them closes the door on entity-expansion bombs. */
static void XMLCALL on_entity_decl(void *user, const XML_Char *name, int is_param,
                                   const XML_Char *value, int value_len, const XML_Char *base,
                                   const XML_Char *system_id, const XML_Char *public_id,
                                   const XML_Char *notation)
{
    (void)is_param, (void)value, (void)value_len, (void)base, (void)system_id;
    (void)public_id, (void)notation;
    fail_here(user, "entity declarations (<!ENTITY %s ...>) are not allowed in anchor.xml", name);
}

pk_status cube_anchor_parse(pk_profile *p, const char *file, uint64_t offset,
                            const unsigned char *d, uint64_t n, cube_anchor *out)
{
    memset(out, 0, sizeof *out);
    parser ps = {.p = p, .file = file, .offset = offset, .a = out};
    ps.xp = XML_ParserCreate(NULL);
    if (!ps.xp) return pk_fail_nomem("creating the XML parser");
    XML_SetUserData(ps.xp, &ps);
    XML_SetElementHandler(ps.xp, on_start, on_end);
    XML_SetCharacterDataHandler(ps.xp, on_text);
    XML_SetEntityDeclHandler(ps.xp, on_entity_decl);
    uint64_t done = 0;
    /* a MiB at a time: expat copies what it is given into its own buffer,
     * so a whole inflated anchor passed at once was held twice */
    while (!ps.st) {
        int chunk = n - done > (1u << 20) ? (1 << 20) : (int)(n - done);
        int last = done + (uint64_t)chunk == n;
        if (XML_Parse(ps.xp, (const char *)d + done, chunk, last) == XML_STATUS_ERROR && !ps.st)
            ps.st = pk_fail(PK_ERR_FORMAT, "%s: anchor.xml line %lu (byte %llu of the archive): %s",
                            file, (unsigned long)XML_GetCurrentLineNumber(ps.xp),
                            (unsigned long long)(offset + (uint64_t)XML_GetCurrentByteIndex(ps.xp)),
                            XML_ErrorString(XML_GetErrorCode(ps.xp)));
        done += (uint64_t)chunk;
        if (last) break;
    }
    XML_ParserFree(ps.xp);
    free(ps.stack);
    free(ps.text);
    if (ps.st) cube_anchor_free(out);
    return ps.st;
}

void cube_anchor_free(cube_anchor *a)
{
    free(a->mdefs), free(a->regions), free(a->cnodes), free(a->stns);
    free(a->groups), free(a->locs), free(a->attrs);
    memset(a, 0, sizeof *a);
}
