/*
 * formats/hpctoolkit_xml/sparse.c — the big-endian sparse value files of
 * the draft "Prof2" HPCToolkit database (experiment.xml 4.0, written by
 * hpcprof2 on HPCToolkit's develop branch 2021-10 .. 2022-08; hpcviewer
 * 2021.10 .. 2022.06 read it). docs/hpctoolkit-draft.md has the layout.
 *
 *   profile.db "HPCPROF-profdb__": per profile (index 0 = the summary) a
 *     block of (f64 value, u16 metric id) pairs and (u32 context id, u64
 *     first pair) runs closed by context id 0x656E6421 ("end!").
 *   cct.db "HPCPROF-cctdb___": the same values transposed: per context
 *     (f64 value, u32 profile index) pairs and (u16 metric id, u64 first
 *     pair) runs closed by metric id 0x6564 ("ed").
 *
 * Everything is checked before the model is built (hx_draft_scan), so that
 * the largest context id is known when the entry points are numbered;
 * values go into the model afterwards (hx_draft_values). cct.db is only
 * compared with profile.db: a disagreement is a warning, not an error.
 */
#include <stdlib.h>
#include <string.h>

#include "hx.h"
#include "util/bytes.h"
#include "util/vec.h"

#define PI_SIZE   52 /* Profile Info */
#define CI_SIZE   22 /* Context Info */
#define PVAL_SIZE 10 /* profile.db (f64, u16 metric) */
#define PCTX_SIZE 12 /* profile.db (u32 context, u64 index) */
#define CVAL_SIZE 12 /* cct.db (f64, u32 profile) */
#define CMET_SIZE 10 /* cct.db (u16 metric, u64 index) */
#define IDT_ELEM  18 /* id tuple element: u16 kind, u64 physical, u64 logical */
#define PROF_END  0x656E6421u
#define CCT_END   0x6564u

/* Whether [off, off + len) lies within [lo, hi). */
static int inside(uint64_t off, uint64_t len, uint64_t lo, uint64_t hi)
{
    return off >= lo && off <= hi && len <= hi - off;
}

/* The common header: magic, version, item count, one (size, offset) pair
 * per section (each checked against the file, which ends with the footer). */
static pk_status check_header(const hx_file *f, const char *magic, const char *footer,
                              unsigned n_sec_min, uint32_t *n_items, uint64_t sec[][2])
{
    if (f->size < 24 + 16 * n_sec_min + 8)
        return hx_fail(f, "header", 0, "%llu bytes, too short for the header and footer",
                       (unsigned long long)f->size);
    if (memcmp(f->data, magic, 16) != 0) return hx_fail(f, "header", 0, "magic is not %s", magic);
    /* hpcprof2 wrote 1.0 (tracedb.h); the draft FORMATS.md says 4.0 */
    if (!((f->data[16] == 1 || f->data[16] == 4) && f->data[17] == 0))
        return hx_fail(f, "header", 16, "version %u.%u (profkit reads 1.0 and 4.0)", f->data[16],
                       f->data[17]);
    uint64_t end = f->size;
    if (footer) {
        if (memcmp(f->data + f->size - 8, footer, 8) != 0)
            return hx_fail(f, "footer", f->size - 8,
                           "missing (\"%.8s\"): the file is truncated or damaged", footer);
        end -= 8;
    }
    *n_items = pk_be32(f->data + 18);
    unsigned n_sec = pk_be16(f->data + 22);
    if (n_sec < n_sec_min)
        return hx_fail(f, "header", 22, "%u sections, expected at least %u", n_sec, n_sec_min);
    for (unsigned s = 0; s < n_sec_min; s++) {
        sec[s][0] = pk_be64(f->data + 24 + 16 * s), sec[s][1] = pk_be64(f->data + 32 + 16 * s);
        if (!inside(sec[s][1], sec[s][0], 24 + 16 * (uint64_t)n_sec, end))
            return hx_fail(f, "header", 24 + 16 * s,
                           "section %u at 0x%llx, %llu bytes, is outside the file", s,
                           (unsigned long long)sec[s][1], (unsigned long long)sec[s][0]);
    }
    return PK_OK;
}

