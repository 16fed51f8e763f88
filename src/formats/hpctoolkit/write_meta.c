/*
 * formats/hpctoolkit/write_meta.c — writing meta.db from the model.
 *
 * Sections are appended in an order where every pointer a structure
 * needs is already known:
 *   header | General | IdNames | Metrics | Strings | Modules | Files |
 *   Functions | Context | footer
 * All but the Context section are laid out in memory; the contexts, which
 * grow with the tree (cc1's 600,000: 32 of meta.db's 34 MB), are planned
 * in one pass and written straight out in a second.
 * Strings live where our reader (and hpcprof's layout) expect them: names
 * of metrics, scopes and formulas in Metrics; kind names in IdNames;
 * paths, function names and entry-point names in Strings. Every section
 * starts 8-byte aligned, every structure keeps its natural alignment.
 */
#include <stdlib.h>
#include <string.h>

#include "hpctk_write.h"
#include "util/buf.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/outfile.h"
#include "write_shape.h"

typedef struct meta_w {
    const pk_profile *p;
    pk_buf b;
    uint64_t lo[8], hi[8];
    size_t *mod_name, *file_name, *fn_name, *entry_name; /* string offsets */
    size_t mods_at, files_at, fns_at;                    /* structure arrays */
    int rule_bits; /* no reader set propagation bits: hpcprof's (bit 0 on lexical links) */
} meta_w;

static void begin_section(meta_w *w, int s)
{
    pk_buf_align(&w->b, 8);
    w->lo[s] = w->b.len;
}

static void end_section(meta_w *w, int s)
{
    pk_buf_align(&w->b, 8);
    w->hi[s] = w->b.len;
}

static size_t str_or_zero(pk_buf *b, const char *s)
{
    return s ? pk_buf_utf8_str(b, s) : 0;
}

/* Title and description are never null pointers: hpcviewer 2023 fails to
 * open such a database and 2024 shows garbage as its title. */
static void put_general(meta_w *w)
{
    begin_section(w, HK_MS_GENERAL);
    size_t h = pk_buf_zeros(&w->b, 0x10);
    pk_buf_set_u64(&w->b, h, pk_buf_utf8_str(&w->b, w->p->title ? w->p->title : ""));
    pk_buf_set_u64(&w->b, h + 8,
                   pk_buf_utf8_str(&w->b, w->p->description ? w->p->description : ""));
    end_section(w, HK_MS_GENERAL);
}

/* Name of identifier kind k: the model's table, else a name some tuple
 * carries, else NULL (then a made-up one fills the hole: the table has
 * no empty slots). */
static const char *kind_name(const pk_profile *p, uint32_t k)
{
    if (k < p->n_id_kinds && p->id_kind_names[k]) return p->id_kind_names[k];
    for (uint32_t l = 0; l < p->n_locs; l++)
        for (uint32_t i = 0; i < p->locs[l].n_ids; i++)
            if (p->locs[l].ids[i].kind == k && p->locs[l].ids[i].kind_name)
                return p->locs[l].ids[i].kind_name;
    return NULL;
}

static pk_status put_id_names(meta_w *w)
{
    const pk_profile *p = w->p;
    uint32_t n = p->n_id_kinds;
    /* Kinds with a name extend the table; a kind without one may stay
     * beyond it (readers then show it by number), as the source had it. */
    for (uint32_t l = 0; l < p->n_locs; l++)
        for (uint32_t i = 0; i < p->locs[l].n_ids; i++)
            if (p->locs[l].ids[i].kind >= n && p->locs[l].ids[i].kind_name)
                n = p->locs[l].ids[i].kind + 1u;
    if (n > 255)
        return pk_fail(PK_ERR_UNSUPPORTED,
                       "meta.db: identifier kind %u does not fit (meta.db holds at most 255)",
                       n - 1);
    begin_section(w, HK_MS_ID_NAMES);
    size_t h = pk_buf_zeros(&w->b, 0x10);
    size_t pp = pk_buf_zeros(&w->b, 8u * n);
    pk_buf_set_u64(&w->b, h, pp);
    pk_buf_set_u8(&w->b, h + 8, (uint8_t)n);
    for (uint32_t k = 0; k < n; k++) {
        char made[32];
        const char *name = kind_name(p, k);
        if (!name) {
            snprintf(made, sizeof made, "KIND%u", k);
            name = made;
        }
        pk_buf_set_u64(&w->b, pp + 8u * k, pk_buf_utf8_str(&w->b, name));
    }
    end_section(w, HK_MS_ID_NAMES);
    return PK_OK;
}

