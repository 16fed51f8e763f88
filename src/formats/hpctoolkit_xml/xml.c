/*
 * formats/hpctoolkit_xml/xml.c — streaming (expat) parse of a legacy
 * experiment.xml (2.x, or the 4.0 of the draft "Prof2" database) into an
 * hx_exp: version, title, the metric tables (4.0: with their view
 * formulas), the identifier names (4.0), the load module / file / procedure tables, and the
 * calling-context tree (PF, Pr, A, L, C, S elements) with each node's summary values <M>.
 *
 * Nothing is interpreted here beyond syntax: numbers are checked to be
 * numbers, and each error names experiment.xml, the element and its byte
 * offset. Entity declarations are refused (no real file has one, and it
 * closes the door on expansion bombs); the DTD's attribute defaults
 * (t="nil", v="raw"...) are applied by expat as the DTD says.
 */
#include <errno.h>
#include <expat.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx.h"
#include "util/vec.h"

typedef struct parser {
    hx_reader *r;
    XML_Parser xp;
    pk_status st;
    int seen_root, in_data;
    uint32_t cur; /* current tree node, PK_NONE outside SecCallPathProfileData */
    int in_metric_table;
    int in_metric; /* inside a <Metric> (its <MetricFormula> children) */
} parser;

static uint64_t here(parser *ps)
{
    XML_Index i = XML_GetCurrentByteIndex(ps->xp);
    return i < 0 ? 0 : (uint64_t)i;
}

static void fail_at(parser *ps, const char *el, const char *fmt, ...) PK_PRINTF(3, 4);
static void fail_at(parser *ps, const char *el, const char *fmt, ...)
{
    if (ps->st) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ps->st = hx_fail(ps->r->xml, el, here(ps), "%s", msg);
    XML_StopParser(ps->xp, XML_FALSE);
}

static const char *attr_of(const XML_Char **atts, const char *name)
{
    for (size_t i = 0; atts[i]; i += 2)
        if (strcmp(atts[i], name) == 0) return atts[i + 1];
    return NULL;
}

/* Decimal (or 0x hex when `hex_ok`) unsigned number of the whole string. */
static int parse_u64(const char *s, int hex_ok, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ') return 0;
    char *end;
    errno = 0;
    int base = hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
    unsigned long long v = strtoull(s, &end, base);
    if (errno || *end) return 0;
    *out = v;
    return 1;
}

static int parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s || *s == ' ') return 0;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end) return 0;
    *out = v;
    return 1;
}

/* A required unsigned attribute. */
static int need_u64(parser *ps, const char *el, const XML_Char **atts, const char *name,
                    uint64_t *out)
{
    const char *s = attr_of(atts, name);
    if (parse_u64(s, 0, out)) return 1;
    if (!s)
        fail_at(ps, el, "attribute %s is missing", name);
    else
        fail_at(ps, el, "attribute %s=\"%.40s\" is not an unsigned number", name, s);
    return 0;
}

/* An optional attribute: absent is fine (returns 1 with *out untouched). */
static int opt_u64(parser *ps, const char *el, const XML_Char **atts, const char *name, int hex,
                   uint64_t *out, int *present)
{
    const char *s = attr_of(atts, name);
    if (present) *present = 0;
    if (!s) return 1;
    if (!parse_u64(s, hex, out)) {
        fail_at(ps, el, "attribute %s=\"%.40s\" is not an unsigned number", name, s);
        return 0;
    }
    if (present) *present = 1;
    return 1;
}

static const char *intern(parser *ps, const char *s)
{
    if (!s) return NULL;
    const char *v = pk_intern_cstr(&ps->r->p->strings, s);
    if (!v) {
        ps->st = pk_fail_nomem("reading experiment.xml");
        XML_StopParser(ps->xp, XML_FALSE);
    }
    return v;
}

static void nomem(parser *ps)
{
    if (!ps->st) ps->st = pk_fail_nomem("reading experiment.xml");
    XML_StopParser(ps->xp, XML_FALSE);
}

static void start_root(parser *ps, const char *el, const XML_Char **atts)
{
    hx_exp *x = &ps->r->x;
    const char *v = attr_of(atts, "version");
    unsigned maj, min;
    char tail;
    if (!v || sscanf(v, "%u.%u%c", &maj, &min, &tail) != 2) {
        fail_at(ps, el, "version=\"%.20s\" is not MAJOR.MINOR", v ? v : "");
        return;
    }
    x->major = maj, x->minor = min;
    if (maj != 2 && !(maj == 4 && min == 0))
        fail_at(ps, el,
                "version %u.%u: profkit reads the legacy experiment.xml versions 2.0 to 2.2 "
                "and 4.0 (the 2021-22 draft \"Prof2\" database)",
                maj, min);
}