/* One id tuple at `off` within the tuple section [lo, hi). */
static pk_status check_tuple(const hx_file *f, uint64_t off, uint64_t lo, uint64_t hi,
                             uint32_t prof)
{
    if (!inside(off, 2, lo, hi) ||
        !inside(off + 2, (uint64_t)pk_be16(f->data + off) * IDT_ELEM, lo, hi))
        return hx_fail(f, "Profile Info", 0,
                       "profile %u: identifier tuple at 0x%llx is outside its section", prof,
                       (unsigned long long)off);
    return PK_OK;
}

/* Profile p's value block: runs in ascending context order, indexes
 * ascending within num_vals, closed by the end marker. */
static pk_status check_prof_block(hx_reader *r, const hx_file *f, uint32_t p, uint64_t *max_ctx)
{
    const unsigned char *e = f->data + r->draft.pi_off + (uint64_t)p * PI_SIZE;
    uint64_t nv = pk_be64(e + 32), off = pk_be64(e + 44),
             at = r->draft.pi_off + (uint64_t)p * PI_SIZE;
    uint32_t nc = pk_be32(e + 40);
    uint64_t end = f->size - 8;
    if (nv == 0 && nc == 0) return PK_OK; /* as in cct.db: an empty block may be absent */
    if (nv > end / PVAL_SIZE ||
        !inside(off, nv * PVAL_SIZE + ((uint64_t)nc + 1) * PCTX_SIZE, 0, end))
        return hx_fail(f, "Profile Info", at + 32,
                       "profile %u: %llu values and %u contexts at 0x%llx do not fit the file", p,
                       (unsigned long long)nv, nc, (unsigned long long)off);
    const unsigned char *c = f->data + off + nv * PVAL_SIZE;
    uint64_t prev_idx = 0;
    for (uint32_t i = 0; i <= nc; i++, c += PCTX_SIZE) {
        uint32_t id = pk_be32(c);
        uint64_t idx = pk_be64(c + 4), where = (uint64_t)(c - f->data);
        if (i == nc ? id != PROF_END : id == PROF_END || (i && id <= pk_be32(c - PCTX_SIZE)))
            return hx_fail(f, "profile context index", where,
                           i == nc ? "profile %u: end marker 0x656E6421 missing"
                                   : "profile %u: context ids not ascending",
                           p);
        if (idx < prev_idx || idx > nv || (i == 0 && idx != 0) || (i == nc && idx != nv))
            return hx_fail(f, "profile context index", where + 4,
                           "profile %u: value index %llu out of order (0..%llu)", p,
                           (unsigned long long)idx, (unsigned long long)nv);
        prev_idx = idx;
        if (i < nc && id > *max_ctx) *max_ctx = id;
    }
    return PK_OK;
}

static pk_status scan_profile_db(hx_reader *r, const hx_file *f, uint64_t *max_ctx)
{
    uint64_t sec[2][2] = {{0}};
    uint32_t n = 0;
    pk_status st = check_header(f, "HPCPROF-profdb__", "tfBDFORP", 2, &n, sec);
    if (st) return st;
    if (n == 0) return hx_fail(f, "header", 18, "no profiles (profile 0 is the summary)");
    if ((uint64_t)n * PI_SIZE > sec[0][0])
        return hx_fail(f, "header", 24, "%u Profile Infos of 52 bytes do not fit %llu bytes", n,
                       (unsigned long long)sec[0][0]);
    r->draft.profile_db = f, r->draft.n_prof = n;
    r->draft.pi_off = sec[0][1], r->draft.idt_lo = sec[1][1];
    r->draft.idt_hi = sec[1][1] + sec[1][0];
    for (uint32_t p = 0; p < n && !st; p++) {
        uint64_t idt = pk_be64(f->data + sec[0][1] + (uint64_t)p * PI_SIZE);
        st = check_tuple(f, idt, r->draft.idt_lo, r->draft.idt_hi, p);
        if (!st) st = check_prof_block(r, f, p, max_ctx);
    }
    return st;
}

static int all_zero(const unsigned char *d, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (d[i]) return 0;
    return 1;
}

