/*
 * formats/cube/write_anchor.c — anchor.xml of a planned Cube, in the
 * layout CubeLib 4.8 writes (Cube::writeXML_header, CubeMetric::writeXML,
 * CubeCnode, CubeRegion): attributes and mirrors, the nested metric tree,
 * regions, the nested call tree with parameters, the system tree and
 * topologies. Attributes a Cube reader kept are written back as they
 * were, and every other format's attributes ("hpcrun:formula"...) as
 * Cube <attr>s, so nothing the model holds is dropped. Every string goes
 * through cw_esc() (write_xml.c). The call tree, whose depth the input
 * decides, is written in one loop without indentation, so its size is
 * linear in the number of cnodes.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cw.h"
#include "util/error.h"

static const char *attr(const pk_profile *p, pk_entity e, pk_index i, const char *k)
{
    return pk_attribute_find(p, e, i, k);
}

/* An entity's <attr>s: Cube's own ones a Cube reader kept ("attr:K") and
 * other formats' attributes, under their own key. */
static void attrs_of(cw_xml *b, const pk_profile *p, pk_entity e, pk_index i)
{
    size_t first, n;
    if (i == PK_NONE) return;
    pk_attribute_range(p, e, i, &first, &n);
    for (size_t k = first; k < first + n; k++) {
        const char *key = p->attrs[k].key;
        if (strncmp(key, "cube:", 5) == 0) continue;
        cw_add(b, "<attr key=\"");
        cw_esc(b, strncmp(key, "attr:", 5) == 0 ? key + 5 : key);
        cw_put(b, "\" value=\"", 9);
        cw_esc(b, p->attrs[k].value);
        cw_put(b, "\"/>\n", 4);
    }
}

/* A title="..." attribute when the profile kept one. */
static void title_of(cw_xml *b, const pk_profile *p, const char *key)
{
    const char *title = attr(p, PK_ENTITY_PROFILE, 0, key);
    if (title) cw_add(b, " title=\""), cw_esc(b, title), cw_put(b, "\"", 1);
}

static void header(cw_xml *b, const pk_profile *p)
{
    cw_add(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"4.4\">\n");
    attrs_of(b, p, PK_ENTITY_PROFILE, 0);
    cw_add(b, "<doc>\n<mirrors>\n");
    size_t first, n;
    pk_attribute_range(p, PK_ENTITY_PROFILE, 0, &first, &n);
    for (size_t k = first; k < first + n; k++)
        if (strcmp(p->attrs[k].key, "cube:mirror") == 0) cw_element(b, "murl", p->attrs[k].value);
    cw_add(b, "</mirrors>\n</doc>\n");
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
        (*start)[(par == CUBE_NONE || par >= n_parents ? n_parents : par) + 2]++;
    }
    for (uint32_t i = 0; i <= n_parents; i++)
        (*start)[i + 2] += (*start)[i + 1];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t par = *(const uint32_t *)((const char *)parent + (size_t)i * stride);
        (*order)[(*start)[(par == CUBE_NONE || par >= n_parents ? n_parents : par) + 1]++] = i;
    }
    return 0;
}

/* A metric that stands in when the profile has none (Cube needs one). */
static void stand_in_metric(cw_xml *b, uint32_t i)
{
    cw_add(b, "<metric id=\"%u\" type=\"EXCLUSIVE\">\n", i);
    cw_element(b, "disp_name", "no metrics");
    cw_element(b, "uniq_name", "no_metrics");
    cw_element(b, "dtype", "DOUBLE");
    cw_element(b, "uom", "");
    cw_element(b, "url", "");
    cw_element(b, "descr", "The profile has no metrics; a Cube needs one.");
}