/* <Identifier i= n=> of a 4.0 IdentifierNameTable: kind -> name. */
static void start_identifier(parser *ps, const char *el, const XML_Char **atts)
{
    hx_exp *x = &ps->r->x;
    uint64_t kind;
    if (!need_u64(ps, el, atts, "i", &kind)) return;
    if (kind > 0xffff)
        return fail_at(ps, el, "identifier kind %llu does not fit 16 bits",
                       (unsigned long long)kind);
    const char *name = intern(ps, attr_of(atts, "n") ? attr_of(atts, "n") : "");
    if (!name) return;
    if (pk_vec_reserve((void **)&x->idnames, &x->cap_idnames, x->n_idnames + 1, sizeof *x->idnames))
        return nomem(ps);
    x->idnames[x->n_idnames++] = (hx_table_ent){kind, name};
}

/* <MetricFormula t="view" frm=> of a 4.0 <Metric>: what hpcviewer shows. */
static void start_formula(parser *ps, const XML_Char **atts)
{
    hx_exp *x = &ps->r->x;
    const char *t = attr_of(atts, "t"), *frm = attr_of(atts, "frm");
    if (!ps->in_metric || !x->n_metrics || !t || strcmp(t, "view") != 0 || !frm) return;
    x->metrics[x->n_metrics - 1].view = intern(ps, frm);
}

/* <LoadModule>, <File>, <Procedure>: id -> name. */
static void start_table_entry(parser *ps, const char *el, const XML_Char **atts, hx_table_ent **arr,
                              size_t *n, size_t *cap)
{
    uint64_t id;
    if (!need_u64(ps, el, atts, "i", &id)) return;
    const char *name = intern(ps, attr_of(atts, "n") ? attr_of(atts, "n") : "");
    if (!name) return;
    if (pk_vec_reserve((void **)arr, cap, *n + 1, sizeof **arr)) return nomem(ps);
    (*arr)[(*n)++] = (hx_table_ent){id, name};
}

static char scope_letter(const char *t)
{
    if (t && strcmp(t, "inclusive") == 0) return 'i';
    if (t && strcmp(t, "exclusive") == 0) return 'e';
    return 'n';
}

static void start_metric(parser *ps, const char *el, const XML_Char **atts, int is_db)
{
    hx_exp *x = &ps->r->x;
    hx_metric m = {.db_num = -1, .db_header = -1, .xml_off = here(ps)};
    uint64_t i, u;
    int has;
    if (!need_u64(ps, el, atts, "i", &i)) return;
    if (i > 0xffff)
        return fail_at(ps, el, "metric id %llu does not fit 16 bits", (unsigned long long)i);
    m.i = (uint32_t)i;
    m.name = intern(ps, attr_of(atts, "n") ? attr_of(atts, "n") : "");
    m.desc = intern(ps, attr_of(atts, "md"));
    m.t = scope_letter(attr_of(atts, "t"));
    if (is_db) {
        u = i;
        if (!opt_u64(ps, el, atts, "db-id", 0, &u, NULL)) return;
        if (u > 0xffff)
            return fail_at(ps, el, "db-id %llu does not fit 16 bits", (unsigned long long)u);
        m.db_id = (uint32_t)u;
        if (!opt_u64(ps, el, atts, "db-num-metrics", 0, &u, &has)) return;
        if (has) m.db_num = u > 0xffff ? 0x10000 : (int64_t)u;
        if (!opt_u64(ps, el, atts, "db-header-sz", 0, &u, &has)) return;
        if (has) m.db_header = u > 0xffffff ? 0x1000000 : (int64_t)u;
        m.db_glob = intern(ps, attr_of(atts, "db-glob"));
    }
    if (ps->st) return;
    hx_metric **arr = is_db ? &x->dbs : &x->metrics;
    size_t *n = is_db ? &x->n_dbs : &x->n_metrics, *cap = is_db ? &x->cap_dbs : &x->cap_metrics;
    if (pk_vec_reserve((void **)arr, cap, *n + 1, sizeof **arr)) return nomem(ps);
    (*arr)[(*n)++] = m;
}