/* Context c's block in cct.db: within the file; then, unless hpcprof2
 * left it zero-filled, metric runs ascending, indexes in range, profile
 * indexes below num_prof. */
static pk_status check_ctx_block(hx_reader *r, const hx_file *f, uint64_t at)
{
    const unsigned char *e = f->data + at;
    uint64_t nv = pk_be64(e + 4), off = pk_be64(e + 14), end = f->size - 8;
    uint32_t nm = pk_be16(e + 12);
    uint64_t len = nv * CVAL_SIZE + ((uint64_t)nm + 1) * CMET_SIZE;
    if (nv == 0 && nm == 0) return PK_OK; /* hpcprof2 writes no block, not even the end marker */
    if (nv > end / CVAL_SIZE || !inside(off, len, 0, end))
        return hx_fail(f, "Context Info", at + 4,
                       "context %u: %llu values and %u metrics at 0x%llx do not fit the file",
                       pk_be32(e), (unsigned long long)nv, nm, (unsigned long long)off);
    if (all_zero(f->data + off, len)) {
        r->draft.cct_unwritten++;
        return PK_OK;
    }
    const unsigned char *m = f->data + off + nv * CVAL_SIZE;
    uint64_t prev = 0;
    for (uint32_t i = 0; i <= nm; i++, m += CMET_SIZE) {
        uint64_t idx = pk_be64(m + 2), where = (uint64_t)(m - f->data);
        uint16_t id = pk_be16(m);
        if (i == nm ? id != CCT_END : (i && id <= pk_be16(m - CMET_SIZE)))
            return hx_fail(f, "context metric index", where,
                           i == nm ? "end marker 0x6564 missing" : "metric ids not ascending");
        if (idx < prev || idx > nv || (i == 0 && idx != 0) || (i == nm && idx != nv))
            return hx_fail(f, "context metric index", where + 2,
                           "value index %llu out of order (0..%llu)", (unsigned long long)idx,
                           (unsigned long long)nv);
        prev = idx;
    }
    for (uint64_t v = 0; v < nv; v++) {
        uint32_t prof = pk_be32(f->data + off + v * CVAL_SIZE + 8);
        if (prof >= r->draft.n_prof)
            return hx_fail(f, "context values", off + v * CVAL_SIZE + 8,
                           "profile index %u, profile.db has %u", prof, r->draft.n_prof);
    }
    return PK_OK;
}

static pk_status scan_cct_db(hx_reader *r, const hx_file *f, uint64_t *max_ctx)
{
    uint64_t sec[1][2] = {{0}};
    uint32_t n = 0;
    pk_status st = check_header(f, "HPCPROF-cctdb___", "rtfBDTCC", 1, &n, sec);
    if (st) return st;
    if ((uint64_t)n * CI_SIZE > sec[0][0])
        return hx_fail(f, "header", 24, "%u Context Infos of 22 bytes do not fit %llu bytes", n,
                       (unsigned long long)sec[0][0]);
    for (uint32_t c = 0; c < n && !st; c++) {
        uint64_t at = sec[0][1] + (uint64_t)c * CI_SIZE;
        if (pk_be32(f->data + at) != c) /* the draft: Context Info c is at ci_ptr + 22 c */
            return hx_fail(f, "Context Info", at, "context id %u in slot %u", pk_be32(f->data + at),
                           c);
        st = check_ctx_block(r, f, at);
    }
    if (n && n - 1 > *max_ctx) *max_ctx = n - 1;
    r->draft.cct_db = f, r->draft.ci_off = sec[0][1], r->draft.n_ctx = n;
    return st;
}

/* Node k (written with a negative i: a call site no *.db has values for,
 * e.g. <program root>'s call of main) leaves the tree: its children take
 * its place under its parent, and its trace id (it=) names the parent's
 * context, the procedure hpcviewer shows for such a sample. Nodes come
 * parent first, so a parent spliced earlier has already handed k over. */
