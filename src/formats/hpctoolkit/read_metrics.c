/*
 * formats/hpctoolkit/read_metrics.c — meta.db Performance Metrics section:
 * propagation scopes {PS}, metric descriptions {MD}, their instantiated
 * scopes {PSI} (propMetricId -> column) and summary statistics {SS}
 * (statMetricId -> summary column).
 *
 * The intermediate v4.0 layout (szMetric 24 instead of 32) nests things
 * differently: no scope table; each {MD} holds {PS} records that name
 * their scope by string and carry the propMetricId and that scope's
 * {SS} summaries. It is read into the same model: scopes collected by
 * name in order of first use, columns in the final layout's order (a
 * metric's plain columns, then its summaries).
 */
#include <stdio.h>
#include <string.h>

#include "hpctk.h"

typedef struct metrics_hdr {
    uint64_t h;
    hk_array metrics;
    uint64_t sz_inst, sz_summary;
} metrics_hdr;

/* What a {PS} means in the model. Names are only consulted to tell the
 * well-known transitive ("function") and custom ("lex_aware") scopes apart
 * from others of the same type. */
static pk_scope_kind scope_kind(unsigned type, const char *name)
{
    switch (type) {
    case 1:
        return PK_SCOPE_POINT;
    case 2:
        return PK_SCOPE_INCLUSIVE;
    case 3:
        return strcmp(name, "function") == 0 ? PK_SCOPE_EXCLUSIVE : PK_SCOPE_OTHER;
    case 0:
        return strcmp(name, "lex_aware") == 0 ? PK_SCOPE_LEX_AWARE : PK_SCOPE_OTHER;
    }
    return PK_SCOPE_OTHER;
}

static pk_status read_scopes(hk_reader *r, hk_file *f, uint64_t h)
{
    pk_profile *p = r->p;
    const unsigned char *d = f->data + h;
    pk_status st =
        hk_array_in_section(r, f, HK_MS_METRICS, "Performance Metrics: pScopes", pk_le64(d + 0x10),
                            pk_le16(d + 0x18), d[0x1a], HK_SZ_PS, &r->scopes);
    if (st) return st;
    uint32_t n = (uint32_t)r->scopes.count;
    p->scopes = pk_arena_array(&p->arena, n ? n : 1, sizeof *p->scopes);
    if (!p->scopes) return pk_fail_nomem("reading scopes");
    for (uint32_t i = 0; i < n; i++) {
        uint64_t e = r->scopes.base + (uint64_t)i * r->scopes.stride;
        pk_scope *s = &p->scopes[i];
        st = hk_string_interned(r, f, f->sect[HK_MS_METRICS], pk_le64(f->data + e), 0, &s->name,
                                "Propagation Scope %u: pScopeName", i);
        if (st) return st;
        s->raw_type = f->data[e + 8];
        s->propagation_index = f->data[e + 9];
        s->kind = scope_kind(s->raw_type, s->name);
        if (s->raw_type > 3)
            hk_diag(r, hk_unknown_enum_severity(f), "unknown-enum", f, "Propagation Scope", e,
                    "scope '%s' has unknown type %u; its values are kept uninterpreted", s->name,
                    s->raw_type);
        if (s->raw_type == 3 && s->propagation_index >= 16)
            hk_diag(r, PK_SEV_WARNING, "bad-propagation-index", f, "Propagation Scope", e,
                    "transitive scope '%s' has propagationIndex %u (must be < 16)", s->name,
                    s->propagation_index);
        HK_EMIT(r, f, e, HK_S_SCOPES, "scope", HK_U("index", i), HK_S("name", s->name),
                HK_U("type", s->raw_type), HK_U("propagation_index", s->propagation_index));
    }
    p->n_scopes = n;
    return PK_OK;
}