static void start_trace_db(parser *ps, const char *el, const XML_Char **atts)
{
    hx_exp *x = &ps->r->x;
    uint64_t u = 0, hdr = 0;
    int has_u, has_hdr;
    x->has_trace_db = 1;
    if (!opt_u64(ps, el, atts, "u", 0, &u, &has_u) ||
        !opt_u64(ps, el, atts, "db-min-time", 0, &x->trace_min, NULL) ||
        !opt_u64(ps, el, atts, "db-max-time", 0, &x->trace_max, NULL) ||
        !opt_u64(ps, el, atts, "db-header-sz", 0, &hdr, &has_hdr))
        return;
    x->trace_units = has_u ? (double)u : 0;
    x->trace_header = has_hdr ? (hdr > 4096 ? 4096 : (int64_t)hdr) : -1;
}

static enum hx_tag node_tag(const char *el)
{
    static const char *const names[] = {"", "PF", "Pr", "A", "L", "C", "S"};
    for (int t = HX_PF; t <= HX_S; t++)
        if (strcmp(el, names[t]) == 0) return (enum hx_tag)t;
    return HX_ROOT;
}

static int add_node(parser *ps, hx_node *n)
{
    hx_exp *x = &ps->r->x;
    if (x->n_nodes >= PK_NONE - 2) {
        fail_at(ps, "calling-context tree", "too many nodes");
        return 0;
    }
    if (pk_vec_reserve((void **)&x->nodes, &x->cap_nodes, (size_t)x->n_nodes + 1, sizeof *n)) {
        nomem(ps);
        return 0;
    }
    x->nodes[x->n_nodes++] = *n;
    return 1;
}

static void start_node(parser *ps, const char *el, enum hx_tag tag, const XML_Char **atts)
{
    hx_exp *x = &ps->r->x;
    hx_node n = {.parent = ps->cur,
                 .first_kid = PK_NONE,
                 .next_sib = PK_NONE,
                 .tag = (uint8_t)tag,
                 .lm = -1,
                 .f = -1,
                 .xml_off = here(ps)};
    uint64_t line = 0;
    int64_t sid;
    if (x->major == 4 && parse_i64(attr_of(atts, "i"), &sid) && sid < 0) {
        /* 4.0: hpcprof writes a call site C as i="-N", an id no *.db uses
         * (hpcviewer finds no values for it); it gets a context id later. */
        n.no_db_id = 1;
    } else {
        if (!need_u64(ps, el, atts, "i", &n.id)) return;
        if (n.id < (x->major == 4 ? 1u : 2u) || n.id >= HX_ENTRY_ID_BASE)
            return fail_at(ps, el, "node id i=%llu: %s, ids are 32-bit", (unsigned long long)n.id,
                           x->major == 4 ? "id 0 is the root's" : "ids 0 and 1 are the root's");
    }
    if (!opt_u64(ps, el, atts, "l", 0, &line, NULL)) return;
    n.line = line > 0x7fffffff ? 0 : (uint32_t)line;
    if (!parse_i64(attr_of(atts, "lm"), &n.lm)) n.lm = -1;
    if (!parse_i64(attr_of(atts, "f"), &n.f)) n.f = -1;
    n.n = intern(ps, attr_of(atts, "n"));
    if (!opt_u64(ps, el, atts, "v", 1, &n.v, &n.has_v) ||
        !opt_u64(ps, el, atts, "it", 0, &n.it, &n.has_it) || ps->st)
        return;
    if (!add_node(ps, &n)) return;
    uint32_t me = x->n_nodes - 1;
    hx_node *parent = &x->nodes[ps->cur];
    if (parent->n_kids++ == 0)
        parent->first_kid = me;
    else
        x->nodes[parent->last_kid].next_sib = me;
    parent->last_kid = me;
    ps->cur = me;
}

static void start_m(parser *ps, const char *el, const XML_Char **atts)
{
    hx_exp *x = &ps->r->x;
    uint64_t id;
    if (!need_u64(ps, el, atts, "n", &id)) return;
    const char *v = attr_of(atts, "v");
    char *end;
    double d = v ? strtod(v, &end) : 0;
    if (!v || !*v || *end)
        return fail_at(ps, el, "attribute v=\"%.40s\" is not a number", v ? v : "");
    if (id > 0xffff)
        return fail_at(ps, el, "metric id n=%llu does not fit 16 bits", (unsigned long long)id);
    if (pk_vec_reserve((void **)&x->mvals, &x->cap_mvals, x->n_mvals + 1, sizeof *x->mvals))
        return nomem(ps);
    x->mvals[x->n_mvals++] = (hx_mval){ps->cur, (uint32_t)id, d, here(ps)};
}