static void metric_open(cw_xml *b, const cube_writer *w, uint32_t i)
{
    const pk_profile *p = w->p;
    const cw_metric *cm = &w->m[i];
    if (cm->metric == PK_NONE) {
        stand_in_metric(b, i);
        return;
    }
    const pk_metric *md = &p->metrics[cm->metric];
    const char *disp = attr(p, PK_ENTITY_METRIC, cm->metric, "cube:disp_name");
    cw_add(b, "<metric id=\"%u\" type=\"", i);
    cw_esc(b, cm->kind);
    cw_put(b, "\"", 1);
    static const char *const opt[] = {"viztype", "convertible", "cacheable"};
    for (int k = 0; k < 3; k++) {
        char key[32];
        snprintf(key, sizeof key, "cube:%s", opt[k]);
        const char *v = attr(p, PK_ENTITY_METRIC, cm->metric, key);
        if (v) cw_add(b, " %s=\"", opt[k]), cw_esc(b, v), cw_put(b, "\"", 1);
    }
    cw_put(b, ">\n", 2);
    cw_element(b, "disp_name", disp ? disp : md->name);
    cw_element(b, "uniq_name", md->name);
    cw_element(b, "dtype", cm->dtype);
    cw_element(b, "uom", md->unit ? md->unit : "");
    const char *val = attr(p, PK_ENTITY_METRIC, cm->metric, "cube:val");
    if (val) cw_element(b, "val", val);
    const char *url = attr(p, PK_ENTITY_METRIC, cm->metric, "cube:url");
    cw_element(b, "url", url ? url : "");
    cw_element(b, "descr", md->description ? md->description : "");
    const char *pl = attr(p, PK_ENTITY_METRIC, cm->metric, "cube:cubepl");
    const char *init = attr(p, PK_ENTITY_METRIC, cm->metric, "cube:cubeplinit");
    if (pl) cw_element(b, "cubepl", pl);
    if (init) cw_element(b, "cubeplinit", init);
    size_t first, n;
    pk_attribute_range(p, PK_ENTITY_METRIC, cm->metric, &first, &n);
    for (size_t k = first; k < first + n; k++)
        if (strncmp(p->attrs[k].key, "cube:cubeplaggr:", 16) == 0) {
            cw_add(b, "<cubeplaggr cubeplaggrtype=\"");
            cw_esc(b, p->attrs[k].key + 16);
            cw_put(b, "\">", 2), cw_esc(b, p->attrs[k].value);
            cw_put(b, "</cubeplaggr>\n", 14);
        }
    attrs_of(b, p, PK_ENTITY_METRIC, cm->metric);
}

/* The metric tree, depth-first with an explicit stack. */
static int metrics(cw_xml *b, const cube_writer *w)
{
    uint32_t *start, *order, *stack = malloc(((size_t)w->n_m + 1) * 2 * sizeof *stack);
    if (!stack || csr(&w->m[0].parent, sizeof *w->m, w->n_m, w->n_m, &start, &order)) {
        free(stack);
        return -1;
    }
    cw_add(b, "<metrics");
    title_of(b, w->p, "cube:metrics_title");
    cw_add(b, ">\n");
    for (uint32_t r = start[w->n_m]; r < start[w->n_m + 1]; r++) {
        size_t sp = 1; /* entries: (metric, next child position) */
        stack[0] = order[r], stack[1] = start[order[r]];
        metric_open(b, w, order[r]);
        while (sp) {
            uint32_t m = stack[2 * sp - 2], *next = &stack[2 * sp - 1];
            if (*next < start[m + 1]) {
                uint32_t c = order[(*next)++];
                metric_open(b, w, c);
                stack[2 * sp] = c, stack[2 * sp + 1] = start[c], sp++;
            } else {
                sp--;
                cw_add(b, "</metric>\n");
            }
        }
    }
    cw_add(b, "</metrics>\n");
    free(start), free(order), free(stack);
    return 0;
}

/* Line numbers as Cube wants them: never negative (cube_sanity's
 * "Proper line numbers"); 0 where unknown. A Cube file's own values,
 * kept as attributes, are written back as they were. */
static void lines(cw_xml *b, const pk_profile *p, pk_index f)
{
    const pk_function *fn = f != PK_NONE ? &p->functions[f] : NULL;
    const char *begin = fn ? attr(p, PK_ENTITY_FUNCTION, f, "cube:begin") : NULL;
    const char *end = fn ? attr(p, PK_ENTITY_FUNCTION, f, "cube:end") : NULL;
    cw_add(b, "\" begin=\"");
    if (begin)
        cw_esc(b, begin);
    else
        cw_add(b, "%u", fn ? fn->line : 0);
    cw_add(b, "\" end=\"");
    if (end)
        cw_esc(b, end);
    else
        cw_add(b, "0");
    cw_add(b, "\">\n");
}

/* Where a region is: its source file, else its load module. */
static const char *module_of(const pk_profile *p, const pk_function *fn)
{
    if (fn && fn->file < p->n_files) return p->files[fn->file].path;
    if (fn && fn->module < p->n_modules) return p->modules[fn->module].path;
    return "";
}