static pk_stat stat_kind(const char *formula, pk_combine combine)
{
    if (strcmp(formula, "$$") == 0) {
        if (combine == PK_COMBINE_SUM) return PK_STAT_SUM;
        if (combine == PK_COMBINE_MIN) return PK_STAT_MIN;
        if (combine == PK_COMBINE_MAX) return PK_STAT_MAX;
    }
    if (combine == PK_COMBINE_SUM && strcmp(formula, "1") == 0) return PK_STAT_COUNT;
    if (combine == PK_COMBINE_SUM && strcmp(formula, "($$^2)") == 0) return PK_STAT_SUMSQ;
    return PK_STAT_OTHER;
}

/* The unit HPCToolkit writes at the end of a metric name: "CPUTIME (sec)". */
static const char *unit_of(hk_reader *r, const char *name)
{
    size_t len = strlen(name);
    if (len < 3 || name[len - 1] != ')') return NULL;
    const char *open = strrchr(name, '(');
    if (!open || open + 1 >= name + len - 1) return NULL;
    return pk_intern(&r->p->strings, open + 1, (size_t)(name + len - 1 - (open + 1)));
}

static pk_status add_column(hk_reader *r, const hk_file *f, uint64_t e, int space, uint32_t raw,
                            pk_column col)
{
    pk_profile *p = r->p;
    uint32_t index = p->n_columns;
    p->columns[p->n_columns++] = col;
    if (pk_model_map_column(p, space, raw, index) == PK_OK) return PK_OK;
    return hk_fail(f, "%s at 0x%llx: %s %u is used twice",
                   space ? "Summary Statistic" : "Scope Instance", (unsigned long long)e,
                   space ? "statMetricId" : "propMetricId", raw);
}

/* {PSI}[nScopeInsts] of metric m: one plain column each. The array was
 * checked against the section by count_columns(). */
static pk_status read_scope_insts(hk_reader *r, hk_file *f, const metrics_hdr *mh, uint32_t m,
                                  uint64_t ptr, uint64_t n)
{
    pk_status st = PK_OK;
    for (uint64_t i = 0; !st && i < n; i++) {
        uint64_t e = ptr + i * mh->sz_inst;
        uint32_t scope;
        st = hk_array_index(f, &r->scopes, pk_le64(f->data + e), &scope,
                            "Metric %u Scope Instance %llu: pScope", m, (unsigned long long)i);
        if (st) break;
        uint16_t raw = pk_le16(f->data + e + 8);
        pk_column col = {.metric = m, .scope = scope, .raw_id = raw};
        st = add_column(r, f, e, 0, raw, col);
        HK_EMIT(r, f, e, HK_S_METRICS, "scope-instance", HK_U("metric", m), HK_U("scope", scope),
                HK_S("scope_name", r->p->scopes[scope].name), HK_U("prop_metric_id", raw));
    }
    return st;
}

/* A summary column once its record is located: `col` has metric, scope
 * and formula; the combine byte and raw id are read here. Both layouts
 * store the same fields, at different offsets. */
static pk_status add_summary(hk_reader *r, hk_file *f, uint64_t e, pk_column col, unsigned combine,
                             uint16_t raw_id)
{
    col.combine = combine <= 2 ? (pk_combine)combine : PK_COMBINE_OTHER;
    if (combine > 2)
        hk_diag(r, hk_unknown_enum_severity(f), "unknown-enum", f, "Summary Statistic", e,
                "unknown combine function %u", combine);
    col.stat = stat_kind(col.formula, col.combine);
    col.raw_id = raw_id;
    pk_status st = add_column(r, f, e, 1, col.raw_id, col);
    HK_EMIT(r, f, e, HK_S_METRICS, "summary", HK_U("metric", col.metric), HK_U("scope", col.scope),
            HK_S("scope_name", r->p->scopes[col.scope].name), HK_S("formula", col.formula),
            HK_U("combine", combine), HK_U("stat_metric_id", col.raw_id));
    return st;
}

/* {SS}[nSummaries] of metric m: one summary column each (array checked by
 * count_columns()). */