static void XMLCALL on_start(void *user, const XML_Char *el, const XML_Char **atts)
{
    parser *ps = user;
    hx_exp *x = &ps->r->x;
    if (ps->st) return;
    if (!ps->seen_root) {
        ps->seen_root = 1;
        if (strcmp(el, "HPCToolkitExperiment") != 0)
            return fail_at(ps, el, "the root element is <%s>, not <HPCToolkitExperiment>", el);
        return start_root(ps, el, atts);
    }
    if (ps->in_data) {
        enum hx_tag t = node_tag(el);
        if (t != HX_ROOT) return start_node(ps, el, t, atts);
        if (strcmp(el, "M") == 0) return start_m(ps, el, atts);
        return;
    }
    if (strcmp(el, "SecCallPathProfileData") == 0) {
        if (x->n_nodes) return fail_at(ps, el, "a second calling-context tree");
        hx_node root = {.parent = PK_NONE,
                        .first_kid = PK_NONE,
                        .next_sib = PK_NONE,
                        .tag = HX_ROOT,
                        .lm = -1,
                        .f = -1,
                        .xml_off = here(ps)};
        if (!add_node(ps, &root)) return;
        ps->in_data = 1, ps->cur = 0;
    } else if (strcmp(el, "Header") == 0 || strcmp(el, "SecCallPathProfile") == 0) {
        if (!x->title && attr_of(atts, "n")) x->title = intern(ps, attr_of(atts, "n"));
    } else if (strcmp(el, "Metric") == 0) {
        start_metric(ps, el, atts, 0);
        ps->in_metric = 1;
    } else if (strcmp(el, "MetricFormula") == 0) {
        start_formula(ps, atts);
    } else if (strcmp(el, "Identifier") == 0) {
        start_identifier(ps, el, atts);
    } else if (strcmp(el, "MetricDB") == 0) {
        start_metric(ps, el, atts, 1);
    } else if (strcmp(el, "TraceDB") == 0) {
        start_trace_db(ps, el, atts);
    } else if (strcmp(el, "LoadModule") == 0) {
        start_table_entry(ps, el, atts, &x->lms, &x->n_lms, &x->cap_lms);
    } else if (strcmp(el, "File") == 0) {
        start_table_entry(ps, el, atts, &x->files, &x->n_files, &x->cap_files);
    } else if (strcmp(el, "Procedure") == 0) {
        start_table_entry(ps, el, atts, &x->procs, &x->n_procs, &x->cap_procs);
    }
}

static void XMLCALL on_end(void *user, const XML_Char *el)
{
    parser *ps = user;
    if (!ps->st && strcmp(el, "Metric") == 0) ps->in_metric = 0;
    if (ps->st || !ps->in_data) return;
    if (node_tag(el) != HX_ROOT)
        ps->cur = ps->r->x.nodes[ps->cur].parent;
    else if (strcmp(el, "SecCallPathProfileData") == 0)
        ps->in_data = 0;
}

static void XMLCALL on_entity_decl(void *user, const XML_Char *name, int is_param,
                                   const XML_Char *value, int value_len, const XML_Char *base,
                                   const XML_Char *system_id, const XML_Char *public_id,
                                   const XML_Char *notation)
{
    (void)is_param, (void)value, (void)value_len, (void)base, (void)system_id;
    (void)public_id, (void)notation;
    fail_at(user, "DTD", "entity declarations (<!ENTITY %s ...>) are not allowed", name);
}

pk_status hx_parse_xml(hx_reader *r, const hx_file *xml)
{
    parser ps = {.r = r, .cur = PK_NONE};
    r->xml = xml;
    ps.xp = XML_ParserCreate(NULL);
    if (!ps.xp) return pk_fail_nomem("creating the XML parser");
    XML_SetUserData(ps.xp, &ps);
    XML_SetElementHandler(ps.xp, on_start, on_end);
    XML_SetEntityDeclHandler(ps.xp, on_entity_decl);
    uint64_t done = 0, n = xml->size;
    while (!ps.st) { /* XML_Parse takes an int length */
        int chunk = n - done > (1u << 30) ? (1 << 30) : (int)(n - done);
        int last = done + (uint64_t)chunk == n;
        if (XML_Parse(ps.xp, (const char *)xml->data + done, chunk, last) == XML_STATUS_ERROR &&
            !ps.st)
            ps.st = hx_fail(xml, "XML", here(&ps), "line %lu: %s",
                            (unsigned long)XML_GetCurrentLineNumber(ps.xp),
                            XML_ErrorString(XML_GetErrorCode(ps.xp)));
        done += (uint64_t)chunk;
        if (last) break;
    }
    XML_ParserFree(ps.xp);
    if (!ps.st && !r->x.n_nodes)
        ps.st = hx_fail(xml, "SecCallPathProfileData", 0,
                        "missing: the file has no calling-context tree");
    return ps.st;
}
