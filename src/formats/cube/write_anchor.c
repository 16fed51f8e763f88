/*
 * formats/cube/write_anchor.c — anchor.xml of a planned Cube, in the
 * layout CubeLib 4.8 writes (Cube::writeXML_header, CubeMetric::writeXML,
 * CubeCnode, CubeRegion): attributes and mirrors, the nested metric tree,
 * regions, the nested call tree with parameters, the system tree and
 * topologies. Attributes a Cube reader kept are written back as they were.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cw.h"
#include "util/error.h"

typedef struct xb {
    char *s;
    size_t n, cap;
    int failed;
} xb;

static void put(xb *b, const char *s, size_t n)
{
    if (b->failed) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *t = realloc(b->s, cap);
        if (!t) {
            b->failed = 1;
            return;
        }
        b->s = t, b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

static void PK_PRINTF(2, 3) add(xb *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof tmp)
        put(b, tmp, (size_t)n);
    else
        b->failed = 1;
}

/* Text with XML's special characters escaped; control bytes dropped. */
static void esc(xb *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<':
            put(b, "&lt;", 4);
            break;
        case '>':
            put(b, "&gt;", 4);
            break;
        case '&':
            put(b, "&amp;", 5);
            break;
        case '"':
            put(b, "&quot;", 6);
            break;
        case '\'':
            put(b, "&apos;", 6);
            break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n') put(b, s, 1);
        }
    }
}

static void element(xb *b, int indent, const char *name, const char *text)
{
    add(b, "%*s<%s>", indent, "", name);
    esc(b, text);
    add(b, "</%s>\n", name);
}

static const char *attr(const pk_profile *p, pk_entity e, pk_index i, const char *k)
{
    return pk_attribute_find(p, e, i, k);
}

/* <attr>s of an entity: the "attr:" ones a Cube reader kept, and for
 * other models nothing (their facts are in the model itself). */
static void attrs_of(xb *b, const pk_profile *p, pk_entity e, pk_index i, int indent)
{
    size_t first, n;
    pk_attribute_range(p, e, i, &first, &n);
    for (size_t k = first; k < first + n; k++) {
        if (strncmp(p->attrs[k].key, "attr:", 5) != 0) continue;
        add(b, "%*s<attr key=\"", indent, "");
        esc(b, p->attrs[k].key + 5);
        put(b, "\" value=\"", 9);
        esc(b, p->attrs[k].value);
        put(b, "\"/>\n", 4);
    }
}

static void header(xb *b, const pk_profile *p)
{
    add(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"4.4\">\n");
    attrs_of(b, p, PK_ENTITY_PROFILE, 0, 2);
    add(b, "  <doc>\n    <mirrors>\n");
    size_t first, n;
    pk_attribute_range(p, PK_ENTITY_PROFILE, 0, &first, &n);
    for (size_t k = first; k < first + n; k++)
        if (strcmp(p->attrs[k].key, "cube:mirror") == 0) element(b, 6, "murl", p->attrs[k].value);
    add(b, "    </mirrors>\n  </doc>\n");
}

/* Children lists in CSR form: order[start[p]..start[p+1]) are the items
 * whose parent is p; parent CUBE_NONE counts as n_parents. */
static int csr(const uint32_t *parent, size_t stride, uint32_t n, uint32_t n_parents,
               uint32_t **start, uint32_t **order)
{
    *start = calloc((size_t)n_parents + 3, sizeof **start);
    *order = malloc(((size_t)n + 1) * sizeof **order);
    if (!*start || !*order) return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t par = *(const uint32_t *)((const char *)parent + (size_t)i * stride);
        (*start)[(par == CUBE_NONE ? n_parents : par) + 2]++;
    }
    for (uint32_t i = 0; i <= n_parents; i++)
        (*start)[i + 2] += (*start)[i + 1];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t par = *(const uint32_t *)((const char *)parent + (size_t)i * stride);
        (*order)[(*start)[(par == CUBE_NONE ? n_parents : par) + 1]++] = i;
    }
    return 0;
}