static pk_status read_summaries(hk_reader *r, hk_file *f, const metrics_hdr *mh, uint32_t m,
                                uint64_t ptr, uint64_t n)
{
    pk_status st = PK_OK;
    for (uint64_t i = 0; !st && i < n; i++) {
        uint64_t e = ptr + i * mh->sz_summary;
        const unsigned char *d = f->data + e;
        pk_column col = {.metric = m, .is_summary = 1};
        st = hk_array_index(f, &r->scopes, pk_le64(d), &col.scope,
                            "Metric %u Summary Statistic %llu: pScope", m, (unsigned long long)i);
        if (!st)
            st = hk_string_interned(r, f, f->sect[HK_MS_METRICS], pk_le64(d + 8), 0, &col.formula,
                                    "Metric %u Summary Statistic %llu: pFormula", m,
                                    (unsigned long long)i);
        if (!st) st = add_summary(r, f, e, col, d[0x10], pk_le16(d + 0x12));
    }
    return st;
}

/* First pass: check every {MD}'s arrays against the section and count the
 * columns they define, so the column table is sized by what the file
 * really holds (never by a damaged count). */
static pk_status count_columns(const hk_file *f, const metrics_hdr *mh, uint64_t *n)
{
    *n = 0;
    for (uint64_t m = 0; m < mh->metrics.count; m++) {
        const unsigned char *d = f->data + mh->metrics.base + m * mh->metrics.stride;
        uint16_t n_inst = pk_le16(d + 0x18), n_sum = pk_le16(d + 0x1a);
        pk_status st =
            hk_check_range(f, f->sect[HK_MS_METRICS], pk_le64(d + 8), n_inst, mh->sz_inst,
                           "nScopeInsts", "Metric %llu: pScopeInsts", (unsigned long long)m);
        if (!st)
            st = hk_check_range(f, f->sect[HK_MS_METRICS], pk_le64(d + 0x10), n_sum, mh->sz_summary,
                                "nSummaries", "Metric %llu: pSummaries", (unsigned long long)m);
        if (st) return st;
        *n += (uint64_t)n_inst + n_sum;
    }
    return PK_OK;
}

/* meta.db has no per-metric combine: a metric whose statistics all
 * combine by min (or all by max) is such a metric (profkit writes a Cube
 * min_time so); any other combines by sum. */
static void infer_combine(pk_profile *p, uint32_t m)
{
    int seen[PK_COMBINE_OTHER + 1] = {0};
    for (uint32_t i = 0; i < p->n_columns; i++)
        if (p->columns[i].metric == m && p->columns[i].is_summary)
            seen[p->columns[i].combine <= PK_COMBINE_OTHER ? p->columns[i].combine
                                                           : PK_COMBINE_OTHER]++;
    if (!seen[PK_COMBINE_SUM] && !seen[PK_COMBINE_OTHER] &&
        (!seen[PK_COMBINE_MIN] != !seen[PK_COMBINE_MAX]))
        p->metrics[m].combine = seen[PK_COMBINE_MIN] ? PK_COMBINE_MIN : PK_COMBINE_MAX;
}

static pk_status read_metric(hk_reader *r, hk_file *f, const metrics_hdr *mh, uint32_t m)
{
    uint64_t e = mh->metrics.base + (uint64_t)m * mh->metrics.stride;
    const unsigned char *d = f->data + e;
    pk_metric *met = &r->p->metrics[m];
    pk_status st = hk_string_interned(r, f, f->sect[HK_MS_METRICS], pk_le64(d), 0, &met->name,
                                      "Metric %u: pName", m);
    if (st) return st;
    met->unit = unit_of(r, met->name);
    met->parent = PK_NONE;
    met->combine = PK_COMBINE_SUM;
    uint16_t n_inst = pk_le16(d + 0x18), n_sum = pk_le16(d + 0x1a);
    HK_EMIT(r, f, e, HK_S_METRICS, "metric", HK_U("index", m), HK_S("name", met->name),
            HK_X("pScopeInsts", pk_le64(d + 8)), HK_U("nScopeInsts", n_inst),
            HK_X("pSummaries", pk_le64(d + 0x10)), HK_U("nSummaries", n_sum));
    st = read_scope_insts(r, f, mh, m, pk_le64(d + 8), n_inst);
    if (!st) st = read_summaries(r, f, mh, m, pk_le64(d + 0x10), n_sum);
    if (!st) infer_combine(r->p, m);
    return st;
}