/* {PS}.type and propagationIndex: the stored ones when they agree with
 * the scope's kind (an HPCToolkit source), otherwise derived from it. */
static void scope_type(const pk_scope *s, uint8_t *type, uint8_t *prop)
{
    static const uint8_t by_kind[] = {1, 3, 2, 0, 0}; /* point exclusive inclusive lex other */
    uint8_t want = s->kind <= PK_SCOPE_OTHER ? by_kind[s->kind] : 0;
    int stored_fits = s->raw_type == want || (want == 0 && s->raw_type > 3);
    *type = stored_fits ? s->raw_type : want;
    if (*type == 3)
        *prop = stored_fits ? s->propagation_index : 0;
    else
        *prop = stored_fits ? s->propagation_index : 255;
}

static const char *stat_formula(const pk_column *c)
{
    if (c->formula) return c->formula;
    if (c->stat == PK_STAT_COUNT) return "1";
    if (c->stat == PK_STAT_SUMSQ) return "($$^2)";
    return "$$";
}

static pk_status check_raw_id(const pk_column *c, uint32_t i)
{
    if (c->raw_id > UINT16_MAX)
        return pk_fail(PK_ERR_UNSUPPORTED,
                       "meta.db: column %u has metric id %u; meta.db ids are 16-bit", i, c->raw_id);
    if (c->scope >= UINT16_MAX) return pk_fail(PK_ERR_INVALID_ARG, "column %u has no scope", i);
    return PK_OK;
}

/* The {PSI} and {SS} arrays of metric m, then their pointers in its {MD}. */
static pk_status put_metric_columns(meta_w *w, uint32_t m, size_t md, size_t scopes_at)
{
    const pk_profile *p = w->p;
    uint32_t n_inst = 0, n_sum = 0;
    for (uint32_t i = 0; i < p->n_columns; i++) {
        if (p->columns[i].metric != m) continue;
        pk_status st = check_raw_id(&p->columns[i], i);
        if (st) return st;
        p->columns[i].is_summary ? n_sum++ : n_inst++;
    }
    if (n_inst > UINT16_MAX || n_sum > UINT16_MAX)
        return pk_fail(PK_ERR_UNSUPPORTED, "meta.db: metric %u has too many columns", m);
    size_t inst = pk_buf_zeros(&w->b, (size_t)n_inst * HK_SZ_PSI);
    size_t sum = pk_buf_zeros(&w->b, (size_t)n_sum * HK_SZ_SS);
    pk_buf_set_u64(&w->b, md + 0x08, inst);
    pk_buf_set_u64(&w->b, md + 0x10, sum);
    pk_buf_set_u16(&w->b, md + 0x18, (uint16_t)n_inst);
    pk_buf_set_u16(&w->b, md + 0x1a, (uint16_t)n_sum);
    for (uint32_t i = 0; i < p->n_columns; i++) {
        const pk_column *c = &p->columns[i];
        if (c->metric != m) continue;
        size_t scope = scopes_at + (size_t)c->scope * HK_SZ_PS;
        if (!c->is_summary) {
            pk_buf_set_u64(&w->b, inst, scope);
            pk_buf_set_u16(&w->b, inst + 8, (uint16_t)c->raw_id);
            inst += HK_SZ_PSI;
            continue;
        }
        pk_buf_set_u64(&w->b, sum, scope);
        pk_buf_set_u64(&w->b, sum + 8, pk_buf_utf8_str(&w->b, stat_formula(c)));
        pk_buf_set_u8(&w->b, sum + 0x10, (uint8_t)(c->combine <= PK_COMBINE_MAX ? c->combine : 0));
        pk_buf_set_u16(&w->b, sum + 0x12, (uint16_t)c->raw_id);
        sum += HK_SZ_SS;
        pk_buf_align(&w->b, 8);
    }
    return PK_OK;
}