static void metric_open(xb *b, const cube_writer *w, uint32_t i, int ind)
{
    const pk_profile *p = w->p;
    const cw_metric *cm = &w->m[i];
    const pk_metric *md = &p->metrics[cm->metric];
    const char *disp = attr(p, PK_ENTITY_METRIC, cm->metric, "cube:disp_name");
    add(b, "%*s<metric id=\"%u\" type=\"%s\"", ind, "", i, cm->kind);
    const char *opt[] = {"viztype", "convertible", "cacheable"};
    for (int k = 0; k < 3; k++) {
        char key[32];
        snprintf(key, sizeof key, "cube:%s", opt[k]);
        const char *v = attr(p, PK_ENTITY_METRIC, cm->metric, key);
        if (v) add(b, " %s=\"", opt[k]), esc(b, v), put(b, "\"", 1);
    }
    put(b, ">\n", 2);
    element(b, ind + 2, "disp_name", disp ? disp : md->name);
    element(b, ind + 2, "uniq_name", md->name);
    element(b, ind + 2, "dtype", cm->dtype);
    element(b, ind + 2, "uom", md->unit ? md->unit : "");
    const char *val = attr(p, PK_ENTITY_METRIC, cm->metric, "cube:val");
    if (val) element(b, ind + 2, "val", val);
    const char *url = attr(p, PK_ENTITY_METRIC, cm->metric, "cube:url");
    element(b, ind + 2, "url", url ? url : "");
    element(b, ind + 2, "descr", md->description ? md->description : "");
    const char *pl = attr(p, PK_ENTITY_METRIC, cm->metric, "cube:cubepl");
    const char *init = attr(p, PK_ENTITY_METRIC, cm->metric, "cube:cubeplinit");
    if (pl) element(b, ind + 2, "cubepl", pl);
    if (init) element(b, ind + 2, "cubeplinit", init);
    size_t first, n;
    pk_attribute_range(p, PK_ENTITY_METRIC, cm->metric, &first, &n);
    for (size_t k = first; k < first + n; k++)
        if (strncmp(p->attrs[k].key, "cube:cubeplaggr:", 16) == 0) {
            add(b, "%*s<cubeplaggr cubeplaggrtype=\"", ind + 2, "");
            esc(b, p->attrs[k].key + 16);
            put(b, "\">", 2), esc(b, p->attrs[k].value), put(b, "</cubeplaggr>\n", 14);
        }
    attrs_of(b, p, PK_ENTITY_METRIC, cm->metric, ind + 2);
}

/* The metric tree, depth-first with an explicit stack (no recursion on
 * file-controlled depth). */
static int metrics(xb *b, const cube_writer *w)
{
    uint32_t *start, *order, *stack = malloc(((size_t)w->n_m + 1) * 2 * sizeof *stack);
    if (!stack || csr(&w->m[0].parent, sizeof *w->m, w->n_m, w->n_m, &start, &order)) {
        free(stack);
        return -1;
    }
    const char *title = attr(w->p, PK_ENTITY_PROFILE, 0, "cube:metrics_title");
    add(b, "  <metrics");
    if (title) add(b, " title=\""), esc(b, title), put(b, "\"", 1);
    add(b, ">\n");
    size_t sp = 0; /* entries: (metric, next child position) */
    for (uint32_t r = start[w->n_m]; r < start[w->n_m + 1]; r++) {
        stack[0] = order[r], stack[1] = start[order[r]], sp = 1;
        metric_open(b, w, order[r], 4);
        while (sp) {
            uint32_t m = stack[2 * sp - 2], *next = &stack[2 * sp - 1];
            if (*next < start[m + 1]) {
                uint32_t c = order[(*next)++];
                metric_open(b, w, c, 4 + 2 * (int)sp);
                stack[2 * sp] = c, stack[2 * sp + 1] = start[c], sp++;
            } else {
                sp--;
                add(b, "%*s</metric>\n", 4 + 2 * (int)sp, "");
            }
        }
    }
    add(b, "  </metrics>\n");
    free(start), free(order), free(stack);
    return 0;
}

static void region(xb *b, const pk_profile *p, uint32_t id, const char *name, pk_index f)
{
    const pk_function *fn = f != PK_NONE ? &p->functions[f] : NULL;
    const char *mod = fn && fn->file != PK_NONE ? p->files[fn->file].path : "";
    const char *end = fn ? attr(p, PK_ENTITY_FUNCTION, f, "cube:end") : NULL;
    const char *begin = fn ? attr(p, PK_ENTITY_FUNCTION, f, "cube:begin") : NULL;
    add(b, "    <region id=\"%u\" mod=\"", id);
    esc(b, mod);
    if (begin)
        add(b, "\" begin=\""), esc(b, begin);
    else
        add(b, "\" begin=\"%ld", fn && fn->line ? (long)fn->line : -1L);
    add(b, "\" end=\""), esc(b, end ? end : "-1"), put(b, "\">\n", 3);
    element(b, 6, "name", name ? name : "");
    static const char *const opt[] = {"mangled_name", "paradigm", "role"};
    for (int k = 0; k < 3 && fn; k++) {
        char key[32];
        snprintf(key, sizeof key, "cube:%s", opt[k]);
        const char *v = attr(p, PK_ENTITY_FUNCTION, f, key);
        if (v) element(b, 6, opt[k], v);
    }
    const char *url = fn ? attr(p, PK_ENTITY_FUNCTION, f, "cube:url") : NULL;
    const char *descr = fn ? attr(p, PK_ENTITY_FUNCTION, f, "cube:descr") : NULL;
    element(b, 6, "url", url ? url : "");
    element(b, 6, "descr", descr ? descr : "");
    if (fn) attrs_of(b, p, PK_ENTITY_FUNCTION, f, 6);
    add(b, "    </region>\n");
}

