/*
 * formats/hpctoolkit/write_shape_cols.c — scopes and columns of the shaped
 * profile, and where each column's values come from.
 *
 * Scopes get HPCToolkit's names and types (point, function, lex_aware,
 * execution; a custom scope keeps its own name). Every metric is written
 * in the execution scope (hpctesttool's program total, hpcviewer's
 * inclusive column) and, unless it combines by min/max and is stored
 * inclusive only, in the function scope (hpcviewer's exclusive column):
 * a scope the source lacks is derived per location along the tree
 * (write_shape_vals.c), as hpcprof always writes both.
 *
 * Ids: each (metric, scope) gets one id, used by its per-profile column
 * and by its main statistic (Sum, or Min/Max for a min/max metric) alike,
 * because hpcviewer looks per-profile values up with the statistic's id.
 * Other statistics the source stores (count, sum of squares, min, max)
 * follow with ids of their own. Statistics the source stores are kept as
 * they are (hpcprof's summary lex_aware of loops is not a sum of the
 * profiles' values, field notes §d; legacy experiment.xml's sums are what
 * hpcviewer showed for it: 1e-6 apart from the threads' sum, so the
 * database says its summary is not the profiles' sum, see
 * write_yaml_keep.c); a main statistic the source lacks (Cube and
 * merged profiles have no summary, Callgrind none for the point scope) is
 * combined from the per-location values. Statistics hpcviewer cannot evaluate
 * (legacy "Mean", "StdDev", "CfVar" as stored results, other formulas)
 * are replaced by the partials it computes them from when the locations'
 * values allow, and reported as left out otherwise; a legacy "raw" column
 * is the summary's plain value, written as its Sum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/write_loss.h"
#include "util/bytes.h"
#include "write_shape.h"

enum { QS_POINT, QS_FUNCTION, QS_LEX, QS_EXEC, QS_STD }; /* standard scopes, in hpcprof's order */

static const pk_scope std_scopes[QS_STD] = {
    {"point", PK_SCOPE_POINT, 1, 255},
    {"function", PK_SCOPE_EXCLUSIVE, 3, 0},
    {"lex_aware", PK_SCOPE_LEX_AWARE, 0, 255},
    {"execution", PK_SCOPE_INCLUSIVE, 2, 255},
};

typedef struct cols_plan {
    hk_shape *s;
    uint32_t *qs_of_ps; /* source scope -> shaped scope */
    uint32_t n_qs;
    pk_column *cols; /* shaped columns being built */
    hs_col *src;
    unsigned char *extra; /* numbered after every main id */
    uint32_t n, cap;
} cols_plan;

static int std_of_kind(pk_scope_kind k)
{
    return k == PK_SCOPE_POINT       ? QS_POINT
           : k == PK_SCOPE_EXCLUSIVE ? QS_FUNCTION
           : k == PK_SCOPE_LEX_AWARE ? QS_LEX
           : k == PK_SCOPE_INCLUSIVE ? QS_EXEC
                                     : -1;
}

/* Shaped scopes: the four standard ones first (in hpcprof's order; those
 * no column uses are dropped at the end), then custom ones, which keep
 * their stored type and propagation index. A second source scope of a
 * standard kind keeps its own name as a custom scope. */
static pk_status plan_scopes(cols_plan *c)
{
    const pk_profile *p = c->s->p;
    pk_profile *q = c->s->q;
    q->scopes = pk_arena_array(&q->arena, (size_t)p->n_scopes + QS_STD, sizeof *q->scopes);
    c->qs_of_ps = malloc(((size_t)p->n_scopes + 1) * sizeof *c->qs_of_ps);
    if (!q->scopes || !c->qs_of_ps) return pk_fail_nomem("shaping scopes");
    memcpy(q->scopes, std_scopes, sizeof std_scopes);
    unsigned char taken[QS_STD] = {0};
    c->n_qs = QS_STD;
    for (uint32_t i = 0; i < p->n_scopes; i++) {
        int k = std_of_kind(p->scopes[i].kind);
        if (k >= 0 && !taken[k]) {
            taken[k] = 1;
            c->qs_of_ps[i] = (uint32_t)k;
            continue;
        }
        const pk_scope *ps = &p->scopes[i];
        q->scopes[c->n_qs] = (pk_scope){ps->name ? ps->name : "custom", PK_SCOPE_OTHER,
                                        ps->raw_type > 3 ? ps->raw_type : 0,
                                        ps->raw_type > 3 ? ps->propagation_index : 255};
        c->qs_of_ps[i] = c->n_qs++;
    }
    q->n_scopes = c->n_qs;
    return PK_OK;
}