static pk_status put_metrics(meta_w *w)
{
    const pk_profile *p = w->p;
    if (p->n_scopes > UINT16_MAX)
        return pk_fail(PK_ERR_UNSUPPORTED, "meta.db: %u scopes do not fit", p->n_scopes);
    begin_section(w, HK_MS_METRICS);
    size_t h = pk_buf_zeros(&w->b, 0x20);
    size_t scopes = pk_buf_zeros(&w->b, (size_t)p->n_scopes * HK_SZ_PS);
    size_t mds = pk_buf_zeros(&w->b, (size_t)p->n_metrics * HK_SZ_MD);
    pk_buf_set_u64(&w->b, h, mds);
    pk_buf_set_u32(&w->b, h + 0x08, p->n_metrics);
    pk_buf_set_u8(&w->b, h + 0x0c, HK_SZ_MD);
    pk_buf_set_u8(&w->b, h + 0x0d, HK_SZ_PSI);
    pk_buf_set_u8(&w->b, h + 0x0e, HK_SZ_SS);
    pk_buf_set_u64(&w->b, h + 0x10, scopes);
    pk_buf_set_u16(&w->b, h + 0x18, (uint16_t)p->n_scopes);
    pk_buf_set_u8(&w->b, h + 0x1a, HK_SZ_PS);
    for (uint32_t s = 0; s < p->n_scopes; s++) {
        uint8_t type, prop;
        scope_type(&p->scopes[s], &type, &prop);
        size_t e = scopes + (size_t)s * HK_SZ_PS;
        pk_buf_set_u64(&w->b, e,
                       pk_buf_utf8_str(&w->b, p->scopes[s].name ? p->scopes[s].name : ""));
        pk_buf_set_u8(&w->b, e + 8, type);
        pk_buf_set_u8(&w->b, e + 9, prop);
    }
    for (uint32_t m = 0; m < p->n_metrics; m++) {
        size_t md = mds + (size_t)m * HK_SZ_MD;
        pk_buf_set_u64(&w->b, md,
                       pk_buf_utf8_str(&w->b, p->metrics[m].name ? p->metrics[m].name : ""));
        pk_buf_align(&w->b, 8);
        pk_status st = put_metric_columns(w, m, md, scopes);
        if (st) return st;
    }
    end_section(w, HK_MS_METRICS);
    return PK_OK;
}

static void put_strings(meta_w *w)
{
    const pk_profile *p = w->p;
    begin_section(w, HK_MS_STRINGS);
    for (uint32_t i = 0; i < p->n_modules; i++)
        w->mod_name[i] = pk_buf_utf8_str(&w->b, p->modules[i].path ? p->modules[i].path : "");
    for (uint32_t i = 0; i < p->n_files; i++)
        w->file_name[i] = pk_buf_utf8_str(&w->b, p->files[i].path ? p->files[i].path : "");
    for (uint32_t i = 0; i < p->n_functions; i++)
        w->fn_name[i] = str_or_zero(&w->b, p->functions[i].name);
    const pk_ctx_rec *root = &p->ctx[0];
    for (uint32_t k = 0; k < root->n_children; k++) { /* hpcviewer names entries by these */
        const pk_ctx_rec *e = &p->ctx[root->first_child + k];
        const char *name = e->entry_name                     ? e->entry_name
                           : e->entry == PK_ENTRY_MAIN       ? "main thread"
                           : e->entry == PK_ENTRY_APP_THREAD ? "application thread"
                                                             : "unknown entry";
        w->entry_name[k] = pk_buf_utf8_str(&w->b, name);
    }
    end_section(w, HK_MS_STRINGS);
}

/* Load Modules and Source Files: {u32 flags, char* pPath}. */
static size_t put_path_table(meta_w *w, int s, uint32_t n, const size_t *names,
                             const pk_file *files)
{
    begin_section(w, s);
    size_t h = pk_buf_zeros(&w->b, 0x10);
    size_t a = pk_buf_zeros(&w->b, (size_t)n * HK_SZ_MODULE);
    pk_buf_set_u64(&w->b, h, a);
    pk_buf_set_u32(&w->b, h + 8, n);
    pk_buf_set_u16(&w->b, h + 0x0c, HK_SZ_MODULE);
    for (uint32_t i = 0; i < n; i++) {
        pk_buf_set_u32(&w->b, a + (size_t)i * HK_SZ_MODULE, files ? files[i].flags : 0);
        pk_buf_set_u64(&w->b, a + (size_t)i * HK_SZ_MODULE + 8, names[i]);
    }
    end_section(w, s);
    return a;
}

static size_t module_ptr(const meta_w *w, uint32_t i)
{
    return i < w->p->n_modules ? w->mods_at + (size_t)i * HK_SZ_MODULE : 0;
}

