/*
 * formats/hpctoolkit_xml/metrics.c — the two metric tables of a legacy
 * experiment.xml as model metrics, scopes and columns, and the summary
 * location that holds the <M> values of the calling-context tree.
 *
 * hpcprof 2.x writes each measured metric twice in each table:
 *   <MetricDB n="cycles (I)" t="inclusive" db-id="0"/>   per-thread column 0 of
 *   <MetricDB n="cycles (E)" t="exclusive" db-id="1"/>   every *.metric-db row
 *   <Metric i="4" n="cycles:Sum (I)" t="inclusive"/>     <M n="4" v=...> in the
 *   <Metric i="5" n="cycles:Sum (E)" t="exclusive"/>     tree: Σ over threads
 * All four are one model metric ("cycles"): the MetricDB entries become
 * plain columns (raw id = db-id), the Metric entries summary columns (raw
 * id = i) whose statistic is the name's ":Sum", ":Min", ":Max" ... suffix.
 * Scopes: t="inclusive" -> "execution" (inclusive), t="exclusive" ->
 * "function" (exclusive; legacy hpcprof's exclusive differs from v4's
 * "function" at loops and inlined code, docs/hpctoolkit-legacy.md),
 * t="nil" -> "point".
 *
 * The draft 4.0 experiment.xml differs: <MetricDB i=> are profile.db's
 * per-thread metric ids, and the summary values sit under invisible
 * "...:PARTIAL:k" metrics that the shown ones view (draft_storage).
 */
#include <stdlib.h>
#include <string.h>

#include "hx.h"
#include "util/bytes.h"

typedef struct parsed_name {
    const char *base;
    pk_stat stat;
    const char *formula;
    pk_combine combine;
    char scope; /* 'i', 'e', 'n' */
} parsed_name;

static const struct {
    const char *word;
    pk_stat stat;
    const char *formula;
    pk_combine combine;
} stats[] = {
    {"Sum", PK_STAT_SUM, "$$", PK_COMBINE_SUM},
    {"Min", PK_STAT_MIN, "$$", PK_COMBINE_MIN},
    {"Max", PK_STAT_MAX, "$$", PK_COMBINE_MAX},
    {"Mean", PK_STAT_OTHER, "Mean", PK_COMBINE_SUM},
    {"StdDev", PK_STAT_OTHER, "StdDev", PK_COMBINE_SUM},
    {"CfVar", PK_STAT_OTHER, "CfVar", PK_COMBINE_SUM},
};

/* "cycles:Sum (I)" -> base "cycles", Sum, inclusive. The (I)/(E) suffix
 * only decides the scope when t is nil. */
static pk_status parse_name(hx_reader *r, const hx_metric *m, int summary, parsed_name *out)
{
    const char *n = m->name;
    size_t len = strlen(n);
    out->scope = m->t;
    out->stat = PK_STAT_OTHER, out->formula = "raw", out->combine = PK_COMBINE_SUM;
    if (len >= 4 && n[len - 4] == ' ' && n[len - 3] == '(' && n[len - 1] == ')' &&
        (n[len - 2] == 'I' || n[len - 2] == 'E')) {
        if (out->scope == 'n') out->scope = n[len - 2] == 'I' ? 'i' : 'e';
        len -= 4;
    }
    const char *colon = NULL;
    for (size_t i = 0; i < len; i++)
        if (n[i] == ':') colon = n + i;
    for (size_t k = 0; summary && colon && k < sizeof stats / sizeof stats[0]; k++) {
        size_t w = strlen(stats[k].word);
        if ((size_t)(n + len - colon - 1) == w && memcmp(colon + 1, stats[k].word, w) == 0) {
            out->stat = stats[k].stat, out->formula = stats[k].formula;
            out->combine = stats[k].combine;
            len = (size_t)(colon - n);
        }
    }
    out->base = pk_intern(&r->p->strings, n, len);
    return out->base ? PK_OK : pk_fail_nomem("reading metrics");
}

/* The unit HPCToolkit writes at the end of a metric name: "CPUTIME (usec)". */
static const char *unit_of(hx_reader *r, const char *name)
{
    size_t len = strlen(name);
    if (len < 3 || name[len - 1] != ')') return NULL;
    const char *open = strrchr(name, '(');
    if (!open || open + 1 >= name + len - 1) return NULL;
    return pk_intern(&r->p->strings, open + 1, (size_t)(name + len - 1 - (open + 1)));
}