/* ---- the intermediate v4.0 layout ---- */

/* What the final layout's scope table would say for a scope name: the
 * names and (type, propagationIndex) pairs hpcprof writes (field notes
 * §a item 6). Any other name is a custom scope. */
static void scope_by_name(pk_scope *s)
{
    static const struct {
        const char *name;
        unsigned type, index;
    } known[] = {{"point", 1, 255}, {"function", 3, 0}, {"execution", 2, 255}};
    s->raw_type = 0;
    s->propagation_index = 255;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(s->name, known[i].name) == 0) {
            s->raw_type = (uint8_t)known[i].type;
            s->propagation_index = (uint8_t)known[i].index;
        }
    s->kind = scope_kind(s->raw_type, s->name);
}

/* The scope named `name` (interned), added on first use. */
static uint32_t scope_index(hk_reader *r, const hk_file *f, uint64_t e, const char *name)
{
    pk_profile *p = r->p;
    for (uint32_t i = 0; i < p->n_scopes; i++)
        if (strcmp(p->scopes[i].name, name) == 0) return i;
    pk_scope *s = &p->scopes[p->n_scopes];
    s->name = name;
    scope_by_name(s);
    HK_EMIT(r, f, e, HK_S_SCOPES, "scope", HK_U("index", p->n_scopes), HK_S("name", s->name),
            HK_U("type", s->raw_type), HK_U("propagation_index", s->propagation_index));
    return p->n_scopes++;
}

/* First pass: check each {MD}'s {PS} array and each {PS}'s {SS} array
 * against the section; count {PS} records and columns. */
static pk_status count_v40i(const hk_file *f, const metrics_hdr *mh, uint64_t sz_scope,
                            uint64_t *n_ps, uint64_t *n_cols)
{
    hk_region in = f->sect[HK_MS_METRICS];
    *n_ps = *n_cols = 0;
    for (uint64_t m = 0; m < mh->metrics.count; m++) {
        const unsigned char *d = f->data + mh->metrics.base + m * mh->metrics.stride;
        uint64_t ptr = pk_le64(d + 0x10), n = pk_le16(d + 8);
        pk_status st = hk_check_range(f, in, ptr, n, sz_scope, "nScopes", "Metric %llu: pScopes",
                                      (unsigned long long)m);
        for (uint64_t i = 0; !st && i < n; i++) {
            const unsigned char *s = f->data + ptr + i * sz_scope;
            uint16_t n_sum = pk_le16(s + 8);
            st = hk_check_range(f, in, pk_le64(s + 0x10), n_sum, mh->sz_summary, "nSummaries",
                                "Metric %llu Scope %llu: pSummaries", (unsigned long long)m,
                                (unsigned long long)i);
            *n_cols += 1 + (uint64_t)n_sum;
        }
        if (st) return st;
        *n_ps += n;
    }
    return PK_OK;
}