static size_t file_ptr(const meta_w *w, uint32_t i)
{
    return i < w->p->n_files ? w->files_at + (size_t)i * HK_SZ_FILE : 0;
}

static void put_functions(meta_w *w)
{
    const pk_profile *p = w->p;
    begin_section(w, HK_MS_FUNCTIONS);
    size_t h = pk_buf_zeros(&w->b, 0x10);
    size_t a = pk_buf_zeros(&w->b, (size_t)p->n_functions * HK_SZ_FUNCTION);
    pk_buf_set_u64(&w->b, h, a);
    pk_buf_set_u32(&w->b, h + 8, p->n_functions);
    pk_buf_set_u16(&w->b, h + 0x0c, HK_SZ_FUNCTION);
    for (uint32_t i = 0; i < p->n_functions; i++) {
        const pk_function *f = &p->functions[i];
        size_t e = a + (size_t)i * HK_SZ_FUNCTION;
        pk_buf_set_u64(&w->b, e, w->fn_name[i]);
        pk_buf_set_u64(&w->b, e + 0x08, module_ptr(w, f->module));
        pk_buf_set_u64(&w->b, e + 0x10, f->module < p->n_modules ? f->offset : 0);
        pk_buf_set_u64(&w->b, e + 0x18, file_ptr(w, f->file));
        pk_buf_set_u32(&w->b, e + 0x20, f->line);
    }
    w->fns_at = a;
    end_section(w, HK_MS_FUNCTIONS);
}

/* Stored enumeration values: the model's kind when it maps, else the raw
 * value the source file had (an unknown value survives a round trip). */
static uint8_t lexical_type(const pk_ctx_rec *c)
{
    switch (c->kind) {
    case PK_CTX_FUNCTION:
        return 0;
    case PK_CTX_LOOP:
        return 1;
    case PK_CTX_LINE:
        return 2;
    case PK_CTX_INSTRUCTION:
        return 3;
    default:
        return c->raw_kind;
    }
}

static uint8_t relation_code(const pk_ctx_rec *c)
{
    switch (c->relation) {
    case PK_REL_LEXICAL:
        return 0;
    case PK_REL_CALL:
        return 1;
    case PK_REL_INLINED_CALL:
        return 2;
    default:
        return c->raw_relation;
    }
}

static uint16_t entry_code(const pk_ctx_rec *c)
{
    switch (c->entry) {
    case PK_ENTRY_UNKNOWN:
        return 0;
    case PK_ENTRY_MAIN:
        return 1;
    case PK_ENTRY_APP_THREAD:
        return 2;
    default:
        return c->raw_entry;
    }
}

static unsigned flex_words(const pk_ctx_rec *c)
{
    return (c->flags & PK_CTXF_HAS_FUNCTION ? 1 : 0) + (c->flags & PK_CTXF_HAS_SRCLOC ? 2 : 0) +
           (c->flags & PK_CTXF_HAS_POINT ? 2 : 0);
}

static size_t ctx_size(const pk_ctx_rec *c)
{
    return HK_SZ_CTX + 8u * flex_words(c);
}

/* Does meta.db give context c a children array? */
static int lists_children(const pk_ctx_rec *c)
{
    return !(c->flags & PK_CTXF_UNLISTED) && c->n_children;
}

static uint64_t children_size(const pk_profile *p, const pk_ctx_rec *c)
{
    uint64_t n = 0;
    for (uint32_t k = 0; k < c->n_children; k++)
        n += ctx_size(&p->ctx[c->first_child + k]);
    return n;
}

/* The first 16 bytes of an entry's or a context's record: its children
 * array's size and place (from plan_contexts()), or zeros. */
static void put_children_ref(unsigned char *r, const pk_profile *p, uint32_t i, const uint64_t *at)
{
    if (!lists_children(&p->ctx[i])) return;
    pk_put_le64(r, at[i + 1] - at[i]);
    pk_put_le64(r + 8, at[i]);
}