static uint32_t metric_index(hx_reader *r, const char *base)
{
    pk_profile *p = r->p;
    for (uint32_t m = 0; m < p->n_metrics; m++)
        if (p->metrics[m].name == base) return m;
    p->metrics[p->n_metrics] =
        (pk_metric){base, NULL, unit_of(r, base), PK_NONE, PK_COMBINE_SUM, 0};
    return p->n_metrics++;
}

static uint32_t scope_index(hx_reader *r, char scope)
{
    static const pk_scope defs[3] = {{"execution", PK_SCOPE_INCLUSIVE, 2, 255},
                                     {"function", PK_SCOPE_EXCLUSIVE, 3, 0},
                                     {"point", PK_SCOPE_POINT, 1, 255}};
    const pk_scope *want = &defs[scope == 'i' ? 0 : scope == 'e' ? 1 : 2];
    pk_profile *p = r->p;
    for (uint32_t s = 0; s < p->n_scopes; s++)
        if (p->scopes[s].kind == want->kind) return s;
    p->scopes[p->n_scopes] = *want;
    return p->n_scopes++;
}

static pk_status add_column(hx_reader *r, int space, pk_column col, uint64_t off, const char *el)
{
    pk_profile *p = r->p;
    uint32_t index = p->n_columns;
    p->columns[p->n_columns++] = col;
    if (pk_model_map_column(p, space, col.raw_id, index) == PK_OK) return PK_OK;
    return hx_fail(r->xml, el, off, "%s %u is used twice", space ? "Metric i" : "MetricDB db-id",
                   col.raw_id);
}

/* A plain column for every (metric, scope) that has a summary column but
 * no per-thread one, so that questions about plain values find the
 * summary's sums (databases without metric-db files). Raw ids follow the
 * largest db-id. */
static pk_status add_missing_plain(hx_reader *r, uint32_t next_raw)
{
    pk_profile *p = r->p;
    uint32_t n = p->n_columns;
    for (uint32_t c = 0; c < n; c++) {
        pk_column s = p->columns[c];
        pk_index have;
        if (!s.is_summary || s.stat != PK_STAT_SUM) continue;
        if (pk_column_find(p, s.metric, p->scopes[s.scope].kind, &have) == PK_OK) continue;
        if (next_raw > 0xffff)
            return hx_fail(r->xml, "MetricTable", 0, "more than 65536 metric columns");
        pk_column col = {.metric = s.metric, .scope = s.scope, .raw_id = next_raw++};
        pk_status st = add_column(r, 0, col, 0, "Metric");
        if (st) return st;
    }
    return PK_OK;
}

/* Columns grouped by metric, plain before summary (stable otherwise): the
 * order a v4 meta.db lists them in ({PSI} then {SS} per metric), so a
 * converted database reads back with the same column numbers. */
static void order_columns(pk_profile *p)
{
    for (uint32_t i = 1; i < p->n_columns; i++) { /* insertion sort: few columns */
        pk_column c = p->columns[i];
        uint32_t j = i;
        for (; j > 0; j--) {
            const pk_column *b = &p->columns[j - 1];
            if (b->metric < c.metric || (b->metric == c.metric && b->is_summary <= c.is_summary))
                break;
            p->columns[j] = *b;
        }
        p->columns[j] = c;
    }
    for (uint32_t i = 0; i < p->n_columns; i++)
        p->col_of_raw[p->columns[i].is_summary][p->columns[i].raw_id] = i;
}

/* 4.0: the summary profile stores each statistic under an invisible
 * "<metric>:PARTIAL:<k>" id; the column hpcviewer shows ("<metric>:Sum
 * (I)") is a view <MetricFormula t="view" frm="$<id>"/> of it. The view
 * becomes the column, with the partial's id as its raw id; partials and
 * other views are not columns. */
static int draft_storage(const hx_exp *x, const hx_metric *m, uint32_t *raw)
{
    if (strstr(m->name, ":PARTIAL:") || !m->view || m->view[0] != '$') return 0;
    uint32_t id = 0;
    const char *s = m->view + 1;
    if (!*s) return 0;
    for (; *s >= '0' && *s <= '9' && id <= 0xffff; s++)
        id = id * 10 + (uint32_t)(*s - '0');
    if (*s || id > 0xffff) return 0;
    for (size_t i = 0; i < x->n_metrics; i++)
        if (x->metrics[i].i == id && strstr(x->metrics[i].name, ":PARTIAL:")) {
            *raw = id;
            return 1;
        }
    return 0;
}