static void cnode_open(xb *b, const cube_writer *w, uint32_t i, int ind)
{
    const pk_profile *p = w->p;
    const cw_cnode *c = &w->cn[i];
    const pk_ctx_rec *x = &p->ctx[c->ctx];
    add(b, "%*s<cnode id=\"%u\"", ind, "", i);
    if (x->line) add(b, " line=\"%u\"", x->line);
    if ((x->flags & PK_CTXF_HAS_SRCLOC) && x->file != PK_NONE) {
        add(b, " mod=\"");
        esc(b, p->files[x->file].path);
        put(b, "\"", 1);
    }
    add(b, " calleeId=\"%u\">\n", c->region);
    size_t first, n;
    pk_attribute_range(p, PK_ENTITY_CONTEXT, c->ctx, &first, &n);
    for (size_t k = first; k < first + n; k++) {
        const char *key = p->attrs[k].key;
        if (strncmp(key, "cube:param:", 11) != 0) continue;
        const char *colon = strchr(key + 11, ':');
        if (!colon) continue;
        add(b, "%*s<parameter partype=\"", ind + 2, "");
        put(b, key + 11, (size_t)(colon - key - 11));
        put(b, "\" parkey=\"", 10), esc(b, colon + 1);
        put(b, "\" parvalue=\"", 12), esc(b, p->attrs[k].value), put(b, "\"/>\n", 4);
    }
    attrs_of(b, p, PK_ENTITY_CONTEXT, c->ctx, ind + 2);
    if (c->n_folded)
        add(b, "%*s<attr key=\"profkit folded contexts\" value=\"%u\"/>\n", ind + 2, "",
            c->n_folded);
}

/* Regions (functions, then entry points) and the nested call tree. */
static void program(xb *b, const cube_writer *w)
{
    const pk_profile *p = w->p;
    const char *title = attr(p, PK_ENTITY_PROFILE, 0, "cube:program_title");
    add(b, "  <program");
    if (title) add(b, " title=\""), esc(b, title), put(b, "\"", 1);
    add(b, ">\n");
    for (uint32_t f = 0; f < p->n_functions; f++)
        region(b, p, f, p->functions[f].name, f);
    for (uint32_t e = 0; e < w->n_entry_regions; e++)
        region(b, p, p->n_functions + e, w->entry_regions[e], PK_NONE);
    uint32_t depth = 0, *open = malloc(((size_t)w->n_cn + 1) * sizeof *open);
    if (!open) {
        b->failed = 1;
        return;
    }
    for (uint32_t i = 0; i < w->n_cn; i++) { /* cnodes are in pre-order */
        while (depth && open[depth - 1] != w->cn[i].parent)
            add(b, "%*s</cnode>\n", 2 + 2 * (int)depth--, "");
        cnode_open(b, w, i, 4 + 2 * (int)depth);
        open[depth++] = i;
    }
    while (depth)
        add(b, "%*s</cnode>\n", 2 + 2 * (int)depth--, "");
    free(open);
    add(b, "  </program>\n");
}

typedef struct sys_csr {
    uint32_t *stn_start, *stn_order, *grp_start, *grp_order, *loc_start, *loc_order;
} sys_csr;

static void group_xml(xb *b, const cube_writer *w, const sys_csr *s, uint32_t g, int ind)
{
    const pk_profile *p = w->p;
    const cw_group *gr = &w->grp[g];
    add(b, "%*s<locationgroup Id=\"%u\">\n", ind, "", g);
    element(b, ind + 2, "name", gr->name);
    add(b, "%*s<rank>%u</rank>\n", ind + 2, "", gr->rank);
    element(b, ind + 2, "type", gr->type);
    uint32_t first_loc = s->loc_start[g] < s->loc_start[g + 1] ? s->loc_order[s->loc_start[g]] : 0;
    size_t first, n;
    pk_attribute_range(p, PK_ENTITY_LOCATION, w->loc[first_loc].loc, &first, &n);
    for (size_t k = first; k < first + n && s->loc_start[g] < s->loc_start[g + 1]; k++)
        if (strncmp(p->attrs[k].key, "cube:group_attr:", 16) == 0) {
            add(b, "%*s<attr key=\"", ind + 2, "");
            esc(b, p->attrs[k].key + 16), put(b, "\" value=\"", 9);
            esc(b, p->attrs[k].value), put(b, "\"/>\n", 4);
        }
    for (uint32_t j = s->loc_start[g]; j < s->loc_start[g + 1]; j++) {
        uint32_t l = s->loc_order[j];
        add(b, "%*s<location Id=\"%u\">\n", ind + 2, "", l);
        element(b, ind + 4, "name", w->loc[l].name);
        add(b, "%*s<rank>%u</rank>\n", ind + 4, "", w->loc[l].rank);
        element(b, ind + 4, "type", w->loc[l].type);
        attrs_of(b, p, PK_ENTITY_LOCATION, w->loc[l].loc, ind + 4);
        add(b, "%*s</location>\n", ind + 2, "");
    }
    add(b, "%*s</locationgroup>\n", ind, "");
}