void hk_shape_scan_plain(const pk_profile *p, unsigned char *has_plain, int *unknown_raw)
{
    for (uint32_t l = 0; l < p->n_locs; l++) {
        const pk_plane *pl = &p->locs[l].plane;
        if (p->locs[l].is_summary) continue;
        for (uint64_t v = 0; v < pl->nvals; v++) {
            uint32_t col = pk_model_col_of(p, 0, pk_le16(pl->vals + v * PK_LM_VAL_SIZE));
            if (col != PK_NONE && !p->columns[col].is_summary)
                has_plain[p->columns[col].metric] = 1;
            else
                *unknown_raw = 1; /* values no column holds: never copied as they are */
        }
    }
}

/* Which metrics some plain location holds values of (all members' when
 * a parallel build says so). */
static pk_status scan_plain(hk_shape *s)
{
    const pk_profile *p = s->p;
    s->has_plain = calloc((size_t)p->n_metrics + 1, 1);
    if (!s->has_plain) return pk_fail_nomem("shaping columns");
    if (s->preset_plain) {
        memcpy(s->has_plain, s->preset_plain, p->n_metrics);
        s->unknown_raw = s->preset_unknown;
        return PK_OK;
    }
    hk_shape_scan_plain(p, s->has_plain, &s->unknown_raw);
    return PK_OK;
}

static pk_status add_col(cols_plan *c, pk_column col, hs_col src, int extra)
{
    if (c->n == c->cap) {
        uint32_t cap = c->cap ? 2 * c->cap : 64;
        pk_column *a = realloc(c->cols, (size_t)cap * sizeof *a);
        if (a) c->cols = a;
        hs_col *b = realloc(c->src, (size_t)cap * sizeof *b);
        if (b) c->src = b;
        unsigned char *e = realloc(c->extra, cap);
        if (e) c->extra = e;
        if (!a || !b || !e) return pk_fail_nomem("shaping columns");
        c->cap = cap;
    }
    c->cols[c->n] = col;
    c->src[c->n] = src;
    c->extra[c->n++] = (unsigned char)extra;
    return PK_OK;
}

static int partial_formula(const pk_column *col)
{
    const char *f = col->formula ? col->formula : "$$";
    return col->stat != PK_STAT_OTHER && col->combine <= PK_COMBINE_MAX &&
           (!strcmp(f, "$$") || !strcmp(f, "1") || !strcmp(f, "($$^2)"));
}

/* The metric's combine as HPCToolkit statistics can say it. */
static pk_combine main_combine(const pk_metric *m)
{
    return m->combine == PK_COMBINE_MIN || m->combine == PK_COMBINE_MAX ? m->combine
                                                                        : PK_COMBINE_SUM;
}

static pk_stat stat_of(pk_combine cb)
{
    return cb == PK_COMBINE_MIN ? PK_STAT_MIN : cb == PK_COMBINE_MAX ? PK_STAT_MAX : PK_STAT_SUM;
}

/* Source columns of metric m in shaped scope qs: plain, main statistic,
 * legacy "raw" (all PK_NONE if absent). */
typedef struct found {
    uint32_t plain, main, raw;
} found;