static void function_region(cw_xml *b, const pk_profile *p, pk_index f)
{
    const pk_function *fn = &p->functions[f];
    cw_add(b, "<region id=\"%u\" mod=\"", f);
    cw_esc(b, module_of(p, fn));
    lines(b, p, f);
    char buf[64];
    const char *name = fn->name;
    if (!name && fn->module < p->n_modules) {
        cw_add(b, "<name>&lt;unknown function&gt; ");
        cw_esc(b, p->modules[fn->module].path);
        snprintf(buf, sizeof buf, "+0x%llx</name>\n", (unsigned long long)fn->offset);
        cw_add(b, "%s", buf);
    } else {
        cw_element(b, "name", name ? name : "<unknown function>");
    }
    static const char *const opt[] = {"mangled_name", "paradigm", "role"};
    for (int k = 0; k < 3; k++) {
        snprintf(buf, sizeof buf, "cube:%s", opt[k]);
        const char *v = attr(p, PK_ENTITY_FUNCTION, f, buf);
        if (v) cw_element(b, opt[k], v);
    }
    const char *url = attr(p, PK_ENTITY_FUNCTION, f, "cube:url");
    const char *descr = attr(p, PK_ENTITY_FUNCTION, f, "cube:descr");
    cw_element(b, "url", url ? url : "");
    cw_element(b, "descr", descr ? descr : "");
    if (fn->module < p->n_modules) { /* which Cube has no field for (build.c reads them) */
        cw_add(b, "<attr key=\"" CUBE_MODULE_ATTR "\" value=\"");
        cw_esc(b, p->modules[fn->module].path);
        cw_add(b, "\"/>\n<attr key=\"" CUBE_OFFSET_ATTR "\" value=\"0x%llx\"/>\n",
               (unsigned long long)fn->offset);
    }
    attrs_of(b, p, PK_ENTITY_FUNCTION, f);
    cw_add(b, "</region>\n");
}

/* A region profkit made up: an entry point, a call target that is no
 * function, the unlisted contexts, the root (which says so, for
 * profkit's reader). Artificial ones say so as Score-P's do. */
static void extra_region(cw_xml *b, const cube_writer *w, uint32_t e)
{
    const cw_region *r = &w->reg[e];
    cw_add(b, "<region id=\"%u\" mod=\"", (uint32_t)w->p->n_functions + e);
    lines(b, w->p, PK_NONE);
    cw_element(b, "name", r->name);
    if (r->artificial) {
        cw_element(b, "paradigm", "measurement");
        cw_element(b, "role", "artificial");
    }
    cw_element(b, "url", "");
    cw_element(b, "descr", "");
    if (r->root) cw_add(b, "<attr key=\"" CUBE_ROOT_ATTR "\" value=\"1\"/>\n");
    cw_add(b, "</region>\n");
}

static void cnode_open(cw_xml *b, const cube_writer *w, uint32_t i)
{
    const pk_profile *p = w->p;
    const cw_cnode *c = &w->cn[i];
    const pk_ctx_rec *x = c->ctx != PK_NONE ? &p->ctx[c->ctx] : NULL;
    cw_add(b, "<cnode id=\"%u\"", i);
    if (x && x->line) cw_add(b, " line=\"%u\"", x->line);
    if (x && (x->flags & PK_CTXF_HAS_SRCLOC) && x->file < p->n_files) {
        cw_add(b, " mod=\"");
        cw_esc(b, p->files[x->file].path);
        cw_put(b, "\"", 1);
    }
    cw_add(b, " calleeId=\"%u\">\n", c->region);
    size_t first = 0, n = 0;
    if (x) pk_attribute_range(p, PK_ENTITY_CONTEXT, c->ctx, &first, &n);
    for (size_t k = first; k < first + n; k++) {
        const char *key = p->attrs[k].key;
        const char *colon = strncmp(key, "cube:param:", 11) == 0 ? strchr(key + 11, ':') : NULL;
        if (!colon) continue;
        char *type = strndup(key + 11, (size_t)(colon - key - 11));
        if (!type) b->failed = 1;
        cw_add(b, "<parameter partype=\"");
        cw_esc(b, type);
        free(type);
        cw_put(b, "\" parkey=\"", 10), cw_esc(b, colon + 1);
        cw_put(b, "\" parvalue=\"", 12), cw_esc(b, p->attrs[k].value), cw_put(b, "\"/>\n", 4);
    }
    if (x) attrs_of(b, p, PK_ENTITY_CONTEXT, c->ctx);
    if (c->n_folded)
        cw_add(b, "<attr key=\"profkit folded contexts\" value=\"%u\"/>\n", c->n_folded);
}