pk_status hx_build_metrics(hx_reader *r)
{
    pk_profile *p = r->p;
    hx_exp *x = &r->x;
    size_t n = x->n_metrics + x->n_dbs;
    p->metrics = pk_arena_array(&p->arena, n + 1, sizeof *p->metrics);
    p->scopes = pk_arena_array(&p->arena, 3, sizeof *p->scopes);
    p->columns = pk_arena_array(&p->arena, 2 * n + 1, sizeof *p->columns);
    if (!p->metrics || !p->scopes || !p->columns) return pk_fail_nomem("reading metrics");
    pk_status st = PK_OK;
    uint32_t next_raw = 0;
    for (size_t i = 0; i < x->n_dbs && !st; i++) {
        const hx_metric *m = &x->dbs[i];
        parsed_name pn;
        st = parse_name(r, m, 0, &pn);
        if (st) break;
        pk_column col = {.metric = metric_index(r, pn.base),
                         .scope = scope_index(r, pn.scope),
                         .raw_id = m->db_id};
        if (m->db_id >= next_raw) next_raw = m->db_id + 1;
        st = add_column(r, 0, col, m->xml_off, "MetricDB");
    }
    uint64_t skipped = 0;
    for (size_t i = 0; i < x->n_metrics && !st; i++) {
        const hx_metric *m = &x->metrics[i];
        uint32_t raw = m->i;
        if (x->major == 4 && !draft_storage(x, m, &raw)) {
            skipped += strstr(m->name, ":PARTIAL:") == NULL;
            continue;
        }
        parsed_name pn;
        st = parse_name(r, m, 1, &pn);
        if (st) break;
        uint32_t met = metric_index(r, pn.base);
        pk_column col = {met, scope_index(r, pn.scope), 1, pn.stat, pn.formula, pn.combine, raw};
        st = add_column(r, 1, col, m->xml_off, "Metric");
    }
    if (!st && skipped)
        st = pk_model_diag(p, PK_SEV_WARNING, "draft-metric", "experiment.xml", "MetricTable", 0, 0,
                           "%llu metrics are views with a formula other than \"$N\"; profkit "
                           "does not evaluate view formulas, so they are left out",
                           (unsigned long long)skipped);
    if (!st) st = add_missing_plain(r, next_raw);
    if (!st) order_columns(p);
    r->n_db_ids = next_raw;
    r->plain_incl = calloc(next_raw + 1, 1);
    if (!st && !r->plain_incl) st = pk_fail_nomem("reading metrics");
    for (uint32_t j = 0; j < next_raw && !st; j++) {
        uint32_t c = pk_model_col_of(p, 0, j);
        r->plain_incl[j] =
            c != PK_NONE && p->scopes[p->columns[c].scope].kind == PK_SCOPE_INCLUSIVE;
    }
    return st;
}

static int cmp_mval(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Whether summary column `raw` sums over threads in the inclusive scope
 * (what an entry point's value is the sum of its top-level nodes' for). */
static int summed_inclusive(const pk_profile *p, uint32_t raw)
{
    uint32_t c = pk_model_col_of(p, 1, raw);
    return c != PK_NONE && p->columns[c].stat == PK_STAT_SUM &&
           p->scopes[p->columns[c].scope].kind == PK_SCOPE_INCLUSIVE;
}

/* Sorted (context id << 16 | metric id, value bits, index) triples: the
 * <M> values, and for each one at a top-level node that sums inclusive
 * values a copy for its entry point (index UINT64_MAX, added up later). */
static uint64_t *sorted_mvals(hx_reader *r, size_t *n_out)
{
    hx_exp *x = &r->x;
    uint64_t *t = malloc((2 * x->n_mvals + 1) * 3 * sizeof *t);
    if (!t) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < x->n_mvals; i++) {
        const hx_mval *mv = &x->mvals[i];
        uint64_t id = mv->node ? x->nodes[mv->node].id : 0;
        t[3 * n] = id << 16 | mv->metric;
        memcpy(&t[3 * n + 1], &mv->value, 8);
        t[3 * n + 2] = i;
        n++;
        int slot = mv->node && x->nodes[mv->node].parent == 0 ? hx_top_slot(r, id) : -1;
        if (slot < 0 || !summed_inclusive(r->p, mv->metric)) continue;
        t[3 * n] = (r->max_id + 1 + (uint64_t)slot) << 16 | mv->metric;
        memcpy(&t[3 * n + 1], &mv->value, 8);
        t[3 * n + 2] = UINT64_MAX;
        n++;
    }
    qsort(t, n, 3 * sizeof *t, cmp_mval);
    *n_out = n;
    return t;
}