/* The {SS} records of {PS} `i` (at e) of metric m: summary columns. */
static pk_status read_summaries_v40i(hk_reader *r, hk_file *f, const metrics_hdr *mh, uint32_t m,
                                     uint64_t e, uint32_t scope)
{
    const unsigned char *ps = f->data + e;
    uint64_t ptr = pk_le64(ps + 0x10), n = pk_le16(ps + 8);
    pk_status st = PK_OK;
    for (uint64_t k = 0; !st && k < n; k++) {
        uint64_t s = ptr + k * mh->sz_summary;
        const unsigned char *d = f->data + s;
        pk_column col = {.metric = m, .scope = scope, .is_summary = 1};
        st = hk_string_interned(r, f, f->sect[HK_MS_METRICS], pk_le64(d), 0, &col.formula,
                                "Metric %u Summary Statistic %llu: pFormula", m,
                                (unsigned long long)k);
        if (!st) st = add_summary(r, f, s, col, d[8], pk_le16(d + 0x0a));
    }
    return st;
}

/* One {MD} (24 bytes): name, then its {PS} records (plain columns), then
 * their summaries. */
static pk_status read_metric_v40i(hk_reader *r, hk_file *f, const metrics_hdr *mh,
                                  uint64_t sz_scope, uint32_t m)
{
    uint64_t e = mh->metrics.base + (uint64_t)m * mh->metrics.stride;
    const unsigned char *d = f->data + e;
    pk_metric *met = &r->p->metrics[m];
    pk_status st = hk_string_interned(r, f, f->sect[HK_MS_METRICS], pk_le64(d), 0, &met->name,
                                      "Metric %u: pName", m);
    if (st) return st;
    met->unit = unit_of(r, met->name);
    met->parent = PK_NONE;
    met->combine = PK_COMBINE_SUM;
    uint64_t ptr = pk_le64(d + 0x10), n = pk_le16(d + 8);
    HK_EMIT(r, f, e, HK_S_METRICS, "metric", HK_U("index", m), HK_S("name", met->name),
            HK_X("pScopes", ptr), HK_U("nScopes", n));
    for (uint64_t i = 0; !st && i < n; i++) {
        uint64_t s = ptr + i * sz_scope;
        const char *name;
        st = hk_string_interned(r, f, f->sect[HK_MS_METRICS], pk_le64(f->data + s), 0, &name,
                                "Metric %u Scope %llu: pScope", m, (unsigned long long)i);
        if (st) break;
        uint32_t scope = scope_index(r, f, s, name);
        uint16_t raw = pk_le16(f->data + s + 0x0a);
        st = add_column(r, f, s, 0, raw, (pk_column){.metric = m, .scope = scope, .raw_id = raw});
        HK_EMIT(r, f, s, HK_S_METRICS, "metric-scope", HK_U("metric", m), HK_U("scope", scope),
                HK_S("scope_name", name), HK_U("prop_metric_id", raw),
                HK_U("nSummaries", pk_le16(f->data + s + 8)),
                HK_X("pSummaries", pk_le64(f->data + s + 0x10)));
    }
    for (uint64_t i = 0; !st && i < n; i++) {
        uint64_t s = ptr + i * sz_scope;
        const char *name; /* checked by the loop above: this finds the same scope */
        st = hk_string_interned(r, f, f->sect[HK_MS_METRICS], pk_le64(f->data + s), 0, &name,
                                "Metric %u Scope %llu: pScope", m, (unsigned long long)i);
        if (!st) st = read_summaries_v40i(r, f, mh, m, s, scope_index(r, f, s, name));
    }
    return st;
}