/* Regions (functions, then made-up ones) and the nested call tree. The
 * cnodes are in pre-order, so one pass with a stack of open ones. */
static void program(cw_xml *b, const cube_writer *w)
{
    const pk_profile *p = w->p;
    cw_add(b, "<program");
    title_of(b, p, "cube:program_title");
    cw_add(b, ">\n");
    for (uint32_t f = 0; f < p->n_functions; f++)
        function_region(b, p, f);
    for (uint32_t e = 0; e < w->n_reg; e++)
        extra_region(b, w, e);
    uint32_t depth = 0, *open = malloc(((size_t)w->n_cn + 1) * sizeof *open);
    if (!open) {
        b->failed = 1;
        return;
    }
    for (uint32_t i = 0; i < w->n_cn; i++) {
        while (depth && open[depth - 1] != w->cn[i].parent)
            cw_add(b, "</cnode>\n"), depth--;
        cnode_open(b, w, i);
        open[depth++] = i;
    }
    for (; depth; depth--)
        cw_add(b, "</cnode>\n");
    free(open);
    cw_add(b, "</program>\n");
}

typedef struct sys_csr {
    uint32_t *stn_start, *stn_order, *grp_start, *grp_order, *loc_start, *loc_order;
} sys_csr;

static void group_xml(cw_xml *b, const cube_writer *w, const sys_csr *s, uint32_t g)
{
    const pk_profile *p = w->p;
    const cw_group *gr = &w->grp[g];
    cw_add(b, "<locationgroup Id=\"%u\">\n", g);
    cw_element(b, "name", gr->name);
    cw_add(b, "<rank>%u</rank>\n", gr->rank);
    cw_element(b, "type", gr->type);
    size_t first = 0, n = 0;
    if (gr->attrs_of != PK_NONE)
        pk_attribute_range(p, PK_ENTITY_LOCATION, gr->attrs_of, &first, &n);
    for (size_t k = first; k < first + n; k++)
        if (strncmp(p->attrs[k].key, "cube:group_attr:", 16) == 0) {
            cw_add(b, "<attr key=\"");
            cw_esc(b, p->attrs[k].key + 16), cw_put(b, "\" value=\"", 9);
            cw_esc(b, p->attrs[k].value), cw_put(b, "\"/>\n", 4);
        }
    for (uint32_t j = s->loc_start[g]; j < s->loc_start[g + 1]; j++) {
        const cw_loc *l = &w->loc[s->loc_order[j]];
        cw_add(b, "<location Id=\"%u\">\n", s->loc_order[j]);
        cw_element(b, "name", l->name);
        cw_add(b, "<rank>%u</rank>\n", l->rank);
        cw_element(b, "type", l->type);
        if (l->loc != PK_NONE && !w->summary) attrs_of(b, p, PK_ENTITY_LOCATION, l->loc);
        cw_add(b, "</location>\n");
    }
    cw_add(b, "</locationgroup>\n");
}

/* The system tree: each node's name and class, its location groups,
 * then its child nodes (CubeLib's grammar wants groups first). */
static void nodes_xml(cw_xml *b, const cube_writer *w, const sys_csr *s)
{
    uint32_t *stack = malloc(((size_t)w->n_stn + 1) * 2 * sizeof *stack);
    if (!stack) {
        b->failed = 1;
        return;
    }
    for (uint32_t r = s->stn_start[w->n_stn]; r < s->stn_start[w->n_stn + 1]; r++) {
        size_t sp = 0; /* entries: (node, next child position); opened when pushed */
        for (uint32_t v = s->stn_order[r];;) {
            cw_add(b, "<systemtreenode Id=\"%u\">\n", v);
            cw_element(b, "name", w->stn[v].name);
            cw_element(b, "class", w->stn[v].klass);
            for (uint32_t j = s->grp_start[v]; j < s->grp_start[v + 1]; j++)
                group_xml(b, w, s, s->grp_order[j]);
            stack[2 * sp] = v, stack[2 * sp + 1] = s->stn_start[v], sp++;
            v = CUBE_NONE;
            while (sp && v == CUBE_NONE) {
                uint32_t u = stack[2 * sp - 2], *next = &stack[2 * sp - 1];
                if (*next < s->stn_start[u + 1]) {
                    v = s->stn_order[(*next)++];
                } else {
                    cw_add(b, "</systemtreenode>\n");
                    sp--;
                }
            }
            if (v == CUBE_NONE) break;
        }
    }
    free(stack);
}