static void splice(hx_exp *x, uint32_t k)
{
    hx_node *n = &x->nodes[k], *par = &x->nodes[n->parent];
    uint32_t prev = PK_NONE;
    for (uint32_t c = par->n_kids ? par->first_kid : PK_NONE; c != k; c = x->nodes[c].next_sib)
        prev = c;
    uint32_t first = n->n_kids ? n->first_kid : n->next_sib;
    uint32_t last = n->n_kids ? n->last_kid : prev;
    for (uint32_t c = n->n_kids ? n->first_kid : PK_NONE; c != PK_NONE; c = x->nodes[c].next_sib)
        x->nodes[c].parent = n->parent;
    if (n->n_kids) x->nodes[n->last_kid].next_sib = n->next_sib;
    if (prev == PK_NONE)
        par->first_kid = first;
    else
        x->nodes[prev].next_sib = first;
    if (par->last_kid == k) par->last_kid = last;
    par->n_kids = par->n_kids - 1 + n->n_kids;
    if (!par->n_kids) par->first_kid = PK_NONE;
    n->id = n->parent ? par->id : 0, n->n_kids = 0, n->first_kid = PK_NONE;
}

pk_status hx_draft_scan(hx_reader *r, const hx_file *profile_db, const hx_file *cct_db)
{
    uint64_t max_ctx = 0;
    pk_status st = PK_OK;
    if (!profile_db)
        return hx_fail(r->xml, "HPCToolkitExperiment", 0,
                       "version 4.0 database without profile.db (it holds every value)");
    st = scan_profile_db(r, profile_db, &max_ctx);
    if (!st && cct_db) st = scan_cct_db(r, cct_db, &max_ctx);
    if (st) return st;
    uint64_t next = max_ctx;
    for (uint32_t k = 1; k < r->x.n_nodes; k++)
        if (r->x.nodes[k].no_db_id)
            splice(&r->x, k);
        else if (r->x.nodes[k].id > next)
            next = r->x.nodes[k].id;
    if (next >= HX_ENTRY_ID_BASE)
        return hx_fail(r->xml, "SecCallPathProfileData", 0, "context ids exceed 32 bits");
    r->max_id = next;
    return PK_OK;
}

/* The plane being filled: counted first (vals NULL), then written. */
typedef struct plane_out {
    unsigned char *vals, *idx;
    uint64_t nv;
    uint32_t ni;
} plane_out;

static void put(plane_out *o, uint32_t raw, double v)
{
    if (o->vals) {
        pk_put_le16(o->vals + o->nv * PK_LM_VAL_SIZE, (uint16_t)raw);
        pk_put_le64(o->vals + o->nv * PK_LM_VAL_SIZE + 2, pk_f64_bits(v));
    }
    o->nv++;
}

/* Close the run of context `id` that began at value `start`: indexed if
 * not empty, sorted by column id (the model's lookups bisect). */
static int close_run(plane_out *o, uint64_t id, uint64_t start)
{
    if (o->nv == start) return 0;
    if (o->vals)
        for (uint64_t i = start + 1; i < o->nv; i++)
            for (uint64_t j = i; j > start; j--) {
                unsigned char *a = o->vals + (j - 1) * PK_LM_VAL_SIZE, *b = a + PK_LM_VAL_SIZE;
                if (pk_le16(a) < pk_le16(b)) break;
                if (pk_le16(a) == pk_le16(b)) return 1;
                unsigned char t[PK_LM_VAL_SIZE];
                memcpy(t, a, sizeof t), memcpy(a, b, sizeof t), memcpy(b, t, sizeof t);
            }
    if (o->idx) {
        pk_put_le32(o->idx + o->ni * PK_LM_IDX_SIZE, (uint32_t)id);
        pk_put_le64(o->idx + o->ni * PK_LM_IDX_SIZE + 4, start);
    }
    o->ni++;
    return 0;
}

/* Whether column c's values at a top-level node add up at its entry
 * point: inclusive, and for summary columns a sum over threads. */
static int sums_at_entry(const pk_profile *p, uint32_t c)
{
    const pk_column *col = &p->columns[c];
    return p->scopes[col->scope].kind == PK_SCOPE_INCLUSIVE &&
           (!col->is_summary || col->stat == PK_STAT_SUM);
}