static pk_status read_metrics_v40i(hk_reader *r, hk_file *f, metrics_hdr *mh)
{
    pk_profile *p = r->p;
    const unsigned char *d = f->data + mh->h;
    uint64_t sz_scope = d[0x0d];
    mh->sz_summary = d[0x0e];
    HK_EMIT(r, f, mh->h, HK_S_HEADERS, "layout", HK_S("name", "intermediate"),
            HK_U("szMetric", d[0x0c]), HK_U("szScope", sz_scope),
            HK_U("szSummary", mh->sz_summary));
    if (sz_scope < HK_V40I_SZ_PS || mh->sz_summary < HK_V40I_SZ_SS)
        return hk_fail(f,
                       "Performance Metrics section at 0x%llx: szMetric %u is the intermediate "
                       "v4.0 layout's, but szScope %llu / szSummary %llu are smaller than its "
                       "%d / %d",
                       (unsigned long long)mh->h, d[0x0c], (unsigned long long)sz_scope,
                       (unsigned long long)mh->sz_summary, HK_V40I_SZ_PS, HK_V40I_SZ_SS);
    pk_status st =
        hk_array_in_section(r, f, HK_MS_METRICS, "Performance Metrics: pMetrics", pk_le64(d),
                            pk_le32(d + 8), d[0x0c], HK_V40I_SZ_MD, &mh->metrics);
    uint64_t n_ps = 0, n_cols = 0;
    if (!st) st = count_v40i(f, mh, sz_scope, &n_ps, &n_cols);
    if (st) return st;
    uint32_t n = (uint32_t)mh->metrics.count;
    p->metrics = pk_arena_array(&p->arena, n ? n : 1, sizeof *p->metrics);
    p->columns = pk_arena_array(&p->arena, n_cols ? n_cols : 1, sizeof *p->columns);
    p->scopes = pk_arena_array(&p->arena, n_ps ? n_ps : 1, sizeof *p->scopes);
    if (!p->metrics || !p->columns || !p->scopes) return pk_fail_nomem("reading metrics");
    p->n_metrics = n;
    for (uint32_t m = 0; m < n && !st; m++)
        st = read_metric_v40i(r, f, mh, sz_scope, m);
    return st;
}

pk_status hk_read_metrics(hk_reader *r)
{
    hk_file *f = &r->f[HK_META];
    pk_profile *p = r->p;
    metrics_hdr mh;
    pk_status st = hk_section_header(f, HK_MS_METRICS, HK_V40I_SZ_METRICS_HDR, &mh.h);
    if (st) return st;
    const unsigned char *d = f->data + mh.h;
    /* The layout is decided here, by the stored size of a metric
     * description: 32 bytes (or more, in a newer minor version) in the
     * final layout, 24 in the intermediate one. */
    if (d[0x0c] < HK_SZ_MD && d[0x0c] >= HK_V40I_SZ_MD) {
        r->intermediate = 1;
        p->layout = "intermediate";
        return read_metrics_v40i(r, f, &mh);
    }
    st = hk_section_header(f, HK_MS_METRICS, 0x1b, &mh.h);
    if (st) return st;
    mh.sz_inst = d[0x0d];
    mh.sz_summary = d[0x0e];
    if (mh.sz_inst < HK_SZ_PSI || mh.sz_summary < HK_SZ_SS)
        return hk_fail(f,
                       "Performance Metrics section at 0x%llx: szScopeInst %llu / szSummary "
                       "%llu smaller than v4.0's %d / %d (not the v4.0 layout)",
                       (unsigned long long)mh.h, (unsigned long long)mh.sz_inst,
                       (unsigned long long)mh.sz_summary, HK_SZ_PSI, HK_SZ_SS);
    st = read_scopes(r, f, mh.h);
    if (!st)
        st = hk_array_in_section(r, f, HK_MS_METRICS, "Performance Metrics: pMetrics", pk_le64(d),
                                 pk_le32(d + 8), d[0x0c], HK_SZ_MD, &mh.metrics);
    uint64_t n_cols = 0;
    if (!st) st = count_columns(f, &mh, &n_cols);
    if (st) return st;
    uint32_t n = (uint32_t)mh.metrics.count;
    p->metrics = pk_arena_array(&p->arena, n ? n : 1, sizeof *p->metrics);
    p->columns = pk_arena_array(&p->arena, n_cols ? n_cols : 1, sizeof *p->columns);
    if (!p->metrics || !p->columns) return pk_fail_nomem("reading metrics");
    p->n_metrics = n;
    for (uint32_t m = 0; m < n && !st; m++)
        st = read_metric(r, f, &mh, m);
    return st;
}