static found find_cols(const cols_plan *c, uint32_t m, uint32_t qs)
{
    const pk_profile *p = c->s->p;
    pk_combine cb = main_combine(&p->metrics[m]);
    found f = {PK_NONE, PK_NONE, PK_NONE};
    for (uint32_t i = 0; i < p->n_columns; i++) {
        const pk_column *col = &p->columns[i];
        if (col->metric != m || col->scope >= p->n_scopes || c->qs_of_ps[col->scope] != qs)
            continue;
        if (!col->is_summary) {
            if (f.plain == PK_NONE) f.plain = i;
        } else if (partial_formula(col) && col->stat == stat_of(cb) &&
                   !strcmp(col->formula ? col->formula : "$$", "$$")) {
            if (f.main == PK_NONE) f.main = i;
        } else if (col->stat == PK_STAT_OTHER && col->formula && !strcmp(col->formula, "raw")) {
            if (f.raw == PK_NONE) f.raw = i;
        }
    }
    return f;
}

/* Where metric m's values in shaped scope qs come from when the source
 * lacks them: the scope derived from another stored one. */
static uint32_t derive_from(const cols_plan *c, uint32_t m, uint32_t qs, uint8_t *from_kind)
{
    const pk_profile *p = c->s->p;
    if (qs != QS_EXEC && qs != QS_FUNCTION) return PK_NONE;
    pk_combine cb = p->metrics[m].combine;
    if (cb == PK_COMBINE_OTHER) return PK_NONE;
    static const int order_exec[] = {QS_FUNCTION, QS_POINT}, order_fn[] = {QS_POINT, QS_EXEC};
    const int *order = qs == QS_EXEC ? order_exec : order_fn;
    for (int k = 0; k < 2; k++) {
        if (order[k] == QS_EXEC && cb != PK_COMBINE_SUM) continue; /* min/max: not invertible */
        found f = find_cols(c, m, (uint32_t)order[k]);
        if (f.plain == PK_NONE) continue;
        *from_kind = (uint8_t)std_scopes[order[k]].kind;
        return f.plain;
    }
    return PK_NONE;
}

/* A statistic hpcviewer cannot evaluate: written as the partials it
 * computes the same statistic from, or reported as left out. */
static pk_status presented_stat(cols_plan *c, uint32_t m, uint32_t qs, uint32_t plain_q,
                                const pk_column *col, unsigned *want)
{
    const pk_profile *p = c->s->p;
    const char *f = col->formula ? col->formula : "?";
    int mean = !strcmp(f, "Mean"), spread = !strcmp(f, "StdDev") || !strcmp(f, "CfVar");
    if ((mean || spread) && c->s->has_plain[m] && main_combine(&p->metrics[m]) == PK_COMBINE_SUM &&
        plain_q != PK_NONE) {
        *want |= 1u | (spread ? 2u : 0u); /* count, and the sum of squares */
        return PK_OK;
    }
    char item[300];
    snprintf(item, sizeof item, "statistic '%s' of metric '%s' (%s)", f,
             p->metrics[m].name ? p->metrics[m].name : "", c->s->q->scopes[qs].name);
    return pk_write_lose(c->s->o, c->s->stats, c->s->path, item,
                         "an HPCToolkit database stores partials (Sum, count, sum of squares, "
                         "Min, Max) that hpcviewer evaluates over $$, not results under other "
                         "names, and %s",
                         c->s->has_plain[m] ? "this one cannot be computed from them"
                                            : "the source has no per-location values to compute "
                                              "the partials from");
}

static int has_stat(const cols_plan *c, uint32_t first, pk_stat st)
{
    for (uint32_t i = first; i < c->n; i++)
        if (c->cols[i].is_summary && c->cols[i].stat == st) return 1;
    return 0;
}