typedef struct prof_walk {
    uint32_t prof;
    int summary;
    double *ent;      /* entry slot × column sums (write pass) */
    uint64_t dropped; /* summary values of metric ids without a column */
} prof_walk;

/* Profile w->prof's values in context order, then its entry points. */
static pk_status walk_profile(hx_reader *r, prof_walk *w, plane_out *o)
{
    const hx_file *f = r->draft.profile_db;
    pk_profile *p = r->p;
    const unsigned char *e = f->data + r->draft.pi_off + (uint64_t)w->prof * PI_SIZE;
    uint64_t nv = pk_be64(e + 32), off = pk_be64(e + 44);
    uint32_t nc = pk_be32(e + 40), nc_cols = p->n_columns;
    if (nv == 0) nc = 0; /* an empty profile (checked: no contexts either) */
    const unsigned char *ctx = f->data + off + nv * PVAL_SIZE;
    for (uint32_t i = 0; i < nc; i++, ctx += PCTX_SIZE) {
        uint32_t id = pk_be32(ctx);
        int slot = hx_top_slot(r, id);
        uint64_t start = o->nv;
        for (uint64_t v = pk_be64(ctx + 4); v < pk_be64(ctx + 4 + PCTX_SIZE); v++) {
            const unsigned char *rec = f->data + off + v * PVAL_SIZE;
            double val = pk_be_f64(rec);
            uint32_t c = pk_model_col_of(p, w->summary, pk_be16(rec + 8));
            if (c == PK_NONE && w->summary) {
                w->dropped += o->vals != NULL;
                continue;
            }
            if (c == PK_NONE)
                return hx_fail(f, "profile values", off + v * PVAL_SIZE + 8,
                               "profile %u: metric id %u is not in experiment.xml's "
                               "MetricDBTable",
                               w->prof, pk_be16(rec + 8));
            if (val == 0) continue;
            put(o, pk_be16(rec + 8), val);
            if (o->vals && slot >= 0 && sums_at_entry(p, c))
                w->ent[(uint64_t)slot * nc_cols + c] += val;
        }
        if (close_run(o, id, start))
            return hx_fail(f, "profile values", off + pk_be64(ctx + 4) * PVAL_SIZE,
                           "profile %u: context %u has a metric id twice", w->prof, id);
    }
    for (unsigned s = 0; s < r->n_entries; s++) {
        uint64_t start = o->nv;
        for (uint32_t c = 0; c < nc_cols; c++) {
            double v = w->ent ? w->ent[(uint64_t)s * nc_cols + c] : 0;
            if (o->vals ? v != 0 : sums_at_entry(p, c) && p->columns[c].is_summary == w->summary)
                put(o, p->columns[c].raw_id, v);
        }
        close_run(o, r->max_id + 1 + s, start);
    }
    return PK_OK;
}

static pk_status profile_plane(hx_reader *r, uint32_t prof, pk_plane *out, uint64_t *dropped)
{
    prof_walk w = {prof, prof == 0, NULL, 0};
    plane_out count = {0};
    pk_status st = walk_profile(r, &w, &count);
    if (st) return st;
    w.ent = calloc((size_t)r->n_entries * r->p->n_columns + 1, sizeof *w.ent);
    plane_out o = {pk_model_alloc_owned(r->p, count.nv * PK_LM_VAL_SIZE + 1),
                   pk_model_alloc_owned(r->p, (uint64_t)count.ni * PK_LM_IDX_SIZE + 1), 0, 0};
    if (!w.ent || !o.vals || !o.idx) {
        free(w.ent);
        return pk_fail_nomem("reading profile.db");
    }
    st = walk_profile(r, &w, &o);
    free(w.ent);
    for (uint32_t i = 0; i < o.ni && !st; i++) {
        uint64_t id = pk_le32(o.idx + i * PK_LM_IDX_SIZE);
        if (pk_model_ctx_find(r->p, id) == PK_NONE && pk_idset_add(&r->unlisted, id) < 0)
            st = pk_fail_nomem("collecting context ids");
    }
    *out = (pk_plane){o.vals, o.idx, o.nv, o.ni};
    *dropped += w.dropped;
    return st;
}

