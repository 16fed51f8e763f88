/*
 * formats/callgrind/build_finish.c — turning what the parser collected
 * into the model: same-position self costs merged, each part's summary:
 * and totals: checked against its costs, the call graph attached, metrics
 * and locations set up, and the calling-context tree reconstructed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cg_model.h"
#include "cgrd.h"
#include "profkit/analysis.h"
#include "util/error.h"
#include "util/vec.h"

typedef struct srt {
    uint64_t instr, bb;
    uint32_t line, idx;
} srt;

static int cmp_srt(const void *a, const void *b)
{
    const srt *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->instr != y->instr) return x->instr < y->instr ? -1 : 1;
    if (x->bb != y->bb) return x->bb < y->bb ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The final rows of one kind of record: values and row starts. */
typedef struct out_rows {
    double *v;
    uint64_t *off, n_v;
    size_t cap_v;
} out_rows;

/* Append sum[0, len) as the next row, without its trailing zeros. */
static pk_status put_row(out_rows *o, uint64_t row, const double *sum, uint32_t len)
{
    while (len && sum[len - 1] == 0.0)
        len--;
    if (pk_vec_reserve((void **)&o->v, &o->cap_v, o->n_v + len + 1, sizeof *o->v))
        return pk_fail_nomem("merging costs");
    memcpy(o->v + o->n_v, sum, len * sizeof *sum);
    o->off[row] = o->n_v;
    o->n_v += len;
    o->off[row + 1] = o->n_v;
    return PK_OK;
}

/* perm[] grouped by accumulator (counting sort: records stay in order);
 * *voff receives where each raw record's values start. */
static uint32_t *group_by_acc(const cg_build *b, uint64_t **starts, uint64_t **voff)
{
    uint64_t *start = calloc((size_t)b->n_acc + 2, sizeof *start);
    uint64_t *vo = malloc((b->n_raw + 1) * sizeof *vo);
    uint32_t *perm = malloc((b->n_raw + 1) * sizeof *perm);
    if (!start || !perm || !vo) {
        free(start), free(perm), free(vo);
        return NULL;
    }
    uint64_t v = 0;
    for (uint64_t i = 0; i < b->n_raw; i++) {
        start[b->raw[i].acc + 2]++;
        vo[i] = v, v += b->raw[i].len;
    }
    for (uint32_t a = 0; a < b->n_acc; a++)
        start[a + 2] += start[a + 1];
    for (uint64_t i = 0; i < b->n_raw; i++)
        perm[start[b->raw[i].acc + 1]++] = (uint32_t)i;
    *starts = start; /* start[a] .. start[a+1] is group a */
    *voff = vo;
    return perm;
}

/* One accumulator's records, sorted by position: same positions summed
 * into one record each. `sum` is a zeroed scratch row of b->stride. */
static pk_status emit_group(cg_build *b, const srt *s, uint64_t n, uint32_t acc,
                            const uint64_t *voff, double *sum, out_rows *o)
{
    pk_cg *cg = b->cg;
    const uint32_t *k = b->acc_key + (size_t)acc * 3;
    uint32_t len = 0;
    pk_status st = PK_OK;
    for (uint64_t i = 0; i < n && !st; i++) {
        const cgb_raw *r = &b->raw[s[i].idx];
        const double *v = b->raw_v + voff[s[i].idx];
        for (uint32_t e = 0; e < r->len; e++)
            sum[e] += v[e];
        if (r->len > len) len = r->len;
        int last = i + 1 == n || s[i + 1].line != s[i].line || s[i + 1].instr != s[i].instr ||
                   s[i + 1].bb != s[i].bb;
        if (!last) continue;
        cg->self[cg->n_self] = (pk_cg_self_rec){k[0], k[1], k[2], s[i].line, s[i].instr, s[i].bb};
        st = put_row(o, cg->n_self++, sum, len);
        memset(sum, 0, len * sizeof *sum);
        len = 0;
    }
    return st;
}

/* Self costs per position: one record per (part, function, file,
 * position), positions ascending within each (part, function, file). */