/* A system tree node and everything under it (depth is bounded by the
 * identifier tuple length, so recursion is safe). */
static void stn_xml(xb *b, const cube_writer *w, const sys_csr *s, uint32_t i, int ind)
{
    add(b, "%*s<systemtreenode Id=\"%u\">\n", ind, "", i);
    element(b, ind + 2, "name", w->stn[i].name);
    element(b, ind + 2, "class", w->stn[i].klass);
    for (uint32_t j = s->stn_start[i]; j < s->stn_start[i + 1]; j++)
        stn_xml(b, w, s, s->stn_order[j], ind + 2);
    for (uint32_t j = s->grp_start[i]; j < s->grp_start[i + 1]; j++)
        group_xml(b, w, s, s->grp_order[j], ind + 2);
    add(b, "%*s</systemtreenode>\n", ind, "");
}

static void topologies(xb *b, const pk_profile *p)
{
    size_t first, n;
    pk_attribute_range(p, PK_ENTITY_PROFILE, 0, &first, &n);
    add(b, "    <topologies>\n");
    unsigned cart = 0;
    for (size_t k = first; k < first + n; k++) {
        if (strcmp(p->attrs[k].key, "cube:cart") != 0) continue;
        const char *v = p->attrs[k].value, *tab = strchr(v, '\t');
        add(b, "      <cart");
        if (tab && tab[1]) add(b, " name=\""), esc(b, tab + 1), put(b, "\"", 1);
        add(b, " ndims=\"%d\">\n", atoi(v));
        for (size_t j = first; j < first + n; j++) {
            const char *key = p->attrs[j].key, *val = p->attrs[j].value;
            char *e;
            if (strcmp(key, "cube:cart_dim") != 0 && strcmp(key, "cube:cart_coord") != 0) continue;
            if (strtoul(val, &e, 10) != cart || *e != '\t') continue;
            char f[3][512] = {"", "", ""};
            sscanf(e + 1, "%511[^\t]\t%511[^\t]\t%511[^\n]", f[0], f[1], f[2]);
            if (key[10] == 'd') {
                add(b, "        <dim");
                if (f[2][0]) add(b, " name=\""), esc(b, f[2]), put(b, "\"", 1);
                add(b, " size=\""), esc(b, f[0]), add(b, "\" periodic=\""), esc(b, f[1]);
                add(b, "\"/>\n");
            } else {
                add(b, "        <coord "), esc(b, f[0]), add(b, "=\""), esc(b, f[1]);
                add(b, "\">"), esc(b, f[2]), add(b, "</coord>\n");
            }
        }
        add(b, "      </cart>\n");
        cart++;
    }
    add(b, "    </topologies>\n");
}

static void system_xml(xb *b, const cube_writer *w)
{
    sys_csr s = {0};
    if (csr(&w->stn[0].parent, sizeof *w->stn, w->n_stn, w->n_stn, &s.stn_start, &s.stn_order) ||
        csr(&w->grp[0].stn, sizeof *w->grp, w->n_grp, w->n_stn, &s.grp_start, &s.grp_order) ||
        csr(&w->loc[0].group, sizeof *w->loc, w->n_loc, w->n_grp, &s.loc_start, &s.loc_order)) {
        b->failed = 1;
    } else {
        const char *title = attr(w->p, PK_ENTITY_PROFILE, 0, "cube:system_title");
        add(b, "  <system");
        if (title) add(b, " title=\""), esc(b, title), put(b, "\"", 1);
        add(b, ">\n");
        for (uint32_t j = s.stn_start[w->n_stn]; j < s.stn_start[w->n_stn + 1]; j++)
            stn_xml(b, w, &s, s.stn_order[j], 4);
        topologies(b, w->p);
        add(b, "  </system>\n");
    }
    free(s.stn_start), free(s.stn_order), free(s.grp_start), free(s.grp_order);
    free(s.loc_start), free(s.loc_order);
}

pk_status cw_anchor(const cube_writer *w, char **out, size_t *n)
{
    xb b = {0};
    header(&b, w->p);
    if (metrics(&b, w)) b.failed = 1;
    program(&b, w);
    system_xml(&b, w);
    add(&b, "</cube>\n");
    if (b.failed) {
        free(b.s);
        return pk_fail_nomem("writing anchor.xml");
    }
    *out = b.s, *n = b.n;
    return PK_OK;
}