/* Profile prof's identifier tuple (checked by the scan). The summary's
 * tuple (kind SUMMARY) is not kept: the summary location has none. */
static pk_status tuple_of(hx_reader *r, uint32_t prof, struct hx_loc *loc)
{
    const hx_file *f = r->draft.profile_db;
    pk_profile *p = r->p;
    uint64_t off = pk_be64(f->data + r->draft.pi_off + (uint64_t)prof * PI_SIZE);
    uint16_t n = pk_be16(f->data + off);
    pk_ident *ids = pk_arena_array(&p->arena, n + 1u, sizeof *ids);
    if (!ids) return pk_fail_nomem("reading identifier tuples");
    for (uint16_t i = 0; i < n; i++) {
        const unsigned char *e = f->data + off + 2 + (uint64_t)i * IDT_ELEM;
        /* kind in the low 14 bits, hpcviewer's "interpret" in the top 2:
         * 0 both ids valid, 1/2 the physical id identifies it (hpcviewer
         * shows "physical*"), 3 logical only */
        uint16_t kind = pk_be16(e) & 0x3fff, interpret = pk_be16(e) >> 14;
        uint64_t logical = pk_be64(e + 10);
        if (logical > UINT32_MAX)
            return hx_fail(f, "identifier tuple", off + 2 + i * IDT_ELEM + 10,
                           "logical id %llu does not fit 32 bits", (unsigned long long)logical);
        ids[i] = (pk_ident){kind, kind < p->n_id_kinds ? p->id_kind_names[kind] : NULL,
                            interpret == 1 || interpret == 2 ? PK_ID_PHYSICAL : 0,
                            (uint32_t)logical, pk_be64(e + 2)};
    }
    loc->ids = ids, loc->n_ids = n;
    return PK_OK;
}

/* The run of context c in profile prof: [*lo, *hi) value indexes. */
static int prof_run(hx_reader *r, uint32_t prof, uint32_t c, uint64_t *lo, uint64_t *hi)
{
    const hx_file *f = r->draft.profile_db;
    const unsigned char *e = f->data + r->draft.pi_off + (uint64_t)prof * PI_SIZE;
    uint64_t nv = pk_be64(e + 32), off = pk_be64(e + 44);
    uint32_t a = 0, b = pk_be32(e + 40);
    const unsigned char *ctx = f->data + off + nv * PVAL_SIZE;
    while (a < b) {
        uint32_t mid = a + (b - a) / 2, id = pk_be32(ctx + (uint64_t)mid * PCTX_SIZE);
        if (id == c) {
            *lo = pk_be64(ctx + (uint64_t)mid * PCTX_SIZE + 4);
            *hi = pk_be64(ctx + (uint64_t)mid * PCTX_SIZE + 4 + PCTX_SIZE);
            return 1;
        }
        if (id < c)
            a = mid + 1;
        else
            b = mid;
    }
    return 0;
}

static const unsigned char *prof_val(hx_reader *r, uint32_t prof, uint64_t v)
{
    const unsigned char *e = r->draft.profile_db->data + r->draft.pi_off + (uint64_t)prof * PI_SIZE;
    return r->draft.profile_db->data + pk_be64(e + 44) + v * PVAL_SIZE;
}

/* Whether cct.db's context c (Context Info at e) holds what the
 * per-thread profiles (1..) of profile.db hold at c: as many values, as
 * many distinct metrics, and (block written) the same values. `seen` is a
 * 65536-entry scratch map, left clear. */