static pk_status merge_positions(cg_build *b, out_rows *o, double *sum)
{
    uint64_t *start = NULL, *voff = NULL;
    uint32_t *perm = group_by_acc(b, &start, &voff);
    srt *s = malloc((b->n_raw + 1) * sizeof *s);
    pk_status st = perm && s ? PK_OK : pk_fail_nomem("merging costs");
    for (uint32_t a = 0; a < b->n_acc && !st; a++) {
        uint64_t lo = start[a], m = start[a + 1] - lo;
        for (uint64_t i = 0; i < m; i++) {
            const cgb_raw *r = &b->raw[perm[lo + i]];
            s[i] = (srt){r->instr, r->bb, r->line, perm[lo + i]};
        }
        qsort(s, m, sizeof *s, cmp_srt);
        st = emit_group(b, s, m, a, voff, sum, o);
    }
    free(perm), free(start), free(s), free(voff);
    return st;
}

/* Rows that fill most of n_events are stored dense (no row starts). */
static pk_status settle_rows(out_rows *o, uint64_t n, uint32_t ne, double **v, uint64_t **off)
{
    *v = o->v, *off = o->off;
    if (!n || o->n_v * 4 < (uint64_t)n * ne * 3) return PK_OK;
    double *d = calloc((size_t)n * ne + 1, sizeof *d);
    if (!d) return PK_OK; /* the variable rows are just as right */
    for (uint64_t i = 0; i < n; i++)
        memcpy(d + i * ne, o->v + o->off[i], (o->off[i + 1] - o->off[i]) * sizeof *d);
    free(o->v), free(o->off);
    *v = d, *off = NULL;
    return PK_OK;
}

static pk_status new_rows(out_rows *o, uint64_t n)
{
    memset(o, 0, sizeof *o);
    o->off = malloc((n + 2) * sizeof *o->off);
    if (!o->off) return pk_fail_nomem("merging costs");
    o->off[0] = 0;
    return PK_OK;
}

/* Self costs: per position (merged) or, by function, one per accumulator. */
static pk_status merge_self(cg_build *b)
{
    pk_cg *cg = b->cg;
    uint64_t n = b->by_function ? b->n_acc : b->n_raw;
    out_rows o;
    double *sum = calloc((size_t)b->stride + 1, sizeof *sum);
    cg->self = malloc((n + 1) * sizeof *cg->self);
    pk_status st = new_rows(&o, n);
    if (!st && (!cg->self || !sum)) st = pk_fail_nomem("merging costs");
    if (!st && b->by_function) {
        for (uint32_t a = 0; a < b->n_acc && !st; a++) {
            const uint32_t *k = b->acc_key + (size_t)a * 3;
            cg->self[a] = (pk_cg_self_rec){k[0], k[1], k[2], 0, 0, 0};
            st = put_row(&o, a, b->acc_rows.v + b->acc_rows.off[a], b->acc_rows.len[a]);
        }
        cg->n_self = st ? 0 : b->n_acc;
    } else if (!st) {
        st = merge_positions(b, &o, sum);
    }
    free(sum);
    if (!st) st = settle_rows(&o, cg->n_self, cg->n_events, &cg->self_cost, &cg->self_off);
    if (st) free(o.v), free(o.off);
    free(b->raw), free(b->raw_v);
    b->raw = NULL, b->raw_v = NULL;
    return st;
}

/* Call arcs' inclusive costs, from the in-place rows to the final ones. */
static pk_status settle_calls(cg_build *b)
{
    pk_cg *cg = b->cg;
    out_rows o;
    pk_status st = new_rows(&o, cg->n_calls);
    for (uint64_t i = 0; i < cg->n_calls && !st; i++)
        st = put_row(&o, i, b->call_rows.v + b->call_rows.off[i], b->call_rows.len[i]);
    if (!st) st = settle_rows(&o, cg->n_calls, cg->n_events, &cg->call_cost, &cg->call_off);
    if (st) free(o.v), free(o.off);
    return st;
}