/* Statistics of (m, qs) after the main one. */
static pk_status extra_stats(cols_plan *c, uint32_t m, uint32_t qs, uint32_t plain_q, found f)
{
    const pk_profile *p = c->s->p;
    uint32_t first = c->n - 1; /* the main statistic */
    unsigned want = 0;
    pk_status st = PK_OK;
    for (uint32_t i = 0; i < p->n_columns && !st; i++) {
        const pk_column *col = &p->columns[i];
        if (!col->is_summary || col->metric != m || col->scope >= p->n_scopes ||
            c->qs_of_ps[col->scope] != qs || i == f.main || (i == f.raw && f.main == PK_NONE))
            continue;
        if (!partial_formula(col)) {
            st = presented_stat(c, m, qs, plain_q, col, &want);
        } else if (!has_stat(c, first, col->stat)) {
            pk_column x = {m, qs, 1, col->stat, col->formula ? col->formula : "$$", col->combine,
                           0};
            st = add_col(c, x, (hs_col){HS_STORED, i, 0, 0, PK_SCOPE_OTHER}, 1);
        }
    }
    static const struct {
        pk_stat stat;
        const char *formula;
        uint8_t reduce;
    } partials[2] = {{PK_STAT_COUNT, "1", HS_COUNT}, {PK_STAT_SUMSQ, "($$^2)", HS_SUMSQ}};
    for (int k = 0; k < 2 && !st; k++) {
        if (!(want >> k & 1u) || has_stat(c, first, partials[k].stat)) continue;
        pk_column x = {m, qs, 1, partials[k].stat, partials[k].formula, PK_COMBINE_SUM, 0};
        st =
            add_col(c, x, (hs_col){HS_COMBINED, plain_q, partials[k].reduce, 0, PK_SCOPE_OTHER}, 1);
    }
    return st;
}

static int any_summary(const cols_plan *c, uint32_t m, uint32_t qs)
{
    const pk_profile *p = c->s->p;
    for (uint32_t i = 0; i < p->n_columns; i++)
        if (p->columns[i].is_summary && p->columns[i].metric == m &&
            p->columns[i].scope < p->n_scopes && c->qs_of_ps[p->columns[i].scope] == qs)
            return 1;
    return 0;
}

/* The per-profile column and the main statistic of (m, qs). */
static pk_status plan_scope(cols_plan *c, uint32_t m, uint32_t qs)
{
    hk_shape *s = c->s;
    found f = find_cols(c, m, qs);
    uint8_t from_kind = 0;
    uint32_t d = f.plain == PK_NONE ? derive_from(c, m, qs, &from_kind) : PK_NONE;
    if (f.plain == PK_NONE && d == PK_NONE && !any_summary(c, m, qs)) return PK_OK;
    uint8_t kind = (uint8_t)s->q->scopes[qs].kind;
    hs_col src = {HS_NONE, PK_NONE, 0, 0, kind};
    if (f.plain != PK_NONE)
        src = (hs_col){HS_STORED, f.plain, 0, 0, kind};
    else if (d != PK_NONE)
        src = (hs_col){HS_DERIVED, d, 0, from_kind, kind};
    uint32_t plain_q = c->n;
    pk_status st = add_col(c, (pk_column){m, qs, 0, PK_STAT_NONE, NULL, PK_COMBINE_SUM, 0}, src, 0);
    if (st) return st;
    if (f.plain != PK_NONE) s->qcol_of_pcol[f.plain] = plain_q;
    pk_combine cb = main_combine(&s->p->metrics[m]);
    hs_col msrc = {HS_NONE, PK_NONE, 0, 0, kind};
    /* a kept sum that is not the written profiles' sum: readers must be told */
    if (f.main != PK_NONE && s->has_plain[m] && s->p->format != PK_FORMAT_HPCTOOLKIT_V4)
        s->q->summary_inexact = 1;
    if (f.main != PK_NONE)
        msrc = (hs_col){HS_STORED, f.main, 0, 0, kind};
    else if (s->has_plain[m])
        msrc = (hs_col){HS_COMBINED, plain_q,
                        cb == PK_COMBINE_MIN   ? HS_MIN
                        : cb == PK_COMBINE_MAX ? HS_MAX
                                               : HS_SUM,
                        0, kind};
    else if (f.raw != PK_NONE)
        msrc = (hs_col){HS_STORED, f.raw, 0, 0, kind};
    st = add_col(c, (pk_column){m, qs, 1, stat_of(cb), "$$", cb, 0}, msrc, 2);
    return st ? st : extra_stats(c, m, qs, plain_q, f);
}