static int ctx_agrees(hx_reader *r, uint32_t c, const unsigned char *e, uint8_t *seen)
{
    const unsigned char *cd = r->draft.cct_db->data;
    uint64_t nv = pk_be64(e + 4), off = pk_be64(e + 14), count = 0, lo, hi;
    uint32_t nm = pk_be16(e + 12), metrics = 0;
    int written =
            (nv || nm) && !all_zero(cd + off, nv * CVAL_SIZE + ((uint64_t)nm + 1) * CMET_SIZE),
        ok = 1;
    for (uint32_t p = 1; p < r->draft.n_prof; p++) {
        if (!prof_run(r, p, c, &lo, &hi)) continue;
        for (uint64_t v = lo; v < hi; v++) {
            uint16_t m = pk_be16(prof_val(r, p, v) + 8);
            metrics += !seen[m], seen[m] = 1, count++;
        }
    }
    ok = count == nv && metrics == nm;
    for (uint32_t i = 0; written && ok && i < nm; i++) { /* each value in profile.db */
        const unsigned char *mr = cd + off + nv * CVAL_SIZE + (uint64_t)i * CMET_SIZE;
        for (uint64_t v = pk_be64(mr + 2); ok && v < pk_be64(mr + 2 + CMET_SIZE); v++) {
            const unsigned char *rec = cd + off + v * CVAL_SIZE;
            uint32_t p = pk_be32(rec + 8);
            int found = 0;
            if (p && prof_run(r, p, c, &lo, &hi))
                for (uint64_t k = lo; k < hi && !found; k++)
                    found = pk_be16(prof_val(r, p, k) + 8) == pk_be16(mr) &&
                            pk_be64(prof_val(r, p, k)) == pk_be64(rec);
            ok = found;
        }
    }
    for (uint32_t p = 1; p < r->draft.n_prof; p++) /* clear the scratch map */
        if (prof_run(r, p, c, &lo, &hi))
            for (uint64_t v = lo; v < hi; v++)
                seen[pk_be16(prof_val(r, p, v) + 8)] = 0;
    return ok;
}

/* cct.db holds profile.db's per-thread values transposed; a difference
 * is a warning (the values are read from profile.db, as hpcviewer does
 * for everything but its plots). */
static pk_status compare_cct(hx_reader *r)
{
    const hx_file *f = r->draft.cct_db;
    uint8_t *seen = calloc(65536, 1);
    if (!seen) return pk_fail_nomem("comparing cct.db");
    uint64_t bad = 0, first = 0;
    for (uint32_t c = 0; c < r->draft.n_ctx; c++) {
        uint64_t at = r->draft.ci_off + (uint64_t)c * CI_SIZE;
        if (!ctx_agrees(r, c, f->data + at, seen) && !bad++) first = at;
    }
    free(seen);
    pk_status st = PK_OK;
    if (bad)
        st = pk_model_diag(r->p, PK_SEV_WARNING, "cct-db-mismatch", f->name, "Context Info", 1,
                           first,
                           "%llu of %u contexts in cct.db do not hold profile.db's per-thread "
                           "values transposed; the values are read from profile.db",
                           (unsigned long long)bad, r->draft.n_ctx);
    if (!st && r->draft.cct_unwritten)
        st = pk_model_diag(r->p, PK_SEV_NOTE, "cct-db-unwritten", f->name, "context values", 0, 0,
                           "%llu of %u context value blocks are zero-filled (hpcprof2 reserved "
                           "them but did not write them); only their counts were compared "
                           "with profile.db",
                           (unsigned long long)r->draft.cct_unwritten, r->draft.n_ctx);
    return st;
}

pk_status hx_draft_values(hx_reader *r)
{
    uint64_t dropped = 0;
    pk_status st = profile_plane(r, 0, &r->p->locs[0].plane, &dropped);
    for (uint32_t prof = 1; prof < r->draft.n_prof && !st; prof++) {
        if (pk_vec_reserve((void **)&r->locs, &r->cap_locs, r->n_locs + 1, sizeof *r->locs))
            return pk_fail_nomem("adding a location");
        struct hx_loc *loc = &r->locs[r->n_locs++];
        memset(loc, 0, sizeof *loc);
        loc->source = r->draft.profile_db->name;
        st = profile_plane(r, prof, &loc->plane, &dropped);
        if (!st) st = tuple_of(r, prof, loc);
    }
    if (!st && dropped)
        st = pk_model_diag(r->p, PK_SEV_WARNING, "draft-metric", r->draft.profile_db->name,
                           "profile values", 0, 0,
                           "%llu summary values have a metric id that no experiment.xml view "
                           "(\"$N\") shows; they are left out",
                           (unsigned long long)dropped);
    if (!st && r->draft.cct_db) st = compare_cct(r);
    return st;
}