/* The tab-separated field k of s (0-based), into buf. */
static const char *field(const char *s, int k, char *buf, size_t size)
{
    for (; k > 0 && s; k--) {
        s = strchr(s, '\t');
        if (s) s++;
    }
    if (!s) return "";
    const char *end = strchr(s, '\t');
    size_t n = end ? (size_t)(end - s) : strlen(s);
    snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), s);
    return buf;
}

/* A coord's attribute is a name Cube knows; anything else is left out. */
static int coord_attr(const char *s)
{
    static const char *const known[] = {"locId",  "lgId",   "stnId", "thrdId",
                                        "procId", "nodeId", "machId"};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (strcmp(s, known[i]) == 0) return 1;
    return 0;
}

static void cart_entry(cw_xml *b, const char *key, const char *rest)
{
    char f0[64], f1[64];
    const char *f2 = rest;
    for (int k = 0; k < 2 && f2; k++) {
        f2 = strchr(f2, '\t');
        if (f2) f2++;
    }
    if (!f2) f2 = "";
    if (strcmp(key, "cube:cart_dim") == 0) {
        cw_add(b, "<dim");
        if (*f2) cw_add(b, " name=\""), cw_esc(b, f2), cw_put(b, "\"", 1);
        cw_add(b, " size=\""), cw_esc(b, field(rest, 0, f0, sizeof f0));
        cw_add(b, "\" periodic=\""), cw_esc(b, field(rest, 1, f1, sizeof f1));
        cw_add(b, "\"/>\n");
    } else if (coord_attr(field(rest, 0, f0, sizeof f0))) {
        cw_add(b, "<coord %s=\"", f0), cw_esc(b, field(rest, 1, f1, sizeof f1));
        cw_add(b, "\">"), cw_esc(b, f2), cw_add(b, "</coord>\n");
    }
}

static void topologies(cw_xml *b, const pk_profile *p)
{
    size_t first, n;
    pk_attribute_range(p, PK_ENTITY_PROFILE, 0, &first, &n);
    cw_add(b, "<topologies>\n");
    unsigned long cart = 0;
    for (size_t k = first; k < first + n; k++) {
        if (strcmp(p->attrs[k].key, "cube:cart") != 0) continue;
        const char *v = p->attrs[k].value, *tab = strchr(v, '\t');
        cw_add(b, "<cart");
        if (tab && tab[1]) cw_add(b, " name=\""), cw_esc(b, tab + 1), cw_put(b, "\"", 1);
        cw_add(b, " ndims=\"%d\">\n", atoi(v));
        for (size_t j = first; j < first + n; j++) {
            const char *key = p->attrs[j].key, *val = p->attrs[j].value;
            char *e;
            if (strcmp(key, "cube:cart_dim") != 0 && strcmp(key, "cube:cart_coord") != 0) continue;
            if (strtoul(val, &e, 10) != cart || *e != '\t') continue;
            cart_entry(b, key, e + 1);
        }
        cw_add(b, "</cart>\n");
        cart++;
    }
    cw_add(b, "</topologies>\n");
}

static void system_xml(cw_xml *b, const cube_writer *w)
{
    sys_csr s = {0};
    if (csr(&w->stn[0].parent, sizeof *w->stn, w->n_stn, w->n_stn, &s.stn_start, &s.stn_order) ||
        csr(&w->grp[0].stn, sizeof *w->grp, w->n_grp, w->n_stn, &s.grp_start, &s.grp_order) ||
        csr(&w->loc[0].group, sizeof *w->loc, w->n_loc, w->n_grp, &s.loc_start, &s.loc_order)) {
        b->failed = 1;
    } else {
        cw_add(b, "<system");
        title_of(b, w->p, "cube:system_title");
        cw_add(b, ">\n");
        nodes_xml(b, w, &s);
        topologies(b, w->p);
        cw_add(b, "</system>\n");
    }
    free(s.stn_start), free(s.stn_order), free(s.grp_start), free(s.grp_order);
    free(s.loc_start), free(s.loc_order);
}

pk_status cw_anchor(const cube_writer *w, char **out, size_t *n)
{
    cw_xml b = {0};
    header(&b, w->p);
    if (metrics(&b, w)) b.failed = 1;
    program(&b, w);
    system_xml(&b, w);
    cw_add(&b, "</cube>\n");
    if (b.failed) {
        free(b.s);
        return pk_fail(PK_ERR_NOMEM, "out of memory while building anchor.xml (%zu bytes so far)",
                       b.n);
    }
    *out = b.s, *n = b.n;
    return PK_OK;
}