/* The {Ctx} of context i, written out. */
static void put_context(const meta_w *w, pk_out *out, uint32_t i, const uint64_t *at)
{
    const pk_ctx_rec *c = &w->p->ctx[i];
    unsigned char r[HK_SZ_CTX + 8 * 5] = {0};
    unsigned char *word = r + HK_SZ_CTX;
    uint8_t flags = 0;
    put_children_ref(r, w->p, i, at);
    if (c->flags & PK_CTXF_HAS_FUNCTION) {
        flags |= 1;
        pk_put_le64(word, w->fns_at + (size_t)c->function * HK_SZ_FUNCTION);
        word += 8;
    }
    if (c->flags & PK_CTXF_HAS_SRCLOC) {
        flags |= 2;
        pk_put_le64(word, file_ptr(w, c->file));
        pk_put_le32(word + 8, c->line);
        word += 16;
    }
    if (c->flags & PK_CTXF_HAS_POINT) {
        flags |= 4;
        pk_put_le64(word, module_ptr(w, c->module));
        pk_put_le64(word + 8, c->offset);
    }
    pk_put_le32(r + 0x10, (uint32_t)c->id);
    r[0x14] = flags;
    r[0x15] = relation_code(c);
    r[0x16] = lexical_type(c);
    r[0x17] = (uint8_t)flex_words(c);
    pk_put_le16(r + 0x18, w->rule_bits ? (c->relation == PK_REL_LEXICAL ? 1 : 0) : c->propagation);
    pk_out_bytes(out, r, ctx_size(c));
}

/* What meta.db cannot express is refused here, before anything is laid
 * out: ids beyond 32 bits, entry points anywhere but under the root,
 * dangling references. */
static pk_status check_contexts(const pk_profile *p)
{
    if (!p->n_ctx || p->ctx[0].id != 0)
        return pk_fail(PK_ERR_INVALID_ARG, "meta.db: the root context must have id 0");
    const pk_ctx_rec *root = &p->ctx[0];
    if (root->n_children > UINT16_MAX)
        return pk_fail(PK_ERR_UNSUPPORTED, "meta.db: %u entry points do not fit (at most 65535)",
                       root->n_children);
    for (uint32_t i = 1; i < p->n_ctx; i++) {
        const pk_ctx_rec *c = &p->ctx[i];
        int under_root = c->parent == 0;
        if (c->id > UINT32_MAX || c->id == 0)
            return pk_fail(PK_ERR_UNSUPPORTED, "meta.db: context %u has id %llu (needs 1..2^32-1)",
                           i, (unsigned long long)c->id);
        if (under_root != (c->kind == PK_CTX_ENTRY))
            return pk_fail(PK_ERR_UNSUPPORTED,
                           "meta.db: context %llu: %s (HPCToolkit puts entry points, and only "
                           "them, directly under the root)",
                           (unsigned long long)c->id,
                           under_root ? "a child of the root that is not an entry point"
                                      : "an entry point below the root");
        if (((c->flags & PK_CTXF_HAS_FUNCTION) && c->function >= p->n_functions) ||
            ((c->flags & PK_CTXF_HAS_SRCLOC) && c->file >= p->n_files) ||
            ((c->flags & PK_CTXF_HAS_POINT) && c->module >= p->n_modules))
            return pk_fail(PK_ERR_INVALID_ARG, "meta.db: context %llu names a missing %s",
                           (unsigned long long)c->id,
                           (c->flags & PK_CTXF_HAS_FUNCTION) && c->function >= p->n_functions
                               ? "function"
                               : "file or module");
    }
    return PK_OK;
}

/* The Context section is the last one and the largest (cc1: 32 of 34 MB),
 * so it is not laid out in memory but written straight out: the
 * section's header, the entry points, then each listed context's
 * children array in context order. A first pass places every array
 * (at[i]: where context i's children start, the section's end), so the
 * second writes each record once, front to back, its children's place
 * already known. Contexts come parents first (the model's order), so an
 * array is placed before any array below it. at[] has n_ctx + 1 places:
 * at[i + 1] - at[i] is the size of i's array (0 for one not listed), so
 * the children are measured once, here. Returns the end. */
static uint64_t plan_contexts(const pk_profile *p, uint64_t lo, uint64_t *at)
{
    uint64_t pos = lo + 0x10 + (uint64_t)p->ctx[0].n_children * HK_SZ_ENTRY;
    at[0] = pos; /* the root's children are the entries, above */
    for (uint32_t i = 1; i < p->n_ctx; i++) {
        at[i] = pos;
        if (lists_children(&p->ctx[i])) pos += children_size(p, &p->ctx[i]);
    }
    return at[p->n_ctx] = pos;
}