/* A part's summary:/totals: by global event. */
static pk_status by_event(const cg_build *b, const cgb_part *bp, const double *cols, double **out)
{
    if (!cols) return PK_OK;
    *out = calloc(b->stride + 1u, sizeof **out);
    if (!*out) return pk_fail_nomem("reading totals");
    for (uint32_t c = 0; c < bp->n_cols; c++)
        (*out)[bp->col_event[c]] = cols[c];
    return PK_OK;
}

static void check_line(cg_build *b, const pk_cg_part_rec *part, const double *stated,
                       const double *sum, const char *what, uint64_t line)
{
    for (uint32_t e = 0; stated && e < b->stride; e++) {
        if (b->cg->events[e].formula || stated[e] == sum[e]) continue;
        char where[48];
        snprintf(where, sizeof where, "line %llu", (unsigned long long)line);
        pk_model_diag(
            b->p, PK_SEV_WARNING, strcmp(what, "totals") ? "summary-mismatch" : "totals-mismatch",
            part->file, where, 0, 0,
            "part %u: '%s:' says %s = %.17g but the cost lines sum to %.17g%s", part->number, what,
            b->cg->events[e].name, stated[e], sum[e],
            strcmp(what, "totals") ? " (summary: is only required to be at least that)" : "");
        return;
    }
}

static pk_status check_parts(cg_build *b)
{
    pk_cg *cg = b->cg;
    uint32_t ne = b->stride;
    double *sums = calloc((size_t)cg->n_parts * ne + 1, sizeof *sums);
    if (!sums) return pk_fail_nomem("checking totals");
    for (uint64_t i = 0; i < cg->n_self; i++) {
        const double *v;
        uint32_t len = pk_cg_self_costs(cg, i, &v);
        for (uint32_t e = 0; e < len; e++)
            sums[(size_t)cg->self[i].part * ne + e] += v[e];
    }
    pk_status st = PK_OK;
    for (uint32_t k = 0; k < cg->n_parts && !st; k++) {
        pk_cg_part_rec *part = &cg->parts[k];
        const cgb_part *bp = &b->bparts[k];
        st = by_event(b, bp, bp->summary, &part->summary);
        if (!st) st = by_event(b, bp, bp->totals, &part->totals);
        if (st) break;
        check_line(b, part, part->summary, sums + (size_t)k * ne, "summary", part->summary_line);
        check_line(b, part, part->totals, sums + (size_t)k * ne, "totals", part->totals_line);
    }
    free(sums);
    return st;
}

/* A file that never says which events it counts holds no profile, even
 * if its header lines (a cut file) made a part. */
static int declares_events(const cg_build *b)
{
    for (uint32_t k = 0; k < b->n_bparts; k++)
        if (b->bparts[k].n_cols) return 1;
    return 0;
}

/* An event listed in events: has data; a formula for it too (event: X =
 * ...) would hide that data from every consumer: keep the data. */
static void drop_formulas_of_data(cg_build *b)
{
    for (uint32_t k = 0; k < b->n_bparts; k++)
        for (uint32_t c = 0; c < b->bparts[k].n_cols; c++) {
            pk_cg_event_rec *ev = &b->cg->events[b->bparts[k].col_event[c]];
            if (!ev->formula) continue;
            pk_model_diag(b->p, PK_SEV_WARNING, "formula-with-data", NULL, NULL, 0, 0,
                          "event '%s' is listed in events: and also defined as '%s': the "
                          "formula is ignored",
                          ev->name, ev->formula);
            ev->formula = NULL;
        }
}

pk_status cgb_finish(cg_build *b)
{
    pk_profile *p = b->p;
    if (!b->cg->n_parts || !declares_events(b))
        return pk_fail(PK_ERR_FORMAT, "%s: no profile data (no events: line)", p->path);
    drop_formulas_of_data(b);
    pk_status st = merge_self(b);
    if (!st) st = settle_calls(b);
    if (!st) st = check_parts(b);
    if (st) return st;
    p->cg = b->cg;
    b->cg = NULL;
    p->cg->n_model_functions = p->cg->n_functions = p->n_functions;
    return pk_cg_complete_model(p, b->tree, b->tree_threshold);
}