/* Entry-point copies with the same key added into the first one. */
static size_t merge_entries(uint64_t *t, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && t[3 * i + 2] == UINT64_MAX && t[3 * (k - 1)] == t[3 * i] &&
            t[3 * (k - 1) + 2] == UINT64_MAX) {
            double a, b;
            memcpy(&a, &t[3 * (k - 1) + 1], 8), memcpy(&b, &t[3 * i + 1], 8);
            a += b;
            memcpy(&t[3 * (k - 1) + 1], &a, 8);
            continue;
        }
        memmove(&t[3 * k], &t[3 * i], 3 * sizeof *t);
        k++;
    }
    return k;
}

static void put_value(unsigned char *vals, unsigned char *idx, uint64_t *nv, uint32_t *ni,
                      uint64_t id, uint32_t raw, double value)
{
    if (!*ni || id != (uint64_t)pk_le32(idx + (*ni - 1) * PK_LM_IDX_SIZE)) {
        pk_put_le32(idx + *ni * PK_LM_IDX_SIZE, (uint32_t)id);
        pk_put_le64(idx + *ni * PK_LM_IDX_SIZE + 4, *nv);
        (*ni)++;
    }
    pk_put_le16(vals + *nv * PK_LM_VAL_SIZE, (uint16_t)raw);
    pk_put_le64(vals + *nv * PK_LM_VAL_SIZE + 2, pk_f64_bits(value));
    (*nv)++;
}

/* The summary location: the <M> values of every node, as hpcprof wrote
 * them (text, %g: six significant digits). */
pk_status hx_build_summary(hx_reader *r)
{
    pk_profile *p = r->p;
    hx_exp *x = &r->x;
    size_t n;
    uint64_t *t = sorted_mvals(r, &n);
    if (!t) return pk_fail_nomem("reading summary values");
    n = merge_entries(t, n);
    unsigned char *vals = pk_model_alloc_owned(p, n * PK_LM_VAL_SIZE + 1);
    unsigned char *idx = pk_model_alloc_owned(p, n * PK_LM_IDX_SIZE + 1);
    if (!vals || !idx) {
        free(t);
        return PK_ERR_NOMEM;
    }
    uint64_t nv = 0;
    uint32_t ni = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t id = t[3 * i] >> 16;
        uint32_t raw = (uint32_t)(t[3 * i] & 0xffff);
        double value;
        memcpy(&value, &t[3 * i + 1], 8);
        if (t[3 * i + 2] == UINT64_MAX) { /* an entry point's sum */
            if (value != 0) put_value(vals, idx, &nv, &ni, id, raw, value);
            continue;
        }
        const hx_mval *mv = &x->mvals[t[3 * i + 2]];
        if (pk_model_col_of(p, 1, raw) == PK_NONE) {
            free(t);
            return hx_fail(r->xml, "M", mv->xml_off, "metric n=%u is not in the MetricTable", raw);
        }
        if (i && t[3 * i] == t[3 * (i - 1)]) {
            free(t);
            return hx_fail(r->xml, "M", mv->xml_off, "metric n=%u given twice for node %llu", raw,
                           (unsigned long long)id);
        }
        if (mv->value != 0) put_value(vals, idx, &nv, &ni, id, raw, mv->value);
    }
    free(t);
    p->locs = pk_arena_array(&p->arena, 1, sizeof *p->locs);
    if (!p->locs) return pk_fail_nomem("reading summary values");
    p->locs[0] = (pk_loc_rec){.raw_index = 0, .is_summary = 1, .trace = PK_NONE};
    p->locs[0].plane = (pk_plane){vals, idx, nv, ni};
    p->n_locs = 1;
    return PK_OK;
}