static void put_contexts(const meta_w *w, pk_out *out, uint64_t lo, uint64_t hi, const uint64_t *at)
{
    const pk_profile *p = w->p;
    const pk_ctx_rec *root = &p->ctx[0];
    unsigned char h[0x10] = {0};
    pk_put_le64(h, lo + 0x10);
    pk_put_le16(h + 8, (uint16_t)root->n_children);
    h[0x0a] = HK_SZ_ENTRY;
    pk_out_bytes(out, h, sizeof h);
    for (uint32_t k = 0; k < root->n_children; k++) {
        unsigned char r[HK_SZ_ENTRY] = {0};
        uint32_t i = root->first_child + k;
        put_children_ref(r, p, i, at);
        pk_put_le32(r + 0x10, (uint32_t)p->ctx[i].id);
        pk_put_le16(r + 0x14, entry_code(&p->ctx[i]));
        pk_put_le64(r + 0x18, w->entry_name[k]);
        pk_out_bytes(out, r, sizeof r);
    }
    for (uint32_t i = 1; i < p->n_ctx; i++) {
        const pk_ctx_rec *c = &p->ctx[i];
        if (!lists_children(c)) continue;
        pk_out_expect(out, at[i], "a children array of meta.db");
        for (uint32_t k = 0; k < c->n_children; k++)
            put_context(w, out, c->first_child + k, at);
    }
    pk_out_expect(out, hi, "the end of meta.db's contexts");
}

/* Every section but the contexts, in memory; the section table too; the
 * contexts' plan in at[]. */
static pk_status lay_out(meta_w *w, uint64_t *at, uint64_t *ctx_lo, uint64_t *ctx_hi)
{
    const pk_profile *p = w->p;
    size_t h = pk_buf_zeros(&w->b, HK_SZ_META_HEADER);
    if (!w->b.failed) hk_put_file_header(w->b.data + h, "meta");
    put_general(w);
    pk_status st = put_id_names(w);
    if (!st) st = put_metrics(w);
    if (st) return st;
    put_strings(w);
    w->mods_at = put_path_table(w, HK_MS_MODULES, p->n_modules, w->mod_name, NULL);
    w->files_at = put_path_table(w, HK_MS_FILES, p->n_files, w->file_name, p->files);
    put_functions(w);
    begin_section(w, HK_MS_CONTEXT);
    w->hi[HK_MS_CONTEXT] = plan_contexts(p, w->lo[HK_MS_CONTEXT], at);
    for (int s = 0; s < 8; s++) {
        pk_buf_set_u64(&w->b, 0x10 + 16u * s, w->hi[s] - w->lo[s]);
        pk_buf_set_u64(&w->b, 0x18 + 16u * s, w->lo[s]);
    }
    *ctx_lo = w->lo[HK_MS_CONTEXT], *ctx_hi = w->hi[HK_MS_CONTEXT];
    return w->b.failed ? pk_fail_nomem("laying out meta.db") : PK_OK;
}

static pk_status write_out(meta_w *w, pk_out *out, int footer)
{
    uint64_t lo = 0, hi = 0, *at = malloc(((size_t)w->p->n_ctx + 1) * sizeof *at);
    if (!at) return pk_fail_nomem("laying out meta.db");
    pk_status st = lay_out(w, at, &lo, &hi);
    if (!st) {
        pk_out_bytes(out, w->b.data, w->b.len);
        pk_buf_free(&w->b); /* the contexts are written from the plan alone */
        put_contexts(w, out, lo, hi, at);
        if (footer) pk_out_bytes(out, "_meta.db", 8);
    }
    free(at);
    return st;
}

pk_status hk_write_meta(const pk_profile *p, pk_out *out, int footer)
{
    pk_status st = check_contexts(p);
    if (st) return st;
    meta_w w = {.p = p, .rule_bits = !hk_shape_bits_known(p)};
    size_t n_entries = p->ctx[0].n_children;
    w.mod_name = calloc(p->n_modules + 1u, sizeof *w.mod_name);
    w.file_name = calloc(p->n_files + 1u, sizeof *w.file_name);
    w.fn_name = calloc(p->n_functions + 1u, sizeof *w.fn_name);
    w.entry_name = calloc(n_entries + 1, sizeof *w.entry_name);
    if (!w.mod_name || !w.file_name || !w.fn_name || !w.entry_name)
        st = pk_fail_nomem("laying out meta.db");
    else
        st = write_out(&w, out, footer);
    free(w.mod_name);
    free(w.file_name);
    free(w.fn_name);
    free(w.entry_name);
    pk_buf_free(&w.b);
    return st;
}