/* Only the scopes some column uses stay. */
static pk_status drop_unused_scopes(cols_plan *c)
{
    pk_profile *q = c->s->q;
    uint32_t *to = malloc(((size_t)c->n_qs + 1) * sizeof *to), n = 0;
    unsigned char *used = calloc((size_t)c->n_qs + 1, 1);
    if (!to || !used) {
        free(to), free(used);
        return pk_fail_nomem("shaping scopes");
    }
    for (uint32_t i = 0; i < c->n; i++)
        used[c->cols[i].scope] = 1;
    for (uint32_t qs = 0; qs < c->n_qs; qs++) {
        to[qs] = used[qs] ? n : PK_NONE;
        if (used[qs]) q->scopes[n++] = q->scopes[qs];
    }
    for (uint32_t i = 0; i < c->n; i++)
        c->cols[i].scope = to[c->cols[i].scope];
    q->n_scopes = n;
    free(to), free(used);
    return PK_OK;
}

/* Main ids first, each shared by a plain column and the statistic after
 * it; the other statistics after all of them. */
static pk_status number_columns(cols_plan *c)
{
    if (drop_unused_scopes(c) != PK_OK) return PK_ERR_NOMEM;
    uint32_t next = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        if (c->extra[i] == 1) continue;
        c->cols[i].raw_id = c->extra[i] == 2 ? c->cols[i - 1].raw_id : next++;
    }
    for (uint32_t i = 0; i < c->n; i++)
        if (c->extra[i] == 1) c->cols[i].raw_id = next++;
    if (next > 65536)
        return pk_fail(PK_ERR_UNSUPPORTED,
                       "meta.db: %u metric ids needed; HPCToolkit's metric ids are 16-bit", next);
    pk_profile *q = c->s->q;
    q->columns = pk_arena_array(&q->arena, (size_t)c->n + 1, sizeof *q->columns);
    if (!q->columns) return pk_fail_nomem("shaping columns");
    if (c->n) memcpy(q->columns, c->cols, (size_t)c->n * sizeof *c->cols);
    q->n_columns = c->n;
    pk_status st = PK_OK;
    for (uint32_t i = 0; i < c->n && !st; i++)
        st = pk_model_map_column(q, q->columns[i].is_summary, q->columns[i].raw_id, i);
    return st;
}

/* Can the plain locations' planes be written as the source has them?
 * Same context ids, no added entry, every plain column under its own id,
 * nothing derived, no value of an unknown id. (The summary is built anew
 * in any case.) */
static int plain_identity(const hk_shape *s)
{
    const pk_profile *p = s->p, *q = s->q;
    if (s->renumbered || s->entry != PK_NONE || s->unknown_raw) return 0;
    for (uint32_t c = 0; c < q->n_columns; c++)
        if (s->col[c].source == HS_DERIVED) return 0;
    for (uint32_t c = 0; c < p->n_columns; c++) {
        if (p->columns[c].is_summary) continue;
        uint32_t qc = s->qcol_of_pcol[c];
        if (qc == PK_NONE || q->columns[qc].raw_id != p->columns[c].raw_id) return 0;
    }
    return 1;
}

pk_status hs_columns(hk_shape *s)
{
    const pk_profile *p = s->p;
    cols_plan c = {.s = s};
    s->qcol_of_pcol = malloc(((size_t)p->n_columns + 1) * sizeof *s->qcol_of_pcol);
    if (!s->qcol_of_pcol) return pk_fail_nomem("shaping columns");
    for (uint32_t i = 0; i < p->n_columns; i++)
        s->qcol_of_pcol[i] = PK_NONE;
    pk_status st = scan_plain(s);
    if (!st) st = plan_scopes(&c);
    for (uint32_t m = 0; m < p->n_metrics && !st; m++)
        for (uint32_t qs = 0; qs < c.n_qs && !st; qs++)
            st = plan_scope(&c, m, qs);
    if (!st) st = number_columns(&c);
    free(c.qs_of_ps);
    free(c.cols);
    free(c.extra);
    if (st) {
        free(c.src);
        return st;
    }
    s->col = c.src;
    s->plain_identity = plain_identity(s);
    s->q->summary_inexact |= p->summary_inexact;
    return PK_OK;
}
